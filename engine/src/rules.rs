//! Rule sets, players, cells and moves, and the notation people read them in.

use std::fmt;

/// A rule set: board size, stones in a line to win, gravity, and which lines win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    width: u8,
    height: u8,
    k: u8,
    gravity: bool,
    variant: Variant,
}

/// Which lines win, for boards without gravity: gomoku players' rule choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// k or more in a row wins.
    #[default]
    Freestyle,
    /// Exactly k in a row wins; a longer line does not.
    Standard,
    /// Renju (k = 5): X wins with exactly five and may not make an overline, a double four
    /// or a double three ([`crate::renju`]); O wins with five or more.
    Renju,
}

impl Variant {
    /// Every variant, in the order they are listed to people.
    pub const ALL: [Variant; 3] = [Variant::Freestyle, Variant::Standard, Variant::Renju];

    /// The variant's name in records and on the wire: `freestyle`, `standard`, `renju`.
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Freestyle => "freestyle",
            Variant::Standard => "standard",
            Variant::Renju => "renju",
        }
    }

    /// The variant named `name` (any case, surrounding spaces ignored).
    pub fn parse(name: &str) -> Option<Variant> {
        let name = name.trim();
        Variant::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(name))
    }

    /// Whether a line of `run` stones of `player`'s wins under these rules with `k` to win.
    pub fn wins(self, run: usize, k: usize, player: Player) -> bool {
        match (self, player) {
            (Variant::Freestyle, _) | (Variant::Renju, Player::O) => run >= k,
            (Variant::Standard, _) | (Variant::Renju, Player::X) => run == k,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a rule set was rejected: the field and its allowed range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesError {
    /// Width outside 1..=19.
    Width {
        /// The value given.
        value: u32,
    },
    /// Height outside 1..=19.
    Height {
        /// The value given.
        value: u32,
    },
    /// k outside 1..=max(width, height).
    K {
        /// The value given.
        value: u32,
        /// The largest allowed k for this board.
        max: u32,
    },
    /// A variant these rules cannot have: any but freestyle with gravity, renju with a k
    /// other than 5.
    Variant {
        /// The variant asked for.
        variant: Variant,
    },
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::Width { value } => write!(
                f,
                "width must be between 1 and {} (got {value})",
                Rules::MAX_SIDE
            ),
            RulesError::Height { value } => write!(
                f,
                "height must be between 1 and {} (got {value})",
                Rules::MAX_SIDE
            ),
            RulesError::K { value, max } => {
                write!(f, "k must be between 1 and {max} (got {value})")
            }
            RulesError::Variant {
                variant: Variant::Renju,
            } => f.write_str("renju is played without gravity, five in a row"),
            RulesError::Variant { variant } => {
                write!(f, "the {variant} rule is for boards without gravity")
            }
        }
    }
}

impl std::error::Error for RulesError {}

/// The presets, by name, in the order they are listed to people.
const PRESETS: [(&str, Rules); 3] = [
    ("tictactoe", Rules::tictactoe()),
    ("connect4", Rules::connect4()),
    ("gomoku", Rules::gomoku()),
];

impl Rules {
    /// The largest width or height.
    pub const MAX_SIDE: u32 = 19;

    /// Builds a validated rule set.
    ///
    /// # Errors
    /// [`RulesError`] naming the first field outside its range.
    ///
    /// # Examples
    ///
    /// ```
    /// use inarow_engine::{Rules, RulesError};
    ///
    /// // 7×7, four in a row, no gravity.
    /// let rules = Rules::new(7, 7, 4, false)?;
    /// assert_eq!((rules.cells(), rules.k(), rules.gravity()), (49, 4, false));
    /// assert_eq!(Rules::new(7, 6, 4, true), Ok(Rules::connect4()));
    ///
    /// assert_eq!(Rules::new(20, 3, 3, false), Err(RulesError::Width { value: 20 }));
    /// let too_long = Rules::new(3, 3, 4, false).unwrap_err();
    /// assert_eq!(too_long, RulesError::K { value: 4, max: 3 });
    /// assert_eq!(too_long.to_string(), "k must be between 1 and 3 (got 4)");
    /// # Ok::<(), RulesError>(())
    /// ```
    pub fn new(width: u32, height: u32, k: u32, gravity: bool) -> Result<Rules, RulesError> {
        let side = 1..=Self::MAX_SIDE;
        if !side.contains(&width) {
            return Err(RulesError::Width { value: width });
        }
        if !side.contains(&height) {
            return Err(RulesError::Height { value: height });
        }
        let max = width.max(height);
        if !(1..=max).contains(&k) {
            return Err(RulesError::K { value: k, max });
        }
        // All three fit in a u8: checked against MAX_SIDE above.
        Ok(Rules {
            width: width as u8,
            height: height as u8,
            k: k as u8,
            gravity,
            variant: Variant::Freestyle,
        })
    }

    /// These rules under `variant`.
    ///
    /// # Errors
    /// [`RulesError::Variant`] for a variant other than freestyle with gravity, and for
    /// renju with a k other than 5.
    ///
    /// # Examples
    ///
    /// ```
    /// use inarow_engine::{Rules, RulesError, Variant};
    ///
    /// let renju = Rules::gomoku().with_variant(Variant::Renju)?;
    /// assert_eq!(renju.variant(), Variant::Renju);
    /// assert!(Rules::connect4().with_variant(Variant::Standard).is_err());
    /// # Ok::<(), RulesError>(())
    /// ```
    pub fn with_variant(self, variant: Variant) -> Result<Rules, RulesError> {
        let fits = match variant {
            Variant::Freestyle => true,
            Variant::Standard => !self.gravity,
            Variant::Renju => !self.gravity && self.k == 5,
        };
        if !fits {
            return Err(RulesError::Variant { variant });
        }
        Ok(Rules { variant, ..self })
    }

    /// 3×3, three in a row.
    pub const fn tictactoe() -> Rules {
        Rules {
            width: 3,
            height: 3,
            k: 3,
            gravity: false,
            variant: Variant::Freestyle,
        }
    }

    /// 7 wide × 6 high, four in a row, with gravity.
    pub const fn connect4() -> Rules {
        Rules {
            width: 7,
            height: 6,
            k: 4,
            gravity: true,
            variant: Variant::Freestyle,
        }
    }

    /// 15×15, five or more in a row.
    pub const fn gomoku() -> Rules {
        Rules {
            width: 15,
            height: 15,
            k: 5,
            gravity: false,
            variant: Variant::Freestyle,
        }
    }

    /// A preset by name: `tictactoe`, `connect4` or `gomoku`, in any case, surrounding
    /// spaces ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// use inarow_engine::Rules;
    ///
    /// assert_eq!(Rules::preset("connect4"), Some(Rules::connect4()));
    /// assert_eq!(Rules::preset(" Gomoku "), Some(Rules::gomoku()));
    /// assert_eq!(Rules::preset("chess"), None);
    /// assert_eq!(Rules::tictactoe().preset_name(), Some("tictactoe"));
    /// ```
    pub fn preset(name: &str) -> Option<Rules> {
        let name = name.trim();
        PRESETS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, rules)| rules)
    }

    /// The preset's name if these rules are one.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS
            .iter()
            .find(|(_, rules)| rules == self)
            .map(|&(name, _)| name)
    }

    /// Number of columns.
    pub fn width(&self) -> u32 {
        self.width.into()
    }

    /// Number of rows.
    pub fn height(&self) -> u32 {
        self.height.into()
    }

    /// Stones in a line needed to win.
    pub fn k(&self) -> u32 {
        self.k.into()
    }

    /// Whether stones fall to the lowest empty cell of a column.
    pub fn gravity(&self) -> bool {
        self.gravity
    }

    /// Which lines win.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Number of cells on the board.
    pub fn cells(&self) -> u32 {
        self.width() * self.height()
    }

    /// Parses a move in notation: `b2` without gravity; `b` or `2` with gravity.
    ///
    /// Case-insensitive; surrounding spaces are ignored.
    ///
    /// # Errors
    /// [`ParseMoveError`] when the text is not a move of these rules.
    ///
    /// # Examples
    ///
    /// ```
    /// use inarow_engine::{Cell, Move, Rules};
    ///
    /// // Without gravity: a column letter and a row number from the bottom.
    /// let tictactoe = Rules::tictactoe();
    /// let centre = Move::Cell(Cell { col: 1, row: 1 });
    /// assert_eq!(tictactoe.parse_move("b2"), Ok(centre));
    /// assert_eq!(tictactoe.parse_move(" B2 "), Ok(centre));
    /// assert_eq!(centre.notation(), "b2");
    ///
    /// // With gravity: a column, by letter or by 1-based digit.
    /// let connect4 = Rules::connect4();
    /// assert_eq!(connect4.parse_move("d"), Ok(Move::Column(3)));
    /// assert_eq!(connect4.parse_move("4"), Ok(Move::Column(3)));
    /// assert_eq!(Move::Column(3).notation(), "d");
    ///
    /// // Off the board, or the wrong kind of move, is an error that says why.
    /// let error = tictactoe.parse_move("d1").unwrap_err();
    /// assert_eq!(error.to_string(), "column d is outside the board (a-c)");
    /// assert!(connect4.parse_move("d1").is_err());
    /// ```
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        // Lowercased in a copy only when it has capitals: moves arrive lowercase, on every
        // move a server handles.
        let text = text.trim();
        let lowered;
        let text = if text.bytes().any(|b| b.is_ascii_uppercase()) {
            lowered = text.to_ascii_lowercase();
            lowered.as_str()
        } else {
            text
        };
        if text.is_empty() {
            return Err(ParseMoveError::new("empty move"));
        }
        let last_col = column_letter(self.width - 1);
        if self.gravity {
            let col = if text.bytes().all(|b| b.is_ascii_digit()) {
                match text.parse::<u32>() {
                    Ok(n) if (1..=self.width()).contains(&n) => n - 1,
                    _ => {
                        return Err(ParseMoveError::new(format!(
                            "column {text} is outside the board (1-{})",
                            self.width
                        )));
                    }
                }
            } else if text.len() == 1 && text.as_bytes()[0].is_ascii_lowercase() {
                let col = u32::from(text.as_bytes()[0] - b'a');
                if col >= self.width() {
                    return Err(ParseMoveError::new(format!(
                        "column {text} is outside the board (a-{last_col})"
                    )));
                }
                col
            } else {
                return Err(ParseMoveError::new(format!(
                    "expected a column like d or 4, got {text:?}"
                )));
            };
            // col < width <= 19.
            return Ok(Move::Column(col as u8));
        }
        let letter = text.as_bytes()[0];
        if !letter.is_ascii_lowercase() {
            return Err(ParseMoveError::new(format!(
                "expected a cell like b2, got {text:?}"
            )));
        }
        // The first byte is ASCII, so slicing after it stays on a char boundary.
        let digits = &text[1..];
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseMoveError::new(format!(
                "expected a cell like b2, got {text:?}"
            )));
        }
        let col = u32::from(letter - b'a');
        if col >= self.width() {
            return Err(ParseMoveError::new(format!(
                "column {} is outside the board (a-{last_col})",
                letter as char
            )));
        }
        let row = match digits.parse::<u32>() {
            Ok(n) if (1..=self.height()).contains(&n) => n - 1,
            _ => {
                return Err(ParseMoveError::new(format!(
                    "row {digits} is outside the board (1-{})",
                    self.height
                )));
            }
        };
        Ok(Move::Cell(Cell {
            col: col as u8,
            row: row as u8,
        }))
    }
}

/// The letter of a column, `a` for 0; columns never exceed 19.
fn column_letter(col: u8) -> char {
    char::from(b'a' + col)
}

/// A player; X moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// First player.
    X,
    /// Second player.
    O,
}

impl Player {
    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::X => "X",
            Player::O => "O",
        })
    }
}

/// A cell: column from the left and row from the bottom, both from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Column, 0 = `a`.
    pub col: u8,
    /// Row, 0 = `1` (bottom).
    pub row: u8,
}

impl Cell {
    /// The cell in notation (`b2`), as `Display` writes it, built directly: a snapshot names
    /// every move played and every legal move, and going through `fmt` for each cost more
    /// than the rest of building it.
    pub fn notation(self) -> String {
        let mut text = String::with_capacity(4);
        self.push_notation(&mut text);
        text
    }

    /// Appends the cell in notation to `out`: [`Cell::notation`] without a string of its
    /// own, for text made of many cell names (a snapshot's moves and legal moves).
    pub fn push_notation(self, out: &mut String) {
        out.push(column_letter(self.col));
        let row = u32::from(self.row) + 1;
        for (place, shown) in [(100, row >= 100), (10, row >= 10), (1, true)] {
            if shown {
                out.push(char::from(b'0' + (row / place % 10) as u8));
            }
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

/// A move: a cell without gravity, a column with gravity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// Place on this cell.
    Cell(Cell),
    /// Drop into this column (0 = `a`).
    Column(u8),
}

impl Move {
    /// The move in notation (`b2`, or `d` with gravity), as `Display` writes it, built
    /// directly (see [`Cell::notation`]).
    pub fn notation(self) -> String {
        match self {
            Move::Cell(cell) => cell.notation(),
            Move::Column(col) => String::from(column_letter(col)),
        }
    }

    /// Appends the move in notation to `out` (see [`Cell::push_notation`]).
    pub fn push_notation(self, out: &mut String) {
        match self {
            Move::Cell(cell) => cell.push_notation(out),
            Move::Column(col) => out.push(column_letter(col)),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

/// Text that is not a move of the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseMoveError {
    /// What was wrong, for people.
    pub message: String,
}

impl ParseMoveError {
    fn new(message: impl Into<String>) -> ParseMoveError {
        ParseMoveError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseMoveError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip() {
        for name in ["tictactoe", "connect4", "gomoku"] {
            let rules = Rules::preset(name).expect("known preset");
            assert_eq!(rules.preset_name(), Some(name));
        }
        assert_eq!(Rules::preset("Connect4"), Some(Rules::connect4()));
        assert_eq!(Rules::preset("chess"), None);
        let custom = Rules::new(4, 4, 3, false).expect("valid");
        assert_eq!(custom.preset_name(), None);
        assert_eq!(
            Rules::new(15, 15, 5, false).expect("valid").preset_name(),
            Some("gomoku")
        );
    }

    #[test]
    fn invalid_rules_name_the_field_and_range() {
        let cases: [((u32, u32, u32), RulesError, &str); 6] = [
            (
                (0, 3, 3),
                RulesError::Width { value: 0 },
                "width must be between 1 and 19 (got 0)",
            ),
            (
                (20, 3, 3),
                RulesError::Width { value: 20 },
                "width must be between 1 and 19 (got 20)",
            ),
            (
                (3, 0, 3),
                RulesError::Height { value: 0 },
                "height must be between 1 and 19 (got 0)",
            ),
            (
                (3, 25, 3),
                RulesError::Height { value: 25 },
                "height must be between 1 and 19 (got 25)",
            ),
            (
                (3, 4, 5),
                RulesError::K { value: 5, max: 4 },
                "k must be between 1 and 4 (got 5)",
            ),
            (
                (3, 4, 0),
                RulesError::K { value: 0, max: 4 },
                "k must be between 1 and 4 (got 0)",
            ),
        ];
        for ((w, h, k), error, text) in cases {
            let got = Rules::new(w, h, k, false).expect_err("invalid");
            assert_eq!(got, error);
            assert_eq!(got.to_string(), text);
        }
        let edge = Rules::new(19, 1, 19, true).expect("valid edge");
        assert_eq!((edge.width(), edge.height(), edge.k()), (19, 1, 19));
        assert!(edge.gravity());
    }

    #[test]
    fn cell_names_are_the_column_letter_and_the_row_from_one() {
        for col in 0..=40u8 {
            for row in 0..=255u8 {
                let name = format!("{}{}", column_letter(col), u32::from(row) + 1);
                assert_eq!(Cell { col, row }.to_string(), name);
            }
        }
    }

    #[test]
    fn notation_round_trips() {
        let ttt = Rules::tictactoe();
        let b2 = Move::Cell(Cell { col: 1, row: 1 });
        assert_eq!(ttt.parse_move("b2"), Ok(b2));
        assert_eq!(ttt.parse_move("  B2 "), Ok(b2));
        assert_eq!(b2.to_string(), "b2");
        assert_eq!(Cell { col: 18, row: 18 }.to_string(), "s19");
        let gomoku = Rules::gomoku();
        assert_eq!(
            gomoku.parse_move("o15"),
            Ok(Move::Cell(Cell { col: 14, row: 14 }))
        );
        let c4 = Rules::connect4();
        assert_eq!(c4.parse_move("d"), Ok(Move::Column(3)));
        assert_eq!(c4.parse_move(" D"), Ok(Move::Column(3)));
        assert_eq!(c4.parse_move("4"), Ok(Move::Column(3)));
        assert_eq!(c4.parse_move("7"), Ok(Move::Column(6)));
        assert_eq!(Move::Column(3).to_string(), "d");
    }

    #[test]
    fn junk_moves_are_rejected_with_a_message() {
        let ttt = Rules::tictactoe();
        for junk in [
            "", "  ", "d1", "a4", "a0", "b", "2", "bb", "b2x", "é2", "a-1",
        ] {
            let err = ttt.parse_move(junk).expect_err(junk);
            assert!(!err.message.is_empty());
        }
        assert_eq!(
            ttt.parse_move("d1").expect_err("outside").to_string(),
            "column d is outside the board (a-c)"
        );
        assert_eq!(
            ttt.parse_move("a4").expect_err("outside").to_string(),
            "row 4 is outside the board (1-3)"
        );
        let c4 = Rules::connect4();
        for junk in ["", "0", "8", "h", "d3", "dd", "99999999999999999999", "-1"] {
            assert!(c4.parse_move(junk).is_err(), "{junk:?}");
        }
        assert_eq!(
            c4.parse_move("8").expect_err("outside").to_string(),
            "column 8 is outside the board (1-7)"
        );
    }
}
