//! The manager's side of the protocol, apart from any transport: the lines that set up a
//! game and show an engine the board, and what an engine's answer line means. The match
//! runner's [`crate::engine`] (threads) and `child` (tokio, for the server and the bot) both
//! write and read through it.

use inarow_engine::{Player as Side, Position, Rules};

use crate::command::{self, Point};

/// The line that starts a game on a board of `rules`: `START n` for a square board,
/// `RECTSTART w,h` otherwise (an engine that plays only squares refuses it).
pub fn start_command(rules: Rules) -> String {
    start_size(rules.width(), rules.height())
}

/// [`start_command`] for a board of `width` × `height`.
pub fn start_size(width: u32, height: u32) -> String {
    if width == height {
        format!("START {width}")
    } else {
        format!("RECTSTART {width},{height}")
    }
}

/// The lines asking `engine_side` for its move in `position`: `BEGIN` on the empty board,
/// else a `BOARD` block with the engine's stones as field 1 and the others as 2, in the
/// order played, one line each, then `DONE`. Telling the whole board every move lets any
/// engine process answer any game, whatever it saw before.
pub fn board_command(position: &Position, engine_side: Side) -> String {
    if position.ply() == 0 {
        return "BEGIN".to_owned();
    }
    let rules = position.rules();
    let mut lines = vec!["BOARD".to_owned()];
    // Stones alternate from X: the stone of ply i is X's when i is even.
    for (ply, &cell) in position.landed().iter().enumerate() {
        let owner = if ply % 2 == 0 { Side::X } else { Side::O };
        let field = if owner == engine_side { 1 } else { 2 };
        lines.push(format!("{},{field}", Point::of(cell, rules)));
    }
    lines.push("DONE".to_owned());
    lines.join("\n")
}

/// The `name="…"` of an ABOUT line.
pub fn about_name(line: &str) -> Option<String> {
    let start = line.find("name=\"")? + "name=\"".len();
    let len = line[start..].find('"')?;
    Some(line[start..start + len].to_owned())
}

/// What one line from an engine says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Nothing a manager waits for: an empty line, `DEBUG …`.
    Ignored,
    /// `MESSAGE …`: something the engine wants people to read.
    Message(String),
    /// `ERROR …` or `UNKNOWN …`: the engine refused the command.
    Refused(String),
    /// `OK`.
    Ok,
    /// A move, `x,y`.
    Move(Point),
    /// Anything else (an ABOUT line, or nonsense where a move was due).
    Other(String),
}

/// Reads one line an engine wrote.
pub fn answer(line: &str) -> Answer {
    let line = line.trim();
    let word = line.split_whitespace().next().unwrap_or("");
    match word.to_ascii_uppercase().as_str() {
        "" | "DEBUG" => Answer::Ignored,
        "MESSAGE" => Answer::Message(line.to_owned()),
        "ERROR" | "UNKNOWN" => Answer::Refused(line.to_owned()),
        "OK" => Answer::Ok,
        _ => match command::point(line) {
            Some(point) => Answer::Move(point),
            None => Answer::Other(line.to_owned()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opening::Opening;

    #[test]
    fn the_board_block_gives_the_engine_its_own_stones_as_field_1() {
        let rules = Rules::gomoku();
        let opening = Opening::parse("h8 i9 g7", rules).unwrap();
        let position = opening.position(rules).unwrap();
        assert_eq!(
            board_command(&position, Side::O),
            "BOARD\n7,7,2\n8,6,1\n6,8,2\nDONE"
        );
        assert_eq!(board_command(&Position::new(rules), Side::X), "BEGIN");
    }

    #[test]
    fn reads_the_name_from_about() {
        assert_eq!(
            about_name("name=\"Rapfi\", version=\"1.0\"").as_deref(),
            Some("Rapfi")
        );
        assert_eq!(about_name("a brain with no keywords"), None);
    }

    #[test]
    fn squares_start_and_rectangles_rectstart() {
        assert_eq!(start_size(15, 15), "START 15");
        assert_eq!(start_size(20, 15), "RECTSTART 20,15");
    }

    #[test]
    fn reads_answers() {
        assert_eq!(answer(" ok "), Answer::Ok);
        assert_eq!(answer("7, 8"), Answer::Move(Point { x: 7, y: 8 }));
        assert_eq!(answer("DEBUG x"), Answer::Ignored);
        assert_eq!(answer("MESSAGE hi"), Answer::Message("MESSAGE hi".into()));
        assert_eq!(answer("ERROR no"), Answer::Refused("ERROR no".into()));
        assert_eq!(answer("banana"), Answer::Other("banana".into()));
        assert_eq!(answer("-1,3"), Answer::Other("-1,3".into()));
    }
}
