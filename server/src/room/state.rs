//! The room around its [`Table`]: feeds it requests (on the requester's task, under the
//! room's lock) and AI answers (on the room's task, [`run`]), starts and cancels the AI
//! jobs it asks for, and fans out what changed.
//!
//! Every change is followed by one event to everyone in the room, built and sent under
//! the room's lock, so everybody sees the same events in the same order: a snapshot, or
//! after a move a `moved` event (a snapshot for protocol 1 connections) with the same
//! `seq`.
//!
//! Analyses (hints) run on the same pool at a lower priority, one at a time per room; each
//! goes to the members who asked for it, and after every change the table says which
//! waiters' answers went stale (sent after the event that made them so).
//!
//! Over 600 lines: the room's requests, its AI jobs, its events and its task are one
//! state behind one lock, and read best in one place.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use inarow_protocol::{GameId, Mark, RequestId, RoomId, ServerMessage, SessionId};

use crate::snapshot::StatusView;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::table::{AiAnswer, AnalysisStart, ChatLine, Outcome, Reply, Request, Table};
use super::{Audience, Requester};
use super::{Context, Member, RoomHandle, Shared};
use crate::ai::{AiDone, AiJob, JobId, Priority};
use crate::metrics;
use crate::net::Attachment;
use crate::refusal::Refusal;
use crate::room::spec::RoomSpec;
use crate::store::LiveWrite;

/// Why a room stops when the server shuts down.
const SHUTTING_DOWN: &str = "server shutting down";
use crate::store::Write;

/// Answers from AI jobs waiting for the room; a room runs one seat job and one analysis at
/// a time, so a few slots cover the cancelled ones still finishing.
const AI_ANSWERS: usize = 8;

/// Everything about one room, behind the room's lock (`super::Shared`).
pub(super) struct Room {
    table: Table,
    /// The connections of the members the table counts as connected.
    audience: Audience,
    /// The AI seat's job running for the room.
    running_ai: Running,
    /// The analysis job running for the room.
    running_analysis: Running,
    ai_done_tx: mpsc::Sender<AiDone>,
    /// Where AI answers arrive, until the room's task takes it ([`run`]).
    ai_done_rx: Option<mpsc::Receiver<AiDone>>,
    /// Since when nobody has been in the room (no one connected, no seat held).
    deserted_since: Option<Instant>,
    /// Cancelled when the server shuts down.
    shutdown: CancellationToken,
    /// The first snapshot goes to the creator, carrying its request's id.
    creator: SessionId,
    context: Context,
}

impl RoomHandle {
    /// Runs a request from `member` under the room's lock, on the caller's task; on
    /// success the room has already queued its answer (a snapshot or chat line carrying
    /// `id`) to the requester, except for `Leave`, whose `left` the caller sends.
    ///
    /// # Errors
    /// The room's refusal, or `unknown_room` if the room has closed.
    pub(crate) fn request(
        &self,
        member: &Member,
        id: Option<RequestId>,
        request: Request,
    ) -> Result<(), Refusal> {
        self.shared
            .with_room(|room| {
                let session = member.session;
                // A clock that ran out before the request arrived ends the game first: a
                // move that comes after the flag fell is too late.
                room.tick();
                let game = room.table.game();
                let roster = matches!(request, Request::Join { .. } | Request::Leave);
                // Whoever enters (or catches up) is sent the room's recent chat with its snapshot.
                let entering = matches!(request, Request::Join { .. } | Request::Sync);
                let result = room.table.request(member.arrival(), id.clone(), request);
                if roster {
                    room.audience.sync(&room.table, Some(member));
                } else {
                    room.audience.arrive(&room.table, member);
                }
                if room.table.game() != game {
                    tracing::debug!(game = room.table.game(), "rematch started");
                }
                let answer = result.map(|outcome| match outcome {
                    Outcome::Changed => room.after_change_entering(Some((session, id)), entering),
                    Outcome::Moved => room.after_move(Some((session, id))),
                    Outcome::Unchanged => room.send_snapshot_to(session, id, entering),
                    Outcome::Left => room.after_change(None),
                    // The answer comes when the analysis is ready (`settle_analysis`).
                    Outcome::Analyzing => {}
                    Outcome::Chat(line) => {
                        if room.chat(line, Some((session, id))) {
                            room.after_change(None);
                        }
                    }
                });
                room.settle_analysis();
                answer
            })
            .unwrap_or_else(|| Err(Refusal::unknown_room(&self.id())))
    }
}

impl Room {
    /// A new room; nothing is sent until it is started (`super::open`).
    pub(super) fn new(id: RoomId, spec: RoomSpec, creator: Member, context: Context) -> Room {
        let (ai_done_tx, ai_done_rx) = mpsc::channel(AI_ANSWERS);
        let table = Table::new(id, spec, creator.arrival(), context.config.max_chat_chars);
        let mut audience = Audience::default();
        audience.sync(&table, Some(&creator));
        Room {
            table,
            audience,
            running_ai: Running::default(),
            running_analysis: Running::default(),
            ai_done_tx,
            ai_done_rx: Some(ai_done_rx),
            deserted_since: None,
            shutdown: context.shutdown.child_token(),
            creator: creator.session,
            context,
        }
    }

    /// A room restored after a restart; nobody is connected yet.
    pub(super) fn restored(table: Table, context: Context) -> Room {
        let (ai_done_tx, ai_done_rx) = mpsc::channel(AI_ANSWERS);
        Room {
            creator: table.creator(),
            table,
            audience: Audience::default(),
            running_ai: Running::default(),
            running_analysis: Running::default(),
            ai_done_tx,
            ai_done_rx: Some(ai_done_rx),
            deserted_since: None,
            shutdown: context.shutdown.child_token(),
            context,
        }
    }

    /// Logs the restoring of the room (in the caller's span, which names the room).
    pub(super) fn log_restored(&self) {
        let snapshot = self.table.snapshot();
        tracing::info!(
            name = %self.table.name(),
            game = snapshot.game,
            ply = snapshot.ply,
            "room restored"
        );
    }

    /// Logs the opening of the room (in the caller's span, which names the room).
    pub(super) fn log_opened(&self) {
        tracing::info!(
            creator = %self.creator,
            name = %self.table.name(),
            private = self.table.private(),
            hints = self.table.hints(),
            "room opened"
        );
    }

    /// The room's id.
    pub(super) fn id(&self) -> &RoomId {
        self.table.id()
    }

    /// Where AI answers arrive, for the room's task; `None` once taken.
    fn take_answers(&mut self) -> Option<mpsc::Receiver<AiDone>> {
        self.ai_done_rx.take()
    }

    /// Whether nobody has been in the room for a while (see `note_desertion`).
    pub(super) fn deserted(&self) -> bool {
        self.deserted_since.is_some()
    }

    /// When the room closes for want of people, if it stays deserted.
    fn closing_at(&self) -> Option<Instant> {
        self.deserted_since
            .map(|t| t + self.context.config.room_idle_timeout)
    }

    /// Closes the room for `reason`: cancels AI work, saves it for a restart when the
    /// server shuts down with a data file, and leaves the lobby.
    fn close(mut self, reason: &str) {
        self.running_ai.cancel();
        self.running_analysis.cancel();
        if reason == SHUTTING_DOWN && self.context.store.keeps_live() {
            // Frozen from here: no request is taken after this snapshot, and the next
            // server starts from it.
            self.checkpoint(|t| Some(LiveWrite::Saved(Box::new(t.save()))));
            self.context.lobby.remove(self.table.id());
            tracing::info!(ply = self.table.snapshot().ply, "room saved for a restart");
            return;
        }
        self.checkpoint(|t| Some(LiveWrite::RoomClosed(t.id().clone())));
        if self.table.game_unfinished() {
            metrics::game_abandoned();
        }
        self.context.lobby.remove(self.table.id());
        tracing::info!(reason, "room closed");
    }

    /// Notes when the room became deserted (nobody connected, no seat held), or that it
    /// no longer is.
    pub(super) fn note_desertion(&mut self) {
        match (self.table.anyone_in(), self.deserted_since) {
            (true, _) => self.deserted_since = None,
            (false, None) => self.deserted_since = Some(Instant::now()),
            (false, Some(_)) => {}
        }
    }

    /// A session resumed on a new connection: true if it still has a place here (and
    /// was sent a snapshot).
    pub(super) fn resume(&mut self, member: &Member) -> bool {
        self.tick();
        let session = member.session;
        let outcome = self.table.resume(member.arrival());
        self.audience.sync(&self.table, Some(member));
        match outcome {
            Some(Outcome::Changed) => self.after_change_entering(Some((session, None)), true),
            Some(_) => self.send_snapshot_to(session, None, true),
            None => {}
        }
        self.settle_analysis();
        outcome.is_some()
    }

    /// Connection `attachment` of `session` ended.
    pub(super) fn detach(&mut self, session: SessionId, attachment: Attachment) {
        self.tick();
        if self.table.detach(session, attachment) {
            self.audience.sync(&self.table, None);
            self.after_change(None);
            self.settle_analysis();
        }
    }

    /// `session`'s grace period ran out.
    pub(super) fn expire(&mut self, session: SessionId) {
        self.tick();
        if self.table.expire(session) {
            self.audience.sync(&self.table, None);
            tracing::debug!(%session, "held seat released");
            self.after_change(None);
            self.settle_analysis();
        }
    }

    /// Hands the table the time now; if a clock has run out, the game ends on time and
    /// everybody is told.
    fn tick(&mut self) {
        if self.table.tick(std::time::Instant::now()) {
            self.after_change(None);
            self.settle_analysis();
        }
    }

    /// When the room's task must wake to end the game on time, if a clock runs.
    pub(super) fn clock_deadline(&self) -> Option<Instant> {
        self.table.clock_deadline().map(Instant::from_std)
    }

    /// The room's task woke at the clock's deadline.
    fn clock_due(&mut self) {
        self.tick();
    }

    /// Members whose connection could not take an event: their seats are held, their
    /// spectator places dropped.
    fn drop_connections(&mut self, sessions: Vec<SessionId>) {
        for session in sessions {
            self.table.disconnect(session);
        }
        self.audience.sync(&self.table, None);
    }

    /// After a change: start or cancel AI work, hand a finished game to the store, and
    /// send everybody the new snapshot (the requester's copy carrying its request id).
    pub(super) fn after_change(&mut self, requester: Requester) {
        self.after_change_entering(requester, false);
    }

    /// As [`Room::after_change`]; if `entered`, the requester (who joined, resumed or
    /// asked for `sync`) gets its copy of the snapshot with the room's recent chat.
    fn after_change_entering(&mut self, requester: Requester, entered: bool) {
        let now = unix_ms();
        self.table.note_time(now);
        self.start_ai();
        if let Some(kept) = self.report_game_over(now) {
            self.table.set_last_game(kept);
        }
        self.broadcast(requester, entered);
        if self.table.take_rewound() {
            // A takeback: the moves taken back were appended already; save it whole.
            self.checkpoint(|t| Some(LiveWrite::Saved(Box::new(t.save()))));
        } else {
            self.checkpoint(|t| Some(LiveWrite::Room(Box::new(t.record()))));
        }
    }

    /// Hands the store what `write` makes of the table, when the store keeps live rooms
    /// (a data file); otherwise builds nothing. Never waits.
    fn checkpoint(&self, write: impl FnOnce(&Table) -> Option<LiveWrite>) {
        if self.context.store.keeps_live()
            && let Some(write) = write(&self.table)
        {
            self.context.store.checkpoint(write);
        }
    }

    /// After a move: as [`Room::after_change`], but everybody gets the move rather
    /// than a whole snapshot (protocol 1 connections still get the snapshot). A move that
    /// ends the game is followed by a snapshot showing `last_game`, which a `moved` event
    /// cannot carry.
    fn after_move(&mut self, requester: Requester) {
        let now = unix_ms();
        self.table.note_time(now);
        self.start_ai();
        let kept = self.report_game_over(now);
        let Some(moved) = self.table.next_moved() else {
            if let Some(kept) = kept {
                self.table.set_last_game(kept);
            }
            self.broadcast(requester, false);
            return;
        };
        // The lobby first: a member who saw the event may list the rooms at once.
        self.publish();
        let table = &self.table;
        let dropped = self
            .audience
            .broadcast_move(&moved, || table.room(), requester);
        // One appended row per move, never the whole room.
        self.checkpoint(|t| {
            let mv = t.last_move()?;
            Some(LiveWrite::Move {
                room: t.id().clone(),
                mv,
            })
        });
        let resend = !dropped.is_empty() || kept.is_some();
        if !dropped.is_empty() {
            self.drop_connections(dropped);
        }
        if let Some(kept) = kept {
            self.table.set_last_game(kept);
        }
        if resend {
            self.broadcast(None, false);
            self.checkpoint(|t| Some(LiveWrite::Room(Box::new(t.record()))));
        }
    }

    /// Counts a started game, and hands a game that has just ended to the store's
    /// writer (never waiting for the disk): the id it is kept under.
    fn report_game_over(&mut self, now: u64) -> Option<GameId> {
        if self.table.game_started() {
            metrics::game_started();
        }
        let result = self.table.game_over()?;
        if result == StatusView::Aborted {
            // No result, and not kept in the history.
            tracing::info!(
                game = self.table.game(),
                result = ending(result),
                "game over"
            );
            return None;
        }
        let store = &self.context.store;
        let id = store.next_game_id();
        tracing::info!(game = self.table.game(), kept_as = %id, result = ending(result), "game over");
        metrics::game_finished();
        store.write(Write::Game(Box::new(self.table.finished_game(id, now))));
        Some(id)
    }

    /// Updates the room's listing in the lobby. A private room is never listed: its
    /// listing keeps the empty summary the lobby gave it, with no lock taken per move.
    fn publish(&self) {
        if self.table.private() {
            return;
        }
        self.context
            .lobby
            .publish(self.table.id(), self.table.summary());
    }

    /// Sends a new snapshot to everybody connected and updates the lobby's listing. A
    /// connection that cannot take it is dropped, which is itself a change, so it
    /// repeats until everyone took it. If `entered`, the requester's copy of the first
    /// carries the room's recent chat.
    fn broadcast(&mut self, mut requester: Requester, entered: bool) {
        loop {
            let room = self.table.next_room();
            let own = (entered && requester.is_some()).then(|| self.table.room_entered());
            // The lobby first: a member who saw the event may list the rooms at once.
            self.publish();
            let dropped = self
                .audience
                .broadcast_own(&room, own.as_ref(), requester.take());
            if dropped.is_empty() {
                return;
            }
            self.drop_connections(dropped);
        }
    }

    /// Sends the current snapshot to one member (nothing changed for the others), with
    /// the room's recent chat if it `entered` (joined, resumed or asked for `sync`).
    fn send_snapshot_to(&mut self, session: SessionId, id: Option<RequestId>, entered: bool) {
        let room = if entered {
            self.table.room_entered()
        } else {
            self.table.room()
        };
        if !self.audience.send_to(session, room, id) {
            self.drop_connections(vec![session]);
            self.after_change(None);
        }
    }

    /// Starts the AI job the table asks for, and cancels one it no longer waits for.
    fn start_ai(&mut self) {
        let start = self.table.reconcile_ai();
        self.forget_stale_ai();
        let Some(start) = start else { return };
        let config = &self.context.config;
        let cancel = Arc::new(AtomicBool::new(false));
        // On a clock the AI's budget comes from its clock, and the answer must be back
        // by its end whatever the pool's queue; its free first move, and rooms without a
        // clock, take the configured time.
        let clocked = self.table.ai_budget(start.mark);
        let job = AiJob {
            job_id: start.job,
            room: self.table.id().clone(),
            priority: Priority::Seat,
            ai: start.ai,
            position: start.position,
            move_time: clocked.unwrap_or(config.ai_move_time),
            deadline: clocked.map(|budget| Instant::now() + budget),
            // Pacing would spend the clock's time.
            pace: if start.paced && self.table.time_control().is_none() {
                config.ai_pace
            } else {
                Duration::ZERO
            },
            cancel: cancel.clone(),
            engine: start.engine,
        };
        self.running_ai.start(start.job, cancel);
        self.context
            .ai
            .spawn(job, self.shutdown.clone(), self.ai_done_tx.clone());
    }

    /// Sends everybody chat line `line` (the requester's copy carrying its request id),
    /// and keeps it for a restart. True if a connection could not take it (it is dropped,
    /// its seats held).
    fn chat(&mut self, line: ChatLine, requester: Requester) -> bool {
        let message = ServerMessage::Chat {
            room: self.table.id().clone(),
            seq: line.seq,
            from: line.from,
            seat: line.seat,
            text: line.text,
        };
        let dropped = self.audience.broadcast(&message, requester);
        self.checkpoint(|t| {
            let line = t.last_chat()?;
            Some(LiveWrite::Chat {
                room: t.id().clone(),
                line,
            })
        });
        let any = !dropped.is_empty();
        if any {
            self.drop_connections(dropped);
        }
        any
    }

    /// Cancels the running job if the table no longer waits for it.
    fn forget_stale_ai(&mut self) {
        self.running_ai.cancel_unless(self.table.pending_ai());
    }

    fn ai_done(&mut self, done: AiDone) {
        if let Some(replies) = self
            .table
            .analysis_answered(done.job_id, done.analysis.as_ref())
        {
            tracing::debug!(waiters = replies.len(), "analysis answered");
            self.running_analysis.finished();
            self.reply(replies);
            self.settle_analysis();
            return;
        }
        self.tick();
        // Before the answer, which sends the job's player home: the seat is found by it.
        let engine_failed = done
            .engine_failed
            .and_then(|(name, reason)| self.table.engine_failed(done.job_id, name, &reason));
        let engine_failed_seen = engine_failed.is_some();
        if let Some(line) = engine_failed {
            // A line the room itself says; the snapshot that follows shows any drop.
            self.chat(line, None);
        }
        let proven = done.analysis.as_ref().map(draw_or_worse);
        let answer = self
            .table
            .ai_answered(done.job_id, done.ai, done.mv, proven);
        self.forget_stale_ai();
        match answer {
            AiAnswer::Stale if engine_failed_seen => self.after_change(None),
            AiAnswer::Stale => {}
            // Everybody needs a snapshot showing the seat without its engine, which a
            // move event cannot carry.
            AiAnswer::Played if engine_failed_seen => self.after_change(None),
            AiAnswer::Played => self.after_move(None),
            AiAnswer::Substituted(answer) => {
                // The search should always find a legal move while the game is on.
                tracing::warn!(?answer, "AI gave no legal move; played the first legal one");
                self.after_move(None);
            }
            AiAnswer::Stuck => tracing::warn!("AI answered in a game with no legal move"),
        }
        self.settle_analysis();
    }

    /// After anything that may have changed the position or who waits: sends the errors of
    /// waits that ended without an analysis, cancels an analysis nobody waits for any
    /// more, and starts one that members wait for.
    fn settle_analysis(&mut self) {
        let work = self.table.reconcile_analysis();
        self.running_analysis
            .cancel_unless(self.table.pending_analysis());
        self.reply(work.replies);
        if let Some(start) = work.start {
            self.start_analysis(start);
        }
    }

    fn start_analysis(&mut self, start: AnalysisStart) {
        let cancel = Arc::new(AtomicBool::new(false));
        let job = AiJob {
            job_id: start.job,
            room: self.table.id().clone(),
            priority: Priority::Analysis,
            ai: start.ai,
            position: start.position,
            move_time: self.context.config.ai_move_time,
            deadline: None,
            pace: Duration::ZERO,
            cancel: cancel.clone(),
            engine: None,
        };
        tracing::debug!(job = start.job.0, "analysis started");
        self.running_analysis.start(start.job, cancel);
        self.context
            .ai
            .spawn(job, self.shutdown.clone(), self.ai_done_tx.clone());
    }

    /// Sends each member its own answer to `analyze`; a connection that cannot take it is
    /// dropped, as for any event.
    fn reply(&mut self, replies: Vec<Reply>) {
        let dropped: Vec<SessionId> = replies
            .into_iter()
            .filter_map(|r| {
                (!self.audience.send_to(r.session, r.message, r.id)).then_some(r.session)
            })
            .collect();
        if !dropped.is_empty() {
            self.drop_connections(dropped);
            self.after_change(None);
        }
    }
}

/// Whether an AI's search proved its chosen move a draw or a loss for it: then it accepts
/// a draw offered in the position after it.
fn draw_or_worse(analysis: &inarow_engine::Analysis) -> bool {
    analysis.proven
        && analysis
            .moves
            .iter()
            .find(|m| Some(m.mv) == analysis.best)
            .is_some_and(|m| {
                matches!(
                    m.value,
                    inarow_engine::Value::Draw | inarow_engine::Value::Loss(_)
                )
            })
}

/// The wall-clock time in milliseconds since the Unix epoch, for game records (a clock
/// set before 1970 reads as 0).
fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// A job of the room's on the AI pool, and the flag that cancels its search.
#[derive(Default)]
struct Running(Option<(JobId, Arc<AtomicBool>)>);

impl Running {
    /// `job` is running, cancelled through `cancel`.
    fn start(&mut self, job: JobId, cancel: Arc<AtomicBool>) {
        self.0 = Some((job, cancel));
    }

    /// The job has answered: nothing runs.
    fn finished(&mut self) {
        self.0 = None;
    }

    /// Cancels the running job, if any.
    fn cancel(&mut self) {
        if let Some((_, cancel)) = self.0.take() {
            cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Cancels the running job unless it is `pending`, the one the table waits for.
    fn cancel_unless(&mut self, pending: Option<JobId>) {
        if self
            .0
            .as_ref()
            .is_some_and(|(job, _)| Some(*job) != pending)
        {
            self.cancel();
        }
    }
}

/// The room's task: AI answers, the desertion timer and the shutdown, until the room is
/// deserted for too long or the server shuts down; then closes it. Requests do not come
/// here: they run on the requester's task ([`super::RoomHandle`]).
pub(super) async fn run(shared: Arc<Shared>) {
    let Some((Some(mut answers), shutdown, id, lobby)) = shared.with_room(|room| {
        (
            room.take_answers(),
            room.shutdown.clone(),
            room.id().clone(),
            room.context.lobby.clone(),
        )
    }) else {
        return;
    };
    // Made once, not per wake-up: waiting on a token registers with it.
    let stopping = shutdown.cancelled();
    tokio::pin!(stopping);
    let reason = loop {
        // Armed before the deadline is read: a change after the read wakes us.
        let changed = shared.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let Some((deadline, flag_at)) =
            shared.with_room(|room| (room.closing_at(), room.clock_deadline()))
        else {
            break "failed";
        };
        tokio::select! {
            () = &mut stopping => break SHUTTING_DOWN,
            () = changed => {}
            () = sleep_until_some(flag_at) => {
                shared.with_room(Room::clock_due);
            }
            () = sleep_until_some(deadline) => {
                // Someone may have come in since the deadline was read.
                let now = Instant::now();
                if shared
                    .with_room(|room| room.closing_at().is_some_and(|at| at <= now))
                    .unwrap_or(true)
                {
                    break "nobody connected";
                }
            }
            Some(done) = answers.recv() => {
                shared.with_room(|room| room.ai_done(done));
            }
        }
    };
    match shared.close() {
        Some(room) => room.close(reason),
        None => {
            // A panic while the room was locked: it cannot be saved or used, but it must
            // not stay listed.
            lobby.remove(&id);
            tracing::error!("room failed while locked; closed");
        }
    }
}

/// How a game ended, in words, for its log line (the game itself is kept in full under
/// `kept_as`).
fn ending(status: StatusView) -> &'static str {
    match status {
        StatusView::Won { winner: Mark::X } => "X won",
        StatusView::Won { winner: Mark::O } => "O won",
        StatusView::Resigned { winner: Mark::X } => "X won, O resigned",
        StatusView::Resigned { winner: Mark::O } => "O won, X resigned",
        StatusView::Timeout { winner: Mark::X } => "X won on time",
        StatusView::Timeout { winner: Mark::O } => "O won on time",
        StatusView::Drawn => "drawn",
        StatusView::Agreed => "drawn by agreement",
        StatusView::Aborted => "aborted",
        // Not an ending; `game_over` reports only endings.
        StatusView::Waiting | StatusView::Playing { .. } => "unfinished",
    }
}
