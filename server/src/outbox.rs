//! A connection's outbound queue: bounded, many senders (its rooms, its own handler), one
//! reader (the connection's task), never waiting on either side.
//!
//! It replaces a tokio `mpsc` channel, whose lock-free list, cache-padded counters and
//! permit semaphore (a mutex taken for every message read) touched several cache lines a
//! message; on a busy server those lines had gone cold between a room's send and the
//! connection's read. Here a send is one short lock on a deque beside the reader's waker,
//! and the reader takes everything queued with one lock, swapping the deque for its own
//! empty one. The first message waiting sits in a slot beside the lock rather than in the
//! deque's buffer: most wake-ups find one message (a move's event), and the buffer was a
//! cache line more to write and read again, gone cold since the connection's last turn.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use futures_util::task::AtomicWaker;
use tokio_tungstenite::tungstenite::Message;

/// A new queue holding at most `capacity` messages not yet taken by the reader.
pub(crate) fn channel(capacity: usize) -> (Sender, Receiver) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            first: None,
            queued: VecDeque::new(),
            capacity: capacity.max(1),
            closed: false,
        }),
        reader: AtomicWaker::new(),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver {
            shared,
            taken: VecDeque::new(),
        },
    )
}

/// Why a message was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrySendError {
    /// The reader is that far behind.
    Full,
    /// The reader is gone.
    Closed,
}

struct Shared {
    state: Mutex<State>,
    /// The reader's task while it waits for messages.
    reader: AtomicWaker,
}

struct State {
    /// The oldest message waiting, if any.
    first: Option<Message>,
    /// The messages waiting behind `first` (never any without it).
    queued: VecDeque<Message>,
    capacity: usize,
    /// The reader has been dropped.
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock, and the deque is valid whatever happened.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The sending side; clones queue to the same reader.
#[derive(Clone)]
pub(crate) struct Sender {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("outbox::Sender")
    }
}

impl Sender {
    /// Queues `message` and wakes the reader, unless the queue is full or the reader gone.
    pub(crate) fn try_send(&self, message: Message) -> Result<(), TrySendError> {
        {
            let mut state = self.shared.lock();
            if state.closed {
                return Err(TrySendError::Closed);
            }
            if state.first.is_none() {
                state.first = Some(message);
            } else if 1 + state.queued.len() >= state.capacity {
                return Err(TrySendError::Full);
            } else {
                state.queued.push_back(message);
            }
        }
        self.shared.reader.wake();
        Ok(())
    }
}

/// The reading side: the connection's task.
pub(crate) struct Receiver {
    shared: Arc<Shared>,
    /// Messages taken from the queue in one swap, read one by one (all of them queued
    /// after the `first` taken with them, and before anything queued since). At most a
    /// queue's worth: the reader takes more only once these are written.
    taken: VecDeque<Message>,
}

impl Receiver {
    /// The next message, or pending (with the task's waker registered) if none is queued.
    /// Never ends: the connection holds a sender of its own.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Message> {
        if let Some(message) = self.take() {
            return Poll::Ready(message);
        }
        self.shared.reader.register(cx.waker());
        // A message queued between the look and the registration woke nobody.
        match self.take() {
            Some(message) => Poll::Ready(message),
            None => Poll::Pending,
        }
    }

    /// The next message if one is queued, without waiting.
    pub(crate) fn try_recv(&mut self) -> Option<Message> {
        self.take()
    }

    /// Waits for the next message.
    #[cfg(test)]
    pub(crate) async fn recv(&mut self) -> Message {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Forgets the registered waker: messages queued from now until the next
    /// [`Receiver::poll_recv`] wake nobody (the task reads them in the same wake-up).
    pub(crate) fn disarm(&mut self) {
        self.shared.reader.register(Waker::noop());
    }

    fn take(&mut self) -> Option<Message> {
        if let Some(message) = self.taken.pop_front() {
            return Some(message);
        }
        let mut state = self.shared.lock();
        let first = state.first.take()?;
        if !state.queued.is_empty() {
            std::mem::swap(&mut state.queued, &mut self.taken);
        }
        Some(first)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::WakeCount;

    fn text(n: usize) -> Message {
        Message::text(n.to_string())
    }

    #[test]
    fn messages_come_in_order_and_a_full_queue_refuses() {
        let (tx, mut rx) = channel(3);
        for n in 0..3 {
            tx.try_send(text(n)).unwrap();
        }
        assert_eq!(tx.try_send(text(3)), Err(TrySendError::Full));
        // Taking one frees the queue's places (the rest is held by the reader).
        assert_eq!(rx.try_recv(), Some(text(0)));
        tx.try_send(text(3)).unwrap();
        let read: Vec<Message> = std::iter::from_fn(|| rx.try_recv()).collect();
        assert_eq!(read, vec![text(1), text(2), text(3)]);
        assert_eq!(rx.try_recv(), None);
    }

    #[test]
    fn a_send_wakes_the_waiting_reader_once_and_a_disarmed_one_not_at_all() {
        let (tx, mut rx) = channel(8);
        let count = Arc::new(WakeCount::default());
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(rx.poll_recv(&mut cx).is_pending());
        tx.try_send(text(1)).unwrap();
        assert_eq!(count.count(), 1);
        assert_eq!(rx.poll_recv(&mut cx), Poll::Ready(text(1)));
        assert!(rx.poll_recv(&mut cx).is_pending());
        rx.disarm();
        tx.try_send(text(2)).unwrap();
        assert_eq!(count.count(), 1);
        assert_eq!(rx.poll_recv(&mut cx), Poll::Ready(text(2)));
    }

    #[test]
    fn senders_see_a_dropped_reader() {
        let (tx, rx) = channel(8);
        drop(rx);
        assert_eq!(tx.try_send(text(1)), Err(TrySendError::Closed));
    }
}
