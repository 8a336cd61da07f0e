//! The floor under a move's cost on this machine: a bare TCP relay with the server's shape
//! (one tokio worker, one task per connection, a queue per connection, everything queued
//! written with one write) and none of its work (no WebSocket, no JSON, no rooms, no logs,
//! no store). A move is a client's 80-byte message, answered by a 146-byte message to the
//! mover and one to its partner: the bytes, the reads and the writes of a `moved` event.
//! `load --floor` measures its CPU per move beside the server's: what is left for the
//! server's own code when the kernel's loopback work is counted as the server's.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};

/// A client's move.
pub const MOVE: usize = 80;
/// What the relay sends the mover and its partner for a move.
pub const MOVED: usize = 146;

/// Serves the relay on `listener` until the process ends. A client first sends its pair's
/// key (8 bytes); the relay pairs the two connections that send the same key.
pub async fn serve(listener: TcpListener) {
    let waiting: Waiting = Arc::default();
    while let Ok((socket, _)) = listener.accept().await {
        let waiting = waiting.clone();
        tokio::spawn(async move {
            let _ = socket.set_nodelay(true);
            let _ = connection(socket, waiting).await;
        });
    }
}

/// A connection's queue, as its partner's task sends to it.
type Queue = mpsc::UnboundedSender<&'static [u8]>;

/// The first connection of each pair, by key: its queue, and where it waits for its
/// partner's.
type Waiting = Arc<Mutex<HashMap<u64, (Queue, oneshot::Sender<Queue>)>>>;

/// How a connection meets its pair's other half.
enum Meeting {
    /// The other half was waiting: its queue.
    Met(Queue),
    /// This one waits for the other half's queue.
    Waiting(oneshot::Receiver<Queue>),
}

/// What the relay sends for a move.
static MOVED_TEXT: [u8; MOVED] = [b'e'; MOVED];

/// One connection: its pair's key, then moves in and messages out.
async fn connection(mut socket: TcpStream, waiting: Waiting) -> std::io::Result<()> {
    let mut key = [0u8; 8];
    socket.read_exact(&mut key).await?;
    let key = u64::from_le_bytes(key);
    let (own, mut queue) = mpsc::unbounded_channel();
    // Under one lock: with several workers, two halves of a pair must not both find the
    // other missing.
    let meeting = {
        let mut waiting = waiting.lock().expect("not poisoned");
        match waiting.remove(&key) {
            Some((partner, tell)) => {
                let _ = tell.send(own);
                Meeting::Met(partner)
            }
            None => {
                let (tell, told) = oneshot::channel();
                waiting.insert(key, (own, tell));
                Meeting::Waiting(told)
            }
        }
    };
    let partner = match meeting {
        Meeting::Met(partner) => partner,
        Meeting::Waiting(told) => match told.await {
            Ok(partner) => partner,
            Err(_) => return Ok(()),
        },
    };
    let mut buf = vec![0u8; 1024];
    let mut have = 0;
    let mut out: Vec<u8> = Vec::new();
    loop {
        tokio::select! {
            biased;
            n = socket.read(&mut buf[have..]) => {
                let n = n?;
                if n == 0 {
                    return Ok(());
                }
                have += n;
                let mut at = 0;
                while have - at >= MOVE {
                    at += MOVE;
                    out.extend_from_slice(&MOVED_TEXT);
                    let _ = partner.send(&MOVED_TEXT);
                }
                buf.copy_within(at..have, 0);
                have -= at;
            }
            message = queue.recv() => match message {
                Some(message) => out.extend_from_slice(message),
                None => return Ok(()),
            },
        }
        while let Ok(message) = queue.try_recv() {
            out.extend_from_slice(message);
        }
        if !out.is_empty() {
            socket.write_all(&out).await?;
            out.clear();
        }
    }
}

/// A pair's two connections to the relay at `addr`, paired by `key`.
pub async fn pair(addr: std::net::SocketAddr, key: u64) -> std::io::Result<(TcpStream, TcpStream)> {
    let mut a = TcpStream::connect(addr).await?;
    let mut b = TcpStream::connect(addr).await?;
    for s in [&mut a, &mut b] {
        s.set_nodelay(true)?;
        s.write_all(&key.to_le_bytes()).await?;
    }
    Ok((a, b))
}

/// Plays moves on a pair until `stop`, the two taking turns; counts each move in `moves`.
pub async fn play(
    (mut a, mut b): (TcpStream, TcpStream),
    moves: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    let request = [b'm'; MOVE];
    let (mut got_a, mut got_b) = ([0u8; MOVED], [0u8; MOVED]);
    while !stop.load(Ordering::Relaxed) {
        a.write_all(&request).await?;
        let (ra, rb) = tokio::join!(a.read_exact(&mut got_a), b.read_exact(&mut got_b));
        ra?;
        rb?;
        moves.fetch_add(1, Ordering::Relaxed);
        std::mem::swap(&mut a, &mut b);
    }
    Ok(())
}
