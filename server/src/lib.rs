//! The inarow game server: a lobby of rooms where people and server-side AIs play
//! k-in-a-row games over WebSocket, with spectators, chat and reconnection.
//!
//! [`run`] serves a bound listener until a cancellation token fires; the `inarow-server`
//! binary only parses flags, sets up logging and binds. Every limit is a field of
//! [`Config`]. Inside:
//!
//! - `listener` accepts sockets under the connection limits (`admission`: the server's,
//!   and each address's at once and per minute) and spawns one task each;
//! - `http` serves that socket (through `tls` when configured): the web client (`web/`,
//!   embedded), `/healthz`, `/metrics` (`metrics`) and the WebSocket upgrade;
//! - `connection` is the upgraded socket's transport (frames, deadlines, close codes)
//!   and `dispatch` what its messages mean (`hello`, lobby, room requests);
//! - `room` runs one actor task per room around a plain state machine (`room::table`),
//!   with AI searches on the blocking pool (`ai_worker`: a quick probe answers cheap
//!   moves at once, the rest share a few search slots fairly, AI seats before analyses,
//!   rooms in turn, budgets shrinking under load);
//! - `session` registers sessions and their resume tokens, `lobby` the open rooms,
//!   `state` what all tasks share.
//!
//! Imports run one way: `http` → `connection` → `dispatch` → `state` → `room` → `lobby`,
//! `ai_worker` and the leaves (`metrics`, `peer`, `refusal`, `room_spec`, `snapshot`,
//! `text`, `tls`).
//! A room sees the server only through `room::Context`.

mod admission;
mod ai_worker;
mod config;
mod connection;
mod dispatch;
mod http;
mod listener;
mod lobby;
mod metrics;
mod peer;
#[cfg(test)]
mod properties;
mod rate;
mod refusal;
mod room;
mod room_spec;
mod saved;
mod session;
mod snapshot;
mod state;
mod text;
mod tls;

pub use config::Config;
pub use tls::{TlsError, TlsIdentity};

use tracing_subscriber::EnvFilter;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The log filter for `spec` (the `RUST_LOG` syntax, such as `"info"` or
/// `"inarow_server=debug"`), with the WebSocket library held at `debug` or quieter: at
/// `trace` it dumps every frame, resume tokens included, and tokens are never logged.
///
/// # Errors
/// The parse error of a malformed `spec`.
pub fn log_filter(spec: &str) -> Result<EnvFilter, tracing_subscriber::filter::ParseError> {
    let mut filter = EnvFilter::try_new(spec)?;
    for cap in ["tungstenite=debug", "tokio_tungstenite=debug"] {
        filter = filter.add_directive(cap.parse()?);
    }
    Ok(filter)
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The listening socket failed (for instance its address could not be read).
    #[error("listener failed: {0}")]
    Listener(#[from] std::io::Error),
}

/// Serves HTTP and WebSocket connections on `listener` (TLS when [`Config::tls`] is set)
/// until `shutdown` is cancelled; then tells
/// every client `bye` (reason `shutdown`), closes sockets with code 1001, cancels AI jobs,
/// waits for the server's tasks and returns (within about 5 s of cancellation).
///
/// # Errors
/// [`ServerError::Listener`] if the listener is unusable. A failing connection ends only
/// that connection; accept errors are logged and retried.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    listener::run(listener, config, shutdown).await
}
