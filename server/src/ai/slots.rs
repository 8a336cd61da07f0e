//! Gates: a fixed number of slots and the jobs waiting for one, served in the order of a
//! [`Line`]. The AI pool has two: searches, served by priority class and round-robin over
//! rooms ([`Rotation`]), and probes, AI seats first and then the smallest board first
//! ([`Smallest`]).
//!
//! A job holds a [`Pass`] from the moment it queues until it is done; dropping the pass,
//! even half-way (a task cancelled while it waits), gives back the place or the slot.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use inarow_protocol::RoomId;
use tokio::sync::{oneshot, watch};

use super::Priority;

/// The order in which a slots serves waiting jobs.
pub(super) trait Line: Default {
    /// What the order is decided by.
    type Key: Clone;
    /// Adds a job; `wake` gives it a slot.
    fn push(&mut self, key: &Self::Key, ticket: u64, wake: oneshot::Sender<()>);
    /// Takes the job to serve next.
    fn pop(&mut self) -> Option<oneshot::Sender<()>>;
    /// Takes back a job that stopped waiting; false if it was no longer waiting.
    fn remove(&mut self, key: &Self::Key, ticket: u64) -> bool;
    /// Waiting jobs that count in the slots's load.
    fn pressing(&self) -> usize;
}

/// Slots, and the jobs waiting for one.
pub(super) struct Slots<L: Line> {
    slots: usize,
    state: Mutex<State<L>>,
    /// Jobs holding a slot plus the pressing jobs waiting; published on every change so
    /// that running jobs can adapt to it.
    load: watch::Sender<usize>,
}

struct State<L> {
    running: usize,
    line: L,
    next_ticket: u64,
}

impl<L: Line> Slots<L> {
    /// A slots of `slots` slots (at least one).
    pub(super) fn new(slots: usize) -> Slots<L> {
        Slots {
            slots: slots.max(1),
            state: Mutex::new(State {
                running: 0,
                line: L::default(),
                next_ticket: 0,
            }),
            load: watch::Sender::new(0),
        }
    }

    /// The number of slots.
    pub(super) fn slots(&self) -> usize {
        self.slots
    }

    /// Follows the slots's load.
    pub(super) fn load(&self) -> watch::Receiver<usize> {
        self.load.subscribe()
    }

    fn lock(&self) -> MutexGuard<'_, State<L>> {
        // Every critical section leaves the state consistent before anything can panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a job under `key`; [`Pass::ready`] waits for its slot.
    pub(super) fn enter(&self, key: L::Key) -> Pass<'_, L> {
        let (wake, woken) = oneshot::channel();
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.line.push(&key, ticket, wake);
        self.dispatch(&mut state);
        Pass {
            slots: self,
            key,
            ticket,
            woken,
        }
    }

    /// Gives free slots to waiting jobs, and publishes the load.
    fn dispatch(&self, state: &mut State<L>) {
        while state.running < self.slots {
            let Some(wake) = state.line.pop() else { break };
            // A pass holds its receiver until it is dropped, and drops its place first,
            // so this cannot fail; if it did, the slot would simply stay free.
            if wake.send(()).is_ok() {
                state.running += 1;
            }
        }
        let load = state.running + state.line.pressing();
        self.load
            .send_if_modified(|old| std::mem::replace(old, load) != load);
    }
}

/// A job's place in a slots's line, then its slot.
pub(super) struct Pass<'a, L: Line> {
    slots: &'a Slots<L>,
    key: L::Key,
    ticket: u64,
    /// Woken when the job gets a slot. Held until the pass is dropped, so that a wake-up
    /// is only ever sent to a live pass, and always counted as a slot taken.
    woken: oneshot::Receiver<()>,
}

impl<L: Line> Pass<'_, L> {
    /// Waits for the slot.
    pub(super) async fn ready(&mut self) {
        // The sender stays in the line until the slots sends: this cannot fail.
        let _ = (&mut self.woken).await;
    }
}

impl<L: Line> Drop for Pass<'_, L> {
    fn drop(&mut self) {
        let mut state = self.slots.lock();
        // Not in the line any more means woken: the job held a slot.
        if !state.line.remove(&self.key, self.ticket) {
            state.running -= 1;
        }
        self.slots.dispatch(&mut state);
    }
}

/// Search jobs: every AI seat before any analysis and, within a class, one room at a
/// time in turn, so that no room's jobs crowd out another's.
#[derive(Default)]
pub(super) struct Rotation {
    classes: [Turns; Priority::CLASSES],
}

impl Line for Rotation {
    type Key = (Priority, RoomId);

    fn push(&mut self, (priority, room): &Self::Key, ticket: u64, wake: oneshot::Sender<()>) {
        self.classes[priority.index()].push(room, ticket, wake);
    }

    fn pop(&mut self) -> Option<oneshot::Sender<()>> {
        self.classes.iter_mut().find_map(Turns::pop)
    }

    fn remove(&mut self, (priority, room): &Self::Key, ticket: u64) -> bool {
        self.classes[priority.index()].remove(room, ticket)
    }

    /// AI seats waiting: analyses wait for them, so they do not shorten their budgets.
    fn pressing(&self) -> usize {
        self.classes[Priority::Seat.index()].len
    }
}

/// One class of search jobs, served one room at a time in turn.
#[derive(Default)]
struct Turns {
    /// Rooms with waiting jobs, in the order they are served.
    rooms: VecDeque<RoomId>,
    /// Each room's waiting jobs, oldest first.
    waiting: HashMap<RoomId, VecDeque<(u64, oneshot::Sender<()>)>>,
    /// Jobs waiting, over all rooms.
    len: usize,
}

impl Turns {
    fn push(&mut self, room: &RoomId, ticket: u64, wake: oneshot::Sender<()>) {
        let jobs = self.waiting.entry(room.clone()).or_default();
        if jobs.is_empty() {
            self.rooms.push_back(room.clone());
        }
        jobs.push_back((ticket, wake));
        self.len += 1;
    }

    /// The oldest job of the room whose turn it is; the room goes to the back of the
    /// line if it has more.
    fn pop(&mut self) -> Option<oneshot::Sender<()>> {
        let room = self.rooms.pop_front()?;
        let jobs = self.waiting.get_mut(&room)?;
        let (_, wake) = jobs.pop_front()?;
        self.len -= 1;
        if jobs.is_empty() {
            self.waiting.remove(&room);
        } else {
            self.rooms.push_back(room);
        }
        Some(wake)
    }

    fn remove(&mut self, room: &RoomId, ticket: u64) -> bool {
        let Some(jobs) = self.waiting.get_mut(room) else {
            return false;
        };
        let before = jobs.len();
        jobs.retain(|(t, _)| *t != ticket);
        let removed = before - jobs.len();
        self.len -= removed;
        if jobs.is_empty() {
            self.waiting.remove(room);
            self.rooms.retain(|r| r != room);
        }
        removed > 0
    }
}

/// Probes: AI seats' before analyses' (so that hints asked for in many rooms cannot delay
/// a seat's move even by their probes), then the one expected to be shortest first (the
/// smallest board), then the oldest.
#[derive(Default)]
pub(super) struct Smallest {
    waiting: BTreeMap<(usize, u32, u64), oneshot::Sender<()>>,
}

impl Line for Smallest {
    /// The job's priority class and the number of cells of its board.
    type Key = (Priority, u32);

    fn push(&mut self, (priority, cells): &Self::Key, ticket: u64, wake: oneshot::Sender<()>) {
        self.waiting
            .insert((priority.index(), *cells, ticket), wake);
    }

    fn pop(&mut self) -> Option<oneshot::Sender<()>> {
        self.waiting.pop_first().map(|(_, wake)| wake)
    }

    fn remove(&mut self, (priority, cells): &Self::Key, ticket: u64) -> bool {
        self.waiting
            .remove(&(priority.index(), *cells, ticket))
            .is_some()
    }

    fn pressing(&self) -> usize {
        self.waiting.len()
    }
}
