//! Soak benchmark (not run in CI): many connections playing tic-tac-toe in pairs against a
//! server in a child process, for minutes. Prints, each minute, the errors seen (expected
//! 0), the server's resident memory and the p99 round trip of a move (from sending `play`
//! to receiving its snapshot); and the server's RSS at start and end.
//!
//! ```text
//! ulimit -n 65536   # every connection is two sockets on this machine
//! cargo bench -p inarow-bench --bench soak -- --connections 10000 --minutes 10
//! cargo bench -p inarow-bench --bench soak -- --connections 1000 --minutes 1   # short
//! ```
//!
//! The server runs with its default limits (10,000 connections, 5,000 rooms, 32
//! connections per address): clients spread over 127.1.x.y, 25 connections per address.
//! Players think 0.5 to 1.5 s before each move, then ask for a rematch at the end.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ClientFrame, ClientMessage, GameStatus, Occupant, PROTOCOL_VERSION, RequestId, RoomId,
    RulesSpec, SeatChoice, SeatPlan, SeatRequest, ServerMessage, SessionId, decode_server, encode,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// Connections per client address (the server allows 32).
const PER_ADDRESS: usize = 25;

struct Totals {
    errors: AtomicU64,
    moves: AtomicU64,
    games: AtomicU64,
    /// Round trips of the current minute.
    round_trips: Mutex<Vec<Duration>>,
}

fn arg(name: &str) -> Option<u64> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    if std::env::args().any(|a| a == "--serve") {
        runtime.block_on(serve());
        return;
    }
    let connections = arg("--connections").unwrap_or(1_000) as usize / 2 * 2;
    let seconds = arg("--seconds").unwrap_or(60 * arg("--minutes").unwrap_or(1));
    runtime.block_on(soak(connections, Duration::from_secs(seconds)));
}

/// The child process: a server with default limits on a loopback port, printed first.
async fn serve() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    println!("{}", listener.local_addr().expect("address"));
    let shutdown = tokio_util::sync::CancellationToken::new();
    let _ = inarow_server::run(listener, inarow_server::Config::default(), shutdown).await;
}

async fn soak(connections: usize, duration: Duration) {
    let exe = std::env::current_exe().expect("the bench binary");
    let mut child = tokio::process::Command::new(exe)
        .arg("--serve")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let pid = child.id().expect("a pid");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let addr: SocketAddr = lines
        .next_line()
        .await
        .ok()
        .flatten()
        .and_then(|l| l.parse().ok())
        .expect("the server's address");
    let rss_start = rss_kib(pid);
    println!(
        "soak: {connections} connections for {duration:?} against {addr}; server RSS at start {rss_start} KiB"
    );

    let totals = Arc::new(Totals {
        errors: AtomicU64::new(0),
        moves: AtomicU64::new(0),
        games: AtomicU64::new(0),
        round_trips: Mutex::new(Vec::new()),
    });
    let started = Instant::now();
    let stop = started + duration;
    let mut pairs = Vec::new();
    for pair in 0..connections / 2 {
        let totals = totals.clone();
        pairs.push(tokio::spawn(play_pair(addr, pair, stop, totals)));
        if pair % 100 == 99 {
            // Let the handshakes of a batch through before the next.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    println!(
        "soak: {} pairs started in {:?}",
        pairs.len(),
        started.elapsed()
    );

    let mut minute = 0;
    while Instant::now() < stop {
        let next = (started + Duration::from_secs(60 * (minute + 1))).min(stop);
        tokio::time::sleep_until(next.into()).await;
        minute += 1;
        let mut trips = std::mem::take(&mut *totals.round_trips.lock().await);
        trips.sort();
        let p99 = trips
            .get((trips.len() * 99 / 100).min(trips.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default();
        println!(
            "soak: minute {minute}: errors {}, moves {}, games {}, server RSS {} KiB, p99 move round trip {:?} ({} moves this minute)",
            totals.errors.load(Ordering::Relaxed),
            totals.moves.load(Ordering::Relaxed),
            totals.games.load(Ordering::Relaxed),
            rss_kib(pid),
            p99,
            trips.len()
        );
    }
    for pair in pairs {
        if pair.await.is_err() {
            totals.errors.fetch_add(1, Ordering::Relaxed);
        }
    }
    let rss_end = rss_kib(pid);
    let _ = child.kill().await;
    println!(
        "soak: done: errors {} (expected 0), moves {}, games {}, server RSS start {rss_start} KiB, end {rss_end} KiB",
        totals.errors.load(Ordering::Relaxed),
        totals.moves.load(Ordering::Relaxed),
        totals.games.load(Ordering::Relaxed),
    );
}

fn client_ip(index: usize) -> Ipv4Addr {
    let a = index / PER_ADDRESS;
    Ipv4Addr::new(127, 1, (a / 250) as u8, (a % 250 + 1) as u8)
}

async fn connect(addr: SocketAddr, index: usize) -> Result<Ws, String> {
    let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(SocketAddr::from((client_ip(index), 0)))
        .map_err(|e| e.to_string())?;
    let stream = socket.connect(addr).await.map_err(|e| e.to_string())?;
    let (ws, _) =
        tokio_tungstenite::client_async(format!("ws://{addr}/"), MaybeTlsStream::Plain(stream))
            .await
            .map_err(|e| e.to_string())?;
    Ok(ws)
}

async fn send(ws: &mut Ws, message: ClientMessage, id: u64) -> Result<(), String> {
    let frame = ClientFrame {
        message,
        id: Some(RequestId::Number(id)),
    };
    ws.send(Message::text(encode(&frame)))
        .await
        .map_err(|e| e.to_string())
}

/// Reads until the frame answering `id`; an `error` or a close is an error.
async fn reply(ws: &mut Ws, id: u64) -> Result<ServerMessage, String> {
    loop {
        let frame = match ws.next().await {
            Some(Ok(Message::Text(text))) => {
                decode_server(text.as_str()).map_err(|e| e.to_string())?
            }
            Some(Ok(Message::Close(_))) | None => return Err("closed".into()),
            Some(Err(e)) => return Err(e.to_string()),
            Some(Ok(_)) => continue,
        };
        if let ServerMessage::Error { code, message } = &frame.message {
            return Err(format!("{code}: {message}"));
        }
        if frame.id == Some(RequestId::Number(id)) {
            return Ok(frame.message);
        }
    }
}

async fn hello(ws: &mut Ws, name: &str) -> Result<SessionId, String> {
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: name.to_owned(),
        token: None,
    };
    send(ws, hello, 0).await?;
    match reply(ws, 0).await? {
        ServerMessage::Welcome { session, .. } => Ok(session),
        other => Err(format!("expected welcome, got {other:?}")),
    }
}

async fn play_pair(addr: SocketAddr, pair: usize, stop: Instant, totals: Arc<Totals>) {
    let setup = async {
        let mut x = connect(addr, 2 * pair).await?;
        let mut o = connect(addr, 2 * pair + 1).await?;
        let xs = hello(&mut x, &format!("x{pair}")).await?;
        let os = hello(&mut o, &format!("o{pair}")).await?;
        let create = ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("tictactoe".into()),
            seats: SeatPlan {
                x: SeatRequest::Me,
                o: SeatRequest::Open,
            },
            private: true,
            hints: false,
            time_control: None,
            takebacks: None,
        };
        send(&mut x, create, 1).await?;
        let room = match reply(&mut x, 1).await? {
            ServerMessage::Room { room } => room.id,
            other => return Err(format!("expected a room, got {other:?}")),
        };
        let join = ClientMessage::Join {
            room: room.clone(),
            seat: Some(SeatChoice::O),
        };
        send(&mut o, join, 1).await?;
        reply(&mut o, 1).await?;
        Ok::<_, String>((x, xs, o, os, room))
    };
    let (x, xs, o, os, room) = match setup.await {
        Ok(set) => set,
        Err(e) => {
            eprintln!("soak: pair {pair} setup failed: {e}");
            totals.errors.fetch_add(2, Ordering::Relaxed);
            return;
        }
    };
    let a = tokio::spawn(player(
        x,
        xs,
        room.clone(),
        stop,
        totals.clone(),
        pair as u64,
    ));
    let b = tokio::spawn(player(
        o,
        os,
        room,
        stop,
        totals.clone(),
        pair as u64 ^ 0xFFFF,
    ));
    let _ = tokio::join!(a, b);
}

/// Plays every turn of `me` in `room` (think time 0.5-1.5 s, random legal move) and asks
/// for a rematch after each game, until `stop`.
async fn player(
    mut ws: Ws,
    me: SessionId,
    room: RoomId,
    stop: Instant,
    totals: Arc<Totals>,
    seed: u64,
) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut next_id = 10;
    let mut pending: Option<(u64, Instant)> = None;
    let mut moved_at_ply = None;
    let mut last: Option<inarow_protocol::RoomSnapshot> = None;
    let mut rematched_game = 0;
    let mut think: Option<(tokio::time::Instant, u32, String)> = None;
    let error = |totals: &Totals, what: String| {
        eprintln!("soak: {what}");
        totals.errors.fetch_add(1, Ordering::Relaxed);
    };
    loop {
        let wake = think.as_ref().map(|(t, _, _)| *t);
        let frame = tokio::select! {
            () = tokio::time::sleep_until(stop.into()) => break,
            () = async { match wake { Some(t) => tokio::time::sleep_until(t).await, None => std::future::pending().await } } => {
                if let Some((_, ply, mv)) = think.take() {
                    next_id += 1;
                    let play = ClientMessage::Play { room: room.clone(), ply, mv };
                    if let Err(e) = send(&mut ws, play, next_id).await {
                        error(&totals, format!("send failed: {e}"));
                        return;
                    }
                    pending = Some((next_id, Instant::now()));
                }
                continue;
            }
            frame = ws.next() => frame,
        };
        let frame = match frame {
            Some(Ok(Message::Text(text))) => match decode_server(text.as_str()) {
                Ok(frame) => frame,
                Err(e) => {
                    error(&totals, format!("undecodable frame: {e}"));
                    continue;
                }
            },
            Some(Ok(_)) => continue,
            Some(Err(e)) => return error(&totals, format!("connection failed: {e}")),
            None => return error(&totals, "connection closed".into()),
        };
        let snapshot = match frame.message {
            ServerMessage::Room { room } => room,
            // Protocol 2: a move comes as a small event, applied to the last snapshot as
            // the terminal client does; a gap asks for a fresh snapshot.
            ServerMessage::Moved(event) => {
                match last
                    .as_ref()
                    .and_then(|s| inarow::board::apply_moved(s, &event))
                {
                    Some(next) => Box::new(next),
                    None => {
                        next_id += 1;
                        let sync = ClientMessage::Sync { room: room.clone() };
                        if let Err(e) = send(&mut ws, sync, next_id).await {
                            return error(&totals, format!("send failed: {e}"));
                        }
                        continue;
                    }
                }
            }
            ServerMessage::Error { code, message } => {
                error(&totals, format!("error {code}: {message}"));
                continue;
            }
            ServerMessage::Bye { reason, message } => {
                return error(&totals, format!("bye {reason}: {message}"));
            }
            _ => continue,
        };
        last = Some((*snapshot).clone());
        if let Some((id, sent)) = pending
            && frame.id == Some(RequestId::Number(id))
        {
            totals.round_trips.lock().await.push(sent.elapsed());
            totals.moves.fetch_add(1, Ordering::Relaxed);
            pending = None;
        }
        let my_mark = snapshot.seats.iter().find_map(|s| match &s.occupant {
            Occupant::Human { session, .. } if *session == me => Some(s.mark),
            _ => None,
        });
        match snapshot.status {
            GameStatus::Playing { turn }
                if Some(turn) == my_mark
                    && moved_at_ply != Some((snapshot.game, snapshot.ply))
                    && pending.is_none() =>
            {
                moved_at_ply = Some((snapshot.game, snapshot.ply));
                let mv =
                    snapshot.legal_moves[rng.random_range(0..snapshot.legal_moves.len())].clone();
                let delay = Duration::from_millis(rng.random_range(500..1_500));
                think = Some((tokio::time::Instant::now() + delay, snapshot.ply, mv));
            }
            status if status.is_over() && rematched_game < snapshot.game => {
                rematched_game = snapshot.game;
                if my_mark == Some(inarow_protocol::Mark::X) {
                    totals.games.fetch_add(1, Ordering::Relaxed);
                }
                next_id += 1;
                let rematch = ClientMessage::Rematch { room: room.clone() };
                if let Err(e) = send(&mut ws, rematch, next_id).await {
                    return error(&totals, format!("send failed: {e}"));
                }
            }
            _ => {}
        }
    }
    let _ = ws.close(None).await;
}
