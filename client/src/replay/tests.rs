//! The replay's state machine: boards rebuilt by the engine at every ply, keys moving the
//! ply shown, and the words of the status line and of the plain replay.

use inarow_protocol::{GameId, GameSummary, PlayedMove, PlayerRef, RoomId, Rules};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;

pub(crate) use crate::board::tests::{C4, TTT};

/// A kept game: `moves` as (move, ms), X and O alternating from X.
pub(crate) fn record(rules: Rules, moves: &[(&str, u64)], result: GameStatus) -> GameRecord {
    let played: Vec<PlayedMove> = moves
        .iter()
        .enumerate()
        .map(|(i, (mv, ms))| PlayedMove {
            mv: (*mv).to_owned(),
            // The replay finds the cell itself; the server's is not trusted for the board.
            cell: (*mv).to_owned(),
            by: if i % 2 == 0 { Mark::X } else { Mark::O },
            ms: *ms,
            clock_ms: None,
        })
        .collect();
    GameRecord {
        summary: GameSummary {
            game: GameId(42),
            room: Some(RoomId::from("k7m2q9xa")),
            number: 3,
            rules,
            x: PlayerRef {
                name: "ann".into(),
                ai: None,
            },
            o: PlayerRef {
                name: "bob".into(),
                ai: None,
            },
            result,
            ply: played.len() as u32,
            started_at: 1_795_450_900_000,
            ended_at: 1_795_450_912_000,
            time_control: None,
        },
        moves: played,
        text: String::new(),
    }
}

/// The game of the `game` example in docs/protocol.md: X wins on the diagonal.
pub(crate) fn diagonal() -> GameRecord {
    record(
        TTT,
        &[
            ("b2", 2100),
            ("a2", 3400),
            ("a1", 1800),
            ("c1", 2500),
            ("c3", 2200),
        ],
        GameStatus::Won {
            winner: Mark::X,
            line: vec!["a1".into(), "b2".into(), "c3".into()],
        },
    )
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn every_ply_has_its_board_and_the_end_its_line() {
    let replay = Replay::new(diagonal()).expect("a legal game");
    assert_eq!((replay.len(), replay.ply()), (5, 5), "starts at the end");
    let boards: Vec<Vec<String>> = (0..=5).map(|p| replay.board_at(p).board.clone()).collect();
    assert_eq!(boards[0], ["...", "...", "..."]);
    assert_eq!(boards[1], ["...", ".X.", "..."]);
    assert_eq!(boards[2], ["...", "OX.", "..."]);
    assert_eq!(boards[3], ["...", "OX.", "X.."]);
    assert_eq!(boards[4], ["...", "OX.", "X.O"]);
    assert_eq!(boards[5], ["..X", "OX.", "X.O"]);
    assert_eq!(
        replay.board_at(2).status,
        GameStatus::Playing { turn: Mark::X }
    );
    assert_eq!(replay.board_at(2).last_move.as_deref(), Some("a2"));
    assert_eq!(replay.board_at(0).last_move, None);
    // The engine finds the line, in order along it.
    assert_eq!(
        replay.board().status,
        GameStatus::Won {
            winner: Mark::X,
            line: vec!["a1".into(), "b2".into(), "c3".into()]
        }
    );
    assert_eq!(
        board::winning_cells(replay.board()),
        [(0, 2), (1, 1), (2, 0)]
    );
}

#[test]
fn keys_step_through_the_game() {
    let mut replay = Replay::new(diagonal()).expect("a legal game");
    assert_eq!(replay.on_key(key(KeyCode::Right)), Control::Stay);
    assert_eq!(replay.ply(), 5, "no step past the end");
    replay.on_key(key(KeyCode::Home));
    assert_eq!(replay.ply(), 0);
    replay.on_key(key(KeyCode::Left));
    assert_eq!(replay.ply(), 0, "no step before the start");
    for expected in 1..=3 {
        replay.on_key(key(KeyCode::Right));
        assert_eq!(replay.ply(), expected);
    }
    replay.on_key(key(KeyCode::Left));
    assert_eq!(replay.ply(), 2);
    assert_eq!(replay.board().board, ["...", "OX.", "..."]);
    replay.on_key(key(KeyCode::End));
    assert_eq!(replay.ply(), 5);
    replay.on_key(key(KeyCode::Char('g')));
    replay.on_key(key(KeyCode::Char('l')));
    assert_eq!(replay.ply(), 1);
    replay.on_key(key(KeyCode::Char('x')));
    assert_eq!(replay.ply(), 1, "other keys do nothing");
    assert_eq!(replay.on_key(key(KeyCode::Char('q'))), Control::Quit);
    assert_eq!(replay.on_key(key(KeyCode::Esc)), Control::Quit);
    assert_eq!(
        replay.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Control::Quit
    );
}

#[test]
fn the_status_line_names_the_move_the_mover_and_the_time() {
    let mut replay = Replay::new(diagonal()).expect("a legal game");
    assert_eq!(
        replay.status_line(),
        "Move 5 of 5: X (ann) played c3 in 2.2s · X won (line a1 b2 c3)"
    );
    replay.go_to(2);
    assert_eq!(
        replay.status_line(),
        "Move 2 of 5: O (bob) played a2 in 3.4s"
    );
    replay.go_to(0);
    assert_eq!(
        replay.status_line(),
        "Start: 5 moves, → to step through them"
    );
}

#[test]
fn gravity_moves_land_and_a_resigned_game_ends_resigned() {
    let game = record(
        C4,
        &[("d", 1000), ("d", 1500), ("e", 900)],
        GameStatus::Resigned { winner: Mark::X },
    );
    let replay = Replay::new(game).expect("a legal game");
    assert_eq!(replay.moves[1].cell, "d2");
    assert_eq!(replay.board().board[5], "...XX..");
    assert_eq!(replay.board().board[4], "...O...");
    assert_eq!(
        replay.board().status,
        GameStatus::Resigned { winner: Mark::X }
    );
    assert_eq!(
        replay.status_line(),
        "Move 3 of 3: X (ann) played e (e1) in 0.9s · X won (resigned)"
    );
}

#[test]
fn the_plain_replay_prints_each_move_and_its_board() {
    let replay = Replay::new(diagonal()).expect("a legal game");
    let lines = replay.plain_lines();
    assert_eq!(
        lines[0],
        "game 42: tictactoe, X ann vs O bob, 5 moves, ended 2026-11-23 16:21 UTC"
    );
    assert_eq!(
        lines[1..6],
        [
            "move 1 X b2 2.1s",
            " 3 . . .",
            " 2 . X .",
            " 1 . . .",
            "   a b c"
        ]
    );
    assert_eq!(lines[6], "move 2 O a2 3.4s");
    assert_eq!(
        lines[lines.len() - 5..],
        [
            " 3 . . X",
            " 2 O X .",
            " 1 X . O",
            "   a b c",
            "status: won X line a1,b2,c3"
        ]
    );
    assert_eq!(lines.len(), 1 + 5 * 5 + 1);
    // A game resigned before any move still shows its (empty) board.
    let nothing = record(TTT, &[], GameStatus::Resigned { winner: Mark::O });
    let lines = Replay::new(nothing).expect("no moves").plain_lines();
    assert_eq!(
        lines,
        [
            "game 42: tictactoe, X ann vs O bob, 0 moves, ended 2026-11-23 16:21 UTC",
            " 3 . . .",
            " 2 . . .",
            " 1 . . .",
            "   a b c",
            "status: won O by resignation"
        ]
    );
}

#[test]
fn a_record_the_engine_refuses_is_an_error() {
    let taken = record(
        TTT,
        &[("b2", 1), ("b2", 1)],
        GameStatus::Resigned { winner: Mark::X },
    );
    assert_eq!(
        Replay::new(taken).expect_err("b2 twice").to_string(),
        "game 42: move 2 (b2) cannot be played there: that cell is already taken"
    );
    let junk = record(TTT, &[("z9", 1)], GameStatus::Drawn);
    assert!(matches!(
        Replay::new(junk),
        Err(ReplayError::Move { ply: 1, .. })
    ));
    let after_the_end = record(
        TTT,
        &[
            ("a1", 1),
            ("b1", 1),
            ("a2", 1),
            ("b2", 1),
            ("a3", 1),
            ("b3", 1),
        ],
        GameStatus::Drawn,
    );
    assert!(matches!(
        Replay::new(after_the_end),
        Err(ReplayError::Move { ply: 6, .. })
    ));
    let huge = record(
        Rules {
            width: 40,
            height: 3,
            k: 3,
            gravity: false,
        },
        &[],
        GameStatus::Drawn,
    );
    assert!(matches!(Replay::new(huge), Err(ReplayError::Rules { .. })));
}

#[test]
fn a_timed_games_replay_shows_each_clock_after_its_last_move() {
    let mut game = record(
        TTT,
        &[("b2", 1_000), ("a1", 2_000), ("c3", 3_000)],
        GameStatus::Timeout { winner: Mark::X },
    );
    game.summary.time_control = Some(inarow_protocol::TimeControl::Fischer {
        base_ms: 60_000,
        increment_ms: 0,
    });
    for (played, clock) in game.moves.iter_mut().zip([60_000, 60_000, 57_000]) {
        played.clock_ms = Some(clock);
    }
    let mut replay = Replay::new(game).expect("a legal game");
    let clock = |r: &Replay| r.board().clock.map(|c| (c.x_ms, c.o_ms));
    assert_eq!(clock(&replay), Some((57_000, 60_000)));
    replay.go_to(0);
    assert_eq!(clock(&replay), None, "no move yet");
    replay.go_to(2);
    assert_eq!(clock(&replay), Some((60_000, 60_000)));
    replay.go_to(3);
    let (_, lines) = super::view::tests::render_lines_for(&replay, 80, 24);
    assert!(
        lines.iter().any(|l| l.contains("X   0:57 ann")),
        "{}",
        lines.join("\n")
    );
}
