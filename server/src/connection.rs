//! One WebSocket connection: the handshake, a writer fed by a bounded queue, and one loop
//! over inbound frames, pings, deadlines, kicks and shutdown that turns client messages
//! into lobby and room requests.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ByeReason, ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, RequestId, RoomId,
    ServerFrame, ServerMessage, SessionId, decode_client, encode,
};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message};

use crate::peer::{Attachment, Kick, Peer};
use crate::rate::{RateLimiter, RateVerdict};
use crate::refusal::Refusal;
use crate::room::{self, Member, Request};
use crate::room_spec::{CreateRoom, RoomSpec};
use crate::state::ServerState;
use crate::text;

type Ws = WebSocketStream<TcpStream>;

/// Time allowed to write the last frames, `bye` and the close frame.
const FAREWELL_TIME: Duration = Duration::from_secs(2);
/// Time allowed for the peer to answer our close frame.
const CLOSE_TIME: Duration = Duration::from_millis(1500);
/// Most bytes read and discarded after closing, so the peer's unread data (say, the rest
/// of an oversize message) does not turn our close into a reset that loses the `bye`.
const LINGER_BYTES: usize = 1 << 20;

/// What the server announces as itself in `welcome`.
const SERVER_NAME: &str = concat!("inarow-server ", env!("CARGO_PKG_VERSION"));

/// How a connection ends.
enum Ending {
    /// The server closes it: `bye`, then a close frame.
    Bye {
        reason: ByeReason,
        message: String,
        code: CloseCode,
        /// The inbound stream is still readable (not after a read error), so wait for the
        /// peer's close frame there.
        readable: bool,
    },
    /// The peer sent a close frame; tungstenite answers it while we read on.
    PeerClosed,
    /// The socket ended or failed.
    Gone,
}

impl Ending {
    fn bye(reason: ByeReason, message: impl Into<String>, code: CloseCode) -> Ending {
        Ending::Bye {
            reason,
            message: message.into(),
            code,
            readable: true,
        }
    }

    fn label(&self) -> String {
        match self {
            Ending::Bye { reason, .. } => format!("{reason:?}"),
            Ending::PeerClosed => "closed by peer".to_owned(),
            Ending::Gone => "connection lost".to_owned(),
        }
    }
}

/// The last words the writer sends after whatever is queued.
struct Farewell {
    bye: String,
    close: CloseFrame,
}

/// Serves one accepted socket until it closes. Without a `permit` the server is full: the
/// peer is told so and the connection closed.
pub(crate) async fn serve(
    socket: TcpStream,
    addr: SocketAddr,
    state: Arc<ServerState>,
    permit: Option<OwnedSemaphorePermit>,
) {
    let config = &state.config;
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(config.max_message_size))
        .max_frame_size(Some(config.max_message_size))
        // Grows on demand; 10 000 idle connections should not hold 128 KiB each.
        .read_buffer_size(4096);
    let token = state.shutdown.child_token();
    let accepted = tokio::select! {
        accepted = tokio::time::timeout(
            config.handshake_timeout,
            tokio_tungstenite::accept_async_with_config(socket, Some(ws_config)),
        ) => accepted,
        () = token.cancelled() => return,
    };
    let ws = match accepted {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            tracing::debug!(peer = %addr, error = %e, "WebSocket handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!(peer = %addr, "WebSocket handshake timed out");
            return;
        }
    };
    let (sink, mut stream) = ws.split();
    let (outbound, queue) = mpsc::channel(config.outbound_queue.max(1));
    let (farewell_tx, farewell_rx) = oneshot::channel();
    let writer = state.tracker.spawn(write_loop(sink, queue, farewell_rx));
    let conn_id = state.next_conn_id();
    let kick = Arc::new(Kick::default());
    let mut conn = Connection {
        // No attachment until `hello` gives one; rooms never see it before.
        peer: Peer::new(Attachment::NONE, outbound, kick.clone()),
        limiter: RateLimiter::new(
            config.rate_per_second,
            config.rate_burst,
            config.rate_strikes.max(1),
            std::time::Instant::now(),
        ),
        state: state.clone(),
        addr,
        conn_id,
        kick,
        session: None,
        name: String::new(),
    };
    let ending = match &permit {
        Some(_) => {
            tracing::info!(peer = %addr, conn = conn_id, "connection opened");
            conn.read_loop(&mut stream, token).await
        }
        None => {
            tracing::info!(peer = %addr, "connection refused: server full");
            conn.error(
                None,
                ErrorCode::ServerFull,
                "the server has no room for another connection",
            );
            Ending::bye(
                ByeReason::ServerFull,
                "the server is full; try again later",
                CloseCode::Again,
            )
        }
    };
    tracing::info!(
        peer = %addr,
        conn = conn_id,
        session = ?conn.session.map(|s| s.to_string()),
        reason = %ending.label(),
        "connection closed"
    );
    conn.release_session().await;
    close(ending, stream, farewell_tx, writer).await;
    // The connection slot stays taken until the socket is really closed.
    drop(permit);
}

/// Says goodbye as `ending` requires and waits (boundedly) for the socket to wind down.
async fn close(
    ending: Ending,
    mut stream: SplitStream<Ws>,
    farewell: oneshot::Sender<Farewell>,
    writer: tokio::task::JoinHandle<SplitSink<Ws, Message>>,
) {
    match ending {
        Ending::Bye {
            reason,
            message,
            code,
            readable,
        } => {
            let bye = encode(&ServerFrame::from(ServerMessage::Bye {
                reason,
                message: message.clone(),
            }));
            let _ = farewell.send(Farewell {
                bye,
                close: CloseFrame {
                    code,
                    reason: message.into(),
                },
            });
            let sink = tokio::time::timeout(FAREWELL_TIME + Duration::from_millis(200), writer)
                .await
                .ok()
                .and_then(Result::ok);
            if readable {
                // The peer answers our close frame; reading also flushes what is pending.
                let _ = tokio::time::timeout(CLOSE_TIME, async {
                    while let Some(Ok(_)) = stream.next().await {}
                })
                .await;
            } else if let Some(sink) = sink
                && let Ok(ws) = stream.reunite(sink)
            {
                linger(ws.into_inner()).await;
            }
        }
        Ending::PeerClosed => {
            drop(farewell);
            let _ = tokio::time::timeout(CLOSE_TIME, async {
                while let Some(Ok(_)) = stream.next().await {}
            })
            .await;
        }
        Ending::Gone => drop(farewell),
    }
}

/// Half-closes the socket and discards what the peer still sends, for a bounded time.
async fn linger(mut socket: TcpStream) {
    use tokio::io::AsyncWriteExt;
    let _ = socket.shutdown().await;
    let _ = tokio::time::timeout(CLOSE_TIME, async {
        let mut buf = [0u8; 4096];
        let mut total = 0;
        while total < LINGER_BYTES {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
    })
    .await;
}

/// Writes queued frames until the queue closes or a farewell arrives; then writes what
/// is still queued, the `bye` and the close frame. Returns the sink so the socket can be
/// reunited for a lingering close.
async fn write_loop(
    mut sink: SplitSink<Ws, Message>,
    mut queue: mpsc::Receiver<Message>,
    mut farewell: oneshot::Receiver<Farewell>,
) -> SplitSink<Ws, Message> {
    let last_words = loop {
        let next = tokio::select! {
            biased;
            last = &mut farewell => break last,
            next = queue.recv() => next,
        };
        let Some(message) = next else {
            return sink;
        };
        // A peer that stops reading blocks this send; a farewell must still get through
        // to end the connection.
        tokio::select! {
            biased;
            last = &mut farewell => break last,
            sent = sink.send(message) => if sent.is_err() { return sink },
        }
    };
    let Ok(last_words) = last_words else {
        return sink;
    };
    let _ = tokio::time::timeout(FAREWELL_TIME, async {
        while let Ok(message) = queue.try_recv() {
            sink.feed(message).await?;
        }
        sink.feed(Message::text(last_words.bye)).await?;
        sink.send(Message::Close(Some(last_words.close))).await
    })
    .await;
    sink
}

/// The state of one connection's reader.
struct Connection {
    state: Arc<ServerState>,
    addr: SocketAddr,
    conn_id: u64,
    peer: Peer,
    kick: Arc<Kick>,
    limiter: RateLimiter,
    /// Set by `hello`.
    session: Option<SessionId>,
    name: String,
}

impl Connection {
    async fn read_loop(
        &mut self,
        stream: &mut SplitStream<Ws>,
        token: tokio_util::sync::CancellationToken,
    ) -> Ending {
        let config = &self.state.config;
        let (idle_timeout, ping_every) = (config.idle_timeout, config.ping_interval);
        let handshake_deadline = Instant::now() + config.handshake_timeout;
        let mut last_heard = Instant::now();
        let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let kick = self.kick.clone();
        loop {
            let idle_deadline = last_heard + idle_timeout;
            let (deadline, late) = if self.session.is_none() && handshake_deadline < idle_deadline {
                (handshake_deadline, ByeReason::HandshakeTimeout)
            } else {
                (idle_deadline, ByeReason::IdleTimeout)
            };
            tokio::select! {
                () = token.cancelled() => {
                    return Ending::bye(ByeReason::Shutdown, "the server is shutting down", CloseCode::Away);
                }
                () = kick.kicked() => {
                    let reason = kick.reason().unwrap_or(ByeReason::TooSlow);
                    let (message, code) = match reason {
                        ByeReason::Replaced => ("your session was resumed by another connection", CloseCode::Normal),
                        _ => ("you read too slowly; reconnect to resume your session", CloseCode::Policy),
                    };
                    return Ending::bye(reason, message, code);
                }
                () = tokio::time::sleep_until(deadline) => {
                    let message = match late {
                        ByeReason::HandshakeTimeout => "no hello arrived in time",
                        _ => "nothing heard from you for too long",
                    };
                    return Ending::bye(late, message, CloseCode::Normal);
                }
                _ = ping.tick() => {
                    let _ = self.peer.send_raw(Message::Ping(Bytes::new()));
                }
                frame = stream.next() => {
                    let message = match frame {
                        None => return Ending::Gone,
                        Some(Err(WsError::Capacity(e))) => {
                            let message = format!("{e}; the limit is {} bytes", self.state.config.max_message_size);
                            self.error(None, ErrorCode::TooLarge, message.clone());
                            return Ending::Bye {
                                reason: ByeReason::TooLarge,
                                message,
                                code: CloseCode::Size,
                                readable: false,
                            };
                        }
                        Some(Err(e)) => {
                            tracing::debug!(peer = %self.addr, error = %e, "read failed");
                            return Ending::Gone;
                        }
                        Some(Ok(message)) => message,
                    };
                    last_heard = Instant::now();
                    let ending = match message {
                        Message::Text(text) => self.on_message(Some(text.as_str())).await,
                        Message::Binary(_) => self.on_message(None).await,
                        Message::Close(_) => Some(Ending::PeerClosed),
                        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => None,
                    };
                    if let Some(ending) = ending {
                        return ending;
                    }
                }
            }
        }
    }

    /// Queues a frame for this connection.
    fn send(&self, message: ServerMessage, id: Option<RequestId>) {
        // A full queue kicks this connection as too slow; the read loop sees the kick.
        let _ = self.peer.send(message, id);
    }

    fn error(&self, id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) {
        self.send(
            ServerMessage::Error {
                code,
                message: message.into(),
            },
            id,
        );
    }

    fn refuse(&self, id: Option<RequestId>, refusal: Refusal) {
        self.error(id, refusal.code, refusal.message);
    }

    fn member(&self, session: SessionId) -> Member {
        Member {
            session,
            name: self.name.clone(),
            peer: self.peer.clone(),
        }
    }

    /// Handles one data frame (`None` for a binary one).
    async fn on_message(&mut self, text: Option<&str>) -> Option<Ending> {
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
            return (verdict == RateVerdict::Exceeded).then(|| {
                Ending::bye(
                    ByeReason::RateLimited,
                    "too many messages after being rate limited",
                    CloseCode::Policy,
                )
            });
        }
        match decoded {
            None => {
                self.error(
                    None,
                    ErrorCode::BadRequest,
                    "binary frames are not part of the protocol: send JSON text",
                );
                None
            }
            Some(Err(e)) => {
                self.error(e.id, ErrorCode::BadRequest, e.message);
                None
            }
            Some(Ok(frame)) => self.dispatch(frame).await,
        }
    }

    async fn dispatch(&mut self, frame: ClientFrame) -> Option<Ending> {
        let ClientFrame { message, id } = frame;
        let Some(session) = self.session else {
            if let ClientMessage::Hello {
                protocol,
                name,
                token,
            } = message
            {
                return self.hello(protocol, &name, token.as_deref(), id).await;
            }
            self.error(id, ErrorCode::BadRequest, "say hello first");
            return None;
        };
        let state = self.state.clone();
        let (room, request) = match message {
            ClientMessage::Hello { .. } => {
                self.error(id, ErrorCode::BadRequest, "hello was already said");
                return None;
            }
            ClientMessage::ListRooms {} => {
                self.send(
                    ServerMessage::Rooms {
                        rooms: state.lobby.list(),
                    },
                    id,
                );
                return None;
            }
            ClientMessage::CreateRoom {
                name,
                rules,
                seats,
                private,
            } => {
                let request = CreateRoom {
                    name,
                    rules,
                    seats,
                    private,
                };
                match RoomSpec::try_from_request(request, &self.name, state.config.max_name_chars) {
                    Ok(spec) => match room::open(
                        &state.room_context(),
                        spec,
                        self.member(session),
                        id.clone(),
                    ) {
                        Ok(room) => state.sessions.enter(session, &room),
                        Err(refusal) => self.refuse(id, refusal),
                    },
                    Err(refusal) => self.refuse(id, refusal),
                }
                return None;
            }
            ClientMessage::Join { room, seat } => (room, Request::Join { seat }),
            ClientMessage::Leave { room } => (room, Request::Leave),
            ClientMessage::SetSeat { room, seat, ai } => (room, Request::SetSeat { seat, ai }),
            ClientMessage::Play { room, ply, mv } => (room, Request::Play { ply, mv }),
            ClientMessage::Resign { room } => (room, Request::Resign),
            ClientMessage::Rematch { room } => (room, Request::Rematch),
            ClientMessage::Chat { room, text } => (room, Request::Chat { text }),
        };
        // Invite codes are read out and typed: accept them in any case, with stray spaces.
        let room = RoomId(room.0.trim().to_ascii_lowercase());
        let Some(handle) = state.lobby.get(&room) else {
            state.sessions.exit(session, &room);
            self.error(id, ErrorCode::UnknownRoom, format!("no room {room}"));
            return None;
        };
        let membership = match &request {
            Request::Join { .. } => Some(true),
            Request::Leave => Some(false),
            _ => None,
        };
        match handle
            .request(self.member(session), id.clone(), request)
            .await
        {
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
        None
    }

    async fn hello(
        &mut self,
        protocol: u32,
        name: &str,
        token: Option<&str>,
        id: Option<RequestId>,
    ) -> Option<Ending> {
        if protocol != PROTOCOL_VERSION {
            let message = format!("this server speaks protocol {PROTOCOL_VERSION}, not {protocol}");
            self.error(id, ErrorCode::UnsupportedProtocol, message.clone());
            return Some(Ending::bye(
                ByeReason::UnsupportedProtocol,
                message,
                CloseCode::Protocol,
            ));
        }
        let name = match text::display_name(name, self.state.config.max_name_chars) {
            Ok(name) => name,
            Err(message) => {
                self.error(id, ErrorCode::InvalidName, message);
                return None;
            }
        };
        let state = self.state.clone();
        let opened = state.sessions.open(token, self.kick.clone());
        self.peer = self.peer.reissued(opened.attachment);
        if let Some(old) = &opened.replaced {
            old.kick(ByeReason::Replaced);
        }
        self.session = Some(opened.session);
        self.name = name;
        tracing::info!(
            peer = %self.addr,
            conn = self.conn_id,
            session = %opened.session,
            resumed = opened.resumed,
            "session opened"
        );
        self.send(
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                session: opened.session,
                token: opened.token,
                server: SERVER_NAME.to_owned(),
                resumed: opened.resumed,
            },
            id,
        );
        for room in opened.rooms {
            let present = match state.lobby.get(&room) {
                Some(handle) => handle.resume(self.member(opened.session)).await,
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
    async fn release_session(&self) {
        let Some(session) = self.session else { return };
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
        let state = state.clone();
        self.state.tracker.spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(state.config.reconnect_grace) => {}
                () = grace.cancelled() => return,
                () = state.shutdown.cancelled() => return,
            }
            let Some(rooms) = state.sessions.expire(session, &grace) else {
                return;
            };
            tracing::debug!(%session, "session expired");
            for room in rooms {
                if let Some(handle) = state.lobby.get(&room) {
                    handle.expire(session).await;
                }
            }
        });
    }
}
