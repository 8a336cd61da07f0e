//! The session handler: what one connection's messages mean. Rate limits and decodes each
//! data frame, answers `hello`, the lobby and room creation itself, hands room requests to the
//! room, and releases the session when the connection ends.
//!
//! It knows messages, not sockets: the transport (`net::connection`) gives it frames and
//! closes the connection when it returns a [`Bye`].
//!
//! Over 600 lines because it is every message's first stop: splitting the lobby's and the
//! store's answers from the room requests would scatter one `match` over files.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use inarow_protocol::{
    ByeReason, ClientFrame, ClientMessage, DEFAULT_HISTORY_LIMIT, ErrorCode, GameId, GameRecord,
    MAX_HISTORY_LIMIT, PROTOCOL_VERSIONS, RequestId, RoomId, SeatRequest, ServerMessage, SessionId,
    decode_client,
};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::net::{Kick, Peer};
use crate::rate::{RateLimiter, RateVerdict};
use crate::refusal::Refusal;
use crate::room::spec::{CreateRoom, RoomSpec};
use crate::room::{self, Member, Request};
use crate::snapshot;
use crate::state::ServerState;
use crate::store::LiveWrite;
use crate::store::StoreError;
use crate::text;

/// What the server announces as itself in `welcome`.
const SERVER_NAME: &str = concat!("inarow-server ", env!("CARGO_PKG_VERSION"));

/// The server's last words to a connection, before it closes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bye {
    /// Why, for programs.
    pub(crate) reason: ByeReason,
    /// Why, for people.
    pub(crate) message: String,
}

impl Bye {
    /// A `bye` with `reason` and `message`.
    pub(crate) fn new(reason: ByeReason, message: impl Into<String>) -> Bye {
        Bye {
            reason,
            message: message.into(),
        }
    }
}

/// What [`Handler::take_frame`] did with a frame.
pub(crate) enum Step {
    /// Handled; a `Bye` closes the connection.
    Done(Option<Bye>),
    /// Answered once this read of the store is done. The connection polls it beside its
    /// queue and reads no other frame meanwhile, so that answers keep the order of
    /// requests.
    Read(StoreRead),
}

/// A read of the store that a request waits for (`history`, `game`). It owns what it
/// needs (the server's state, the connection's queue) and queues the answer itself.
pub(crate) type StoreRead = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where a decoded message goes: the session (`hello`), the store (`history`, `game`),
/// the lobby, or a room. (No `Debug`: a `hello` carries a token.)
pub(crate) enum Route {
    /// Open or resume a session.
    Hello {
        /// The protocol version asked for.
        protocol: u32,
        /// The display name, unchecked.
        name: String,
        /// The token of a session to resume.
        token: Option<String>,
    },
    /// Finished games, newest first.
    History {
        /// Only this player's games.
        name: Option<String>,
        /// Page size asked for.
        limit: Option<u32>,
        /// Only games older than this one.
        before: Option<GameId>,
    },
    /// One finished game.
    Game(GameId),
    /// The public rooms.
    ListRooms,
    /// The external engines.
    ListEngines,
    /// A new room.
    CreateRoom(CreateRoom),
    /// A request for the room named.
    Room(RoomId, Request),
    /// A new display name for the session.
    Rename(String),
}

impl Route {
    /// The route of `message`.
    pub(crate) fn of(message: ClientMessage) -> Route {
        let (room, request) = match message {
            ClientMessage::Hello {
                protocol,
                name,
                token,
            } => {
                return Route::Hello {
                    protocol,
                    name,
                    token,
                };
            }
            ClientMessage::ListRooms {} => return Route::ListRooms,
            ClientMessage::ListEngines {} => return Route::ListEngines,
            ClientMessage::History {
                name,
                limit,
                before,
            } => {
                return Route::History {
                    name,
                    limit,
                    before,
                };
            }
            ClientMessage::Game { game } => return Route::Game(game),
            ClientMessage::Rename { name } => return Route::Rename(name),
            ClientMessage::CreateRoom {
                name,
                rules,
                seats,
                private,
                hints,
                time_control,
                takebacks,
            } => {
                return Route::CreateRoom(CreateRoom {
                    name,
                    rules,
                    seats,
                    private,
                    hints,
                    time_control,
                    takebacks,
                });
            }
            ClientMessage::Join { room, seat } => (room, Request::Join { seat }),
            ClientMessage::Leave { room } => (room, Request::Leave),
            ClientMessage::SetSeat { room, seat, ai } => (room, Request::SetSeat { seat, ai }),
            ClientMessage::Play { room, ply, mv } => (room, Request::Play { ply, mv }),
            ClientMessage::Resign { room } => (room, Request::Resign),
            ClientMessage::Takeback { room, accept } => (room, Request::Takeback { accept }),
            ClientMessage::Draw { room, accept } => (room, Request::Draw { accept }),
            ClientMessage::Rematch { room } => (room, Request::Rematch),
            ClientMessage::Chat { room, text } => (room, Request::Chat { text }),
            ClientMessage::Sync { room } => (room, Request::Sync),
            ClientMessage::Analyze { room } => (room, Request::Analyze),
        };
        Route::Room(room, request)
    }
}

/// The meaning side of one connection: its session, once `hello` opened one, and what
/// it may still send.
pub(crate) struct Handler {
    state: Arc<ServerState>,
    /// The connection's outbound queue, under the session's attachment once attached.
    peer: Peer,
    /// The connection's kick switch, which the session registry holds so that a resume
    /// on another connection can close this one.
    kick: Arc<Kick>,
    limiter: RateLimiter,
    /// The peer's address, whose sessions are counted.
    ip: IpAddr,
    /// Set by `hello`: the session as its rooms know it (its id, the name `hello` gave,
    /// this connection), lent to the room with each request.
    member: Option<Member>,
}

impl Handler {
    /// The handler of a connection that has not said `hello` yet.
    pub(crate) fn new(state: Arc<ServerState>, ip: IpAddr, peer: Peer, kick: Arc<Kick>) -> Handler {
        let config = &state.config;
        let limiter = RateLimiter::new(
            config.rate_per_second,
            config.rate_burst,
            config.rate_strikes.max(1),
            std::time::Instant::now(),
        );
        Handler {
            state,
            peer,
            kick,
            limiter,
            ip,
            member: None,
        }
    }

    /// Whether `hello` has opened a session.
    pub(crate) fn has_session(&self) -> bool {
        self.member.is_some()
    }

    /// Handles one data frame (`None` for a binary one): rate-limits and decodes it,
    /// answers it if that needs no waiting (everything but `history` and `game`), and
    /// hands back the store read that those wait for.
    pub(crate) fn take_frame(&mut self, text: Option<&str>) -> Step {
        let decoded = text.map(decode_client);
        let verdict = self.limiter.check(std::time::Instant::now());
        if verdict != RateVerdict::Pass {
            let id = match &decoded {
                Some(Ok(frame)) => frame.id.clone(),
                Some(Err(e)) => e.id.clone(),
                None => None,
            };
            self.error(
                id,
                ErrorCode::RateLimited,
                format!(
                    "more than {} messages a second: message dropped",
                    self.state.config.rate_per_second
                ),
            );
            return Step::Done((verdict == RateVerdict::Exceeded).then(|| {
                Bye::new(
                    ByeReason::RateLimited,
                    "too many messages after being rate limited",
                )
            }));
        }
        let ClientFrame { message, id } = match decoded {
            None => {
                self.error(
                    None,
                    ErrorCode::BadRequest,
                    "binary frames are not part of the protocol: send JSON text",
                );
                return Step::Done(None);
            }
            Some(Err(e)) => {
                self.error(e.id, e.code, e.message);
                return Step::Done(None);
            }
            Some(Ok(frame)) => frame,
        };
        let route = Route::of(message);
        if self.member.is_none() {
            if let Route::Hello {
                protocol,
                name,
                token,
            } = route
            {
                return Step::Done(self.hello(protocol, &name, token.as_deref(), id));
            }
            self.error(id, ErrorCode::BadRequest, "say hello first");
            return Step::Done(None);
        }
        match route {
            Route::Hello { .. } => {
                self.error(id, ErrorCode::BadRequest, "hello was already said");
            }
            Route::ListRooms => {
                let rooms = self.state.lobby.list();
                self.send(ServerMessage::Rooms { rooms }, id);
            }
            Route::History {
                name,
                limit,
                before,
            } => {
                if let Some(read) = self.history(name, limit, before, id) {
                    return Step::Read(read);
                }
            }
            Route::Game(game) => return Step::Read(self.game(game, id)),
            Route::ListEngines => {
                let engines = self.state.ai.engines().infos();
                self.send(ServerMessage::Engines { engines }, id);
            }
            Route::CreateRoom(request) => {
                if let Err(refusal) = self.create_room(request, id.clone()) {
                    self.refuse(id, refusal);
                }
            }
            Route::Room(room, request) => self.room_request(room, id, request),
            Route::Rename(name) => self.rename(&name, id),
        }
        Step::Done(None)
    }

    /// Queues a frame for this connection.
    fn send(&self, message: ServerMessage, id: Option<RequestId>) {
        send(&self.peer, message, id);
    }

    /// Queues an error answering request `id`.
    pub(crate) fn error(&self, id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) {
        error(&self.peer, id, code, message);
    }

    fn refuse(&self, id: Option<RequestId>, refusal: Refusal) {
        self.error(id, refusal.code, refusal.message);
    }

    /// Checks a `history` request and hands back the store read that answers it; `None`
    /// if it was refused.
    fn history(
        &self,
        name: Option<String>,
        limit: Option<u32>,
        before: Option<GameId>,
        id: Option<RequestId>,
    ) -> Option<StoreRead> {
        let limit = match limit {
            None => DEFAULT_HISTORY_LIMIT,
            Some(0) => {
                let message = format!("limit is from 1 to {MAX_HISTORY_LIMIT}");
                self.error(id, ErrorCode::BadRequest, message);
                return None;
            }
            Some(n) => n.min(MAX_HISTORY_LIMIT),
        };
        let name = match name {
            None => None,
            Some(name) => match text::display_name(&name, self.state.config.max_name_chars) {
                Ok(name) => Some(name),
                Err(message) => {
                    self.error(id, ErrorCode::InvalidName, message);
                    return None;
                }
            },
        };
        let (state, peer) = (self.state.clone(), self.peer.clone());
        let read = async move {
            match state.store.history(name, limit, before).await {
                Ok((page, record)) => send(
                    &peer,
                    ServerMessage::History {
                        games: page.games,
                        more: page.more,
                        record: record.map(Box::new),
                    },
                    id,
                ),
                Err(problem) => store_unavailable(&peer, id, &problem),
            }
        };
        Some(Box::pin(read.instrument(tracing::Span::current())))
    }

    /// The store read that answers `game` with the game's text record.
    fn game(&self, game: GameId, id: Option<RequestId>) -> StoreRead {
        let (state, peer) = (self.state.clone(), self.peer.clone());
        let read = async move {
            let finished = match state.store.game(game).await {
                Ok(Some(finished)) => finished,
                Ok(None) => {
                    let message = format!("this server keeps no game {game}");
                    return error(&peer, id, ErrorCode::UnknownGame, message);
                }
                Err(problem) => return store_unavailable(&peer, id, &problem),
            };
            match snapshot::record_text(&finished.summary, &finished.moves) {
                Ok(text) => send(
                    &peer,
                    ServerMessage::Game {
                        game: Box::new(GameRecord {
                            summary: finished.summary,
                            moves: finished.moves,
                            text,
                        }),
                    },
                    id,
                ),
                Err(problem) => {
                    tracing::error!(%game, %problem, "a stored game does not replay");
                    let message = format!("game {game} is damaged in the store");
                    error(&peer, id, ErrorCode::StoreUnavailable, message);
                }
            }
        };
        Box::pin(read.instrument(tracing::Span::current()))
    }

    /// Validates a `create_room` and opens the room; the room answers the creator.
    fn create_room(&self, request: CreateRoom, id: Option<RequestId>) -> Result<(), Refusal> {
        let member = self
            .member
            .clone()
            .expect("rooms are created only after hello, which sets the member");
        let spec =
            RoomSpec::try_from_request(request, &member.name, self.state.config.max_name_chars)?;
        for seat in [spec.seats.x, spec.seats.o] {
            if let SeatRequest::Engine { name } = seat {
                self.state.ai.engines().check(name, spec.rules)?;
            }
        }
        let context = self.state.room_context();
        let session = member.session;
        let room = room::open(&context, spec, member, id)?;
        self.state.sessions.enter(session, &room);
        Ok(())
    }

    /// Hands a request to its room and keeps the session's list of rooms up to date.
    fn room_request(&mut self, room: RoomId, id: Option<RequestId>, request: Request) {
        let state = &self.state;
        // Invite codes are read out and typed: accept them in any case, with stray spaces.
        // (Clients echo the id they were sent, which needs no change and no copy.)
        let typed = room.0.trim();
        let room = if typed.len() == room.0.len() && !typed.bytes().any(|b| b.is_ascii_uppercase())
        {
            room
        } else {
            RoomId(typed.to_ascii_lowercase())
        };
        let membership = match &request {
            Request::Join { .. } => Some(true),
            Request::Leave => Some(false),
            _ => None,
        };
        let member = self
            .member
            .as_ref()
            .expect("room requests come only after hello, which sets the member");
        let session = member.session;
        let Some(handle) = state.lobby.get(&room) else {
            state.sessions.exit(session, &room);
            self.refuse(id, Refusal::unknown_room(&room));
            return;
        };
        let outcome = handle.request(member, id.clone(), request);
        match outcome {
            Ok(()) => match membership {
                Some(true) => state.sessions.enter(session, &room),
                Some(false) => {
                    state.sessions.exit(session, &room);
                    self.send(ServerMessage::Left { room }, id);
                }
                None => {}
            },
            Err(refusal) => self.refuse(id, refusal),
        }
    }

    /// Renames the session: checks the name as `hello` does, answers `renamed`, and has
    /// every room the session is in show the new name (a fresh snapshot to everyone).
    fn rename(&mut self, name: &str, id: Option<RequestId>) {
        let name = match text::display_name(name, self.state.config.max_name_chars) {
            Ok(name) => name,
            Err(message) => return self.error(id, ErrorCode::InvalidName, message),
        };
        let Some(member) = self.member.as_mut() else {
            return;
        };
        member.name = Arc::from(name.as_str());
        let member = member.clone();
        let state = &self.state;
        if let Some(record) = state.sessions.rename(member.session, &name) {
            // A restart brings the session back under its new name.
            state.store.checkpoint(LiveWrite::Session(record));
        }
        self.send(ServerMessage::Renamed { name }, id);
        for room in state.sessions.rooms(member.session) {
            if let Some(handle) = state.lobby.get(&room) {
                // A room that has dropped the session refuses (`not_in_room`): nothing
                // there shows the name.
                let _ = handle.request(&member, None, Request::Rename);
            }
        }
    }

    /// Opens or resumes a session (`hello`); a `Bye` closes the connection.
    fn hello(
        &mut self,
        protocol: u32,
        name: &str,
        token: Option<&str>,
        id: Option<RequestId>,
    ) -> Option<Bye> {
        if !PROTOCOL_VERSIONS.contains(&protocol) {
            let spoken: Vec<String> = PROTOCOL_VERSIONS.iter().map(u32::to_string).collect();
            let message = format!(
                "this server speaks protocol versions {}, not {protocol}",
                spoken.join(" and ")
            );
            self.error(id, ErrorCode::UnsupportedProtocol, message.clone());
            return Some(Bye::new(ByeReason::UnsupportedProtocol, message));
        }
        let name = match text::display_name(name, self.state.config.max_name_chars) {
            Ok(name) => name,
            Err(message) => {
                self.error(id, ErrorCode::InvalidName, message);
                return None;
            }
        };
        let state = self.state.clone();
        let opened = match state
            .sessions
            .open(token, &name, self.ip, self.kick.clone())
        {
            Ok(opened) => opened,
            Err(refused) => {
                tracing::info!(%refused, "hello refused");
                self.error(id, ErrorCode::TooManySessions, refused.to_string());
                return Some(Bye::new(ByeReason::TooManySessions, refused.to_string()));
            }
        };
        self.peer = self.peer.reissued(opened.attachment, protocol);
        if let Some(old) = &opened.replaced {
            old.kick(ByeReason::Replaced);
        }
        let member = Member {
            session: opened.session,
            name: Arc::from(name),
            peer: self.peer.clone(),
        };
        self.member = Some(member.clone());
        // A new or rotated token: the store keeps its hash, so the token resumes the
        // session after a restart too.
        state
            .store
            .checkpoint(LiveWrite::Session(opened.record.clone()));
        // The connection's span names the session from now on.
        tracing::Span::current().record("session", tracing::field::display(opened.session));
        tracing::info!(resumed = opened.resumed, "session opened");
        self.send(
            ServerMessage::Welcome {
                protocol,
                session: opened.session,
                token: opened.token,
                server: SERVER_NAME.to_owned(),
                resumed: opened.resumed,
            },
            id,
        );
        for room in opened.rooms {
            let present = match state.lobby.get(&room) {
                Some(handle) => handle.resume(member.clone()),
                None => false,
            };
            if !present {
                state.sessions.exit(opened.session, &room);
            }
        }
        None
    }

    /// Detaches the session from this connection: its rooms hold its seats and drop its
    /// spectator places, and the grace period starts (unless a newer connection took the
    /// session over).
    pub(crate) async fn release_session(&self) {
        let Some(session) = self.member.as_ref().map(|member| member.session) else {
            return;
        };
        let state = &self.state;
        if state.shutdown.is_cancelled() {
            // Rooms and sessions are going away with the server: nothing to hold.
            return;
        }
        let attachment = self.peer.attachment;
        let grace = state.sessions.detach(session, attachment);
        for room in state.sessions.rooms(session) {
            if let Some(handle) = state.lobby.get(&room) {
                handle.detach(session, attachment).await;
            }
        }
        let Some(grace) = grace else { return };
        let expires_at = std::time::SystemTime::now()
            .checked_add(state.config.reconnect_grace)
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        state.store.checkpoint(LiveWrite::SessionDetached {
            session,
            expires_at,
        });
        expire_after_grace(state, session, grace, tracing::Span::current());
    }
}

/// Ends `session` once its grace period runs out, unless `grace` is cancelled (it was
/// resumed) or the server shuts down first: its held seats are emptied. Used for a
/// dropped connection's session and for every session restored after a restart.
pub(crate) fn expire_after_grace(
    state: &Arc<ServerState>,
    session: SessionId,
    grace: CancellationToken,
    span: tracing::Span,
) {
    let tracker = state.tracker.clone();
    let state = state.clone();
    let expiry = async move {
        tokio::select! {
            () = tokio::time::sleep(state.config.reconnect_grace) => {}
            () = grace.cancelled() => return,
            () = state.shutdown.cancelled() => return,
        }
        let Some(rooms) = state.sessions.expire(session, &grace) else {
            return;
        };
        tracing::debug!(%session, "session expired");
        state.store.checkpoint(LiveWrite::SessionEnded(session));
        for room in rooms {
            if let Some(handle) = state.lobby.get(&room) {
                handle.expire(session).await;
            }
        }
    };
    tracker.spawn(expiry.instrument(span));
}

/// Queues a frame for the connection `peer`. A full queue kicks the connection as too
/// slow, which its transport sees; nothing else is to be done here.
fn send(peer: &Peer, message: ServerMessage, id: Option<RequestId>) {
    let _ = peer.send(message, id);
}

/// Queues an error answering request `id` to `peer`.
fn error(peer: &Peer, id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) {
    let message = ServerMessage::Error {
        code,
        message: message.into(),
    };
    send(peer, message, id);
}

/// A read of the store failed: the client is told, the connection goes on.
fn store_unavailable(peer: &Peer, id: Option<RequestId>, problem: &StoreError) {
    tracing::warn!(%problem, "store read failed");
    let message = "the server could not read its game store; try again later";
    error(peer, id, ErrorCode::StoreUnavailable, message);
}
