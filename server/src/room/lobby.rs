//! The room directory: which rooms exist, their handles, the public rooms' listings, and
//! how many open rooms each session created (the server's and each session's room caps).
//!
//! Generic over the handle type so that it knows nothing of rooms: rooms publish into
//! the directory, the directory never calls a room.

use foldhash::HashMap;
use std::sync::Mutex;

use inarow_protocol::{RoomId, RoomSummary, SessionId};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Room id characters: lower case letters and digits without the easily confused
/// `i`, `l`, `o`, `0` and `1`, since an id is also an invite code read out loud.
const ID_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
/// Length of a room id: 31^8 ≈ 8.5e11 codes, too many to guess a private room's.
const ID_LEN: usize = 8;

/// The directory of open rooms. A `std::sync::Mutex` suffices: every critical section is
/// a map operation, and none spans an `.await`.
pub(crate) struct Lobby<H> {
    max_rooms: usize,
    max_per_creator: usize,
    inner: Mutex<Directory<H>>,
}

struct Directory<H> {
    rooms: HashMap<RoomId, Listing<H>>,
    /// Open rooms per creating session (absent: none).
    created: HashMap<SessionId, usize>,
    rng: StdRng,
}

struct Listing<H> {
    handle: H,
    /// The session that created the room; the room counts against it until it closes.
    creator: SessionId,
    /// The latest summary of a public room; `None` for a private one (or before its first
    /// snapshot).
    summary: Option<RoomSummary>,
}

/// A room cap is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TooManyRooms {
    /// The server has its limit of rooms open.
    #[error("the server has {0} rooms open, its limit; try again later")]
    Server(usize),
    /// The creating session has its limit of rooms open.
    #[error(
        "you have {0} open rooms that you created, the limit for one session; a room counts \
         until it closes, which it does a while after everyone has left it"
    )]
    Creator(usize),
}

impl<H: Clone> Lobby<H> {
    /// An empty directory that admits at most `max_rooms` rooms, and `max_per_creator`
    /// rooms created by one session.
    pub(crate) fn new(max_rooms: usize, max_per_creator: usize) -> Lobby<H> {
        Lobby {
            max_rooms,
            max_per_creator,
            inner: Mutex::new(Directory {
                rooms: HashMap::default(),
                created: HashMap::default(),
                rng: StdRng::from_os_rng(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Directory<H>> {
        // A panic while holding the lock cannot leave the map inconsistent (each critical
        // section is a single map call), so a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a new room created by `creator` under a fresh unique id; `make` builds
    /// its handle for that id.
    ///
    /// # Errors
    /// [`TooManyRooms`] naming the cap reached: the creator's first, as it is the one a
    /// flooding client meets while everybody else still creates rooms.
    pub(crate) fn register(
        &self,
        creator: SessionId,
        make: impl FnOnce(RoomId) -> H,
    ) -> Result<H, TooManyRooms> {
        let mut dir = self.lock();
        let created = dir.created.get(&creator).copied().unwrap_or(0);
        if created >= self.max_per_creator {
            return Err(TooManyRooms::Creator(self.max_per_creator));
        }
        if dir.rooms.len() >= self.max_rooms {
            return Err(TooManyRooms::Server(self.max_rooms));
        }
        let id = loop {
            let code: String = (0..ID_LEN)
                .map(|_| char::from(ID_ALPHABET[dir.rng.random_range(0..ID_ALPHABET.len())]))
                .collect();
            let id = RoomId(code);
            if !dir.rooms.contains_key(&id) {
                break id;
            }
        };
        let handle = make(id.clone());
        dir.rooms.insert(
            id,
            Listing {
                handle: handle.clone(),
                creator,
                summary: None,
            },
        );
        *dir.created.entry(creator).or_default() += 1;
        Ok(handle)
    }

    /// Registers a room restored after a restart under its own id, whatever the caps
    /// say (it was admitted before the restart); false, and nothing registered, if the
    /// id is taken.
    pub(crate) fn restore(&self, id: RoomId, creator: SessionId, handle: H) -> bool {
        let mut dir = self.lock();
        if dir.rooms.contains_key(&id) {
            return false;
        }
        dir.rooms.insert(
            id,
            Listing {
                handle,
                creator,
                summary: None,
            },
        );
        *dir.created.entry(creator).or_default() += 1;
        true
    }

    /// The handle of a room, if it is open.
    pub(crate) fn get(&self, id: &RoomId) -> Option<H> {
        self.lock().rooms.get(id).map(|l| l.handle.clone())
    }

    /// Updates a room's public listing (`None` hides it).
    pub(crate) fn publish(&self, id: &RoomId, summary: Option<RoomSummary>) {
        if let Some(listing) = self.lock().rooms.get_mut(id) {
            listing.summary = summary;
        }
    }

    /// Forgets a closed room; it no longer counts against its creator.
    pub(crate) fn remove(&self, id: &RoomId) {
        let mut dir = self.lock();
        let Some(listing) = dir.rooms.remove(id) else {
            return;
        };
        if let Some(created) = dir.created.get_mut(&listing.creator) {
            *created = created.saturating_sub(1);
            if *created == 0 {
                dir.created.remove(&listing.creator);
            }
        }
    }

    /// The public rooms, by name then id.
    pub(crate) fn list(&self) -> Vec<RoomSummary> {
        let mut rooms: Vec<RoomSummary> = self
            .lock()
            .rooms
            .values()
            .filter_map(|l| l.summary.clone())
            .collect();
        rooms.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        rooms
    }

    /// Number of open rooms.
    pub(crate) fn len(&self) -> usize {
        self.lock().rooms.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(n: u128) -> SessionId {
        SessionId(uuid::Uuid::from_u128(n))
    }

    #[test]
    fn a_creator_meets_its_own_cap_before_the_server_is_full() {
        let lobby: Lobby<RoomId> = Lobby::new(5, 2);
        let (flooder, other) = (session(1), session(2));
        let first = lobby.register(flooder, |id| id).expect("first room");
        lobby.register(flooder, |id| id).expect("second room");
        assert_eq!(
            lobby.register(flooder, |id| id).err(),
            Some(TooManyRooms::Creator(2))
        );
        lobby
            .register(other, |id| id)
            .expect("others still create rooms");
        // A closed room stops counting.
        lobby.remove(&first);
        lobby.register(flooder, |id| id).expect("room freed");
        lobby.register(other, |id| id).expect("fourth room");
        lobby.register(session(3), |id| id).expect("fifth room");
        assert_eq!(
            lobby.register(session(4), |id| id).err(),
            Some(TooManyRooms::Server(5))
        );
        assert_eq!(lobby.len(), 5);
    }

    #[test]
    fn a_restored_room_keeps_its_id_and_counts_against_its_creator() {
        let lobby: Lobby<RoomId> = Lobby::new(1, 1);
        let id = RoomId::from("k7m2q9xa");
        assert!(lobby.restore(id.clone(), session(1), id.clone()));
        assert!(!lobby.restore(id.clone(), session(2), id.clone()), "taken");
        assert_eq!(lobby.get(&id), Some(id.clone()));
        assert_eq!(
            lobby.register(session(1), |id| id).err(),
            Some(TooManyRooms::Creator(1))
        );
        lobby.remove(&id);
        assert_eq!(lobby.len(), 0);
    }
}
