//! The room directory: which rooms exist, their handles, and the public rooms' listings.
//!
//! Generic over the handle type so that it knows nothing of rooms: rooms publish into
//! the directory, the directory never calls a room.

use std::collections::HashMap;
use std::sync::Mutex;

use inarow_protocol::{RoomId, RoomSummary};
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
    inner: Mutex<Directory<H>>,
}

struct Directory<H> {
    rooms: HashMap<RoomId, Listing<H>>,
    rng: StdRng,
}

struct Listing<H> {
    handle: H,
    /// The latest summary of a public room; `None` for a private one (or before its first
    /// snapshot).
    summary: Option<RoomSummary>,
}

/// The directory holds `max_rooms` rooms already.
#[derive(Debug, thiserror::Error)]
#[error("the directory holds its limit of rooms")]
pub(crate) struct TooManyRooms;

impl<H: Clone> Lobby<H> {
    /// An empty directory that admits at most `max_rooms` rooms.
    pub(crate) fn new(max_rooms: usize) -> Lobby<H> {
        Lobby {
            max_rooms,
            inner: Mutex::new(Directory {
                rooms: HashMap::new(),
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

    /// Registers a new room under a fresh unique id; `make` builds its handle for that id.
    pub(crate) fn register(&self, make: impl FnOnce(RoomId) -> H) -> Result<H, TooManyRooms> {
        let mut dir = self.lock();
        if dir.rooms.len() >= self.max_rooms {
            return Err(TooManyRooms);
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
                summary: None,
            },
        );
        Ok(handle)
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

    /// Forgets a closed room.
    pub(crate) fn remove(&self, id: &RoomId) {
        self.lock().rooms.remove(id);
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
