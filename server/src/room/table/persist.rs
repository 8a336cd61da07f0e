//! The table in the form the store keeps across restarts, and back.
//!
//! The saved form itself is plain data in `crate::saved`, so the store needs nothing of
//! rooms. [`Table::restore`] builds a table
//! from them: players' seats held for their sessions (none connected yet), spectators
//! gone, the game at the same ply, AI seats with fresh players that the room sets
//! thinking again.

use std::collections::VecDeque;

use foldhash::HashMap;

use inarow_engine::{Position, Rules};
use inarow_protocol::{Mark, TimeControl};

use std::time::Instant;

use super::clock::Clocks;
use super::record::GameClock;
use super::{ChatLine, Member, Seat, Table, ai, seat_index};
use crate::snapshot::{self, Ending};
use crate::store::saved::{
    CHAT_TAIL, SavedChat, SavedClock, SavedMove, SavedRoom, SavedSeat, TableRecord,
};

/// How far a restored room's `seq` jumps past the last one saved. After a crash the
/// events of the last moments before it may be lost; a client that saw them would take
/// the restored room's first events for repeats and ignore them. Far more than a room
/// sends in the second a crash can lose.
pub(crate) const RESTORE_SEQ_GAP: u64 = 1_000;

/// Why a saved room cannot be restored (the data is not one the server wrote).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RestoreError {
    /// The rules are not valid rules.
    #[error("invalid rules: {0}")]
    Rules(String),
    /// A move is missing, belongs to another game or cannot be played.
    #[error("move {ply}: {message}")]
    Move {
        /// The ply of the bad move.
        ply: usize,
        /// What is wrong with it.
        message: String,
    },
}

impl Table {
    /// The record of the room as it is now.
    pub(crate) fn record(&self) -> TableRecord {
        let seats = [Mark::X, Mark::O].map(|mark| match &self.seats[seat_index(mark)] {
            Seat::Empty => SavedSeat::Empty,
            Seat::Human { session, rematch } => SavedSeat::Human {
                session: *session,
                name: self
                    .members
                    .get(session)
                    .map(|m| m.name.to_string())
                    .unwrap_or_default(),
                rematch: *rematch,
            },
            Seat::Ai { level, .. } => SavedSeat::Ai { level: *level },
        });
        TableRecord {
            id: self.id.clone(),
            name: self.name.clone(),
            private: self.private,
            creator: self.creator,
            hints: self.hints,
            rules: snapshot::rules(self.position.rules()),
            game: self.game,
            seq: self.seq,
            seats,
            resigned: match self.ending {
                Some(Ending::Resigned { winner }) => Some(winner),
                _ => None,
            },
            started_at: self.clock.started_at(),
            last_game: self.last_game,
            time_control: self.time_control(),
            takebacks: self.takebacks,
            ending: self.ending,
            clock: self.clocks.as_ref().map(|c| {
                let [x_ms, o_ms] = c.current(self.now.max(Instant::now()));
                SavedClock {
                    ply: u32::try_from(self.position.ply()).unwrap_or(u32::MAX),
                    x_ms,
                    o_ms,
                }
            }),
        }
    }

    /// The last move played, as the store appends it (its `seq` is the room's current
    /// one, so take it right after the move's event); `None` before the first move.
    pub(crate) fn last_move(&self) -> Option<SavedMove> {
        let ply = self.position.ply().checked_sub(1)?;
        let mv = self.position.history().get(ply)?;
        Some(SavedMove {
            game: self.game,
            ply: u32::try_from(ply).ok()?,
            mv: mv.notation(),
            seq: self.seq,
            ms: self.clock.move_ms(ply).unwrap_or(0),
            clock: self.clocks.as_ref().and_then(|c| c.after_move(ply)),
        })
    }

    /// The latest chat line, as the store appends it.
    pub(crate) fn last_chat(&self) -> Option<SavedChat> {
        self.chat.back().map(saved_chat)
    }

    /// The whole room as saved. Each move carries the room's current `seq`: the moves'
    /// own numbers are past, and restoring takes the largest.
    pub(crate) fn save(&self) -> SavedRoom {
        let moves = self
            .position
            .history()
            .iter()
            .enumerate()
            .map(|(ply, mv)| SavedMove {
                game: self.game,
                ply: u32::try_from(ply).unwrap_or(u32::MAX),
                mv: mv.notation(),
                seq: self.seq,
                ms: self.clock.move_ms(ply).unwrap_or(0),
                clock: self.clocks.as_ref().and_then(|c| c.after_move(ply)),
            })
            .collect();
        SavedRoom {
            table: self.record(),
            moves,
            chat: self.chat.iter().map(saved_chat).collect(),
        }
    }

    /// The table of a saved room after a restart: players' seats held for their
    /// sessions (nobody connected), no spectators, the current game replayed to its
    /// saved ply, AI seats with fresh players and no job yet (the room asks
    /// [`Table::reconcile_ai`]). Its `seq` is past every saved one by
    /// [`RESTORE_SEQ_GAP`]. A finished game is not reported as finished again. The
    /// game's clock keeps its start and its moves' times; the next move's time counts
    /// from `now_ms`.
    ///
    /// # Errors
    /// [`RestoreError`] when the rules or the moves are not ones the server played.
    pub(crate) fn restore(
        saved: SavedRoom,
        max_chat_chars: usize,
        now_ms: u64,
    ) -> Result<Table, RestoreError> {
        let SavedRoom {
            table: record,
            moves,
            chat,
        } = saved;
        let r = record.rules;
        let rules = Rules::new(r.width, r.height, r.k, r.gravity)
            .map_err(|e| RestoreError::Rules(e.to_string()))?;
        let mut position = Position::new(rules);
        for (ply, saved) in moves.iter().enumerate() {
            let bad = |message: String| RestoreError::Move { ply, message };
            if saved.game != record.game || usize::try_from(saved.ply).ok() != Some(ply) {
                return Err(bad(format!(
                    "found game {} ply {}, expected game {} ply {ply}",
                    saved.game, saved.ply, record.game
                )));
            }
            let mv = rules
                .parse_move(&saved.mv)
                .map_err(|e| bad(format!("{:?}: {}", saved.mv, e.message)))?;
            position
                .try_play(mv)
                .map_err(|e| bad(format!("{:?}: {e}", saved.mv)))?;
        }
        let mut members = HashMap::default();
        let seats = record.seats.map(|seat| match seat {
            SavedSeat::Empty => Seat::Empty,
            SavedSeat::Human {
                session,
                name,
                rematch,
            } => {
                members.insert(
                    session,
                    Member {
                        name: name.into(),
                        attachment: None,
                    },
                );
                Seat::Human { session, rematch }
            }
            SavedSeat::Ai { level } => ai::seat(level),
        });
        let skip = chat.len().saturating_sub(CHAT_TAIL);
        let chat: VecDeque<ChatLine> = chat
            .into_iter()
            .skip(skip)
            .map(|c| ChatLine {
                seq: c.seq,
                from: c.from,
                seat: c.seat,
                text: c.text,
            })
            .collect();
        let seq = moves
            .iter()
            .map(|m| m.seq)
            .chain(chat.iter().map(|c| c.seq))
            .fold(record.seq, u64::max)
            .saturating_add(RESTORE_SEQ_GAP);
        let time_control = record.time_control.unwrap_or(TimeControl::None);
        // The clocks as the last record or the last move left them, whichever is later;
        // the side to move's clock starts again when the room first syncs, so the time
        // the server was down is not charged.
        let after: Vec<[u64; 2]> = moves.iter().filter_map(|m| m.clock).collect();
        let current = record
            .clock
            .filter(|c| usize::try_from(c.ply).ok() == Some(position.ply()))
            .map(|c| [c.x_ms, c.o_ms]);
        let clocks = if after.len() == moves.len() {
            Clocks::restored(time_control, after, current)
        } else {
            // Moves saved without their clocks (a room saved before its clock was
            // known): start the clocks afresh rather than guess.
            Clocks::new(time_control)
        };
        let ending = record
            .ending
            .or(record.resigned.map(|winner| Ending::Resigned { winner }));
        let mut table = Table {
            id: record.id,
            name: record.name,
            private: record.private,
            creator: record.creator,
            hints: record.hints,
            // Nobody is connected to a restored room, so nobody waits for an analysis.
            pending_analysis: None,
            analysis_replies: Vec::new(),
            max_chat_chars,
            seq,
            game: record.game,
            start_reported: position.ply() > 0,
            position,
            ending,
            time_control,
            takebacks: record.takebacks,
            clocks,
            now: Instant::now(),
            offer: None,
            ai_verdict: None,
            rewound: false,
            over_reported: false,
            seats,
            members,
            spectators: Vec::new(),
            pending_ai: None,
            next_job: 1,
            chat,
            clock: GameClock::restored(
                record.started_at,
                moves.iter().map(|m| m.ms).collect(),
                now_ms,
            ),
            last_game: record.last_game,
        };
        table.over_reported = table.over();
        table.sync_clocks();
        Ok(table)
    }
}

fn saved_chat(line: &ChatLine) -> SavedChat {
    SavedChat {
        seq: line.seq,
        from: line.from.clone(),
        seat: line.seat,
        text: line.text.clone(),
    }
}
