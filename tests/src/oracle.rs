//! Judging a finished game by its own snapshot: the reported result must agree with the stones
//! on the board (a winner has a line, a draw has none and no empty cell) and with the moves.

use std::collections::HashSet;

use inarow_protocol::{GameStatus, Mark, RoomSnapshot};

use crate::snapshot::mark_at;

/// The marks that have `k` or more stones in a row (any direction) on `board`.
fn marks_with_line(board: &[String], k: usize) -> HashSet<Mark> {
    let grid: Vec<&[u8]> = board.iter().map(|r| r.as_bytes()).collect();
    let height = grid.len() as isize;
    let mut found = HashSet::new();
    for r in 0..height {
        let width = grid[r as usize].len() as isize;
        for c in 0..width {
            let here = grid[r as usize][c as usize];
            if here == b'.' {
                continue;
            }
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let run = (0..k as isize)
                    .take_while(|i| {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        rr >= 0
                            && rr < height
                            && cc >= 0
                            && cc < width
                            && grid[rr as usize][cc as usize] == here
                    })
                    .count();
                if run == k {
                    found.insert(if here == b'X' { Mark::X } else { Mark::O });
                }
            }
        }
    }
    found
}

/// Checks a finished game's snapshot against its own board: a winner has a line of at
/// least k made of its stones (the one reported), a draw has a full board and no line,
/// the stone counts fit alternate play and `moves` matches `ply`.
pub fn check_result(snapshot: &RoomSnapshot) {
    let k = snapshot.rules.k as usize;
    let board = &snapshot.board;
    assert_eq!(
        board.len(),
        snapshot.rules.height as usize,
        "board height: {snapshot:?}"
    );
    assert!(
        board
            .iter()
            .all(|r| r.len() == snapshot.rules.width as usize),
        "board width: {snapshot:?}"
    );
    let count = |m: u8| {
        board
            .iter()
            .map(|r| r.bytes().filter(|&b| b == m).count())
            .sum::<usize>()
    };
    let (xs, os) = (count(b'X'), count(b'O'));
    assert!(
        xs == os || xs == os + 1,
        "stone counts X {xs} O {os}: {snapshot:?}"
    );
    assert_eq!(
        xs + os,
        snapshot.ply as usize,
        "stones vs ply: {snapshot:?}"
    );
    assert_eq!(
        snapshot.moves.len(),
        snapshot.ply as usize,
        "moves vs ply: {snapshot:?}"
    );
    assert!(
        snapshot.legal_moves.is_empty(),
        "legal moves after the end: {snapshot:?}"
    );
    let lines = marks_with_line(board, k);
    match &snapshot.status {
        GameStatus::Won { winner, line } => {
            assert!(
                lines.contains(winner),
                "winner {winner} has no line: {snapshot:?}"
            );
            assert!(
                !lines.contains(&winner.other()),
                "the loser also has a line: {snapshot:?}"
            );
            assert!(line.len() >= k, "winning line shorter than k: {snapshot:?}");
            for cell in line {
                assert_eq!(
                    mark_at(board, cell),
                    Some(*winner),
                    "winning line cell {cell} is not the winner's: {snapshot:?}"
                );
            }
            // The winner made the last move.
            let last_mover = if snapshot.ply % 2 == 1 {
                Mark::X
            } else {
                Mark::O
            };
            assert_eq!(
                *winner, last_mover,
                "the winner did not move last: {snapshot:?}"
            );
        }
        GameStatus::Drawn => {
            assert!(
                board.iter().all(|r| !r.contains('.')),
                "a draw with empty cells: {snapshot:?}"
            );
            assert!(
                lines.is_empty(),
                "a draw with a line on the board: {snapshot:?}"
            );
        }
        GameStatus::Resigned { .. }
        | GameStatus::Timeout { .. }
        | GameStatus::Agreed
        | GameStatus::Aborted => {}
        other => panic!("game not over: {other:?} in {snapshot:?}"),
    }
}

/// Checks that `snapshot` reports a win for `winner` and that the result holds up (see
/// [`check_result`]).
pub fn assert_won(snapshot: &RoomSnapshot, winner: Mark) {
    assert!(
        matches!(&snapshot.status, GameStatus::Won { winner: w, .. } if *w == winner),
        "expected {winner} to win: {snapshot:?}"
    );
    check_result(snapshot);
}

#[cfg(test)]
mod tests {
    use super::*;
    use inarow_protocol::{Occupant, RoomId, Rules, SeatInfo};

    fn snapshot(board: &[&str], moves: &[&str], status: GameStatus) -> RoomSnapshot {
        RoomSnapshot {
            id: RoomId::from("abcdefgh"),
            name: "t".into(),
            rules: Rules {
                width: 3,
                height: 3,
                k: 3,
                gravity: false,
            },
            private: false,
            hints: false,
            seq: 1,
            game: 1,
            seats: vec![
                SeatInfo {
                    mark: Mark::X,
                    occupant: Occupant::Empty,
                    rematch: false,
                },
                SeatInfo {
                    mark: Mark::O,
                    occupant: Occupant::Empty,
                    rematch: false,
                },
            ],
            board: board.iter().map(|r| (*r).to_owned()).collect(),
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            ply: u32::try_from(moves.len()).expect("short"),
            legal_moves: Vec::new(),
            status,
            last_move: moves.last().map(|m| (*m).to_owned()),
            spectators: Vec::new(),
            last_game: None,
            chat: Vec::new(),
            time_control: None,
            takebacks: false,
            clock: None,
            offer: None,
        }
    }

    fn won(winner: Mark, line: &[&str]) -> GameStatus {
        GameStatus::Won {
            winner,
            line: line.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    #[test]
    fn lines_are_found_in_every_direction() {
        let rows = |r: [&str; 3]| r.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(marks_with_line(&rows(["XXX", "O.O", "..."]), 3).contains(&Mark::X));
        assert!(marks_with_line(&rows(["O..", "O..", "O.."]), 3).contains(&Mark::O));
        assert!(marks_with_line(&rows(["X..", ".X.", "..X"]), 3).contains(&Mark::X));
        assert!(marks_with_line(&rows(["..O", ".O.", "O.."]), 3).contains(&Mark::O));
        assert!(marks_with_line(&rows(["XOX", "XOO", "OXX"]), 3).is_empty());
    }

    #[test]
    fn a_correct_win_and_draw_pass() {
        check_result(&snapshot(
            &["X..", "XO.", "XO."],
            &["a1", "b1", "a2", "b2", "a3"],
            won(Mark::X, &["a1", "a2", "a3"]),
        ));
        check_result(&snapshot(
            &["OOX", "XXO", "OXX"],
            &["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"],
            GameStatus::Drawn,
        ));
    }

    #[test]
    #[should_panic(expected = "has no line")]
    fn a_win_without_a_line_fails() {
        check_result(&snapshot(
            &["X..", "XO.", ".OX"],
            &["a1", "b1", "a2", "b2", "c1"],
            won(Mark::X, &["a1", "a2", "a3"]),
        ));
    }

    #[test]
    #[should_panic(expected = "a draw with empty cells")]
    fn a_draw_with_room_left_fails() {
        check_result(&snapshot(
            &["X..", "...", "..O"],
            &["a3", "c1"],
            GameStatus::Drawn,
        ));
    }

    #[test]
    #[should_panic(expected = "a draw with a line")]
    fn a_draw_with_a_line_fails() {
        check_result(&snapshot(
            &["XXX", "OOX", "XOO"],
            &["a3", "a2", "b3", "b2", "c2", "c1", "a1", "b1", "c3"],
            GameStatus::Drawn,
        ));
    }

    #[test]
    #[should_panic(expected = "expected O to win")]
    fn a_win_for_the_other_mark_fails_assert_won() {
        assert_won(
            &snapshot(
                &["X..", "XO.", "XO."],
                &["a1", "b1", "a2", "b2", "a3"],
                won(Mark::X, &["a1", "a2", "a3"]),
            ),
            Mark::O,
        );
    }
}
