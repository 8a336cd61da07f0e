//! Checks across what several clients saw of one room: events arrive in order without gaps,
//! and every client that saw an event saw the same snapshot.

use inarow_protocol::RoomId;

use crate::client::Client;

/// Checks that `seqs` increase by exactly one from each event to the next. A repeated seq
/// is allowed: it is the same snapshot sent again to one client (a `join` for what it
/// already has), not a new event; tests compare such repeats for equality separately.
fn assert_consecutive(label: &str, seqs: &[u64]) {
    for pair in seqs.windows(2) {
        assert!(
            pair[1] == pair[0] + 1 || pair[1] == pair[0],
            "{label}: room event seq jumped from {} to {} (all: {seqs:?})",
            pair[0],
            pair[1]
        );
    }
}

/// Every client saw consecutive seqs, and whenever two clients saw the same seq they saw the
/// same snapshot (one room, one order).
pub fn assert_same_story(room: &RoomId, clients: &[&Client]) {
    for client in clients {
        assert_consecutive(client.label(), &client.seqs(room));
    }
    for a in clients {
        for b in clients {
            for sa in a.snapshots(room) {
                for sb in b.snapshots(room).iter().filter(|s| s.seq == sa.seq) {
                    assert_eq!(
                        &sa,
                        sb,
                        "{} and {} saw different snapshots with seq {}",
                        a.label(),
                        b.label(),
                        sa.seq
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_allowed_in_seqs() {
        assert_consecutive("t", &[3, 4, 4, 5]);
    }

    #[test]
    #[should_panic(expected = "room event seq jumped")]
    fn a_gap_in_seqs_fails() {
        assert_consecutive("t", &[3, 4, 4, 6]);
    }
}
