//! What every task of one running server shares: the config, the lobby, the sessions,
//! the AI semaphore and the shutdown machinery.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::lobby::Lobby;
use crate::session::Sessions;

/// Shared by the listener, every connection and every room of one server.
pub(crate) struct ServerState {
    /// Limits and timings.
    pub(crate) config: Config,
    /// Open rooms.
    pub(crate) lobby: Lobby,
    /// Live and held sessions.
    pub(crate) sessions: Sessions,
    /// One permit per AI search allowed to run at once.
    pub(crate) ai_slots: Arc<Semaphore>,
    /// Every task of the server, so shutdown can wait for them.
    pub(crate) tracker: TaskTracker,
    /// Cancelled when the server shuts down; tasks take child tokens of it.
    pub(crate) shutdown: CancellationToken,
    next_conn_id: AtomicU64,
}

impl ServerState {
    /// The state of a server that starts now.
    pub(crate) fn new(config: Config, shutdown: CancellationToken) -> ServerState {
        ServerState {
            lobby: Lobby::new(config.max_rooms),
            sessions: Sessions::default(),
            ai_slots: Arc::new(Semaphore::new(config.ai_threads.max(1))),
            tracker: TaskTracker::new(),
            shutdown,
            next_conn_id: AtomicU64::new(1),
            config,
        }
    }

    /// A number naming a new connection, unique for this server.
    pub(crate) fn next_conn_id(&self) -> u64 {
        self.next_conn_id.fetch_add(1, Ordering::Relaxed)
    }
}
