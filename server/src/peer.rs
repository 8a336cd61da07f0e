//! What a room holds of a connection: its bounded outbound queue and a way to close it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Poll;

use futures_util::task::AtomicWaker;
use inarow_protocol::{ByeReason, ServerFrame, ServerMessage, encode};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::outbox::{self, TrySendError};

/// Asks a connection to close with a reason; the first reason given wins.
///
/// The connection's loop polls [`Kick::kicked`] only when it woke the task (behind
/// `gate::Gates`), and it is cheap when it does: a flag and a waker in this one
/// allocation, beside the server's shared goodbye token. (A child token of the goodbye
/// cost two locks of its own, on memory that was cold by the time a busy server came back
/// to the connection.)
#[derive(Debug, Default)]
pub(crate) struct Kick {
    reason: OnceLock<ByeReason>,
    /// Set by [`Kick::kick`].
    kicked: AtomicBool,
    /// The connection's task, woken by [`Kick::kick`].
    waker: AtomicWaker,
    /// The server's goodbye, which ends every connection without a reason.
    goodbye: CancellationToken,
}

impl Kick {
    /// A kick switch that `goodbye` also trips (without a reason).
    pub(crate) fn new(goodbye: CancellationToken) -> Kick {
        Kick {
            goodbye,
            ..Kick::default()
        }
    }

    /// Asks the connection to say `bye` with `reason` and close.
    pub(crate) fn kick(&self, reason: ByeReason) {
        let _ = self.reason.set(reason);
        self.kicked.store(true, Ordering::Release);
        self.waker.wake();
    }

    /// The reason given, once kicked; `None` if the connection was not kicked, or only
    /// by the server's goodbye.
    pub(crate) fn reason(&self) -> Option<ByeReason> {
        self.reason.get().copied()
    }

    /// Completes when the connection has been kicked (or the goodbye has come).
    pub(crate) async fn kicked(&self) {
        let goodbye = self.goodbye.cancelled();
        let mut goodbye = std::pin::pin!(goodbye);
        std::future::poll_fn(|cx| {
            if self.kicked.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            self.waker.register(cx.waker());
            // A kick between the check and the registration woke nobody: look again.
            if self.kicked.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            goodbye.as_mut().poll(cx)
        })
        .await;
    }
}

/// Why a frame was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Undelivered {
    /// The queue was full: the connection has been told to close as too slow.
    TooSlow,
    /// The connection has ended.
    Gone,
}

/// Which attachment of its session a connection is: each `hello` gets a larger number
/// than the one before, so a room or the session registry can tell the newest connection
/// of a session from a stale one. Not a connection id: one connection keeps its id for
/// life, while its attachment is given by `hello`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Attachment(pub(crate) u64);

impl Attachment {
    /// The attachment of a connection that has not said `hello`; rooms never see it.
    pub(crate) const NONE: Attachment = Attachment(0);
}

/// A cloneable handle on one connection's outbound queue.
#[derive(Debug, Clone)]
pub(crate) struct Peer {
    /// The connection's attachment to its session.
    pub(crate) attachment: Attachment,
    /// The protocol version the connection's `hello` asked for: rooms send a version 2
    /// connection `moved` after a move, and a version 1 connection the whole snapshot.
    pub(crate) protocol: u32,
    outbound: outbox::Sender,
    kick: Arc<Kick>,
}

impl Peer {
    /// A handle on a connection's queue and kick switch, speaking the oldest protocol
    /// until `hello` says otherwise ([`Peer::reissued`]).
    pub(crate) fn new(attachment: Attachment, outbound: outbox::Sender, kick: Arc<Kick>) -> Peer {
        Peer {
            attachment,
            protocol: inarow_protocol::PROTOCOL_VERSIONS[0],
            outbound,
            kick,
        }
    }

    /// The same connection under another attachment, speaking `protocol`.
    pub(crate) fn reissued(&self, attachment: Attachment, protocol: u32) -> Peer {
        Peer {
            attachment,
            protocol,
            ..self.clone()
        }
    }

    /// Whether the connection takes `moved` events instead of a snapshot after a move.
    pub(crate) fn lean(&self) -> bool {
        self.protocol >= 2
    }

    /// Queues an already encoded text frame without waiting. A full queue means the
    /// peer reads too slowly: it is kicked (`bye too_slow`) rather than slowing the sender.
    pub(crate) fn send_text(&self, text: impl Into<String>) -> Result<(), Undelivered> {
        self.send_raw(Message::text(text.into()))
    }

    /// Queues a server frame (see [`Peer::send_text`]).
    pub(crate) fn send(
        &self,
        message: ServerMessage,
        id: Option<inarow_protocol::RequestId>,
    ) -> Result<(), Undelivered> {
        if let ServerMessage::Error { code, .. } = &message {
            crate::metrics::error_sent(*code);
        }
        self.send_text(encode(&ServerFrame { message, id }))
    }

    /// Queues any WebSocket message (see [`Peer::send_text`]).
    pub(crate) fn send_raw(&self, message: Message) -> Result<(), Undelivered> {
        match self.outbound.try_send(message) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full) => {
                self.kick.kick(ByeReason::TooSlow);
                Err(Undelivered::TooSlow)
            }
            Err(TrySendError::Closed) => Err(Undelivered::Gone),
        }
    }
}
