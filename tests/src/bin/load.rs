//! The load benchmark of issue 8: bytes, server CPU and round trips per move with many
//! human games, AI reply times with many AI rooms, and server memory with many idle
//! connections. It prints figures; it asserts nothing.
//!
//! The server runs in a child process (this binary with `serve`), so its CPU time and
//! memory are read from `/proc/PID/stat` and `/proc/PID/status` apart from the load
//! clients, which run in this process. Both share the machine's cores, so round trips
//! include the clients' own scheduling.
//!
//! ```sh
//! cargo run --release -p inarow-e2e --bin load            # every phase
//! cargo run --release -p inarow-e2e --bin load -- --quick # shorter phases
//! cargo run --release -p inarow-e2e --bin load -- --humans --quick --data /tmp/load.db
//! ```
//!
//! `--data FILE` keeps the server's finished games and live rooms in that SQLite file (as
//! `inarow-server --data` does); without it they are kept in memory. With it the human
//! games also run on a second server that keeps nothing (`:memory:`), side by side in one
//! run: the difference in CPU µs per move is the cost of keeping games and checkpointing
//! every move. `serve --data FILE` runs the child alone on FILE (the restart tests kill it).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ClientFrame, ClientMessage, GameStatus, Level, Mark, Occupant, RequestId, RoomSnapshot,
    RulesSpec, SeatPlan, SeatRequest, ServerMessage, SessionId, decode_server, encode,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The allocator of the `inarow-server` binary, so the server child measures as it runs.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The AI budget the server runs with, as `--ai-move-ms` would set it.
const AI_MOVE_MS: u64 = 1_000;
/// How long the people of the AI phase think before each move: without it, 50 human
/// games at full speed take every core, which is a throughput test (the first phase),
/// not a test of AI seats among people.
const THINK: Duration = Duration::from_millis(100);

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = args
        .iter()
        .position(|a| a == "--data")
        .map(|i| args.get(i + 1).cloned().context("--data FILE"))
        .transpose()?;
    if args.first().map(String::as_str) == Some("serve") {
        return serve(data.as_deref());
    }
    let quick = args.iter().any(|a| a == "--quick");
    let phase = Duration::from_secs(if quick { 4 } else { 10 });
    let server = Server::start(data.as_deref())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // `--memory`, `--humans`, `--ai` pick parts; all of them by default.
    let picked = |part: &str| {
        let parts = ["--memory", "--humans", "--ai"];
        args.iter().any(|a| a == part) || !args.iter().any(|a| parts.contains(&a.as_str()))
    };
    if picked("--memory") {
        // On a fresh server: the other parts leave rooms open for minutes.
        let fresh = Server::start(None)?;
        runtime.block_on(memory(&fresh))?;
    }
    println!(
        "# inarow load benchmark (server pid {}, {phase:?} per phase, AI budget {AI_MOVE_MS} ms, games kept in {})",
        server.child.id(),
        data.as_deref().unwrap_or(":memory:")
    );
    if picked("--humans") {
        if data.is_some() {
            // The same games on a server that keeps nothing, for comparison.
            let memory = Server::start(None)?;
            println!();
            println!("### data :memory: (no checkpoints)");
            runtime.block_on(humans(&memory, phase))?;
        }
        println!();
        println!("### data {}", data.as_deref().unwrap_or(":memory:"));
        runtime.block_on(humans(&server, phase))?;
    }
    if picked("--ai") {
        runtime.block_on(ai(&server, phase))?;
    }
    Ok(())
}

/// The child: an inarow server on a loopback port, with limits raised for load (the
/// clients play as fast as they can, far above a person's message rate), until stdin
/// closes. Its games and live rooms are kept in `data` (a SQLite file), else in memory.
fn serve(data: Option<&str>) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening {}", listener.local_addr()?);
        std::io::stdout().flush()?;
        let config = inarow_server::Config {
            max_connections: 20_000,
            max_rooms: 20_000,
            rate_per_second: 100_000,
            rate_burst: 100_000,
            // Every load client comes from 127.0.0.1: lift the per-address limits.
            max_connections_per_ip: 100_000,
            new_connections_per_ip_per_minute: 1_000_000,
            max_sessions_per_ip: 100_000,
            max_rooms_per_session: 100_000,
            ai_move_time: Duration::from_millis(AI_MOVE_MS),
            data: data.map_or(inarow_server::DataLocation::Memory, |path| {
                inarow_server::DataLocation::parse(path)
            }),
            ..inarow_server::Config::default()
        };
        let shutdown = tokio_util::sync::CancellationToken::new();
        let stop = shutdown.clone();
        // The parent closes our stdin when it is done (or dies).
        tokio::task::spawn_blocking(move || {
            let _ = std::io::stdin().lines().count();
            stop.cancel();
        });
        inarow_server::run(listener, config, shutdown).await?;
        Ok(())
    })
}

/// The server child process.
struct Server {
    child: Child,
    addr: SocketAddr,
    /// Clock ticks per second of `/proc/PID/stat`.
    ticks: f64,
}

impl Server {
    fn start(data: Option<&str>) -> anyhow::Result<Server> {
        let mut command = Command::new(std::env::current_exe()?);
        command.arg("serve");
        if let Some(data) = data {
            command.args(["--data", data]);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().context("child stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening ")
            .ok_or_else(|| anyhow!("unexpected first line from the server: {line:?}"))?
            .parse()?;
        let ticks = Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0);
        Ok(Server { child, addr, ticks })
    }

    /// Reads the server's CPU time.
    fn cpu(&self) -> Cpu {
        Cpu {
            pid: self.child.id(),
            ticks: self.ticks,
        }
    }

    /// A line of `/proc/PID/status`, in KiB.
    fn status_kib(&self, key: &str) -> anyhow::Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let line = status
            .lines()
            .find(|l| l.starts_with(key))
            .context("status line")?;
        Ok(line
            .split_whitespace()
            .nth(1)
            .context("status value")?
            .parse()?)
    }

    /// Open file descriptors of the server: its connections plus a few.
    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id())).map_or(0, Iterator::count)
    }
}

/// Reads a process's CPU time.
#[derive(Clone, Copy)]
struct Cpu {
    pid: u32,
    /// Clock ticks per second of `/proc/PID/stat`.
    ticks: f64,
}

impl Cpu {
    /// User plus system CPU time the process has used.
    fn read(self) -> anyhow::Result<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid))?;
        // Fields after the command name (which is in parentheses and may hold spaces).
        let rest = stat.rsplit_once(')').context("stat format")?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let utime: f64 = fields.get(11).context("utime")?.parse()?;
        let stime: f64 = fields.get(12).context("stime")?.parse()?;
        Ok(Duration::from_secs_f64((utime + stime) / self.ticks))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Which game a room plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    TicTacToe,
    ConnectFour,
    Gomoku,
}

impl Kind {
    fn preset(self) -> RulesSpec {
        RulesSpec::Preset(
            match self {
                Kind::TicTacToe => "tictactoe",
                Kind::ConnectFour => "connect4",
                Kind::Gomoku => "gomoku",
            }
            .to_owned(),
        )
    }
}

/// What one client measured.
#[derive(Default)]
struct Tally {
    /// Moves of ours the server acknowledged.
    moves: u64,
    /// Frames and wire bytes (payload plus WebSocket header) of move events received:
    /// `moved`, or for protocol 1 the snapshot a move caused.
    move_frames: u64,
    move_bytes: u64,
    /// Every frame and wire byte received in the window.
    frames: u64,
    bytes: u64,
    /// From sending `play` to its acknowledgement.
    round_trips: Vec<Duration>,
    /// From sending `play` to the AI's answering move.
    ai_replies: Vec<Duration>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.moves += other.moves;
        self.move_frames += other.move_frames;
        self.move_bytes += other.move_bytes;
        self.frames += other.frames;
        self.bytes += other.bytes;
        self.round_trips.extend(other.round_trips);
        self.ai_replies.extend(other.ai_replies);
    }
}

fn wire_bytes(payload: usize) -> u64 {
    let header = match payload {
        0..=125 => 2,
        126..=65_535 => 4,
        _ => 10,
    };
    (payload + header) as u64
}

/// One connection playing: random legal moves on its turn, a rematch when a game ends.
struct Player {
    ws: Ws,
    me: Option<SessionId>,
    next_id: u64,
    room: Option<RoomSnapshot>,
    /// The id and sending time of our `play` awaiting its acknowledgement.
    pending: Option<(u64, Instant)>,
    /// When we last moved against an AI, until its answer.
    ai_asked: Option<Instant>,
    /// The game and ply we last acted on, so one snapshot causes one action.
    acted: Option<(u32, u32)>,
    /// How long a person thinks before moving (zero: as fast as the server answers).
    think: Duration,
    /// The move decided on and when it is sent, after thinking.
    due: Option<(Instant, ClientMessage)>,
    rng: SmallRng,
}

impl Player {
    async fn connect(addr: SocketAddr, protocol: u32, seed: u64) -> anyhow::Result<Player> {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/")).await?;
        let mut player = Player {
            ws,
            me: None,
            next_id: 1,
            room: None,
            pending: None,
            ai_asked: None,
            acted: None,
            think: Duration::ZERO,
            due: None,
            rng: SmallRng::seed_from_u64(seed),
        };
        let hello = ClientMessage::Hello {
            protocol,
            name: format!("load{seed}"),
            token: None,
        };
        player.send(hello).await?;
        match player.recv().await?.0 {
            ServerMessage::Welcome { session, .. } => player.me = Some(session),
            other => return Err(anyhow!("expected welcome, got {other:?}")),
        }
        Ok(player)
    }

    async fn send(&mut self, message: ClientMessage) -> anyhow::Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let frame = ClientFrame {
            message,
            id: Some(RequestId::Number(id)),
        };
        self.ws.send(Message::text(encode(&frame))).await?;
        Ok(id)
    }

    /// The next message, its id and its wire size.
    async fn recv(&mut self) -> anyhow::Result<(ServerMessage, Option<u64>, u64)> {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(30), self.ws.next())
                .await
                .context("no frame for 30 s")?
                .context("connection closed")??;
            if let Message::Text(text) = next {
                let frame = decode_server(text.as_str())?;
                let id = match frame.id {
                    Some(RequestId::Number(n)) => Some(n),
                    _ => None,
                };
                return Ok((frame.message, id, wire_bytes(text.len())));
            }
        }
    }

    /// Reads until a snapshot of a room arrives and keeps it.
    async fn await_room(&mut self) -> anyhow::Result<RoomSnapshot> {
        loop {
            if let (ServerMessage::Room { room }, _, _) = self.recv().await? {
                self.room = Some((*room).clone());
                return Ok(*room);
            }
        }
    }

    fn my_mark(&self) -> Option<Mark> {
        let room = self.room.as_ref()?;
        room.seats.iter().find_map(|s| match &s.occupant {
            Occupant::Human { session, .. } if Some(*session) == self.me => Some(s.mark),
            _ => None,
        })
    }

    /// Plays until `end`, measuring from `start` on.
    async fn play(mut self, start: Instant, end: Instant) -> anyhow::Result<Tally> {
        let mut tally = Tally::default();
        self.act().await?;
        while Instant::now() < end {
            let due = self.due.as_ref().map(|(at, _)| *at);
            let next = tokio::select! {
                next = self.recv() => next,
                () = tokio::time::sleep_until(due.unwrap_or(end)), if due.is_some() => {
                    if let Some((_, play)) = self.due.take() {
                        let id = self.send(play).await?;
                        self.pending = Some((id, Instant::now()));
                    }
                    continue;
                }
                () = tokio::time::sleep_until(end) => break,
            };
            let (message, id, size) = next?;
            let now = Instant::now();
            let measuring = now >= start;
            if measuring {
                tally.frames += 1;
                tally.bytes += size;
            }
            let acked = matches!((id, self.pending), (Some(id), Some((p, _))) if id == p);
            let (next, is_move) = match message {
                ServerMessage::Moved(event) => {
                    let applied = self
                        .room
                        .as_ref()
                        .and_then(|room| inarow::board::apply_moved(room, &event));
                    (applied, true)
                }
                ServerMessage::Room { room } => {
                    let is_move = self
                        .room
                        .as_ref()
                        .is_some_and(|old| old.game == room.game && room.ply == old.ply + 1);
                    (Some(*room), is_move)
                }
                _ => (None, false),
            };
            if let Some(next) = next {
                let mover_was_ai = is_move && !acked && self.ai_asked.is_some();
                self.room = Some(next);
                if measuring && is_move {
                    tally.move_frames += 1;
                    tally.move_bytes += size;
                }
                if acked && let Some((_, sent)) = self.pending.take() {
                    if measuring {
                        tally.moves += 1;
                        tally.round_trips.push(now - sent);
                    }
                    if self.against_ai() {
                        self.ai_asked = Some(sent);
                    }
                } else if mover_was_ai
                    && let Some(asked) = self.ai_asked.take()
                    && measuring
                {
                    tally.moves += 1;
                    tally.ai_replies.push(now - asked);
                }
                self.act().await?;
            }
        }
        Ok(tally)
    }

    fn against_ai(&self) -> bool {
        self.room.as_ref().is_some_and(|r| {
            r.seats
                .iter()
                .any(|s| matches!(s.occupant, Occupant::Ai { .. }))
        })
    }

    /// Moves when it is our turn, asks for a rematch when the game is over.
    async fn act(&mut self) -> anyhow::Result<()> {
        let Some(room) = self.room.clone() else {
            return Ok(());
        };
        let busy = self.pending.is_some() || self.due.is_some();
        if busy || self.acted == Some((room.game, room.ply)) {
            return Ok(());
        }
        let me = self.my_mark();
        if room.status.is_over() {
            self.acted = Some((room.game, room.ply));
            self.ai_asked = None;
            self.send(ClientMessage::Rematch { room: room.id }).await?;
        } else if me.is_some_and(|m| room.status == GameStatus::Playing { turn: m }) {
            let Some(mv) = room.legal_moves.choose(&mut self.rng).cloned() else {
                return Ok(());
            };
            self.acted = Some((room.game, room.ply));
            let play = ClientMessage::Play {
                room: room.id,
                ply: room.ply,
                mv,
            };
            if self.think.is_zero() {
                let id = self.send(play).await?;
                self.pending = Some((id, Instant::now()));
            } else {
                self.due = Some((Instant::now() + self.think, play));
            }
        }
        Ok(())
    }
}

/// A human game: two connected players in a private room, X's creator and O joining.
async fn human_pair(
    addr: SocketAddr,
    kind: Kind,
    protocol: u32,
    seed: u64,
) -> anyhow::Result<[Player; 2]> {
    let mut x = Player::connect(addr, protocol, seed).await?;
    let mut o = Player::connect(addr, protocol, seed + 1).await?;
    x.send(ClientMessage::CreateRoom {
        name: None,
        rules: kind.preset(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        },
        private: true,
        hints: false,
    })
    .await?;
    let room = x.await_room().await?;
    o.send(ClientMessage::Join {
        room: room.id.clone(),
        seat: Some(inarow_protocol::SeatChoice::O),
    })
    .await?;
    o.await_room().await?;
    Ok([x, o])
}

/// A person against the perfect AI, the person playing X.
async fn ai_room(addr: SocketAddr, kind: Kind, seed: u64) -> anyhow::Result<Player> {
    let mut p = Player::connect(addr, 2, seed).await?;
    p.send(ClientMessage::CreateRoom {
        name: None,
        rules: kind.preset(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Ai {
                level: Level::Perfect,
            },
        },
        private: true,
        hints: false,
    })
    .await?;
    p.await_room().await?;
    p.think = THINK;
    Ok(p)
}

/// Runs every player for a second of warm-up and then `phase`, measured; returns their
/// tallies (in order; a player that failed gives an empty one) and the server's CPU time
/// over the measured window.
async fn run_players(
    players: Vec<Player>,
    cpu: Cpu,
    phase: Duration,
) -> anyhow::Result<(Vec<Tally>, Duration)> {
    let start = Instant::now() + Duration::from_secs(1);
    let end = start + phase;
    let tasks: Vec<_> = players
        .into_iter()
        .map(|p| tokio::spawn(p.play(start, end)))
        .collect();
    tokio::time::sleep_until(start).await;
    let before = cpu.read()?;
    tokio::time::sleep_until(end).await;
    let used = cpu.read()? - before;
    let mut tallies = Vec::new();
    for task in tasks {
        tallies.push(match task.await {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => {
                eprintln!("a player failed: {e:#}");
                Tally::default()
            }
            Err(e) => {
                eprintln!("a player panicked: {e}");
                Tally::default()
            }
        });
    }
    Ok((tallies, used))
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort_unstable();
    let rank = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Human games as fast as the server answers: throughput, bytes, CPU and round trips.
async fn humans(server: &Server, phase: Duration) -> anyhow::Result<()> {
    println!();
    println!("## human games: one move event per player per move");
    println!();
    println!(
        "| games | rules | protocol | moves/s | bytes/move | frames/move | all bytes/move | CPU µs/move | RTT p50 | RTT p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (games, kind, protocol) in [
        (50, Kind::TicTacToe, 1),
        (50, Kind::TicTacToe, 2),
        (50, Kind::Gomoku, 1),
        (50, Kind::Gomoku, 2),
        (500, Kind::TicTacToe, 2),
        (500, Kind::Gomoku, 2),
    ] {
        let mut players = Vec::new();
        for g in 0..games {
            players.extend(human_pair(server.addr, kind, protocol, 2 * g).await?);
        }
        let (tallies, used) = run_players(players, server.cpu(), phase).await?;
        let mut total = Tally::default();
        tallies.into_iter().for_each(|t| total.add(t));
        let moves = total.moves.max(1);
        let cpu_us = used.as_secs_f64() * 1e6 / moves as f64;
        let recipients = 2.0 * moves as f64;
        let p50 = percentile(&mut total.round_trips, 0.5);
        let p99 = percentile(&mut total.round_trips, 0.99);
        println!(
            "| {games} | {kind:?} | {protocol} | {:.0} | {:.0} | {:.2} | {:.0} | {:.1} | {} | {} |",
            moves as f64 / phase.as_secs_f64(),
            total.move_bytes as f64 / recipients,
            total.move_frames as f64 / recipients,
            total.bytes as f64 / recipients,
            cpu_us,
            ms(p50),
            ms(p99),
        );
    }
    Ok(())
}

/// AI replies alone and among many AI rooms and human games, and the human games' round
/// trips with and without the AI rooms.
async fn ai(server: &Server, phase: Duration) -> anyhow::Result<()> {
    println!();
    println!(
        "## AI replies (perfect AI; people play X at random, after thinking {} ms)",
        THINK.as_millis()
    );
    println!();
    println!("| load | kind | replies | p50 | p99 |");
    println!("|---|---|---|---|---|");
    for kind in [Kind::TicTacToe, Kind::ConnectFour, Kind::Gomoku] {
        let players = vec![ai_room(server.addr, kind, 9_000).await?];
        let mut total = Tally::default();
        let (tallies, _) = run_players(players, server.cpu(), phase).await?;
        tallies.into_iter().for_each(|t| total.add(t));
        print_ai("alone", kind, &mut total.ai_replies);
    }
    let mut humans_alone = Tally::default();
    let players = paced_humans(server.addr, 10_000).await?;
    let (tallies, _) = run_players(players, server.cpu(), phase).await?;
    tallies.into_iter().for_each(|t| humans_alone.add(t));

    let mut players = paced_humans(server.addr, 20_000).await?;
    let mut kinds = vec![None; players.len()];
    for (kind, rooms) in [
        (Kind::TicTacToe, 50),
        (Kind::ConnectFour, 20),
        (Kind::Gomoku, 20),
    ] {
        for r in 0..rooms {
            players.push(ai_room(server.addr, kind, 30_000 + r).await?);
            kinds.push(Some(kind));
        }
    }
    let (tallies, _) = run_players(players, server.cpu(), phase).await?;
    let mut by_kind: HashMap<Option<Kind>, Tally> = HashMap::new();
    for (kind, tally) in kinds.into_iter().zip(tallies) {
        by_kind.entry(kind).or_default().add(tally);
    }
    for kind in [Kind::TicTacToe, Kind::ConnectFour, Kind::Gomoku] {
        let mut t = by_kind.remove(&Some(kind)).unwrap_or_default();
        print_ai("50 human + 50/20/20 AI rooms", kind, &mut t.ai_replies);
    }
    let mut humans = by_kind.remove(&None).unwrap_or_default();
    println!();
    println!(
        "50 human tic-tac-toe games (same thinking time), move round trip: alone p50 {} p99 {}; with the AI rooms p50 {} p99 {}",
        ms(percentile(&mut humans_alone.round_trips, 0.5)),
        ms(percentile(&mut humans_alone.round_trips, 0.99)),
        ms(percentile(&mut humans.round_trips, 0.5)),
        ms(percentile(&mut humans.round_trips, 0.99)),
    );
    Ok(())
}

/// 50 human tic-tac-toe games whose players think [`THINK`] before each move.
async fn paced_humans(addr: SocketAddr, seed: u64) -> anyhow::Result<Vec<Player>> {
    let mut players = Vec::new();
    for g in 0..50 {
        for mut p in human_pair(addr, Kind::TicTacToe, 2, seed + 2 * g).await? {
            p.think = THINK;
            players.push(p);
        }
    }
    Ok(players)
}

fn print_ai(load: &str, kind: Kind, replies: &mut [Duration]) {
    println!(
        "| {load} | {kind:?} | {} | {} | {} |",
        replies.len(),
        ms(percentile(replies, 0.5)),
        ms(percentile(replies, 0.99)),
    );
}

/// RSS with no connection, with 10,000 idle ones (after `hello`), and after they close.
async fn memory(server: &Server) -> anyhow::Result<()> {
    const CONNECTIONS: usize = 10_000;
    let rss0 = server.status_kib("VmRSS")?;
    let fds0 = server.fds();
    let gate = Arc::new(tokio::sync::Semaphore::new(256));
    let mut tasks = Vec::new();
    for i in 0..CONNECTIONS {
        let gate = gate.clone();
        let addr = server.addr;
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await;
            Player::connect(addr, 2, 100_000 + i as u64).await
        }));
    }
    let mut open = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Ok(p)) => open.push(p.ws),
            Ok(Err(e)) => eprintln!("connect failed: {e:#}"),
            Err(e) => eprintln!("connect panicked: {e}"),
        }
    }
    let rss1 = server.status_kib("VmRSS")?;
    let n = open.len();
    for mut ws in open {
        let _ = ws.close(None).await;
    }
    wait_for_fds(server, fds0).await;
    let rss2 = server.status_kib("VmRSS")?;
    // Closed sessions are held for the reconnection grace (60 s by default), then dropped.
    let grace = inarow_server::Config::default().reconnect_grace;
    tokio::time::sleep(grace + Duration::from_secs(2)).await;
    let rss3 = server.status_kib("VmRSS")?;
    println!();
    println!("## server memory (RSS)");
    println!();
    println!("| state | RSS |");
    println!("|---|---|");
    println!(
        "| fresh server, no connection | {:.1} MiB |",
        rss0 as f64 / 1024.0
    );
    println!(
        "| {n} idle connections after hello | {:.1} MiB ({:.1} KiB per connection) |",
        rss1 as f64 / 1024.0,
        (rss1.saturating_sub(rss0)) as f64 / n.max(1) as f64
    );
    println!("| after they closed | {:.1} MiB |", rss2 as f64 / 1024.0);
    println!(
        "| {} s later, their sessions' reconnection grace over | {:.1} MiB |",
        grace.as_secs() + 2,
        rss3 as f64 / 1024.0
    );
    Ok(())
}

/// Waits (up to 30 s) until the server holds at most `fds` file descriptors: its
/// connections have closed.
async fn wait_for_fds(server: &Server, fds: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.fds() > fds && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
