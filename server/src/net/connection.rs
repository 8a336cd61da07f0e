//! One WebSocket connection, once `http` has upgraded it.
//!
//! [`serve`] is the connection's whole life: one `select!` loop over the socket's frames
//! (tokio-tungstenite's `Stream`), the connection's bounded outbound queue (a
//! `tokio::sync::mpsc` channel that rooms and the handler fill), one timer for pings and
//! deadlines, and the kick switch (a resume elsewhere, a reader too slow, the server's
//! goodbye). It then closes properly: what is queued, `bye`, a close frame with its code,
//! and a bounded wait for the peer.
//!
//! It knows frames, not messages: a data frame goes to the session's [`Handler`], which
//! says when to close. A room reaches the connection through its [`Peer`]: the sending
//! side of the queue and the kick switch.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{ByeReason, ErrorCode, ServerFrame, ServerMessage, encode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::error::{CapacityError, ProtocolError};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message, Utf8Bytes};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::admission::Admission;
use crate::config::Config;
use crate::metrics;
use crate::session::{Bye, Handler, Step, StoreRead};
use crate::state::ServerState;

/// Time allowed to write the last frames, `bye` and the close frame.
const FAREWELL_TIME: Duration = Duration::from_secs(2);
/// Time allowed for the peer to answer our close frame.
const CLOSE_TIME: Duration = Duration::from_millis(1500);
/// Most bytes read and discarded after closing, so the peer's unread data (say, the rest
/// of an oversize message) does not turn our close into a reset that loses the `bye`.
const LINGER_BYTES: usize = 1 << 20;

/// Asks a connection to close with a reason; the first reason given wins.
#[derive(Debug)]
pub(crate) struct Kick {
    reason: OnceLock<ByeReason>,
    /// Cancelled by [`Kick::kick`], and by the server's goodbye (its parent).
    token: CancellationToken,
}

impl Kick {
    /// A kick switch that `goodbye` also trips (without a reason).
    pub(crate) fn new(goodbye: &CancellationToken) -> Kick {
        Kick {
            reason: OnceLock::new(),
            token: goodbye.child_token(),
        }
    }

    /// Asks the connection to say `bye` with `reason` and close.
    pub(crate) fn kick(&self, reason: ByeReason) {
        let _ = self.reason.set(reason);
        self.token.cancel();
    }

    /// The reason given, once kicked; `None` if the connection was not kicked, or only
    /// by the server's goodbye.
    pub(crate) fn reason(&self) -> Option<ByeReason> {
        self.reason.get().copied()
    }
}

impl Default for Kick {
    /// A kick switch of its own, tripped only by [`Kick::kick`] (for tests of rooms).
    fn default() -> Kick {
        Kick::new(&CancellationToken::new())
    }
}

/// Why a frame was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Undelivered {
    /// The queue was full: the connection has been told to close as too slow.
    TooSlow,
    /// The connection has ended.
    Gone,
}

/// Which attachment of its session a connection is: each `hello` gets a larger number
/// than the one before, so a room or the session registry can tell the newest connection
/// of a session from a stale one. Not a connection id: one connection keeps its id for
/// life, while its attachment is given by `hello`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Attachment(pub(crate) u64);

impl Attachment {
    /// The attachment of a connection that has not said `hello`; rooms never see it.
    pub(crate) const NONE: Attachment = Attachment(0);
}

/// A cloneable handle on one connection: its outbound queue and its kick switch.
#[derive(Debug, Clone)]
pub(crate) struct Peer {
    /// The connection's attachment to its session.
    pub(crate) attachment: Attachment,
    /// The protocol version the connection's `hello` asked for: rooms send a version 2
    /// connection `moved` after a move, and a version 1 connection the whole snapshot.
    pub(crate) protocol: u32,
    outbound: mpsc::Sender<Utf8Bytes>,
    kick: Arc<Kick>,
}

impl Peer {
    /// A handle on a connection's queue and kick switch, speaking the oldest protocol
    /// until `hello` says otherwise ([`Peer::reissued`]).
    pub(crate) fn new(
        attachment: Attachment,
        outbound: mpsc::Sender<Utf8Bytes>,
        kick: Arc<Kick>,
    ) -> Peer {
        Peer {
            attachment,
            protocol: inarow_protocol::PROTOCOL_VERSIONS[0],
            outbound,
            kick,
        }
    }

    /// The same connection under another attachment, speaking `protocol`.
    pub(crate) fn reissued(&self, attachment: Attachment, protocol: u32) -> Peer {
        Peer {
            attachment,
            protocol,
            ..self.clone()
        }
    }

    /// Whether the connection takes `moved` events instead of a snapshot after a move.
    pub(crate) fn lean(&self) -> bool {
        self.protocol >= 2
    }

    /// Queues an encoded text frame without waiting. A full queue means the peer reads
    /// too slowly: it is kicked (`bye too_slow`) rather than slowing the sender.
    pub(crate) fn send_text(&self, text: Utf8Bytes) -> Result<(), Undelivered> {
        match self.outbound.try_send(text) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.kick.kick(ByeReason::TooSlow);
                Err(Undelivered::TooSlow)
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Err(Undelivered::Gone),
        }
    }

    /// Queues a server message answering request `id` (see [`Peer::send_text`]).
    pub(crate) fn send(
        &self,
        message: ServerMessage,
        id: Option<inarow_protocol::RequestId>,
    ) -> Result<(), Undelivered> {
        if let ServerMessage::Error { code, .. } = &message {
            metrics::error_sent(*code);
        }
        self.send_text(encode(&ServerFrame { message, id }).into())
    }
}

/// How a connection ends.
enum Ending {
    /// The server closes it: `bye`, then a close frame.
    Bye {
        bye: Bye,
        /// The inbound stream is still readable (not after a read error), so wait for the
        /// peer's close frame there.
        readable: bool,
    },
    /// The peer broke RFC 6455 (a bad frame, invalid UTF-8 in a text message): the
    /// connection is failed with a close frame carrying `code`, as the RFC asks, and no
    /// `bye` (the peer's WebSocket layer is not to be trusted with one).
    Violation { code: CloseCode, message: String },
    /// The peer sent a close frame; tungstenite answers it while we read on.
    PeerClosed,
    /// The socket ended or failed.
    Gone,
}

impl Ending {
    /// The server says `bye` on a stream still readable.
    fn bye(bye: Bye) -> Ending {
        Ending::Bye {
            bye,
            readable: true,
        }
    }

    fn label(&self) -> String {
        match self {
            Ending::Bye { bye, .. } => format!("{:?}", bye.reason),
            Ending::Violation { code, message } => {
                format!("protocol violation ({code}): {message}")
            }
            Ending::PeerClosed => "closed by peer".to_owned(),
            Ending::Gone => "connection lost".to_owned(),
        }
    }
}

/// The WebSocket close code that goes with a `bye` reason.
fn close_code(reason: ByeReason) -> CloseCode {
    match reason {
        ByeReason::Shutdown => CloseCode::Away,
        ByeReason::Restarting => CloseCode::Restart,
        // Try again later: the server, or the peer's address, is at its limit.
        ByeReason::ServerFull | ByeReason::TooManyConnections | ByeReason::TooManySessions => {
            CloseCode::Again
        }
        ByeReason::TooLarge => CloseCode::Size,
        ByeReason::UnsupportedProtocol => CloseCode::Protocol,
        // Abuse, or a reader too slow to keep up.
        ByeReason::RateLimited | ByeReason::TooSlow => CloseCode::Policy,
        ByeReason::HandshakeTimeout | ByeReason::IdleTimeout | ByeReason::Replaced => {
            CloseCode::Normal
        }
    }
}

/// How a read error ends the connection: an oversize message gets `bye too_large`; a
/// protocol violation is answered with a close frame (1002, or 1007 for a text message
/// that is not UTF-8); a socket that failed or ended without a closing handshake is
/// simply gone.
fn read_failed(error: WsError, limit: usize) -> Ending {
    let message = error.to_string();
    match error {
        // RFC 6455 §5.2: the most significant bit of a 64-bit length must be 0. Such a
        // length is no message size at all, so it is a protocol error, not `too_large`.
        WsError::Capacity(CapacityError::MessageTooLong { size, .. })
            if u64::try_from(size).map_or(true, |size| size >> 63 == 1) =>
        {
            Ending::Violation {
                code: CloseCode::Protocol,
                message: "a frame length with its most significant bit set".to_owned(),
            }
        }
        WsError::Capacity(e) => Ending::Bye {
            bye: Bye::new(
                ByeReason::TooLarge,
                format!("{e}; the limit is {limit} bytes"),
            ),
            readable: false,
        },
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => Ending::Gone,
        WsError::Protocol(_) => Ending::Violation {
            code: CloseCode::Protocol,
            message,
        },
        WsError::Utf8(_) => Ending::Violation {
            code: CloseCode::Invalid,
            message: "a text message that is not valid UTF-8".to_owned(),
        },
        _ => {
            tracing::debug!(error = %message, "read failed");
            Ending::Gone
        }
    }
}

/// A close frame with `reason` cut to the 123 bytes a control frame has room for.
fn close_frame(code: CloseCode, reason: &str) -> CloseFrame {
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    CloseFrame {
        code,
        reason: reason[..end].into(),
    }
}

/// The socket's WebSocket settings under `config`.
fn websocket_config(config: &Config) -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(config.max_message_size))
        .max_frame_size(Some(config.max_message_size))
        // The buffers grow on demand to a frame's length: ten thousand idle connections
        // should not hold the default 128 KiB each.
        .read_buffer_size(1024)
        .write_buffer_size(16 * 1024)
}

/// Serves the upgraded `socket` from `addr` until it closes, logging in `span`; `read`
/// holds bytes the HTTP layer read past the upgrade request (the start of the first
/// frame, if the client did not wait for our answer), and `open` counts the connection
/// until it closes. A refused `admission` is told why, and the connection closed.
pub(crate) async fn serve<S>(
    socket: S,
    read: Vec<u8>,
    addr: SocketAddr,
    state: Arc<ServerState>,
    admission: Admission,
    span: tracing::Span,
    open: metrics::Open,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let websocket = metrics::websocket_opened();
    let config = websocket_config(&state.config);
    let mut ws =
        WebSocketStream::from_partially_read(socket, read, Role::Server, Some(config)).await;
    let (outbound, mut queue) = mpsc::channel(state.config.outbound_queue.max(1));
    // Not `shutdown`: a connection says `bye` only once the rooms are saved.
    let kick = Arc::new(Kick::new(&state.farewell));
    // No attachment until `hello` gives one; rooms never see the connection before.
    let peer = Peer::new(Attachment::NONE, outbound, kick.clone());
    let mut handler = Handler::new(state.clone(), addr.ip(), peer.clone(), kick.clone());
    let ending = match &admission {
        Admission::Admitted { .. } => {
            span.in_scope(|| tracing::info!("connection opened"));
            run(&mut ws, &mut queue, &mut handler, &kick, &state, &span).await
        }
        Admission::Refused(turnaway) => {
            span.in_scope(|| tracing::info!(%turnaway, "connection refused"));
            let message = turnaway.to_string();
            let _ = peer.send(
                ServerMessage::Error {
                    code: turnaway.code(),
                    message: message.clone(),
                },
                None,
            );
            Ending::bye(Bye::new(turnaway.reason(), message))
        }
    };
    async {
        tracing::info!(reason = %ending.label(), "connection closed");
        handler.release_session().await;
        close(ending, ws, queue).await;
    }
    .instrument(span)
    .await;
    // The connection's slots stay taken until the socket is really closed.
    drop(admission);
    drop(websocket);
    drop(open);
}

/// The connection's loop: frames in, the queue out, pings, deadlines and kicks, until
/// the connection is to end. What it logs is in `span`, entered where something may be
/// logged rather than on every poll of the loop.
async fn run<S>(
    ws: &mut WebSocketStream<S>,
    queue: &mut mpsc::Receiver<Utf8Bytes>,
    handler: &mut Handler,
    kick: &Kick,
    state: &ServerState,
    span: &tracing::Span,
) -> Ending
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let config = &state.config;
    let kicked = kick.token.clone().cancelled_owned();
    tokio::pin!(kicked);
    let mut last_heard = Instant::now();
    let handshake_deadline = last_heard + config.handshake_timeout;
    let mut next_ping = last_heard + config.ping_interval;
    // The deadline in force and the reason it gives when passed: the handshake's until
    // `hello` opens a session (unless the idle one comes first), then the idle one.
    let deadline = |last_heard: Instant, has_session: bool| {
        let idle_deadline = last_heard + config.idle_timeout;
        if !has_session && handshake_deadline < idle_deadline {
            (
                handshake_deadline,
                ByeReason::HandshakeTimeout,
                "no hello arrived in time",
            )
        } else {
            (
                idle_deadline,
                ByeReason::IdleTimeout,
                "nothing heard from you for too long",
            )
        }
    };
    // One timer for the pings and the deadline, set to whichever comes first. The
    // deadline only moves later from there (hearing from the peer, or `hello` trading
    // the handshake deadline for a later idle one), so the timer is moved only when it
    // fires.
    let timer = tokio::time::sleep_until(deadline(last_heard, false).0.min(next_ping));
    tokio::pin!(timer);
    // The store read a `history` or `game` request waits for, if any.
    let mut reading: Option<StoreRead> = None;
    loop {
        tokio::select! {
            // The kick first, then what is queued, so that a peer that keeps sending
            // cannot hold back what is queued for it.
            biased;
            () = &mut kicked => return kicked_ending(kick, state),
            Some(text) = queue.recv() => {
                // Everything queued goes out in one write to the socket: each message
                // fed, then one flush.
                let write = async {
                    ws.feed(Message::Text(text)).await?;
                    metrics::message_out();
                    while let Ok(text) = queue.try_recv() {
                        ws.feed(Message::Text(text)).await?;
                        metrics::message_out();
                    }
                    ws.flush().await
                };
                let written = tokio::select! {
                    biased;
                    () = &mut kicked => return kicked_ending(kick, state),
                    written = write => written,
                };
                if let Err(e) = written {
                    span.in_scope(|| tracing::debug!(error = %e, "write failed"));
                    return Ending::Gone;
                }
            }
            () = async { reading.as_mut().expect("polled only while a read is pending").await },
                if reading.is_some() => reading = None,
            // No frame is read while a store read is pending, so that answers keep the
            // order of requests.
            frame = ws.next(), if reading.is_none() => {
                let message = match frame {
                    None => return Ending::Gone,
                    Some(Err(e)) => {
                        let ending = span.in_scope(|| read_failed(e, config.max_message_size));
                        if let Ending::Bye { bye, .. } = &ending {
                            handler.error(None, ErrorCode::TooLarge, bye.message.clone());
                        }
                        return ending;
                    }
                    Some(Ok(message)) => message,
                };
                last_heard = Instant::now();
                let text = match &message {
                    Message::Text(text) => Some(text.as_str()),
                    Message::Binary(_) => None,
                    Message::Close(_) => return Ending::PeerClosed,
                    // tungstenite answers pings itself.
                    Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
                };
                metrics::message_in();
                match span.in_scope(|| handler.take_frame(text)) {
                    Step::Done(None) => {}
                    Step::Done(Some(bye)) => return Ending::bye(bye),
                    Step::Read(read) => reading = Some(read),
                }
            }
            () = &mut timer => {
                let now = Instant::now();
                let (deadline, reason, message) = deadline(last_heard, handler.has_session());
                if deadline <= now {
                    return Ending::bye(Bye::new(reason, message));
                }
                if next_ping <= now {
                    let pinged = tokio::select! {
                        biased;
                        () = &mut kicked => return kicked_ending(kick, state),
                        pinged = ws.send(Message::Ping(Bytes::new())) => pinged,
                    };
                    if let Err(e) = pinged {
                        span.in_scope(|| tracing::debug!(error = %e, "ping failed"));
                        return Ending::Gone;
                    }
                    next_ping = now + config.ping_interval;
                }
                timer.as_mut().reset(deadline.min(next_ping));
            }
        }
    }
}

/// The ending after a kick: the server's goodbye, or the reason the kick gave.
fn kicked_ending(kick: &Kick, state: &ServerState) -> Ending {
    let bye = match kick.reason() {
        // With a data file the rooms and sessions were saved before this bye: the client
        // is to come back with its token.
        None if state.store.keeps_live() => Bye::new(
            ByeReason::Restarting,
            "the server is restarting; reconnect with your token to resume",
        ),
        None => Bye::new(ByeReason::Shutdown, "the server is shutting down"),
        Some(ByeReason::Replaced) => Bye::new(
            ByeReason::Replaced,
            "your session was resumed by another connection",
        ),
        Some(reason) => Bye::new(
            reason,
            "you read too slowly; reconnect to resume your session",
        ),
    };
    Ending::bye(bye)
}

/// Says goodbye as `ending` requires, after what is still queued, and waits (boundedly)
/// for the socket to wind down.
async fn close<S>(ending: Ending, mut ws: WebSocketStream<S>, mut queue: mpsc::Receiver<Utf8Bytes>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (bye, close, readable) = match ending {
        Ending::Bye { bye, readable } => {
            let text = encode(&ServerFrame::from(ServerMessage::Bye {
                reason: bye.reason,
                message: bye.message.clone(),
            }));
            let close = close_frame(close_code(bye.reason), &bye.message);
            (Some(text), close, readable)
        }
        // The stream failed: wait for the peer on the raw socket.
        Ending::Violation { code, message } => (None, close_frame(code, &message), false),
        Ending::PeerClosed => {
            // tungstenite has queued the answer to the peer's close frame; reading on
            // writes it and sees the end.
            let _ = tokio::time::timeout(CLOSE_TIME, async {
                while let Some(Ok(_)) = ws.next().await {}
            })
            .await;
            return;
        }
        Ending::Gone => return,
    };
    // A peer that stops reading blocks these writes: the farewell is bounded in time.
    let _ = tokio::time::timeout(FAREWELL_TIME, async {
        while let Ok(text) = queue.try_recv() {
            ws.feed(Message::Text(text)).await?;
            metrics::message_out();
        }
        if let Some(bye) = bye {
            ws.feed(Message::text(bye)).await?;
        }
        ws.send(Message::Close(Some(close))).await
    })
    .await;
    if readable {
        // The peer answers our close frame; reading also flushes what is pending.
        let _ = tokio::time::timeout(CLOSE_TIME, async {
            while let Some(Ok(_)) = ws.next().await {}
        })
        .await;
    } else {
        linger(ws.into_inner()).await;
    }
}

/// Half-closes the socket and discards what the peer still sends, for a bounded time.
async fn linger<S>(mut socket: S)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let _ = socket.shutdown().await;
    let _ = tokio::time::timeout(CLOSE_TIME, async {
        let mut buf = vec![0u8; 4096];
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
