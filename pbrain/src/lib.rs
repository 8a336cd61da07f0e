//! inarow's gomoku AI as a Gomocup ("piskvork") engine, and a match runner that plays it
//! against any other such engine.
//!
//! - [`command`] reads the protocol's lines; [`brain`] keeps its state and answers them
//!   (the `inarow-pbrain` binary is a loop of stdin through a [`brain::Brain`]).
//! - [`player`] searches a move as the server's `perfect` AI seats do.
//! - [`engine`] drives another engine over its stdin and stdout, [`game`] plays one game
//!   between it and inarow, [`results`] keeps and sums up a match's games, and [`opening`]
//!   reads the openings file. The `match` and `openings` binaries are built on them.
//! - [`manager`] is the manager's side of the protocol (the lines a game is set up and a
//!   move asked with, and what an answer means), shared by [`engine`] and, with the `tokio`
//!   feature, `child`: an engine as a tokio child process, which the server's external AI
//!   seats and the terminal client's bot bridge drive.
//!
//! The protocol: <https://plastovicka.github.io/protocl2en.htm>.

#![deny(missing_docs)]

pub mod brain;
#[cfg(feature = "tokio")]
pub mod child;
pub mod command;
pub mod engine;
pub mod game;
pub mod manager;
pub mod opening;
pub mod player;
pub mod results;
