//! The transport of one WebSocket connection, once `http` has upgraded it: one task that
//! reads inbound frames and writes what the bounded outbound queue holds, watches pings,
//! deadlines, kicks and shutdown, and closes properly (`bye`, close code, linger).
//!
//! One task rather than a reader and a writer: a move wakes one task per connection, not
//! two, and no lock is shared between halves of the socket. Everything queued when the
//! task wakes is written with one flush (one system call), and the deadlines are checked
//! lazily: one timer per connection, re-armed only when it fires. The socket's reads, the
//! timer and the kick are each polled only when they woke the task (module `gate`): most
//! wake-ups are the outbound queue's.
//!
//! It knows frames, not messages: data frames go to the connection's [`Handler`]
//! (`dispatch`), which says when to close. Everything the connection logs carries the
//! span `http` opened: connection id, peer address, and the session once `hello` named it.
//! The span is entered where the connection can log (a frame handled, a deadline, a kick,
//! the close), not on every poll of its task: most polls only write what the queue holds,
//! and entering and leaving a span is some 300 instructions each time.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{ByeReason, ErrorCode, RequestId, ServerFrame, ServerMessage, encode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message};
use tracing::Instrument;

use crate::admission::Admission;
use crate::dispatch::{Bye, Handler, Step, Waiting};
use crate::frame_in::{self, Frame, Inbound};
use crate::frame_out;
use crate::gate::{Gate, Gates};
use crate::metrics;
use crate::outbox;
use crate::peer::{Attachment, Kick, Peer};
use crate::state::ServerState;

/// The gates of the two things that rarely wake a connection's task ([`Gates`]).
const KICK: usize = 0;
const TIMER: usize = 1;

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
        Ending::said(Bye::new(reason, message))
    }

    /// The server says `bye` on a stream still readable.
    fn said(bye: Bye) -> Ending {
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

/// Sets up the connection of one upgraded socket from `addr`, logging in `span`; `read`
/// holds bytes the HTTP layer read past the upgrade request (the start of the first
/// frame, if the client did not wait for our answer), and `open` counts the connection
/// until it closes. The future returned serves it until it closes: a task of its own for
/// an admitted one; a refused `admission` is told why and the connection closed.
pub(crate) async fn start<S>(
    socket: S,
    read: Vec<u8>,
    addr: SocketAddr,
    state: Arc<ServerState>,
    admission: Admission,
    span: tracing::Span,
    open: metrics::Open,
) -> ConnectionTask<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let config = &state.config;
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(config.max_message_size))
        .max_frame_size(Some(config.max_message_size))
        // Grows on demand to a frame's length; 10 000 idle connections should not hold
        // 128 KiB each (the default). tungstenite reads only the frames `frame_in` does
        // not (pings, fragments, long messages), from that module's buffer while it
        // holds bytes: 256 rather than 1 KiB was 5.7 KiB of RSS per idle connection
        // against 6.6 (`load --memory`).
        .read_buffer_size(256);
    // Not `shutdown`: a connection says `bye` only once the rooms are saved. The kick
    // switch holds it, so the loop waits on one future for both.
    let kick = Arc::new(Kick::new(state.farewell.clone()));
    // Plain text frames are read by the socket's own buffer, the rest by tungstenite
    // through it (module `frame_in`); the bytes read past the upgrade start that buffer.
    let socket = Inbound::new(socket, read, config.max_message_size);
    let ws = WebSocketStream::from_raw_socket(socket, Role::Server, Some(ws_config)).await;
    let (outbound, queue) = outbox::channel(config.outbound_queue);
    // No attachment until `hello` gives one; rooms never see the connection before.
    let peer = Peer::new(Attachment::NONE, outbound, kick.clone());
    let now = Instant::now();
    let clock = Clock::new(config, kick.clone(), now);
    let conn = Connection {
        rare: Gates::new(),
        reads: Gate::new(),
        last_heard: now,
        outbound: Outbound {
            unflushed: false,
            unwritten: frame_out::Unwritten::default(),
            held: None,
            queue,
        },
        handler: Handler::new(state.clone(), addr.ip(), peer.clone(), kick.clone()),
        peer,
        kick,
        state: state.clone(),
    };
    let refused = match &admission {
        Admission::Admitted { .. } => None,
        Admission::Refused(turnaway) => Some(*turnaway),
    };
    let live = Live {
        clock,
        conn,
        ws,
        span,
        admission,
        websocket: metrics::websocket_opened(),
        open,
    };
    match refused {
        None => {
            live.span.in_scope(|| tracing::info!("connection opened"));
            ConnectionTask {
                aside: None,
                live: Some(live),
            }
        }
        Some(turnaway) => {
            live.span
                .in_scope(|| tracing::info!(%turnaway, "connection refused"));
            live.conn.error(turnaway.code(), turnaway.to_string());
            let ending = Ending::bye(turnaway.reason(), turnaway.to_string());
            ConnectionTask {
                aside: Some(Aside::Closing(Box::pin(live.close(ending)))),
                live: None,
            }
        }
    }
}

/// One connection's task: its state while it serves, and what it waits on aside (the
/// handler's answer to `hello`, `history` or `game`; the close).
///
/// A future written by hand rather than an `async fn`: with a thousand connections, every
/// wake-up finds the task's memory gone cold since the connection's last turn, and each
/// layer of nested `async` state polled on the way in (the task's block, `serve`, its
/// loop, the loop's `poll_fn`) was a cache line of its own. Here a wake-up goes straight
/// to [`Connection::poll_turns`] on the connection's state, laid out with what every
/// wake-up touches first.
pub(crate) struct ConnectionTask<S> {
    /// What the connection waits on instead of serving.
    aside: Option<Aside<S>>,
    /// The connection, while it serves (not while it waits aside).
    live: Option<Live<S>>,
}

/// A future of the task's, boxed: polled only while the connection waits aside.
type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What a connection waits on instead of taking turns.
enum Aside<S> {
    /// The handler's wait, what is queued still written meanwhile; gives the connection
    /// back, with its end if the wait ends it.
    Waiting(Boxed<(Live<S>, Option<Ending>)>),
    /// The close.
    Closing(Boxed<()>),
}

/// A serving connection's whole state: what every wake-up touches first (`repr(C)`
/// keeps the order).
#[repr(C)]
struct Live<S> {
    conn: Connection,
    clock: Clock,
    ws: WebSocketStream<Inbound<S>>,
    span: tracing::Span,
    /// The connection slots, taken until the socket is really closed.
    admission: Admission,
    websocket: metrics::Open,
    open: metrics::Open,
}

impl<S> Future for ConnectionTask<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        loop {
            match &mut this.aside {
                Some(Aside::Closing(closing)) => return closing.as_mut().poll(cx),
                Some(Aside::Waiting(waiting)) => {
                    let (live, ending) = ready!(waiting.as_mut().poll(cx));
                    this.aside = match ending {
                        None => {
                            this.live = Some(live);
                            None
                        }
                        Some(ending) => Some(Aside::Closing(Box::pin(live.close(ending)))),
                    };
                    continue;
                }
                None => {}
            }
            let Some(live) = this.live.as_mut() else {
                // Closed: polled no more.
                return Poll::Ready(());
            };
            let taken = ready!(live.poll_turns(cx));
            let Some(live) = this.live.take() else {
                return Poll::Ready(());
            };
            this.aside = match taken {
                Taken::Next => {
                    this.live = Some(live);
                    None
                }
                Taken::End(ending) => Some(Aside::Closing(Box::pin(live.close(ending)))),
                Taken::Wait(waiting, id) => Some(Aside::Waiting(Box::pin(live.wait(waiting, id)))),
            };
        }
    }
}

impl<S> Live<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    /// [`Connection::poll_turns`] on this connection.
    fn poll_turns(&mut self, cx: &mut Context<'_>) -> Poll<Taken> {
        self.conn
            .poll_turns(&mut self.ws, &mut self.clock, &self.span, cx)
    }

    /// Waits on the handler for this request; what is queued for the peer still goes out
    /// meanwhile. Gives the connection back, with its end if the wait ends it.
    async fn wait(mut self, waiting: Waiting, id: Option<RequestId>) -> (Self, Option<Ending>) {
        let ending = {
            let span = &self.span;
            let outbound = &mut self.conn.outbound;
            let ws = &mut self.ws;
            tokio::select! {
                biased;
                bye = self.conn.handler.dispatch_waiting(waiting, id).instrument(span.clone()) => {
                    bye.map(Ending::said)
                }
                e = std::future::poll_fn(|cx| outbound.poll_write(ws, cx)) => {
                    span.in_scope(|| tracing::debug!(error = %e, "write failed"));
                    Some(Ending::Gone)
                }
            }
        };
        (self, ending)
    }

    /// Closes the connection as `ending` requires, then gives its slots back.
    async fn close(self, ending: Ending) {
        let Live {
            conn,
            ws,
            span,
            admission,
            websocket,
            open,
            ..
        } = self;
        span.in_scope(|| tracing::info!(reason = %ending.label(), "connection closed"));
        async {
            conn.handler.release_session().await;
            close(ending, ws, conn.outbound).await;
        }
        .instrument(span)
        .await;
        // The connection slots stay taken until the socket is really closed.
        drop(admission);
        drop(websocket);
        drop(open);
    }
}

/// Says goodbye as `ending` requires, after what is still queued, and waits (boundedly)
/// for the socket to wind down.
async fn close<S>(ending: Ending, mut ws: WebSocketStream<Inbound<S>>, mut outbound: Outbound)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    // The close handshake is tungstenite's: it reads whatever comes from here on.
    ws.get_mut().hand_over();
    // What was begun on the socket is finished before tungstenite writes again.
    let _ = tokio::time::timeout(FAREWELL_TIME, async {
        std::future::poll_fn(|cx| outbound.unwritten.poll_flush(ws.get_mut(), cx)).await?;
        if let Some(message) = outbound.held.take().map(|m| *m) {
            ws.feed(message).await.map_err(std::io::Error::other)?;
        }
        std::io::Result::Ok(())
    })
    .await;
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
        while let Some(message) = outbound.queue.try_recv() {
            let counted = message.is_text();
            ws.feed(message).await?;
            if counted {
                metrics::message_out();
            }
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
    use tokio::io::AsyncWriteExt;
    let _ = socket.shutdown().await;
    let _ = tokio::time::timeout(CLOSE_TIME, async {
        // On the heap, and only while lingering: an array here would sit in every
        // connection's task for its whole life.
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

/// The connection's outbound queue, as the socket loop drains it. In the order every
/// write reads it (`repr(C)`).
#[repr(C)]
struct Outbound {
    /// Frames written here, straight from the queued messages' bytes (module
    /// `frame_out`), that the socket has not all taken: written before anything else, and
    /// tungstenite is not read (its reads may write a pong) until they are.
    unwritten: frame_out::Unwritten,
    queue: outbox::Receiver,
    /// A message only tungstenite may write (a close frame), taken from the queue behind
    /// frames still unwritten; boxed, as it rarely is.
    held: Option<Box<Message>>,
    /// tungstenite holds bytes not yet written: a frame handed to it, or the pong it owes
    /// after reading a ping. Written before anything of ours.
    unflushed: bool,
}

impl Outbound {
    /// Leaves the queue without this task's waker while the task handles a frame: what
    /// the handling queues for this connection (a move's own event, above all) is
    /// written in this same wake-up, by the next [`Outbound::poll_write`], and a wake
    /// for it would only poll the task once more, for nothing, after every other ready
    /// task had run. The next `poll_write` registers the waker again.
    fn disarm(&mut self) {
        self.queue.disarm();
    }

    /// tungstenite read a ping and owes its pong: it is written before our next frame.
    fn pong_owed(&mut self) {
        self.unflushed = true;
    }

    /// Whether tungstenite may use the socket: nothing of ours is half-written.
    fn lets_tungstenite_write(&self) -> bool {
        self.unwritten.is_empty()
    }

    /// Writes everything queued, with one vectored write of up to [`frame_out::BATCH`]
    /// frames (one system call for all the frames queued since the last wake-up), the
    /// payloads straight from the queued messages' shared bytes. Pending when there is
    /// nothing to write or the socket cannot take more (the task is woken when either
    /// changes); ready only with the error that ends the connection.
    fn poll_write<S>(&mut self, ws: &mut WebSocketStream<S>, cx: &mut Context<'_>) -> Poll<WsError>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        loop {
            // What tungstenite holds goes first; then what the socket has not taken of ours.
            if self.unflushed {
                match ws.poll_flush_unpin(cx) {
                    Poll::Ready(Ok(())) => self.unflushed = false,
                    Poll::Ready(Err(e)) => return Poll::Ready(e),
                    Poll::Pending => return Poll::Pending,
                }
            }
            match self.unwritten.poll_flush(ws.get_mut(), cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(e)) => return Poll::Ready(WsError::Io(e)),
                // A peer that stops reading stalls here; its queue fills and the room
                // kicks it.
                Poll::Pending => return Poll::Pending,
            }
            if let Some(message) = self.held.take().map(|m| *m) {
                match ws.poll_ready_unpin(cx) {
                    Poll::Ready(Ok(())) => {}
                    Poll::Ready(Err(e)) => return Poll::Ready(e),
                    Poll::Pending => {
                        self.held = Some(Box::new(message));
                        return Poll::Pending;
                    }
                }
                if let Err(e) = ws.start_send_unpin(message) {
                    return Poll::Ready(e);
                }
                self.unflushed = true;
                continue;
            }
            let mut batch: [(frame_out::Header, Bytes); frame_out::BATCH] =
                std::array::from_fn(|_| (frame_out::Header::new(0, 0), Bytes::new()));
            let mut count = 0;
            let mut drained = false;
            while count < frame_out::BATCH {
                let Poll::Ready(message) = self.queue.poll_recv(cx) else {
                    // Empty, and the task's waker is registered with the queue.
                    drained = true;
                    break;
                };
                // Pings are transport, not messages.
                if message.is_text() {
                    metrics::message_out();
                }
                match frame_out::frame(message) {
                    Ok(frame) => {
                        batch[count] = frame;
                        count += 1;
                    }
                    Err(other) => {
                        self.held = Some(Box::new(other));
                        break;
                    }
                }
            }
            if count > 0 {
                if let Err(e) = self.unwritten.write(ws.get_mut(), cx, &batch[..count]) {
                    return Poll::Ready(WsError::Io(e));
                }
                if !self.unwritten.is_empty() {
                    // The socket is full; it wakes the task when it can take more.
                    return Poll::Pending;
                }
            }
            if drained {
                return Poll::Pending;
            }
        }
    }
}

/// The socket's next frame, read through `reads`: only after the socket woke the task,
/// or after a read that gave a frame (more may be buffered behind it, which no wake-up
/// announces). tokio-tungstenite hands any socket wake-up, read or write, to every waker
/// it was given, so a wake-up that frees the socket for a write tungstenite owes (a pong,
/// say) comes through the gate too, and the read that retries that write runs.
fn poll_frame<S>(
    reads: &mut Gate,
    ws: &mut WebSocketStream<Inbound<S>>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame, WsError>>>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let frame = reads.poll(cx, |cx| frame_in::poll_frame(ws, cx));
    if frame.is_ready() {
        reads.open();
    }
    frame
}

/// What the socket did, when the connection's loop polls it.
enum SocketEvent {
    /// An inbound frame, the stream's end, or a read error.
    Inbound(Option<Result<Frame, WsError>>),
    /// Writing failed: the socket is gone.
    WriteFailed(WsError),
}

/// What the loop does after [`Connection::take_event`].
enum Taken {
    /// Wait for the next event.
    Next,
    /// Close the connection.
    End(Ending),
    /// Wait on the handler for this request, writing what is queued meanwhile.
    Wait(Waiting, Option<RequestId>),
}

/// A connection's deadlines and pings, and its kick switch: what rarely wakes it.
///
/// The deadline only ever moves later (hearing from the peer, or `hello` trading the
/// handshake deadline for the idle one): the timer stays armed at the first one and, when
/// it fires, moves to the deadline as it is by then. The same timer sends the pings
/// (whichever of the two comes first): one timer polled on every wake-up rather than two.
/// The timer and the kick's future are boxed: polled only when they woke the task, they
/// would otherwise sit between the fields every wake-up reads.
#[repr(C)]
struct Clock {
    idle_timeout: Duration,
    ping_every: Duration,
    handshake_deadline: Instant,
    next_ping: Instant,
    timer: Pin<Box<tokio::time::Sleep>>,
    kicked: Boxed<()>,
}

impl Clock {
    /// The deadlines as `config` sets them, from `now` (when the connection was last heard
    /// from: opened); `kick` the connection's switch.
    fn new(config: &crate::config::Config, kick: Arc<Kick>, now: Instant) -> Clock {
        let mut clock = Clock {
            idle_timeout: config.idle_timeout,
            ping_every: config.ping_interval,
            handshake_deadline: now + config.handshake_timeout,
            next_ping: now + config.ping_interval,
            timer: Box::pin(tokio::time::sleep_until(now)),
            kicked: Box::pin(async move { kick.kicked().await }),
        };
        // Armed at the first deadline (or ping); see above.
        let (first, _) = clock.deadline(now, false);
        clock.timer.as_mut().reset(first.min(clock.next_ping));
        clock
    }

    /// The connection's deadline, last heard from at `last_heard`, and the reason it gives
    /// when passed.
    fn deadline(&self, last_heard: Instant, has_session: bool) -> (Instant, ByeReason) {
        let idle_deadline = last_heard + self.idle_timeout;
        if !has_session && self.handshake_deadline < idle_deadline {
            (self.handshake_deadline, ByeReason::HandshakeTimeout)
        } else {
            (idle_deadline, ByeReason::IdleTimeout)
        }
    }

    /// The timer fired: the connection's end if its deadline has passed; otherwise a
    /// ping if one is due, and the timer re-armed.
    fn tick(&mut self, conn: &Connection) -> Option<Ending> {
        let now = Instant::now();
        let (at, late) = self.deadline(conn.last_heard, conn.handler.has_session());
        if at <= now {
            let message = match late {
                ByeReason::HandshakeTimeout => "no hello arrived in time",
                _ => "nothing heard from you for too long",
            };
            return Some(Ending::bye(late, message));
        }
        if self.next_ping <= now {
            let _ = conn.peer.send_raw(Message::Ping(Bytes::new()));
            // After a late wake-up the next ping is a whole interval away, as
            // `MissedTickBehavior::Delay` had it.
            self.next_ping = now + self.ping_every;
        }
        self.timer.as_mut().reset(at.min(self.next_ping));
        None
    }
}

/// One connection: frames in, the outbound queue out, deadlines, pings, kicks. What every
/// wake-up reads comes first (`repr(C)` keeps the order; see [`ConnectionTask`]).
#[repr(C)]
struct Connection {
    /// The timer's and the kick's gates (see [`Clock`]): read on every wake-up.
    rare: Gates<2>,
    /// The gate the socket's frames are read through ([`poll_frame`]).
    reads: Gate,
    /// When the peer was last heard from (the idle deadline runs from it): written on
    /// every frame, so it sits beside the gate the frame came through rather than on a
    /// line of the rarely read [`Clock`].
    last_heard: Instant,
    /// What rooms and the handler queued for the socket.
    outbound: Outbound,
    /// What the frames mean.
    handler: Handler,
    /// The outbound queue, for pings and the transport's own errors.
    peer: Peer,
    /// Set when the connection must close (too slow, replaced by a resume, or the server
    /// saying goodbye).
    kick: Arc<Kick>,
    state: Arc<ServerState>,
}

impl Connection {
    /// Takes the connection's turns (a kick, a deadline or a ping; a frame read; what is
    /// queued written) until the handler must wait on something or the connection is to
    /// end (never [`Taken::Next`]); pending when there is nothing to do.
    fn poll_turns<S>(
        &mut self,
        ws: &mut WebSocketStream<Inbound<S>>,
        clock: &mut Clock,
        span: &tracing::Span,
        cx: &mut Context<'_>,
    ) -> Poll<Taken>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        loop {
            // The kick and the timer are polled only when they woke the task (module
            // `gate`): nearly every wake-up is the socket's or the outbound queue's. In a
            // fixed order, as none of the three can keep the others waiting.
            self.rare.enter(cx);
            if self
                .rare
                .poll(KICK, |cx| clock.kicked.as_mut().poll(cx))
                .is_ready()
            {
                let _entered = span.enter();
                return Poll::Ready(Taken::End(self.kicked()));
            }
            if self
                .rare
                .poll(TIMER, |cx| clock.timer.as_mut().poll(cx))
                .is_ready()
            {
                let _entered = span.enter();
                if let Some(ending) = clock.tick(self) {
                    return Poll::Ready(Taken::End(ending));
                }
                self.rare.open(TIMER);
                continue;
            }
            // A frame the socket has just announced is read before what is queued is
            // written: its answer then goes out in the same write (a rematch asked while
            // the other player's offer waits to be written, say). Only then: after a
            // frame, what is queued is written first, so a peer that keeps sending cannot
            // hold back what is queued for it.
            //
            // Nothing is read while a frame of ours is half-written: a read may have
            // tungstenite write a pong, which must not land inside it.
            let event = if self.reads.woken()
                && self.outbound.lets_tungstenite_write()
                && let Poll::Ready(frame) = poll_frame(&mut self.reads, ws, cx)
            {
                SocketEvent::Inbound(frame)
            } else if let Poll::Ready(e) = self.outbound.poll_write(ws, cx) {
                SocketEvent::WriteFailed(e)
            } else if !self.outbound.lets_tungstenite_write() {
                return Poll::Pending;
            } else {
                match poll_frame(&mut self.reads, ws, cx) {
                    Poll::Ready(frame) => SocketEvent::Inbound(frame),
                    Poll::Pending => return Poll::Pending,
                }
            };
            let _entered = span.enter();
            match self.take_event(event, ws.get_mut()) {
                Taken::Next => continue,
                taken => return Poll::Ready(taken),
            }
        }
    }

    /// Takes what the socket did: a frame is handled at once if it can be (a move always
    /// can), else handed back for the loop to wait on.
    fn take_event<S>(&mut self, event: SocketEvent, socket: &mut Inbound<S>) -> Taken
    where
        S: AsyncRead + Unpin,
    {
        let frame = match event {
            SocketEvent::WriteFailed(e) => {
                tracing::debug!(error = %e, "write failed");
                return Taken::End(Ending::Gone);
            }
            SocketEvent::Inbound(frame) => frame,
        };
        let message = match frame {
            None => return Taken::End(Ending::Gone),
            Some(Err(WsError::Capacity(e))) => {
                let limit = self.state.config.max_message_size;
                let message = format!("{e}; the limit is {limit} bytes");
                self.error(ErrorCode::TooLarge, message.clone());
                return Taken::End(Ending::Bye {
                    bye: Bye::new(ByeReason::TooLarge, message),
                    readable: false,
                });
            }
            Some(Err(e)) => return Taken::End(failed(e)),
            Some(Ok(Frame::Text)) => {
                self.last_heard = Instant::now();
                metrics::message_in();
                return match socket.take_text() {
                    Ok(text) => self.take_frame(Some(text)),
                    Err(e) => Taken::End(failed(WsError::from(e))),
                };
            }
            Some(Ok(Frame::Message(message))) => message,
        };
        self.last_heard = Instant::now();
        if message.is_text() || message.is_binary() {
            metrics::message_in();
        }
        let text = match &message {
            Message::Text(text) => Some(text.as_str()),
            Message::Binary(_) => None,
            Message::Close(_) => return Taken::End(Ending::PeerClosed),
            Message::Ping(_) => {
                self.outbound.pong_owed();
                return Taken::Next;
            }
            Message::Pong(_) | Message::Frame(_) => return Taken::Next,
        };
        self.take_frame(text)
    }

    /// Hands a data frame to the handler: its text, or `None` for binary.
    fn take_frame(&mut self, text: Option<&str>) -> Taken {
        // What handling the frame queues for this connection (a move's own event) is
        // written by the loop's next poll of the queue, in this same wake-up.
        self.outbound.disarm();
        match self.handler.take_frame(text) {
            Step::Done(None) => Taken::Next,
            Step::Done(Some(bye)) => Taken::End(Ending::said(bye)),
            Step::Wait(waiting, id) => Taken::Wait(waiting, id),
        }
    }

    /// The ending after a kick: the server's goodbye, or the reason the kick gave.
    fn kicked(&self) -> Ending {
        let Some(reason) = self.kick.reason() else {
            // With a data file the rooms and sessions were saved before this bye: the
            // client is to come back with its token.
            if self.state.store.keeps_live() {
                return Ending::bye(
                    ByeReason::Restarting,
                    "the server is restarting; reconnect with your token to resume",
                );
            }
            return Ending::bye(ByeReason::Shutdown, "the server is shutting down");
        };
        let message = match reason {
            ByeReason::Replaced => "your session was resumed by another connection",
            _ => "you read too slowly; reconnect to resume your session",
        };
        Ending::bye(reason, message)
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

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;

    use tokio::io::{DuplexStream, ReadBuf};

    use super::*;
    use crate::gate::WakeCount;

    /// A socket that counts the reads tried on it.
    struct Counted {
        inner: DuplexStream,
        reads: Arc<AtomicUsize>,
    }

    impl AsyncRead for Counted {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            Pin::new(&mut self.inner).poll_read(cx, buf)
        }
    }

    impl AsyncWrite for Counted {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            Pin::new(&mut self.inner).poll_write(cx, buf)
        }
        fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.inner).poll_flush(cx)
        }
        fn poll_shutdown(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.inner).poll_shutdown(cx)
        }
    }

    /// The text of a frame read by `frame_in` itself.
    fn text<S>(
        poll: Poll<Option<Result<Frame, WsError>>>,
        ws: &mut WebSocketStream<Inbound<S>>,
    ) -> String
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        match poll {
            Poll::Ready(Some(Ok(Frame::Text))) => ws
                .get_mut()
                .take_text()
                .expect("the client sent UTF-8")
                .to_owned(),
            other => panic!("expected a plain text frame, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn the_socket_is_read_only_when_it_woke_the_task_or_just_gave_a_frame() {
        let (server, client) = tokio::io::duplex(4096);
        let reads = Arc::new(AtomicUsize::new(0));
        let socket = Counted {
            inner: server,
            reads: reads.clone(),
        };
        let socket = Inbound::new(socket, Vec::new(), 1 << 16);
        let mut ws = WebSocketStream::from_raw_socket(socket, Role::Server, None).await;
        let mut client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        let wakes = Arc::new(WakeCount::default());
        let task = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&task);
        let mut gate = Gate::new();

        // The first poll reads: nothing has registered for the socket's wake-ups yet.
        assert!(poll_frame(&mut gate, &mut ws, &mut cx).is_pending());
        let registered = reads.load(Ordering::SeqCst);
        assert!(registered > 0);
        // Polled again without the socket waking it (the outbound queue did): no read.
        assert!(poll_frame(&mut gate, &mut ws, &mut cx).is_pending());
        assert_eq!(reads.load(Ordering::SeqCst), registered);

        // Two frames arrive, in one write: the socket wakes the task.
        client
            .feed(Message::text("one"))
            .await
            .expect("the duplex takes it");
        client
            .send(Message::text("two"))
            .await
            .expect("the duplex takes it");
        assert_eq!(wakes.count(), 1);
        assert_eq!(
            text(poll_frame(&mut gate, &mut ws, &mut cx), &mut ws),
            "one"
        );
        // The second came in the same read: it is read without a wake-up of its own.
        assert_eq!(
            text(poll_frame(&mut gate, &mut ws, &mut cx), &mut ws),
            "two"
        );
        assert!(poll_frame(&mut gate, &mut ws, &mut cx).is_pending());
        let drained = reads.load(Ordering::SeqCst);
        assert!(poll_frame(&mut gate, &mut ws, &mut cx).is_pending());
        assert_eq!(reads.load(Ordering::SeqCst), drained);

        // A frame after that wakes the task again, and is read.
        client
            .send(Message::text("three"))
            .await
            .expect("the duplex takes it");
        assert_eq!(wakes.count(), 2);
        assert_eq!(
            text(poll_frame(&mut gate, &mut ws, &mut cx), &mut ws),
            "three"
        );
    }
}
