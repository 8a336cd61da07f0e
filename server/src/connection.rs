//! The transport of one WebSocket connection, once `http` has upgraded it: a writer fed
//! by a bounded queue, one loop over inbound frames, pings, deadlines, kicks and shutdown,
//! and a proper close (`bye`, close code, linger).
//!
//! It knows frames, not messages: data frames go to the connection's [`Handler`]
//! (`dispatch`), which says when to close. Everything the connection logs carries the
//! span `http` opened: connection id, peer address, and the session once `hello` named it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use inarow_protocol::{ByeReason, ErrorCode, ServerFrame, ServerMessage, encode};
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::admission::Admission;
use crate::dispatch::{Bye, Handler};
use crate::metrics;
use crate::peer::{Attachment, Kick, Peer};
use crate::state::ServerState;

/// The socket after the upgrade (TLS or not, hyper's type hides which).
type Socket = TokioIo<Upgraded>;
type Ws = WebSocketStream<Socket>;

/// Time allowed to write the last frames, `bye` and the close frame.
const FAREWELL_TIME: Duration = Duration::from_secs(2);
/// Time allowed for the peer to answer our close frame.
const CLOSE_TIME: Duration = Duration::from_millis(1500);
/// Most bytes read and discarded after closing, so the peer's unread data (say, the rest
/// of an oversize message) does not turn our close into a reset that loses the `bye`.
const LINGER_BYTES: usize = 1 << 20;

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
    fn bye(reason: ByeReason, message: impl Into<String>) -> Ending {
        Ending::Bye {
            bye: Bye::new(reason, message),
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

/// How a read error ends the connection: a protocol violation is answered with a close
/// frame (1002, or 1007 for a text message that is not UTF-8); a socket that failed or
/// ended without a closing handshake is simply gone. (Oversize messages are handled by
/// the caller: they get `bye too_large`.)
fn failed(error: WsError) -> Ending {
    use tokio_tungstenite::tungstenite::error::ProtocolError;
    let message = error.to_string();
    match error {
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
        reason: reason[..end].to_owned().into(),
    }
}

/// The last words the writer sends after whatever is queued.
struct Farewell {
    bye: Option<String>,
    close: CloseFrame,
}

/// Serves one upgraded socket from `addr` until it closes. A refused `admission` is told
/// why and the connection closed.
pub(crate) async fn serve(
    socket: Socket,
    addr: SocketAddr,
    state: Arc<ServerState>,
    admission: Admission,
) {
    let config = &state.config;
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(config.max_message_size))
        .max_frame_size(Some(config.max_message_size))
        // Grows on demand to a frame's length; 10 000 idle connections should not hold
        // 128 KiB each (the default). Client messages are a few hundred bytes at most, so
        // 1 KiB still reads one per call: 14.5 KiB of RSS per idle connection against 17.6
        // with 4 KiB (`load --memory`).
        .read_buffer_size(1024);
    // Not `shutdown`: a connection says `bye` only once the rooms are saved.
    let shutdown = state.farewell.child_token();
    let ws = WebSocketStream::from_raw_socket(socket, Role::Server, Some(ws_config)).await;
    let _open = metrics::websocket_opened();
    let (sink, mut stream) = ws.split();
    let (outbound, queue) = mpsc::channel(config.outbound_queue.max(1));
    let (farewell_tx, farewell_rx) = oneshot::channel();
    let writer = state
        .tracker
        .spawn(write_loop(sink, queue, farewell_rx).instrument(tracing::Span::current()));
    let kick = Arc::new(Kick::default());
    // No attachment until `hello` gives one; rooms never see the connection before.
    let peer = Peer::new(Attachment::NONE, outbound, kick.clone());
    let mut conn = Connection {
        handler: Handler::new(state.clone(), addr.ip(), peer.clone(), kick.clone()),
        peer,
        kick,
        state: state.clone(),
    };
    let ending = match &admission {
        Admission::Admitted { .. } => {
            tracing::info!("connection opened");
            conn.read_loop(&mut stream, shutdown).await
        }
        Admission::Refused(turnaway) => {
            tracing::info!(%turnaway, "connection refused");
            conn.error(turnaway.code(), turnaway.to_string());
            Ending::bye(turnaway.reason(), turnaway.to_string())
        }
    };
    tracing::info!(reason = %ending.label(), "connection closed");
    conn.handler.release_session().await;
    close(ending, stream, farewell_tx, writer).await;
    // The connection slots stay taken until the socket is really closed.
    drop(admission);
}

/// Says goodbye as `ending` requires and waits (boundedly) for the socket to wind down.
async fn close(
    ending: Ending,
    mut stream: SplitStream<Ws>,
    farewell: oneshot::Sender<Farewell>,
    writer: tokio::task::JoinHandle<SplitSink<Ws, Message>>,
) {
    match ending {
        Ending::Bye { bye, readable } => {
            let code = close_code(bye.reason);
            let text = encode(&ServerFrame::from(ServerMessage::Bye {
                reason: bye.reason,
                message: bye.message.clone(),
            }));
            let _ = farewell.send(Farewell {
                bye: Some(text),
                close: close_frame(code, &bye.message),
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
        Ending::Violation { code, message } => {
            let _ = farewell.send(Farewell {
                bye: None,
                close: close_frame(code, &message),
            });
            let sink = tokio::time::timeout(FAREWELL_TIME + Duration::from_millis(200), writer)
                .await
                .ok()
                .and_then(Result::ok);
            // The stream failed: wait for the peer on the raw socket.
            if let Some(sink) = sink
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
async fn linger(mut socket: Socket) {
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
        // Pings are transport, not messages.
        let counted = message.is_text();
        // A peer that stops reading blocks this send; a farewell must still get through
        // to end the connection.
        tokio::select! {
            biased;
            last = &mut farewell => break last,
            sent = sink.send(message) => match sent {
                Ok(()) => if counted { metrics::message_out() },
                Err(_) => return sink,
            },
        }
    };
    let Ok(last_words) = last_words else {
        return sink;
    };
    let _ = tokio::time::timeout(FAREWELL_TIME, async {
        while let Ok(message) = queue.try_recv() {
            let counted = message.is_text();
            sink.feed(message).await?;
            if counted {
                metrics::message_out();
            }
        }
        if let Some(bye) = last_words.bye {
            sink.feed(Message::text(bye)).await?;
        }
        sink.send(Message::Close(Some(last_words.close))).await
    })
    .await;
    sink
}

/// The reading side of one connection: frames in, deadlines, pings, kicks.
struct Connection {
    state: Arc<ServerState>,
    /// What the frames mean.
    handler: Handler,
    /// The outbound queue, for pings and the transport's own errors.
    peer: Peer,
    /// Set when the connection must close (too slow, or replaced by a resume).
    kick: Arc<Kick>,
}

impl Connection {
    async fn read_loop(
        &mut self,
        stream: &mut SplitStream<Ws>,
        shutdown: CancellationToken,
    ) -> Ending {
        let config = self.state.config.clone();
        let (idle_timeout, ping_every) = (config.idle_timeout, config.ping_interval);
        let handshake_deadline = Instant::now() + config.handshake_timeout;
        let mut last_heard = Instant::now();
        let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let kick = self.kick.clone();
        loop {
            let idle_deadline = last_heard + idle_timeout;
            let (deadline, late) =
                if !self.handler.has_session() && handshake_deadline < idle_deadline {
                    (handshake_deadline, ByeReason::HandshakeTimeout)
                } else {
                    (idle_deadline, ByeReason::IdleTimeout)
                };
            tokio::select! {
                () = shutdown.cancelled() => {
                    // With a data file the rooms and sessions were saved before this
                    // bye: the client is to come back with its token.
                    if self.state.store.keeps_live() {
                        return Ending::bye(
                            ByeReason::Restarting,
                            "the server is restarting; reconnect with your token to resume",
                        );
                    }
                    return Ending::bye(ByeReason::Shutdown, "the server is shutting down");
                }
                () = kick.kicked() => {
                    let reason = kick.reason().unwrap_or(ByeReason::TooSlow);
                    let message = match reason {
                        ByeReason::Replaced => "your session was resumed by another connection",
                        _ => "you read too slowly; reconnect to resume your session",
                    };
                    return Ending::bye(reason, message);
                }
                () = tokio::time::sleep_until(deadline) => {
                    let message = match late {
                        ByeReason::HandshakeTimeout => "no hello arrived in time",
                        _ => "nothing heard from you for too long",
                    };
                    return Ending::bye(late, message);
                }
                _ = ping.tick() => {
                    let _ = self.peer.send_raw(Message::Ping(Bytes::new()));
                }
                frame = stream.next() => {
                    let message = match frame {
                        None => return Ending::Gone,
                        Some(Err(WsError::Capacity(e))) => {
                            let message = format!("{e}; the limit is {} bytes", config.max_message_size);
                            self.error(ErrorCode::TooLarge, message.clone());
                            return Ending::Bye {
                                bye: Bye::new(ByeReason::TooLarge, message),
                                readable: false,
                            };
                        }
                        Some(Err(e)) => return failed(e),
                        Some(Ok(message)) => message,
                    };
                    last_heard = Instant::now();
                    if message.is_text() || message.is_binary() {
                        metrics::message_in();
                    }
                    let bye = match message {
                        Message::Text(text) => self.handler.on_frame(Some(text.as_str())).await,
                        Message::Binary(_) => self.handler.on_frame(None).await,
                        Message::Close(_) => return Ending::PeerClosed,
                        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => None,
                    };
                    if let Some(bye) = bye {
                        return Ending::Bye { bye, readable: true };
                    }
                }
            }
        }
    }

    /// Queues an error the transport itself raises (no request to answer).
    fn error(&self, code: ErrorCode, message: impl Into<String>) {
        // A full queue kicks the connection, which is closing anyway.
        let _ = self.peer.send(
            ServerMessage::Error {
                code,
                message: message.into(),
            },
            None,
        );
    }
}
