//! The saved form of live rooms and sessions: plain data that the store writes and reads
//! back after a restart, and that rooms (`room::table`'s `persist`) and the session
//! registry convert to and from. A leaf: it knows neither rooms nor the store.
//!
//! A room is saved in three parts, so that a move costs one small appended row rather
//! than the whole room: the [`TableRecord`] (rules, seats, game number, rematch flags,
//! resignation, `seq`), rewritten when one of those changes; one [`SavedMove`] per move
//! of the current game; and the chat tail ([`SavedChat`]).

use inarow_protocol::{self as wire, GameId, Level, Mark, RoomId, SessionId};
use serde::{Deserialize, Serialize};

/// Chat lines a room keeps, and the store with it, for the record; older ones are
/// forgotten.
pub(crate) const CHAT_TAIL: usize = 50;

/// Everything about a room except its moves and chat: what is rewritten when seats,
/// the game number, rematch flags or a resignation change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TableRecord {
    /// The room's id (its invite code).
    pub(crate) id: RoomId,
    /// Its display name.
    pub(crate) name: String,
    /// Hidden from the lobby.
    pub(crate) private: bool,
    /// The session that created it.
    pub(crate) creator: SessionId,
    /// Whether players may ask for hints while a game is on.
    #[serde(default)]
    pub(crate) hints: bool,
    /// The rules of its games.
    pub(crate) rules: wire::Rules,
    /// The current game's number.
    pub(crate) game: u32,
    /// The last event's sequence number when the record was taken.
    pub(crate) seq: u64,
    /// X then O.
    pub(crate) seats: [SavedSeat; 2],
    /// The winner of the current game by resignation.
    pub(crate) resigned: Option<Mark>,
    /// When the current game could first be played (ms since the Unix epoch), for its
    /// record in the store.
    #[serde(default)]
    pub(crate) started_at: Option<u64>,
    /// The id under which the store keeps the room's last finished game.
    #[serde(default)]
    pub(crate) last_game: Option<GameId>,
    /// How the room's games are timed (absent: no clock).
    #[serde(default)]
    pub(crate) time_control: Option<wire::TimeControl>,
    /// Whether takebacks may be granted (absent: a room saved before takebacks, which
    /// had no clock, so true).
    #[serde(default = "yes")]
    pub(crate) takebacks: bool,
    /// How the current game ended off the board (a timeout, an agreed draw, an abort);
    /// a resignation is also in `resigned`, which older servers read.
    #[serde(default)]
    pub(crate) ending: Option<crate::snapshot::Ending>,
    /// Both remaining times (X, O) in ms when the record was taken, and the ply they
    /// belong to; a restart resumes from them when no move came after.
    #[serde(default)]
    pub(crate) clock: Option<SavedClock>,
}

fn yes() -> bool {
    true
}

/// The clocks of a room's game when its record was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedClock {
    /// The moves played when they were read.
    pub(crate) ply: u32,
    /// X's remaining time, ms.
    pub(crate) x_ms: u64,
    /// O's remaining time, ms.
    pub(crate) o_ms: u64,
}

/// Who sits in a seat, as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum SavedSeat {
    /// Nobody.
    Empty,
    /// A person, by session, with the name the room knew them by.
    Human {
        /// Their session.
        session: SessionId,
        /// Their display name.
        name: String,
        /// They asked for a rematch.
        rematch: bool,
    },
    /// A server-side AI.
    Ai {
        /// Its strength.
        level: Level,
    },
}

/// One move of a room's game, as appended to the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SavedMove {
    /// The game it belongs to.
    pub(crate) game: u32,
    /// The ply it was played at, from 0.
    pub(crate) ply: u32,
    /// The move in notation.
    pub(crate) mv: String,
    /// The `seq` of its `moved` event.
    pub(crate) seq: u64,
    /// How long the player took over it, in ms (for the game's record).
    pub(crate) ms: u64,
    /// In a timed game, both remaining times after it (X, O), in ms.
    pub(crate) clock: Option<[u64; 2]>,
}

/// A whole room as saved: its record, the current game's moves in order, its chat tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SavedRoom {
    /// Everything but moves and chat.
    pub(crate) table: TableRecord,
    /// The current game's moves, ply 0 first.
    pub(crate) moves: Vec<SavedMove>,
    /// The last chat lines, oldest first.
    pub(crate) chat: Vec<SavedChat>,
}

/// A chat line as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedChat {
    /// Its event's sequence number.
    pub(crate) seq: u64,
    /// The speaker's name.
    pub(crate) from: String,
    /// The speaker's seat, if a player.
    pub(crate) seat: Option<Mark>,
    /// What was said.
    pub(crate) text: String,
}

/// What the store keeps of a session: enough to resume it with its current token after a
/// restart, and nothing that resumes it without one. Its `Debug` leaves the hash out:
/// not a secret, but nothing for the logs either.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct SessionRecord {
    /// The session.
    pub(crate) session: SessionId,
    /// The display name of its last `hello`.
    pub(crate) name: String,
    /// The current token's selector (not secret: it only finds the session).
    pub(crate) selector: String,
    /// SHA-256 of the current token's verifier.
    pub(crate) verifier_hash: [u8; 32],
}

impl std::fmt::Debug for SessionRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRecord")
            .field("session", &self.session)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
