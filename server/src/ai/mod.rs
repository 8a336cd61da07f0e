//! AI moves computed off the async runtime, fairly: a cheap move never waits behind long
//! searches, rooms take turns for the workers, and the time budget shrinks when more AI
//! seats wait than there are workers.
//!
//! A job first runs a *probe*: a search of at most [`PROBE_NODES`] nodes, which answers at
//! once whatever the engine settles quickly (a small board, a forced reply, a level that
//! searches only a few plies). Probes have their own slots, so they never queue behind
//! full searches; AI seats' go before analyses', and then the smallest board first, so a
//! tic-tac-toe reply does not queue behind gomoku probes either. A job the probe cannot settle waits in its priority
//! class (AI seats before analysis), where rooms are served round-robin, for one of
//! `workers` search slots (the slotss are in `slots`). Its search gets the configured budget scaled by `workers / waiting` when more
//! seats wait than there are workers (but at least [`MIN_SHARE`]), so that a seat waits
//! about one budget for its turn and at most about two overall; a running search is cut
//! short (through its cancel flag, which makes the engine answer its best move so far)
//! when the load grows after it started. A search the engine proves ends at once.
//!
//! Every AI thread, probing or searching, runs in the `SCHED_IDLE` class (`run_idle`):
//! people's moves, carried by the runtime's threads, never wait for AI work.
//!
//! Jobs are tagged so that a room can ignore a stale answer; the room cancels a job by
//! its flag.
//!
//! A seat played by an external engine (`external`) takes a search slot as a search does,
//! in the same order and with the same share of the time; if the engine fails, the same
//! job goes on as inarow's own search and its answer says why the engine was dropped.

pub(crate) mod external;
mod slots;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use inarow_engine::{Ai, Analysis, Limits, Move, Position};
use inarow_protocol::{EngineName, RoomId};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use self::external::{Ask, Engines};
use self::slots::{Rotation, Slots, Smallest};

/// Nodes a probe may search. A search that ends below it finished on its own (proven, or
/// at its level's depth) and its move stands; one that reaches it is cut, and the job
/// queues for a full search. A few milliseconds on gomoku, one or two on Connect Four;
/// the empty tic-tac-toe board is solved in under 200 nodes.
pub(crate) const PROBE_NODES: u64 = 2_000;

/// The table a probe searches with: room for every node it may visit, twice over. (A
/// table of [`Ai::DEFAULT_TABLE_BYTES`] for a probe meant zeroing 4 MiB at normal
/// priority for every AI move on a big board, over a hundred times a second with the load
/// benchmark's AI rooms.)
const PROBE_TABLE_BYTES: usize = (2 * PROBE_NODES as usize).next_power_of_two() * 16;

/// How long a search on a clock is waited for once its time is up, before the probe's
/// move is played without it: a cancelled search answers within a poll of its flag, a
/// fraction of a millisecond, unless its idle-class thread gets no CPU.
const CLOCKED_GRACE: Duration = Duration::from_millis(20);

/// The least time a queued search is given however many seats wait: below it a search
/// on a big board would play little better than the heuristic alone.
pub(crate) const MIN_SHARE: Duration = Duration::from_millis(10);

use crate::metrics;

/// A room's tag for one AI job: the answer carries it back, so the room can tell the
/// answer it waits for from a stale one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct JobId(pub(crate) u64);

/// Which queue a job waits in; every job of [`Priority::Seat`] is served before any of
/// [`Priority::Analysis`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Priority {
    /// An AI seat's move: somebody waits for it.
    Seat,
    /// An analysis for a person (a hint): it may wait while AI seats play.
    Analysis,
}

impl Priority {
    /// The number of classes.
    const CLASSES: usize = 2;

    fn index(self) -> usize {
        match self {
            Priority::Seat => 0,
            Priority::Analysis => 1,
        }
    }
}

/// One move to compute.
pub(crate) struct AiJob {
    /// The room's tag for this job; the answer carries it back.
    pub(crate) job_id: JobId,
    /// The room asking: rooms take turns for the workers.
    pub(crate) room: RoomId,
    /// Which queue the job waits in.
    pub(crate) priority: Priority,
    /// The player, with its transposition table; it travels into the job and back.
    pub(crate) ai: Box<Ai>,
    /// The position to move in.
    pub(crate) position: Position,
    /// Time budget of the search when the pool is idle; less when seats queue.
    pub(crate) move_time: Duration,
    /// When the answer must be back whatever the queue (an AI seat on a clock): past it
    /// the job answers with what it has, the probe's move or none (the room then plays
    /// the first legal move rather than lose on time).
    pub(crate) deadline: Option<Instant>,
    /// Wait before searching (AI against AI, so that people can follow the game).
    pub(crate) pace: Duration,
    /// Set by the room to stop the search early; the search polls it.
    pub(crate) cancel: Arc<AtomicBool>,
    /// The external engine that plays the seat, if one does (seats only).
    pub(crate) engine: Option<EngineName>,
}

/// A finished (or abandoned) job.
pub(crate) struct AiDone {
    /// The tag of the job.
    pub(crate) job_id: JobId,
    /// The player back, or `None` if the search panicked and took it with it.
    pub(crate) ai: Option<Box<Ai>>,
    /// The chosen move; `None` when cancelled, when the search failed, or when the game was over.
    pub(crate) mv: Option<Move>,
    /// Every legal move with its value, as the search left them (estimates where it was
    /// cut short); `None` when cancelled before searching or when the search failed.
    pub(crate) analysis: Option<Analysis>,
    /// The job's external engine failed and inarow's AI answered instead: which engine,
    /// and why, for the room to tell its members.
    pub(crate) engine_failed: Option<(EngineName, String)>,
}

/// Where AI jobs run: tracked tasks that probe, queue for one of a fixed number of search
/// slots, then search on the blocking pool. Cloning shares the slots and the queues.
#[derive(Clone)]
pub(crate) struct AiPool {
    shared: Arc<Shared>,
    /// The server's tasks, so shutdown waits for jobs too.
    tracker: TaskTracker,
}

/// The slots every job of one pool goes through.
struct Shared {
    /// Probes run at once: as many as search slots, beside them, since each is short.
    probes: Slots<Smallest>,
    /// Full searches run at once, so searches cannot take every core (or every blocking
    /// thread) however many AI seats there are. Its load (searches running plus seats
    /// waiting) sets the share of the budget each search gets. External engines' moves
    /// take these slots too.
    searches: Slots<Rotation>,
    /// The external engines the host offers.
    engines: Arc<Engines>,
}

impl Shared {
    /// The time a search of `budget` gets under `load`: all of it while every seat has a
    /// worker, a `workers / load` share of it beyond, never below [`MIN_SHARE`].
    fn share(&self, budget: Duration, load: usize) -> Duration {
        let workers = self.searches.slots();
        let scale = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (budget * scale(workers) / scale(load.max(workers))).max(MIN_SHARE.min(budget))
    }
}

impl AiPool {
    /// A pool running at most `workers` full searches at once (at least one), and as many
    /// probes beside them, with no external engine.
    #[cfg(test)]
    pub(crate) fn new(workers: usize, tracker: TaskTracker) -> AiPool {
        AiPool::with_engines(workers, tracker, Arc::default())
    }

    /// As [`AiPool::new`], with the external `engines` probed at start-up.
    pub(crate) fn with_engines(
        workers: usize,
        tracker: TaskTracker,
        engines: Arc<Engines>,
    ) -> AiPool {
        AiPool {
            shared: Arc::new(Shared {
                probes: Slots::new(workers),
                searches: Slots::new(workers),
                engines,
            }),
            tracker,
        }
    }

    /// The external engines the host offers.
    pub(crate) fn engines(&self) -> &Engines {
        &self.shared.engines
    }

    /// Starts `job` as a tracked task in the caller's tracing span. Its answer goes to
    /// `done`; nothing is sent if the room has gone (`done` closed) or `stop` was
    /// cancelled first.
    pub(crate) fn spawn(&self, job: AiJob, stop: CancellationToken, done: mpsc::Sender<AiDone>) {
        let shared = self.shared.clone();
        self.tracker.spawn(
            async move {
                let job_id = job.job_id;
                let answer = tokio::select! {
                    answer = run_seat(job, &shared) => answer,
                    () = stop.cancelled() => return,
                };
                let ((ai, analysis), engine_failed) = match answer {
                    Ok(answer) => answer,
                    Err(e) => {
                        tracing::error!(error = %e, "AI search failed");
                        ((None, None), None)
                    }
                };
                let mv = analysis.as_ref().and_then(|a| a.best);
                let done_job = AiDone {
                    job_id,
                    ai,
                    mv,
                    analysis,
                    engine_failed,
                };
                let _ = done.send(done_job).await;
            }
            .instrument(tracing::Span::current()),
        );
    }
}

/// What a job gives back: the player (unless the search panicked) and its analysis (with
/// the move chosen), unless it was cancelled before searching.
type Answer = (Option<Box<Ai>>, Option<Analysis>);

/// Runs one job, by its external engine if it has one: paced, in a search slot, with the
/// share of the time a search would get. If the engine fails, inarow's own search answers
/// and the reason comes back with the answer.
async fn run_seat(
    mut job: AiJob,
    shared: &Shared,
) -> Result<(Answer, Option<(EngineName, String)>), tokio::task::JoinError> {
    let Some(name) = job.engine.filter(|_| job.priority == Priority::Seat) else {
        return Ok((run(job, shared).await?, None));
    };
    if !job.pace.is_zero() {
        tokio::time::sleep(job.pace).await;
        job.pace = Duration::ZERO;
    }
    if job.cancel.load(Ordering::Relaxed) {
        return Ok(((Some(job.ai), None), None));
    }
    let played = match shared.engines.get(name) {
        None => Err(external::Failure::NotOffered),
        Some(engine) => {
            let queued = metrics::ai_job_queued();
            let mut pass = shared.searches.enter((job.priority, job.room.clone()));
            pass.ready().await;
            drop(queued);
            let turn = shared.share(job.move_time, *shared.searches.load().borrow());
            engine
                .play(Ask {
                    position: &job.position,
                    turn,
                    // The hook for rooms with clocks: the seat's time left for the game
                    // (then also the cap on `turn`), carried by the job from the room.
                    time_left: None,
                    cancel: &job.cancel,
                })
                .await
        }
    };
    let reason = match played {
        Ok(Some(mv)) => {
            let analysis = Analysis {
                moves: Vec::new(),
                best: Some(mv),
                nodes: 0,
                depth: 0,
                proven: false,
            };
            return Ok(((Some(job.ai), Some(analysis)), None));
        }
        Ok(None) => return Ok(((Some(job.ai), None), None)),
        Err(e) => e.to_string(),
    };
    tracing::warn!(
        engine = %name,
        room = %job.room,
        %reason,
        "external engine failed; inarow's own AI takes the seat"
    );
    Ok((run(job, shared).await?, Some((name, reason))))
}

/// Runs one job: pace, probe, and if the probe did not settle it, queue and search.
async fn run(job: AiJob, shared: &Shared) -> Result<Answer, tokio::task::JoinError> {
    let AiJob {
        room,
        priority,
        ai,
        position,
        move_time,
        deadline: hard_deadline,
        pace,
        cancel,
        ..
    } = job;
    // Waits for `ready`, unless the job's deadline comes first: then `None`.
    async fn before<T>(deadline: Option<Instant>, ready: impl Future<Output = T>) -> Option<T> {
        match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, ready).await.ok(),
            None => Some(ready.await),
        }
    }
    if !pace.is_zero() {
        tokio::time::sleep(pace).await;
    }
    if cancel.load(Ordering::Relaxed) {
        return Ok((Some(ai), None));
    }
    let probe = {
        let mut pass = shared.probes.enter((priority, position.rules().cells()));
        if before(hard_deadline, pass.ready()).await.is_none() {
            return Ok((Some(ai), None));
        }
        let (position, stop) = (position.clone(), cancel.clone());
        let probing = tokio::task::spawn_blocking(move || {
            run_idle();
            let mut ai = ai;
            ai.set_table_bytes(PROBE_TABLE_BYTES);
            let limits = Limits {
                time: Some(move_time),
                nodes: Some(PROBE_NODES),
                cancel: Some(stop),
            };
            let analysis = evaluate(&mut ai, priority, &position, &limits);
            // Every AI seat keeps its `Ai` for the life of the room, but only a few
            // search at once: dropping the table after each search bounds table memory
            // by the searches running (cores × 4 MiB) instead of by AI seats or by jobs
            // waiting, which a client creating thousands of AI rooms could otherwise
            // drive to tens of GiB.
            ai.release_memory();
            let settled = analysis.nodes < PROBE_NODES;
            (ai, analysis, settled)
        });
        match hard_deadline {
            // An idle-class thread may get no CPU at all on a busy machine: on a clock
            // the answer cannot wait for it. No move then; the room plays the first
            // legal one, and the player starts afresh next move.
            Some(deadline) => match tokio::time::timeout_at(deadline, probing).await {
                Ok(probe) => probe?,
                Err(_) => {
                    cancel.store(true, Ordering::Relaxed);
                    return Ok((None, None));
                }
            },
            None => probing.await?,
        }
    };
    let (ai, analysis, settled) = probe;
    if settled || cancel.load(Ordering::Relaxed) {
        return Ok((Some(ai), Some(analysis)));
    }

    let queued = metrics::ai_job_queued();
    let mut pass = shared.searches.enter((priority, room));
    if before(hard_deadline, pass.ready()).await.is_none() {
        // Out of time while queued: the probe's move stands.
        return Ok((Some(ai), Some(analysis)));
    }
    drop(queued);
    if cancel.load(Ordering::Relaxed) {
        return Ok((Some(ai), None));
    }
    let started = Instant::now();
    // What stands if a search on a clock cannot answer in time.
    let fallback = hard_deadline.map(|_| analysis.clone());
    let mut load = shared.searches.load();
    let stop = cancel.clone();
    let mut search = tokio::task::spawn_blocking(move || {
        run_idle();
        let mut ai = ai;
        ai.set_table_bytes(Ai::DEFAULT_TABLE_BYTES);
        let limits = Limits {
            time: Some(move_time),
            nodes: None,
            cancel: Some(stop),
        };
        let searching = std::time::Instant::now();
        let analysis = evaluate(&mut ai, priority, &position, &limits);
        // The histogram is of AI moves, which people wait for; hints would blur it.
        if priority == Priority::Seat {
            metrics::ai_search(searching.elapsed());
        }
        ai.release_memory();
        (ai, analysis)
    });
    let searched = loop {
        let mut deadline = started + shared.share(move_time, *load.borrow_and_update());
        if let Some(hard) = hard_deadline {
            deadline = deadline.min(hard);
        }
        tokio::select! {
            searched = &mut search => break searched,
            () = tokio::time::sleep_until(deadline) => {
                // The engine answers its best move so far; wait for it (on a clock, only
                // a moment: its thread may be starved, and the probe's move stands).
                cancel.store(true, Ordering::Relaxed);
                if hard_deadline.is_some() {
                    let grace = Instant::now() + CLOCKED_GRACE;
                    match tokio::time::timeout_at(grace, &mut search).await {
                        Ok(searched) => break searched,
                        Err(_) => return Ok((None, fallback)),
                    }
                }
                break search.await;
            }
            changed = load.changed() => {
                if changed.is_err() {
                    break search.await;
                }
            }
        }
    };
    drop(pass);
    let (ai, analysis) = searched?;
    Ok((Some(ai), Some(analysis)))
}

/// What a job asks of the engine: a seat needs its move, proven best as soon as it can be
/// (`think`: the opening book, or the solver stopping at the first move proven best, with
/// the others left as bounds); a hint needs the value of every move (`analyze`).
fn evaluate(ai: &mut Ai, priority: Priority, position: &Position, limits: &Limits) -> Analysis {
    match priority {
        Priority::Seat => ai.think(position, limits),
        Priority::Analysis => ai.analyze(position, limits),
    }
}

/// Puts the calling thread (one of tokio's blocking pool, which in this server runs only
/// AI work) in the `SCHED_IDLE` class, once: AI work, probes as well as full searches,
/// uses the CPU that the runtime's threads, which carry every person's moves, leave.
///
/// Probes ran at normal priority until the load benchmark showed what that costs: with a
/// search on one of two cores, people's round trips beside 90 AI rooms had a p99 about
/// twice their p99 alone, and with every AI thread idle (and the gomoku table within a
/// core's cache, see the engine) they stay near it. A probe is short, so an idle one still
/// answers in milliseconds unless people's moves take every core, and then they should
/// go first. Only on Linux; elsewhere, or if the system refuses, the thread stays as it is.
fn run_idle() {
    thread_local! {
        static DONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if DONE.get() {
        return;
    }
    // Once whatever the answer: a refusal would be the same on every job.
    DONE.set(true);
    #[cfg(target_os = "linux")]
    {
        use thread_priority::{
            NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
            set_thread_priority_and_policy, thread_native_id,
        };
        let set = set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
        );
        if let Err(e) = set {
            tracing::debug!(error = ?e, "AI thread priority unchanged");
        }
    }
}

#[cfg(test)]
mod tests;
