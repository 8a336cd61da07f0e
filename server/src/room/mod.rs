//! Rooms: each owns one game, its seats and spectators, and its pending AI job, behind a
//! lock; everything else talks to it through a cloneable [`RoomHandle`], whose requests
//! run on the caller's task, and the room's own task handles AI answers, desertion and
//! the shutdown.
//!
//! - here: the room's ways in and out: its [`RoomHandle`], through which requests reach
//!   it, and its [`Audience`], the members' connections, to which each event goes out
//!   encoded once per protocol version;
//! - `state`: the room around its table (requests, AI jobs, events) and its task;
//! - `table`: the game, seats, turns and rematches as a plain state machine (no tokio);
//! - `lobby`: the directory of open rooms; `spec`: a new room's validated settings.
//!
//! A room sees the rest of the server only through its [`Context`], so it does not
//! depend on the server's shared state (which holds the room directory).

pub(crate) mod lobby;
pub(crate) mod spec;
mod state;
mod table;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex, OnceLock};

use foldhash::HashMap;
use inarow_protocol::{ErrorCode, RequestId, RoomId, ServerMessage, SessionId, encode};
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use self::state::Room;
use self::table::{Arrival, Table};
pub(crate) use self::table::{Request, RestoreError};
use crate::ai::AiPool;
use crate::config::Config;
use crate::net::{Attachment, Peer};
use crate::refusal::Refusal;
use crate::room::lobby::Lobby;
use crate::room::spec::RoomSpec;
use crate::store::Store;
use crate::store::saved::SavedRoom;

/// The directory of open rooms.
pub(crate) type Directory = Lobby<RoomHandle>;

/// What a room needs of the server: no more, so that rooms can be tested (and reasoned
/// about) without a whole server.
#[derive(Clone)]
pub(crate) struct Context {
    /// Limits and timings.
    pub(crate) config: Arc<Config>,
    /// Where the room lists itself while open, and its public summary.
    pub(crate) lobby: Arc<Directory>,
    /// Where AI moves are computed.
    pub(crate) ai: AiPool,
    /// Where the room hands its finished games.
    pub(crate) store: Store,
    /// The server's tasks, so shutdown waits for rooms.
    pub(crate) tracker: TaskTracker,
    /// The rooms' tasks, so shutdown waits for rooms to stop and save themselves.
    pub(crate) rooms: TaskTracker,
    /// Cancelled when the server shuts down; each room takes a child of it.
    pub(crate) shutdown: CancellationToken,
}

/// A session acting in a room from one connection.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// The session.
    pub(crate) session: SessionId,
    /// Its display name, shared: every request carries it.
    pub(crate) name: Arc<str>,
    /// Its current connection.
    pub(crate) peer: Peer,
}

impl Member {
    /// The member as the table knows it: by session and attachment.
    fn arrival(&self) -> Arrival {
        Arrival {
            session: self.session,
            name: self.name.clone(),
            attachment: self.peer.attachment,
        }
    }
}

/// A cloneable handle on a room.
///
/// Requests, resumes and departures run on the caller's task, under the room's lock (a
/// std mutex, never held across an `.await`): a move is played and its events queued to
/// every member in one step, without waking another task, and every member sees the
/// room's events in one order. The room's own task keeps what is not a request: AI
/// answers, the desertion timer and the shutdown.
#[derive(Clone)]
pub(crate) struct RoomHandle {
    /// One pointer: the lobby hands out a clone for every request.
    shared: Arc<Shared>,
}

/// What a room's handles and its task share.
struct Shared {
    /// The room's id, set as the lobby names it.
    id: OnceLock<RoomId>,
    /// The room and its span (what the room logs names it, whichever task runs it),
    /// until its task closes it.
    room: Mutex<Option<(Room, tracing::Span)>>,
    /// Tells the room's task that the room may have been deserted or filled again, so
    /// that it sets its timer anew.
    changed: tokio::sync::Notify,
}

impl Shared {
    fn new() -> Arc<Shared> {
        Arc::new(Shared {
            id: OnceLock::new(),
            room: Mutex::new(None),
            changed: tokio::sync::Notify::new(),
        })
    }

    /// Runs `f` on the open room in its span, and tells the room's task if `f` changed
    /// whether the room is deserted; `None` if the room has closed (or a panic while it
    /// was locked left it unusable, which closes it).
    fn with_room<T>(&self, f: impl FnOnce(&mut Room) -> T) -> Option<T> {
        let mut room = self.room.lock().ok()?;
        let (room, span) = room.as_mut()?;
        let _entered = span.enter();
        let deserted = room.deserted();
        let flag_at = room.clock_deadline();
        let out = f(room);
        room.note_desertion();
        // The room's task sleeps until the room would close or a clock run out: wake it
        // when either changed.
        if room.deserted() != deserted || room.clock_deadline() != flag_at {
            self.changed.notify_one();
        }
        Some(out)
    }

    /// Takes the room out for its task to close it; `None` if it is gone already.
    fn close(&self) -> Option<Room> {
        self.room.lock().ok()?.take().map(|(room, _)| room)
    }
}

impl RoomHandle {
    /// A handle on `shared`, the room `id`.
    fn new(shared: &Arc<Shared>, id: RoomId) -> RoomHandle {
        // Set once, here, before the handle exists.
        let _ = shared.id.set(id);
        RoomHandle {
            shared: shared.clone(),
        }
    }

    /// The room's id.
    fn id(&self) -> RoomId {
        self.shared
            .id
            .get()
            .cloned()
            .unwrap_or_else(|| RoomId(String::new()))
    }

    /// Re-attaches a resumed session; the room sends it a snapshot. False if the session
    /// no longer has a place in the room.
    pub(crate) fn resume(&self, member: Member) -> bool {
        self.shared
            .with_room(|room| room.resume(&member))
            .unwrap_or(false)
    }

    /// Tells the room that the connection `attachment` of `session` has ended: seats are
    /// held, a spectator place is dropped. Ignored if the session has a newer connection.
    pub(crate) async fn detach(&self, session: SessionId, attachment: Attachment) {
        self.shared
            .with_room(|room| room.detach(session, attachment));
    }

    /// Tells the room that `session` expired: its held seats become empty.
    pub(crate) async fn expire(&self, session: SessionId) {
        self.shared.with_room(|room| room.expire(session));
    }
}

/// Opens a room: registers it in the lobby and starts its task, which sends the creator
/// (seated where the plan says `Me`, else watching) the first snapshot, carrying `id`.
///
/// # Errors
/// `too_many_rooms` when the server, or the creator's session, has its limit of rooms open.
pub(crate) fn open(
    context: &Context,
    spec: RoomSpec,
    creator: Member,
    id: Option<RequestId>,
) -> Result<RoomId, Refusal> {
    let shared = Shared::new();
    // Locked from before the lobby lists the room until it is in place with its first
    // snapshot sent: a request that finds the room meanwhile waits for that, as it
    // waited in the room's mailbox before.
    let mut slot = shared
        .room
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let room_id = context
        .lobby
        .register(creator.session, |room_id| RoomHandle::new(&shared, room_id))
        .map(|handle| handle.id())
        .map_err(|cap| Refusal::new(ErrorCode::TooManyRooms, cap.to_string()))?;
    let first = Some((creator.session, id));
    let room = Room::new(room_id.clone(), spec, creator, context.clone());
    let span = start(&mut slot, room, first, Room::log_opened);
    drop(slot);
    spawn(context, shared, span);
    Ok(room_id)
}

/// Why a saved room was not restored.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotRestored {
    /// Its saved form is not one the server wrote.
    #[error(transparent)]
    Corrupt(#[from] RestoreError),
    /// A room with its id is already open.
    #[error("a room with this id is already open")]
    Taken,
}

/// Reopens a room saved before a restart: the game at its saved ply, players' seats held
/// for their sessions (a seat whose session `known` does not know is emptied, since
/// nobody could come back to it), AI seats thinking again. Returns the sessions seated in
/// it, which the caller records as in the room.
///
/// # Errors
/// [`NotRestored`] if the saved room is corrupt or its id is taken.
pub(crate) fn restore(
    context: &Context,
    saved: SavedRoom,
    known: impl Fn(SessionId) -> bool,
) -> Result<Vec<SessionId>, NotRestored> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut table = Table::restore(saved, context.config.max_chat_chars, now_ms)?;
    for session in table.held_sessions() {
        if !known(session) {
            table.expire(session);
        }
    }
    let seated = table.held_sessions();
    let room_id = table.id().clone();
    let shared = Shared::new();
    let mut slot = shared
        .room
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let handle = RoomHandle::new(&shared, room_id.clone());
    if !context
        .lobby
        .restore(room_id.clone(), table.creator(), handle)
    {
        return Err(NotRestored::Taken);
    }
    let room = Room::restored(table, context.clone());
    let span = start(&mut slot, room, None, Room::log_restored);
    drop(slot);
    spawn(context, shared, span);
    Ok(seated)
}

/// Puts `room` in its place in `slot` and sends the first snapshot (to `first`, with its
/// request id); returns the room's span.
fn start(
    slot: &mut Option<(Room, tracing::Span)>,
    mut room: Room,
    first: Option<(SessionId, Option<RequestId>)>,
    log: fn(&Room),
) -> tracing::Span {
    // A room outlives the connection that opened it: its span stands alone.
    let span = tracing::info_span!(parent: None, "room", id = %room.id());
    span.in_scope(|| {
        log(&room);
        room.after_change(first);
        room.note_desertion();
    });
    *slot = Some((room, span.clone()));
    span
}

/// Starts the room's task, tracked by both trackers: shutdown waits for the rooms alone
/// first (they save themselves), then for everything.
fn spawn(context: &Context, shared: Arc<Shared>, span: tracing::Span) {
    let run = context
        .tracker
        .track_future(state::run(shared).instrument(span));
    context.rooms.spawn(run);
}

/// Who caused an event, and the id its copy must carry.
pub(crate) type Requester = Option<(SessionId, Option<RequestId>)>;

/// The connections through which a room reaches its members, kept in line with the
/// table's record of who is connected under which attachment.
#[derive(Default)]
pub(crate) struct Audience {
    peers: HashMap<SessionId, Peer>,
}

/// One message encoded once: the text everybody gets, and the requester's copy carrying
/// its request id (or, for a member who entered, its own version of the message).
struct Encoded {
    common: Utf8Bytes,
    own: Option<(SessionId, Utf8Bytes)>,
}

impl Encoded {
    /// `message` encoded for everybody, and for the requester with its id.
    fn new(message: &ServerMessage, requester: &Requester) -> Encoded {
        Encoded::with_own(message, None, requester)
    }

    /// As [`Encoded::new`], but the requester gets `own` (if given) instead of `message`.
    fn with_own(
        message: &ServerMessage,
        own: Option<&ServerMessage>,
        requester: &Requester,
    ) -> Encoded {
        let common = encode(message);
        let own = match (requester, own) {
            (Some((session, id)), Some(own)) => {
                let text = encode(own);
                let text = match id {
                    Some(id) => with_id(&text, id),
                    None => text,
                };
                Some((*session, Utf8Bytes::from(text)))
            }
            (Some((session, Some(id))), None) => {
                Some((*session, Utf8Bytes::from(with_id(&common, id))))
            }
            _ => None,
        };
        Encoded {
            common: Utf8Bytes::from(common),
            own,
        }
    }

    /// The text for `session`: a cheap clone of a shared buffer.
    fn for_session(&self, session: SessionId) -> Utf8Bytes {
        match &self.own {
            Some((requester, text)) if *requester == session => text.clone(),
            _ => self.common.clone(),
        }
    }
}

/// `message`, the encoded JSON object of a [`ServerMessage`], as the `ServerFrame` that
/// carries request `id`: the requester's copy without encoding a snapshot a second time.
fn with_id(message: &str, id: &RequestId) -> String {
    // A frame is its message's fields with `id` beside them (`#[serde(flatten)]`), so
    // the object gains one field in front.
    let Some(rest) = message.strip_prefix('{') else {
        // Every message encodes to an object (its `type` tag is a field of it).
        return message.to_owned();
    };
    let id = encode(id);
    let mut text = String::with_capacity(message.len() + id.len() + 7);
    text.push_str("{\"id\":");
    text.push_str(&id);
    if rest != "}" {
        text.push(',');
    }
    text.push_str(rest);
    text
}

impl Audience {
    /// Brings the connections in line with `table` after it changed: `arrived`'s
    /// connection is taken if the table attached it, and connections the table no longer
    /// counts (members gone, connections replaced or dropped) are forgotten.
    pub(crate) fn sync(&mut self, table: &Table, arrived: Option<&Member>) {
        if let Some(member) = arrived {
            self.take_connection(table, member);
        }
        self.peers
            .retain(|session, peer| table.attachment_of(*session) == Some(peer.attachment));
    }

    /// As [`Audience::sync`] after a request that cannot change who is in the room or
    /// through which connection (anything but joining and leaving): only the requester's
    /// connection may be new, and then only if the table already counts it.
    pub(crate) fn arrive(&mut self, table: &Table, member: &Member) {
        self.take_connection(table, member);
        debug_assert!(
            self.peers
                .iter()
                .all(|(session, peer)| table.attachment_of(*session) == Some(peer.attachment)),
            "a request that was not a join or a leave changed the room's roster"
        );
    }

    /// Takes `member`'s connection if the table counts it and it is not already known.
    fn take_connection(&mut self, table: &Table, member: &Member) {
        let attachment = member.peer.attachment;
        let known = self
            .peers
            .get(&member.session)
            .is_some_and(|peer| peer.attachment == attachment);
        if !known && table.attachment_of(member.session) == Some(attachment) {
            self.peers.insert(member.session, member.peer.clone());
        }
    }

    /// Queues `message` to everybody; the requester's copy carries its request id when
    /// it has one. Returns the members whose connection could not take it.
    pub(crate) fn broadcast(
        &self,
        message: &ServerMessage,
        requester: Requester,
    ) -> Vec<SessionId> {
        let encoded = Encoded::new(message, &requester);
        self.deliver(|session, _| encoded.for_session(session))
    }

    /// As [`Audience::broadcast`], but the requester gets `own` (if given) in place of
    /// `message`: the same snapshot with the room's recent chat, for a member who entered.
    pub(crate) fn broadcast_own(
        &self,
        message: &ServerMessage,
        own: Option<&ServerMessage>,
        requester: Requester,
    ) -> Vec<SessionId> {
        let encoded = Encoded::with_own(message, own, &requester);
        self.deliver(|session, _| encoded.for_session(session))
    }

    /// Queues a move to everybody: `moved` to protocol 2 connections, and the snapshot
    /// that `full` gives (made only if somebody needs it) to protocol 1 connections. As
    /// [`Audience::broadcast`] otherwise.
    pub(crate) fn broadcast_move(
        &self,
        moved: &ServerMessage,
        full: impl FnOnce() -> ServerMessage,
        requester: Requester,
    ) -> Vec<SessionId> {
        let lean = Encoded::new(moved, &requester);
        let full = self
            .peers
            .values()
            .any(|peer| !peer.lean())
            .then(|| Encoded::new(&full(), &requester));
        let mut dropped = Vec::new();
        for (session, peer) in &self.peers {
            let text = match &full {
                Some(full) if !peer.lean() => full.for_session(*session),
                _ => lean.for_session(*session),
            };
            if peer.send_text(text).is_err() {
                dropped.push(*session);
            }
        }
        dropped
    }

    /// Queues to every connection the text `text_for` gives it; returns the members whose
    /// connection could not take it.
    fn deliver(&self, text_for: impl Fn(SessionId, &Peer) -> Utf8Bytes) -> Vec<SessionId> {
        let mut dropped = Vec::new();
        for (session, peer) in &self.peers {
            if peer.send_text(text_for(*session, peer)).is_err() {
                dropped.push(*session);
            }
        }
        dropped
    }

    /// Queues `message` (answering request `id`) to `session` alone. False if its
    /// connection could not take it; true if it did, or if `session` is not connected.
    pub(crate) fn send_to(
        &self,
        session: SessionId,
        message: ServerMessage,
        id: Option<RequestId>,
    ) -> bool {
        self.peers
            .get(&session)
            .is_none_or(|peer| peer.send(message, id).is_ok())
    }
}
