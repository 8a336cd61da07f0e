//! inarow's gomoku AI as a Gomocup ("piskvork") engine, and a match runner that plays it
//! against any other such engine.
//!
//! - [`command`] reads the protocol's lines; [`brain`] keeps its state and answers them
//!   (the `inarow-pbrain` binary is a loop of stdin through a [`brain::Brain`]).
//! - [`player`] searches a move as the server's `perfect` AI seats do.
//! - [`engine`] drives another engine over its stdin and stdout, [`game`] plays one game
//!   between it and inarow, [`results`] keeps and sums up a match's games, and [`opening`]
//!   reads the openings file. The `match` and `openings` binaries are built on them.
//!
//! The protocol: <https://plastovicka.github.io/protocl2en.htm>.

#![deny(missing_docs)]

pub mod brain;
pub mod command;
pub mod engine;
pub mod game;
pub mod opening;
pub mod player;
pub mod results;
