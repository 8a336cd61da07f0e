//! The table's account of its current game for the store: when the game started, how
//! long each move took, and the finished game as the store keeps it.
//!
//! The table has no clock: the room passes the wall-clock time (milliseconds since the
//! Unix epoch) to [`Table::note_time`] after every change, so tests drive time by hand.

use inarow_protocol::{GameId, GameSummary, Mark, PlayerRef};

use super::{Seat, Table, seat_index};
use crate::snapshot;
use crate::store::{EndedGame, MovesJson};

/// When the current game started and how long its moves took.
#[derive(Debug, Default, Clone)]
pub(super) struct GameClock {
    /// When both seats were first filled with the game not over (the first move could be
    /// played); `None` before.
    started_at: Option<u64>,
    /// When the last move was played (or the game started): the next move's time counts
    /// from here.
    last_at: u64,
    /// Each move's time, in milliseconds, parallel to the position's moves.
    move_ms: Vec<u64>,
}

impl GameClock {
    /// The clock of a game restored after a restart: started at `started_at`, its moves
    /// having taken `move_ms`; the next move's time counts from `now_ms`, since nobody
    /// could move while the server was down.
    pub(super) fn restored(started_at: Option<u64>, move_ms: Vec<u64>, now_ms: u64) -> GameClock {
        GameClock {
            started_at,
            last_at: now_ms,
            move_ms,
        }
    }

    /// When the game started, if it has.
    pub(super) fn started_at(&self) -> Option<u64> {
        self.started_at
    }

    /// Forgets the moves from `ply` on (a takeback): the record keeps the game as finally
    /// played.
    pub(super) fn truncate(&mut self, ply: usize) {
        self.move_ms.truncate(ply);
    }

    /// How long move `ply` took, if it is known.
    pub(super) fn move_ms(&self, ply: usize) -> Option<u64> {
        self.move_ms.get(ply).copied()
    }
}

impl Table {
    /// Takes the time `now_ms` (milliseconds since the Unix epoch) after a change: starts
    /// the game's clock once it can be played, and times every move played since the
    /// last call. A clock that went backwards counts as no time.
    pub(crate) fn note_time(&mut self, now_ms: u64) {
        self.sync_clocks();
        let playing = self.turn().is_some();
        let clock = &mut self.clock;
        if clock.started_at.is_none() && (playing || self.position.ply() > 0) {
            clock.started_at = Some(now_ms);
            clock.last_at = now_ms;
        }
        while clock.move_ms.len() < self.position.ply() {
            clock.move_ms.push(now_ms.saturating_sub(clock.last_at));
            clock.last_at = now_ms;
        }
    }

    /// The game just ended, as the store keeps it under `id`, ended at `ended_at`. Call
    /// it when [`Table::game_over`] reports the end, after [`Table::note_time`].
    pub(crate) fn finished_game(&self, id: GameId, ended_at: u64) -> EndedGame {
        let history = self.position.history();
        let mut moves = MovesJson::new(history.len());
        // One buffer for every notation: a string each was two allocations a move.
        let (mut mv_text, mut cell_text) = (String::new(), String::new());
        for (ply, (mv, cell)) in history.iter().zip(self.position.landed()).enumerate() {
            mv_text.clear();
            mv.push_notation(&mut mv_text);
            cell_text.clear();
            cell.push_notation(&mut cell_text);
            let by = if ply % 2 == 0 { Mark::X } else { Mark::O };
            let ms = self.clock.move_ms.get(ply).copied().unwrap_or(0);
            let clock = self
                .clocks
                .as_ref()
                .and_then(|c| c.after_move(ply))
                .map(|[x, o]| if by == Mark::X { x } else { o });
            moves.push(&mv_text, &cell_text, by, ms, clock);
        }
        EndedGame {
            summary: GameSummary {
                game: id,
                // A private room's id is its invite code: not for the public history.
                room: (!self.private).then(|| self.id.clone()),
                number: self.game,
                rules: snapshot::rules(self.position.rules()),
                x: self.player_ref(Mark::X),
                o: self.player_ref(Mark::O),
                result: self.status(),
                ply: u32::try_from(self.position.ply()).unwrap_or(u32::MAX),
                started_at: self.clock.started_at.unwrap_or(ended_at),
                ended_at,
                time_control: self.time_control(),
            },
            moves: moves.finish(),
        }
    }

    /// Records that the room's last finished game is kept as `id` (snapshots show it).
    pub(crate) fn set_last_game(&mut self, id: GameId) {
        self.last_game = Some(id);
    }

    /// Who sits at `mark`, as the record names them.
    fn player_ref(&self, mark: Mark) -> PlayerRef {
        match &self.seats[seat_index(mark)] {
            Seat::Human { session, .. } => PlayerRef {
                name: self
                    .members
                    .get(session)
                    .map(|m| m.name.to_string())
                    .unwrap_or_default(),
                ai: None,
            },
            Seat::Ai { level, engine, .. } => PlayerRef {
                // An engine that played the game to its end is named: its games are its own.
                name: engine.map_or_else(|| snapshot::ai_name(*level), |e| format!("Engine ({e})")),
                ai: Some(*level),
            },
            // A game ends only with both seats filled; an empty one is named as nobody.
            Seat::Empty => PlayerRef {
                name: String::new(),
                ai: None,
            },
        }
    }
}
