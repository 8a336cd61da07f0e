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
//!   `state` what all tasks share;
//! - `store` keeps finished games in SQLite, written by a thread of its own so that no
//!   room waits on the disk, and (with a data file) the open rooms and live sessions in
//!   their saved form (`saved`), which `restart` brings back at start.
//!
//! Imports run one way: `http` → `connection` → `dispatch` → `state` → `room` → `lobby`,
//! `ai_worker`, `store` and the leaves (`metrics`, `peer`, `refusal`, `room_spec`,
//! `saved`, `snapshot`, `text`, `tls`); `restart`, beside `http`, uses `dispatch`, `state`,
//! `room` and `store`.
//! A room sees the server only through `room::Context`.

mod admission;
mod ai_worker;
mod config;
mod connection;
mod dispatch;
mod frame_in;
mod frame_out;
mod gate;
mod http;
mod listener;
mod lobby;
mod log_time;
mod metrics;
mod outbox;
mod peer;
#[cfg(test)]
mod properties;
mod rate;
mod refusal;
mod restart;
mod room;
mod room_spec;
mod saved;
mod session;
mod snapshot;
mod state;
mod store;
mod text;
mod tls;

pub use config::{Config, default_worker_threads};
pub use log_time::LogTime;
pub use store::{DataLocation, Store, StoreError};
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
    /// The game store could not be opened (see [`Config::data`]).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Serves HTTP and WebSocket connections on `listener` (TLS when [`Config::tls`] is set)
/// until `shutdown` is cancelled; then tells
/// every client `bye` (reason `shutdown`), closes sockets with code 1001, cancels AI jobs,
/// waits for the server's tasks and returns (within about 5 s of cancellation).
///
/// With a data file ([`Config::data`]) the open rooms and live sessions are kept in it as
/// they change: before its first accept `run` restores those a previous server left
/// there, and at shutdown it saves every room before telling clients `bye` with reason
/// `restarting` (close code 1012), so they can resume on the next server.
///
/// # Errors
/// [`ServerError::Store`] if the game store ([`Config::data`]) cannot be opened;
/// [`ServerError::Listener`] if the listener is unusable. A failing connection ends only
/// that connection; accept errors are logged and retried.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    // Opening runs migrations and file I/O: keep it off the async threads.
    let location = config.data.clone();
    let store = tokio::task::spawn_blocking(move || Store::open(&location))
        .await
        .map_err(|_| StoreError::Closed)??;
    listener::run(listener, config, store, shutdown).await
}

/// [`run`] with a store the caller opened (so that a binary can refuse to start before it
/// binds, or look at the store first); [`Config::data`] is not used.
///
/// # Errors
/// As [`run`], but the store is already open.
pub async fn run_with_store(
    listener: TcpListener,
    config: Config,
    store: Store,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    listener::run(listener, config, store, shutdown).await
}
