//! What every task of one running server shares: the config, the room directory, the
//! sessions, the AI pool, the game store and the shutdown machinery.
//!
//! Connections hold the whole of it; a room gets only its narrow [`room::Context`], so
//! the dependency runs one way: `state` knows rooms, rooms do not know `state`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::ai::AiPool;
use crate::ai::external::Engines;
use crate::config::Config;
use crate::net::admission::AddressLimits;
use crate::room::lobby::Lobby;
use crate::room::{self, Directory};
use crate::session::Sessions;
use crate::store::Store;

/// Shared by the listener, every connection and (through [`room::Context`]) every room
/// of one server.
pub(crate) struct ServerState {
    /// Limits and timings.
    pub(crate) config: Arc<Config>,
    /// Open rooms.
    pub(crate) lobby: Arc<Directory>,
    /// Live and held sessions.
    pub(crate) sessions: Sessions,
    /// The per-address connection limits.
    pub(crate) address_limits: Arc<AddressLimits>,
    /// Where AI moves are computed, at most `ai_threads` at once.
    pub(crate) ai: AiPool,
    /// Finished games (and what else is kept across restarts).
    pub(crate) store: Store,
    /// Every task of the server, so shutdown can wait for them.
    pub(crate) tracker: TaskTracker,
    /// The rooms' tasks, so shutdown can wait for every room to stop (and save itself)
    /// before clients are told `bye`.
    pub(crate) rooms: TaskTracker,
    /// Cancelled when the server shuts down; rooms stop, the listener stops accepting.
    pub(crate) shutdown: CancellationToken,
    /// Cancelled once the rooms have stopped and what they saved is written (at once
    /// when nothing is kept): connections then say `bye` and close. Apart from
    /// `shutdown`, so no client is told the server is restarting before its game is
    /// safe.
    pub(crate) farewell: CancellationToken,
    /// The id of the next connection, for the logs.
    next_conn_id: AtomicU64,
}

impl ServerState {
    /// The state of a server that starts now, keeping its games in `store`, offering the
    /// external `engines`.
    pub(crate) fn new(
        config: Config,
        store: Store,
        engines: Arc<Engines>,
        shutdown: CancellationToken,
    ) -> ServerState {
        let tracker = TaskTracker::new();
        // Idle engine processes end with the server; busy ones die with their jobs.
        let closing = engines.clone();
        let stop = shutdown.clone();
        tracker.spawn(async move {
            stop.cancelled().await;
            closing.close().await;
        });
        ServerState {
            lobby: Arc::new(Lobby::new(config.max_rooms, config.max_rooms_per_session)),
            sessions: Sessions::new(config.max_sessions_per_ip),
            address_limits: Arc::new(AddressLimits::new(&config)),
            ai: AiPool::with_engines(config.ai_threads, tracker.clone(), engines),
            store,
            tracker,
            rooms: TaskTracker::new(),
            shutdown,
            farewell: CancellationToken::new(),
            next_conn_id: AtomicU64::new(1),
            config: Arc::new(config),
        }
    }

    /// A number naming a new connection in the logs, unique for this server.
    pub(crate) fn next_conn_id(&self) -> u64 {
        self.next_conn_id.fetch_add(1, Ordering::Relaxed)
    }

    /// What a room needs of the server.
    pub(crate) fn room_context(&self) -> room::Context {
        room::Context {
            config: self.config.clone(),
            lobby: self.lobby.clone(),
            ai: self.ai.clone(),
            store: self.store.clone(),
            tracker: self.tracker.clone(),
            rooms: self.rooms.clone(),
            shutdown: self.shutdown.clone(),
        }
    }
}
