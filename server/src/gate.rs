//! A gate in front of something a task polls among others: it is polled again only when
//! it woke the task (or the task asks for it), not on every wake-up of the task.
//!
//! A connection's task waits on several things at once: its socket, its outbound queue,
//! one timer and its kick switch. Nearly every wake-up is the queue's or the socket's,
//! yet each polled all four, and polling costs: a read that ends in "nothing yet" goes
//! through tokio-tungstenite, tungstenite and tokio's readiness (about 700 instructions);
//! the timer and the kick each re-register the task's waker (about 150 and 200). Behind
//! a gate each is polled with the gate's own waker, which notes the wake-up before it
//! wakes the task; a wake-up from anything else passes the gate by for about 30
//! instructions.
//!
//! Things that rarely wake the task (a connection's timer and kick switch) share
//! [`Gates`]: one note, a bit each, and one registration of the task's waker, made again
//! only after a wake-up. With a thousand connections the task's every poll finds what it
//! touches gone cold since the connection's last turn; two notes, each registered anew on
//! every poll, were two cache misses a poll where one load of a shared note is one. The
//! socket keeps a [`Gate`] of its own: it wakes the task about once a move, and a shared
//! note's waker is one more allocation to touch on each wake-up.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

/// See the module documentation. What every wake-up reads first (`repr(C)`).
#[repr(C)]
pub(crate) struct Gate {
    noted: Arc<Noted>,
    /// Poll at the next chance, woken or not.
    open: bool,
    /// The waker what is behind the gate is polled with: `noted`'s.
    waker: Waker,
}

/// The gate's waker: notes the wake-up, then wakes the task.
#[derive(Default)]
struct Noted {
    woken: AtomicBool,
    /// The task, as of its last poll through the gate.
    task: AtomicWaker,
}

impl Wake for Noted {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl Gate {
    /// A gate that lets the first poll through: nothing is registered behind it yet.
    pub(crate) fn new() -> Gate {
        let noted = Arc::new(Noted::default());
        Gate {
            waker: Waker::from(noted.clone()),
            noted,
            open: true,
        }
    }

    /// Polls `poll` with the gate's waker if it woke the task since its last poll (or the
    /// gate is open); pending without polling otherwise. Whatever `poll` registers the
    /// waker with wakes the task through the gate.
    pub(crate) fn poll<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        // The task is registered before the note is read, and the note cleared before the
        // poll: a wake-up at any point from here on polls the task again.
        self.noted.task.register(cx.waker());
        let woken = self.noted.woken.swap(false, Ordering::AcqRel);
        if !(woken || self.open) {
            return Poll::Pending;
        }
        self.open = false;
        poll(&mut Context::from_waker(&self.waker))
    }

    /// Whether what is behind the gate woke the task since its last poll through the gate.
    pub(crate) fn woken(&self) -> bool {
        self.noted.woken.load(Ordering::Acquire)
    }

    /// Lets the next poll through: what is behind the gate may be ready without waking
    /// anyone (a stream with more buffered, a timer just reset).
    pub(crate) fn open(&mut self) {
        self.open = true;
    }
}

/// `N` gates (at most 8) of one task in front of things that rarely wake it; see the
/// module documentation.
#[repr(C)]
pub(crate) struct Gates<const N: usize> {
    noted: Arc<Notes>,
    /// The task's waker as last registered in `noted`, while it is known to be there.
    registered: Option<Waker>,
    /// Wake-ups taken from `noted` and not yet acted on, a bit a gate.
    woken: u8,
    /// Gates to poll at the next chance, woken or not.
    open: u8,
    /// The waker each gate's contents are polled with: its bit's in `noted`. Boxed, and
    /// last (`repr(C)`): read only when a gate is polled, it would otherwise sit between
    /// the fields every wake-up reads.
    wakers: Box<[Waker; N]>,
}

/// What the wakers of [`Gates`] note, shared with them.
#[derive(Default)]
struct Notes {
    /// The gates whose contents woke the task, a bit each.
    woken: AtomicU8,
    /// The task, as of its last [`Gates::enter`] that registered it.
    task: AtomicWaker,
}

/// The waker of one of [`Gates`]: notes its bit, then wakes the task.
struct GateWaker {
    bit: u8,
    noted: Arc<Notes>,
}

impl Wake for GateWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.noted.woken.fetch_or(self.bit, Ordering::Release);
        self.noted.task.wake();
    }
}

impl<const N: usize> Gates<N> {
    /// Gates that let their first poll through: nothing is registered behind them yet.
    pub(crate) fn new() -> Gates<N> {
        const { assert!(N <= 8, "a gate is a bit of a byte") };
        let noted = Arc::new(Notes::default());
        Gates {
            wakers: Box::new(std::array::from_fn(|i| {
                Waker::from(Arc::new(GateWaker {
                    bit: 1 << i,
                    noted: noted.clone(),
                }))
            })),
            noted,
            woken: 0,
            open: u8::MAX,
            registered: None,
        }
    }

    /// Takes the wake-ups noted since the last call, with the task (`cx`) registered for
    /// the next: call it in every poll of the task, before [`Gates::poll`].
    pub(crate) fn enter(&mut self, cx: &Context<'_>) {
        // Only a gate's waker takes the registered waker out of `task`, and it notes its
        // bit first: with no bit noted, the task's waker is still there (a wake-up after
        // this look finds it and polls the task again), and the same waker need not be
        // registered anew. Otherwise it is registered before the notes are taken, so
        // that a wake-up at any point from here on polls the task again.
        if self.noted.woken.load(Ordering::Acquire) == 0
            && let Some(registered) = &self.registered
            && registered.will_wake(cx.waker())
        {
            return;
        }
        self.noted.task.register(cx.waker());
        let taken = self.noted.woken.swap(0, Ordering::AcqRel);
        self.woken |= taken;
        // A wake-up noted here may have taken the waker just registered out again (one
        // racing the registration wakes the task and leaves nothing registered): trust
        // a registration only once it sees no wake-up.
        self.registered = (taken == 0).then(|| cx.waker().clone());
    }

    /// Polls `poll` with gate `i`'s waker if its contents woke the task since their last
    /// poll (as of the last [`Gates::enter`]) or the gate is open; pending without
    /// polling otherwise. Whatever `poll` registers the waker with wakes the task through
    /// the gate.
    pub(crate) fn poll<T>(
        &mut self,
        i: usize,
        poll: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        let bit = 1 << i;
        if (self.woken | self.open) & bit == 0 {
            return Poll::Pending;
        }
        self.woken &= !bit;
        self.open &= !bit;
        poll(&mut Context::from_waker(&self.wakers[i]))
    }

    /// Lets gate `i`'s next poll through: its contents may be ready without waking anyone
    /// (a timer just reset, say).
    pub(crate) fn open(&mut self, i: usize) {
        self.open |= 1 << i;
    }
}

/// A task's waker, for tests: it counts its wake-ups.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct WakeCount(std::sync::atomic::AtomicUsize);

#[cfg(test)]
impl WakeCount {
    /// The wake-ups so far.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
impl Wake for WakeCount {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a polled inner future answers: ready or not.
    fn answer(ready: bool) -> Poll<()> {
        if ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    #[test]
    fn only_a_wake_up_through_the_gate_or_an_open_gate_polls_again() {
        let count = Arc::new(WakeCount::default());
        let task = Waker::from(count.clone());
        let mut cx = Context::from_waker(&task);
        let mut gate = Gate::new();
        let polls = std::cell::Cell::new(0);
        let registered = std::cell::RefCell::new(None::<Waker>);
        let mut poll = |gate: &mut Gate, ready: bool| {
            gate.poll(&mut cx, |inner| {
                polls.set(polls.get() + 1);
                *registered.borrow_mut() = Some(inner.waker().clone());
                answer(ready)
            })
        };

        // The first poll goes through, with the gate's waker.
        assert!(poll(&mut gate, false).is_pending());
        // Another wake-up of the task: the gate is passed by.
        assert!(poll(&mut gate, false).is_pending());
        assert_eq!(polls.get(), 1);
        let inner = registered.borrow_mut().take().expect("polled once");
        assert!(!inner.will_wake(&task));

        // What is behind the gate wakes it: the task is woken, and the next poll goes
        // through, once.
        inner.wake_by_ref();
        assert_eq!(count.count(), 1);
        assert!(poll(&mut gate, true).is_ready());
        assert!(poll(&mut gate, true).is_pending());
        assert_eq!(polls.get(), 2);
        // Opened by hand: through once more.
        gate.open();
        assert!(poll(&mut gate, true).is_ready());
        assert!(poll(&mut gate, true).is_pending());
        assert_eq!(polls.get(), 3);
    }

    #[test]
    fn gates_poll_only_what_woke_the_task_or_was_opened() {
        let count = Arc::new(WakeCount::default());
        let task = Waker::from(count.clone());
        let cx = Context::from_waker(&task);
        let mut gates = Gates::<2>::new();
        let polls = std::cell::Cell::new([0; 2]);
        let registered = std::cell::RefCell::new([None::<Waker>, None]);
        let poll = |gates: &mut Gates<2>, i: usize, ready: bool| {
            gates.poll(i, |inner| {
                let mut p = polls.get();
                p[i] += 1;
                polls.set(p);
                registered.borrow_mut()[i] = Some(inner.waker().clone());
                answer(ready)
            })
        };

        // The first poll of each goes through, with the gate's own waker.
        gates.enter(&cx);
        assert!(poll(&mut gates, 0, false).is_pending());
        assert!(poll(&mut gates, 1, false).is_pending());
        // Another wake-up of the task: both are passed by.
        gates.enter(&cx);
        assert!(poll(&mut gates, 0, false).is_pending());
        assert!(poll(&mut gates, 1, false).is_pending());
        assert_eq!(polls.get(), [1, 1]);
        let first = registered.borrow_mut()[0].take().expect("polled once");
        let second = registered.borrow_mut()[1].take().expect("polled once");
        assert!(!first.will_wake(&task));
        assert!(!first.will_wake(&second));

        // What is behind the first wakes it: the task is woken, and the first gate's next
        // poll goes through, once; the second's does not.
        first.wake_by_ref();
        assert_eq!(count.count(), 1);
        gates.enter(&cx);
        assert!(poll(&mut gates, 1, true).is_pending());
        assert!(poll(&mut gates, 0, true).is_ready());
        gates.enter(&cx);
        assert!(poll(&mut gates, 0, true).is_pending());
        assert_eq!(polls.get(), [2, 1]);
        // A wake-up taken by `enter` but not acted on in that poll is kept for the next.
        second.wake_by_ref();
        assert_eq!(count.count(), 2);
        gates.enter(&cx);
        gates.enter(&cx);
        assert!(poll(&mut gates, 1, true).is_ready());
        assert_eq!(polls.get(), [2, 2]);
        // Opened by hand: through once more.
        gates.open(0);
        assert!(poll(&mut gates, 0, true).is_ready());
        assert!(poll(&mut gates, 0, true).is_pending());
        assert_eq!(polls.get(), [3, 2]);
    }

    #[test]
    fn gates_registered_once_still_wake_the_task_and_follow_a_new_waker() {
        let count = Arc::new(WakeCount::default());
        let task = Waker::from(count.clone());
        let cx = Context::from_waker(&task);
        let mut gates = Gates::<1>::new();
        let mut inner = None;
        gates.enter(&cx);
        let _ = gates.poll(0, |cx| {
            inner = Some(cx.waker().clone());
            Poll::<()>::Pending
        });
        let inner = inner.expect("polled");
        // Polls with nothing noted skip the registration; the waker is still there.
        for _ in 0..3 {
            gates.enter(&cx);
        }
        inner.wake_by_ref();
        assert_eq!(count.count(), 1);
        // After a wake-up the task is registered anew, and woken by the next one too.
        gates.enter(&cx);
        inner.wake_by_ref();
        assert_eq!(count.count(), 2);
        // A task whose waker changed is registered with the new one.
        let other_count = Arc::new(WakeCount::default());
        let other = Waker::from(other_count.clone());
        gates.enter(&Context::from_waker(&other));
        gates.enter(&Context::from_waker(&other));
        inner.wake_by_ref();
        assert_eq!(other_count.count(), 1);
        assert_eq!(count.count(), 2);
    }
}
