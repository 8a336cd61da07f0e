//! What a table looks like to its members and the lobby: room snapshots, one per event.

use inarow_protocol::{Mark, Occupant, RoomSnapshot, SeatInfo};

use super::{Seat, Table, seat_index};
use crate::snapshot::{self, RoomFacts};

impl Table {
    /// The snapshot of a new event: the sequence number moves on.
    pub(crate) fn next_snapshot(&mut self) -> RoomSnapshot {
        self.seq += 1;
        self.snapshot()
    }

    /// The room as everybody sees it now (the last event's sequence number).
    pub(crate) fn snapshot(&self) -> RoomSnapshot {
        let over = self.status().is_over();
        let seats = [Mark::X, Mark::O]
            .into_iter()
            .map(|mark| match &self.seats[seat_index(mark)] {
                Seat::Empty => SeatInfo {
                    mark,
                    occupant: Occupant::Empty,
                    rematch: false,
                },
                Seat::Human { session, rematch } => {
                    let member = self.members.get(session);
                    SeatInfo {
                        mark,
                        occupant: Occupant::Human {
                            name: member.map(|m| m.name.clone()).unwrap_or_default(),
                            session: *session,
                            connected: member.is_some_and(|m| m.attachment.is_some()),
                        },
                        rematch: *rematch,
                    }
                }
                Seat::Ai { level, .. } => SeatInfo {
                    mark,
                    occupant: Occupant::Ai {
                        level: *level,
                        thinking: self.pending_ai.as_ref().is_some_and(|j| j.mark == mark),
                    },
                    // An AI is always ready for another game.
                    rematch: over,
                },
            })
            .collect();
        let spectators = self
            .spectators
            .iter()
            .filter_map(|s| self.members.get(s).map(|m| m.name.clone()))
            .collect();
        snapshot::snapshot(RoomFacts {
            id: &self.id,
            name: &self.name,
            private: self.private,
            seq: self.seq,
            game: self.game,
            seats,
            position: &self.position,
            resigned: self.resigned,
            spectators,
        })
    }
}
