//! The load clients: a player per WebSocket connection, playing human games as fast as
//! the server answers or a person's moves against AI rooms, and what each one tallies.

use std::net::SocketAddr;
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
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::server::{Counted, Counting, Cpu, SyscallCount, Window};
use crate::{THINK, Ws, client_read_buffer};

/// Which game a room plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    TicTacToe,
    ConnectFour,
    Gomoku,
}

impl Kind {
    pub(crate) fn preset(self) -> RulesSpec {
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
pub(crate) struct Tally {
    /// Moves of ours the server acknowledged.
    pub(crate) moves: u64,
    /// Frames and wire bytes (payload plus WebSocket header) of move events received:
    /// `moved`, or for protocol 1 the snapshot a move caused.
    pub(crate) move_frames: u64,
    pub(crate) move_bytes: u64,
    /// Every frame and wire byte received in the window.
    pub(crate) frames: u64,
    pub(crate) bytes: u64,
    /// From sending `play` to its acknowledgement.
    pub(crate) round_trips: Vec<Duration>,
    /// From sending `play` to the AI's answering move.
    pub(crate) ai_replies: Vec<Duration>,
    /// Rematches asked for (each player asks once a game).
    pub(crate) rematches: u64,
}

impl Tally {
    pub(crate) fn add(&mut self, other: Tally) {
        self.moves += other.moves;
        self.move_frames += other.move_frames;
        self.move_bytes += other.move_bytes;
        self.frames += other.frames;
        self.bytes += other.bytes;
        self.round_trips.extend(other.round_trips);
        self.ai_replies.extend(other.ai_replies);
        self.rematches += other.rematches;
    }
}

pub(crate) fn wire_bytes(payload: usize) -> u64 {
    let header = match payload {
        0..=125 => 2,
        126..=65_535 => 4,
        _ => 10,
    };
    (payload + header) as u64
}

/// One connection playing: random legal moves on its turn, a rematch when a game ends.
pub(crate) struct Player {
    pub(crate) ws: Ws,
    pub(crate) me: Option<SessionId>,
    pub(crate) next_id: u64,
    pub(crate) room: Option<RoomSnapshot>,
    /// The id and sending time of our `play` awaiting its acknowledgement.
    pub(crate) pending: Option<(u64, Instant)>,
    /// When we last moved against an AI, until its answer.
    pub(crate) ai_asked: Option<Instant>,
    /// The game and ply we last acted on, so one snapshot causes one action.
    pub(crate) acted: Option<(u32, u32)>,
    /// How long a person thinks before moving (zero: as fast as the server answers).
    pub(crate) think: Duration,
    /// The move decided on and when it is sent, after thinking.
    pub(crate) due: Option<(Instant, ClientMessage)>,
    pub(crate) rng: SmallRng,
}

impl Player {
    pub(crate) async fn connect(
        addr: SocketAddr,
        protocol: u32,
        seed: u64,
    ) -> anyhow::Result<Player> {
        // tungstenite zero-fills its whole read buffer before every read: at its default
        // of 128 KiB that memset was a fifth of the clients' CPU, and it swept the caches
        // of the cores the server shares with them.
        let config = WebSocketConfig::default().read_buffer_size(client_read_buffer());
        let (ws, _) = tokio_tungstenite::connect_async_with_config(
            format!("ws://{addr}/"),
            Some(config),
            false,
        )
        .await?;
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

    pub(crate) async fn send(&mut self, message: ClientMessage) -> anyhow::Result<u64> {
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
    pub(crate) async fn recv(&mut self) -> anyhow::Result<(ServerMessage, Option<u64>, u64)> {
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
    pub(crate) async fn await_room(&mut self) -> anyhow::Result<RoomSnapshot> {
        loop {
            if let (ServerMessage::Room { room }, _, _) = self.recv().await? {
                self.room = Some((*room).clone());
                return Ok(*room);
            }
        }
    }

    pub(crate) fn my_mark(&self) -> Option<Mark> {
        let room = self.room.as_ref()?;
        room.seats.iter().find_map(|s| match &s.occupant {
            Occupant::Human { session, .. } if Some(*session) == self.me => Some(s.mark),
            _ => None,
        })
    }

    /// Plays until `end`, measuring from `start` on.
    pub(crate) async fn play(mut self, start: Instant, end: Instant) -> anyhow::Result<Tally> {
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
            // The snapshot is changed in place, never copied: the clients share the
            // machine with the server, and copying a 15×15 board's snapshot for every
            // event made them, not the server, the bottleneck of the gomoku rows.
            let (changed, is_move) = match message {
                ServerMessage::Moved(event) => {
                    let applied = self
                        .room
                        .as_mut()
                        .is_some_and(|room| inarow::board::apply_moved_in_place(room, &event));
                    (applied, true)
                }
                ServerMessage::Room { room } => {
                    let is_move = self
                        .room
                        .as_ref()
                        .is_some_and(|old| old.game == room.game && room.ply == old.ply + 1);
                    self.room = Some(*room);
                    (true, is_move)
                }
                _ => (false, false),
            };
            if changed {
                let mover_was_ai = is_move && !acked && self.ai_asked.is_some();
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
                let rematch = self.act().await?;
                if measuring && rematch {
                    tally.rematches += 1;
                }
            }
        }
        Ok(tally)
    }

    pub(crate) fn against_ai(&self) -> bool {
        self.room.as_ref().is_some_and(|r| {
            r.seats
                .iter()
                .any(|s| matches!(s.occupant, Occupant::Ai { .. }))
        })
    }

    /// Moves when it is our turn, asks for a rematch when the game is over; says whether
    /// it asked for a rematch.
    pub(crate) async fn act(&mut self) -> anyhow::Result<bool> {
        let me = self.my_mark();
        let Some(room) = &self.room else {
            return Ok(false);
        };
        let busy = self.pending.is_some() || self.due.is_some();
        let at = (room.game, room.ply);
        if busy || self.acted == Some(at) {
            return Ok(false);
        }
        if room.status.is_over() {
            let id = room.id.clone();
            self.acted = Some(at);
            self.ai_asked = None;
            self.send(ClientMessage::Rematch { room: id }).await?;
            return Ok(true);
        } else if me.is_some_and(|m| room.status == GameStatus::Playing { turn: m }) {
            let Some(mv) = room.legal_moves.choose(&mut self.rng).cloned() else {
                return Ok(false);
            };
            let play = ClientMessage::Play {
                room: room.id.clone(),
                ply: room.ply,
                mv,
            };
            self.acted = Some(at);
            if self.think.is_zero() {
                let id = self.send(play).await?;
                self.pending = Some((id, Instant::now()));
            } else {
                self.due = Some((Instant::now() + self.think, play));
            }
        }
        Ok(false)
    }
}

/// A human game: two connected players in a private room, X's creator and O joining.
pub(crate) async fn human_pair(
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
        time_control: None,
        takebacks: None,
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
pub(crate) async fn ai_room(addr: SocketAddr, kind: Kind, seed: u64) -> anyhow::Result<Player> {
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
        time_control: None,
        takebacks: None,
    })
    .await?;
    p.await_room().await?;
    p.think = THINK;
    Ok(p)
}

/// Runs every player for a second of warm-up and then `phase`, measured; returns their
/// tallies (in order; a player that failed gives an empty one) and what the server used
/// over the measured window.
pub(crate) async fn run_players(
    players: Vec<Player>,
    cpu: Cpu,
    phase: Duration,
    counting: Counting,
) -> anyhow::Result<(Vec<Tally>, Window)> {
    let perf = if counting.syscalls {
        Some(SyscallCount::start(cpu.pid)?)
    } else {
        None
    };
    let start = Instant::now() + Duration::from_secs(1);
    let end = start + phase;
    let tasks: Vec<_> = players
        .into_iter()
        .map(|p| tokio::spawn(p.play(start, end)))
        .collect();
    // perf counts from the warm-up on (it takes a moment to attach): its count is scaled
    // to the window by the window's share of the server's CPU time while it counted.
    let cpu0 = cpu.read()?;
    // Off the runtime's threads: asking callgrind takes a while, and the clients play on.
    // With a kept profile, the part dumped at the window's start ends the setup's and the
    // one dumped at its end is the window's; the count is read after the first and before
    // the second, so that both dumps fall outside it.
    let counts = |counting: Counting, at_start: bool| async move {
        if !counting.callgrind {
            return Ok(None);
        }
        let dump = counting.window_parts;
        tokio::task::spawn_blocking(move || {
            if dump && at_start {
                cpu.dump("setup")?;
            }
            let counted = cpu.counts(counting.cache_sim)?;
            if dump && !at_start {
                cpu.dump("window")?;
            }
            anyhow::Ok(Some(counted))
        })
        .await?
    };
    tokio::time::sleep_until(start).await;
    let counted_before = counts(counting, true).await?;
    let before = cpu.read_split()?;
    let clients = cpu.this_process();
    let clients_before = clients.read_split()?;
    let switches_before = cpu.switches();
    tokio::time::sleep_until(end).await;
    let used = cpu.read_split()? - before;
    let clients_used = clients.read_split()? - clients_before;
    let switches = cpu.switches() - switches_before;
    let counted = match (counted_before, counts(counting, false).await?) {
        (Some(before), Some(after)) => Some(Counted {
            instructions: after.instructions.saturating_sub(before.instructions),
            misses: after
                .misses
                .zip(before.misses)
                .map(|(a, b)| a.saturating_sub(b)),
        }),
        _ => None,
    };
    let cpu1 = cpu.read()?;
    let syscalls = match perf {
        Some(perf) => {
            let counted = perf.stop()?;
            let window = used.total().as_secs_f64();
            let share = window / (cpu1 - cpu0).as_secs_f64().max(1e-9);
            Some(counted.per(1.0 / share))
        }
        None => None,
    };
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
    let window = Window {
        cpu: used,
        clients: clients_used,
        switches,
        syscalls,
        counted,
    };
    Ok((tallies, window))
}
