//! What a table looks like to its members and the lobby: room snapshots and `moved`
//! events, one per event, and the lobby's summary.

use inarow_protocol::{
    ChatEntry, Mark, Occupant, RoomSnapshot, RoomSummary, SeatInfo, ServerMessage,
};

use super::{Seat, Table, seat_index};
use crate::snapshot::{self, RoomFacts};

impl Table {
    /// The `room` message of a new event: the sequence number moves on.
    pub(crate) fn next_room(&mut self) -> ServerMessage {
        self.seq += 1;
        self.room()
    }

    /// The `room` message of the room as everybody sees it now (the last event's sequence
    /// number).
    pub(crate) fn room(&self) -> ServerMessage {
        ServerMessage::Room {
            room: Box::new(self.snapshot()),
        }
    }

    /// The `room` message for a member who enters (joins, resumes or asks for `sync`): the
    /// room as everybody sees it, with its recent chat, so that a reload or a late
    /// spectator sees what was said.
    pub(crate) fn room_entered(&self) -> ServerMessage {
        let mut snapshot = self.snapshot();
        snapshot.chat = self
            .chat
            .iter()
            .map(|line| ChatEntry {
                seq: line.seq,
                from: line.from.clone(),
                seat: line.seat,
                text: line.text.clone(),
            })
            .collect();
        ServerMessage::Room {
            room: Box::new(snapshot),
        }
    }

    /// The `moved` message of the move just played, as a new event (the sequence number
    /// moves on); `None`, and no event, if no move has been played.
    pub(crate) fn next_moved(&mut self) -> Option<ServerMessage> {
        let moved = snapshot::moved(
            &self.id,
            self.seq + 1,
            self.game,
            &self.position,
            self.status(),
            self.clock_state(),
        )?;
        self.seq += 1;
        Some(moved)
    }

    /// The room as everybody sees it now (the last event's sequence number), as a value.
    pub(crate) fn snapshot(&self) -> RoomSnapshot {
        let spectators = self
            .spectators
            .iter()
            .filter_map(|s| self.members.get(s).map(|m| m.name.to_string()))
            .collect();
        snapshot::snapshot(RoomFacts {
            id: &self.id,
            name: &self.name,
            private: self.private,
            hints: self.hints,
            seq: self.seq,
            game: self.game,
            seats: self.seat_infos(),
            position: &self.position,
            ending: self.ending,
            time_control: self.time_control(),
            takebacks: self.takebacks,
            clock: self.clock_state(),
            offer: self.offer,
            spectators,
            last_game: self.last_game,
        })
    }

    /// The room's listing in the lobby; `None` for a private room, which is not listed.
    pub(crate) fn summary(&self) -> Option<RoomSummary> {
        if self.private {
            return None;
        }
        Some(RoomSummary {
            id: self.id.clone(),
            name: self.name.clone(),
            rules: snapshot::rules(self.position.rules()),
            seats: self.seat_infos(),
            status: self.status(),
            spectators: u32::try_from(
                self.spectators
                    .iter()
                    .filter(|s| self.members.contains_key(s))
                    .count(),
            )
            .unwrap_or(u32::MAX),
            time_control: self.time_control(),
        })
    }

    /// The two seats as members see them, X first.
    fn seat_infos(&self) -> Vec<SeatInfo> {
        [Mark::X, Mark::O]
            .into_iter()
            .map(|mark| self.seat_info(mark))
            .collect()
    }

    /// The seat at `mark` as members see it.
    fn seat_info(&self, mark: Mark) -> SeatInfo {
        match &self.seats[seat_index(mark)] {
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
                        name: member.map_or_else(String::new, |m| m.name.to_string()),
                        session: *session,
                        connected: member.is_some_and(|m| m.attachment.is_some()),
                    },
                    rematch: *rematch,
                }
            }
            Seat::Ai { level, engine, .. } => SeatInfo {
                mark,
                occupant: Occupant::Ai {
                    level: *level,
                    engine: *engine,
                    thinking: self.pending_ai.as_ref().is_some_and(|j| j.mark == mark),
                },
                // An AI is always ready for another game.
                rematch: self.over(),
            },
        }
    }
}
