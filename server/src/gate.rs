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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

/// See the module documentation.
pub(crate) struct Gate {
    noted: Arc<Noted>,
    /// The waker what is behind the gate is polled with: `noted`'s.
    waker: Waker,
    /// Poll at the next chance, woken or not.
    open: bool,
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
                if ready {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
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
}
