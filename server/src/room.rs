//! A room: an actor task that owns one game, its seats and spectators, and its pending AI
//! job, and the cloneable handle through which connections talk to it.
//!
//! Every change is followed by one snapshot to everyone in the room, built and sent by the
//! actor itself, so everybody sees the same events in the same order.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use inarow_engine::{self as engine, Ai, Position};
use inarow_protocol::{
    ErrorCode, GameStatus, Level, Mark, Occupant, RequestId, RoomId, RoomSnapshot, SeatChoice,
    SeatInfo, SeatPlan, SeatRequest, ServerFrame, ServerMessage, SessionId, encode,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_util::sync::CancellationToken;

use crate::ai_worker::{self, AiDone, AiJob};
use crate::peer::Peer;
use crate::snapshot::{self, RoomFacts};
use crate::state::ServerState;
use crate::text;

/// Commands waiting for a room; senders wait when it is full, which only happens if the
/// room falls behind, and it never waits on anything itself.
const MAILBOX: usize = 64;
/// How long a connection waits for a room to take a command before giving up.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// A request refused, with the error code and message the requester gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// Stable code.
    pub(crate) code: ErrorCode,
    /// For people.
    pub(crate) message: String,
}

impl Refusal {
    /// A refusal with `code` and `message`.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    fn unknown_room(id: &RoomId) -> Refusal {
        Refusal::new(ErrorCode::UnknownRoom, format!("no room {id}"))
    }
}

/// A session entering a room (or resuming in it) from one connection.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// The session.
    pub(crate) session: SessionId,
    /// Its display name.
    pub(crate) name: String,
    /// Its current connection.
    pub(crate) peer: Peer,
}

/// What a session asks of a room.
#[derive(Debug)]
pub(crate) enum Request {
    /// Watch (`seat` None) or take a seat.
    Join {
        /// Who joins.
        member: Member,
        /// The seat asked for.
        seat: Option<SeatChoice>,
    },
    /// Leave the room and any seat in it.
    Leave,
    /// Seat an AI or free a seat.
    SetSeat {
        /// The seat.
        seat: Mark,
        /// The AI to seat; `None` frees the seat.
        ai: Option<Level>,
    },
    /// Place a stone.
    Play {
        /// The ply the move is meant for.
        ply: u32,
        /// The move in notation.
        mv: String,
    },
    /// Give up the game.
    Resign,
    /// Ask for another game.
    Rematch,
    /// Say something.
    Chat {
        /// The line.
        text: String,
    },
}

enum Command {
    Request {
        session: SessionId,
        id: Option<RequestId>,
        request: Request,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    Resume {
        member: Member,
        reply: oneshot::Sender<bool>,
    },
    Detach {
        session: SessionId,
        conn_id: u64,
    },
    Expire {
        session: SessionId,
    },
}

/// A cloneable handle on a room actor.
#[derive(Clone)]
pub(crate) struct RoomHandle {
    id: RoomId,
    commands: mpsc::Sender<Command>,
}

impl RoomHandle {
    async fn send(&self, command: Command) -> bool {
        matches!(
            tokio::time::timeout(SEND_TIMEOUT, self.commands.send(command)).await,
            Ok(Ok(()))
        )
    }

    /// Sends a request; on success the room has already queued its answer (a snapshot or
    /// chat line carrying `id`) to the requester, except for `Leave`, whose `left` the
    /// caller sends.
    pub(crate) async fn request(
        &self,
        session: SessionId,
        id: Option<RequestId>,
        request: Request,
    ) -> Result<(), Refusal> {
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            session,
            id,
            request,
            reply,
        };
        if !self.send(command).await {
            return Err(Refusal::unknown_room(&self.id));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(Refusal::unknown_room(&self.id)))
    }

    /// Re-attaches a resumed session; the room sends it a snapshot. False if the session
    /// no longer has a place in the room.
    pub(crate) async fn resume(&self, member: Member) -> bool {
        let (reply, answer) = oneshot::channel();
        if !self.send(Command::Resume { member, reply }).await {
            return false;
        }
        answer.await.unwrap_or(false)
    }

    /// Tells the room that connection `conn_id` of `session` has ended: seats are held,
    /// a spectator place is dropped. Ignored if the session has a newer connection.
    pub(crate) async fn detach(&self, session: SessionId, conn_id: u64) {
        self.send(Command::Detach { session, conn_id }).await;
    }

    /// Tells the room that `session` expired: its held seats become empty.
    pub(crate) async fn expire(&self, session: SessionId) {
        self.send(Command::Expire { session }).await;
    }
}

/// How to set up a new room.
#[derive(Debug, Clone)]
pub(crate) struct RoomSpec {
    /// Display name.
    pub(crate) name: String,
    /// Validated rules.
    pub(crate) rules: engine::Rules,
    /// Who sits where; `Me` in at most one seat.
    pub(crate) seats: SeatPlan,
    /// Hidden from the lobby.
    pub(crate) private: bool,
}

/// Opens a room: registers it in the lobby and starts its actor, which sends the creator
/// (seated where the plan says `Me`, else watching) the first snapshot, carrying `id`.
pub(crate) fn open(
    state: &Arc<ServerState>,
    spec: RoomSpec,
    creator: Member,
    id: Option<RequestId>,
) -> Result<RoomId, Refusal> {
    let (tx, rx) = mpsc::channel(MAILBOX);
    let handle = state
        .lobby
        .register(|room_id| RoomHandle {
            id: room_id,
            commands: tx,
        })
        .map_err(|_| {
            Refusal::new(
                ErrorCode::TooManyRooms,
                format!(
                    "the server has {} rooms open, its limit",
                    state.config.max_rooms
                ),
            )
        })?;
    let room_id = handle.id.clone();
    let actor = RoomActor::new(room_id.clone(), spec, creator, state.clone());
    tracing::info!(room = %room_id, name = %actor.name, private = actor.private, "room created");
    state.tracker.spawn(actor.run(rx, id));
    Ok(room_id)
}

/// Who sits in a seat.
enum Seat {
    Empty,
    Human { session: SessionId, rematch: bool },
    Ai { level: Level, engine: Engine },
}

/// An AI seat's player: at home between moves, or away in job `n`.
enum Engine {
    Idle(Box<Ai>),
    Busy(u64),
}

struct MemberState {
    name: String,
    /// `None` while the session's connection is down (a held seat).
    peer: Option<Peer>,
}

struct PendingAi {
    job_id: u64,
    game: u32,
    ply: usize,
    mark: Mark,
    cancel: Arc<AtomicBool>,
}

/// How a request turned out.
enum Outcome {
    /// The room changed: everybody gets a snapshot.
    Changed,
    /// Nothing changed: the requester gets the current snapshot again.
    Unchanged,
    /// The requester left.
    Left,
    /// A chat line to broadcast.
    Chat(String),
}

fn seat_index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

fn new_ai(level: Level) -> Box<Ai> {
    // A v4 uuid is 122 random bits from the OS: a convenient seed source.
    let seed = uuid::Uuid::new_v4().as_u64_pair().0;
    Box::new(Ai::new(snapshot::engine_level(level), seed))
}

fn seat_from_plan(request: SeatRequest, creator: SessionId) -> Seat {
    match request {
        SeatRequest::Me => Seat::Human {
            session: creator,
            rematch: false,
        },
        SeatRequest::Open => Seat::Empty,
        SeatRequest::Ai { level } => Seat::Ai {
            level,
            engine: Engine::Idle(new_ai(level)),
        },
    }
}

/// The actor: owns everything about one room.
struct RoomActor {
    id: RoomId,
    name: String,
    private: bool,
    seq: u64,
    game: u32,
    position: Position,
    resigned: Option<Mark>,
    over_announced: bool,
    seats: [Seat; 2],
    members: HashMap<SessionId, MemberState>,
    /// Spectators in the order they came (for the snapshot's list of names).
    spectators: Vec<SessionId>,
    ai_job: Option<PendingAi>,
    next_job: u64,
    ai_done_tx: mpsc::Sender<AiDone>,
    ai_done_rx: mpsc::Receiver<AiDone>,
    /// Since when nobody connected has been in the room.
    deserted_since: Option<Instant>,
    token: CancellationToken,
    state: Arc<ServerState>,
}

impl RoomActor {
    fn new(id: RoomId, spec: RoomSpec, creator: Member, state: Arc<ServerState>) -> RoomActor {
        let (ai_done_tx, ai_done_rx) = mpsc::channel(4);
        let creator_id = creator.session;
        let seats = [
            seat_from_plan(spec.seats.x, creator_id),
            seat_from_plan(spec.seats.o, creator_id),
        ];
        let seated = seats
            .iter()
            .any(|s| matches!(s, Seat::Human { session, .. } if *session == creator_id));
        let mut members = HashMap::new();
        members.insert(
            creator_id,
            MemberState {
                name: creator.name,
                peer: Some(creator.peer),
            },
        );
        RoomActor {
            id,
            name: spec.name,
            private: spec.private,
            seq: 0,
            game: 1,
            position: Position::new(spec.rules),
            resigned: None,
            over_announced: false,
            seats,
            members,
            spectators: if seated { Vec::new() } else { vec![creator_id] },
            ai_job: None,
            next_job: 1,
            ai_done_tx,
            ai_done_rx,
            deserted_since: None,
            token: state.shutdown.child_token(),
            state,
        }
    }

    async fn run(mut self, mut commands: mpsc::Receiver<Command>, first_id: Option<RequestId>) {
        let creator = self.members.keys().next().copied();
        self.after_change(creator.map(|s| (s, first_id)));
        loop {
            self.note_desertion();
            let deadline = self
                .deserted_since
                .map(|t| t + self.state.config.room_idle_timeout);
            tokio::select! {
                () = self.token.cancelled() => break,
                () = sleep_until_some(deadline) => {
                    tracing::info!(room = %self.id, "room closed: nobody connected");
                    break;
                }
                command = commands.recv() => match command {
                    Some(command) => self.handle(command),
                    None => break,
                },
                Some(done) = self.ai_done_rx.recv() => self.ai_done(done),
            }
        }
        self.cancel_ai();
        self.state.lobby.remove(&self.id);
        tracing::debug!(room = %self.id, "room actor ended");
    }

    fn note_desertion(&mut self) {
        let someone = self.members.values().any(|m| m.peer.is_some());
        match (someone, self.deserted_since) {
            (true, _) => self.deserted_since = None,
            (false, None) => self.deserted_since = Some(Instant::now()),
            (false, Some(_)) => {}
        }
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Request {
                session,
                id,
                request,
                reply,
            } => {
                let result = self.request(session, request);
                let answer = match result {
                    Ok(Outcome::Changed) => {
                        self.after_change(Some((session, id)));
                        Ok(())
                    }
                    Ok(Outcome::Unchanged) => {
                        self.send_snapshot_to(session, id);
                        Ok(())
                    }
                    Ok(Outcome::Left) => {
                        self.after_change(None);
                        Ok(())
                    }
                    Ok(Outcome::Chat(text)) => {
                        self.broadcast_chat(session, id, text);
                        Ok(())
                    }
                    Err(refusal) => Err(refusal),
                };
                let _ = reply.send(answer);
            }
            Command::Resume { member, reply } => {
                let session = member.session;
                let present = self.members.contains_key(&session);
                if present {
                    if self.attach(member) {
                        self.after_change(None);
                    } else {
                        self.send_snapshot_to(session, None);
                    }
                }
                let _ = reply.send(present);
            }
            Command::Detach { session, conn_id } => {
                let ours = self
                    .members
                    .get(&session)
                    .and_then(|m| m.peer.as_ref())
                    .is_some_and(|p| p.conn_id == conn_id);
                if ours {
                    self.drop_connection(session);
                    self.after_change(None);
                }
            }
            Command::Expire { session } => {
                let held = self.members.get(&session).is_some_and(|m| m.peer.is_none());
                if held {
                    for seat in &mut self.seats {
                        if matches!(seat, Seat::Human { session: s, .. } if *s == session) {
                            *seat = Seat::Empty;
                        }
                    }
                    self.members.remove(&session);
                    self.spectators.retain(|s| *s != session);
                    tracing::debug!(room = %self.id, %session, "held seat released");
                    self.after_change(None);
                }
            }
        }
    }

    /// Marks a member's connection as gone: a seat is held, a spectator place dropped.
    fn drop_connection(&mut self, session: SessionId) {
        if let Some(m) = self.members.get_mut(&session) {
            m.peer = None;
        }
        if self.seat_of(session).is_none() {
            self.members.remove(&session);
            self.spectators.retain(|s| *s != session);
        }
    }

    /// Sets a member's connection and name; true if that changes what others see.
    fn attach(&mut self, member: Member) -> bool {
        let seated = self.seat_of(member.session).is_some();
        match self.members.get_mut(&member.session) {
            Some(m) => {
                if m.peer
                    .as_ref()
                    .is_some_and(|p| p.conn_id > member.peer.conn_id)
                {
                    // A request that a replaced connection sent before it was closed:
                    // the session's newer connection keeps receiving.
                    return false;
                }
                let visible = seated && (m.peer.is_none() || m.name != member.name);
                m.peer = Some(member.peer);
                m.name = member.name;
                visible
            }
            None => {
                self.members.insert(
                    member.session,
                    MemberState {
                        name: member.name,
                        peer: Some(member.peer),
                    },
                );
                true
            }
        }
    }

    fn seat_of(&self, session: SessionId) -> Option<Mark> {
        [Mark::X, Mark::O].into_iter().find(|m| {
            matches!(&self.seats[seat_index(*m)], Seat::Human { session: s, .. } if *s == session)
        })
    }

    fn seats_filled(&self) -> bool {
        self.seats.iter().all(|s| !matches!(s, Seat::Empty))
    }

    fn status(&self) -> GameStatus {
        snapshot::status(&self.position, self.resigned, self.seats_filled())
    }

    fn request(&mut self, session: SessionId, request: Request) -> Result<Outcome, Refusal> {
        // Joining is how one gets into a room; everything else needs to be in it.
        let joining = matches!(request, Request::Join { .. });
        if !joining && !self.members.contains_key(&session) {
            return Err(Refusal::new(
                ErrorCode::NotInRoom,
                format!("you are not in room {}", self.id),
            ));
        }
        match request {
            Request::Join { member, seat } => self.join(member, seat),
            Request::Leave => {
                if let Some(mark) = self.seat_of(session) {
                    self.set_seat(mark, Seat::Empty);
                }
                self.members.remove(&session);
                self.spectators.retain(|s| *s != session);
                Ok(Outcome::Left)
            }
            Request::SetSeat { seat, ai } => self.change_seat(session, seat, ai),
            Request::Play { ply, mv } => self.play(session, ply, &mv),
            Request::Resign => {
                let mark = self.player(session)?;
                self.in_progress()?;
                self.resigned = Some(mark.other());
                Ok(Outcome::Changed)
            }
            Request::Rematch => self.rematch(session),
            Request::Chat { text } => text::chat_text(&text, self.state.config.max_chat_chars)
                .map(Outcome::Chat)
                .map_err(|m| Refusal::new(ErrorCode::InvalidChat, m)),
        }
    }

    fn player(&self, session: SessionId) -> Result<Mark, Refusal> {
        self.seat_of(session).ok_or_else(|| {
            Refusal::new(
                ErrorCode::NotAPlayer,
                "you watch this room; take a seat to play",
            )
        })
    }

    fn in_progress(&self) -> Result<Mark, Refusal> {
        match self.status() {
            GameStatus::Playing { turn } => Ok(turn),
            GameStatus::Waiting => Err(Refusal::new(
                ErrorCode::GameNotInProgress,
                "the game waits for a player to take the empty seat",
            )),
            _ => Err(Refusal::new(
                ErrorCode::GameNotInProgress,
                "the game is over",
            )),
        }
    }

    fn join(&mut self, member: Member, choice: Option<SeatChoice>) -> Result<Outcome, Refusal> {
        let session = member.session;
        let seated = self.seat_of(session);
        let Some(choice) = choice else {
            if seated.is_some() || self.spectators.contains(&session) {
                return Ok(self.reattach(member));
            }
            self.attach(member);
            self.spectators.push(session);
            return Ok(Outcome::Changed);
        };
        let target = match choice {
            SeatChoice::X => Mark::X,
            SeatChoice::O => Mark::O,
            SeatChoice::Any => {
                if seated.is_some() {
                    return Ok(self.reattach(member));
                }
                [Mark::X, Mark::O]
                    .into_iter()
                    .find(|m| matches!(self.seats[seat_index(*m)], Seat::Empty))
                    .ok_or_else(|| Refusal::new(ErrorCode::RoomFull, "both seats are taken"))?
            }
        };
        if seated == Some(target) {
            return Ok(self.reattach(member));
        }
        if !matches!(self.seats[seat_index(target)], Seat::Empty) {
            return Err(Refusal::new(
                ErrorCode::SeatTaken,
                format!("seat {target} is taken"),
            ));
        }
        if let Some(mine) = seated {
            return Err(Refusal::new(
                ErrorCode::AlreadySeated,
                format!("you already play {mine} in this room"),
            ));
        }
        self.attach(member);
        self.spectators.retain(|s| *s != session);
        self.seats[seat_index(target)] = Seat::Human {
            session,
            rematch: false,
        };
        Ok(Outcome::Changed)
    }

    /// A join that asks for what the member already has: refresh its connection.
    fn reattach(&mut self, member: Member) -> Outcome {
        if self.attach(member) {
            Outcome::Changed
        } else {
            Outcome::Unchanged
        }
    }

    /// Replaces a seat's occupant, cancelling an AI job of that seat.
    fn set_seat(&mut self, mark: Mark, seat: Seat) {
        if self.ai_job.as_ref().is_some_and(|j| j.mark == mark) {
            self.cancel_ai();
        }
        self.seats[seat_index(mark)] = seat;
    }

    fn change_seat(
        &mut self,
        session: SessionId,
        mark: Mark,
        ai: Option<Level>,
    ) -> Result<Outcome, Refusal> {
        match &self.seats[seat_index(mark)] {
            Seat::Human { session: s, .. } if *s != session => {
                return Err(Refusal::new(
                    ErrorCode::SeatTaken,
                    format!("seat {mark} is held by another player"),
                ));
            }
            Seat::Empty if ai.is_none() => return Ok(Outcome::Unchanged),
            _ => {}
        }
        let was_mine = self.seat_of(session) == Some(mark);
        let seat = match ai {
            Some(level) => Seat::Ai {
                level,
                engine: Engine::Idle(new_ai(level)),
            },
            None => Seat::Empty,
        };
        self.set_seat(mark, seat);
        if was_mine {
            // Giving up your seat keeps you in the room, watching.
            self.spectators.push(session);
        }
        Ok(Outcome::Changed)
    }

    fn play(&mut self, session: SessionId, ply: u32, text: &str) -> Result<Outcome, Refusal> {
        let mark = self.player(session)?;
        let turn = self.in_progress()?;
        if turn != mark {
            return Err(Refusal::new(
                ErrorCode::NotYourTurn,
                format!("it is {turn}'s turn"),
            ));
        }
        let current = self.position.ply();
        if usize::try_from(ply).ok() != Some(current) {
            return Err(Refusal::new(
                ErrorCode::StalePly,
                format!("the move was meant for ply {ply}; the game is at ply {current}"),
            ));
        }
        let mv = self
            .position
            .rules()
            .parse_move(text)
            .map_err(|e| Refusal::new(ErrorCode::IllegalMove, e.message))?;
        self.position
            .try_play(mv)
            .map_err(|e| Refusal::new(ErrorCode::IllegalMove, format!("{text}: {e}")))?;
        Ok(Outcome::Changed)
    }

    fn rematch(&mut self, session: SessionId) -> Result<Outcome, Refusal> {
        let mark = self.player(session)?;
        if !self.status().is_over() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "a rematch can be asked once the game is over",
            ));
        }
        match &mut self.seats[seat_index(mark)] {
            Seat::Human { rematch: true, .. } => return Ok(Outcome::Unchanged),
            Seat::Human { rematch, .. } => *rematch = true,
            _ => {}
        }
        let everyone = self
            .seats
            .iter()
            .all(|s| !matches!(s, Seat::Human { rematch: false, .. }));
        if everyone {
            self.seats.swap(0, 1);
            for seat in &mut self.seats {
                if let Seat::Human { rematch, .. } = seat {
                    *rematch = false;
                }
            }
            self.position = Position::new(self.position.rules());
            self.resigned = None;
            self.over_announced = false;
            self.game = self.game.saturating_add(1);
            tracing::debug!(room = %self.id, game = self.game, "rematch started");
        }
        Ok(Outcome::Changed)
    }

    /// After a change: start or cancel AI work, announce a finished game, and send
    /// everybody the new snapshot (the requester's copy carrying its request id).
    fn after_change(&mut self, requester: Option<(SessionId, Option<RequestId>)>) {
        self.reconcile_ai();
        let status = self.status();
        if status.is_over() && !self.over_announced {
            self.over_announced = true;
            tracing::info!(room = %self.id, game = self.game, result = ?status, "game over");
        }
        self.broadcast(requester);
    }

    fn snapshot(&self) -> RoomSnapshot {
        let over = self.status().is_over();
        let seats = [Mark::X, Mark::O]
            .into_iter()
            .map(|mark| match &self.seats[seat_index(mark)] {
                Seat::Empty => SeatInfo {
                    mark,
                    occupant: Occupant::Empty,
                    rematch: false,
                },
                Seat::Human { session, rematch } => {
                    let member = self.members.get(session);
                    SeatInfo {
                        mark,
                        occupant: Occupant::Human {
                            name: member.map(|m| m.name.clone()).unwrap_or_default(),
                            session: *session,
                            connected: member.is_some_and(|m| m.peer.is_some()),
                        },
                        rematch: *rematch,
                    }
                }
                Seat::Ai { level, .. } => SeatInfo {
                    mark,
                    occupant: Occupant::Ai {
                        level: *level,
                        thinking: self.ai_job.as_ref().is_some_and(|j| j.mark == mark),
                    },
                    rematch: over,
                },
            })
            .collect();
        let spectators = self
            .spectators
            .iter()
            .filter_map(|s| self.members.get(s).map(|m| m.name.clone()))
            .collect();
        snapshot::snapshot(RoomFacts {
            id: &self.id,
            name: &self.name,
            private: self.private,
            seq: self.seq,
            game: self.game,
            seats,
            position: &self.position,
            resigned: self.resigned,
            spectators,
        })
    }

    /// Sends one event to everybody connected; a connection whose queue is full is dropped
    /// (and told to go), which is itself a change, so it repeats until everyone took it.
    fn broadcast(&mut self, mut requester: Option<(SessionId, Option<RequestId>)>) {
        loop {
            self.seq += 1;
            let snapshot = self.snapshot();
            let frame = |id| {
                encode(&ServerFrame {
                    message: ServerMessage::Room {
                        room: Box::new(snapshot.clone()),
                    },
                    id,
                })
            };
            let dropped = self.fan_out(Utf8Bytes::from(frame(None)), requester.take(), frame);
            self.publish(&snapshot);
            if dropped.is_empty() {
                return;
            }
            for session in dropped {
                self.drop_connection(session);
            }
        }
    }

    /// Queues `common` to every connected member, or `own(id)` to the requester when its
    /// request carried an id; returns the members whose connection could not take it.
    fn fan_out(
        &self,
        common: Utf8Bytes,
        requester: Option<(SessionId, Option<RequestId>)>,
        own: impl Fn(Option<RequestId>) -> String,
    ) -> Vec<SessionId> {
        let mut dropped = Vec::new();
        for (session, member) in &self.members {
            let Some(peer) = &member.peer else { continue };
            let message = match &requester {
                Some((s, Some(id))) if s == session => Message::text(own(Some(id.clone()))),
                _ => Message::Text(common.clone()),
            };
            if peer.send_raw(message).is_err() {
                dropped.push(*session);
            }
        }
        dropped
    }

    fn publish(&self, snapshot: &RoomSnapshot) {
        let summary = (!self.private).then(|| snapshot::summary(snapshot));
        self.state.lobby.publish(&self.id, summary);
    }

    fn send_snapshot_to(&mut self, session: SessionId, id: Option<RequestId>) {
        let Some(peer) = self.members.get(&session).and_then(|m| m.peer.clone()) else {
            return;
        };
        let message = ServerMessage::Room {
            room: Box::new(self.snapshot()),
        };
        if peer.send(message, id).is_err() {
            self.drop_connection(session);
            self.after_change(None);
        }
    }

    fn broadcast_chat(&mut self, session: SessionId, id: Option<RequestId>, text: String) {
        self.seq += 1;
        let from = self
            .members
            .get(&session)
            .map(|m| m.name.clone())
            .unwrap_or_default();
        let chat = |id| {
            encode(&ServerFrame {
                message: ServerMessage::Chat {
                    room: self.id.clone(),
                    seq: self.seq,
                    from: from.clone(),
                    seat: self.seat_of(session),
                    text: text.clone(),
                },
                id,
            })
        };
        let dropped = self.fan_out(Utf8Bytes::from(chat(None)), Some((session, id)), chat);
        if !dropped.is_empty() {
            for session in dropped {
                self.drop_connection(session);
            }
            self.after_change(None);
        }
    }

    /// Starts the AI job the position needs, and cancels one it no longer needs.
    fn reconcile_ai(&mut self) {
        let wanted = match self.status() {
            GameStatus::Playing { turn }
                if matches!(self.seats[seat_index(turn)], Seat::Ai { .. }) =>
            {
                Some(turn)
            }
            _ => None,
        };
        if let Some(job) = &self.ai_job {
            if Some(job.mark) == wanted && job.game == self.game && job.ply == self.position.ply() {
                return;
            }
            self.cancel_ai();
        }
        let Some(mark) = wanted else { return };
        let job_id = self.next_job;
        self.next_job += 1;
        let Seat::Ai { level, engine } = &mut self.seats[seat_index(mark)] else {
            return;
        };
        let ai = match std::mem::replace(engine, Engine::Busy(job_id)) {
            Engine::Idle(ai) => ai,
            // Its player is still away on a cancelled job: start afresh.
            Engine::Busy(_) => new_ai(*level),
        };
        let both_ai = self.seats.iter().all(|s| matches!(s, Seat::Ai { .. }));
        let cancel = Arc::new(AtomicBool::new(false));
        self.ai_job = Some(PendingAi {
            job_id,
            game: self.game,
            ply: self.position.ply(),
            mark,
            cancel: cancel.clone(),
        });
        let config = &self.state.config;
        ai_worker::spawn(
            AiJob {
                job_id,
                ai,
                position: self.position.clone(),
                move_time: config.ai_move_time,
                pace: if both_ai {
                    config.ai_pace
                } else {
                    Duration::ZERO
                },
                cancel,
            },
            self.state.ai_slots.clone(),
            &self.state.tracker,
            self.token.clone(),
            self.ai_done_tx.clone(),
        );
    }

    fn cancel_ai(&mut self) {
        if let Some(job) = self.ai_job.take() {
            job.cancel.store(true, Ordering::Relaxed);
        }
    }

    fn ai_done(&mut self, done: AiDone) {
        for seat in &mut self.seats {
            if let Seat::Ai { engine, .. } = seat
                && matches!(engine, Engine::Busy(id) if *id == done.job_id)
                && let Some(ai) = done.ai
            {
                *engine = Engine::Idle(ai);
                break;
            }
        }
        let current = self
            .ai_job
            .as_ref()
            .is_some_and(|j| j.job_id == done.job_id);
        if !current {
            return;
        }
        self.ai_job = None;
        let legal = self.position.legal_moves();
        let mv = match done.mv {
            Some(mv) if legal.contains(&mv) => mv,
            other => {
                // The search should always find a legal move while the game is on; if it
                // did not, play one anyway so the game cannot stall on a broken search.
                tracing::warn!(room = %self.id, answer = ?other, "AI gave no legal move");
                match legal.first() {
                    Some(mv) => *mv,
                    None => return,
                }
            }
        };
        if let Err(e) = self.position.try_play(mv) {
            tracing::warn!(room = %self.id, error = %e, "AI move refused");
            return;
        }
        self.after_change(None);
    }
}

async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use inarow_protocol::{ByeReason, decode_server};
    use uuid::Uuid;

    use super::*;
    use crate::config::Config;
    use crate::peer::Kick;

    const WAIT: Duration = Duration::from_secs(10);

    fn server(config: Config) -> Arc<ServerState> {
        Arc::new(ServerState::new(config, CancellationToken::new()))
    }

    /// A session with a connection whose queue the test reads.
    struct Person {
        member: Member,
        queue: mpsc::Receiver<Message>,
        kick: Arc<Kick>,
    }

    impl Person {
        fn new(name: &str, conn_id: u64, capacity: usize) -> Person {
            let (tx, queue) = mpsc::channel(capacity);
            let kick = Arc::new(Kick::default());
            Person {
                member: Member {
                    session: SessionId(Uuid::new_v4()),
                    name: name.to_owned(),
                    peer: Peer::new(conn_id, tx, kick.clone()),
                },
                queue,
                kick,
            }
        }

        fn session(&self) -> SessionId {
            self.member.session
        }

        async fn frame(&mut self) -> ServerFrame {
            let message = tokio::time::timeout(WAIT, self.queue.recv())
                .await
                .expect("a frame within the timeout")
                .expect("the queue is open");
            match message {
                Message::Text(text) => decode_server(text.as_str()).expect("valid server frame"),
                other => panic!("expected text, got {other:?}"),
            }
        }

        async fn snapshot(&mut self) -> RoomSnapshot {
            match self.frame().await.message {
                ServerMessage::Room { room } => *room,
                other => panic!("expected a snapshot, got {other:?}"),
            }
        }

        /// The last snapshot queued (waiting for one if none is).
        async fn latest(&mut self) -> RoomSnapshot {
            let mut last = self.snapshot().await;
            while let Ok(Message::Text(t)) = self.queue.try_recv() {
                if let ServerMessage::Room { room } =
                    decode_server(t.as_str()).expect("valid").message
                {
                    last = *room;
                }
            }
            last
        }

        fn nothing_queued(&mut self) -> bool {
            self.queue.try_recv().is_err()
        }
    }

    /// Opens a public tic-tac-toe room created by `creator` with seats `x` and `o`, and
    /// returns its handle from the directory.
    fn open_room(
        state: &Arc<ServerState>,
        creator: &Person,
        x: SeatRequest,
        o: SeatRequest,
    ) -> RoomHandle {
        let spec = RoomSpec {
            name: "test".into(),
            rules: engine::Rules::tictactoe(),
            seats: SeatPlan { x, o },
            private: false,
        };
        let id = open(state, spec, creator.member.clone(), None).expect("room opens");
        state.lobby.get(&id).expect("room is listed")
    }

    fn code(result: Result<(), Refusal>) -> Option<ErrorCode> {
        result.err().map(|r| r.code)
    }

    async fn play(room: &RoomHandle, who: &Person, ply: u32, mv: &str) -> Result<(), Refusal> {
        let request = Request::Play {
            ply,
            mv: mv.to_owned(),
        };
        room.request(who.session(), None, request).await
    }

    async fn join(
        room: &RoomHandle,
        who: &Person,
        seat: Option<SeatChoice>,
    ) -> Result<(), Refusal> {
        let request = Request::Join {
            member: who.member.clone(),
            seat,
        };
        room.request(who.session(), None, request).await
    }

    #[tokio::test]
    async fn seats_are_taken_in_the_documented_order() {
        let state = server(Config::default());
        let mut ann = Person::new("ann", 1, 64);
        let mut bob = Person::new("bob", 2, 64);
        let mut cy = Person::new("cy", 3, 64);
        let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
        let first = ann.snapshot().await;
        assert_eq!((first.seq, first.status.clone()), (1, GameStatus::Waiting));

        assert_eq!(code(join(&room, &bob, Some(SeatChoice::O)).await), None);
        let s = ann.snapshot().await;
        assert_eq!(s.status, GameStatus::Playing { turn: Mark::X });
        assert_eq!(bob.snapshot().await, s);

        assert_eq!(
            code(join(&room, &cy, Some(SeatChoice::Any)).await),
            Some(ErrorCode::RoomFull)
        );
        assert_eq!(
            code(join(&room, &cy, Some(SeatChoice::X)).await),
            Some(ErrorCode::SeatTaken)
        );
        assert_eq!(
            code(join(&room, &ann, Some(SeatChoice::O)).await),
            Some(ErrorCode::SeatTaken)
        );
        assert!(ann.nothing_queued(), "refusals send no snapshot");

        assert_eq!(code(join(&room, &cy, None).await), None);
        let s = cy.snapshot().await;
        assert_eq!(s.spectators, vec!["cy"]);
        assert_eq!(s.seq, 3);
        assert_eq!(ann.snapshot().await, s);

        assert_eq!(
            code(room.request(bob.session(), None, Request::Leave).await),
            None
        );
        let s = ann.snapshot().await;
        assert!(matches!(s.seats[1].occupant, Occupant::Empty));
        assert_eq!(s.status, GameStatus::Waiting);
        assert_eq!(
            code(join(&room, &ann, Some(SeatChoice::O)).await),
            Some(ErrorCode::AlreadySeated)
        );
        assert_eq!(
            code(room.request(bob.session(), None, Request::Leave).await),
            Some(ErrorCode::NotInRoom)
        );

        // A spectator who takes a seat stops watching; "any" finds the free O seat.
        assert_eq!(code(join(&room, &cy, Some(SeatChoice::Any)).await), None);
        let s = cy.latest().await;
        assert!(s.spectators.is_empty());
        assert!(matches!(&s.seats[1].occupant, Occupant::Human { name, .. } if name == "cy"));
        // Asking again for the seat you hold only resends the snapshot, to you alone.
        assert_eq!(code(join(&room, &cy, Some(SeatChoice::O)).await), None);
        assert_eq!(cy.snapshot().await.seq, s.seq);
        assert_eq!(ann.latest().await.seq, s.seq);
        assert!(ann.nothing_queued());
    }

    #[tokio::test]
    async fn play_checks_its_refusals_in_order_and_refusals_change_nothing() {
        let state = server(Config::default());
        let mut ann = Person::new("ann", 1, 64);
        let mut bob = Person::new("bob", 2, 64);
        let cy = Person::new("cy", 3, 64);
        let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
        ann.snapshot().await;
        assert_eq!(
            code(play(&room, &cy, 0, "a1").await),
            Some(ErrorCode::NotInRoom)
        );
        assert_eq!(
            code(play(&room, &ann, 0, "a1").await),
            Some(ErrorCode::GameNotInProgress)
        );
        join(&room, &bob, Some(SeatChoice::O))
            .await
            .expect("bob sits");
        join(&room, &cy, None).await.expect("cy watches");
        assert_eq!(
            code(play(&room, &cy, 0, "a1").await),
            Some(ErrorCode::NotAPlayer)
        );
        assert_eq!(
            code(play(&room, &bob, 0, "a1").await),
            Some(ErrorCode::NotYourTurn)
        );
        assert_eq!(
            code(play(&room, &ann, 1, "a1").await),
            Some(ErrorCode::StalePly)
        );
        assert_eq!(
            code(play(&room, &ann, 0, "z9").await),
            Some(ErrorCode::IllegalMove)
        );
        assert_eq!(
            code(play(&room, &ann, 0, "nonsense").await),
            Some(ErrorCode::IllegalMove)
        );
        let before = ann.latest().await;
        assert_eq!(before.spectators, vec!["cy"]);
        assert!(ann.nothing_queued(), "refusals send nothing");

        play(&room, &ann, 0, "b2").await.expect("legal");
        let after = ann.snapshot().await;
        assert_eq!(after.seq, before.seq + 1);
        assert_eq!(after.board, vec!["...", ".X.", "..."]);
        assert_eq!(
            code(play(&room, &bob, 1, "b2").await),
            Some(ErrorCode::IllegalMove)
        );
        // Bob saw the same events in the same order.
        let mut seen = Vec::new();
        while let Ok(Message::Text(t)) = bob.queue.try_recv() {
            seen.push(decode_server(t.as_str()).expect("valid"));
        }
        let last = seen.last().expect("bob got snapshots");
        assert!(matches!(&last.message, ServerMessage::Room { room } if **room == after));
    }

    #[tokio::test]
    async fn a_rematch_swaps_the_seats_once_both_players_ask() {
        let state = server(Config::default());
        let mut ann = Person::new("ann", 1, 64);
        let bob = Person::new("bob", 2, 64);
        let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
        join(&room, &bob, Some(SeatChoice::O))
            .await
            .expect("bob sits");
        assert_eq!(
            code(room.request(ann.session(), None, Request::Rematch).await),
            Some(ErrorCode::GameInProgress)
        );
        for (ply, (who, mv)) in [
            (&ann, "a1"),
            (&bob, "a2"),
            (&ann, "b1"),
            (&bob, "b2"),
            (&ann, "c1"),
        ]
        .into_iter()
        .enumerate()
        {
            play(&room, who, u32::try_from(ply).expect("small"), mv)
                .await
                .expect("legal");
        }
        room.request(ann.session(), None, Request::Rematch)
            .await
            .expect("rematch");
        room.request(bob.session(), Some(RequestId::Number(5)), Request::Rematch)
            .await
            .expect("rematch");
        let last = ann.latest().await;
        assert_eq!(last.game, 2);
        assert_eq!(last.ply, 0);
        assert_eq!(last.status, GameStatus::Playing { turn: Mark::X });
        assert!(matches!(&last.seats[0].occupant, Occupant::Human { name, .. } if name == "bob"));
        assert!(matches!(&last.seats[1].occupant, Occupant::Human { name, .. } if name == "ann"));
        assert!(last.seats.iter().all(|s| !s.rematch));
    }

    #[tokio::test]
    async fn a_member_whose_queue_is_full_is_kicked_and_its_seat_held() {
        let state = server(Config::default());
        let mut ann = Person::new("ann", 1, 64);
        // Room for one frame: bob's join snapshot fills it.
        let bob = Person::new("bob", 2, 1);
        let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
        join(&room, &bob, Some(SeatChoice::O))
            .await
            .expect("bob sits");
        ann.snapshot().await;
        ann.snapshot().await;
        assert!(bob.kick.reason().is_none());
        play(&room, &ann, 0, "b2").await.expect("legal");
        assert_eq!(bob.kick.reason(), Some(ByeReason::TooSlow));
        let moved = ann.snapshot().await;
        assert_eq!(moved.ply, 1);
        let dropped = ann.snapshot().await;
        assert_eq!(dropped.seq, moved.seq + 1);
        assert!(matches!(
            dropped.seats[1].occupant,
            Occupant::Human {
                connected: false,
                ..
            }
        ));
        assert_eq!(
            dropped.status,
            GameStatus::Playing { turn: Mark::O },
            "the seat is held"
        );
    }

    #[tokio::test]
    async fn a_room_with_nobody_connected_closes_and_leaves_the_lobby() {
        let state = server(Config {
            room_idle_timeout: Duration::from_millis(50),
            ..Config::default()
        });
        let mut ann = Person::new("ann", 7, 64);
        let room = open_room(
            &state,
            &ann,
            SeatRequest::Me,
            SeatRequest::Ai { level: Level::Easy },
        );
        ann.snapshot().await;
        // A detach from another connection of the session is ignored.
        room.detach(ann.session(), 8).await;
        room.detach(ann.session(), 7).await;
        state.tracker.close();
        tokio::time::timeout(WAIT, state.tracker.wait())
            .await
            .expect("the room actor ends by itself");
        assert_eq!(state.lobby.len(), 0);
    }
}
