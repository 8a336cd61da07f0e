//! Game records: a finished (or unfinished) game as plain text, like PGN for chess, as
//! `docs/protocol.md` ("Game records") defines it.
//!
//! ```text
//! [Board "3x3"]
//! [K "3"]
//! [Gravity "no"]
//! [Result "1-0"]
//!
//! 1. b2 {2.1s} a2 2. a1 c1 3. c3 1-0
//! ```
//!
//! Tag lines `[Name "value"]` (`\"` and `\\` escaped), a blank line, then the moves in
//! the engine's notation, optionally numbered per pair and followed by `{comments}`,
//! ending with the result. [`Record::parse`] reads one back into a [`Position`], replaying
//! every move so that an illegal one is reported with its number; [`Record`]'s `Display`
//! writes one.
//!
//! ```
//! use inarow_engine::record::{Record, RecordResult};
//! use inarow_engine::{Position, Rules};
//!
//! let text = "[Board \"7x6\"]\n[K \"4\"]\n[Gravity \"yes\"]\n\n1. d d 2. e {thinking} c *\n";
//! let record = Record::parse(text).unwrap();
//! assert_eq!(record.position.rules(), Rules::connect4());
//! assert_eq!(record.position.ply(), 4);
//! assert_eq!(record.result, RecordResult::Unfinished);
//! assert_eq!(record.to_string(), "[Board \"7x6\"]\n[K \"4\"]\n[Gravity \"yes\"]\n\n1. d d 2. e {thinking} c *\n");
//! ```

use std::fmt::{self, Write as _};

use crate::position::{GameStatus, MoveError, Position};
use crate::rules::{ParseMoveError, Player, Rules, RulesError, Variant};

/// The longest line [`Record`]'s `Display` writes in the move text before wrapping.
const LINE_WIDTH: usize = 79;

/// How a recorded game ended: the result token of the move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordResult {
    /// `1-0`: X won (a line, or O resigned).
    XWon,
    /// `0-1`: O won.
    OWon,
    /// `1/2-1/2`: drawn.
    Drawn,
    /// `*`: not finished.
    Unfinished,
}

impl RecordResult {
    /// The token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn token(self) -> &'static str {
        match self {
            RecordResult::XWon => "1-0",
            RecordResult::OWon => "0-1",
            RecordResult::Drawn => "1/2-1/2",
            RecordResult::Unfinished => "*",
        }
    }

    /// The result a win by `winner` is written as.
    pub fn won_by(winner: Player) -> RecordResult {
        match winner {
            Player::X => RecordResult::XWon,
            Player::O => RecordResult::OWon,
        }
    }

    /// The result `position` shows by itself (a resignation is not on the board: set
    /// it yourself).
    pub fn of(position: &Position) -> RecordResult {
        match position.status() {
            GameStatus::InProgress { .. } => RecordResult::Unfinished,
            GameStatus::Won { winner, .. } => RecordResult::won_by(winner),
            GameStatus::Drawn => RecordResult::Drawn,
        }
    }

    fn from_token(token: &str) -> Option<RecordResult> {
        [
            RecordResult::XWon,
            RecordResult::OWon,
            RecordResult::Drawn,
            RecordResult::Unfinished,
        ]
        .into_iter()
        .find(|r| r.token() == token)
    }
}

impl fmt::Display for RecordResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// Why a text is not a game record. Line and move numbers count from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// A tag line that is not `[Name "value"]`.
    BadTag {
        /// The line.
        line: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tag the rules need (`Board`, `K` or `Gravity`) is missing.
    MissingTag(&'static str),
    /// A rules tag whose value cannot be read (`Board "7by6"`, `Gravity "maybe"`).
    BadRulesTag {
        /// The tag.
        tag: &'static str,
        /// Its value.
        value: String,
    },
    /// The rules tags read, but describe no valid game.
    Rules(RulesError),
    /// A `{` comment that is never closed.
    UnclosedComment,
    /// Something other than a move, a move number, a comment or a result token.
    UnreadableMove {
        /// Which move (1 for the first).
        number: usize,
        /// The text.
        text: String,
        /// Why it is not a move.
        error: ParseMoveError,
    },
    /// A move the position does not allow (an occupied cell, a full column, a move
    /// after the game ended).
    IllegalMove {
        /// Which move (1 for the first).
        number: usize,
        /// The move as written.
        text: String,
        /// Why it is illegal.
        error: MoveError,
    },
    /// Text after the result token.
    AfterResult(String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::BadTag { line, reason } => write!(f, "line {line}: bad tag: {reason}"),
            RecordError::MissingTag(tag) => write!(f, "the {tag} tag is missing"),
            RecordError::BadRulesTag { tag, value } => {
                let want = match *tag {
                    "Board" => "WIDTHxHEIGHT, such as 7x6",
                    "K" => "a whole number",
                    _ => "yes or no",
                };
                write!(f, "the {tag} tag is {value:?}; it must be {want}")
            }
            RecordError::Rules(e) => write!(f, "the rules tags: {e}"),
            RecordError::UnclosedComment => f.write_str("a { comment is never closed"),
            RecordError::UnreadableMove {
                number,
                text,
                error,
            } => write!(f, "move {number} ({text}): {error}"),
            RecordError::IllegalMove {
                number,
                text,
                error,
            } => write!(f, "move {number} ({text}) is illegal: {error}"),
            RecordError::AfterResult(text) => {
                write!(f, "{text:?} after the result: the result ends the moves")
            }
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::Rules(e) => Some(e),
            RecordError::UnreadableMove { error, .. } => Some(error),
            RecordError::IllegalMove { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// A game record: its tags, the game replayed, a comment per move and the result.
#[derive(Debug, Clone)]
pub struct Record {
    /// The tags in the order they are written; names are case-sensitive. Written as
    /// given, so include [`Record::rules_tags`] for the text to be readable back.
    pub tags: Vec<(String, String)>,
    /// The game: its rules and every move.
    pub position: Position,
    /// The comment after each move (without braces), parallel to the position's moves;
    /// shorter when the last moves have none. Several comments after one move are read as
    /// one, joined by a space.
    pub comments: Vec<Option<String>>,
    /// The result token.
    pub result: RecordResult,
}

impl Record {
    /// A record of `position` with just the rules tags and the result the board shows.
    pub fn new(position: Position) -> Record {
        Record {
            tags: Record::rules_tags(position.rules()),
            result: RecordResult::of(&position),
            position,
            comments: Vec::new(),
        }
    }

    /// The `Board`, `K` and `Gravity` tags of `rules`, and `Rule` unless freestyle (the
    /// rule a record without the tag is read under).
    pub fn rules_tags(rules: Rules) -> Vec<(String, String)> {
        let mut tags = vec![
            (
                "Board".to_owned(),
                format!("{}x{}", rules.width(), rules.height()),
            ),
            ("K".to_owned(), rules.k().to_string()),
            (
                "Gravity".to_owned(),
                if rules.gravity() { "yes" } else { "no" }.to_owned(),
            ),
        ];
        if rules.variant() != Variant::Freestyle {
            tags.push(("Rule".to_owned(), rules.variant().as_str().to_owned()));
        }
        tags
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Reads a record: the tags, the rules from `Board`, `K` and `Gravity`, and the moves
    /// replayed on them. Move numbers are optional; comments are kept but mean nothing to
    /// the game; a missing result token is read from the `Result` tag, else `*`. Tags this
    /// reader does not know are kept.
    ///
    /// # Errors
    /// The first problem found, with its line (tags) or move number (moves).
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut tags = Vec::new();
        let mut lines = text.lines().enumerate().peekable();
        // Tag lines first; blank lines between them and before the moves are allowed.
        let mut moves_text = String::new();
        while let Some((index, line)) = lines.peek().copied() {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                lines.next();
                continue;
            }
            if !trimmed.starts_with('[') {
                break;
            }
            tags.push(parse_tag(trimmed).map_err(|reason| RecordError::BadTag {
                line: index + 1,
                reason,
            })?);
            lines.next();
        }
        for (_, line) in lines {
            moves_text.push_str(line);
            moves_text.push('\n');
        }
        let rules = rules_from_tags(&tags)?;
        let mut position = Position::new(rules);
        let mut comments: Vec<Option<String>> = Vec::new();
        let mut result = None;
        for token in tokens(&moves_text)? {
            if result.is_some() {
                let text = match token {
                    Token::Word(word) => word,
                    Token::Comment(comment) => format!("{{{comment}}}"),
                };
                return Err(RecordError::AfterResult(text));
            }
            match token {
                Token::Comment(comment) => {
                    // A comment before the first move has no move to belong to: dropped.
                    let Some(last) = position.ply().checked_sub(1) else {
                        continue;
                    };
                    comments.resize(position.ply(), None);
                    let slot = &mut comments[last];
                    *slot = Some(match slot.take() {
                        Some(before) => format!("{before} {comment}"),
                        None => comment,
                    });
                }
                Token::Word(word) => {
                    if let Some(r) = RecordResult::from_token(&word) {
                        result = Some(r);
                        continue;
                    }
                    let Some(mv_text) = strip_move_number(&word) else {
                        continue;
                    };
                    let number = position.ply() + 1;
                    let mv =
                        rules
                            .parse_move(mv_text)
                            .map_err(|error| RecordError::UnreadableMove {
                                number,
                                text: mv_text.to_owned(),
                                error,
                            })?;
                    position
                        .try_play(mv)
                        .map_err(|error| RecordError::IllegalMove {
                            number,
                            text: mv_text.to_owned(),
                            error,
                        })?;
                }
            }
        }
        let result = result
            .or_else(|| {
                tags.iter()
                    .find(|(n, _)| n == "Result")
                    .and_then(|(_, v)| RecordResult::from_token(v))
            })
            .unwrap_or(RecordResult::Unfinished);
        while comments.last().is_some_and(Option::is_none) {
            comments.pop();
        }
        Ok(Record {
            tags,
            position,
            comments,
            result,
        })
    }
}

/// Writes the record: tag lines, a blank line, the numbered moves with their comments
/// wrapped at 79 columns, and the result.
impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in &self.tags {
            writeln!(f, "[{name} \"{}\"]", escape(value))?;
        }
        f.write_str("\n")?;
        let mut words = Vec::new();
        for (i, mv) in self.position.history().iter().enumerate() {
            if i % 2 == 0 {
                words.push(format!("{}.", i / 2 + 1));
            }
            words.push(mv.to_string());
            if let Some(Some(comment)) = self.comments.get(i) {
                // A `}` inside would end the comment early.
                words.push(format!("{{{}}}", comment.replace('}', ")")));
            }
        }
        words.push(self.result.token().to_owned());
        let mut line = String::new();
        for word in words {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > LINE_WIDTH {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        writeln!(f, "{line}")
    }
}

/// A tag value with `\` and `"` escaped; line breaks and other control characters, which
/// would break the line format, become spaces.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// One `[Name "value"]` line, trimmed.
fn parse_tag(line: &str) -> Result<(String, String), &'static str> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or("a tag line is [Name \"value\"]")?;
    let (name, rest) = inner
        .split_once(|c: char| c.is_whitespace())
        .ok_or("a tag needs a name and a quoted value")?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err("a tag name is letters, digits and _");
    }
    let quoted = rest.trim();
    let body = quoted
        .strip_prefix('"')
        .ok_or("the value must be in double quotes")?;
    let mut value = String::new();
    let mut chars = body.chars();
    loop {
        match chars.next() {
            None => return Err("the value's closing quote is missing"),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some(c @ ('"' | '\\')) => value.push(c),
                _ => return Err("only \\\" and \\\\ may follow a backslash"),
            },
            Some(c) => value.push(c),
        }
    }
    if !chars.as_str().trim().is_empty() {
        return Err("text after the value's closing quote");
    }
    Ok((name.to_owned(), value))
}

/// The rules the `Board`, `K`, `Gravity` and (if there) `Rule` tags give.
fn rules_from_tags(tags: &[(String, String)]) -> Result<Rules, RecordError> {
    let get = |tag: &'static str| {
        tags.iter()
            .find(|(n, _)| n == tag)
            .map(|(_, v)| v.trim())
            .ok_or(RecordError::MissingTag(tag))
    };
    let bad = |tag: &'static str, value: &str| RecordError::BadRulesTag {
        tag,
        value: value.to_owned(),
    };
    let board = get("Board")?;
    let (width, height) = board
        .split_once(['x', 'X', '×'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
        .ok_or_else(|| bad("Board", board))?;
    let k_text = get("K")?;
    let k = k_text.parse().map_err(|_| bad("K", k_text))?;
    let gravity_text = get("Gravity")?;
    let gravity = match gravity_text.to_ascii_lowercase().as_str() {
        "yes" | "true" => true,
        "no" | "false" => false,
        _ => return Err(bad("Gravity", gravity_text)),
    };
    let rules = Rules::new(width, height, k, gravity).map_err(RecordError::Rules)?;
    match tags.iter().find(|(n, _)| n == "Rule") {
        None => Ok(rules),
        Some((_, text)) => {
            let variant = Variant::parse(text).ok_or_else(|| bad("Rule", text))?;
            rules.with_variant(variant).map_err(RecordError::Rules)
        }
    }
}

/// A token of the move text.
#[derive(Debug)]
enum Token {
    /// A move, a move number (possibly glued to a move: `1.b2`) or a result.
    Word(String),
    /// The inside of `{...}`, trimmed, its line breaks made spaces.
    Comment(String),
}

/// Splits the move text into words and comments; comments may span lines.
fn tokens(text: &str) -> Result<Vec<Token>, RecordError> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '{' {
            chars.next();
            let mut comment = String::new();
            loop {
                match chars.next() {
                    None => return Err(RecordError::UnclosedComment),
                    Some('}') => break,
                    Some(c) if c.is_whitespace() => comment.push(' '),
                    Some(c) => comment.push(c),
                }
            }
            let comment = comment.split_whitespace().collect::<Vec<_>>().join(" ");
            tokens.push(Token::Comment(comment));
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '{' {
                    break;
                }
                word.push(c);
                chars.next();
            }
            tokens.push(Token::Word(word));
        }
    }
    Ok(tokens)
}

/// The move in `word` without a leading move number (`12.`, `3...`); `None` when the
/// word is only a number. A bare number without a dot is a move: a column digit.
fn strip_move_number(word: &str) -> Option<&str> {
    let digits = word.len() - word.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after_digits = &word[digits..];
    if digits == 0 || !after_digits.starts_with('.') {
        return Some(word);
    }
    let rest = after_digits.trim_start_matches('.');
    (!rest.is_empty()).then_some(rest)
}

/// A think time in milliseconds as the server writes it in a move's comment: `2.1s`
/// (tenths of a second, rounded).
pub fn seconds_comment(ms: u64) -> String {
    let mut text = String::new();
    // Tenths of a second, rounded; written without floats so that every platform agrees.
    let tenths = (ms + 50) / 100;
    let _ = write!(text, "{}.{}s", tenths / 10, tenths % 10);
    text
}

/// Milliseconds since the Unix epoch as the record's `Start` and `End` tags write them:
/// `YYYY-MM-DDTHH:MM:SSZ` (UTC, seconds truncated). Clients use it to show dates too.
pub fn utc_timestamp(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 as (year, month, day) in the proleptic Gregorian calendar: Howard
/// Hinnant's `civil_from_days`, on unsigned numbers since the epoch is the earliest date a
/// protocol timestamp can name.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests;
