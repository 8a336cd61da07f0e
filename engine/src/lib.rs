//! Rules of k-in-a-row games (tic-tac-toe, m×n×k, gomoku, Connect Four) and an AI to play them.
//!
//! Pure and synchronous: no I/O, no async runtime, no serialisation. The server converts
//! between these types and the wire types of `inarow-protocol`.
//!
//! Notation, used everywhere a person reads a move: columns are letters `a`, `b`, `c` …
//! from the left, rows are numbers `1`, `2`, `3` … from the bottom. A cell is `b2`; with
//! gravity a move is a column, `d` (or its 1-based digit `4`).

#![deny(missing_docs)]

mod ai;
mod position;
mod rules;

pub use ai::{Ai, Analysis, Level, Limits, MoveValue, Value, analyze};
pub use position::{GameStatus, MoveError, Position};
pub use rules::{Cell, Move, ParseMoveError, Player, Rules, RulesError};
