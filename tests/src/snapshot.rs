//! Reading room snapshots: which mark a cell holds, who sits in which seat and whether a
//! seated human is connected.

use inarow_protocol::{Mark, Occupant, RoomSnapshot, SessionId};

/// The mark on `board` at a cell given in notation (`"b2"`), or `None` if empty.
pub fn mark_at(board: &[String], cell: &str) -> Option<Mark> {
    let mut chars = cell.chars();
    let letter = chars.next().expect("a cell has a column letter");
    let col = usize::from(u8::try_from(letter).expect("column letters are ASCII") - b'a');
    let row: usize = chars.as_str().parse().expect("a cell has a row number");
    let line = &board[board.len() - row];
    match line.as_bytes()[col] {
        b'X' => Some(Mark::X),
        b'O' => Some(Mark::O),
        b'.' => None,
        other => panic!("unexpected board character {:?}", char::from(other)),
    }
}

/// The seat held by `session` in `snapshot`, if any.
pub fn seat_of(snapshot: &RoomSnapshot, session: SessionId) -> Option<Mark> {
    snapshot.seats.iter().find_map(|seat| match &seat.occupant {
        Occupant::Human { session: s, .. } if *s == session => Some(seat.mark),
        _ => None,
    })
}

/// The occupant of `mark`'s seat in `snapshot`.
pub fn occupant(snapshot: &RoomSnapshot, mark: Mark) -> &Occupant {
    &snapshot
        .seats
        .iter()
        .find(|seat| seat.mark == mark)
        .unwrap_or_else(|| panic!("snapshot without a {mark} seat: {snapshot:?}"))
        .occupant
}

/// Whether `mark`'s seat holds a human whose connection is up (`Some(true)`), down
/// (`Some(false)`), or no human (`None`).
pub fn human_connected(snapshot: &RoomSnapshot, mark: Mark) -> Option<bool> {
    match occupant(snapshot, mark) {
        Occupant::Human { connected, .. } => Some(*connected),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_in_notation_count_rows_from_the_bottom() {
        let board = vec!["X..".to_owned(), "...".to_owned(), "..O".to_owned()];
        assert_eq!(mark_at(&board, "a3"), Some(Mark::X));
        assert_eq!(mark_at(&board, "c1"), Some(Mark::O));
        assert_eq!(mark_at(&board, "b2"), None);
    }
}
