//! Reading a room snapshot as a board: stones, seats, the winning line and the last move,
//! the local check that decides whether a typed or clicked move is worth sending, the
//! next snapshot from a `moved` event (protocol 2), and where hints go on the board.
//!
//! Rules knowledge is the engine's: notation (parsing and printing moves and cells) comes
//! from `inarow_engine`, and legality from the snapshot's `legal_moves`, which the server
//! computed with the same engine. This module only reads what the server sent.

use std::fmt;

use inarow_engine::{Cell, Move, ParseMoveError};
use inarow_protocol::{
    GameStatus, Mark, MoveAnalysis, MoveEvent, Occupant, RoomId, RoomSnapshot, Rules, SessionId,
};

/// The engine's rule set for wire rules, or `None` for rules the engine would refuse (the
/// server only sends valid ones, but a snapshot is peer input and is not trusted).
pub fn engine_rules(rules: &Rules) -> Option<inarow_engine::Rules> {
    inarow_engine::Rules::new(rules.width, rules.height, rules.k, rules.gravity).ok()
}

/// The same board without gravity. Snapshots name stones by cell (`last_move`, the winning
/// line) even in gravity games, and a player may name a column by a cell in it, so cells
/// are read with these rules.
fn cell_rules(rules: &Rules) -> Option<inarow_engine::Rules> {
    inarow_engine::Rules::new(rules.width, rules.height, rules.k, false).ok()
}

/// A column index as the engine's `u8`, if it can be on a board at all: the engine's
/// notation only has letters for columns below [`inarow_engine::Rules::MAX_SIDE`].
fn column(col: u32) -> Option<u8> {
    u8::try_from(col)
        .ok()
        .filter(|_| col < inarow_engine::Rules::MAX_SIDE)
}

/// The name of a column in notation (`0` → `a`); `?` for one no board has.
pub fn column_name(col: u32) -> String {
    column(col).map_or_else(|| "?".to_owned(), |c| Move::Column(c).to_string())
}

/// The move that the cell at column `col` and top row `top` stands for: the cell itself,
/// or with gravity its column. `None` outside the board.
pub fn move_at(rules: &Rules, col: u32, top: u32) -> Option<String> {
    if col >= rules.width || top >= rules.height {
        return None;
    }
    let c = column(col)?;
    let mv = if rules.gravity {
        Move::Column(c)
    } else {
        // top < height <= MAX_SIDE, so the row fits a u8 as well.
        let row = u8::try_from(rules.height - 1 - top).ok()?;
        Move::Cell(Cell { col: c, row })
    };
    Some(mv.to_string())
}

/// A cell named in notation, as (column, top row) on this snapshot's board.
fn cell_on_board(rules: &Rules, text: &str) -> Option<(u32, u32)> {
    match cell_rules(rules)?.parse_move(text) {
        Ok(Move::Cell(cell)) => {
            let row = u32::from(cell.row);
            Some((u32::from(cell.col), rules.height.checked_sub(row + 1)?))
        }
        _ => None,
    }
}

/// An `analysis` of a room's position: the value of each legal move, for showing until
/// the position changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hints {
    /// The room.
    pub room: RoomId,
    /// The game the position is in.
    pub game: u32,
    /// The moves played in the position.
    pub ply: u32,
    /// Each legal move with its value, best first.
    pub moves: Vec<MoveAnalysis>,
}

impl Hints {
    /// Whether these hints are about the position `snapshot` shows (not an older one).
    pub fn fits(&self, snapshot: &RoomSnapshot) -> bool {
        self.room == snapshot.id && self.game == snapshot.game && self.ply == snapshot.ply
    }

    /// Each valued move at its landing cell, as (column, top row), for drawing on the board.
    pub fn cells(&self, rules: &Rules) -> Vec<((u32, u32), &MoveAnalysis)> {
        self.moves
            .iter()
            .filter_map(|m| Some((cell_on_board(rules, &m.cell)?, m)))
            .collect()
    }
}

/// The stone at a 0-based column and 0-based row counted from the TOP (the snapshot's
/// order), if any.
pub fn stone_at(snapshot: &RoomSnapshot, col: u32, top_row: u32) -> Option<Mark> {
    let row = snapshot.board.get(top_row as usize)?;
    match row.as_bytes().get(col as usize)? {
        b'X' => Some(Mark::X),
        b'O' => Some(Mark::O),
        _ => None,
    }
}

/// The 0-based top row where a stone dropped in `col` would land, if the column has room
/// (for drawing where the cursor's stone would fall).
pub fn landing_row(snapshot: &RoomSnapshot, col: u32) -> Option<u32> {
    (0..snapshot.rules.height)
        .rev()
        .find(|&r| stone_at(snapshot, col, r).is_none())
}

/// The seat held by the session `me` in this room, if any.
pub fn my_seat(snapshot: &RoomSnapshot, me: Option<SessionId>) -> Option<Mark> {
    let me = me?;
    snapshot.seats.iter().find_map(|seat| match &seat.occupant {
        Occupant::Human { session, .. } if *session == me => Some(seat.mark),
        _ => None,
    })
}

/// Whether the session `me` may change this room's seats (`set_seat`): seats belong to the
/// players once a person sits, and while nobody does anyone in the room may set them up
/// (docs/protocol.md, `set_seat`). Asked before sending, so a spectator is told at once.
pub fn may_set_seats(snapshot: &RoomSnapshot, me: Option<SessionId>) -> bool {
    my_seat(snapshot, me).is_some()
        || !snapshot
            .seats
            .iter()
            .any(|s| matches!(s.occupant, Occupant::Human { .. }))
}

/// The occupant of a seat.
pub fn occupant(snapshot: &RoomSnapshot, mark: Mark) -> Option<&Occupant> {
    snapshot
        .seats
        .iter()
        .find(|s| s.mark == mark)
        .map(|s| &s.occupant)
}

/// Whether an AI seat of this room is computing its move.
pub fn ai_thinking(snapshot: &RoomSnapshot) -> bool {
    snapshot
        .seats
        .iter()
        .any(|s| matches!(s.occupant, Occupant::Ai { thinking: true, .. }))
}

/// The cells of the winning line as (column, top row) pairs.
pub fn winning_cells(snapshot: &RoomSnapshot) -> Vec<(u32, u32)> {
    match &snapshot.status {
        GameStatus::Won { line, .. } => line
            .iter()
            .filter_map(|c| cell_on_board(&snapshot.rules, c))
            .collect(),
        _ => Vec::new(),
    }
}

/// The last stone's cell as (column, top row).
pub fn last_cell(snapshot: &RoomSnapshot) -> Option<(u32, u32)> {
    cell_on_board(&snapshot.rules, snapshot.last_move.as_deref()?)
}

/// The snapshot that `event` makes of `snapshot`, as `docs/protocol.md` defines it: the
/// snapshot a protocol 1 client receives for the same event. `None` when the event does
/// not follow the snapshot (another room or game, or not the next `seq`: the caller asks
/// for a fresh snapshot with `sync`) or names a cell off the board.
pub fn apply_moved(snapshot: &RoomSnapshot, event: &MoveEvent) -> Option<RoomSnapshot> {
    let mut next = snapshot.clone();
    apply_moved_in_place(&mut next, event).then_some(next)
}

/// As [`apply_moved`], changing `snapshot` itself rather than a copy (a client that
/// keeps one snapshot per room need not copy a whole board for every move): true if
/// the event applied, false (and `snapshot` untouched) if it does not follow it.
pub fn apply_moved_in_place(snapshot: &mut RoomSnapshot, event: &MoveEvent) -> bool {
    if event.room != snapshot.id || event.game != snapshot.game || event.seq != snapshot.seq + 1 {
        return false;
    }
    let Some((col, top)) = cell_on_board(&snapshot.rules, &event.cell) else {
        return false;
    };
    let (Ok(top), Ok(col)) = (usize::try_from(top), usize::try_from(col)) else {
        return false;
    };
    let Some(row) = snapshot.board.get_mut(top) else {
        return false;
    };
    // A board row is ASCII; `get` refuses anything else rather than panicking.
    if row.get(col..=col).is_none() {
        return false;
    }
    row.replace_range(col..=col, &event.by.to_string());
    snapshot.seq = event.seq;
    snapshot.ply = event.ply;
    snapshot.moves.push(event.mv.clone());
    snapshot.last_move = Some(event.cell.clone());
    snapshot.status = event.status.clone();
    snapshot.clock = event.clock;
    // A move answers any offer (by playing on).
    snapshot.offer = None;
    let turn = match &event.status {
        GameStatus::Playing { turn } => Some(*turn),
        _ => None,
    };
    if turn.is_some() {
        // With gravity the column stays playable until its top cell is taken.
        let gone = !snapshot.rules.gravity || top == 0;
        snapshot.legal_moves.retain(|m| !(gone && *m == event.mv));
    } else {
        snapshot.legal_moves.clear();
    }
    let over = event.status.is_over();
    for seat in &mut snapshot.seats {
        if let Occupant::Ai { thinking, .. } = &mut seat.occupant {
            *thinking = turn == Some(seat.mark);
            seat.rematch = over;
        }
    }
    true
}

/// Why a move was not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveRejection {
    /// You watch this room; only players move.
    NotAPlayer,
    /// The game has not started (a seat is empty).
    NotStarted,
    /// The game is over.
    GameOver,
    /// It is the other seat's turn.
    NotYourTurn,
    /// The text is not a move of these rules, in the engine's words (junk, or off the board).
    Notation(ParseMoveError),
    /// The cell already holds a stone.
    Occupied(String),
    /// The column is full.
    ColumnFull(String),
}

impl fmt::Display for MoveRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveRejection::NotAPlayer => f.write_str("you are watching, not playing"),
            MoveRejection::NotStarted => f.write_str("the game has not started yet"),
            MoveRejection::GameOver => f.write_str("the game is over"),
            MoveRejection::NotYourTurn => f.write_str("it is not your turn"),
            MoveRejection::Notation(e) => e.fmt(f),
            MoveRejection::Occupied(m) => write!(f, "{m} is already taken"),
            MoveRejection::ColumnFull(m) => write!(f, "column {m} is full"),
        }
    }
}

/// Parses `text` as a move of the snapshot's rules with the engine's notation. With
/// gravity a whole cell is also taken as its column (a click or a typed `c5` names the
/// column; where the stone lands is the board's business).
fn parse_move(rules: &Rules, text: &str) -> Result<Move, ParseMoveError> {
    let unknown = || ParseMoveError {
        message: format!(
            "this board ({}x{}) is not one this client can read",
            rules.width, rules.height
        ),
    };
    let engine = engine_rules(rules).ok_or_else(unknown)?;
    match engine.parse_move(text) {
        Err(e) if rules.gravity => match cell_rules(rules).map(|r| r.parse_move(text)) {
            Some(Ok(Move::Cell(cell))) => Ok(Move::Column(cell.col)),
            _ => Err(e),
        },
        parsed => parsed,
    }
}

/// Checks that the session `me` may play `text` now and returns the notation to send:
/// a cell like `b2`, or with gravity a column letter like `d` (a column number like `4` is
/// accepted and sent as its letter).
///
/// # Errors
/// A [`MoveRejection`] saying why nothing should be sent.
pub fn check_move(
    snapshot: &RoomSnapshot,
    me: Option<SessionId>,
    text: &str,
) -> Result<String, MoveRejection> {
    let Some(seat) = my_seat(snapshot, me) else {
        return Err(MoveRejection::NotAPlayer);
    };
    match &snapshot.status {
        GameStatus::Waiting => return Err(MoveRejection::NotStarted),
        GameStatus::Playing { turn } if *turn != seat => return Err(MoveRejection::NotYourTurn),
        GameStatus::Playing { .. } => {}
        _ => return Err(MoveRejection::GameOver),
    }
    let mv = parse_move(&snapshot.rules, text).map_err(MoveRejection::Notation)?;
    let name = mv.to_string();
    if snapshot
        .legal_moves
        .iter()
        .any(|m| m.eq_ignore_ascii_case(&name))
    {
        return Ok(name);
    }
    // Well-formed and on the board, so the only reason left is a stone in the way.
    Err(match mv {
        Move::Column(_) => MoveRejection::ColumnFull(name),
        Move::Cell(_) => MoveRejection::Occupied(name),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use inarow_protocol::{RoomId, SeatInfo};

    pub(crate) fn session(n: u128) -> SessionId {
        SessionId(uuid::Uuid::from_u128(n))
    }

    /// The legal moves of a board as the server lists them (the engine's order): empty
    /// cells column by column from `a1`, or the columns with room.
    fn legal_moves(rules: Rules, board: &[&str]) -> Vec<String> {
        let empty = |col: u32, top: u32| {
            board
                .get(top as usize)
                .and_then(|r| r.as_bytes().get(col as usize))
                == Some(&b'.')
        };
        let mut moves = Vec::new();
        for col in 0..rules.width {
            if rules.gravity {
                if empty(col, 0) {
                    moves.extend(move_at(&rules, col, 0));
                }
                continue;
            }
            for top in (0..rules.height).rev() {
                if empty(col, top) {
                    moves.extend(move_at(&rules, col, top));
                }
            }
        }
        moves
    }

    /// A snapshot with `me` (session 1, "alice") as X against a perfect AI.
    pub(crate) fn snapshot(rules: Rules, board: &[&str], status: GameStatus) -> RoomSnapshot {
        let legal_moves = if matches!(status, GameStatus::Playing { .. }) {
            legal_moves(rules, board)
        } else {
            Vec::new()
        };
        RoomSnapshot {
            id: RoomId::from("abcd2345"),
            name: "alice's room".to_owned(),
            rules,
            private: false,
            hints: false,
            seq: 3,
            game: 1,
            seats: vec![
                SeatInfo {
                    mark: Mark::X,
                    occupant: Occupant::Human {
                        name: "alice".to_owned(),
                        session: session(1),
                        connected: true,
                    },
                    rematch: false,
                },
                SeatInfo {
                    mark: Mark::O,
                    occupant: Occupant::Ai {
                        level: inarow_protocol::Level::Perfect,
                        engine: None,
                        thinking: false,
                    },
                    rematch: false,
                },
            ],
            board: board.iter().map(|r| (*r).to_owned()).collect(),
            moves: Vec::new(),
            ply: board
                .iter()
                .map(|r| r.chars().filter(|c| *c != '.').count() as u32)
                .sum(),
            legal_moves,
            status,
            last_move: None,
            spectators: Vec::new(),
            last_game: None,
            chat: Vec::new(),
            time_control: None,
            takebacks: false,
            clock: None,
            offer: None,
        }
    }

    pub(crate) const TTT: Rules = Rules {
        width: 3,
        height: 3,
        k: 3,
        gravity: false,
    };
    pub(crate) const C4: Rules = Rules {
        width: 7,
        height: 6,
        k: 4,
        gravity: true,
    };

    #[test]
    fn cells_are_read_and_named_in_notation() {
        assert_eq!(cell_on_board(&TTT, "b2"), Some((1, 1)));
        assert_eq!(cell_on_board(&TTT, " C1 "), Some((2, 2)));
        assert_eq!(cell_on_board(&C4, "c1"), Some((2, 5)));
        assert_eq!(cell_on_board(&TTT, "2b"), None);
        assert_eq!(cell_on_board(&TTT, "d1"), None);
        assert_eq!(move_at(&TTT, 0, 2), Some("a1".to_owned()));
        assert_eq!(move_at(&C4, 3, 0), Some("d".to_owned()));
        assert_eq!(move_at(&TTT, 3, 0), None);
        assert_eq!(column_name(18), "s");
        assert_eq!(column_name(300), "?");
    }

    #[test]
    fn moves_are_checked_against_the_board() {
        let snap = snapshot(
            TTT,
            &["...", ".O.", "X.."],
            GameStatus::Playing { turn: Mark::X },
        );
        let me = Some(session(1));
        assert_eq!(check_move(&snap, me, "b3"), Ok("b3".to_owned()));
        assert_eq!(check_move(&snap, me, " C1 "), Ok("c1".to_owned()));
        assert_eq!(
            check_move(&snap, me, "b2"),
            Err(MoveRejection::Occupied("b2".into()))
        );
        assert_eq!(
            check_move(&snap, me, "a1"),
            Err(MoveRejection::Occupied("a1".into()))
        );
        // Off the board and junk alike are the engine's notation errors, in its words.
        for text in ["d1", "a4", "a0", "hello"] {
            assert!(
                matches!(check_move(&snap, me, text), Err(MoveRejection::Notation(_))),
                "{text}"
            );
        }
        assert_eq!(
            check_move(&snap, me, "d1").map_err(|e| e.to_string()),
            Err("column d is outside the board (a-c)".to_owned())
        );
        assert_eq!(
            check_move(&snap, Some(session(9)), "b3"),
            Err(MoveRejection::NotAPlayer)
        );
        let theirs = snapshot(
            TTT,
            &["...", "...", "X.."],
            GameStatus::Playing { turn: Mark::O },
        );
        assert_eq!(
            check_move(&theirs, me, "b3"),
            Err(MoveRejection::NotYourTurn)
        );
        let over = snapshot(TTT, &["...", "...", "..."], GameStatus::Drawn);
        assert_eq!(check_move(&over, me, "b3"), Err(MoveRejection::GameOver));
    }

    /// A move event in the test room (game 1) landing where it is played.
    pub(crate) fn move_event(
        seq: u64,
        ply: u32,
        mv: &str,
        by: Mark,
        status: GameStatus,
    ) -> MoveEvent {
        MoveEvent {
            room: RoomId::from("abcd2345"),
            seq,
            game: 1,
            ply,
            mv: mv.to_owned(),
            cell: mv.to_owned(),
            by,
            status,
            clock: None,
        }
    }

    /// The move event that follows `snap`.
    fn moved(snap: &RoomSnapshot, mv: &str, cell: &str, by: Mark, status: GameStatus) -> MoveEvent {
        MoveEvent {
            cell: cell.to_owned(),
            ..move_event(snap.seq + 1, snap.ply + 1, mv, by, status)
        }
    }

    #[test]
    fn a_move_event_gives_the_next_snapshot() {
        let before = snapshot(
            TTT,
            &["...", "...", "X.."],
            GameStatus::Playing { turn: Mark::O },
        );
        let o_moves = moved(
            &before,
            "b2",
            "b2",
            Mark::O,
            GameStatus::Playing { turn: Mark::X },
        );
        let after = apply_moved(&before, &o_moves).expect("the next event");
        let expected = snapshot(
            TTT,
            &["...", ".O.", "X.."],
            GameStatus::Playing { turn: Mark::X },
        );
        assert_eq!(after.board, expected.board);
        assert_eq!(
            after.legal_moves, expected.legal_moves,
            "same order as the server's"
        );
        assert_eq!((after.seq, after.ply), (before.seq + 1, 2));
        assert_eq!(after.moves, vec!["b2"]);
        assert_eq!(after.last_move.as_deref(), Some("b2"));
        assert!(!ai_thinking(&after), "X to move: the AI waits");
        // Not the next event: a gap, a repeat, another room or game.
        for stale in [
            MoveEvent {
                seq: before.seq + 2,
                ..o_moves.clone()
            },
            MoveEvent {
                seq: before.seq,
                ..o_moves.clone()
            },
            MoveEvent {
                room: "other".into(),
                ..o_moves.clone()
            },
            MoveEvent {
                game: 2,
                ..o_moves.clone()
            },
            MoveEvent {
                cell: "d9".into(),
                ..o_moves.clone()
            },
        ] {
            assert_eq!(apply_moved(&before, &stale), None, "{stale:?}");
            // In place: refused without touching the snapshot.
            let mut kept = before.clone();
            assert!(!apply_moved_in_place(&mut kept, &stale), "{stale:?}");
            assert_eq!(kept, before);
        }
        let mut in_place = before.clone();
        assert!(apply_moved_in_place(&mut in_place, &o_moves));
        assert_eq!(in_place, after);
        // The AI is put on move, and a finished game has no legal move and an AI ready
        // for a rematch.
        let mut x_turn = expected;
        x_turn.seq = after.seq;
        let x_moves = moved(
            &x_turn,
            "c1",
            "c1",
            Mark::X,
            GameStatus::Playing { turn: Mark::O },
        );
        assert!(ai_thinking(&apply_moved(&x_turn, &x_moves).expect("next")));
        let won = GameStatus::Won {
            winner: Mark::X,
            line: vec!["a1".into(), "b2".into(), "c3".into()],
        };
        let end =
            apply_moved(&x_turn, &moved(&x_turn, "c1", "c1", Mark::X, won.clone())).expect("next");
        assert!(end.legal_moves.is_empty());
        assert_eq!(end.status, won);
        assert!(end.seats[1].rematch && !ai_thinking(&end));
    }

    #[test]
    fn a_gravity_move_drops_its_column_once_it_is_full() {
        let before = snapshot(
            C4,
            &[
                ".......", "...O...", "...X...", "...O...", "...X...", "...O...",
            ],
            GameStatus::Playing { turn: Mark::X },
        );
        let turn_o = GameStatus::Playing { turn: Mark::O };
        let fills = apply_moved(&before, &moved(&before, "d", "d6", Mark::X, turn_o.clone()))
            .expect("next");
        assert_eq!(fills.board[0], "...X...");
        assert!(!fills.legal_moves.contains(&"d".to_owned()));
        assert_eq!(fills.legal_moves.len(), 6);
        let low = apply_moved(&before, &moved(&before, "a", "a1", Mark::X, turn_o)).expect("next");
        assert_eq!(low.board[5], "X..O...");
        assert_eq!(low.legal_moves, before.legal_moves);
        assert_eq!(low.last_move.as_deref(), Some("a1"));
    }

    #[test]
    fn gravity_moves_name_columns() {
        let snap = snapshot(
            C4,
            &[
                "...X...", "...O...", "...X...", "...O...", "...X...", "...O...",
            ],
            GameStatus::Playing { turn: Mark::X },
        );
        let me = Some(session(1));
        assert_eq!(check_move(&snap, me, "c"), Ok("c".to_owned()));
        assert_eq!(check_move(&snap, me, "3"), Ok("c".to_owned()));
        assert_eq!(check_move(&snap, me, "c5"), Ok("c".to_owned()));
        assert_eq!(
            check_move(&snap, me, "d"),
            Err(MoveRejection::ColumnFull("d".into()))
        );
        for text in ["h", "8", "0", "??"] {
            assert!(
                matches!(check_move(&snap, me, text), Err(MoveRejection::Notation(_))),
                "{text}"
            );
        }
        assert_eq!(landing_row(&snap, 0), Some(5));
        assert_eq!(landing_row(&snap, 3), None);
    }
}
