//! The Gomocup ("piskvork") protocol's lines, read into commands and written back.
//!
//! The protocol is line based: the manager sends one command a line, the brain answers
//! `OK`, a move `x,y`, `ERROR message` (a command it understood but cannot carry out, or
//! one whose parameters are wrong), `UNKNOWN message` (a command it does not know), or
//! nothing (INFO, END). Coordinates are `x` the column from the left and `y` the row from
//! the top, both from 0; the manager may put spaces around the comma.

use std::fmt;

use inarow_engine::{Cell, Rules};

/// A cell in the protocol's coordinates: `x` the column from the left, `y` the row from the
/// top, both from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Point {
    /// Column from the left, from 0.
    pub x: u32,
    /// Row from the top, from 0.
    pub y: u32,
}

impl fmt::Display for Point {
    /// The protocol's form of a move, `x,y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

impl Point {
    /// The engine's cell at this point of a board of `rules`; `None` off the board. The
    /// protocol counts rows from the top, the engine from the bottom.
    pub fn cell(self, rules: Rules) -> Option<Cell> {
        if self.x >= rules.width() || self.y >= rules.height() {
            return None;
        }
        // Both fit a u8: a board's sides are at most 19.
        Some(Cell {
            col: self.x as u8,
            row: (rules.height() - 1 - self.y) as u8,
        })
    }

    /// The point of the engine's `cell` on a board of `rules`.
    pub fn of(cell: Cell, rules: Rules) -> Point {
        Point {
            x: u32::from(cell.col),
            y: rules.height().saturating_sub(1 + u32::from(cell.row)),
        }
    }
}

/// One command from the manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `START n`: a new game on an n×n board.
    Start {
        /// The side of the board.
        size: u32,
    },
    /// `RECTSTART w,h`: a new game on a w×h board.
    RectStart {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// `RESTART`: a new game on the same board.
    Restart,
    /// `BEGIN`: move first on the empty board.
    Begin,
    /// `TURN x,y`: the opponent played here; answer a move.
    Turn(Point),
    /// `BOARD`: the stones follow, one a line, until `DONE`; then answer a move.
    Board,
    /// `INFO key value`: a setting; never answered.
    Info {
        /// The setting's name, in lower case.
        key: String,
        /// Its value, as sent.
        value: String,
    },
    /// `TAKEBACK x,y`: remove the stone there.
    Takeback(Point),
    /// `ABOUT`: describe the brain on one line.
    About,
    /// `END`: stop at once, answering nothing.
    End,
}

/// One line between `BOARD` and `DONE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardLine {
    /// `x,y,field`: a stone; field 1 is the brain's own, 2 the opponent's, 3 a stone of a
    /// winning line or a renju foul (only in the continuous game, which inarow does not play).
    Stone {
        /// Where the stone is.
        at: Point,
        /// Whose it is, as sent.
        field: u8,
    },
    /// `DONE`: the end of the stones.
    Done,
}

/// Why a line is not a command the brain can read. Its `Display` is the protocol's answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// A command the protocol has but this brain does not play (answered `UNKNOWN`), or
    /// no command at all.
    #[error("UNKNOWN {0}")]
    Unknown(String),
    /// A known command whose parameters are missing or wrong (answered `ERROR`).
    #[error("ERROR {0}")]
    Malformed(String),
}

/// Reads one line from the manager; `Ok(None)` for an empty line, which the protocol ignores.
///
/// # Errors
/// [`CommandError::Unknown`] for a command this brain does not know,
/// [`CommandError::Malformed`] for a known one with wrong parameters.
pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let word = word.to_ascii_uppercase();
    let command = match word.as_str() {
        "START" => Command::Start {
            size: number(rest)
                .ok_or_else(|| malformed("START", "takes the board size, START 15"))?,
        },
        "RECTSTART" => {
            let (width, height) = pair(rest)
                .ok_or_else(|| malformed("RECTSTART", "takes width,height, RECTSTART 20,15"))?;
            Command::RectStart { width, height }
        }
        "RESTART" => Command::Restart,
        "BEGIN" => Command::Begin,
        "TURN" => Command::Turn(point(rest).ok_or_else(|| malformed("TURN", "takes x,y"))?),
        "TAKEBACK" => {
            Command::Takeback(point(rest).ok_or_else(|| malformed("TAKEBACK", "takes x,y"))?)
        }
        "BOARD" => Command::Board,
        "INFO" => {
            let (key, value) = match rest.split_once(char::is_whitespace) {
                Some((key, value)) => (key, value.trim()),
                None => (rest, ""),
            };
            Command::Info {
                key: key.to_ascii_lowercase(),
                value: value.to_owned(),
            }
        }
        "ABOUT" => Command::About,
        "END" => Command::End,
        _ => {
            // Name the command, but not a whole line of whatever was sent.
            let shown: String = word.chars().take(32).collect();
            return Err(CommandError::Unknown(format!("command {shown}")));
        }
    };
    Ok(Some(command))
}

/// Reads one line of a `BOARD` block.
///
/// # Errors
/// [`CommandError::Malformed`] when the line is neither `x,y,field` nor `DONE`.
pub fn parse_board_line(line: &str) -> Result<BoardLine, CommandError> {
    let line = line.trim();
    if line.eq_ignore_ascii_case("DONE") {
        return Ok(BoardLine::Done);
    }
    let mut parts = line.split(',').map(str::trim);
    let stone = (|| {
        let x = parts.next()?.parse().ok()?;
        let y = parts.next()?.parse().ok()?;
        let field = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(BoardLine::Stone {
            at: Point { x, y },
            field,
        })
    })();
    stone.ok_or_else(|| malformed("BOARD", "takes lines x,y,field and then DONE"))
}

/// Reads a move the brain (or another engine) wrote: `x,y`.
pub fn point(text: &str) -> Option<Point> {
    pair(text).map(|(x, y)| Point { x, y })
}

/// Two numbers separated by a comma, spaces allowed around them.
fn pair(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once(',')?;
    Some((number(a)?, number(b)?))
}

/// A non-negative number, spaces allowed around it.
fn number(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

fn malformed(command: &str, how: &str) -> CommandError {
    CommandError::Malformed(format!("{command} {how}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_command() {
        let table = [
            ("START 15", Command::Start { size: 15 }),
            (
                "RECTSTART 20,15",
                Command::RectStart {
                    width: 20,
                    height: 15,
                },
            ),
            ("RESTART", Command::Restart),
            ("BEGIN", Command::Begin),
            ("TURN 10,11", Command::Turn(Point { x: 10, y: 11 })),
            ("TURN 10, 11", Command::Turn(Point { x: 10, y: 11 })),
            ("TAKEBACK 3,4", Command::Takeback(Point { x: 3, y: 4 })),
            ("BOARD", Command::Board),
            (
                "INFO timeout_turn 1000",
                Command::Info {
                    key: "timeout_turn".into(),
                    value: "1000".into(),
                },
            ),
            (
                "INFO folder C:\\my brains",
                Command::Info {
                    key: "folder".into(),
                    value: "C:\\my brains".into(),
                },
            ),
            ("ABOUT", Command::About),
            ("END", Command::End),
            // Managers send CR LF; some people type in lower case.
            ("begin\r", Command::Begin),
            ("  turn 0,0  ", Command::Turn(Point { x: 0, y: 0 })),
        ];
        for (line, command) in table {
            assert_eq!(parse(line), Ok(Some(command)), "{line:?}");
        }
    }

    #[test]
    fn empty_lines_are_ignored() {
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse(" \r"), Ok(None));
    }

    #[test]
    fn unknown_commands_are_unknown_and_bad_parameters_are_errors() {
        assert!(matches!(parse("SWAP2BOARD"), Err(CommandError::Unknown(_))));
        assert!(matches!(
            parse("hello there"),
            Err(CommandError::Unknown(_))
        ));
        for line in [
            "START",
            "START fifteen",
            "START -1",
            "RECTSTART 20",
            "TURN 10",
            "TURN a,b",
            "TURN -1,3",
            "TAKEBACK",
        ] {
            assert!(
                matches!(parse(line), Err(CommandError::Malformed(_))),
                "{line:?}"
            );
        }
        assert!(
            CommandError::Unknown("command X".into())
                .to_string()
                .starts_with("UNKNOWN ")
        );
        assert!(
            CommandError::Malformed("TURN takes x,y".into())
                .to_string()
                .starts_with("ERROR ")
        );
    }

    #[test]
    fn an_unknown_command_is_named_briefly() {
        let long = "X".repeat(10_000);
        let Err(CommandError::Unknown(message)) = parse(&long) else {
            panic!("a long word is an unknown command");
        };
        assert!(message.len() < 64);
    }

    #[test]
    fn reads_board_lines() {
        assert_eq!(
            parse_board_line("10,10,1"),
            Ok(BoardLine::Stone {
                at: Point { x: 10, y: 10 },
                field: 1
            })
        );
        assert_eq!(
            parse_board_line(" 9, 10, 2\r"),
            Ok(BoardLine::Stone {
                at: Point { x: 9, y: 10 },
                field: 2
            })
        );
        assert_eq!(parse_board_line("DONE"), Ok(BoardLine::Done));
        for line in ["10,10", "1,2,3,4", "a,b,c", "", "TURN 1,1"] {
            assert!(parse_board_line(line).is_err(), "{line:?}");
        }
    }

    #[test]
    fn writes_moves_as_the_protocol_reads_them() {
        let at = Point { x: 7, y: 12 };
        assert_eq!(at.to_string(), "7,12");
        assert_eq!(point(&at.to_string()), Some(at));
        assert_eq!(point("7"), None);
    }

    #[test]
    fn rows_count_from_the_top_and_cells_from_the_bottom() {
        let rules = Rules::new(15, 10, 5, false).unwrap();
        let top_left = Point { x: 0, y: 0 };
        assert_eq!(top_left.cell(rules), Some(Cell { col: 0, row: 9 }));
        assert_eq!(Point::of(Cell { col: 0, row: 9 }, rules), top_left);
        let at = Point { x: 14, y: 9 };
        assert_eq!(Point::of(at.cell(rules).unwrap(), rules), at);
        assert_eq!(Point { x: 15, y: 0 }.cell(rules), None);
        assert_eq!(Point { x: 0, y: 10 }.cell(rules), None);
    }
}
