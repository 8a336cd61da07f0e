//! Inbound WebSocket frames read straight from the socket when they are whole and plain.
//!
//! Through tokio-tungstenite, every frame a client sent was read by a wrapper that
//! registered the task's waker with two proxies of its own on each poll, into a buffer
//! that tungstenite zeroed before each read (the lines the socket was about to fill, and
//! more), and handed over as shared `Bytes` split off that buffer: with 500 tic-tac-toe
//! games, some 14 of a move's 75 last-level misses (`load --callgrind --cache-sim`, the
//! profile's window part). Nearly every frame a client sends is small, final, masked text
//! (a move, a chat line): this module reads the socket into a buffer of its own, which
//! stays initialised, and such a frame, once whole in that buffer, is unmasked in place
//! and its text handed to the connection from there, without a copy or an allocation.
//!
//! Every other frame (a ping, a close, a fragment, binary, one larger than the buffer or
//! than the message limit, anything malformed) goes to tungstenite, which reads it through
//! this same type: [`Inbound`] is the socket tungstenite is given, and it hands tungstenite
//! exactly the bytes of the frames assigned to it, no more. tungstenite therefore keeps
//! the protocol's every rule it kept before (pongs, the close handshake, fragments,
//! errors and their close codes), the two readers never see each other's bytes, and the
//! order of the stream is kept. Frame headers are parsed by tungstenite's own
//! [`FrameHeader::parse`]; a header it rejects goes to tungstenite whole, so that the
//! error and its close code are tungstenite's.

use std::io::Cursor;
use std::pin::Pin;
use std::str::Utf8Error;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// The buffer's size: a move, an answer or a chat line of a usual length fits whole;
/// a frame that does not goes to tungstenite.
pub(crate) const BUFFER: usize = 256;

/// An inbound frame, as [`poll_frame`] gives it.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A final, masked text frame, unmasked in the socket's buffer: read it with
    /// [`Inbound::take_text`] before polling again.
    Text,
    /// Anything else, as tungstenite read it.
    Message(Message),
}

/// The next inbound frame of `ws`, whose socket is an [`Inbound`]: plain text read here,
/// anything else by tungstenite. `None` once the stream has ended.
pub(crate) fn poll_frame<S>(
    ws: &mut WebSocketStream<Inbound<S>>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame, WsError>>>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    use futures_util::StreamExt;
    match ready!(ws.get_mut().poll_next(cx)) {
        Ok(Next::Text) => Poll::Ready(Some(Ok(Frame::Text))),
        Ok(Next::Tungstenite) => ws
            .poll_next_unpin(cx)
            .map(|next| next.map(|read| read.map(Frame::Message))),
        Err(e) => Poll::Ready(Some(Err(WsError::Io(e)))),
    }
}

/// What [`Inbound::poll_next`] found.
enum Next {
    /// A plain text frame, unmasked in the buffer.
    Text,
    /// tungstenite reads next: a frame is assigned to it, or the stream is handed over.
    Tungstenite,
}

/// A frame's header, as far as the buffer holds it.
enum Parsed {
    /// The header, its length in bytes and the payload's.
    Frame(FrameHeader, usize, u64),
    /// More bytes are needed.
    Incomplete,
    /// tungstenite rejects it: it reads it, and says why.
    Invalid,
}

/// A server's socket with its inbound buffer (see the module documentation); written
/// through as it is.
pub(crate) struct Inbound<S> {
    io: S,
    /// Bytes read from the socket: `start..end` not yet consumed by either reader.
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Bytes of frames assigned to tungstenite that it has not read yet.
    owed: u64,
    /// A fragmented message is open: its frames (and any control frames between them)
    /// all go to tungstenite, which puts it together.
    fragmented: bool,
    /// Everything goes to tungstenite from here on (the connection is closing, or the
    /// stream is malformed or ended).
    handed_over: bool,
    /// The unmasked payload of the plain text frame [`Next::Text`] announced.
    text: Option<(usize, usize)>,
    /// The largest message the server takes; a longer frame goes to tungstenite, which
    /// refuses it as it would have.
    max_message: usize,
}

impl<S> Inbound<S>
where
    S: AsyncRead + Unpin,
{
    /// The socket `io`, with `read` the bytes the HTTP layer read past the upgrade
    /// request, and `max_message` the message limit tungstenite is configured with.
    pub(crate) fn new(io: S, read: Vec<u8>, max_message: usize) -> Inbound<S> {
        let mut buf = vec![0u8; BUFFER.max(read.len())].into_boxed_slice();
        buf[..read.len()].copy_from_slice(&read);
        Inbound {
            io,
            buf,
            start: 0,
            end: read.len(),
            owed: 0,
            fragmented: false,
            handed_over: false,
            text: None,
            max_message,
        }
    }

    /// From now on tungstenite reads everything: for the close handshake, which is its.
    pub(crate) fn hand_over(&mut self) {
        self.handed_over = true;
    }

    /// The text of the frame [`poll_frame`] just gave as [`Frame::Text`]; the frame is
    /// consumed. An error if it is not UTF-8, as tungstenite's would be.
    pub(crate) fn take_text(&mut self) -> Result<&str, Utf8Error> {
        let (from, to) = self
            .text
            .take()
            .expect("take_text is called once after each Frame::Text");
        self.start = to;
        std::str::from_utf8(&self.buf[from..to])
    }

    /// Reads until the next frame is either a whole plain text frame (unmasked, for
    /// [`Inbound::take_text`]) or one for tungstenite.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<Next>> {
        if self.text.is_some() {
            // Announced and not yet taken (its payload is unmasked already).
            return Poll::Ready(Ok(Next::Text));
        }
        loop {
            if self.owed > 0 || self.fragmented || self.handed_over {
                return Poll::Ready(Ok(Next::Tungstenite));
            }
            let Some((header, header_len, len)) = ready!(self.poll_header(cx))? else {
                return Poll::Ready(Ok(Next::Tungstenite));
            };
            if !self.plain(&header, header_len, len) {
                self.assign(&header, header_len, len);
                return Poll::Ready(Ok(Next::Tungstenite));
            }
            // `plain` bounds it by the buffer's length.
            let from = self.start + header_len;
            let to = from + len as usize;
            if to <= self.end {
                if let Some(mask) = header.mask {
                    unmask(&mut self.buf[from..to], mask);
                }
                self.text = Some((from, to));
                return Poll::Ready(Ok(Next::Text));
            }
            if ready!(self.poll_fill(cx))? == 0 {
                // The peer is gone mid-frame: tungstenite says how.
                self.handed_over = true;
            }
        }
    }

    /// The header of the frame at the buffer's start, read from the socket as far as it
    /// takes; `None` once the stream is handed to tungstenite because the header is one
    /// it rejects or the stream ended (tungstenite then reads it, and says why).
    fn poll_header(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<Option<(FrameHeader, usize, u64)>>> {
        loop {
            match self.header() {
                Parsed::Frame(header, header_len, len) => {
                    return Poll::Ready(Ok(Some((header, header_len, len))));
                }
                Parsed::Invalid => {
                    self.handed_over = true;
                    return Poll::Ready(Ok(None));
                }
                Parsed::Incomplete => {
                    if ready!(self.poll_fill(cx))? == 0 {
                        self.handed_over = true;
                        return Poll::Ready(Ok(None));
                    }
                }
            }
        }
    }

    /// Parses the header at the buffer's start.
    fn header(&self) -> Parsed {
        let mut cursor = Cursor::new(&self.buf[self.start..self.end]);
        match FrameHeader::parse(&mut cursor) {
            // The cursor is within the buffer, so its position fits.
            Ok(Some((header, len))) => Parsed::Frame(header, cursor.position() as usize, len),
            Ok(None) => Parsed::Incomplete,
            Err(_) => Parsed::Invalid,
        }
    }

    /// Whether a frame is read here: final, masked text with no fragmented message
    /// open, within the message limit and the buffer.
    fn plain(&self, header: &FrameHeader, header_len: usize, len: u64) -> bool {
        header.is_final
            && !(header.rsv1 || header.rsv2 || header.rsv3)
            && header.opcode == OpCode::Data(Data::Text)
            && header.mask.is_some()
            && len <= self.max_message as u64
            && header_len as u64 + len <= self.buf.len() as u64
    }

    /// Assigns the frame at the buffer's start to tungstenite, and follows whether a
    /// fragmented message is open.
    fn assign(&mut self, header: &FrameHeader, header_len: usize, len: u64) {
        self.owed = (header_len as u64).saturating_add(len);
        match header.opcode {
            OpCode::Data(Data::Continue) => {
                if header.is_final {
                    self.fragmented = false;
                }
            }
            OpCode::Data(_) => {
                if !header.is_final {
                    self.fragmented = true;
                }
            }
            OpCode::Control(_) => {}
        }
    }

    /// Reads what the socket has into the buffer, after moving what is unconsumed (a
    /// frame's start, if anything) to the front: a frame has the whole buffer to arrive
    /// in, and reads land in the same few lines. Ready with the bytes read, zero at the
    /// stream's end.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<usize>> {
        if self.start > 0 {
            // Nothing, or the start of one frame: a few bytes at most.
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        // Never full here: a frame read here fits the buffer whole, a header always does,
        // and anything else is handed to tungstenite as it comes.
        debug_assert!(
            self.end < self.buf.len(),
            "a read with no room would look like the end"
        );
        let mut free = ReadBuf::new(&mut self.buf[self.end..]);
        ready!(Pin::new(&mut self.io).poll_read(cx, &mut free))?;
        let read = free.filled().len();
        self.end += read;
        Poll::Ready(Ok(read))
    }
}

/// Unmasks (or masks: the same) a payload with its 4-byte key (RFC 6455, section 5.3).
fn unmask(payload: &mut [u8], mask: [u8; 4]) {
    for (i, byte) in payload.iter_mut().enumerate() {
        *byte ^= mask[i & 3];
    }
}

/// tungstenite's reads: the bytes of the frames assigned to it, from the buffer first.
impl<S> AsyncRead for Inbound<S>
where
    S: AsyncRead + Unpin,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if out.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        // tungstenite asks for a frame not yet assigned: the next of a fragmented message
        // (or whatever comes instead), which is its too.
        if this.owed == 0
            && !this.handed_over
            && let Some((header, header_len, len)) = ready!(this.poll_header(cx))?
        {
            this.assign(&header, header_len, len);
        }
        if this.start == this.end && ready!(this.poll_fill(cx))? == 0 {
            // The end of the stream.
            return Poll::Ready(Ok(()));
        }
        let mut give = out.remaining().min(this.end - this.start);
        if !this.handed_over {
            // Less than `give`, a usize, when smaller.
            give = give.min(usize::try_from(this.owed).unwrap_or(usize::MAX));
            this.owed -= give as u64;
        }
        out.put_slice(&this.buf[this.start..this.start + give]);
        this.start += give;
        Poll::Ready(Ok(()))
    }
}

/// Writes go straight to the socket.
impl<S> AsyncWrite for Inbound<S>
where
    S: AsyncWrite + Unpin,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    //! What a client's frames read as through [`Inbound`] is what tungstenite alone reads
    //! of them: the same messages, in the same order, and the same error at the end,
    //! however the bytes are split into reads.

    use std::io::{Read, Write};

    use proptest::prelude::*;
    use tokio_tungstenite::tungstenite::protocol::{Role, WebSocket, WebSocketConfig};

    use super::*;

    /// The limit both readers are given: long enough that some frames within it do not
    /// fit [`BUFFER`], short enough that some frames exceed it.
    const LIMIT: usize = 400;

    fn config() -> WebSocketConfig {
        WebSocketConfig::default()
            .max_message_size(Some(LIMIT))
            .max_frame_size(Some(LIMIT))
            .read_buffer_size(BUFFER)
    }

    /// A frame as a client writes it: `first` is the FIN bit, the RSV bits and the
    /// opcode; masked with `mask` if there is one.
    fn client_frame(first: u8, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
        let mut out = vec![first];
        let masked = if mask.is_some() { 0x80 } else { 0 };
        if payload.len() < 126 {
            out.push(masked | payload.len() as u8);
        } else if let Ok(len) = u16::try_from(payload.len()) {
            out.push(masked | 126);
            out.extend_from_slice(&len.to_be_bytes());
        } else {
            out.push(masked | 127);
            out.extend_from_slice(&(payload.len() as u64).to_be_bytes());
        }
        let mut payload = payload.to_vec();
        if let Some(mask) = mask {
            out.extend_from_slice(&mask);
            unmask(&mut payload, mask);
        }
        out.extend_from_slice(&payload);
        out
    }

    /// What a client may send, well-formed or not.
    #[derive(Debug, Clone)]
    enum Sent {
        Text(String),
        NotUtf8(Vec<u8>),
        Binary(Vec<u8>),
        Ping(Vec<u8>),
        Pong(Vec<u8>),
        /// A text in pieces, with a ping after the first piece if asked.
        Fragmented(String, usize, bool),
        Close(u16),
        Unmasked(String),
        Reserved(u8),
        RsvBit(String),
        StrayContinuation(String),
    }

    impl Sent {
        fn bytes(&self, mask: [u8; 4]) -> Vec<u8> {
            let m = Some(mask);
            match self {
                Sent::Text(text) => client_frame(0x81, text.as_bytes(), m),
                Sent::NotUtf8(bytes) => {
                    let mut bytes = bytes.clone();
                    bytes.push(0xff);
                    client_frame(0x81, &bytes, m)
                }
                Sent::Binary(bytes) => client_frame(0x82, bytes, m),
                Sent::Ping(bytes) => client_frame(0x89, bytes, m),
                Sent::Pong(bytes) => client_frame(0x8a, bytes, m),
                Sent::Fragmented(text, pieces, ping) => {
                    let bytes = text.as_bytes();
                    let size = (bytes.len() / pieces).max(1);
                    let chunks: Vec<&[u8]> = bytes.chunks(size).collect();
                    let mut out = Vec::new();
                    for (i, chunk) in chunks.iter().enumerate() {
                        let fin = if i + 1 == chunks.len() { 0x80 } else { 0 };
                        let opcode = if i == 0 { 1 } else { 0 };
                        out.extend(client_frame(fin | opcode, chunk, m));
                        if i == 0 && *ping {
                            out.extend(client_frame(0x89, b"between", m));
                        }
                    }
                    out
                }
                Sent::Close(code) => client_frame(0x88, &code.to_be_bytes(), m),
                Sent::Unmasked(text) => client_frame(0x81, text.as_bytes(), None),
                Sent::Reserved(opcode) => client_frame(0x80 | opcode, b"x", m),
                Sent::RsvBit(text) => client_frame(0xc1, text.as_bytes(), m),
                Sent::StrayContinuation(text) => client_frame(0x80, text.as_bytes(), m),
            }
        }
    }

    fn text() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec!['a', 'z', ' ', '{', '"', 'é', '€', '😀']);
        prop_oneof![
            prop::collection::vec(chars.clone(), 0..40),
            prop::collection::vec(chars, 0..160),
        ]
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(any::<u8>(), 0..100)
    }

    fn sent() -> impl Strategy<Value = Sent> {
        prop_oneof![
            8 => text().prop_map(Sent::Text),
            1 => bytes().prop_map(Sent::NotUtf8),
            1 => bytes().prop_map(Sent::Binary),
            1 => bytes().prop_map(Sent::Ping),
            1 => bytes().prop_map(Sent::Pong),
            2 => (text(), 1usize..4, any::<bool>()).prop_map(|(t, n, p)| Sent::Fragmented(t, n, p)),
            1 => prop::sample::select(vec![1000u16, 1001, 1008, 999, 1005, 4000])
                .prop_map(Sent::Close),
            1 => text().prop_map(Sent::Unmasked),
            1 => prop::sample::select(vec![3u8, 7, 0xb, 0xf]).prop_map(Sent::Reserved),
            1 => text().prop_map(Sent::RsvBit),
            1 => text().prop_map(Sent::StrayContinuation),
        ]
    }

    /// What a reader made of the stream.
    #[derive(Debug, PartialEq)]
    enum Got {
        Text(String),
        Binary(Vec<u8>),
        Ping(Vec<u8>),
        Pong(Vec<u8>),
        Close(Option<u16>),
        Failed(String),
        End,
    }

    fn message(message: Message) -> Got {
        match message {
            Message::Text(text) => Got::Text(text.to_string()),
            Message::Binary(bytes) => Got::Binary(bytes.to_vec()),
            Message::Ping(bytes) => Got::Ping(bytes.to_vec()),
            Message::Pong(bytes) => Got::Pong(bytes.to_vec()),
            Message::Close(frame) => Got::Close(frame.map(|f| u16::from(f.code))),
            Message::Frame(_) => Got::Failed("a raw frame".to_owned()),
        }
    }

    /// An error by kind: the UTF-8 error's words are the standard library's.
    fn failure(error: WsError) -> Got {
        Got::Failed(match error {
            WsError::Utf8(_) => "not UTF-8".to_owned(),
            WsError::Io(e) => format!("io: {:?}", e.kind()),
            other => other.to_string(),
        })
    }

    /// The stream, given out in reads of the sizes drawn (the last size repeating); what
    /// is written (pongs, the answer to a close) is dropped.
    struct Chunked {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        read: usize,
    }

    impl Chunked {
        fn next_len(&mut self, room: usize) -> usize {
            let size = self.sizes[self.read.min(self.sizes.len() - 1)];
            self.read += 1;
            size.min(room).min(self.data.len() - self.at)
        }
    }

    impl Read for Chunked {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.next_len(buf.len());
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    impl Write for Chunked {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl AsyncRead for Chunked {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let this = self.get_mut();
            let n = this.next_len(buf.remaining());
            buf.put_slice(&this.data[this.at..this.at + n]);
            this.at += n;
            Poll::Ready(Ok(()))
        }
    }

    impl AsyncWrite for Chunked {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    /// Until the first close, error or the end.
    fn done(read: &Got) -> bool {
        matches!(read, Got::Close(_) | Got::Failed(_) | Got::End)
    }

    /// tungstenite alone.
    fn by_tungstenite(stream: Chunked) -> Vec<Got> {
        let mut ws = WebSocket::from_raw_socket(stream, Role::Server, Some(config()));
        let mut reads = Vec::new();
        loop {
            let read = match ws.read() {
                Ok(m) => message(m),
                Err(e) => failure(e),
            };
            let last = done(&read);
            reads.push(read);
            if last {
                return reads;
            }
        }
    }

    /// Through [`Inbound`], as a connection reads.
    fn by_inbound(stream: Chunked) -> Vec<Got> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime for the test");
        runtime.block_on(async {
            let socket = Inbound::new(stream, Vec::new(), LIMIT);
            let mut ws =
                WebSocketStream::from_raw_socket(socket, Role::Server, Some(config())).await;
            let mut reads = Vec::new();
            loop {
                let next = std::future::poll_fn(|cx| poll_frame(&mut ws, cx)).await;
                let read = match next {
                    Some(Ok(Frame::Text)) => match ws.get_mut().take_text() {
                        Ok(text) => Got::Text(text.to_owned()),
                        Err(e) => failure(WsError::from(e)),
                    },
                    Some(Ok(Frame::Message(m))) => message(m),
                    Some(Err(e)) => failure(e),
                    None => Got::End,
                };
                let last = done(&read);
                reads.push(read);
                if last {
                    return reads;
                }
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn reads_as_tungstenite_alone_does(
            sent in prop::collection::vec((sent(), any::<[u8; 4]>()), 0..12),
            sizes in prop::collection::vec(1usize..80, 1..8),
        ) {
            let data: Vec<u8> = sent.iter().flat_map(|(s, mask)| s.bytes(*mask)).collect();
            let stream = || Chunked { data: data.clone(), at: 0, sizes: sizes.clone(), read: 0 };
            let expected = by_tungstenite(stream());
            let got = by_inbound(stream());
            prop_assert_eq!(got, expected);
        }
    }

    #[tokio::test]
    async fn plain_text_is_read_from_the_buffer_and_the_rest_by_tungstenite() {
        let mask = [1, 2, 3, 4];
        let mut data = client_frame(0x81, b"one", Some(mask));
        data.extend(client_frame(0x89, b"ping", Some(mask)));
        data.extend(client_frame(0x81, "two €".as_bytes(), Some(mask)));
        data.extend(client_frame(0x81, &[b'x'; 300], Some(mask)));
        let stream = Chunked {
            data,
            at: 0,
            sizes: vec![5, 1, 200],
            read: 0,
        };
        let socket = Inbound::new(stream, Vec::new(), LIMIT);
        let mut ws = WebSocketStream::from_raw_socket(socket, Role::Server, Some(config())).await;
        let one = std::future::poll_fn(|cx| poll_frame(&mut ws, cx)).await;
        assert!(matches!(one, Some(Ok(Frame::Text))));
        assert_eq!(ws.get_mut().take_text(), Ok("one"));
        let ping = std::future::poll_fn(|cx| poll_frame(&mut ws, cx)).await;
        assert!(matches!(ping, Some(Ok(Frame::Message(Message::Ping(p)))) if p == "ping"));
        let two = std::future::poll_fn(|cx| poll_frame(&mut ws, cx)).await;
        assert!(matches!(two, Some(Ok(Frame::Text))));
        assert_eq!(ws.get_mut().take_text(), Ok("two €"));
        // Longer than the buffer: tungstenite's.
        let long = std::future::poll_fn(|cx| poll_frame(&mut ws, cx)).await;
        assert!(matches!(long, Some(Ok(Frame::Message(Message::Text(t)))) if t.len() == 300));
    }
}
