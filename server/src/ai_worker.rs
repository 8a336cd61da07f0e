//! AI moves computed off the async runtime: one blocking job per move, behind a semaphore
//! sized to the cores, cancellable, and tagged so that a room can ignore a stale answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use inarow_engine::{Ai, Limits, Move, Position};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// One move to compute.
pub(crate) struct AiJob {
    /// The room's tag for this job; the answer carries it back.
    pub(crate) job_id: u64,
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
    pub(crate) job_id: u64,
    /// The player back, or `None` if the search panicked and took it with it.
    pub(crate) ai: Option<Box<Ai>>,
    /// The chosen move; `None` when cancelled, when the search failed, or when the game was over.
    pub(crate) mv: Option<Move>,
}

/// Starts `job` as a tracked task. Its answer goes to `done`; nothing is sent if the room
/// has gone (`done` closed) or `stop` was cancelled first.
pub(crate) fn spawn(
    job: AiJob,
    slots: Arc<Semaphore>,
    tracker: &TaskTracker,
    stop: CancellationToken,
    done: mpsc::Sender<AiDone>,
) {
    tracker.spawn(async move {
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
        let permit = tokio::select! {
            permit = slots.acquire_owned() => permit,
            () = stop.cancelled() => return,
        };
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
            let mv = ai.choose(&position, &limits);
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
    });
}
