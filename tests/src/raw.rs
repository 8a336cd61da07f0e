//! A raw socket to the server, below any WebSocket library: for input that a well-behaved
//! client cannot send (half-open handshakes, unmasked frames, reserved bits and opcodes,
//! invalid UTF-8) and for peers that never answer pings. Every read is under
//! [`RECV_TIMEOUT`].

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::client::RECV_TIMEOUT;

/// Opcodes of RFC 6455.
pub mod opcode {
    /// Continuation of a fragmented message.
    pub const CONTINUATION: u8 = 0x0;
    /// A text frame.
    pub const TEXT: u8 = 0x1;
    /// A binary frame.
    pub const BINARY: u8 = 0x2;
    /// A close frame.
    pub const CLOSE: u8 = 0x8;
    /// A ping.
    pub const PING: u8 = 0x9;
    /// A pong.
    pub const PONG: u8 = 0xA;
}

/// One frame to send, with every bit under the test's control.
#[derive(Debug, Clone)]
pub struct RawFrame {
    /// The FIN bit.
    pub fin: bool,
    /// RSV1..RSV3 as the low three bits (RSV1 = 0b100).
    pub rsv: u8,
    /// The opcode (four bits).
    pub opcode: u8,
    /// Whether to mask the payload (clients must).
    pub masked: bool,
    /// The payload.
    pub payload: Vec<u8>,
}

impl RawFrame {
    /// A final, masked frame with no reserved bits: what a correct client sends.
    pub fn new(opcode: u8, payload: impl Into<Vec<u8>>) -> RawFrame {
        RawFrame {
            fin: true,
            rsv: 0,
            opcode,
            masked: true,
            payload: payload.into(),
        }
    }

    /// The frame's bytes on the wire.
    pub fn encode(&self) -> Vec<u8> {
        let mut out =
            vec![(u8::from(self.fin) << 7) | ((self.rsv & 0b111) << 4) | (self.opcode & 0xF)];
        let mask_bit = u8::from(self.masked) << 7;
        let len = self.payload.len();
        if len < 126 {
            out.push(mask_bit | u8::try_from(len).unwrap_or(0));
        } else if let Ok(len) = u16::try_from(len) {
            out.push(mask_bit | 126);
            out.extend_from_slice(&len.to_be_bytes());
        } else {
            out.push(mask_bit | 127);
            out.extend_from_slice(&(len as u64).to_be_bytes());
        }
        if self.masked {
            let key = [0x37, 0xfa, 0x21, 0x3d];
            out.extend_from_slice(&key);
            out.extend(self.payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        } else {
            out.extend_from_slice(&self.payload);
        }
        out
    }
}

/// What reading from the server ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawEnd {
    /// A close frame with this code (None: no code in the frame).
    Close(Option<u16>),
    /// The TCP connection ended without a close frame.
    Eof,
}

/// A TCP connection to the server, WebSocket handshake optional.
pub struct RawSocket {
    stream: TcpStream,
    /// Bytes read but not yet parsed.
    buffer: Vec<u8>,
}

impl RawSocket {
    /// Opens a TCP connection and nothing more.
    pub async fn connect(addr: SocketAddr) -> RawSocket {
        let stream = tokio::time::timeout(RECV_TIMEOUT, TcpStream::connect(addr))
            .await
            .expect("TCP connect timed out")
            .expect("TCP connect failed");
        RawSocket {
            stream,
            buffer: Vec::new(),
        }
    }

    /// Opens a connection and completes the WebSocket handshake by hand.
    pub async fn websocket(addr: SocketAddr) -> RawSocket {
        let mut socket = RawSocket::connect(addr).await;
        let request = format!(
            "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        socket.write(request.as_bytes()).await;
        let head = socket.read_until_blank_line().await;
        assert!(
            head.starts_with("HTTP/1.1 101"),
            "handshake refused: {head}"
        );
        socket
    }

    /// Writes bytes as they are; a write error (the server closed) is ignored, as the
    /// test then reads how it ended.
    pub async fn write(&mut self, bytes: &[u8]) {
        let _ = tokio::time::timeout(RECV_TIMEOUT, self.stream.write_all(bytes)).await;
    }

    /// Sends one frame.
    pub async fn send(&mut self, frame: &RawFrame) {
        self.write(&frame.encode()).await;
    }

    /// Sends a correct text frame.
    pub async fn send_text(&mut self, text: &str) {
        self.send(&RawFrame::new(opcode::TEXT, text.as_bytes()))
            .await;
    }

    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 4096];
        match tokio::time::timeout(RECV_TIMEOUT, self.stream.read(&mut chunk)).await {
            Err(_) => panic!("raw socket: nothing read for {RECV_TIMEOUT:?}"),
            Ok(Ok(0) | Err(_)) => false,
            Ok(Ok(n)) => {
                self.buffer.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    async fn read_until_blank_line(&mut self) -> String {
        loop {
            if let Some(end) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head: Vec<u8> = self.buffer.drain(..end + 4).collect();
                return String::from_utf8_lossy(&head).into_owned();
            }
            assert!(self.fill().await, "connection closed during the handshake");
        }
    }

    /// Reads the next server frame: (opcode, payload); `None` at end of stream.
    pub async fn read_frame(&mut self) -> Option<(u8, Vec<u8>)> {
        loop {
            if let Some((frame, used)) = parse(&self.buffer) {
                self.buffer.drain(..used);
                return Some(frame);
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    /// Reads until the server's close frame or the end of the stream, never answering
    /// pings; returns how it ended and the text frames seen before.
    pub async fn expect_end(&mut self) -> (RawEnd, Vec<String>) {
        let mut texts = Vec::new();
        loop {
            match self.read_frame().await {
                None => return (RawEnd::Eof, texts),
                Some((opcode::CLOSE, payload)) => {
                    let code =
                        (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
                    return (RawEnd::Close(code), texts);
                }
                Some((opcode::TEXT, payload)) => {
                    texts.push(String::from_utf8_lossy(&payload).into_owned());
                }
                Some(_) => {}
            }
        }
    }

    /// Reads raw bytes until the server ends the TCP stream (for peers that never
    /// finished the handshake); fails if it stays open for [`RECV_TIMEOUT`].
    pub async fn expect_eof(&mut self) {
        while self.fill().await {}
    }
}

/// One complete unmasked server frame at the start of `buf`, and the bytes it used.
fn parse(buf: &[u8]) -> Option<((u8, Vec<u8>), usize)> {
    let (&b0, rest) = buf.split_first()?;
    let (&b1, mut rest) = rest.split_first()?;
    let mut len = u64::from(b1 & 0x7F);
    let mut header = 2;
    if len == 126 {
        let bytes = rest.get(..2)?;
        len = u64::from(u16::from_be_bytes([bytes[0], bytes[1]]));
        rest = &rest[2..];
        header += 2;
    } else if len == 127 {
        let bytes: [u8; 8] = rest.get(..8)?.try_into().ok()?;
        len = u64::from_be_bytes(bytes);
        rest = &rest[8..];
        header += 8;
    }
    let len = usize::try_from(len).ok()?;
    let payload = rest.get(..len)?.to_vec();
    Some(((b0 & 0x0F, payload), header + len))
}
