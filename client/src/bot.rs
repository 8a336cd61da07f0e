//! `inarow bot`: a Gomocup engine as a player on any inarow server, through the public
//! protocol only, as lichess-bot bridges engines to lichess. It joins a room by its code
//! (an invite code is a private room's id) or sits in public rooms with a free seat, plays
//! each game by showing the engine the board (BOARD) and sending its answer, asks for a
//! rematch after each game, and stops after the games asked for.
//!
//! The protocol has no invitations apart from invite codes, so "accepting an invitation"
//! is `--room CODE`. The connection and the session are the terminal client's (`net`,
//! `session`): the same reconnection, request ids and `moved` bookkeeping.
//!
//! Everything the engine writes is untrusted: its move is checked against the room's
//! position before it is sent; an engine that fails (crashes, stalls, answers nonsense or
//! an illegal move) makes the bot resign that game and start a fresh engine process.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use inarow_engine::{Move, Position};
use inarow_pbrain::child::Child;
use inarow_pbrain::command::Point;
use inarow_protocol::{
    ClientFrame, ClientMessage, GameStatus, Mark, Occupant, RoomId, RoomSnapshot, RoomSummary,
    SeatChoice, ServerMessage,
};
use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::board::{engine_rules, my_seat};
use crate::cli::Startup;
use crate::net::{self, Server};
use crate::session::{Pending, Session, Update};

/// How long the engine may take to start and answer START.
const START_TIME: Duration = Duration::from_secs(30);

/// How much later than its move time the engine may answer before it counts as stalled.
const MARGIN: Duration = Duration::from_secs(1);

/// How often the bot looks for a public room while it has none.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// Engine failures in a row after which the bot gives up.
const MAX_FAILURES: u32 = 3;

/// What the bot is to do.
#[derive(Debug, Clone)]
pub struct BotOptions {
    /// The engine's executable.
    pub engine: PathBuf,
    /// Join this room (its id or invite code) and play there.
    pub room: Option<RoomId>,
    /// Sit in public rooms with a free seat on a board the engine plays.
    pub open: bool,
    /// Stop after this many games (all rooms together); never when `None`.
    pub games: Option<u32>,
    /// The engine's time a move (`INFO timeout_turn`).
    pub move_time: Duration,
}

/// Why the bot stopped before its games were played.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The server ended the session for good (refused name, shut down, ...).
    #[error("the server ended the session: {0}")]
    Fatal(String),
    /// The engine failed too often in a row.
    #[error("the engine failed {MAX_FAILURES} times in a row: {0}")]
    Engine(String),
    /// Writing the bot's report failed.
    #[error("output: {0}")]
    Io(#[from] std::io::Error),
    /// Neither a room nor open rooms were asked for.
    #[error("nothing to do: give --room CODE or --open")]
    NothingToDo,
    /// The room given with `--room` could not be joined (unknown, full, ...).
    #[error("cannot join the room: {0}")]
    Join(String),
}

/// One game the bot finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The room.
    pub room: RoomId,
    /// Which game of the room.
    pub game: u32,
    /// The bot's mark.
    pub mark: Mark,
    /// How it ended.
    pub status: GameStatus,
}

/// The engine process, started when first needed and again after a failure.
struct Engine {
    path: PathBuf,
    child: Option<Child>,
    /// The board it last started.
    board: Option<(u32, u32)>,
    move_time: Duration,
}

impl Engine {
    /// The engine's move for the side to move in `position`, checked legal.
    async fn play(&mut self, position: &Position) -> Result<Move, String> {
        let rules = position.rules();
        let side = position.to_move();
        let board = (rules.width(), rules.height());
        if self.child.is_none() {
            self.child = Some(Child::spawn(&self.path).map_err(|e| e.to_string())?);
            self.board = None;
        }
        let Some(child) = self.child.as_mut() else {
            return Err("no engine".to_owned());
        };
        if self.board != Some(board) {
            child
                .start(board.0, board.1, START_TIME)
                .await
                .map_err(|e| format!("START: {e}"))?;
            self.board = Some(board);
        }
        let infos = format!(
            "INFO timeout_turn {}\nINFO timeout_match 0\nINFO time_left 2147483647\n\
             INFO rule 0\nINFO game_type 0",
            self.move_time.as_millis()
        );
        child.send(&infos).await.map_err(|e| e.to_string())?;
        let point = child
            .ask_move(position, side, self.move_time + MARGIN)
            .await
            .map_err(|e| e.to_string())?;
        legal(position, point).ok_or_else(|| format!("it played {point}, not a legal move"))
    }

    /// Kills the process; the next move starts a fresh one.
    async fn restart(&mut self) {
        if let Some(child) = self.child.take() {
            child.kill().await;
        }
        self.board = None;
    }
}

/// The move at protocol point `point`, if it is legal in `position`.
fn legal(position: &Position, point: Point) -> Option<Move> {
    let mv = Move::Cell(point.cell(position.rules())?);
    position.legal_moves().contains(&mv).then_some(mv)
}

/// The engine-side position of a room's snapshot, if its rules are the engine's (five in
/// a row without gravity) and its moves replay.
fn position_of(room: &RoomSnapshot) -> Option<Position> {
    let rules = engine_rules(&room.rules)?;
    if rules.k() != 5 || rules.gravity() {
        return None;
    }
    let moves = room
        .moves
        .iter()
        .map(|m| rules.parse_move(m).ok())
        .collect::<Option<Vec<Move>>>()?;
    Position::from_moves(rules, &moves).ok()
}

/// Whether the bot would sit in a public room: waiting for a player, a seat empty, five
/// in a row without gravity.
fn inviting(summary: &RoomSummary) -> bool {
    summary.rules.k == 5
        && !summary.rules.gravity
        && matches!(summary.status, GameStatus::Waiting)
        && summary
            .seats
            .iter()
            .any(|s| matches!(s.occupant, Occupant::Empty))
}

/// The bot's state between events.
struct Bot<W> {
    session: Session,
    options: BotOptions,
    engine: Engine,
    out: W,
    /// The room the bot plays in, once joined.
    room: Option<RoomId>,
    /// (room, game, ply) of the last move sent, so a repeated snapshot is not answered twice.
    moved: Option<(RoomId, u32, u32)>,
    /// (room, game) of the games counted.
    counted: HashSet<(RoomId, u32)>,
    /// Public rooms tried and left (a board the engine refused, a room that emptied).
    tried: HashSet<RoomId>,
    played: Vec<Played>,
    failures: u32,
    /// Frames to send.
    send: Vec<ClientFrame>,
}

/// Runs the bot on `server` as `name` until its games are played, writing what happens to
/// `out`; returns the games played.
///
/// # Errors
/// [`BotError`] when the server ends the session, the engine keeps failing, or `out` fails.
pub async fn run<W: AsyncWrite + Unpin>(
    server: Server,
    name: String,
    options: BotOptions,
    out: W,
) -> Result<Vec<Played>, BotError> {
    if options.room.is_none() && !options.open {
        return Err(BotError::NothingToDo);
    }
    let startup = match &options.room {
        Some(room) => Startup::Join(room.clone()),
        None => Startup::Lobby,
    };
    let mut connection = net::connect(server, name);
    let mut bot = Bot {
        session: Session::new(startup),
        engine: Engine {
            path: options.engine.clone(),
            child: None,
            board: None,
            move_time: options.move_time,
        },
        options,
        out,
        room: None,
        moved: None,
        counted: HashSet::new(),
        tried: HashSet::new(),
        played: Vec::new(),
        failures: 0,
        send: Vec::new(),
    };
    let mut look = tokio::time::interval(LOOK_EVERY);
    let result = loop {
        let step = tokio::select! {
            event = connection.events.recv() => match event {
                Some(event) => {
                    let update = bot.session.on_net(event);
                    bot.on_update(update).await
                }
                None => Err(BotError::Fatal("the connection ended".to_owned())),
            },
            _ = look.tick(), if bot.options.open && bot.room.is_none() => {
                bot.request(ClientMessage::ListRooms {}, Pending::Rooms);
                Ok(false)
            }
        };
        for frame in bot.send.drain(..) {
            if connection.outbound.send(frame).await.is_err() {
                break;
            }
        }
        match step {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            Err(e) => break Err(e),
        }
    };
    if let Some(room) = bot.room.take() {
        for frame in bot.session.quit([room]) {
            let _ = connection.outbound.send(frame).await;
        }
    }
    // Dropping the sender closes the connection once what is queued is written.
    drop(connection.outbound);
    let _ = tokio::time::timeout(Duration::from_secs(5), connection.task).await;
    bot.engine.restart().await;
    bot.out.flush().await?;
    result.map(|()| bot.played)
}

impl<W: AsyncWrite + Unpin> Bot<W> {
    fn request(&mut self, message: ClientMessage, pending: Pending) {
        if let Ok(frame) = self.session.request(message, pending) {
            self.send.push(frame);
        }
    }

    async fn say(&mut self, line: String) -> Result<(), BotError> {
        self.out.write_all(line.as_bytes()).await?;
        self.out.write_all(b"\n").await?;
        self.out.flush().await?;
        Ok(())
    }

    /// Takes one update; `Ok(true)` when the bot is done.
    async fn on_update(&mut self, update: Update) -> Result<bool, BotError> {
        match update {
            Update::Fatal(message) => Err(BotError::Fatal(message)),
            Update::Down { reason, .. } => {
                // A move sent on the lost connection may never have arrived: after the
                // resume, the room's snapshot asks for it again.
                self.moved = None;
                self.say(format!("connection down ({reason}); reconnecting"))
                    .await?;
                Ok(false)
            }
            Update::Welcome { send, .. } => {
                self.send.extend(send);
                Ok(false)
            }
            // A join for any seat found the room full: the bot does not watch.
            Update::Watching { .. } => self.join_refused("the room is full".to_owned()).await,
            Update::Message {
                message: ServerMessage::Error { code, message },
                answers: Some(Pending::JoinOrWatch(_) | Pending::Enter),
                ..
            } => self.join_refused(format!("{code}: {message}")).await,
            Update::Message { message, send, .. } => {
                self.send.extend(send);
                self.on_message(message).await
            }
        }
    }

    async fn on_message(&mut self, message: ServerMessage) -> Result<bool, BotError> {
        match message {
            ServerMessage::Rooms { rooms } if self.room.is_none() => {
                if let Some(summary) = rooms
                    .iter()
                    .find(|r| inviting(r) && !self.tried.contains(&r.id))
                {
                    let room = summary.id.clone();
                    self.tried.insert(room.clone());
                    let join = ClientMessage::Join {
                        room,
                        seat: Some(SeatChoice::Any),
                    };
                    self.request(join, Pending::Enter);
                }
                Ok(false)
            }
            ServerMessage::Room { room } => self.on_room(*room).await,
            ServerMessage::Error { code, message } => {
                self.say(format!("server: {code}: {message}")).await?;
                Ok(false)
            }
            ServerMessage::Left { room } if self.room.as_ref() == Some(&room) => {
                self.room = None;
                Ok(!self.options.open)
            }
            _ => Ok(false),
        }
    }

    async fn on_room(&mut self, room: RoomSnapshot) -> Result<bool, BotError> {
        let Some(mark) = my_seat(&room, self.session.me) else {
            return Ok(false);
        };
        if self.room.as_ref() != Some(&room.id) {
            self.say(format!("playing {mark} in room {}", room.id))
                .await?;
            self.room = Some(room.id.clone());
        }
        let done = match &room.status {
            GameStatus::Playing { turn } if *turn == mark => self.move_in(&room).await?,
            status if status.is_over() => self.game_over(&room, mark).await?,
            _ => false,
        };
        // In public rooms, once the opponent has gone after a game, look for another room.
        let alone = room
            .seats
            .iter()
            .any(|s| s.mark != mark && matches!(s.occupant, Occupant::Empty));
        if !done
            && self.options.open
            && alone
            && !matches!(room.status, GameStatus::Playing { .. })
            && self.counted.iter().any(|(r, _)| *r == room.id)
        {
            self.say(format!("room {}: the opponent left; leaving", room.id))
                .await?;
            self.leave(&room.id);
        }
        Ok(done)
    }

    /// A join was refused: the end with `--room` alone; with `--open`, look further.
    async fn join_refused(&mut self, why: String) -> Result<bool, BotError> {
        if self.options.open {
            self.say(format!("join refused ({why}); looking for another room"))
                .await?;
            Ok(false)
        } else {
            Err(BotError::Join(why))
        }
    }

    fn leave(&mut self, room: &RoomId) {
        self.request(ClientMessage::Leave { room: room.clone() }, Pending::Other);
    }

    async fn move_in(&mut self, room: &RoomSnapshot) -> Result<bool, BotError> {
        let key = (room.id.clone(), room.game, room.ply);
        if self.moved.as_ref() == Some(&key) {
            return Ok(false);
        }
        self.moved = Some(key);
        let Some(position) = position_of(room) else {
            self.say(format!(
                "room {}: the engine plays five in a row without gravity only; leaving",
                room.id
            ))
            .await?;
            self.leave(&room.id);
            return Ok(false);
        };
        match self.engine.play(&position).await {
            Ok(mv) => {
                self.failures = 0;
                match self.session.play(room, &mv.notation()) {
                    Ok(frame) => self.send.push(frame),
                    Err(e) => self.say(format!("move not sent: {e}")).await?,
                }
                Ok(false)
            }
            Err(reason) => {
                self.failures += 1;
                self.say(format!("engine failed ({reason}); resigning this game"))
                    .await?;
                self.engine.restart().await;
                self.request(
                    ClientMessage::Resign {
                        room: room.id.clone(),
                    },
                    Pending::Other,
                );
                if self.failures >= MAX_FAILURES {
                    return Err(BotError::Engine(reason));
                }
                Ok(false)
            }
        }
    }

    async fn game_over(&mut self, room: &RoomSnapshot, mark: Mark) -> Result<bool, BotError> {
        if !self.counted.insert((room.id.clone(), room.game)) {
            return Ok(false);
        }
        let result = match &room.status {
            GameStatus::Won { winner, .. } if *winner == mark => "won",
            GameStatus::Resigned { winner } if *winner == mark => "won (the opponent resigned)",
            GameStatus::Won { .. } => "lost",
            GameStatus::Resigned { .. } => "lost (resigned)",
            _ => "drawn",
        };
        self.say(format!(
            "room {} game {}: {result} as {mark} in {} moves",
            room.id, room.game, room.ply
        ))
        .await?;
        self.played.push(Played {
            room: room.id.clone(),
            game: room.game,
            mark,
            status: room.status.clone(),
        });
        if self
            .options
            .games
            .is_some_and(|games| self.played.len() >= games as usize)
        {
            return Ok(true);
        }
        self.request(
            ClientMessage::Rematch {
                room: room.id.clone(),
            },
            Pending::Other,
        );
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use inarow_protocol::Rules;

    use super::*;

    #[test]
    fn only_waiting_five_in_a_row_rooms_with_a_free_seat_invite() {
        let text = r#"{"id": "k7m2q9xa", "name": "ann's room", "rules": {"width": 15, "height": 15, "k": 5, "gravity": false}, "seats": [{"mark": "X", "occupant": {"kind": "human", "name": "ann", "session": "67e55044-10b1-426f-9247-bb680e5fe0c8", "connected": true}, "rematch": false}, {"mark": "O", "occupant": {"kind": "empty"}, "rematch": false}], "status": {"state": "waiting"}, "spectators": 0}"#;
        let summary: RoomSummary = serde_json::from_str(text).unwrap();
        assert!(inviting(&summary));
        let mut connect4 = summary.clone();
        connect4.rules = Rules {
            width: 7,
            height: 6,
            k: 4,
            gravity: true,
        };
        assert!(!inviting(&connect4));
        let mut full = summary;
        full.seats[1].occupant = full.seats[0].occupant.clone();
        assert!(!inviting(&full));
    }
}
