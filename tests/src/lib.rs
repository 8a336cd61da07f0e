//! Harness for the end-to-end tests: a real inarow server on 127.0.0.1:0 and real WebSocket clients.
//!
//! Every receive runs under [`RECV_TIMEOUT`]; a timeout is a test failure with a message that
//! names the client and what it was waiting for. Nothing here sleeps to synchronise: waiting
//! means reading frames until the expected one arrives.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ByeReason, ClientFrame, ClientMessage, ErrorCode, GameStatus, Level, Mark, Occupant,
    PROTOCOL_VERSION, RequestId, RoomId, RoomSnapshot, RulesSpec, SeatChoice, SeatPlan,
    SeatRequest, ServerFrame, ServerMessage, SessionId, decode_server, encode,
};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;

pub use inarow_server::Config;

/// How long any single wait for a frame (or for a room state) may take before the test fails.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(10);

/// How long [`TestServer::shutdown`] waits for the server task before failing the test. The
/// server promises about 5 s; tests that check that bound assert on the returned duration.
pub const SHUTDOWN_WAIT: Duration = Duration::from_secs(15);

/// A configuration for tests: AI moves without pacing and with a short time budget.
pub fn fast_config() -> Config {
    Config {
        ai_pace: Duration::ZERO,
        ai_move_time: Duration::from_millis(200),
        ..Config::default()
    }
}

/// The tic-tac-toe preset.
pub fn tictactoe() -> RulesSpec {
    RulesSpec::Preset("tictactoe".to_owned())
}

/// A seat plan from two seat requests.
pub fn plan(x: SeatRequest, o: SeatRequest) -> SeatPlan {
    SeatPlan { x, o }
}

/// A perfect AI seat request.
pub fn perfect_ai() -> SeatRequest {
    SeatRequest::Ai {
        level: Level::Perfect,
    }
}

/// A server running `inarow_server::run` on a loopback port chosen by the OS.
pub struct TestServer {
    addr: SocketAddr,
    token: CancellationToken,
    task: Option<JoinHandle<Result<(), inarow_server::ServerError>>>,
}

impl TestServer {
    /// Binds 127.0.0.1:0 and spawns the server with `config`.
    pub async fn start(config: Config) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding a loopback port must work");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let token = CancellationToken::new();
        let task = tokio::spawn(inarow_server::run(listener, config, token.clone()));
        TestServer {
            addr,
            token,
            task: Some(task),
        }
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Opens a WebSocket connection (no `hello` yet).
    pub async fn connect(&self, label: &str) -> Client {
        Client::connect(self.addr, label).await
    }

    /// Opens a connection and says `hello` with `name`.
    pub async fn lobby(&self, name: &str) -> Client {
        let mut client = self.connect(name).await;
        client.hello(name).await;
        client
    }

    /// Ann (X) and Bob (O) in a fresh public tic-tac-toe room whose game has started:
    /// X to move at ply 0.
    pub async fn seated_pair(&self) -> (Client, Client, RoomId) {
        let mut ann = self.lobby("Ann").await;
        let mut bob = self.lobby("Bob").await;
        let room = ann
            .create_room(tictactoe(), plan(SeatRequest::Me, SeatRequest::Open), false)
            .await
            .id;
        bob.join(&room, Some(SeatChoice::O)).await;
        ann.reach_room(&room, |s| {
            s.ply == 0 && s.status == GameStatus::Playing { turn: Mark::X }
        })
        .await;
        (ann, bob, room)
    }

    /// Whether the server task has ended (it should only end after [`TestServer::shutdown`]).
    pub fn is_finished(&self) -> bool {
        self.task.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Cancels the shutdown token and waits for `run` to return; returns how long that took.
    /// Fails the test if `run` panicked, returned an error or did not end within
    /// [`SHUTDOWN_WAIT`].
    pub async fn shutdown(mut self) -> Duration {
        let task = self.task.take().expect("shutdown is only called once");
        let started = Instant::now();
        self.token.cancel();
        match tokio::time::timeout(SHUTDOWN_WAIT, task).await {
            Err(_) => panic!("server task still running {SHUTDOWN_WAIT:?} after cancellation"),
            Ok(Err(join)) => panic!("server task panicked: {join}"),
            Ok(Ok(Err(error))) => panic!("server run() returned an error: {error}"),
            Ok(Ok(Ok(()))) => started.elapsed(),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // A test that fails midway still stops its server instead of leaving it to the runtime.
        self.token.cancel();
    }
}

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
    /// The protocol version the server speaks.
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
    ws: Ws,
    label: String,
    next_id: u64,
    welcome: Option<Welcome>,
    history: Vec<ServerMessage>,
    pings: usize,
}

/// One item read from the socket.
enum Incoming {
    Frame(ServerFrame),
    Closed { code: Option<u16> },
    Failed(String),
}

impl Client {
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
        Ok(Client {
            ws,
            label: label.to_owned(),
            next_id: 1,
            welcome: None,
            history: Vec::new(),
            pings: 0,
        })
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
        Client {
            ws,
            label: label.to_owned(),
            next_id: 1,
            welcome: None,
            history: Vec::new(),
            pings: 0,
        }
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
        let id = self
            .request(ClientMessage::Hello {
                protocol: PROTOCOL_VERSION,
                name: name.to_owned(),
                token,
            })
            .await;
        match self.expect_reply(&id).await {
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
    pub fn welcome(&self) -> &Welcome {
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

    /// Sends a message without an id.
    pub async fn send(&mut self, message: ClientMessage) {
        let frame = ClientFrame::from(message);
        self.send_raw(encode(&frame)).await;
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
        let text: String = text.into();
        tokio::time::timeout(RECV_TIMEOUT, self.ws.send(Message::text(text)))
            .await
            .map_err(|_| "send timed out".to_owned())?
            .map_err(|e| e.to_string())
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
            tokio::time::timeout(RECV_TIMEOUT, self.ws.send(Message::Frame(frame)))
                .await
                .map_err(|_| "send timed out".to_owned())?
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        let sent = tokio::time::timeout(RECV_TIMEOUT, self.ws.send(Message::binary(bytes))).await;
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(error)) => panic!("{}: send failed: {error}", self.label),
            Err(_) => panic!("{}: send timed out", self.label),
        }
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
    pub fn snapshots(&self, room: &RoomId) -> Vec<RoomSnapshot> {
        self.history
            .iter()
            .filter_map(|m| match m {
                ServerMessage::Room { room: snap } if &snap.id == room => Some((**snap).clone()),
                _ => None,
            })
            .collect()
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

    async fn next_incoming(
        &mut self,
        deadline: tokio::time::Instant,
        waiting_for: &str,
    ) -> Incoming {
        loop {
            let item = match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Ok(item) => item,
                Err(_) => panic!(
                    "{}: timed out after {RECV_TIMEOUT:?} waiting for {waiting_for}",
                    self.label
                ),
            };
            match item {
                None => return Incoming::Closed { code: None },
                Some(Err(error)) => return Incoming::Failed(error.to_string()),
                Some(Ok(Message::Text(text))) => match decode_server(text.as_str()) {
                    Ok(frame) => {
                        if let ServerMessage::Room { .. } | ServerMessage::Chat { .. } =
                            &frame.message
                        {
                            self.history.push(frame.message.clone());
                        }
                        return Incoming::Frame(frame);
                    }
                    Err(error) => panic!(
                        "{}: the server sent a frame the protocol cannot decode ({error}): {}",
                        self.label,
                        text.as_str()
                    ),
                },
                Some(Ok(Message::Close(frame))) => {
                    return Incoming::Closed {
                        code: frame.map(|f| u16::from(f.code)),
                    };
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

    /// Reads the next frame; fails on timeout, on close and on undecodable frames.
    pub async fn recv(&mut self) -> ServerFrame {
        let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
        self.recv_until(deadline, "a frame").await
    }

    async fn recv_until(
        &mut self,
        deadline: tokio::time::Instant,
        waiting_for: &str,
    ) -> ServerFrame {
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
    pub async fn expect_reply(&mut self, id: &RequestId) -> ServerMessage {
        let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
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

    /// Sends `message` with a fresh id and returns its reply (see [`Client::expect_reply`]).
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
        let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
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
        let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
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

    /// The latest snapshot of `room` received so far, if any.
    pub fn latest(&self, room: &RoomId) -> Option<RoomSnapshot> {
        self.history.iter().rev().find_map(|m| match m {
            ServerMessage::Room { room: snap } if &snap.id == room => Some((**snap).clone()),
            _ => None,
        })
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
        let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
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
    /// returns it; fails if the connection closes meanwhile. For tests about time passing.
    pub async fn idle_for(&mut self, duration: Duration) -> Vec<ServerFrame> {
        let deadline = tokio::time::Instant::now() + duration;
        let mut frames = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return frames,
                Ok(None) => panic!("{}: connection closed while idle", self.label),
                Ok(Some(Err(error))) => {
                    panic!("{}: connection failed while idle: {error}", self.label)
                }
                Ok(Some(Ok(Message::Text(text)))) => match decode_server(text.as_str()) {
                    Ok(frame) => {
                        if let ServerMessage::Bye { reason, message } = &frame.message {
                            panic!("{}: bye {reason:?} ({message}) while idle", self.label);
                        }
                        frames.push(frame);
                    }
                    Err(error) => panic!("{}: undecodable frame ({error})", self.label),
                },
                Ok(Some(Ok(Message::Close(frame)))) => {
                    panic!("{}: closed while idle: {frame:?}", self.label)
                }
                Ok(Some(Ok(Message::Ping(_)))) => self.pings += 1,
                Ok(Some(Ok(_))) => {}
            }
        }
    }

    /// Lists the public rooms.
    pub async fn list_rooms(&mut self) -> Vec<inarow_protocol::RoomSummary> {
        match self.call(ClientMessage::ListRooms {}).await {
            ServerMessage::Rooms { rooms } => rooms,
            other => panic!("{}: expected rooms, got {other:?}", self.label),
        }
    }

    /// Creates a room and returns its first snapshot.
    pub async fn create_room(
        &mut self,
        rules: RulesSpec,
        seats: SeatPlan,
        private: bool,
    ) -> RoomSnapshot {
        self.call_room(ClientMessage::CreateRoom {
            name: None,
            rules,
            seats,
            private,
        })
        .await
    }

    /// Joins `room` in `seat` (or as a spectator with `None`); returns the reply snapshot.
    pub async fn join(&mut self, room: &RoomId, seat: Option<SeatChoice>) -> RoomSnapshot {
        self.call_room(ClientMessage::Join {
            room: room.clone(),
            seat,
        })
        .await
    }

    /// Plays `mv` at `ply`; returns the reply snapshot.
    pub async fn play(&mut self, room: &RoomId, ply: u32, mv: &str) -> RoomSnapshot {
        self.call_room(ClientMessage::Play {
            room: room.clone(),
            ply,
            mv: mv.to_owned(),
        })
        .await
    }

    /// Puts an AI of `level` in `seat` (or frees it with `None`); returns the reply snapshot.
    pub async fn set_seat(&mut self, room: &RoomId, seat: Mark, ai: Option<Level>) -> RoomSnapshot {
        self.call_room(ClientMessage::SetSeat {
            room: room.clone(),
            seat,
            ai,
        })
        .await
    }

    /// Leaves `room`; fails unless `left` arrives.
    pub async fn leave(&mut self, room: &RoomId) {
        match self.call(ClientMessage::Leave { room: room.clone() }).await {
            ServerMessage::Left { room: left } => assert_eq!(&left, room),
            other => panic!("{}: expected left, got {other:?}", self.label),
        }
    }

    /// Plays random legal moves for seat `me` of `room` until the game ends; `start` is the
    /// latest snapshot known. Returns the final snapshot.
    pub async fn play_randomly(
        &mut self,
        start: RoomSnapshot,
        me: Mark,
        rng: &mut XorShift,
    ) -> RoomSnapshot {
        let room = start.id.clone();
        let game = start.game;
        let mut latest = start;
        // The ply of our last move: a snapshot that still shows our turn at or before that
        // ply is an old one, not an invitation to move again.
        let mut played_at: Option<u32> = None;
        loop {
            if latest.game == game && latest.status.is_over() {
                return latest;
            }
            let my_turn = latest.game == game
                && latest.status == GameStatus::Playing { turn: me }
                && played_at.is_none_or(|p| latest.ply > p);
            if my_turn {
                assert!(
                    !latest.legal_moves.is_empty(),
                    "{}: my turn but no legal moves: {latest:?}",
                    self.label
                );
                let mv = latest.legal_moves[rng.below(latest.legal_moves.len())].clone();
                played_at = Some(latest.ply);
                latest = self.play(&room, latest.ply, &mv).await;
            } else {
                latest = self
                    .wait_room(|s| {
                        s.id == room
                            && (s.game != game
                                || s.status.is_over()
                                || (s.status == GameStatus::Playing { turn: me }
                                    && played_at.is_none_or(|p| s.ply > p)))
                    })
                    .await;
            }
        }
    }
}

/// A tiny deterministic random generator (xorshift64*), so games are reproducible.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a seed (any value; zero is replaced).
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The notation of the cell at `row` (counted from the top, as in snapshots) and `col`.
pub fn cell_name(row_from_top: usize, col: usize, height: usize) -> String {
    let letter = char::from(b'a' + u8::try_from(col).expect("boards are at most 19 wide"));
    format!("{letter}{}", height - row_from_top)
}

/// The mark on `board` at a cell given in notation (`"b2"`), or `None` if empty.
pub fn mark_at(board: &[String], cell: &str) -> Option<Mark> {
    let mut chars = cell.chars();
    let letter = chars.next().expect("a cell has a column letter");
    let col = usize::from(u8::try_from(letter).expect("column letters are ASCII") - b'a');
    let row: usize = chars.as_str().parse().expect("a cell has a row number");
    let line = &board[board.len() - row];
    match line.as_bytes()[col] {
        b'X' => Some(Mark::X),
        b'O' => Some(Mark::O),
        b'.' => None,
        other => panic!("unexpected board character {:?}", char::from(other)),
    }
}

/// The marks that have `k` or more stones in a row (any direction) on `board`.
pub fn marks_with_line(board: &[String], k: usize) -> HashSet<Mark> {
    let grid: Vec<&[u8]> = board.iter().map(|r| r.as_bytes()).collect();
    let height = grid.len() as isize;
    let mut found = HashSet::new();
    for r in 0..height {
        let width = grid[r as usize].len() as isize;
        for c in 0..width {
            let here = grid[r as usize][c as usize];
            if here == b'.' {
                continue;
            }
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let run = (0..k as isize)
                    .take_while(|i| {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        rr >= 0
                            && rr < height
                            && cc >= 0
                            && cc < width
                            && grid[rr as usize][cc as usize] == here
                    })
                    .count();
                if run == k {
                    found.insert(if here == b'X' { Mark::X } else { Mark::O });
                }
            }
        }
    }
    found
}

/// Checks a finished game's snapshot against its own board: a winner has a line of at
/// least k made of its stones (the one reported), a draw has a full board and no line,
/// the stone counts fit alternate play and `moves` matches `ply`.
pub fn check_result(snapshot: &RoomSnapshot) {
    let k = snapshot.rules.k as usize;
    let board = &snapshot.board;
    assert_eq!(
        board.len(),
        snapshot.rules.height as usize,
        "board height: {snapshot:?}"
    );
    assert!(
        board
            .iter()
            .all(|r| r.len() == snapshot.rules.width as usize),
        "board width: {snapshot:?}"
    );
    let count = |m: u8| {
        board
            .iter()
            .map(|r| r.bytes().filter(|&b| b == m).count())
            .sum::<usize>()
    };
    let (xs, os) = (count(b'X'), count(b'O'));
    assert!(
        xs == os || xs == os + 1,
        "stone counts X {xs} O {os}: {snapshot:?}"
    );
    assert_eq!(
        xs + os,
        snapshot.ply as usize,
        "stones vs ply: {snapshot:?}"
    );
    assert_eq!(
        snapshot.moves.len(),
        snapshot.ply as usize,
        "moves vs ply: {snapshot:?}"
    );
    assert!(
        snapshot.legal_moves.is_empty(),
        "legal moves after the end: {snapshot:?}"
    );
    let lines = marks_with_line(board, k);
    match &snapshot.status {
        GameStatus::Won { winner, line } => {
            assert!(
                lines.contains(winner),
                "winner {winner} has no line: {snapshot:?}"
            );
            assert!(
                !lines.contains(&winner.other()),
                "the loser also has a line: {snapshot:?}"
            );
            assert!(line.len() >= k, "winning line shorter than k: {snapshot:?}");
            for cell in line {
                assert_eq!(
                    mark_at(board, cell),
                    Some(*winner),
                    "winning line cell {cell} is not the winner's: {snapshot:?}"
                );
            }
            // The winner made the last move.
            let last_mover = if snapshot.ply % 2 == 1 {
                Mark::X
            } else {
                Mark::O
            };
            assert_eq!(
                *winner, last_mover,
                "the winner did not move last: {snapshot:?}"
            );
        }
        GameStatus::Drawn => {
            assert!(
                board.iter().all(|r| !r.contains('.')),
                "a draw with empty cells: {snapshot:?}"
            );
            assert!(
                lines.is_empty(),
                "a draw with a line on the board: {snapshot:?}"
            );
        }
        GameStatus::Resigned { .. } => {}
        other => panic!("game not over: {other:?} in {snapshot:?}"),
    }
}

/// The seat held by `session` in `snapshot`, if any.
pub fn seat_of(snapshot: &RoomSnapshot, session: SessionId) -> Option<Mark> {
    snapshot.seats.iter().find_map(|seat| match &seat.occupant {
        Occupant::Human { session: s, .. } if *s == session => Some(seat.mark),
        _ => None,
    })
}

/// The occupant of `mark`'s seat in `snapshot`.
pub fn occupant(snapshot: &RoomSnapshot, mark: Mark) -> &Occupant {
    &snapshot
        .seats
        .iter()
        .find(|seat| seat.mark == mark)
        .unwrap_or_else(|| panic!("snapshot without a {mark} seat: {snapshot:?}"))
        .occupant
}

/// Whether `mark`'s seat holds a human whose connection is up (`Some(true)`), down
/// (`Some(false)`), or no human (`None`).
pub fn human_connected(snapshot: &RoomSnapshot, mark: Mark) -> Option<bool> {
    match occupant(snapshot, mark) {
        Occupant::Human { connected, .. } => Some(*connected),
        _ => None,
    }
}

/// Checks that `seqs` increase by exactly one from each event to the next. A repeated seq
/// is allowed: it is the same snapshot sent again to one client (a `join` for what it
/// already has), not a new event; tests compare such repeats for equality separately.
pub fn assert_consecutive(label: &str, seqs: &[u64]) {
    for pair in seqs.windows(2) {
        assert!(
            pair[1] == pair[0] + 1 || pair[1] == pair[0],
            "{label}: room event seq jumped from {} to {} (all: {seqs:?})",
            pair[0],
            pair[1]
        );
    }
}

/// Every client saw consecutive seqs, and whenever two clients saw the same seq they saw the
/// same snapshot (one room, one order).
pub fn assert_same_story(room: &RoomId, clients: &[&Client]) {
    for client in clients {
        assert_consecutive(client.label(), &client.seqs(room));
    }
    for a in clients {
        for b in clients {
            for sa in a.snapshots(room) {
                for sb in b.snapshots(room).iter().filter(|s| s.seq == sa.seq) {
                    assert_eq!(
                        &sa,
                        sb,
                        "{} and {} saw different snapshots with seq {}",
                        a.label(),
                        b.label(),
                        sa.seq
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inarow_protocol::{Rules, SeatInfo};

    fn snapshot(board: &[&str], moves: &[&str], status: GameStatus) -> RoomSnapshot {
        RoomSnapshot {
            id: RoomId::from("abcdefgh"),
            name: "t".into(),
            rules: Rules {
                width: 3,
                height: 3,
                k: 3,
                gravity: false,
            },
            private: false,
            seq: 1,
            game: 1,
            seats: vec![
                SeatInfo {
                    mark: Mark::X,
                    occupant: Occupant::Empty,
                    rematch: false,
                },
                SeatInfo {
                    mark: Mark::O,
                    occupant: Occupant::Empty,
                    rematch: false,
                },
            ],
            board: board.iter().map(|r| (*r).to_owned()).collect(),
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            ply: u32::try_from(moves.len()).expect("short"),
            legal_moves: Vec::new(),
            status,
            last_move: moves.last().map(|m| (*m).to_owned()),
            spectators: Vec::new(),
        }
    }

    fn won(winner: Mark, line: &[&str]) -> GameStatus {
        GameStatus::Won {
            winner,
            line: line.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    #[test]
    fn cells_map_between_notation_and_rows() {
        assert_eq!(cell_name(0, 0, 3), "a3");
        assert_eq!(cell_name(2, 2, 3), "c1");
        let board = vec!["X..".to_owned(), "...".to_owned(), "..O".to_owned()];
        assert_eq!(mark_at(&board, "a3"), Some(Mark::X));
        assert_eq!(mark_at(&board, "c1"), Some(Mark::O));
        assert_eq!(mark_at(&board, "b2"), None);
    }

    #[test]
    fn lines_are_found_in_every_direction() {
        let rows = |r: [&str; 3]| r.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(marks_with_line(&rows(["XXX", "O.O", "..."]), 3).contains(&Mark::X));
        assert!(marks_with_line(&rows(["O..", "O..", "O.."]), 3).contains(&Mark::O));
        assert!(marks_with_line(&rows(["X..", ".X.", "..X"]), 3).contains(&Mark::X));
        assert!(marks_with_line(&rows(["..O", ".O.", "O.."]), 3).contains(&Mark::O));
        assert!(marks_with_line(&rows(["XOX", "XOO", "OXX"]), 3).is_empty());
    }

    #[test]
    fn a_correct_win_and_draw_pass() {
        check_result(&snapshot(
            &["X..", "XO.", "XO."],
            &["a1", "b1", "a2", "b2", "a3"],
            won(Mark::X, &["a1", "a2", "a3"]),
        ));
        check_result(&snapshot(
            &["OOX", "XXO", "OXX"],
            &["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"],
            GameStatus::Drawn,
        ));
    }

    #[test]
    #[should_panic(expected = "has no line")]
    fn a_win_without_a_line_fails() {
        check_result(&snapshot(
            &["X..", "XO.", ".OX"],
            &["a1", "b1", "a2", "b2", "c1"],
            won(Mark::X, &["a1", "a2", "a3"]),
        ));
    }

    #[test]
    #[should_panic(expected = "a draw with empty cells")]
    fn a_draw_with_room_left_fails() {
        check_result(&snapshot(
            &["X..", "...", "..O"],
            &["a3", "c1"],
            GameStatus::Drawn,
        ));
    }

    #[test]
    #[should_panic(expected = "a draw with a line")]
    fn a_draw_with_a_line_fails() {
        check_result(&snapshot(
            &["XXX", "OOX", "XOO"],
            &["a3", "a2", "b3", "b2", "c2", "c1", "a1", "b1", "c3"],
            GameStatus::Drawn,
        ));
    }

    #[test]
    #[should_panic(expected = "room event seq jumped")]
    fn a_gap_in_seqs_fails() {
        assert_consecutive("t", &[3, 4, 4, 6]);
    }

    #[test]
    fn xorshift_is_deterministic_and_spread() {
        let mut a = XorShift::new(1);
        let mut b = XorShift::new(1);
        let draws: Vec<usize> = (0..1000).map(|_| a.below(9)).collect();
        assert!(draws.iter().all(|&d| d == b.below(9)));
        for cell in 0..9 {
            assert!(draws.contains(&cell));
        }
    }
}
