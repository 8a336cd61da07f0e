//! The writer: one thread that owns the write connection, takes what rooms queue,
//! commits it in batches and retries what fails.
//!
//! Rooms never wait on the disk: [`super::Store::write`] only puts a [`Write`] on a
//! bounded channel. The thread takes everything queued at once and commits it in one
//! transaction (one fsync for many games under load). A failed commit is logged and
//! retried with backoff while the error is one that time can cure (a locked or busy
//! database, an I/O error, a full disk); a write SQLite refuses outright is split from
//! its batch and dropped with an error, so one bad row cannot hold up every later one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode};
use tokio::sync::oneshot;

use super::games::{self, EndedGame};
use super::live::LiveWrite;

/// The most writes committed in one transaction; more wait for the next one, so a long
/// queue does not become one huge transaction.
const MAX_BATCH: usize = 512;
/// How long the writer lets writes gather when a batch would be short (fewer than
/// [`GATHER_ENOUGH`], no flush waiting). It sleeps rather than waits on the queue, so the
/// rooms' sends in that time wake nobody: under load a commit carries dozens of games
/// instead of one or two, and the thread, its `BEGIN`/`COMMIT` and the journal's copies
/// of the same pages run that much less often. A game is on disk 10 ms later than it
/// could be, which nobody can see.
const GATHER: Duration = Duration::from_millis(10);
/// A batch this long is committed without gathering more: the queue was backed up.
const GATHER_ENOUGH: usize = 64;
/// The first pause after a failed commit; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// The longest pause between two attempts at a failing commit.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Something to write to the database. Add a variant (and its arm in [`Write::apply`])
/// for each new kind of row.
#[derive(Debug)]
pub(crate) enum Write {
    /// A game that has ended, with its moves.
    Game(Box<EndedGame>),
    /// A live room's or session's change, kept for a restart (`store::live`).
    Live(LiveWrite),
}

impl Write {
    /// Writes this in `tx`. Applying the same write twice after a failed commit must be
    /// harmless: the failed transaction was rolled back, so it is the first time again.
    fn apply(&self, tx: &Connection) -> rusqlite::Result<()> {
        match self {
            Write::Game(game) => games::insert(tx, game),
            Write::Live(live) => live.apply(tx),
        }
    }

    /// What the logs call this write.
    pub(super) fn describe(&self) -> String {
        match self {
            Write::Game(game) => format!("game {}", game.summary.game),
            Write::Live(live) => live.describe(),
        }
    }
}

/// What the writer thread is sent.
pub(super) enum Command {
    /// Write this.
    Write(Write),
    /// Answer once everything queued before this is committed (or dropped as refused).
    Flush(oneshot::Sender<()>),
}

/// The writer's counters, shared with the [`super::Store`] handles (tests and logs read
/// them).
#[derive(Debug, Default)]
pub(crate) struct WriterStats {
    /// Writes accepted onto the queue.
    pub(crate) queued: AtomicU64,
    /// Writes the writer is done with: committed, or refused by SQLite.
    pub(crate) settled: AtomicU64,
    /// Writes committed.
    pub(crate) committed: AtomicU64,
    /// Transactions committed (a batch of writes each, when all goes well).
    pub(crate) transactions: AtomicU64,
    /// Failed commit attempts that were retried.
    pub(crate) retries: AtomicU64,
    /// Writes given up: refused by SQLite, or not queued because the queue was full.
    pub(crate) dropped: AtomicU64,
}

/// The writer thread's body: runs until every sender is gone, then returns once the
/// last batch is committed.
pub(super) fn run(
    conn: Arc<Mutex<Connection>>,
    commands: Receiver<Command>,
    stats: Arc<WriterStats>,
) {
    let mut batch = Vec::new();
    let mut flushes = Vec::new();
    while let Ok(first) = commands.recv() {
        let mut next = Some(first);
        let mut gathered = false;
        loop {
            while let Some(command) = next.take() {
                match command {
                    Command::Write(write) => batch.push(write),
                    Command::Flush(reply) => flushes.push(reply),
                }
                if batch.len() < MAX_BATCH {
                    next = commands.try_recv().ok();
                }
            }
            // The queue is empty. A few writes alone wait once for company; a long batch
            // (the queue was backed up: no time to lose) or a flush waiting goes at once.
            if gathered || batch.is_empty() || batch.len() >= GATHER_ENOUGH || !flushes.is_empty() {
                break;
            }
            gathered = true;
            std::thread::sleep(GATHER);
            next = commands.try_recv().ok();
        }
        if !batch.is_empty() {
            commit(&conn, &batch, &stats);
            batch.clear();
        }
        for reply in flushes.drain(..) {
            // A flusher that stopped waiting is no concern of the writer's.
            let _ = reply.send(());
        }
    }
    tracing::debug!("store writer stopped");
}

/// Commits `batch`, retrying while the failure may pass; splits it when SQLite refuses a
/// write, so that only the refused write is lost.
fn commit(conn: &Mutex<Connection>, batch: &[Write], stats: &WriterStats) {
    let mut backoff = FIRST_BACKOFF;
    let mut attempt = 1u64;
    loop {
        let error = match try_commit(conn, batch) {
            Ok(()) => {
                stats.transactions.fetch_add(1, Ordering::Relaxed);
                stats
                    .committed
                    .fetch_add(batch.len() as u64, Ordering::Relaxed);
                stats
                    .settled
                    .fetch_add(batch.len() as u64, Ordering::Relaxed);
                if attempt > 1 {
                    tracing::info!(
                        attempt,
                        writes = batch.len(),
                        "store write succeeded after retrying"
                    );
                }
                return;
            }
            Err(error) => error,
        };
        if is_transient(&error) {
            stats.retries.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                %error,
                attempt,
                writes = batch.len(),
                retry_in_ms = backoff.as_millis() as u64,
                "store write failed; retrying"
            );
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(MAX_BACKOFF);
            attempt += 1;
            continue;
        }
        if let [only] = batch {
            stats.dropped.fetch_add(1, Ordering::Relaxed);
            stats.settled.fetch_add(1, Ordering::Relaxed);
            tracing::error!(%error, write = %only.describe(), "store refused a write; dropped");
            return;
        }
        // Find the refused write by committing the rest one at a time.
        for write in batch {
            commit(conn, std::slice::from_ref(write), stats);
        }
        return;
    }
}

/// One attempt: the whole batch in one transaction, or nothing.
///
/// `BEGIN`, `COMMIT` and `ROLLBACK` are statements prepared once and kept, like the
/// writes': rusqlite's `Transaction` parses its `BEGIN` and `COMMIT` anew each time.
fn try_commit(conn: &Mutex<Connection>, batch: &[Write]) -> rusqlite::Result<()> {
    // A panic elsewhere while holding the lock leaves the connection usable: a transaction
    // it left open is rolled back below before this one begins.
    let conn = conn
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !conn.is_autocommit() {
        rollback(&conn);
    }
    // IMMEDIATE: take the write lock at once, so a busy database fails here, before any
    // write, rather than at the commit.
    conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
    let written = batch
        .iter()
        .try_for_each(|write| write.apply(&conn))
        .and_then(|()| conn.prepare_cached("COMMIT")?.execute([]).map(drop));
    if written.is_err() && !conn.is_autocommit() {
        // Nothing of a failed attempt stays: the retry starts from the same state.
        rollback(&conn);
    }
    written
}

/// Rolls back the open transaction. A rollback that fails leaves nothing worse: SQLite
/// has then rolled back on its own, or the next `BEGIN` fails and the batch is retried.
fn rollback(conn: &Connection) {
    if let Err(error) = conn
        .prepare_cached("ROLLBACK")
        .and_then(|mut rollback| rollback.execute([]))
    {
        tracing::warn!(%error, "store rollback failed");
    }
}

/// Whether waiting may cure `error`: locks held by another connection or process, and
/// trouble with the disk. Anything else (a constraint, a malformed statement) fails the
/// same way every time.
fn is_transient(error: &rusqlite::Error) -> bool {
    let rusqlite::Error::SqliteFailure(failure, _) = error else {
        return false;
    };
    matches!(
        failure.code,
        ErrorCode::DatabaseBusy
            | ErrorCode::DatabaseLocked
            | ErrorCode::SystemIoFailure
            | ErrorCode::DiskFull
            | ErrorCode::CannotOpen
            | ErrorCode::FileLockingProtocolFailed
            | ErrorCode::OutOfMemory
            | ErrorCode::ReadOnly
    )
}
