//! What a connection's messages mean, and the sessions behind them.
//!
//! - `handler`: one connection's [`Handler`]: rate limits, decoding, `hello`, the lobby,
//!   room creation, and room requests handed to the room;
//! - `registry`: the sessions, their resume tokens, their rooms and grace periods.

mod handler;
mod registry;

pub(crate) use self::handler::{Bye, Handler, Step, expire_after_grace};
#[cfg(test)]
pub(crate) use self::handler::{Route, Waiting};
pub(crate) use self::registry::Sessions;
