//! Rule sets, players, cells and moves, and the notation people read them in.

use std::fmt;

/// A rule set: board size, stones in a line to win, and gravity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    width: u8,
    height: u8,
    k: u8,
    gravity: bool,
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
}

impl fmt::Display for RulesError {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}

impl std::error::Error for RulesError {}

impl Rules {
    /// The largest width or height.
    pub const MAX_SIDE: u32 = 19;

    /// Builds a validated rule set.
    ///
    /// # Errors
    /// [`RulesError`] naming the first field outside its range.
    pub fn new(_width: u32, _height: u32, _k: u32, _gravity: bool) -> Result<Rules, RulesError> {
        todo!()
    }

    /// 3×3, three in a row.
    pub const fn tictactoe() -> Rules {
        Rules {
            width: 3,
            height: 3,
            k: 3,
            gravity: false,
        }
    }

    /// 7 wide × 6 high, four in a row, with gravity.
    pub const fn connect4() -> Rules {
        Rules {
            width: 7,
            height: 6,
            k: 4,
            gravity: true,
        }
    }

    /// 15×15, five or more in a row.
    pub const fn gomoku() -> Rules {
        Rules {
            width: 15,
            height: 15,
            k: 5,
            gravity: false,
        }
    }

    /// A preset by name: `tictactoe`, `connect4` or `gomoku`.
    pub fn preset(_name: &str) -> Option<Rules> {
        todo!()
    }

    /// The preset's name if these rules are one.
    pub fn preset_name(&self) -> Option<&'static str> {
        todo!()
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

    /// Parses a move in notation: `b2` without gravity; `b` or `2` with gravity.
    ///
    /// # Errors
    /// [`ParseMoveError`] when the text is not a move of these rules.
    pub fn parse_move(&self, _text: &str) -> Result<Move, ParseMoveError> {
        todo!()
    }
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

/// A cell: column from the left and row from the bottom, both from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Column, 0 = `a`.
    pub col: u8,
    /// Row, 0 = `1` (bottom).
    pub row: u8,
}

impl fmt::Display for Cell {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
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

impl fmt::Display for Move {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}

/// Text that is not a move of the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseMoveError {
    /// What was wrong, for people.
    pub message: String,
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseMoveError {}
