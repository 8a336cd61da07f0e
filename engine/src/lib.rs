//! Rules of k-in-a-row games (tic-tac-toe, m×n×k, gomoku, Connect Four) and an AI to play them.
//!
//! Pure and synchronous: no I/O, no async runtime, no serialisation. The server converts
//! between these types and the wire types of `inarow-protocol`.
//!
//! Notation, used everywhere a person reads a move: columns are letters `a`, `b`, `c` …
//! from the left, rows are numbers `1`, `2`, `3` … from the bottom. A cell is `b2`; with
//! gravity a move is a column, `d` (or its 1-based digit `4`).
//!
//! The AI ([`Ai`]) is a negamax search with alpha-beta over bitboards (Pascal Pons'
//! column-major layout), a transposition table keyed by the smallest Zobrist hash over
//! the board's symmetries, immediate-win and forced-block pruning, and threat-then-centre
//! move ordering. Small boards are solved exactly (values `Win(plies)`, `Loss(plies)`,
//! `Draw`); on boards too big to solve within the [`Limits`] it deepens iteratively with
//! a heuristic (open lines, weighted by how full they are) and reports `Estimate`s with
//! `proven: false`. Big open boards (gomoku) have a search of their own: line patterns
//! updated per move, threat-ordered candidates near the stones, principal-variation
//! search with a transposition table, and a threat-space search that proves wins. Without any limit a search stops after [`Limits::DEFAULT_TIME`].
//! [`reference`](mod@reference) holds the plain minimax the tests and benchmarks compare against.
//!
//! At [`Level::Perfect`] on gravity boards with four in a row whose columns fit 64 bits
//! (Connect Four's 7×6 among them) an exact solver after Pascal Pons' takes over:
//! null-window search narrowing the score, only moves that do not lose at once, moves
//! ordered by the winning cells they make, a table of bounds with partial keys. Other
//! k and bigger boards keep the general search. Connect Four positions of the opening
//! are answered from an embedded [`Book`] where it has them.
//!
//! ```
//! use std::time::Duration;
//! use inarow_engine::{Ai, GameStatus, Level, Limits, Position, Rules, Value};
//!
//! let rules = Rules::preset("tictactoe").unwrap();
//! let mut position = Position::new(rules);
//! for text in ["a1", "b2", "c3"] {
//!     position.try_play(rules.parse_move(text).unwrap()).unwrap();
//! }
//! let mut ai = Ai::new(Level::Perfect, 42);
//! let analysis = ai.analyze(&position, &Limits::time(Duration::from_millis(500)));
//! assert!(analysis.proven);
//! // O must not take a corner here; every best move draws.
//! assert_eq!(analysis.moves[0].value, Value::Draw);
//! let reply = analysis.best.unwrap();
//! position.try_play(reply).unwrap();
//! assert!(matches!(position.status(), GameStatus::InProgress { .. }));
//! ```

#![deny(missing_docs)]

mod ai;
mod book;
#[doc(hidden)]
pub mod opening;
mod position;
pub mod record;
pub mod reference;
pub mod renju;
mod rules;
pub mod swap;

pub use ai::{Ai, Analysis, Level, Limits, MoveValue, Value, analyze};
#[doc(hidden)]
pub use ai::{
    eval_features, hopeless_moves, proven_value, proven_win, refuted_win, replay_proven_win,
    threat_win,
};
pub use book::{Book, BookError};
pub use position::{GameStatus, MoveError, Position};
pub use rules::{Cell, Move, ParseMoveError, Player, Rules, RulesError, Variant};
