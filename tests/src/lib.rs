//! Harness for the end-to-end tests: a real inarow server on 127.0.0.1:0 and real WebSocket clients.
//!
//! Every receive runs under [`RECV_TIMEOUT`]; a timeout is a test failure with a message that
//! names the client and what it was waiting for. Nothing here sleeps to synchronise: waiting
//! means reading frames until the expected one arrives.
//!
//! - [`server`]: the server under test and its configuration for tests.
//! - [`client`]: a WebSocket client that reads, waits and remembers what it saw.
//! - [`requests`]: the protocol's requests as client methods, and their common arguments.
//! - [`players`]: scripted and random players that drive a game to its end.
//! - [`raw`]: a socket below the WebSocket library, for frames no library would send.
//! - [`snapshot`]: reading room snapshots (cells, seats, occupants).
//! - [`oracle`]: judging a finished game against its own board.
//! - [`assertions`]: checks across clients (event order, one story per room).
//! - [`browser`]: headless Chromium through chromedriver, for the web client's tests.

pub mod assertions;
pub mod browser;
pub mod client;
pub mod logs;
pub mod oracle;
pub mod players;
pub mod raw;
pub mod requests;
pub mod server;
pub mod snapshot;

pub use assertions::assert_same_story;
pub use client::{Client, Closed, ErrorReply, RECV_TIMEOUT, Welcome};
pub use oracle::{assert_won, check_result};
pub use players::take_turns;
pub use raw::{RawEnd, RawFrame, RawSocket};
pub use requests::{HistoryAnswer, perfect_ai, plan, tictactoe};
pub use server::{
    Config, DataLocation, SHUTDOWN_WAIT, TestServer, TlsIdentity, fast_config,
    fast_config_with_data, self_signed, serve_until_stdin_closes,
};
pub use snapshot::{human_connected, mark_at, occupant, seat_of};
