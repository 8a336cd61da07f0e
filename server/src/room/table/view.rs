//! What a table looks like to its members and the lobby: room snapshots and `moved`
//! events, one per event, and the lobby's summary.
//!
//! A snapshot goes out as text written straight from the table (the table is a
//! [`RoomSource`]), never built as a [`RoomSnapshot`] first: that built a string for every
//! move played, every legal move and every board row only to copy each into the text.
//! [`Table::snapshot`] builds one for what reads snapshots as values.

use inarow_protocol::{
    Mark, OccupantView, RoomFields, RoomSnapshot, RoomSource, RoomSummary, SeatInfo, SeatView,
    Seats, StatusView, Strs, encode_room,
};

use super::{Seat, Table, seat_index};
use crate::snapshot::{self, RoomFacts};

impl Table {
    /// The `room` message of a new event, encoded: the sequence number moves on.
    pub(crate) fn next_room_text(&mut self) -> String {
        self.seq += 1;
        self.room_text()
    }

    /// The `room` message of the room as everybody sees it now (the last event's
    /// sequence number), encoded: the same text as encoding [`Table::snapshot`].
    pub(crate) fn room_text(&self) -> String {
        // About 640 bytes on a 3×3 board, and a little more rather than less as the cells
        // grow (board rows, legal moves, moves played).
        let rules = self.position.rules();
        let cells = (rules.width() * rules.height()) as usize;
        encode_room(self, 640 + 12 * cells)
    }

    /// The `moved` message of the move just played, encoded, as a new event (the sequence
    /// number moves on); `None`, and no event, if no move has been played.
    pub(crate) fn next_moved(&mut self) -> Option<String> {
        let moved = snapshot::moved_text(
            &self.id,
            self.seq + 1,
            self.game,
            &self.position,
            &self.status(),
        )?;
        self.seq += 1;
        Some(moved)
    }

    /// The `moved` event [`Table::next_moved`] would write, as a value.
    #[cfg(test)]
    pub(crate) fn next_moved_event(&self) -> Option<inarow_protocol::ServerMessage> {
        snapshot::moved(
            &self.id,
            self.seq + 1,
            self.game,
            &self.position,
            self.status(),
        )
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
            resigned: self.resigned,
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
        })
    }

    /// The two seats as members see them, X first.
    fn seat_infos(&self) -> Vec<SeatInfo> {
        [Mark::X, Mark::O]
            .into_iter()
            .map(|mark| SeatInfo::from(self.seat_view(mark)))
            .collect()
    }

    /// The seat at `mark` as members see it, its occupant's name borrowed.
    fn seat_view(&self, mark: Mark) -> SeatView<'_> {
        match &self.seats[seat_index(mark)] {
            Seat::Empty => SeatView {
                mark,
                occupant: OccupantView::Empty,
                rematch: false,
            },
            Seat::Human { session, rematch } => {
                let member = self.members.get(session);
                SeatView {
                    mark,
                    occupant: OccupantView::Human {
                        name: member.map_or("", |m| &m.name),
                        session: *session,
                        connected: member.is_some_and(|m| m.attachment.is_some()),
                    },
                    rematch: *rematch,
                }
            }
            Seat::Ai { level, .. } => SeatView {
                mark,
                occupant: OccupantView::Ai {
                    level: *level,
                    thinking: self.pending_ai.as_ref().is_some_and(|j| j.mark == mark),
                },
                // An AI is always ready for another game.
                rematch: self.over(),
            },
        }
    }
}

/// The table as the snapshot writer reads it: everything borrowed or written in place.
impl RoomSource for Table {
    fn fields(&self) -> RoomFields<'_> {
        RoomFields {
            id: &self.id,
            name: &self.name,
            rules: snapshot::rules(self.position.rules()),
            private: self.private,
            hints: self.hints,
            seq: self.seq,
            game: self.game,
            ply: u32::try_from(self.position.ply()).unwrap_or(u32::MAX),
            last_game: self.last_game,
        }
    }
    fn seats(&self, seats: &mut Seats<'_>) {
        seats.push(self.seat_view(Mark::X));
        seats.push(self.seat_view(Mark::O));
    }
    fn board(&self, rows: &mut Strs<'_>) {
        snapshot::board_rows(&self.position, rows);
    }
    fn moves(&self, moves: &mut Strs<'_>) {
        snapshot::moves_played(&self.position, moves);
    }
    fn legal_moves(&self, moves: &mut Strs<'_>) {
        snapshot::legal_moves(&self.position, self.turn().is_some(), moves);
    }
    fn status(&self) -> StatusView {
        self.status_view()
    }
    fn line(&self, cells: &mut Strs<'_>) {
        snapshot::winning_line(&self.position, cells);
    }
    fn last_move(&self, cell: &mut Strs<'_>) {
        snapshot::last_move(&self.position, cell);
    }
    fn spectators(&self, names: &mut Strs<'_>) {
        for session in &self.spectators {
            if let Some(member) = self.members.get(session) {
                names.push(&member.name);
            }
        }
    }
}
