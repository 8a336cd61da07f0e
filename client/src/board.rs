//! Reading a room snapshot as a board: notation, cells, seats, rule labels, and the local
//! check that decides whether a typed or clicked move is worth sending to the server.

use std::fmt;

use inarow_protocol::{GameStatus, Mark, Occupant, RoomSnapshot, Rules, RulesSpec, SessionId};

/// The letter that names a column in notation (`0` → `a`).
pub fn column_letter(col: u32) -> char {
    // Boards are at most 19 wide, so the letter stays within a..s.
    char::from_u32(u32::from(b'a') + col).unwrap_or('?')
}

/// A cell in notation from a 0-based column and a 1-based row counted from the bottom.
pub fn cell_name(col: u32, row: u32) -> String {
    format!("{}{}", column_letter(col), row)
}

/// Parses a cell like `b2` (case-insensitive) into a 0-based column and 1-based row,
/// without checking it against a board.
pub fn parse_cell(text: &str) -> Option<(u32, u32)> {
    let text = text.trim().to_ascii_lowercase();
    let mut chars = text.chars();
    let letter = chars.next()?;
    if !letter.is_ascii_lowercase() {
        return None;
    }
    let digits = chars.as_str();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let row: u32 = digits.parse().ok()?;
    Some((u32::from(letter) - u32::from('a'), row))
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

/// Converts a 1-based row from the bottom into a 0-based row from the top.
pub fn top_row_of(rules: &Rules, row: u32) -> u32 {
    rules.height.saturating_sub(row)
}

/// The 0-based top row where a stone dropped in `col` would land, if the column has room.
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
            .filter_map(|c| parse_cell(c))
            .map(|(col, row)| (col, top_row_of(&snapshot.rules, row)))
            .collect(),
        _ => Vec::new(),
    }
}

/// The last stone's cell as (column, top row).
pub fn last_cell(snapshot: &RoomSnapshot) -> Option<(u32, u32)> {
    let (col, row) = parse_cell(snapshot.last_move.as_deref()?)?;
    Some((col, top_row_of(&snapshot.rules, row)))
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
    /// The text is not a move in this game's notation.
    Junk(String),
    /// The cell or column is outside the board.
    OffBoard(String),
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
            MoveRejection::Junk(text) => write!(f, "{text:?} is not a move here"),
            MoveRejection::OffBoard(m) => write!(f, "{m} is off the board"),
            MoveRejection::Occupied(m) => write!(f, "{m} is already taken"),
            MoveRejection::ColumnFull(m) => write!(f, "column {m} is full"),
        }
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
    let text = text.trim().to_ascii_lowercase();
    let rules = snapshot.rules;
    if rules.gravity {
        let col = if let Some(n) = text.parse::<u32>().ok().filter(|_| !text.is_empty()) {
            if n == 0 || n > rules.width {
                return Err(MoveRejection::OffBoard(text));
            }
            n - 1
        } else {
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_lowercase() => u32::from(c) - u32::from('a'),
                _ => match parse_cell(&text) {
                    // A full cell names its column; where the stone lands is the board's business.
                    Some((col, _)) => col,
                    None => return Err(MoveRejection::Junk(text)),
                },
            }
        };
        let letter = column_letter(col).to_string();
        if col >= rules.width {
            return Err(MoveRejection::OffBoard(letter));
        }
        if landing_row(snapshot, col).is_none() {
            return Err(MoveRejection::ColumnFull(letter));
        }
        Ok(letter)
    } else {
        let Some((col, row)) = parse_cell(&text) else {
            return Err(MoveRejection::Junk(text));
        };
        if col >= rules.width || row == 0 || row > rules.height {
            return Err(MoveRejection::OffBoard(text));
        }
        let name = cell_name(col, row);
        if stone_at(snapshot, col, top_row_of(&rules, row)).is_some() {
            return Err(MoveRejection::Occupied(name));
        }
        Ok(name)
    }
}

/// A short label for rules: the preset name, or `WxHkK` with a trailing `g` for gravity.
pub fn rules_label(rules: &Rules) -> String {
    match (rules.width, rules.height, rules.k, rules.gravity) {
        (3, 3, 3, false) => "tictactoe".to_owned(),
        (7, 6, 4, true) => "connect4".to_owned(),
        (15, 15, 5, false) => "gomoku".to_owned(),
        (w, h, k, g) => format!("{w}x{h}k{k}{}", if g { "g" } else { "" }),
    }
}

/// Parses rules as given on the command line: a preset (`tictactoe`, `connect4`, `gomoku`)
/// or `WxHkK` with an optional `g` for gravity (`5x5k4`, `8x7k4g`).
///
/// # Errors
/// A message saying what the accepted forms are.
pub fn parse_rules(text: &str) -> Result<RulesSpec, String> {
    let text = text.trim().to_ascii_lowercase();
    let bad = || {
        format!(
            "unknown rules {text:?}: use tictactoe, connect4, gomoku, or WxHkK with an optional g for gravity (e.g. 5x5k4, 8x7k4g)"
        )
    };
    match text.as_str() {
        "tictactoe" | "connect4" | "gomoku" => return Ok(RulesSpec::Preset(text)),
        "ttt" => return Ok(RulesSpec::Preset("tictactoe".to_owned())),
        "c4" => return Ok(RulesSpec::Preset("connect4".to_owned())),
        _ => {}
    }
    let (body, gravity) = match text.strip_suffix('g') {
        Some(body) => (body, true),
        None => (text.as_str(), false),
    };
    let (w, rest) = body.split_once('x').ok_or_else(bad)?;
    let (h, k) = rest.split_once('k').ok_or_else(bad)?;
    let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
    Ok(RulesSpec::Custom(Rules {
        width: num(w)?,
        height: num(h)?,
        k: num(k)?,
        gravity,
    }))
}

/// Parses a seat name: `X` or `O` (case-insensitive).
///
/// # Errors
/// A message naming the accepted values.
pub fn parse_mark(text: &str) -> Result<Mark, String> {
    match text.trim() {
        "X" | "x" => Ok(Mark::X),
        "O" | "o" | "0" => Ok(Mark::O),
        other => Err(format!("unknown seat {other:?}: use X or O")),
    }
}

/// Parses an AI level: `easy`, `medium` or `perfect`.
///
/// # Errors
/// A message naming the accepted values.
pub fn parse_level(text: &str) -> Result<inarow_protocol::Level, String> {
    use inarow_protocol::Level;
    match text.trim().to_ascii_lowercase().as_str() {
        "easy" => Ok(Level::Easy),
        "medium" => Ok(Level::Medium),
        "perfect" | "hard" => Ok(Level::Perfect),
        other => Err(format!(
            "unknown level {other:?}: use easy, medium or perfect"
        )),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use inarow_protocol::{RoomId, SeatInfo};

    pub(crate) fn session(n: u128) -> SessionId {
        SessionId(uuid::Uuid::from_u128(n))
    }

    /// A snapshot with `me` (session 1, "alice") as X against a perfect AI.
    pub(crate) fn snapshot(rules: Rules, board: &[&str], status: GameStatus) -> RoomSnapshot {
        RoomSnapshot {
            id: RoomId::from("abcd2345"),
            name: "alice's room".to_owned(),
            rules,
            private: false,
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
            legal_moves: Vec::new(),
            status,
            last_move: None,
            spectators: Vec::new(),
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
    fn cells_parse_and_print() {
        assert_eq!(parse_cell("b2"), Some((1, 2)));
        assert_eq!(parse_cell(" C10 "), Some((2, 10)));
        assert_eq!(parse_cell("2b"), None);
        assert_eq!(parse_cell("b"), None);
        assert_eq!(parse_cell(""), None);
        assert_eq!(cell_name(0, 1), "a1");
        assert_eq!(cell_name(18, 19), "s19");
    }

    #[test]
    fn rules_parse_and_label() {
        assert_eq!(
            parse_rules("connect4"),
            Ok(RulesSpec::Preset("connect4".into()))
        );
        assert_eq!(
            parse_rules("5x5k4"),
            Ok(RulesSpec::Custom(Rules {
                width: 5,
                height: 5,
                k: 4,
                gravity: false
            }))
        );
        assert_eq!(
            parse_rules("8x7k4g"),
            Ok(RulesSpec::Custom(Rules {
                width: 8,
                height: 7,
                k: 4,
                gravity: true
            }))
        );
        assert!(parse_rules("chess").is_err());
        assert!(parse_rules("5x5").is_err());
        assert_eq!(rules_label(&C4), "connect4");
        assert_eq!(rules_label(&TTT), "tictactoe");
        assert_eq!(
            rules_label(&Rules {
                width: 8,
                height: 7,
                k: 4,
                gravity: true
            }),
            "8x7k4g"
        );
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
        assert!(matches!(
            check_move(&snap, me, "d1"),
            Err(MoveRejection::OffBoard(_))
        ));
        assert!(matches!(
            check_move(&snap, me, "a4"),
            Err(MoveRejection::OffBoard(_))
        ));
        assert!(matches!(
            check_move(&snap, me, "a0"),
            Err(MoveRejection::OffBoard(_))
        ));
        assert!(matches!(
            check_move(&snap, me, "hello"),
            Err(MoveRejection::Junk(_))
        ));
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
        assert!(matches!(
            check_move(&snap, me, "h"),
            Err(MoveRejection::OffBoard(_))
        ));
        assert!(matches!(
            check_move(&snap, me, "8"),
            Err(MoveRejection::OffBoard(_))
        ));
        assert!(matches!(
            check_move(&snap, me, "0"),
            Err(MoveRejection::OffBoard(_))
        ));
        assert!(matches!(
            check_move(&snap, me, "??"),
            Err(MoveRejection::Junk(_))
        ));
        assert_eq!(landing_row(&snap, 0), Some(5));
        assert_eq!(landing_row(&snap, 3), None);
    }
}
