//! The openings file: positions a match starts its games from.
//!
//! One opening a line, its moves in inarow's notation (columns `a`… from the left, rows
//! `1`… from the bottom) separated by spaces, the first player's first; `#` starts a
//! comment, to the end of the line (the openings tool writes the yardstick's evaluation
//! there). Blank lines are skipped. The board is 15×15 gomoku. The empty board is not
//! written in the file: the match runner adds it.

use inarow_engine::{Move, Position, Rules};

/// A position to start games from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// Its moves, the first player's first.
    pub moves: Vec<Move>,
}

/// Why an openings file could not be read: the line (from 1) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct OpeningError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl Opening {
    /// The empty board.
    pub fn empty() -> Opening {
        Opening { moves: Vec::new() }
    }

    /// The moves as the file writes them (empty for the empty board).
    pub fn text(&self) -> String {
        let notation: Vec<String> = self.moves.iter().map(|m| m.notation()).collect();
        notation.join(" ")
    }

    /// The position after the opening's moves.
    ///
    /// # Errors
    /// A message when a move cannot be played (a cell taken twice, off the board, or a
    /// game already won).
    pub fn position(&self, rules: Rules) -> Result<Position, String> {
        let position = Position::from_moves(rules, &self.moves).map_err(|e| e.to_string())?;
        if position.is_over() {
            return Err("the opening ends the game".into());
        }
        Ok(position)
    }

    /// Reads one opening from `text` (moves separated by spaces, no comment).
    ///
    /// # Errors
    /// A message naming the first move that cannot be read or played.
    pub fn parse(text: &str, rules: Rules) -> Result<Opening, String> {
        let mut moves = Vec::new();
        for word in text.split_whitespace() {
            let mv = rules
                .parse_move(word)
                .map_err(|e| format!("{word:?}: {e}"))?;
            moves.push(mv);
        }
        let opening = Opening { moves };
        opening.position(rules)?;
        Ok(opening)
    }
}

/// Reads an openings file.
///
/// # Errors
/// [`OpeningError`] for the first line that is not an opening.
pub fn parse_file(text: &str, rules: Rules) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let opening = Opening::parse(content, rules).map_err(|message| OpeningError {
            line: index + 1,
            message,
        })?;
        openings.push(opening);
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_openings_and_skips_comments() {
        let text = "# balanced openings\n\nh8 i9 g7   # eval 12\nh8 h9 i8 j7\n";
        let openings = parse_file(text, Rules::gomoku()).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].text(), "h8 i9 g7");
        assert_eq!(openings[1].moves.len(), 4);
        assert_eq!(Opening::empty().text(), "");
    }

    #[test]
    fn names_the_bad_line() {
        let rules = Rules::gomoku();
        for (text, line) in [
            ("h8 i9\nh8 h8\n", 2),
            ("z9\n", 1),
            ("h8 i9\n\nh8 q1\n", 3),
            ("a1 b1 a2 b2 a3 b3 a4 b4 a5\n", 1),
        ] {
            let error = parse_file(text, rules).unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error}");
        }
    }
}
