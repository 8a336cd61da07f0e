//! Rooms: each is an actor task that owns one game, its seats and spectators, and its
//! pending AI job; everything else talks to it through a cloneable [`RoomHandle`].
//!
//! - `table`: the game, seats, turns and rematches as a plain state machine (no tokio);
//! - `actor`: the task that feeds commands to the core, runs AI jobs and fans out;
//! - `fanout`: the members' connections, and one encoding per event.
//!
//! A room sees the rest of the server only through its [`Context`], so it does not
//! depend on the server's shared state (which holds the room directory).

mod actor;
mod fanout;
mod table;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use inarow_protocol::{ErrorCode, RequestId, RoomId, SessionId};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use self::actor::RoomActor;
use self::table::{Arrival, Table};
pub(crate) use self::table::{Request, RestoreError};
use crate::ai_worker::AiPool;
use crate::config::Config;
use crate::lobby::Lobby;
use crate::peer::{Attachment, Peer};
use crate::refusal::Refusal;
use crate::room_spec::RoomSpec;
use crate::saved::SavedRoom;
use crate::store::Store;

/// Commands waiting for a room; senders wait when it is full, which only happens if the
/// room falls behind, and it never waits on anything itself.
const MAILBOX: usize = 64;
/// How long a connection waits for a room to take a command before giving up.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

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
    /// The room actors, so shutdown waits for rooms to stop and save themselves.
    pub(crate) rooms: TaskTracker,
    /// Cancelled when the server shuts down; each room takes a child of it.
    pub(crate) shutdown: CancellationToken,
}

/// A session acting in a room from one connection.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// The session.
    pub(crate) session: SessionId,
    /// Its display name.
    pub(crate) name: String,
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

/// What a room's actor is asked to do.
enum Command {
    /// A request from a member, answered with `Ok` once the room has queued the answer.
    Request {
        member: Member,
        id: Option<RequestId>,
        request: Request,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// A session resumed on a new connection; the answer says whether it is still in the
    /// room.
    Resume {
        member: Member,
        reply: oneshot::Sender<bool>,
    },
    /// A connection of a session ended.
    Detach {
        session: SessionId,
        attachment: Attachment,
    },
    /// A session's grace period ran out.
    Expire { session: SessionId },
}

/// A cloneable handle on a room actor.
#[derive(Clone)]
pub(crate) struct RoomHandle {
    /// Shared: the lobby hands out a clone for every request, and a `String` clone was an
    /// allocation per move.
    id: Arc<RoomId>,
    commands: mpsc::Sender<Command>,
}

impl RoomHandle {
    async fn send(&self, command: Command) -> bool {
        // Without a timer unless the mailbox is full, which is rare.
        let command = match self.commands.try_send(command) {
            Ok(()) => return true,
            Err(mpsc::error::TrySendError::Closed(_)) => return false,
            Err(mpsc::error::TrySendError::Full(command)) => command,
        };
        matches!(
            tokio::time::timeout(SEND_TIMEOUT, self.commands.send(command)).await,
            Ok(Ok(()))
        )
    }

    /// Sends a request from `member`; on success the room has already queued its answer
    /// (a snapshot or chat line carrying `id`) to the requester, except for `Leave`,
    /// whose `left` the caller sends.
    ///
    /// # Errors
    /// The room's refusal, or `unknown_room` if the room has closed.
    pub(crate) async fn request(
        &self,
        member: Member,
        id: Option<RequestId>,
        request: Request,
    ) -> Result<(), Refusal> {
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            member,
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

    /// Tells the room that the connection `attachment` of `session` has ended: seats are
    /// held, a spectator place is dropped. Ignored if the session has a newer connection.
    pub(crate) async fn detach(&self, session: SessionId, attachment: Attachment) {
        self.send(Command::Detach {
            session,
            attachment,
        })
        .await;
    }

    /// Tells the room that `session` expired: its held seats become empty.
    pub(crate) async fn expire(&self, session: SessionId) {
        self.send(Command::Expire { session }).await;
    }
}

/// Opens a room: registers it in the lobby and starts its actor, which sends the creator
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
    let (tx, rx) = mpsc::channel(MAILBOX);
    let handle = context
        .lobby
        .register(creator.session, |room_id| RoomHandle {
            id: Arc::new(room_id),
            commands: tx,
        })
        .map_err(|cap| Refusal::new(ErrorCode::TooManyRooms, cap.to_string()))?;
    let room_id = RoomId::clone(&handle.id);
    // A room outlives the connection that opened it: its span stands alone.
    let span = tracing::info_span!(parent: None, "room", id = %room_id);
    let first = Some((creator.session, id));
    let actor = RoomActor::new(room_id.clone(), spec, creator, context.clone());
    span.in_scope(|| actor.log_opened());
    spawn(context, actor, rx, first, span);
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
    let (tx, rx) = mpsc::channel(MAILBOX);
    let handle = RoomHandle {
        id: Arc::new(room_id.clone()),
        commands: tx,
    };
    if !context
        .lobby
        .restore(room_id.clone(), table.creator(), handle)
    {
        return Err(NotRestored::Taken);
    }
    let span = tracing::info_span!(parent: None, "room", id = %room_id);
    let actor = RoomActor::restored(table, context.clone());
    span.in_scope(|| actor.log_restored());
    spawn(context, actor, rx, None, span);
    Ok(seated)
}

/// Starts a room's actor, tracked by both trackers: shutdown waits for the rooms alone
/// first (they save themselves), then for everything.
fn spawn(
    context: &Context,
    actor: RoomActor,
    commands: mpsc::Receiver<Command>,
    first: Option<(SessionId, Option<RequestId>)>,
    span: tracing::Span,
) {
    let run = context
        .tracker
        .track_future(actor.run(commands, first).instrument(span));
    context.rooms.spawn(run);
}
