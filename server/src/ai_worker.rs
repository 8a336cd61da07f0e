//! AI moves computed off the async runtime: one blocking job per move, behind a semaphore
//! sized to the cores, cancellable, and tagged so that a room can ignore a stale answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use inarow_engine::{Ai, Limits, Move, Position};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use crate::metrics;

/// A room's tag for one AI job: the answer carries it back, so the room can tell the
/// answer it waits for from a stale one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct JobId(pub(crate) u64);

/// One move to compute.
pub(crate) struct AiJob {
    /// The room's tag for this job; the answer carries it back.
    pub(crate) job_id: JobId,
    /// The player, with its transposition table; it travels into the job and back.
    pub(crate) ai: Box<Ai>,
    /// The position to move in.
    pub(crate) position: Position,
    /// Time budget of the search.
    pub(crate) move_time: Duration,
    /// Wait before searching (AI against AI, so that people can follow the game).
    pub(crate) pace: Duration,
    /// Set by the room to stop the search early; the search polls it.
    pub(crate) cancel: Arc<AtomicBool>,
}

/// A finished (or abandoned) job.
pub(crate) struct AiDone {
    /// The tag of the job.
    pub(crate) job_id: JobId,
    /// The player back, or `None` if the search panicked and took it with it.
    pub(crate) ai: Option<Box<Ai>>,
    /// The chosen move; `None` when cancelled, when the search failed, or when the game was over.
    pub(crate) mv: Option<Move>,
}

/// Where AI jobs run: tracked tasks that wait for one of a fixed number of slots, then
/// search on the blocking pool. Cloning shares the slots.
#[derive(Clone)]
pub(crate) struct AiPool {
    /// One permit per search allowed to run at once, so searches cannot take every core
    /// (or every blocking thread) however many AI seats there are.
    slots: Arc<Semaphore>,
    /// The server's tasks, so shutdown waits for jobs too.
    tracker: TaskTracker,
}

impl AiPool {
    /// A pool running at most `threads` searches at once (at least one).
    pub(crate) fn new(threads: usize, tracker: TaskTracker) -> AiPool {
        AiPool {
            slots: Arc::new(Semaphore::new(threads.max(1))),
            tracker,
        }
    }

    /// Starts `job` as a tracked task in the caller's tracing span. Its answer goes to
    /// `done`; nothing is sent if the room has gone (`done` closed) or `stop` was
    /// cancelled first.
    pub(crate) fn spawn(&self, job: AiJob, stop: CancellationToken, done: mpsc::Sender<AiDone>) {
        let slots = self.slots.clone();
        self.tracker
            .spawn(run(job, slots, stop, done).instrument(tracing::Span::current()));
    }
}

/// Runs one job: pace, wait for a slot, search on the blocking pool, answer.
async fn run(
    job: AiJob,
    slots: Arc<Semaphore>,
    stop: CancellationToken,
    done: mpsc::Sender<AiDone>,
) {
    let AiJob {
        job_id,
        ai,
        position,
        move_time,
        pace,
        cancel,
    } = job;
    if !pace.is_zero() {
        tokio::select! {
            () = tokio::time::sleep(pace) => {}
            () = stop.cancelled() => return,
        }
    }
    let queued = metrics::ai_job_queued();
    let permit = tokio::select! {
        permit = slots.acquire_owned() => permit,
        () = stop.cancelled() => return,
    };
    drop(queued);
    if cancel.load(Ordering::Relaxed) || permit.is_err() {
        let _ = done
            .send(AiDone {
                job_id,
                ai: Some(ai),
                mv: None,
            })
            .await;
        return;
    }
    let limits = Limits {
        time: Some(move_time),
        nodes: None,
        cancel: Some(cancel),
    };
    let searched = tokio::task::spawn_blocking(move || {
        let mut ai = ai;
        let started = std::time::Instant::now();
        let mv = ai.choose(&position, &limits);
        metrics::ai_search(started.elapsed());
        // Every AI seat keeps its `Ai` for the life of the room, but only `ai_threads`
        // search at once: dropping the table after each move bounds table memory by
        // the searches running (cores × 4 MiB) instead of by AI seats, which a client
        // creating thousands of AI rooms could otherwise drive to tens of GiB.
        ai.release_memory();
        (ai, mv)
    })
    .await;
    drop(permit);
    let answer = match searched {
        Ok((ai, mv)) => AiDone {
            job_id,
            ai: Some(ai),
            mv,
        },
        Err(e) => {
            tracing::error!(error = %e, "AI search failed");
            AiDone {
                job_id,
                ai: None,
                mv: None,
            }
        }
    };
    let _ = done.send(answer).await;
}
