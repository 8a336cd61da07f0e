//! A WebSocket client of the test server: sends frames, pairs requests with replies, waits
//! (always under [`RECV_TIMEOUT`]) for the frame or room state a test needs, and remembers
//! every room snapshot and chat line it saw so tests can compare clients.
//!
//! It speaks protocol 2 unless told otherwise ([`Client::set_protocol`]): each `moved`
//! event is applied to the room's last snapshot with the terminal client's
//! `inarow::board::apply_moved` and handed to the test as the `room` snapshot it makes, so
//! tests read the same snapshots in either version, and comparing a version 1 client's
//! snapshots with a version 2 client's checks the rule that applies `moved`.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ByeReason, ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, RequestId, RoomId,
    RoomSnapshot, ServerFrame, ServerMessage, SessionId, decode_server, encode,
};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any single wait for a frame (or for a room state) may take before the test fails.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(10);

/// What `hello` returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Welcome {
    /// The session's public id.
    pub session: SessionId,
    /// The secret that resumes the session.
    pub token: String,
    /// Whether an earlier session was resumed.
    pub resumed: bool,
    /// The server's name and version.
    pub server: String,
    /// The protocol version of the connection (the one `hello` asked for).
    pub protocol: u32,
}

/// How a connection ended, as seen by [`Client::expect_closed`].
#[derive(Debug, Clone, PartialEq)]
pub struct Closed {
    /// The close frame's code, if a close frame arrived.
    pub code: Option<u16>,
    /// The reason of the `bye` message seen before the close, if any.
    pub bye: Option<ByeReason>,
    /// Every frame read while waiting for the close (including the `bye`).
    pub frames: Vec<ServerFrame>,
    /// The transport error that ended the stream instead of a close frame, if any.
    pub error: Option<String>,
}

/// An `error` message received.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    /// The error code.
    pub code: ErrorCode,
    /// The human-readable message.
    pub message: String,
    /// The echoed request id.
    pub id: Option<RequestId>,
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One WebSocket client of the test server. Every room snapshot and chat line it receives is
/// kept in order (see [`Client::history`]) so tests can compare what each client saw.
pub struct Client {
    /// The socket.
    ws: Ws,
    /// Names the client in failure messages.
    label: String,
    /// The id of the next [`Client::request`], so replies can be told apart.
    next_id: u64,
    /// Set by `hello`: the session this connection speaks for.
    welcome: Option<Welcome>,
    /// Every room snapshot and chat line read, in order.
    history: Vec<ServerMessage>,
    /// WebSocket pings read (tungstenite answers them itself).
    pings: usize,
    /// The protocol version `hello` asks for.
    protocol: u32,
    /// `moved` events received (each handed on as the snapshot it makes).
    moves: usize,
}

/// One item read from the socket.
enum Incoming {
    Frame(ServerFrame),
    Closed { code: Option<u16> },
    Failed(String),
}

impl Client {
    fn new(ws: Ws, label: &str) -> Client {
        Client {
            ws,
            label: label.to_owned(),
            next_id: 1,
            welcome: None,
            history: Vec::new(),
            pings: 0,
            protocol: PROTOCOL_VERSION,
            moves: 0,
        }
    }

    /// Makes the next `hello` ask for protocol `version` (the default is
    /// [`PROTOCOL_VERSION`]).
    pub fn set_protocol(&mut self, version: u32) {
        self.protocol = version;
    }

    /// How many `moved` events the server has sent us (read so far).
    pub fn moves_received(&self) -> usize {
        self.moves
    }

    /// Connects to `ws://addr`; fails the test if the WebSocket handshake does not complete.
    pub async fn connect(addr: SocketAddr, label: &str) -> Client {
        match Client::try_connect(addr, label).await {
            Ok(client) => client,
            Err(error) => panic!("{label}: WebSocket connect to {addr} failed: {error}"),
        }
    }

    /// Connects to `ws://addr`, returning the handshake error instead of failing.
    pub async fn try_connect(addr: SocketAddr, label: &str) -> Result<Client, String> {
        let url = format!("ws://{addr}/");
        let (ws, _response) =
            tokio::time::timeout(RECV_TIMEOUT, tokio_tungstenite::connect_async(url))
                .await
                .map_err(|_| format!("{label}: handshake timed out"))?
                .map_err(|e| e.to_string())?;
        Ok(Client::new(ws, label))
    }

    /// Connects from the loopback address `from` (any of 127.0.0.0/8), so that tests of
    /// per-address limits can be several hosts at once; returns the handshake error (or
    /// the refusal frames, which arrive after a completed handshake) to the caller.
    pub async fn try_connect_from(
        addr: SocketAddr,
        from: std::net::Ipv4Addr,
        label: &str,
    ) -> Result<Client, String> {
        let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
        socket
            .bind(SocketAddr::from((from, 0)))
            .map_err(|e| format!("{label}: cannot bind {from}: {e}"))?;
        let stream = tokio::time::timeout(RECV_TIMEOUT, socket.connect(addr))
            .await
            .map_err(|_| format!("{label}: TCP connect timed out"))?
            .map_err(|e| format!("{label}: TCP connect failed: {e}"))?;
        let url = format!("ws://{addr}/");
        let (ws, _response) = tokio::time::timeout(
            RECV_TIMEOUT,
            tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)),
        )
        .await
        .map_err(|_| format!("{label}: handshake timed out"))?
        .map_err(|e| format!("{label}: handshake failed: {e}"))?;
        Ok(Client::new(ws, label))
    }

    /// Like [`Client::try_connect_from`], failing the test on error.
    pub async fn connect_from(addr: SocketAddr, from: std::net::Ipv4Addr, label: &str) -> Client {
        match Client::try_connect_from(addr, from, label).await {
            Ok(client) => client,
            Err(error) => panic!("{error}"),
        }
    }

    /// Connects with a small kernel receive buffer (`SO_RCVBUF`), so that a client that
    /// stops reading makes the server's writes block soon (for slow-consumer tests).
    pub async fn connect_with_small_buffer(addr: SocketAddr, label: &str) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
        socket
            .set_recv_buffer_size(4096)
            .expect("setting SO_RCVBUF works on loopback sockets");
        let stream = tokio::time::timeout(RECV_TIMEOUT, socket.connect(addr))
            .await
            .unwrap_or_else(|_| panic!("{label}: TCP connect timed out"))
            .unwrap_or_else(|e| panic!("{label}: TCP connect failed: {e}"));
        let url = format!("ws://{addr}/");
        let (ws, _response) = tokio::time::timeout(
            RECV_TIMEOUT,
            tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)),
        )
        .await
        .unwrap_or_else(|_| panic!("{label}: handshake timed out"))
        .unwrap_or_else(|e| panic!("{label}: handshake failed: {e}"));
        Client::new(ws, label)
    }

    /// The label used in failure messages (the name given at connect).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Says `hello` with `name` (and no token) and returns the welcome.
    pub async fn hello(&mut self, name: &str) -> Welcome {
        self.hello_with(name, None).await
    }

    /// Says `hello` with `name` and an optional session token; fails unless a `welcome`
    /// carrying the request id arrives.
    pub async fn hello_with(&mut self, name: &str, token: Option<String>) -> Welcome {
        let hello = ClientMessage::Hello {
            protocol: self.protocol,
            name: name.to_owned(),
            token,
        };
        match self.call(hello).await {
            ServerMessage::Welcome {
                protocol,
                session,
                token,
                server,
                resumed,
            } => {
                let welcome = Welcome {
                    session,
                    token,
                    resumed,
                    server,
                    protocol,
                };
                self.welcome = Some(welcome.clone());
                welcome
            }
            other => panic!("{}: expected welcome, got {other:?}", self.label),
        }
    }

    /// The welcome of this connection's session.
    fn welcome(&self) -> &Welcome {
        match &self.welcome {
            Some(w) => w,
            None => panic!("{}: no hello yet", self.label),
        }
    }

    /// This connection's session id.
    pub fn session(&self) -> SessionId {
        self.welcome().session
    }

    /// This connection's session token.
    pub fn token(&self) -> String {
        self.welcome().token.clone()
    }

    /// Sends a message with the given id.
    pub async fn send_with_id(&mut self, message: ClientMessage, id: RequestId) {
        let frame = ClientFrame {
            message,
            id: Some(id),
        };
        self.send_raw(encode(&frame)).await;
    }

    /// Sends a message with a fresh numeric id and returns that id.
    pub async fn request(&mut self, message: ClientMessage) -> RequestId {
        let id = RequestId::Number(self.next_id);
        self.next_id += 1;
        self.send_with_id(message, id.clone()).await;
        id
    }

    /// Sends a text frame as is.
    pub async fn send_raw(&mut self, text: impl Into<String>) {
        if let Err(error) = self.try_send_raw(text).await {
            panic!("{}: send failed: {error}", self.label);
        }
    }

    /// Sends a text frame, returning the transport error instead of failing (for floods
    /// and oversize frames, where the server may close the socket under our feet).
    pub async fn try_send_raw(&mut self, text: impl Into<String>) -> Result<(), String> {
        self.try_send(Message::text(text.into())).await
    }

    /// Sends one text message split into several WebSocket frames (a first text frame
    /// and continuation frames), returning the transport error instead of failing.
    pub async fn try_send_fragments(&mut self, parts: &[&str]) -> Result<(), String> {
        use tokio_tungstenite::tungstenite::protocol::frame::Frame;
        use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
        for (i, part) in parts.iter().enumerate() {
            let opcode = if i == 0 {
                OpCode::Data(Data::Text)
            } else {
                OpCode::Data(Data::Continue)
            };
            let frame = Frame::message(part.as_bytes().to_vec(), opcode, i + 1 == parts.len());
            self.try_send(Message::Frame(frame)).await?;
        }
        Ok(())
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        if let Err(error) = self.try_send(Message::binary(bytes)).await {
            panic!("{}: send failed: {error}", self.label);
        }
    }

    /// Sends one WebSocket message under [`RECV_TIMEOUT`].
    async fn try_send(&mut self, message: Message) -> Result<(), String> {
        tokio::time::timeout(RECV_TIMEOUT, self.ws.send(message))
            .await
            .map_err(|_| "send timed out".to_owned())?
            .map_err(|e| e.to_string())
    }

    /// Closes the connection politely (close frame 1000) and drops it.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(RECV_TIMEOUT, self.ws.close(None)).await;
    }

    /// Every room snapshot and chat line received so far, in order.
    pub fn history(&self) -> &[ServerMessage] {
        &self.history
    }

    /// The snapshots of `room` received so far, in order.
    fn room_snapshots<'a>(
        &'a self,
        room: &'a RoomId,
    ) -> impl DoubleEndedIterator<Item = &'a RoomSnapshot> {
        self.history.iter().filter_map(move |m| match m {
            ServerMessage::Room { room: snap } if &snap.id == room => Some(&**snap),
            _ => None,
        })
    }

    /// The snapshots of `room` received so far, in order.
    pub fn snapshots(&self, room: &RoomId) -> Vec<RoomSnapshot> {
        self.room_snapshots(room).cloned().collect()
    }

    /// The latest snapshot of `room` received so far, if any.
    pub fn latest(&self, room: &RoomId) -> Option<RoomSnapshot> {
        self.room_snapshots(room).next_back().cloned()
    }

    /// The sequence numbers of every event (snapshot or chat) of `room` received so far.
    pub fn seqs(&self, room: &RoomId) -> Vec<u64> {
        self.history
            .iter()
            .filter_map(|m| match m {
                ServerMessage::Room { room: snap } if &snap.id == room => Some(snap.seq),
                ServerMessage::Chat { room: r, seq, .. } if r == room => Some(*seq),
                _ => None,
            })
            .collect()
    }

    /// How many WebSocket pings the server has sent us (read so far).
    pub fn pings(&self) -> usize {
        self.pings
    }

    /// Reads the next frame, close or transport error; `None` once `deadline` passes.
    /// Room snapshots and chat lines go into the history; pings are counted.
    async fn read_until(&mut self, deadline: Instant) -> Option<Incoming> {
        loop {
            let item = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .ok()?;
            match item {
                None => return Some(Incoming::Closed { code: None }),
                Some(Err(error)) => return Some(Incoming::Failed(error.to_string())),
                Some(Ok(Message::Text(text))) => match decode_server(text.as_str()) {
                    Ok(frame) => {
                        let frame = self.apply_moved(frame);
                        if let ServerMessage::Room { .. } | ServerMessage::Chat { .. } =
                            &frame.message
                        {
                            self.history.push(frame.message.clone());
                        }
                        return Some(Incoming::Frame(frame));
                    }
                    Err(error) => panic!(
                        "{}: the server sent a frame the protocol cannot decode ({error}): {}",
                        self.label,
                        text.as_str()
                    ),
                },
                Some(Ok(Message::Close(frame))) => {
                    return Some(Incoming::Closed {
                        code: frame.map(|f| u16::from(f.code)),
                    });
                }
                Some(Ok(Message::Ping(_))) => self.pings += 1,
                Some(Ok(Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Binary(bytes))) => panic!(
                    "{}: the server sent a binary frame of {} bytes",
                    self.label,
                    bytes.len()
                ),
            }
        }
    }

    /// A `moved` frame as the snapshot it makes of the room's last one; any other frame as
    /// it is. The server never leaves a gap, so a move that does not follow fails the test.
    fn apply_moved(&mut self, frame: ServerFrame) -> ServerFrame {
        let ServerMessage::Moved(event) = frame.message else {
            return frame;
        };
        self.moves += 1;
        let mut last = self
            .latest(&event.room)
            .unwrap_or_else(|| panic!("{}: a move in a room never seen: {event:?}", self.label));
        // Chat lines since the snapshot moved the room's seq on.
        let seen = self.seqs(&event.room).last().copied().unwrap_or(last.seq);
        assert_eq!(
            event.seq,
            seen + 1,
            "{}: the move {event:?} leaves a gap after seq {seen}",
            self.label
        );
        last.seq = seen;
        let Some(next) = inarow::board::apply_moved(&last, &event) else {
            panic!(
                "{}: the move {event:?} does not follow the last snapshot {last:?}",
                self.label
            )
        };
        ServerFrame {
            message: ServerMessage::Room {
                room: Box::new(next),
            },
            id: frame.id,
        }
    }

    /// Like [`Client::read_until`], but a deadline that passes fails the test.
    async fn next_incoming(&mut self, deadline: Instant, waiting_for: &str) -> Incoming {
        match self.read_until(deadline).await {
            Some(incoming) => incoming,
            None => panic!(
                "{}: timed out after {RECV_TIMEOUT:?} waiting for {waiting_for}",
                self.label
            ),
        }
    }

    /// Reads the next frame; fails on timeout, on close and on undecodable frames.
    pub async fn recv(&mut self) -> ServerFrame {
        let deadline = Instant::now() + RECV_TIMEOUT;
        self.recv_until(deadline, "a frame").await
    }

    async fn recv_until(&mut self, deadline: Instant, waiting_for: &str) -> ServerFrame {
        match self.next_incoming(deadline, waiting_for).await {
            Incoming::Frame(frame) => frame,
            Incoming::Closed { code } => panic!(
                "{}: connection closed (code {code:?}) while waiting for {waiting_for}",
                self.label
            ),
            Incoming::Failed(error) => panic!(
                "{}: connection failed ({error}) while waiting for {waiting_for}",
                self.label
            ),
        }
    }

    /// Reads until the reply to request `id` arrives and returns it, skipping broadcasts
    /// (frames without an id). Fails on an `error` or `bye`, or on a frame answering
    /// another request.
    async fn expect_reply(&mut self, id: &RequestId) -> ServerMessage {
        let deadline = Instant::now() + RECV_TIMEOUT;
        let waiting_for = format!("the reply to request {id:?}");
        loop {
            let frame = self.recv_until(deadline, &waiting_for).await;
            match (&frame.id, &frame.message) {
                (_, ServerMessage::Bye { reason, message }) => panic!(
                    "{}: bye {reason:?} ({message}) while waiting for {waiting_for}",
                    self.label
                ),
                (Some(got), ServerMessage::Error { code, message }) if got == id => panic!(
                    "{}: request {id:?} was refused: {code} ({message})",
                    self.label
                ),
                (Some(got), _) if got == id => return frame.message,
                (Some(other), message) => panic!(
                    "{}: expected the reply to {id:?}, got a frame for {other:?}: {message:?}",
                    self.label
                ),
                (None, ServerMessage::Error { code, message }) => panic!(
                    "{}: error {code} ({message}) without an id while waiting for {waiting_for}",
                    self.label
                ),
                (None, _) => {}
            }
        }
    }

    /// Sends `message` with a fresh id and returns its reply, skipping broadcasts; fails on
    /// an `error` or `bye`, or on a frame answering another request.
    pub async fn call(&mut self, message: ClientMessage) -> ServerMessage {
        let id = self.request(message).await;
        self.expect_reply(&id).await
    }

    /// Sends `message` with a fresh id and expects a room snapshot as the reply.
    pub async fn call_room(&mut self, message: ClientMessage) -> RoomSnapshot {
        match self.call(message).await {
            ServerMessage::Room { room } => *room,
            other => panic!("{}: expected a room snapshot, got {other:?}", self.label),
        }
    }

    /// Reads until an `error` arrives, skipping room snapshots and chat lines without an
    /// id; fails if its code is not `code` or if anything else arrives first.
    pub async fn expect_error(&mut self, code: ErrorCode) -> ErrorReply {
        let deadline = Instant::now() + RECV_TIMEOUT;
        let waiting_for = format!("error {code}");
        loop {
            let frame = self.recv_until(deadline, &waiting_for).await;
            match frame.message {
                ServerMessage::Error { code: got, message } => {
                    assert_eq!(
                        got, code,
                        "{}: expected error {code}, got {got} ({message})",
                        self.label
                    );
                    return ErrorReply {
                        code: got,
                        message,
                        id: frame.id,
                    };
                }
                ServerMessage::Room { .. } | ServerMessage::Chat { .. } if frame.id.is_none() => {}
                other => panic!(
                    "{}: expected error {code}, got {other:?} (id {:?})",
                    self.label, frame.id
                ),
            }
        }
    }

    /// Sends `message` with a fresh id and expects `error code` carrying that id.
    pub async fn expect_refused(&mut self, message: ClientMessage, code: ErrorCode) -> ErrorReply {
        let id = self.request(message).await;
        let reply = self.expect_error(code).await;
        assert_eq!(
            reply.id.as_ref(),
            Some(&id),
            "{}: error {code} should echo the request id",
            self.label
        );
        reply
    }

    /// Reads until a snapshot satisfying `pred` arrives and returns it; skips every other
    /// frame except `error` and `bye`, which fail the test.
    pub async fn wait_room(&mut self, pred: impl Fn(&RoomSnapshot) -> bool) -> RoomSnapshot {
        let deadline = Instant::now() + RECV_TIMEOUT;
        loop {
            let frame = self
                .recv_until(deadline, "a room snapshot matching the test's condition")
                .await;
            match frame.message {
                ServerMessage::Room { room } if pred(&room) => return *room,
                ServerMessage::Error { code, message } => panic!(
                    "{}: error {code} ({message}, id {:?}) while waiting for a room snapshot",
                    self.label, frame.id
                ),
                ServerMessage::Bye { reason, message } => panic!(
                    "{}: bye {reason:?} ({message}) while waiting for a room snapshot",
                    self.label
                ),
                _ => {}
            }
        }
    }

    /// Like [`Client::wait_room`] for `room`, but first looks at the latest snapshot of
    /// `room` already received: if it satisfies `pred` it is returned without reading.
    /// Use it for conditions that stay true once reached (a ply reached, a game over).
    pub async fn reach_room(
        &mut self,
        room: &RoomId,
        pred: impl Fn(&RoomSnapshot) -> bool,
    ) -> RoomSnapshot {
        if let Some(latest) = self.latest(room).filter(|s| pred(s)) {
            return latest;
        }
        self.wait_room(|s| &s.id == room && pred(s)).await
    }

    /// Reads until the socket closes; returns the close code and the `bye` reason seen.
    /// Fails if the socket stays open for [`RECV_TIMEOUT`].
    pub async fn expect_closed(&mut self) -> Closed {
        let deadline = Instant::now() + RECV_TIMEOUT;
        let mut closed = Closed {
            code: None,
            bye: None,
            frames: Vec::new(),
            error: None,
        };
        loop {
            match self
                .next_incoming(deadline, "the connection to close")
                .await
            {
                Incoming::Frame(frame) => {
                    if let ServerMessage::Bye { reason, .. } = &frame.message {
                        closed.bye = Some(*reason);
                    }
                    closed.frames.push(frame);
                }
                Incoming::Closed { code } => {
                    closed.code = code;
                    return closed;
                }
                Incoming::Failed(error) => {
                    closed.error = Some(error);
                    return closed;
                }
            }
        }
    }

    /// Reads whatever arrives for `duration` (answering pings, as any reader does) and
    /// returns it; fails if the connection closes or says `bye` meanwhile. For tests about
    /// time passing.
    pub async fn idle_for(&mut self, duration: Duration) -> Vec<ServerFrame> {
        let deadline = Instant::now() + duration;
        let mut frames = Vec::new();
        loop {
            match self.read_until(deadline).await {
                None => return frames,
                Some(Incoming::Frame(frame)) => {
                    if let ServerMessage::Bye { reason, message } = &frame.message {
                        panic!("{}: bye {reason:?} ({message}) while idle", self.label);
                    }
                    frames.push(frame);
                }
                Some(Incoming::Closed { code }) => {
                    panic!("{}: closed while idle (code {code:?})", self.label)
                }
                Some(Incoming::Failed(error)) => {
                    panic!("{}: connection failed while idle: {error}", self.label)
                }
            }
        }
    }
}
