//! The inarow game server: a lobby of rooms where people and server-side AIs play
//! k-in-a-row games over WebSocket, with spectators, chat and reconnection.
//!
//! [`run`] serves a bound listener until a cancellation token fires; the `inarow-server`
//! binary only parses flags, sets up logging and binds. Inside: one task per connection
//! (`connection`), one actor task per room (`room`), AI searches on the blocking pool
//! behind a semaphore (`ai_worker`), and a registry of sessions with resume tokens
//! (`session`). Every limit is a field of [`Config`].

mod ai_worker;
mod config;
mod connection;
mod listener;
mod lobby;
mod peer;
mod rate;
mod room;
mod session;
mod snapshot;
mod state;
mod text;

pub use config::Config;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The listening socket failed (for instance its address could not be read).
    #[error("listener failed: {0}")]
    Listener(#[from] std::io::Error),
}

/// Serves WebSocket connections on `listener` until `shutdown` is cancelled; then tells
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
