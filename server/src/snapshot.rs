//! The one place where engine types become wire types: marks, levels, rules, statuses,
//! whole room snapshots, `moved` events, analyses and the text record of a finished game.
//!
//! Over 600 lines with its tests: one conversion table, read top to bottom, that its
//! tests check message by message.

use inarow_engine::record::{self, Record, RecordResult};
use inarow_engine::{self as engine, Cell, Position};
use inarow_protocol::{
    self as wire, GameId, GameStatus, GameSummary, Mark, PlayedMove, RoomId, RoomSnapshot,
    SeatInfo, ServerMessage,
};

/// How a game ended other than on the board, as the table keeps it (and the store saves
/// it for a restart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Ending {
    /// A player resigned; `winner` is the other.
    Resigned {
        /// The player who did not resign.
        winner: Mark,
    },
    /// A clock ran out (or a seat was given up in a timed game); `winner` is the other.
    Timeout {
        /// The player whose clock did not run out.
        winner: Mark,
    },
    /// The players agreed a draw.
    Agreed,
    /// A player left before each side had moved: no result.
    Aborted,
}

/// A game's status without a won game's line: what the room decides with (whose turn,
/// whether the game is over), cheap to copy. [`status`] gives the wire's whole status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatusView {
    /// A seat is empty.
    Waiting,
    /// `turn` is to move.
    Playing {
        /// Whose turn it is.
        turn: Mark,
    },
    /// `winner` made a line.
    Won {
        /// Who won.
        winner: Mark,
    },
    /// The board is full.
    Drawn,
    /// The loser resigned.
    Resigned {
        /// Who won.
        winner: Mark,
    },
    /// The loser's clock ran out.
    Timeout {
        /// Who won.
        winner: Mark,
    },
    /// Drawn by agreement.
    Agreed,
    /// Aborted before each side had moved.
    Aborted,
}

/// The wire mark of an engine player.
pub(crate) fn mark(player: engine::Player) -> Mark {
    match player {
        engine::Player::X => Mark::X,
        engine::Player::O => Mark::O,
    }
}

/// The engine level of a wire level.
pub(crate) fn engine_level(level: wire::Level) -> engine::Level {
    match level {
        wire::Level::Easy => engine::Level::Easy,
        wire::Level::Medium => engine::Level::Medium,
        wire::Level::Perfect => engine::Level::Perfect,
    }
}

/// The name an AI seat goes by in game records: `AI (perfect)`.
pub(crate) fn ai_name(level: wire::Level) -> String {
    format!("AI ({level})")
}

/// The wire form of validated engine rules.
pub(crate) fn rules(rules: engine::Rules) -> wire::Rules {
    wire::Rules {
        width: rules.width(),
        height: rules.height(),
        k: rules.k(),
        gravity: rules.gravity(),
    }
}

/// The board as rows of `.`, `X` and `O`, top row first (row 1 of the notation is last).
pub(crate) fn board(position: &Position) -> Vec<String> {
    (0..side(position.rules().height()))
        .rev()
        .map(|row| {
            let mut text = String::new();
            push_row(position, row, &mut text);
            text
        })
        .collect()
}

/// Appends row `row` of the board (0 = the bottom one) as `.`, `X` and `O`.
fn push_row(position: &Position, row: u8, out: &mut String) {
    // Sides are at most `Rules::MAX_SIDE`, so every index fits a u8.
    for col in 0..side(position.rules().width()) {
        out.push(match position.get(Cell { col, row }) {
            None => '.',
            Some(engine::Player::X) => 'X',
            Some(engine::Player::O) => 'O',
        });
    }
}

fn side(n: u32) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// The room's game status: the engine's, unless a player resigned, or a seat is empty
/// while the game is not over (then it waits for someone to take the seat).
pub(crate) fn status(
    position: &Position,
    ending: Option<Ending>,
    seats_filled: bool,
) -> GameStatus {
    match status_view(position, ending, seats_filled) {
        StatusView::Waiting => GameStatus::Waiting,
        StatusView::Playing { turn } => GameStatus::Playing { turn },
        StatusView::Won { winner } => GameStatus::Won {
            winner,
            line: match position.status() {
                engine::GameStatus::Won { line, .. } => {
                    line.iter().map(|cell| cell.notation()).collect()
                }
                _ => Vec::new(),
            },
        },
        StatusView::Drawn => GameStatus::Drawn,
        StatusView::Resigned { winner } => GameStatus::Resigned { winner },
        StatusView::Timeout { winner } => GameStatus::Timeout { winner },
        StatusView::Agreed => GameStatus::Agreed,
        StatusView::Aborted => GameStatus::Aborted,
    }
}

/// [`status`] without a won game's line.
pub(crate) fn status_view(
    position: &Position,
    ending: Option<Ending>,
    seats_filled: bool,
) -> StatusView {
    match ending {
        Some(Ending::Resigned { winner }) => return StatusView::Resigned { winner },
        Some(Ending::Timeout { winner }) => return StatusView::Timeout { winner },
        Some(Ending::Agreed) => return StatusView::Agreed,
        Some(Ending::Aborted) => return StatusView::Aborted,
        None => {}
    }
    match position.status() {
        engine::GameStatus::Won { winner, .. } => StatusView::Won {
            winner: mark(winner),
        },
        engine::GameStatus::Drawn => StatusView::Drawn,
        engine::GameStatus::InProgress { to_move } if seats_filled => StatusView::Playing {
            turn: mark(to_move),
        },
        engine::GameStatus::InProgress { .. } => StatusView::Waiting,
    }
}

/// Everything a room knows that goes into its snapshot.
pub(crate) struct RoomFacts<'a> {
    /// The room id.
    pub(crate) id: &'a RoomId,
    /// Display name.
    pub(crate) name: &'a str,
    /// Hidden from the lobby.
    pub(crate) private: bool,
    /// Players may analyse while the game is on.
    pub(crate) hints: bool,
    /// The sequence number of this event.
    pub(crate) seq: u64,
    /// Game number, from 1.
    pub(crate) game: u32,
    /// X then O.
    pub(crate) seats: Vec<SeatInfo>,
    /// The game.
    pub(crate) position: &'a Position,
    /// How the game ended off the board, if it did.
    pub(crate) ending: Option<Ending>,
    /// The time control; `None` without a clock.
    pub(crate) time_control: Option<wire::TimeControl>,
    /// Whether takebacks may be granted.
    pub(crate) takebacks: bool,
    /// Both clocks now, in a timed game.
    pub(crate) clock: Option<wire::ClockState>,
    /// An offer waiting for its answer.
    pub(crate) offer: Option<wire::Offer>,
    /// Spectators' names.
    pub(crate) spectators: Vec<String>,
    /// The id of the room's last finished game, once one has ended.
    pub(crate) last_game: Option<GameId>,
}

/// Builds a room snapshot.
pub(crate) fn snapshot(facts: RoomFacts<'_>) -> RoomSnapshot {
    let seats_filled = facts
        .seats
        .iter()
        .all(|s| !matches!(s.occupant, wire::Occupant::Empty));
    let status = status(facts.position, facts.ending, seats_filled);
    let legal_moves = if matches!(status, GameStatus::Playing { .. }) {
        facts
            .position
            .legal_moves()
            .iter()
            .map(|mv| mv.notation())
            .collect()
    } else {
        Vec::new()
    };
    RoomSnapshot {
        id: facts.id.clone(),
        name: facts.name.to_owned(),
        rules: rules(facts.position.rules()),
        private: facts.private,
        hints: facts.hints,
        time_control: facts.time_control,
        takebacks: facts.takebacks,
        seq: facts.seq,
        game: facts.game,
        seats: facts.seats,
        board: board(facts.position),
        moves: facts
            .position
            .history()
            .iter()
            .map(|mv| mv.notation())
            .collect(),
        ply: u32::try_from(facts.position.ply()).unwrap_or(u32::MAX),
        legal_moves,
        status,
        last_move: facts.position.last_cell().map(Cell::notation),
        clock: facts.clock,
        offer: facts.offer,
        spectators: facts.spectators,
        last_game: facts.last_game,
        chat: Vec::new(),
    }
}

/// The `moved` event of the last move of `position`, as event `seq` of room `id`, with the
/// room's `status` after it; `None` before the first move.
pub(crate) fn moved(
    id: &RoomId,
    seq: u64,
    game: u32,
    position: &Position,
    status: GameStatus,
    clock: Option<wire::ClockState>,
) -> Option<ServerMessage> {
    let mv = position.history().last()?;
    let cell = position.last_cell()?;
    Some(ServerMessage::Moved(wire::MoveEvent {
        room: id.clone(),
        seq,
        game,
        ply: u32::try_from(position.ply()).unwrap_or(u32::MAX),
        mv: mv.notation(),
        cell: cell.notation(),
        by: mark(position.get(cell)?),
        status,
        clock,
    }))
}

/// The text record (docs/protocol.md, "Game records") of a finished game: its tags, then
/// its moves with the time each took as a comment.
///
/// # Errors
/// Why the stored rules or moves do not make a game (a damaged store).
pub(crate) fn record_text(game: &GameSummary, moves: &[PlayedMove]) -> Result<String, String> {
    let r = game.rules;
    let rules = engine::Rules::new(r.width, r.height, r.k, r.gravity).map_err(|e| e.to_string())?;
    let mut position = Position::new(rules);
    for played in moves {
        let mv = rules
            .parse_move(&played.mv)
            .map_err(|e| format!("{}: {e}", played.mv))?;
        position
            .try_play(mv)
            .map_err(|e| format!("{}: {e}", played.mv))?;
    }
    let (result, termination) = match &game.result {
        GameStatus::Won { winner, line } => (won_by(*winner), format!("line {}", line.join(" "))),
        GameStatus::Resigned { winner } => (won_by(*winner), "resigned".to_owned()),
        GameStatus::Timeout { winner } => (won_by(*winner), "time".to_owned()),
        GameStatus::Drawn => (RecordResult::Drawn, "board full".to_owned()),
        GameStatus::Agreed => (RecordResult::Drawn, "agreement".to_owned()),
        GameStatus::Waiting | GameStatus::Playing { .. } | GameStatus::Aborted => {
            (RecordResult::Unfinished, "unfinished".to_owned())
        }
    };
    let mut tags = vec![("Game".to_owned(), game.game.to_string())];
    if let Some(room) = &game.room {
        tags.push(("Room".to_owned(), room.0.clone()));
    }
    tags.extend(Record::rules_tags(rules));
    for (tag, player) in [("X", &game.x), ("O", &game.o)] {
        tags.push((tag.to_owned(), player.name.clone()));
        if let Some(level) = player.ai {
            tags.push((format!("{tag}AI"), level.to_string()));
        }
    }
    tags.push(("Start".to_owned(), record::utc_timestamp(game.started_at)));
    tags.push(("End".to_owned(), record::utc_timestamp(game.ended_at)));
    tags.push(("Result".to_owned(), result.token().to_owned()));
    tags.push(("Termination".to_owned(), termination));
    if let Some(control) = game.time_control {
        tags.push(("TimeControl".to_owned(), control.to_string()));
    }
    let comments = moves
        .iter()
        .map(|m| {
            let mut comment = record::seconds_comment(m.ms);
            if let Some(clock) = m.clock_ms {
                comment.push_str(&format!(" [%clk {}]", clock_text(clock)));
            }
            Some(comment)
        })
        .collect();
    Ok(Record {
        tags,
        position,
        comments,
        result,
    }
    .to_string())
}

/// A remaining time as PGN's `%clk` writes it: `H:MM:SS.t` (tenths).
fn clock_text(ms: u64) -> String {
    let tenths = ms / 100;
    format!(
        "{}:{:02}:{:02}.{}",
        tenths / 36_000,
        tenths / 600 % 60,
        tenths / 10 % 60,
        tenths % 10
    )
}

fn won_by(winner: Mark) -> RecordResult {
    match winner {
        Mark::X => RecordResult::XWon,
        Mark::O => RecordResult::OWon,
    }
}

/// The `analysis` of `position` (game `game` of room `id`) from the engine's values of
/// its moves, best first (see [`rank`]).
pub(crate) fn analysis(
    id: &RoomId,
    game: u32,
    position: &Position,
    analysis: &engine::Analysis,
) -> ServerMessage {
    let mut valued = analysis.moves.clone();
    // Stable: moves of equal value keep the engine's order.
    valued.sort_by_key(|m| std::cmp::Reverse(rank(m.value)));
    let moves = valued
        .iter()
        .filter_map(|valued| {
            // Every analysed move is legal here; one that is not is left out rather than
            // shown on a cell it cannot reach.
            let cell = position.landing_cell(valued.mv).ok()?;
            let (value, proven) = match valued.value {
                engine::Value::Win(plies) => (wire::MoveValue::Win { plies }, true),
                engine::Value::Loss(plies) => (wire::MoveValue::Loss { plies }, true),
                engine::Value::Draw => (wire::MoveValue::Draw, true),
                engine::Value::Estimate(score) => (wire::MoveValue::Estimate { score }, false),
            };
            Some(wire::MoveAnalysis {
                mv: valued.mv.to_string(),
                cell: cell.to_string(),
                value,
                proven,
            })
        })
        .collect();
    ServerMessage::Analysis {
        room: id.clone(),
        game,
        ply: u32::try_from(position.ply()).unwrap_or(u32::MAX),
        moves,
    }
}

/// How good a value is for the mover, higher better, in the order docs/protocol.md gives
/// for `analysis`: wins (the quickest first), then draws and estimates by score (a draw
/// scores 0), then losses (the slowest first). The engine's own order puts what it
/// searched first, which is not what a person reading a list of hints expects.
fn rank(value: engine::Value) -> (u8, i64) {
    match value {
        engine::Value::Win(plies) => (2, -i64::from(plies)),
        engine::Value::Draw => (1, 0),
        engine::Value::Estimate(score) => (1, i64::from(score)),
        engine::Value::Loss(plies) => (0, i64::from(plies)),
    }
}

#[cfg(test)]
mod tests {
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
        let ServerMessage::Game { game } = wire::decode_server(frame).expect("golden").message
        else {
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
}
