//! The inarow game server: a lobby of rooms where people and server-side AIs play
//! k-in-a-row games over WebSocket, with spectators, chat and reconnection.
//!
//! [`run`] serves a bound listener until a cancellation token fires; the `inarow-server`
//! binary only parses flags, sets up logging and binds. Every limit is a field of
//! [`Config`]. Inside:
//!
//! - `net`: the accept loop under the connection limits, TLS, HTTP (the embedded web
//!   client from `web/`, `/healthz`, `/metrics`) and each upgraded WebSocket
//!   connection's loop (`net::connection`);
//! - `session`: what a connection's messages mean (`hello`, the lobby, room requests)
//!   and the sessions with their resume tokens;
//! - `room`: each room is a state behind a mutex (`room::state`) around a plain state
//!   machine (`room::table`); requests run on the caller's task under the lock, and the
//!   room's own task takes AI answers, desertion and the shutdown; `room::lobby` lists
//!   the open rooms;
//! - `ai`: the AI pool: searches on threads of idle priority, a quick probe first, then a
//!   few search slots shared fairly (AI seats before analyses, rooms in turn);
//! - `store`: finished games in SQLite, written by a thread of its own so that no room
//!   waits on the disk, and (with a data file) the open rooms and live sessions, which
//!   `restart` brings back at start;
//! - `state`: what all tasks share; `snapshot`: engine types to wire types.
//!
//! Imports run one way: `net` → `session` → `state` → `room` → `ai`, `store` and the
//! leaves (`config`, `metrics`, `rate`, `refusal`, `snapshot`, `text`). A room sees the
//! server only through `room::Context`.

mod ai;
mod config;
mod metrics;
mod net;
#[cfg(test)]
mod properties;
mod rate;
mod refusal;
mod restart;
mod room;
mod session;
mod snapshot;
mod state;
mod store;
mod text;

pub use config::{Config, EngineLimits, EngineSpec, default_worker_threads};
pub use net::tls::{TlsError, TlsIdentity};
pub use store::{DataLocation, Store, StoreError};

use tracing_subscriber::EnvFilter;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The log filter for `spec` (the `RUST_LOG` syntax, such as `"info"` or
/// `"inarow_server=debug"`). Where `spec` would let the WebSocket library log at `trace`,
/// it is held at `debug`: at `trace` it dumps every frame, resume tokens included, and
/// tokens are never logged. Below that, `spec` decides alone.
///
/// # Errors
/// The parse error of a malformed `spec`.
pub fn log_filter(spec: &str) -> Result<EnvFilter, tracing_subscriber::filter::ParseError> {
    let mut filter = EnvFilter::try_new(spec)?;
    for target in ["tungstenite", "tokio_tungstenite"] {
        if traces(spec, target) {
            filter = filter.add_directive(format!("{target}=debug").parse()?);
        }
    }
    Ok(filter)
}

/// Whether the directives of `spec` enable `trace` for `target`: the directive with the
/// longest target that `target` starts with decides (a bare level is the shortest; a bare
/// target means every level).
fn traces(spec: &str, target: &str) -> bool {
    const LEVELS: [&str; 7] = ["off", "error", "warn", "info", "debug", "trace", "0"];
    let mut decided: Option<(usize, bool)> = None;
    for directive in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let (name, level) = match directive.rsplit_once('=') {
            // `=` inside a span's field filter (`target[span{f=v}]`) is no level.
            Some((name, level)) if !level.contains([']', '}']) => (name, Some(level)),
            _ if LEVELS
                .iter()
                .chain(&["1", "2", "3", "4", "5"])
                .any(|l| directive.eq_ignore_ascii_case(l)) =>
            {
                ("", Some(directive))
            }
            _ => (directive, None),
        };
        let name = name.split('[').next().unwrap_or_default();
        if !target.starts_with(name) || decided.is_some_and(|(len, _)| len > name.len()) {
            continue;
        }
        let trace = level.is_none_or(|l| l.eq_ignore_ascii_case("trace") || l == "5");
        decided = Some((name.len(), trace));
    }
    decided.is_some_and(|(_, trace)| trace)
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
    net::listener::run(listener, config, store, shutdown).await
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
    net::listener::run(listener, config, store, shutdown).await
}

#[cfg(test)]
mod tests {
    use super::traces;

    #[test]
    fn the_websocket_library_traces_only_where_the_spec_says_so() {
        for (spec, traced) in [
            ("warn", false),
            ("info", false),
            ("debug", false),
            ("trace", true),
            ("TRACE", true),
            ("warn,tungstenite=trace", true),
            ("trace,tungstenite=info", false),
            ("inarow_server=trace", false),
            ("tungstenite", true),
            ("warn,tungst=trace", true),
            ("tungstenite[conn{id=1}]=trace", true),
        ] {
            assert_eq!(traces(spec, "tungstenite"), traced, "{spec}");
        }
    }
}
