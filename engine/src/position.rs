//! A game position: the board, whose turn, the move history and the game's status.

use std::fmt;

use crate::rules::{Cell, Move, Player, Rules};

/// A position of a game under some rules, with its history.
#[derive(Debug, Clone)]
pub struct Position {
    rules: Rules,
}

/// The state of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameStatus {
    /// Under way.
    InProgress {
        /// Whose move it is.
        to_move: Player,
    },
    /// A line of k or more.
    Won {
        /// The winner.
        winner: Player,
        /// The cells of the winning line, in order along the line.
        line: Vec<Cell>,
    },
    /// The board is full with no line.
    Drawn,
}

/// Why a move was refused; the position is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveError {
    /// The game has ended.
    GameOver,
    /// The cell or column is outside the board.
    OutOfBoard,
    /// The cell already holds a stone.
    Occupied,
    /// The column is full.
    ColumnFull,
    /// A cell given where the rules want a column, or the reverse.
    WrongKind,
}

impl fmt::Display for MoveError {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// The empty board.
    pub fn new(rules: Rules) -> Position {
        Position { rules }
    }

    /// Plays `moves` from the empty board.
    ///
    /// # Errors
    /// The first illegal move's error.
    pub fn from_moves(_rules: Rules, _moves: &[Move]) -> Result<Position, MoveError> {
        todo!()
    }

    /// The rules.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The stone on a cell, if any.
    pub fn get(&self, _cell: Cell) -> Option<Player> {
        todo!()
    }

    /// The player whose turn it is (also after the game ended: the one who would move).
    pub fn to_move(&self) -> Player {
        todo!()
    }

    /// Moves played so far.
    pub fn ply(&self) -> usize {
        todo!()
    }

    /// The game's status.
    pub fn status(&self) -> GameStatus {
        todo!()
    }

    /// The legal moves, empty when the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        todo!()
    }

    /// Plays a move for the player to move and returns the cell where the stone landed.
    ///
    /// # Errors
    /// [`MoveError`] when illegal; the position is then unchanged.
    pub fn try_play(&mut self, _mv: Move) -> Result<Cell, MoveError> {
        todo!()
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        todo!()
    }

    /// The moves played, oldest first.
    pub fn history(&self) -> &[Move] {
        todo!()
    }

    /// The cell of the last stone placed.
    pub fn last_cell(&self) -> Option<Cell> {
        todo!()
    }
}

impl fmt::Display for Position {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}
