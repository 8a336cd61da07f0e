//! The game store: an embedded SQLite database of finished games (and, through further
//! migrations, whatever else the server keeps across restarts).
//!
//! - `schema`: the versioned migrations, run at open;
//! - `writer`: the thread that owns the write connection and commits queued writes in
//!   batches, retrying failures, so no room ever waits on the disk;
//! - `games`: finished games, written at game end and read by `history` and `game`;
//! - `live`: open rooms and live sessions, written as they change and read back at
//!   start, so a restart or a crash loses no game (only with a data file).
//!
//! Reads run on the blocking pool ([`Store::read`]) on their own connections (a file) or
//! the one connection (`:memory:`, where a second connection would be a second, empty
//! database).

mod games;
mod live;
pub(crate) mod saved;
mod schema;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use inarow_protocol::{GameId, PlayerRecord};
use rusqlite::{Connection, OpenFlags};
use tokio::sync::oneshot;

pub(crate) use self::games::{EndedGame, FinishedGame, HistoryPage, MovesJson};
pub(crate) use self::live::LiveWrite;
use self::schema::MigrateError;
pub(crate) use self::writer::Write;
use self::writer::{Command, WriterStats};

/// How many prepared statements the write connection keeps: every statement the writer
/// runs (about fifteen), with room to spare.
const STATEMENT_CACHE: usize = 32;

/// Runs one statement of the writer's, prepared once per connection and kept.
fn execute(
    tx: &rusqlite::Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<usize> {
    tx.prepare_cached(sql)?.execute(params)
}

/// Writes waiting for the writer thread. Rooms must never wait, so a full queue
/// drops the write (logged as an error and counted) rather than blocking or growing
/// without bound: it only fills when the disk has been failing for a long while (the
/// writer drains it in batches of hundreds per commit), and memory that grew with every
/// game during an outage would turn a disk problem into the loss of every live room.
/// A finished game is about 1–10 KB, so a full queue holds at most some tens of MB.
const WRITE_QUEUE: usize = 16_384;
/// How long the writer's connection waits for a lock held by another connection (a
/// backup, another process) before the attempt fails and is retried with backoff.
const WRITE_BUSY_TIMEOUT: Duration = Duration::from_millis(250);
/// How long a read waits for a lock (only a checkpoint or another process takes one
/// long enough to matter in WAL mode).
const READ_BUSY_TIMEOUT: Duration = Duration::from_secs(2);
/// Idle read connections kept open for the next read.
const READ_POOL: usize = 4;
/// How long a read waits for writes queued before it (so that a game that has just
/// ended can be read at once) before it reads what is on disk anyway.
const READ_CATCH_UP: Duration = Duration::from_secs(1);

/// The in-memory database, in SQLite's `memdb` VFS rather than a plain `:memory:`
/// database: a `:memory:` database's page cache is the database, and a commit after a
/// B-tree page split (which swaps pages through a far page number) scans the cache's
/// whole hash table, so every commit cost more as games were kept. In `memdb` the
/// database is one buffer behind an ordinary, bounded page cache and a commit costs the
/// same at any size. A name without a leading `/` keeps the database private to its
/// connection, so every `Store` has its own. `memdb` caps a database at 1 GiB (a million
/// finished games or more), where SQLite refuses writes as it does on a full disk.
/// `Connection::open`'s default flags read the name as a URI.
const MEMORY_DATABASE: &str = "file:inarow-memory?vfs=memdb";

/// Where the store keeps its data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DataLocation {
    /// In memory only: gone when the server stops. The library's default, so tests write
    /// nothing to disk. Written `:memory:` on the command line.
    #[default]
    Memory,
    /// A SQLite database file, created (with its schema) if missing. Its directory must
    /// exist.
    File(PathBuf),
}

impl DataLocation {
    /// `:memory:` for [`DataLocation::Memory`], else a file path.
    pub fn parse(text: &str) -> DataLocation {
        if text == ":memory:" {
            DataLocation::Memory
        } else {
            DataLocation::File(PathBuf::from(text))
        }
    }
}

impl fmt::Display for DataLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataLocation::Memory => f.write_str(":memory:"),
            DataLocation::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Why the store could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened or set up (a missing directory, no permission,
    /// not a SQLite file).
    #[error("cannot open the database {location}: {source}")]
    Open {
        /// Where.
        location: DataLocation,
        /// Why.
        source: rusqlite::Error,
    },
    /// The database's schema could not be brought up to date, or is newer than this
    /// server knows (written by a later version: refused rather than damaged).
    #[error("cannot use the database {location}: {source}")]
    Schema {
        /// Where.
        location: DataLocation,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The writer thread could not be started.
    #[error("cannot start the store's writer thread: {0}")]
    Writer(std::io::Error),
    /// A query failed.
    #[error("database query failed: {0}")]
    Query(#[from] rusqlite::Error),
    /// The writer thread or a blocking read task is gone (the server is stopping).
    #[error("the store is closed")]
    Closed,
}

impl StoreError {
    fn schema(location: &DataLocation, source: MigrateError) -> StoreError {
        StoreError::Schema {
            location: location.clone(),
            source: Box::new(source),
        }
    }
}

/// Where reads get a connection.
enum Readers {
    /// `:memory:`: the writer's own connection, since a second one would open a second,
    /// empty database.
    Shared(Arc<Mutex<Connection>>),
    /// A file: read-only connections of their own (WAL lets them read while the writer
    /// writes), kept in a small pool.
    Pool {
        path: PathBuf,
        idle: Mutex<Vec<Connection>>,
    },
}

/// The parts every handle shares.
struct Inner {
    location: DataLocation,
    writes: SyncSender<Command>,
    readers: Readers,
    stats: Arc<WriterStats>,
    /// The id the next finished game gets: ids are handed out at game end without
    /// waiting for the disk, so the room can show `last_game` at once.
    next_game: AtomicU64,
}

/// A handle on the store; cheap to clone, one per room and connection. The writer thread
/// stops once every handle is dropped and the queue is written.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.inner.location)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `location`, brings its schema up to
    /// date and starts the writer thread. Blocking: call it from a blocking context or at
    /// start-up.
    ///
    /// # Errors
    /// [`StoreError::Open`] if the file cannot be opened as a database,
    /// [`StoreError::Schema`] if its schema is newer than this server's or a migration
    /// fails.
    pub fn open(location: &DataLocation) -> Result<Store, StoreError> {
        let open_error = |source| StoreError::Open {
            location: location.clone(),
            source,
        };
        let mut conn = match location {
            DataLocation::Memory => Connection::open(MEMORY_DATABASE),
            DataLocation::File(path) => Connection::open(path),
        }
        .map_err(open_error)?;
        if let DataLocation::File(_) = location {
            // WAL: readers never block the writer nor it them, and a commit appends to the
            // log instead of rewriting pages. NORMAL: no fsync per commit, only at
            // checkpoints; a power cut may lose the last commits but never corrupts.
            conn.pragma_update_and_check(None, "journal_mode", "wal", |_| Ok(()))
                .map_err(open_error)?;
            conn.pragma_update(None, "synchronous", "normal")
                .map_err(open_error)?;
        }
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(open_error)?;
        conn.busy_timeout(WRITE_BUSY_TIMEOUT).map_err(open_error)?;
        // The writer's statements are prepared once and kept (`prepare_cached`): parsing
        // the SQL of every insert cost more than the insert. Room for all of them.
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let before = schema::migrate(&mut conn).map_err(|e| StoreError::schema(location, e))?;
        if before != schema::latest() {
            tracing::info!(%location, from = before, to = schema::latest(), "database schema migrated");
        }
        let max_game: i64 = conn
            .query_row("SELECT COALESCE(MAX(id), 0) FROM games", [], |row| {
                row.get(0)
            })
            .map_err(open_error)?;
        let conn = Arc::new(Mutex::new(conn));
        let readers = match location {
            DataLocation::Memory => Readers::Shared(conn.clone()),
            DataLocation::File(path) => Readers::Pool {
                path: path.clone(),
                idle: Mutex::new(Vec::new()),
            },
        };
        let stats = Arc::new(WriterStats::default());
        let (writes, commands) = mpsc::sync_channel(WRITE_QUEUE);
        let writer_stats = stats.clone();
        std::thread::Builder::new()
            .name("inarow-store".into())
            .spawn(move || writer::run(conn, commands, writer_stats))
            .map_err(StoreError::Writer)?;
        tracing::info!(%location, games = max_game, "store opened");
        Ok(Store {
            inner: Arc::new(Inner {
                location: location.clone(),
                writes,
                readers,
                stats,
                next_game: AtomicU64::new(u64::try_from(max_game).unwrap_or(0) + 1),
            }),
        })
    }

    /// Where the data lives.
    pub fn location(&self) -> &DataLocation {
        &self.inner.location
    }

    /// The id for a game that has just ended: larger than every id handed out before.
    pub(crate) fn next_game_id(&self) -> GameId {
        GameId(self.inner.next_game.fetch_add(1, Ordering::Relaxed))
    }

    /// Queues `write` for the writer thread and returns at once; never blocks. If the
    /// queue is full (the disk has been failing for long) the write is dropped and
    /// logged as an error.
    pub(crate) fn write(&self, write: Write) {
        // Counted before it is sent, so the writer never settles more than was queued.
        let stats = &self.inner.stats;
        stats.queued.fetch_add(1, Ordering::Relaxed);
        match self.inner.writes.try_send(Command::Write(write)) {
            Ok(()) => {}
            Err(TrySendError::Full(Command::Write(write))) => {
                stats.queued.fetch_sub(1, Ordering::Relaxed);
                stats.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::error!(write = %write.describe(), "store queue full: write dropped");
            }
            Err(_) => {
                stats.queued.fetch_sub(1, Ordering::Relaxed);
                stats.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::error!("store writer is gone: write dropped");
            }
        }
    }

    /// Resolves once every write queued before this call is committed (or given up as
    /// refused). Waits as long as the writer retries a failing disk: put a timeout
    /// around it where that matters (shutdown).
    ///
    /// # Errors
    /// [`StoreError::Closed`] if the writer thread is gone.
    pub async fn flush(&self) -> Result<(), StoreError> {
        let (reply, done) = oneshot::channel();
        let writes = self.inner.writes.clone();
        // The queue may be full: wait for room off the async threads.
        tokio::task::spawn_blocking(move || writes.send(Command::Flush(reply)))
            .await
            .map_err(|_| StoreError::Closed)?
            .map_err(|_| StoreError::Closed)?;
        done.await.map_err(|_| StoreError::Closed)
    }

    /// Waits (up to [`READ_CATCH_UP`]) for the writes queued so far, if any, so that a
    /// reader sees the games that have just ended; a stuck disk only delays it.
    async fn catch_up(&self) {
        let stats = &self.inner.stats;
        if stats.settled.load(Ordering::Relaxed) >= stats.queued.load(Ordering::Relaxed) {
            return;
        }
        if tokio::time::timeout(READ_CATCH_UP, self.flush())
            .await
            .is_err()
        {
            tracing::debug!("read without waiting further for queued writes");
        }
    }

    /// Runs `query` on a read connection on the blocking pool.
    ///
    /// # Errors
    /// What the query returns, or [`StoreError::Closed`] if the task could not run.
    pub(crate) async fn read<T, F>(&self, query: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || inner.readers.run(query))
            .await
            .map_err(|_| StoreError::Closed)?
    }

    /// A page of finished games, newest first (see [`games::history`]), and with a
    /// `name` that name's record.
    ///
    /// # Errors
    /// A failed query, or [`StoreError::Closed`].
    pub(crate) async fn history(
        &self,
        name: Option<String>,
        limit: u32,
        before: Option<GameId>,
    ) -> Result<(HistoryPage, Option<PlayerRecord>), StoreError> {
        self.catch_up().await;
        self.read(move |conn| {
            let page = games::history(conn, name.as_deref(), limit, before)?;
            let record = match &name {
                Some(name) => Some(games::player_record(conn, name)?),
                None => None,
            };
            Ok((page, record))
        })
        .await
    }

    /// One finished game with its moves, or `None` if the store does not keep it.
    ///
    /// # Errors
    /// A failed query, or [`StoreError::Closed`].
    pub(crate) async fn game(&self, id: GameId) -> Result<Option<FinishedGame>, StoreError> {
        self.catch_up().await;
        self.read(move |conn| Ok(games::game(conn, id)?)).await
    }

    /// The writer's counters (tests, and `/metrics`).
    pub(crate) fn stats(&self) -> &WriterStats {
        &self.inner.stats
    }
}

impl Readers {
    /// Runs `query` on a connection of this pool (blocking).
    fn run<T>(
        &self,
        query: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match self {
            Readers::Shared(conn) => {
                let conn = conn
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                query(&conn)
            }
            Readers::Pool { path, idle } => {
                let taken = idle
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .pop();
                let conn = match taken {
                    Some(conn) => conn,
                    None => open_reader(path)?,
                };
                let answer = query(&conn);
                let mut idle = idle
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if idle.len() < READ_POOL {
                    idle.push(conn);
                }
                answer
            }
        }
    }
}

/// A read-only connection to the database file at `path`.
fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(READ_BUSY_TIMEOUT)?;
    Ok(conn)
}

#[cfg(test)]
mod tests;
