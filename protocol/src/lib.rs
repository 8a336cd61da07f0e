//! The wire contract of inarow: every JSON message that a client and the server exchange.
//!
//! Each WebSocket text frame carries one JSON object with a `"type"` field in snake_case.
//! A client message may carry an `"id"` (a number or a string chosen by the client); the
//! server echoes it on the reply or error that the message causes. `docs/protocol.md` is
//! the human-readable form of this module and its examples are tested against it.
//!
//! This crate holds data only: no I/O, no game logic. Unknown fields are ignored so that
//! later protocol versions can add fields without breaking older peers.
//!
//! One file on purpose: it is the whole contract, read top to bottom beside
//! `docs/protocol.md`, and splitting the messages from their codes would scatter it.

#![deny(missing_docs)]

use std::fmt;

use serde::{Deserialize, Serialize};

mod check;
mod engines;

pub use engines::{BadEngineName, EngineInfo, EngineName, MAX_ENGINE_NAME};

/// The newest protocol version, which this crate's clients send in `hello`. Version 2
/// sends a small `moved` event after each move where version 1 sends a whole `room`
/// snapshot; everything else is the same in both.
pub const PROTOCOL_VERSION: u32 = 2;

/// Every protocol version a server speaks, oldest first. `welcome` echoes the one the
/// client's `hello` asked for; any other is refused with `unsupported_protocol`.
pub const PROTOCOL_VERSIONS: [u32; 2] = [1, 2];

/// The longest display name, in characters, that a server accepts by default (`hello`
/// answers `invalid_name` beyond it). Both sides read it here so they agree; a server
/// may be configured otherwise, and `welcome` does not carry it, so a client treats it
/// as a guide and lets the server's `error` have the last word.
pub const MAX_NAME_CHARS: usize = 24;

/// The longest chat text, in characters, that a server accepts by default (`chat` answers
/// `invalid_chat` beyond it). Shared like [`MAX_NAME_CHARS`], with the same caveat.
pub const MAX_CHAT_CHARS: usize = 500;

/// The longest textual request id, in characters; a longer one is refused with
/// `bad_request` (and not echoed), so a peer cannot make the server echo large strings.
pub const MAX_ID_CHARS: usize = 64;

/// The largest board side (width or height) a server accepts: the engine's limit, which
/// the decoder names when a rules field is unreadable. The server checks that the two agree.
pub const MAX_BOARD_SIDE: u32 = 19;

/// A correlation id chosen by the client and echoed by the server: a whole number from 0
/// to 2^64 − 1 or a string of at most [`MAX_ID_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id, such as a counter.
    Number(u64),
    /// A textual id.
    Text(String),
}

/// A room's identifier: a short code that is also the invite code of a private room.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RoomId(pub String);

impl fmt::Display for RoomId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for RoomId {
    fn from(s: &str) -> Self {
        RoomId(s.to_owned())
    }
}

/// A session's public identifier. It names a player in snapshots; it is not a secret
/// (the secret that resumes a session is the token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(pub uuid::Uuid);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A player's mark, which is also the name of a seat: `"X"` moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mark {
    /// The first player.
    X,
    /// The second player.
    O,
}

impl Mark {
    /// The other mark.
    pub fn other(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mark::X => "X",
            Mark::O => "O",
        })
    }
}

/// The seat asked for in `join`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SeatChoice {
    /// The X seat.
    X,
    /// The O seat.
    O,
    /// Whichever seat is free (X first); `room_full` if none is.
    #[serde(rename = "any")]
    Any,
}

impl From<Mark> for SeatChoice {
    fn from(mark: Mark) -> Self {
        match mark {
            Mark::X => SeatChoice::X,
            Mark::O => SeatChoice::O,
        }
    }
}

/// Strength of a server-side AI seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Shallow search with random mistakes: a child can win.
    Easy,
    /// Depth-limited search with a heuristic.
    Medium,
    /// Full strength: never loses a game that can be held.
    #[default]
    Perfect,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Perfect => "perfect",
        })
    }
}

/// A rule set as it travels on the wire. The server validates it (1 ≤ width, height ≤ 19,
/// 1 ≤ k ≤ max(width, height)); numbers are wide here so that an out-of-range value is
/// answered with `invalid_rules` naming the field rather than a decode error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// Number of columns.
    pub width: u32,
    /// Number of rows.
    pub height: u32,
    /// Stones in a line needed to win (k or more).
    pub k: u32,
    /// Whether a stone falls to the lowest empty cell of its column (Connect Four).
    #[serde(default)]
    pub gravity: bool,
}

/// The rules asked for when creating a room: a preset name or explicit rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RulesSpec {
    /// `"tictactoe"`, `"connect4"` or `"gomoku"`.
    Preset(String),
    /// Explicit width, height, k and gravity.
    Custom(Rules),
}

/// Who should sit in a seat of a new room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeatRequest {
    /// The creating connection takes the seat.
    Me,
    /// Left empty for someone to join.
    Open,
    /// A server-side AI of the given level.
    Ai {
        /// The AI's strength; `perfect` when omitted.
        #[serde(default)]
        level: Level,
    },
    /// An external engine the server offers (see `list_engines`), for a board it plays;
    /// should it fail, inarow's own `perfect` AI takes the seat over.
    Engine {
        /// The engine's name.
        name: EngineName,
    },
}

/// The seat plan of a new room. Defaults: the creator plays X, O is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPlan {
    /// Who sits in the X seat.
    #[serde(rename = "X")]
    pub x: SeatRequest,
    /// Who sits in the O seat.
    #[serde(rename = "O")]
    pub o: SeatRequest,
}

impl Default for SeatPlan {
    fn default() -> Self {
        SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        }
    }
}

/// How a room's games are timed, as `create_room` asks for it and snapshots show it.
/// Numbers are wide so that an out-of-range value is answered with
/// `invalid_time_control` naming the field rather than a decode error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeControl {
    /// No clock (the default).
    None,
    /// Fischer: each side has `base_ms` for the game and gains `increment_ms` per move.
    Fischer {
        /// Each side's time for the whole game, in milliseconds.
        base_ms: u64,
        /// Time added to the mover's clock after each of its timed moves, in milliseconds.
        increment_ms: u64,
    },
    /// A fixed time for every move; time not used is not kept.
    PerMove {
        /// The time for one move, in milliseconds.
        ms: u64,
    },
    /// Correspondence: days for every move; time not used is not kept.
    Correspondence {
        /// Days per move.
        days: u64,
    },
}

/// The Fischer presets `create_room` accepts by name: minutes of base time + seconds of
/// increment.
pub const TIME_CONTROL_PRESETS: [&str; 5] = ["1+0", "3+2", "5+3", "10+5", "15+10"];

/// The allowed Fischer base time, in ms: 1 s to 3 hours.
pub const FISCHER_BASE_MS: std::ops::RangeInclusive<u64> = 1_000..=10_800_000;
/// The allowed Fischer increment, in ms: none to 3 minutes.
pub const FISCHER_INCREMENT_MS: std::ops::RangeInclusive<u64> = 0..=180_000;
/// The allowed fixed time per move, in ms: 1 s to 1 hour.
pub const PER_MOVE_MS: std::ops::RangeInclusive<u64> = 1_000..=3_600_000;
/// The allowed days per move of a correspondence game.
pub const CORRESPONDENCE_DAYS: std::ops::RangeInclusive<u64> = 1..=14;

impl TimeControl {
    /// Whether the games are timed at all.
    pub fn is_clocked(&self) -> bool {
        !matches!(self, TimeControl::None)
    }

    /// The time control a preset name stands for: `"none"`, or one of
    /// [`TIME_CONTROL_PRESETS`].
    pub fn preset(name: &str) -> Option<TimeControl> {
        if name == "none" {
            return Some(TimeControl::None);
        }
        if !TIME_CONTROL_PRESETS.contains(&name) {
            return None;
        }
        let (minutes, seconds) = name.split_once('+')?;
        Some(TimeControl::Fischer {
            base_ms: minutes.parse::<u64>().ok()? * 60_000,
            increment_ms: seconds.parse::<u64>().ok()? * 1_000,
        })
    }

    /// Checks the numbers against the allowed ranges.
    ///
    /// # Errors
    /// A message naming the field and its range.
    pub fn validate(&self) -> Result<(), String> {
        let check = |field: &str, value: u64, range: &std::ops::RangeInclusive<u64>| {
            if range.contains(&value) {
                Ok(())
            } else {
                Err(format!(
                    "time_control.{field} must be from {} to {}, not {value}",
                    range.start(),
                    range.end()
                ))
            }
        };
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => {
                check("base_ms", base_ms, &FISCHER_BASE_MS)?;
                check("increment_ms", increment_ms, &FISCHER_INCREMENT_MS)
            }
            TimeControl::PerMove { ms } => check("ms", ms, &PER_MOVE_MS),
            TimeControl::Correspondence { days } => check("days", days, &CORRESPONDENCE_DAYS),
        }
    }
}

impl fmt::Display for TimeControl {
    /// Short and readable: `3+2` (minutes + seconds, or seconds when under a minute:
    /// `30s+1`), `30 s/move`, `3 days/move`, `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::None => f.write_str("none"),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => {
                let inc = increment_ms as f64 / 1000.0;
                if base_ms % 60_000 == 0 {
                    write!(f, "{}+{inc}", base_ms / 60_000)
                } else {
                    write!(f, "{}s+{inc}", base_ms as f64 / 1000.0)
                }
            }
            TimeControl::PerMove { ms } => write!(f, "{} s/move", ms as f64 / 1000.0),
            TimeControl::Correspondence { days } => {
                write!(f, "{days} day{}/move", if days == 1 { "" } else { "s" })
            }
        }
    }
}

/// The time control asked for when creating a room: a preset name or an explicit one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TimeControlSpec {
    /// `"none"`, or a Fischer preset `"1+0"`, `"3+2"`, `"5+3"`, `"10+5"`, `"15+10"`
    /// (minutes + seconds of increment).
    Preset(String),
    /// An explicit time control.
    Custom(TimeControl),
}

/// The two clocks of a timed game, as a snapshot or a `moved` event carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    /// X's remaining time in milliseconds, when the event was sent.
    pub x_ms: u64,
    /// O's remaining time in milliseconds, when the event was sent.
    pub o_ms: u64,
    /// The seat whose clock runs; absent while no clock runs (before each side's first
    /// move, which is free, and once the game is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Mark>,
}

impl ClockState {
    /// The remaining time of `mark`, in milliseconds.
    pub fn remaining(&self, mark: Mark) -> u64 {
        match mark {
            Mark::X => self.x_ms,
            Mark::O => self.o_ms,
        }
    }
}

/// What a player proposes to the other: take back a move, or agree a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferKind {
    /// Undo the proposer's last move (and the reply after it, if any).
    Takeback,
    /// End the game as a draw.
    Draw,
}

/// An offer waiting for the other player's answer, as a snapshot shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    /// What is offered.
    pub kind: OfferKind,
    /// The seat that offered it.
    pub by: Mark,
}

/// A message from a client, with its optional correlation id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientFrame {
    /// The message itself; its `type` field picks the variant.
    #[serde(flatten)]
    pub message: ClientMessage,
    /// Echoed by the server on the reply or error this message causes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
}

impl From<ClientMessage> for ClientFrame {
    fn from(message: ClientMessage) -> Self {
        ClientFrame { message, id: None }
    }
}

/// Every message a client may send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The first message on a connection. With the token of an earlier session (within
    /// the reconnection grace period) it resumes that session, its seats and rooms.
    Hello {
        /// One of [`PROTOCOL_VERSIONS`]; this crate's clients send [`PROTOCOL_VERSION`].
        protocol: u32,
        /// Display name: 1 to [`MAX_NAME_CHARS`] printable characters.
        name: String,
        /// The token of a session to resume.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Ask for the public rooms; answered with `rooms`.
    ListRooms {},
    /// Ask for the external engines the server offers; answered with `engines`.
    ListEngines {},
    /// Create a room; answered with its first `room` snapshot.
    CreateRoom {
        /// The room's display name; the server picks one when omitted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// A preset name or explicit rules.
        rules: RulesSpec,
        /// Who sits where; the creator plays X against an open seat when omitted.
        #[serde(default)]
        seats: SeatPlan,
        /// A private room is not listed; it is joined with its id (the invite code).
        #[serde(default)]
        private: bool,
        /// Whether players may ask for `analyze` while the game is on (spectators always
        /// may, players always once it is over); false when omitted.
        #[serde(default)]
        hints: bool,
        /// How the games are timed; no clock when omitted or null.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_control: Option<TimeControlSpec>,
        /// Whether a player's `takeback` may be granted (an AI grants it only then);
        /// when omitted, true without a clock and false with one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        takebacks: Option<bool>,
    },
    /// Enter a room: with a seat to play, without one to watch. Also used by someone
    /// already in the room to move from watching to an empty seat.
    Join {
        /// The room id or invite code.
        room: RoomId,
        /// `"X"`, `"O"`, or `"any"` for the first free seat; omitted to watch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<SeatChoice>,
    },
    /// Leave a room (and the seat held in it); answered with `left`.
    Leave {
        /// The room to leave.
        room: RoomId,
    },
    /// Put an AI in a seat, or free a seat, when it is empty, held by an AI, or your own.
    SetSeat {
        /// The room.
        room: RoomId,
        /// The seat to change.
        seat: Mark,
        /// The AI level to seat; `null` or omitted frees the seat.
        #[serde(default)]
        ai: Option<Level>,
    },
    /// Place a stone.
    Play {
        /// The room.
        room: RoomId,
        /// The ply (number of moves already played) the move is meant for; guards
        /// against moves sent for a position that has since changed.
        ply: u32,
        /// The move in the engine's notation: a cell like `"b2"`, or a column like
        /// `"d"` (or `"4"`) with gravity.
        #[serde(rename = "move")]
        mv: String,
    },
    /// Give up the current game.
    Resign {
        /// The room.
        room: RoomId,
    },
    /// Offer or answer a takeback: without `accept`, ask to take back your last move
    /// (and the reply played after it); with `accept`, answer the other player's request.
    Takeback {
        /// The room.
        room: RoomId,
        /// The answer to the other player's request; absent to make a request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accept: Option<bool>,
    },
    /// Offer or answer a draw: without `accept`, offer one; with `accept`, answer the
    /// other player's offer.
    Draw {
        /// The room.
        room: RoomId,
        /// The answer to the other player's offer; absent to make an offer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accept: Option<bool>,
    },
    /// Ask for a new game in the same room with marks swapped; it starts once every
    /// human player has asked.
    Rematch {
        /// The room.
        room: RoomId,
    },
    /// Say something to everyone in the room.
    Chat {
        /// The room.
        room: RoomId,
        /// 1 to [`MAX_CHAT_CHARS`] characters.
        text: String,
    },
    /// Ask for the room's current snapshot, sent to you alone with the current `seq`: what
    /// a client does when it sees a gap in the `seq` of a room's events.
    Sync {
        /// The room.
        room: RoomId,
    },
    /// List finished games, newest first; answered with `history`. With `name`, only the
    /// games that name played, and that name's record.
    History {
        /// Only games with a player of this display name (compared exactly).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// How many games to list: 1 to [`MAX_HISTORY_LIMIT`]; [`DEFAULT_HISTORY_LIMIT`]
        /// when omitted, and a larger number is treated as the maximum.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// Only games with an id below this one: the `game` of the last entry of the
        /// previous page, to read the next (older) page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<GameId>,
    },
    /// Ask for one finished game's whole record; answered with `game`. The game's id is in
    /// a field named `game`, as `id` is the request id of every message.
    Game {
        /// The game's id, from `history` or a room's `last_game`.
        game: GameId,
    },
    /// Ask for the value of every legal move in the room's current position (a hint),
    /// answered to you alone with `analysis`, or with an `error`: `hints_off` for a
    /// player while the game is on in a room created without hints, `stale_ply` when the
    /// position changed before the analysis was ready.
    Analyze {
        /// The room.
        room: RoomId,
    },
    /// Change this session's display name (checked as `hello`'s); answered with
    /// `renamed`, and the rooms the session is in send everyone a fresh snapshot.
    Rename {
        /// The new name.
        name: String,
    },
}

/// The number of games `history` lists when its `limit` is omitted.
pub const DEFAULT_HISTORY_LIMIT: u32 = 20;

/// The most games one `history` answer lists.
pub const MAX_HISTORY_LIMIT: u32 = 100;

/// A message from the server, with the id of the client message that caused it, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFrame {
    /// The message itself; its `type` field picks the variant.
    #[serde(flatten)]
    pub message: ServerMessage,
    /// The id of the client message this answers, when it answers one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
}

impl From<ServerMessage> for ServerFrame {
    fn from(message: ServerMessage) -> Self {
        ServerFrame { message, id: None }
    }
}

/// Every message the server may send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// Answer to `hello`: the session is open.
    Welcome {
        /// The protocol version of this connection: the one `hello` asked for.
        protocol: u32,
        /// This session's public id (it names you in room snapshots).
        session: SessionId,
        /// The secret that resumes this session after a reconnect; keep it private.
        token: String,
        /// The server's name and version.
        server: String,
        /// Whether an earlier session was resumed (its rooms' snapshots follow).
        resumed: bool,
    },
    /// Answer to `list_rooms`.
    Rooms {
        /// The public rooms.
        rooms: Vec<RoomSummary>,
    },
    /// Answer to `list_engines`: the external engines a seat may be given, with the
    /// boards each plays; empty when the host offers none.
    Engines {
        /// The engines.
        engines: Vec<EngineInfo>,
    },
    /// The full state of a room: sent on join, resume and `sync`, and to everyone in the
    /// room after every change (in protocol 2, every change but a move).
    Room {
        /// The snapshot.
        room: Box<RoomSnapshot>,
    },
    /// Protocol 2 only: a move was played, sent to everyone in the room instead of a
    /// snapshot.
    Moved(MoveEvent),
    /// Answer to `analyze`, to the requester alone: the value of every legal move in the
    /// room's position at `game` and `ply`.
    Analysis {
        /// The room.
        room: RoomId,
        /// Which game of the room the position is in.
        game: u32,
        /// The number of moves played in that position (the snapshot's `ply`).
        ply: u32,
        /// Every legal move with its value, best first; empty when the game is won or
        /// drawn.
        moves: Vec<MoveAnalysis>,
    },
    /// A chat line in a room.
    Chat {
        /// The room.
        room: RoomId,
        /// The room's event sequence number.
        seq: u64,
        /// The speaker's display name.
        from: String,
        /// The speaker's seat, if a player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Mark>,
        /// What was said.
        text: String,
    },
    /// Answer to `leave`: you are no longer in the room.
    Left {
        /// The room left.
        room: RoomId,
    },
    /// A request was refused. The connection stays usable unless a `bye` follows.
    Error {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Human-readable explanation.
        message: String,
    },
    /// The server is about to close the connection.
    Bye {
        /// Why.
        reason: ByeReason,
        /// Human-readable explanation.
        message: String,
    },
    /// Answer to `history`: finished games, newest first.
    History {
        /// The games of this page, newest first.
        games: Vec<GameSummary>,
        /// Whether older games remain: ask again with `before` set to the last entry's `game`.
        more: bool,
        /// The record of the `name` asked for; absent when the request named nobody.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<Box<PlayerRecord>>,
    },
    /// Answer to `game`: one finished game, move by move.
    Game {
        /// The game.
        game: Box<GameRecord>,
    },
    /// Answer to `rename`: the session's display name from now on, as the server keeps
    /// it (trimmed).
    Renamed {
        /// The new name.
        name: String,
    },
}

/// The id of a finished game kept by the server: a whole number, larger for later games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameId(pub u64);

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A player of a finished game: a person's display name at the time, or an AI and its level.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayerRef {
    /// The display name (for an AI, the name the room showed, such as `AI (perfect)`).
    pub name: String,
    /// The AI's level; absent for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai: Option<Level>,
}

/// A finished game as `history` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game's id (for `game`, and `before` when paging).
    pub game: GameId,
    /// The room it was played in; absent for a private room, whose id is its invite code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<RoomId>,
    /// Which game of the room it was, from 1.
    pub number: u32,
    /// The rules played.
    pub rules: Rules,
    /// Who played X.
    pub x: PlayerRef,
    /// Who played O.
    pub o: PlayerRef,
    /// How it ended: `won` (with the winning line), `drawn` or `resigned`.
    pub result: GameStatus,
    /// How many moves were played.
    pub ply: u32,
    /// When the first move could be played, in milliseconds since the Unix epoch (UTC).
    pub started_at: u64,
    /// When the game ended, in milliseconds since the Unix epoch (UTC).
    pub ended_at: u64,
    /// How the game was timed; absent for a game without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// One move of a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// The move in notation (a column with gravity).
    #[serde(rename = "move")]
    pub mv: String,
    /// The cell where the stone landed.
    pub cell: String,
    /// The mark that moved.
    pub by: Mark,
    /// How long the mover took, in milliseconds, from the previous move (or the start).
    pub ms: u64,
    /// In a timed game, the mover's remaining time after the move (its increment
    /// included), in milliseconds, as PGN's `%clk`; absent without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
}

/// A finished game, whole: its summary, every move, and its text record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// What `history` lists for it.
    #[serde(flatten)]
    pub summary: GameSummary,
    /// Every move, in order.
    pub moves: Vec<PlayedMove>,
    /// The game in the text record format of `docs/protocol.md` (tags, then the moves),
    /// which the engine reads back.
    pub text: String,
}

/// A player's results, over the games `history` keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// The display name the record is for.
    pub name: String,
    /// Games won, drawn and lost, against everyone.
    pub total: Tally,
    /// The same against each opponent (a person by name, an AI by level), most games first.
    pub opponents: Vec<OpponentTally>,
}

/// Wins, draws and losses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost (resigning counts as a loss).
    pub losses: u32,
}

/// A player's results against one opponent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpponentTally {
    /// The opponent: a person, or an AI level.
    pub opponent: PlayerRef,
    /// The results against them.
    #[serde(flatten)]
    pub tally: Tally,
}

/// A move played in a room, as protocol 2 sends it instead of a snapshot. Applied to the
/// room's previous snapshot (the one with `seq - 1`) it gives the next one; see
/// `docs/protocol.md` for the rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveEvent {
    /// The room.
    pub room: RoomId,
    /// The room's event sequence number, as in the snapshot it stands for.
    pub seq: u64,
    /// Which game of the room the move was played in.
    pub game: u32,
    /// Moves played after this one: the `ply` the next `play` must carry.
    pub ply: u32,
    /// The move in notation (a column with gravity).
    #[serde(rename = "move")]
    pub mv: String,
    /// The cell where the stone landed (equal to `move` without gravity).
    pub cell: String,
    /// The mark that moved.
    pub by: Mark,
    /// The game's status after the move.
    pub status: GameStatus,
    /// Both clocks after the move, in a timed game; absent without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockState>,
}

/// One legal move in an `analysis` and its value for the player making it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveAnalysis {
    /// The move in notation (a column with gravity), as `play` takes it.
    #[serde(rename = "move")]
    pub mv: String,
    /// The cell where the stone would land (equal to `move` without gravity).
    pub cell: String,
    /// What the move leads to with best play from both sides, or an estimate.
    #[serde(flatten)]
    pub value: MoveValue,
    /// Whether the value is exact (a win, loss or draw the search proved) rather than an
    /// estimate. Read it rather than inferring it from `value`.
    pub proven: bool,
}

/// The value of a move, as its `"value"` field names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "value", rename_all = "snake_case")]
pub enum MoveValue {
    /// The mover wins with best play.
    Win {
        /// Plies until the mover's winning stone, this move counting as 1 (`1`: this
        /// move wins; `3`: the mover's next stone wins whatever the reply). On boards too
        /// big to search every cell (gomoku) a proven win may come sooner than this.
        #[serde(rename = "in")]
        plies: u32,
    },
    /// The mover loses against best play.
    Loss {
        /// Plies until the opponent's winning stone, this move counting as 1 (`2`: the
        /// reply wins).
        #[serde(rename = "in")]
        plies: u32,
    },
    /// Best play from both sides draws.
    Draw,
    /// Not solved within the time budget: a heuristic score, positive favours the mover.
    /// Beyond ±1,000,000 the search saw a win (or a loss) it could not prove.
    Estimate {
        /// The score.
        score: i32,
    },
}

/// A room as listed in the lobby.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// The room id.
    pub id: RoomId,
    /// Display name.
    pub name: String,
    /// The rules played.
    pub rules: Rules,
    /// The two seats, X first.
    pub seats: Vec<SeatInfo>,
    /// The game's status.
    pub status: GameStatus,
    /// How many spectators watch.
    pub spectators: u32,
    /// How the room's games are timed; absent without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// Everything about a room that a player or spectator needs to draw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomSnapshot {
    /// The room id (the invite code of a private room).
    pub id: RoomId,
    /// Display name.
    pub name: String,
    /// The rules played.
    pub rules: Rules,
    /// Whether the room is hidden from the lobby.
    pub private: bool,
    /// Whether the room was created with hints: its players may `analyze` while the game
    /// is on. False when absent (a server that predates hints).
    #[serde(default)]
    pub hints: bool,
    /// How the room's games are timed; absent without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// Whether a `takeback` may be granted in this room. False when absent (and sent
    /// only when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub takebacks: bool,
    /// The room's event sequence number: increases by one with every room event
    /// (snapshot or chat) so clients can tell that they missed nothing.
    pub seq: u64,
    /// Which game of the room this is, from 1; a rematch increments it.
    pub game: u32,
    /// The two seats, X first.
    pub seats: Vec<SeatInfo>,
    /// The board, one string per row from the top row down; each character is
    /// `.` (empty), `X` or `O`. The bottom row is row 1 in move notation.
    pub board: Vec<String>,
    /// Moves played so far in notation, oldest first.
    pub moves: Vec<String>,
    /// Number of moves played; the `ply` a `play` must carry.
    pub ply: u32,
    /// The moves the player to move may make, in notation; empty when nobody may move.
    pub legal_moves: Vec<String>,
    /// The game's status.
    pub status: GameStatus,
    /// The cell of the last stone placed (for gravity games, where it landed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<String>,
    /// Both clocks, in a timed game, as of this event; absent without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockState>,
    /// A takeback or draw offer waiting for the other player's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<Offer>,
    /// Names of the spectators.
    pub spectators: Vec<String>,
    /// The id under which the server keeps this room's last finished game (for `game`);
    /// absent until a game of the room has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_game: Option<GameId>,
    /// The room's recent chat, oldest first: only in the snapshot that answers the
    /// requester's `join` or `sync`, or follows its resume, so that whoever enters sees
    /// what was said; empty (absent) in every snapshot sent to everybody.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<ChatEntry>,
}

/// A chat line as a snapshot carries it: a `chat` message without its room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatEntry {
    /// The room's event sequence number of the line.
    pub seq: u64,
    /// The speaker's display name.
    pub from: String,
    /// The speaker's seat, if a player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Mark>,
    /// What was said.
    pub text: String,
}

/// One seat of a room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The seat's mark.
    pub mark: Mark,
    /// Who sits there.
    pub occupant: Occupant,
    /// Whether this seat has asked for a rematch (AI seats always agree).
    #[serde(default)]
    pub rematch: bool,
}

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Occupant {
    /// Nobody: anyone may take it or fill it with an AI.
    Empty,
    /// A person.
    Human {
        /// Display name.
        name: String,
        /// The person's session id (compare with `welcome.session` to find your seat).
        session: SessionId,
        /// False while the person's connection is down and the seat is held for them.
        connected: bool,
    },
    /// A server-side AI.
    Ai {
        /// Its strength: for an external engine, the level of inarow's AI that takes
        /// over should the engine fail.
        level: Level,
        /// The external engine playing the seat, if one does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        engine: Option<EngineName>,
        /// True while it is computing its move.
        #[serde(default)]
        thinking: bool,
    },
}

/// The state of a room's game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum GameStatus {
    /// Waiting for players: a seat is empty, before the first game starts or because a
    /// player left (or their session expired) mid-game; the game resumes from where it was
    /// once the seat is filled.
    Waiting,
    /// Under way.
    Playing {
        /// Whose move it is.
        turn: Mark,
    },
    /// Won with a line.
    Won {
        /// The winner.
        winner: Mark,
        /// The cells of the winning line, in notation.
        line: Vec<String>,
    },
    /// The board filled with no line.
    Drawn,
    /// A player resigned.
    Resigned {
        /// The player who did not resign.
        winner: Mark,
    },
    /// A player's clock ran out (or their seat was given up in a timed game).
    Timeout {
        /// The player whose clock did not run out.
        winner: Mark,
    },
    /// The players agreed a draw.
    Agreed,
    /// A player left before each side had moved: the game has no result and is not kept.
    Aborted,
}

impl GameStatus {
    /// Whether the game has ended (won, drawn, resigned, lost on time, agreed drawn or
    /// aborted).
    pub fn is_over(&self) -> bool {
        !matches!(self, GameStatus::Waiting | GameStatus::Playing { .. })
    }

    /// The winner of a finished game, if it has one.
    pub fn winner(&self) -> Option<Mark> {
        match self {
            GameStatus::Won { winner, .. }
            | GameStatus::Resigned { winner }
            | GameStatus::Timeout { winner } => Some(*winner),
            _ => None,
        }
    }
}

/// Stable error codes. A client may switch on these; the message is for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed JSON, a binary frame, an unknown type, a missing or mistyped field,
    /// a message before `hello` or a second `hello`.
    BadRequest,
    /// The `hello` asked for a protocol version the server does not speak (then `bye`).
    UnsupportedProtocol,
    /// A name that is empty, too long or has control characters.
    InvalidName,
    /// Rules outside the allowed bounds, or an unknown preset.
    InvalidRules,
    /// A chat text that is empty or too long.
    InvalidChat,
    /// No room with that id (or invite code).
    UnknownRoom,
    /// `join` with seat `"any"` found no free seat.
    RoomFull,
    /// The seat asked for is held by someone else.
    SeatTaken,
    /// You already hold a seat in this room.
    AlreadySeated,
    /// The request names a room you are not in.
    NotInRoom,
    /// The request needs a seat and you only watch.
    NotAPlayer,
    /// It is the other seat's turn.
    NotYourTurn,
    /// The `ply` does not match the current position: the move was meant for an older one;
    /// or the position changed before an `analyze` was answered (ask again).
    StalePly,
    /// The move is not legal here (outside the board, occupied, full column, bad notation).
    IllegalMove,
    /// The game is not under way: it has not started or has ended.
    GameNotInProgress,
    /// The request needs a finished game (a rematch while the game is on).
    GameInProgress,
    /// Too many messages: slow down (the connection closes if it goes on); or an
    /// `analyze` while your previous one in the same room is still unanswered.
    RateLimited,
    /// A message over the size limit (then `bye` and close 1009; sent without an id, as
    /// the oversized message is not read).
    TooLarge,
    /// The server has no room for another connection (then `bye`).
    ServerFull,
    /// The server's room limit, or the session's (rooms it created that are still open),
    /// is reached; the message says which.
    TooManyRooms,
    /// Too many connections from your address: at once, or opened in the last minute
    /// (then `bye` and close 1013).
    TooManyConnections,
    /// Your address holds too many sessions (live or waiting to be resumed); `hello`
    /// without a valid token is refused (then `bye` and close 1013).
    TooManySessions,
    /// `game` names a game the server does not keep.
    UnknownGame,
    /// The server could not read its game store; try again later.
    StoreUnavailable,
    /// `analyze` from a player while the game is on, in a room created without hints.
    HintsOff,
    /// A `create_room` time control that is not one the server offers (the message names
    /// the field and the allowed range).
    InvalidTimeControl,
    /// A `takeback` in a room that does not allow them, or with no move of yours to take
    /// back.
    TakebackRefused,
    /// An answer (`accept`) to an offer that was not made, or an offer while one waits.
    NoOffer,
}

impl ErrorCode {
    /// Every code, for exhaustive tests and documentation.
    pub const ALL: [ErrorCode; 28] = [
        ErrorCode::BadRequest,
        ErrorCode::UnsupportedProtocol,
        ErrorCode::InvalidName,
        ErrorCode::InvalidRules,
        ErrorCode::InvalidChat,
        ErrorCode::UnknownRoom,
        ErrorCode::RoomFull,
        ErrorCode::SeatTaken,
        ErrorCode::AlreadySeated,
        ErrorCode::NotInRoom,
        ErrorCode::NotAPlayer,
        ErrorCode::NotYourTurn,
        ErrorCode::StalePly,
        ErrorCode::IllegalMove,
        ErrorCode::GameNotInProgress,
        ErrorCode::GameInProgress,
        ErrorCode::RateLimited,
        ErrorCode::TooLarge,
        ErrorCode::ServerFull,
        ErrorCode::TooManyRooms,
        ErrorCode::TooManyConnections,
        ErrorCode::TooManySessions,
        ErrorCode::UnknownGame,
        ErrorCode::StoreUnavailable,
        ErrorCode::HintsOff,
        ErrorCode::InvalidTimeControl,
        ErrorCode::TakebackRefused,
        ErrorCode::NoOffer,
    ];

    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::UnsupportedProtocol => "unsupported_protocol",
            ErrorCode::InvalidName => "invalid_name",
            ErrorCode::InvalidRules => "invalid_rules",
            ErrorCode::InvalidChat => "invalid_chat",
            ErrorCode::UnknownRoom => "unknown_room",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::NotInRoom => "not_in_room",
            ErrorCode::NotAPlayer => "not_a_player",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::StalePly => "stale_ply",
            ErrorCode::IllegalMove => "illegal_move",
            ErrorCode::GameNotInProgress => "game_not_in_progress",
            ErrorCode::GameInProgress => "game_in_progress",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::ServerFull => "server_full",
            ErrorCode::TooManyRooms => "too_many_rooms",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::TooManySessions => "too_many_sessions",
            ErrorCode::UnknownGame => "unknown_game",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::HintsOff => "hints_off",
            ErrorCode::InvalidTimeControl => "invalid_time_control",
            ErrorCode::TakebackRefused => "takeback_refused",
            ErrorCode::NoOffer => "no_offer",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the server closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ByeReason {
    /// The server is shutting down (close code 1001).
    Shutdown,
    /// No `hello` arrived in time.
    HandshakeTimeout,
    /// Nothing was heard from the peer for too long.
    IdleTimeout,
    /// The peer kept sending after being rate limited.
    RateLimited,
    /// A frame or message over the size limit (close code 1009).
    TooLarge,
    /// The connection limit is reached.
    ServerFull,
    /// The `hello` asked for a protocol version the server does not speak.
    UnsupportedProtocol,
    /// The session was resumed by a newer connection with the same token.
    Replaced,
    /// The peer's outbound queue filled up: it reads too slowly.
    TooSlow,
    /// Too many connections from the peer's address (close code 1013).
    TooManyConnections,
    /// Too many sessions held by the peer's address (close code 1013).
    TooManySessions,
    /// The server is restarting and keeps its rooms and sessions (close code 1012):
    /// reconnect with your token once it is back.
    Restarting,
}

impl ByeReason {
    /// Every reason, for exhaustive tests and documentation.
    pub const ALL: [ByeReason; 12] = [
        ByeReason::Shutdown,
        ByeReason::HandshakeTimeout,
        ByeReason::IdleTimeout,
        ByeReason::RateLimited,
        ByeReason::TooLarge,
        ByeReason::ServerFull,
        ByeReason::UnsupportedProtocol,
        ByeReason::Replaced,
        ByeReason::TooSlow,
        ByeReason::TooManyConnections,
        ByeReason::TooManySessions,
        ByeReason::Restarting,
    ];

    /// The reason as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ByeReason::Shutdown => "shutdown",
            ByeReason::HandshakeTimeout => "handshake_timeout",
            ByeReason::IdleTimeout => "idle_timeout",
            ByeReason::RateLimited => "rate_limited",
            ByeReason::TooLarge => "too_large",
            ByeReason::ServerFull => "server_full",
            ByeReason::UnsupportedProtocol => "unsupported_protocol",
            ByeReason::Replaced => "replaced",
            ByeReason::TooSlow => "too_slow",
            ByeReason::TooManyConnections => "too_many_connections",
            ByeReason::TooManySessions => "too_many_sessions",
            ByeReason::Restarting => "restarting",
        }
    }
}

impl fmt::Display for ByeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A client message that could not be decoded, with the id it carried if that much was
/// readable, so the server can answer to the right request.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// The id of the message, if it had a readable one.
    pub id: Option<RequestId>,
    /// The code to answer with: `bad_request`, or `invalid_rules` for unreadable rules.
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
}

impl DecodeError {
    fn bad_request(id: Option<RequestId>, message: impl Into<String>) -> DecodeError {
        DecodeError {
            id,
            code: ErrorCode::BadRequest,
            message: message.into(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for DecodeError {}

/// Decodes one client text frame.
///
/// # Errors
/// Returns a [`DecodeError`] for malformed JSON, a non-object, a missing or unknown
/// `type`, missing or mistyped fields (`bad_request`), an `id` that is neither a whole
/// number from 0 to 2^64 − 1 nor a string of at most [`MAX_ID_CHARS`] characters
/// (`bad_request`, no id), or `create_room` rules that are not a preset name or an object
/// of whole numbers (`invalid_rules`, naming the field). It keeps the message's `id` when
/// readable.
pub fn decode_client(text: &str) -> Result<ClientFrame, DecodeError> {
    // `play`, most of the traffic, first, as a plain struct: serde reads the flattened,
    // internally tagged `ClientFrame` through a buffer of every field, which costs more
    // than the rest of a move's decoding. Same answer: anything this does not read (another
    // type, an escaped `type`, a duplicate or mistyped field) goes on to the paths below.
    if text.contains("\"play\"")
        && let Ok(play) = serde_json::from_str::<PlayFrame<'_>>(text)
        && play.kind == "play"
        && check::id_fits(play.id.as_ref())
    {
        return Ok(ClientFrame {
            message: ClientMessage::Play {
                room: RoomId(play.room),
                ply: play.ply,
                mv: play.mv,
            },
            id: play.id,
        });
    }
    // Most frames are well formed and need no check beyond their type: they are read
    // straight into it, which costs a third of reading a JSON value first. Anything that
    // does not read, or that needs the checks of the raw object, takes the full path, so
    // the answer is the same either way (duplicate fields, for one, fail the direct read).
    if let Ok(frame) = serde_json::from_str::<ClientFrame>(text)
        && !matches!(
            frame.message,
            ClientMessage::CreateRoom { .. } | ClientMessage::Analyze { .. }
        )
        && check::id_fits(frame.id.as_ref())
    {
        return Ok(frame);
    }
    decode(text, true)
}

/// A `play` frame as [`decode_client`]'s fast path reads it. Unknown fields are ignored,
/// as the flattened [`ClientFrame`] ignores them.
#[derive(Deserialize)]
struct PlayFrame<'a> {
    /// Borrowed: a `type` with escapes fails here and takes the general path.
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    room: String,
    ply: u32,
    #[serde(rename = "move")]
    mv: String,
    #[serde(default, deserialize_with = "plain_id")]
    id: Option<RequestId>,
}

/// A [`RequestId`] read without the buffering of `untagged`: a whole number, a string,
/// or null (no id); anything else fails, and the general path answers it.
fn plain_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<RequestId>, D::Error> {
    struct Id;
    impl<'de> serde::de::Visitor<'de> for Id {
        type Value = Option<RequestId>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a whole number, a string or null")
        }
        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
            Ok(Some(RequestId::Number(n)))
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(Some(RequestId::Text(s.to_owned())))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Id)
}

/// Decodes one server text frame (for clients).
///
/// # Errors
/// As [`decode_client`], without the checks of client fields.
pub fn decode_server(text: &str) -> Result<ServerFrame, DecodeError> {
    decode(text, false)
}

fn decode<T: serde::de::DeserializeOwned>(text: &str, client: bool) -> Result<T, DecodeError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| DecodeError::bad_request(None, format!("malformed JSON: {e}")))?;
    let Some(object) = value.as_object() else {
        return Err(DecodeError::bad_request(
            None,
            "a message must be a JSON object",
        ));
    };
    let id = match check::id(object) {
        Ok(id) => id,
        Err(e) => {
            return Err(DecodeError {
                id: None,
                code: e.code,
                message: e.message,
            });
        }
    };
    match object.get("type") {
        Some(serde_json::Value::String(kind)) => {
            let checked = match kind.as_str() {
                "create_room" if client => check::create_room(object),
                "analyze" if client => check::room(object),
                _ => Ok(()),
            };
            checked.map_err(|e| DecodeError {
                id: id.clone(),
                code: e.code,
                message: e.message,
            })?;
        }
        Some(_) => {
            return Err(DecodeError::bad_request(
                id,
                "field `type` must be a string",
            ));
        }
        None => return Err(DecodeError::bad_request(id, "missing field `type`")),
    }
    serde_json::from_value(value).map_err(|e| DecodeError::bad_request(id, e.to_string()))
}

/// Encodes a frame as the JSON text of one WebSocket frame.
pub fn encode<T: Serialize>(frame: &T) -> String {
    // Serialising these types cannot fail: every map key is a string and no type has a
    // fallible `Serialize` implementation. Most frames are a few hundred bytes: room for
    // them at once, rather than serde_json's 128 bytes grown twice.
    let mut out = Vec::with_capacity(256);
    serde_json::to_writer(&mut out, frame).expect("protocol types always serialise");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_and_unit_like_variant_decode() {
        let f = decode_client(r#"{"type":"list_rooms","id":7}"#).unwrap();
        assert_eq!(f.message, ClientMessage::ListRooms {});
        assert_eq!(f.id, Some(RequestId::Number(7)));
        let f = decode_client(r#"{"id":"a","type":"list_rooms"}"#).unwrap();
        assert_eq!(f.id, Some(RequestId::Text("a".into())));
    }

    #[test]
    fn errors_keep_the_id() {
        let e = decode_client(r#"{"type":"play","id":3,"room":"abc"}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(3)));
        assert!(e.message.contains("ply"), "{}", e.message);
        let e = decode_client(r#"{"type":"dance","id":4}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(4)));
        assert!(decode_client("not json").unwrap_err().id.is_none());
        assert!(decode_client("[1,2]").is_err());
        assert!(decode_client(r#"{"id":1}"#).is_err());
    }

    #[test]
    fn analyses_round_trip_and_mistyped_fields_are_named() {
        let frame = ServerFrame {
            message: ServerMessage::Analysis {
                room: "r".into(),
                game: 1,
                ply: 2,
                moves: vec![
                    MoveAnalysis {
                        mv: "d".into(),
                        cell: "d3".into(),
                        value: MoveValue::Win { plies: 7 },
                        proven: true,
                    },
                    MoveAnalysis {
                        mv: "a".into(),
                        cell: "a1".into(),
                        value: MoveValue::Estimate { score: -12 },
                        proven: false,
                    },
                ],
            },
            id: Some(RequestId::Number(4)),
        };
        let text = encode(&frame);
        assert!(text.contains(r#""value":"win","in":7"#), "{text}");
        assert_eq!(decode_server(&text).unwrap(), frame);
        let e = decode_client(r#"{"type":"analyze","id":2,"room":7}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(2)));
        assert!(e.message.starts_with("room must be"), "{}", e.message);
        let e =
            decode_client(r#"{"type":"create_room","rules":"tictactoe","hints":1}"#).unwrap_err();
        assert!(e.message.starts_with("hints must be"), "{}", e.message);
    }

    #[test]
    fn error_codes_match_their_wire_names() {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::String(code.as_str().to_owned())
            );
        }
    }

    #[test]
    fn bye_reasons_match_their_wire_names() {
        for reason in ByeReason::ALL {
            assert_eq!(
                serde_json::to_value(reason).unwrap(),
                serde_json::Value::String(reason.as_str().to_owned())
            );
            assert_eq!(reason.to_string(), reason.as_str());
        }
    }
}
