//! What a connection's messages mean, and the sessions behind them.
//!
//! - `handler`: one connection's [`Handler`]: rate limits, decoding, `hello`, the lobby,
//!   room creation, and room requests handed to the room;
//! - `registry`: the sessions, their resume tokens, their rooms and grace periods.

mod handler;
mod registry;

#[cfg(test)]
pub(crate) use self::handler::Route;
pub(crate) use self::handler::{Bye, Handler, Step, StoreRead, expire_after_grace};
pub(crate) use self::registry::Sessions;
