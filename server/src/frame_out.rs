//! Outbound WebSocket frames written straight from the messages' shared bytes.
//!
//! A room encodes a message once and queues the same bytes for every recipient; going
//! through tungstenite, each connection then copied them into its own write buffer, which
//! with a thousand connections is memory gone cold since that connection's last write
//! (about an eighth of a tic-tac-toe move's last-level misses with 500 games, `load
//! --callgrind --cache-sim`). A server's frames are not masked, so the bytes on the wire
//! are a header of two to ten bytes and the payload as it is: this module writes the
//! headers and the shared payloads with one write, and keeps whatever part of a batch
//! the socket did not take until it does. A short batch (a move's frame, a game's end)
//! is copied into one buffer the runtime thread keeps and written with one `send`: the
//! kernel's `writev` of a header and a payload takes a longer path for the same bytes,
//! 330–370 ns more a call on this machine's loopback, 5% of a write and its read (`load
//! writes`, side by side). A long batch is written in place with one vectored write.
//!
//! tungstenite still writes its own frames (the pong to a ping, the answer to a close) and
//! the close handshake; the connection lets it only when nothing of a batch is pending
//! here, and writes here only when tungstenite holds nothing (`connection::Outbound`).

use std::collections::VecDeque;
use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;
use tokio_tungstenite::tungstenite::{Bytes, Message};

/// The most frames written with one call: a game's end queues two for a player, a
/// rematch three; more waiting than this take another call.
pub(crate) const BATCH: usize = 8;

/// The most bytes of frames copied into one buffer for a plain write; longer batches
/// are written in place with a vectored write. A tic-tac-toe move's frame is about 150
/// bytes, a game's end or a rematch two or three frames with a snapshot of the room, and
/// a gomoku room's snapshot a few KiB.
const GATHERED: usize = 16 * 1024;

thread_local! {
    /// The buffer short batches are copied into, one a runtime thread: every connection
    /// the thread serves writes through the same warm bytes, and none keeps a buffer of
    /// its own between writes.
    static GATHER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A frame's header as a server writes it: final, unmasked.
#[derive(Clone, Copy)]
pub(crate) struct Header {
    bytes: [u8; 10],
    len: u8,
}

impl Header {
    /// The header of a final frame with `opcode` and a payload of `len` bytes (RFC 6455,
    /// section 5.2).
    pub(crate) fn new(opcode: u8, len: usize) -> Header {
        let mut bytes = [0u8; 10];
        bytes[0] = 0x80 | opcode;
        let used = if len < 126 {
            // Checked just above: fits in the 7 bits.
            bytes[1] = len as u8;
            2
        } else if let Ok(short) = u16::try_from(len) {
            bytes[1] = 126;
            bytes[2..4].copy_from_slice(&short.to_be_bytes());
            4
        } else {
            bytes[1] = 127;
            bytes[2..10].copy_from_slice(&(len as u64).to_be_bytes());
            10
        };
        Header { bytes, len: used }
    }

    /// The header's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// A message as the frame this module writes, or the message back when only tungstenite
/// may write it (a close frame changes its state; a raw frame is its own).
pub(crate) fn frame(message: Message) -> Result<(Header, Bytes), Message> {
    let (opcode, payload) = match message {
        Message::Text(text) => (0x1, Bytes::from(text)),
        Message::Binary(data) => (0x2, data),
        Message::Ping(data) => (0x9, data),
        Message::Pong(data) => (0xA, data),
        other @ (Message::Close(_) | Message::Frame(_)) => return Err(other),
    };
    Ok((Header::new(opcode, payload.len()), payload))
}

/// Frames begun on the socket and not yet all written.
#[derive(Default)]
pub(crate) struct Unwritten {
    /// Their remaining bytes, in order.
    rest: VecDeque<Bytes>,
}

impl Unwritten {
    /// Nothing is pending: another writer may use the socket.
    pub(crate) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// Writes `frames` after what is pending, with one call when nothing is, and keeps
    /// what the socket does not take: the frames are this writer's either way. If some
    /// are kept ([`Unwritten::is_empty`] is false), the task is woken when the socket can
    /// take more, and [`Unwritten::poll_flush`] goes on.
    pub(crate) fn write<S>(
        &mut self,
        socket: &mut S,
        cx: &mut Context<'_>,
        frames: &[(Header, Bytes)],
    ) -> std::io::Result<()>
    where
        S: AsyncWrite + Unpin,
    {
        if !self.is_empty() {
            self.keep(frames, 0);
            return self.flush_now(socket, cx);
        }
        let (now, later) = frames.split_at(frames.len().min(BATCH));
        let total: usize = now
            .iter()
            .map(|(header, payload)| header.as_bytes().len() + payload.len())
            .sum();
        let poll = if total <= GATHERED {
            // The frames copied into one buffer: the kernel takes one plain buffer for
            // less than the headers and payloads as pieces of a vectored write.
            GATHER.with_borrow_mut(|gathered| {
                gathered.clear();
                for (header, payload) in now {
                    gathered.extend_from_slice(header.as_bytes());
                    gathered.extend_from_slice(payload);
                }
                poll_once(socket, cx, gathered)
            })
        } else {
            let mut slices = [IoSlice::new(&[]); 2 * BATCH];
            for ((header, payload), pair) in now.iter().zip(slices.chunks_mut(2)) {
                pair[0] = IoSlice::new(header.as_bytes());
                pair[1] = IoSlice::new(payload);
            }
            poll_vectored(socket, cx, &slices[..2 * now.len()])
        };
        let written = match poll {
            Poll::Ready(result) => result?,
            // Nothing taken, and the task is woken when the socket can take more.
            Poll::Pending => 0,
        };
        self.keep(now, written);
        self.keep(later, 0);
        if written == 0 {
            return Ok(());
        }
        // The socket took part, or all: the rest, if any, goes on its own.
        self.flush_now(socket, cx)
    }

    /// [`Unwritten::poll_flush`], keeping what the socket does not take now.
    fn flush_now<S>(&mut self, socket: &mut S, cx: &mut Context<'_>) -> std::io::Result<()>
    where
        S: AsyncWrite + Unpin,
    {
        match self.poll_flush(socket, cx) {
            Poll::Ready(result) => result,
            Poll::Pending => Ok(()),
        }
    }

    /// Keeps what remains of `frames` after their first `skip` bytes.
    fn keep(&mut self, frames: &[(Header, Bytes)], mut skip: usize) {
        for (header, payload) in frames {
            let head = header.as_bytes();
            if skip >= head.len() {
                skip -= head.len();
            } else {
                self.rest.push_back(Bytes::copy_from_slice(&head[skip..]));
                skip = 0;
            }
            if skip >= payload.len() {
                skip -= payload.len();
            } else {
                self.rest.push_back(payload.slice(skip..));
                skip = 0;
            }
        }
    }

    /// Writes what is pending: ready when all of it is written.
    pub(crate) fn poll_flush<S>(
        &mut self,
        socket: &mut S,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>>
    where
        S: AsyncWrite + Unpin,
    {
        while !self.rest.is_empty() {
            let mut slices = [IoSlice::new(&[]); 2 * BATCH];
            let count = self.rest.len().min(slices.len());
            for (slice, bytes) in slices.iter_mut().zip(&self.rest) {
                *slice = IoSlice::new(bytes);
            }
            let mut written = std::task::ready!(poll_vectored(socket, cx, &slices[..count]))?;
            while written > 0 {
                let Some(first) = self.rest.front_mut() else {
                    break;
                };
                if written >= first.len() {
                    written -= first.len();
                    self.rest.pop_front();
                } else {
                    let _ = first.split_to(written);
                    written = 0;
                }
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// One plain write of `bytes`: the bytes the socket took.
fn poll_once<S>(socket: &mut S, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<std::io::Result<usize>>
where
    S: AsyncWrite + Unpin,
{
    took(Pin::new(socket).poll_write(cx, bytes), !bytes.is_empty())
}

/// One vectored write: the bytes the socket took.
fn poll_vectored<S>(
    socket: &mut S,
    cx: &mut Context<'_>,
    slices: &[IoSlice<'_>],
) -> Poll<std::io::Result<usize>>
where
    S: AsyncWrite + Unpin,
{
    let wanted = slices.iter().any(|s| !s.is_empty());
    took(Pin::new(socket).poll_write_vectored(cx, slices), wanted)
}

/// A write's answer, where a socket that takes none of a write that has some (`wanted`)
/// has failed.
fn took(poll: Poll<std::io::Result<usize>>, wanted: bool) -> Poll<std::io::Result<usize>> {
    match poll {
        Poll::Ready(Ok(0)) if wanted => Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use tokio::io::AsyncWriteExt;
    use tokio_tungstenite::WebSocketStream;
    use tokio_tungstenite::tungstenite::protocol::Role;

    #[test]
    fn headers_use_the_shortest_length_form() {
        assert_eq!(Header::new(0x1, 5).as_bytes(), [0x81, 5]);
        assert_eq!(Header::new(0x9, 0).as_bytes(), [0x89, 0]);
        assert_eq!(Header::new(0x1, 125).as_bytes(), [0x81, 125]);
        assert_eq!(Header::new(0x1, 126).as_bytes(), [0x81, 126, 0, 126]);
        assert_eq!(Header::new(0x2, 65_535).as_bytes(), [0x82, 126, 0xff, 0xff]);
        assert_eq!(
            Header::new(0x1, 65_536).as_bytes(),
            [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]
        );
    }

    /// Frames written through a pipe that takes a few bytes at a time arrive whole and in
    /// order at a real WebSocket reader.
    #[tokio::test]
    async fn frames_written_in_pieces_arrive_whole() {
        // A 7-byte pipe: every batch is split, inside headers and payloads alike. The
        // first batch is short enough to be copied into one buffer, the second is not
        // and goes as a vectored write.
        let (mut server, client) = tokio::io::duplex(7);
        let mut client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        let long = "x".repeat(GATHERED + 100);
        let messages = vec![
            Message::text("one"),
            Message::Ping(Bytes::from_static(b"p")),
            Message::text(long.clone()),
            Message::text("four"),
        ];
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while got.len() < 4 {
                match client.next().await {
                    Some(Ok(message)) => got.push(message),
                    other => panic!("the stream ended early: {other:?}"),
                }
            }
            got
        });
        let mut unwritten = Unwritten::default();
        let frames: Vec<_> = messages
            .iter()
            .cloned()
            .map(|m| frame(m).expect("data frames"))
            .collect();
        let (first, second) = frames.split_at(2);
        let written = async {
            // Each batch is handed over once, whatever the pipe takes of it.
            for batch in [first, second] {
                std::future::poll_fn(|cx| Poll::Ready(unwritten.write(&mut server, cx, batch)))
                    .await?;
            }
            assert!(!unwritten.is_empty(), "a 7-byte pipe cannot take it all");
            std::future::poll_fn(|cx| unwritten.poll_flush(&mut server, cx)).await?;
            server.flush().await?;
            std::io::Result::Ok(server)
        }
        .await;
        let got = reader.await.expect("the reader ran");
        assert_eq!(got, messages);
        assert!(written.is_ok());
        assert!(unwritten.is_empty());
    }

    #[test]
    fn close_frames_are_left_to_tungstenite() {
        assert!(frame(Message::Close(None)).is_err());
    }
}
