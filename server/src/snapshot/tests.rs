//! The conversion table checked message by message: boards, statuses, snapshots,
//! `moved` events, analyses and the text record.

use inarow_engine::{Move, Rules};
use inarow_protocol::{Occupant, SessionId};

use super::*;

fn seats(filled: bool) -> Vec<SeatInfo> {
    let human = |mark| SeatInfo {
        mark,
        occupant: Occupant::Human {
            name: "ann".into(),
            session: SessionId(uuid::Uuid::nil()),
            connected: true,
        },
        rematch: false,
    };
    let o = if filled {
        human(Mark::O)
    } else {
        SeatInfo {
            mark: Mark::O,
            occupant: Occupant::Empty,
            rematch: false,
        }
    };
    vec![human(Mark::X), o]
}

fn play(position: &mut Position, moves: &[&str]) {
    for m in moves {
        let mv: Move = position.rules().parse_move(m).expect("test moves parse");
        position.try_play(mv).expect("test moves are legal");
    }
}

fn facts<'a>(id: &'a RoomId, position: &'a Position, filled: bool) -> RoomFacts<'a> {
    RoomFacts {
        id,
        name: "room",
        private: false,
        hints: false,
        seq: 7,
        game: 1,
        seats: seats(filled),
        position,
        ending: None,
        time_control: None,
        takebacks: false,
        clock: None,
        offer: None,
        spectators: vec!["bob".into()],
        last_game: None,
    }
}

/// The `game` example of docs/protocol.md: its `text` is what the server writes.
#[test]
fn the_record_text_is_the_documented_one() {
    let frame = r#"{"type": "game", "id": 12, "game": {"game": 42, "room": "k7m2q9xa", "number": 3, "rules": {"width": 3, "height": 3, "k": 3, "gravity": false}, "x": {"name": "ann"}, "o": {"name": "bob"}, "result": {"state": "won", "winner": "X", "line": ["a1", "b2", "c3"]}, "ply": 5, "started_at": 1795450900000, "ended_at": 1795450912000, "moves": [{"move": "b2", "cell": "b2", "by": "X", "ms": 2100}, {"move": "a2", "cell": "a2", "by": "O", "ms": 3400}, {"move": "a1", "cell": "a1", "by": "X", "ms": 1800}, {"move": "c1", "cell": "c1", "by": "O", "ms": 2500}, {"move": "c3", "cell": "c3", "by": "X", "ms": 2200}], "text": "[Game \"42\"]\n[Room \"k7m2q9xa\"]\n[Board \"3x3\"]\n[K \"3\"]\n[Gravity \"no\"]\n[X \"ann\"]\n[O \"bob\"]\n[Start \"2026-11-23T16:21:40Z\"]\n[End \"2026-11-23T16:21:52Z\"]\n[Result \"1-0\"]\n[Termination \"line a1 b2 c3\"]\n\n1. b2 {2.1s} a2 {3.4s} 2. a1 {1.8s} c1 {2.5s} 3. c3 {2.2s} 1-0\n"}}"#;
    let ServerMessage::Game { game } = wire::decode_server(frame).expect("golden").message else {
        panic!("not a game");
    };
    let text = record_text(&game.summary, &game.moves).expect("a valid game");
    assert_eq!(text, game.text);
}

#[test]
fn ai_players_get_a_level_tag_and_resignations_a_termination() {
    let summary = GameSummary {
        game: GameId(7),
        room: None,
        number: 1,
        rules: rules(engine::Rules::connect4()),
        x: wire::PlayerRef {
            name: "ann".into(),
            ai: None,
        },
        o: wire::PlayerRef {
            name: ai_name(wire::Level::Easy),
            ai: Some(wire::Level::Easy),
        },
        result: GameStatus::Resigned { winner: Mark::O },
        ply: 1,
        started_at: 0,
        ended_at: 1000,
        time_control: None,
    };
    let moves = [PlayedMove {
        mv: "d".into(),
        cell: "d1".into(),
        by: Mark::X,
        ms: 1000,
        clock_ms: None,
    }];
    let text = record_text(&summary, &moves).expect("valid");
    assert!(!text.contains("[Room"), "{text}");
    assert!(text.contains("[O \"AI (easy)\"]\n[OAI \"easy\"]"), "{text}");
    assert!(text.contains("[Termination \"resigned\"]"), "{text}");
    assert!(text.ends_with("1. d {1.0s} 0-1\n"), "{text}");
    let back = Record::parse(&text).expect("the engine reads it");
    assert_eq!(back.position.ply(), 1);
}

#[test]
fn tictactoe_board_rows_run_top_down() {
    let mut p = Position::new(Rules::tictactoe());
    play(&mut p, &["a1", "b2", "c3"]);
    let id = RoomId::from("abc");
    let s = snapshot(facts(&id, &p, true));
    assert_eq!(s.board, vec!["..X", ".O.", "X.."]);
    assert_eq!(s.moves, vec!["a1", "b2", "c3"]);
    assert_eq!(s.ply, 3);
    assert_eq!(s.last_move.as_deref(), Some("c3"));
    assert_eq!(s.status, GameStatus::Playing { turn: Mark::O });
    assert_eq!(s.legal_moves.len(), 6);
    assert!(s.legal_moves.contains(&"a2".to_owned()));
    assert_eq!(s.seq, 7);
    assert_eq!(s.spectators, vec!["bob"]);
    assert_eq!(
        s.rules,
        wire::Rules {
            width: 3,
            height: 3,
            k: 3,
            gravity: false
        }
    );
}

#[test]
fn an_empty_seat_makes_an_unfinished_game_wait_with_no_legal_moves() {
    let mut p = Position::new(Rules::tictactoe());
    play(&mut p, &["a1"]);
    let id = RoomId::from("abc");
    let s = snapshot(facts(&id, &p, false));
    assert_eq!(s.status, GameStatus::Waiting);
    assert!(s.legal_moves.is_empty());
}

#[test]
fn a_won_game_names_the_line_and_a_resignation_overrides() {
    let mut p = Position::new(Rules::tictactoe());
    play(&mut p, &["a1", "a2", "b1", "b2", "c1"]);
    let id = RoomId::from("abc");
    let s = snapshot(facts(&id, &p, true));
    match &s.status {
        GameStatus::Won { winner, line } => {
            assert_eq!(*winner, Mark::X);
            let mut line = line.clone();
            line.sort();
            assert_eq!(line, vec!["a1", "b1", "c1"]);
        }
        other => panic!("expected a win, got {other:?}"),
    }
    assert!(s.legal_moves.is_empty());
    let mut f = facts(&id, &p, true);
    f.ending = Some(Ending::Resigned { winner: Mark::O });
    assert_eq!(snapshot(f).status, GameStatus::Resigned { winner: Mark::O });
}

#[test]
fn connect_four_stones_fall_and_moves_are_columns() {
    let mut p = Position::new(Rules::connect4());
    play(&mut p, &["d", "d", "e"]);
    let id = RoomId::from("abc");
    let s = snapshot(facts(&id, &p, true));
    assert_eq!(s.board.len(), 6);
    assert_eq!(s.board[5], "...XX..");
    assert_eq!(s.board[4], "...O...");
    assert_eq!(s.last_move.as_deref(), Some("e1"));
    assert_eq!(s.moves, vec!["d", "d", "e"]);
    assert_eq!(s.legal_moves.len(), 7);
}

#[test]
fn an_analysis_names_each_move_its_cell_and_its_value() {
    let id = RoomId::from("abc");
    let mut p = Position::new(Rules::connect4());
    play(&mut p, &["d", "d"]);
    let engine_analysis = engine::Analysis {
        moves: vec![
            engine::MoveValue {
                mv: Move::Column(3),
                value: engine::Value::Win(9),
            },
            engine::MoveValue {
                mv: Move::Column(0),
                value: engine::Value::Loss(4),
            },
            engine::MoveValue {
                mv: Move::Column(2),
                value: engine::Value::Draw,
            },
            engine::MoveValue {
                mv: Move::Column(6),
                value: engine::Value::Estimate(-35),
            },
        ],
        best: Some(Move::Column(3)),
        nodes: 1,
        depth: 1,
        proven: false,
    };
    let ServerMessage::Analysis {
        room,
        game,
        ply,
        moves,
    } = analysis(&id, 3, &p, &engine_analysis)
    else {
        panic!("an analysis");
    };
    assert_eq!((room, game, ply), (id, 3, 2));
    let entry = |mv: &str, cell: &str, value, proven| wire::MoveAnalysis {
        mv: mv.into(),
        cell: cell.into(),
        value,
        proven,
    };
    assert_eq!(
        moves,
        vec![
            entry("d", "d3", wire::MoveValue::Win { plies: 9 }, true),
            entry("c", "c1", wire::MoveValue::Draw, true),
            entry("g", "g1", wire::MoveValue::Estimate { score: -35 }, false),
            entry("a", "a1", wire::MoveValue::Loss { plies: 4 }, true),
        ]
    );
}

#[test]
fn hints_rank_wins_quickest_first_and_losses_slowest_first() {
    use engine::Value::{Draw, Estimate, Loss, Win};
    let mut values = vec![
        Loss(2),
        Estimate(-1_000_003),
        Draw,
        Win(5),
        Estimate(40),
        Loss(8),
        Win(1),
        Estimate(-3),
    ];
    values.sort_by_key(|v| std::cmp::Reverse(rank(*v)));
    assert_eq!(
        values,
        vec![
            Win(1),
            Win(5),
            Estimate(40),
            Draw,
            Estimate(-3),
            Estimate(-1_000_003),
            Loss(8),
            Loss(2)
        ]
    );
}

#[test]
fn moved_names_the_column_the_cell_and_the_mover() {
    let id = RoomId::from("abc");
    let mut p = Position::new(Rules::connect4());
    assert_eq!(moved(&id, 1, 1, &p, GameStatus::Waiting, None), None);
    play(&mut p, &["d", "d"]);
    let status = GameStatus::Playing { turn: Mark::X };
    let event = moved(&id, 4, 2, &p, status.clone(), None);
    assert_eq!(
        event,
        Some(ServerMessage::Moved(wire::MoveEvent {
            room: id,
            seq: 4,
            game: 2,
            ply: 2,
            mv: "d".into(),
            cell: "d2".into(),
            by: Mark::O,
            status,
            clock: None,
        }))
    );
}
