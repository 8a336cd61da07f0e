//! Fan-out: the connections of a room's connected members, and delivery of one event to
//! all of them, encoded once rather than once per recipient.
//!
//! Delivery never waits: each connection has a bounded queue that is filled with
//! `try_send`, and a connection whose queue is full is reported so the room can drop it.

use std::collections::HashMap;

use inarow_protocol::{RequestId, ServerFrame, ServerMessage, SessionId, encode};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use super::Member;
use super::table::Table;
use crate::peer::Peer;

/// The connections through which a room reaches its members, kept in line with the
/// table's record of who is connected under which attachment.
#[derive(Default)]
pub(super) struct Audience {
    peers: HashMap<SessionId, Peer>,
}

impl Audience {
    /// Brings the connections in line with `table` after it changed: `arrived`'s
    /// connection is taken if the table attached it, and connections the table no longer
    /// counts (members gone, connections replaced or dropped) are forgotten.
    pub(super) fn sync(&mut self, table: &Table, arrived: Option<&Member>) {
        if let Some(member) = arrived
            && table.attachment_of(member.session) == Some(member.peer.attachment)
        {
            self.peers.insert(member.session, member.peer.clone());
        }
        self.peers
            .retain(|session, peer| table.attachment_of(*session) == Some(peer.attachment));
    }

    /// Queues `message` to everybody; the requester's copy carries its request id when
    /// it has one (encoded a second time, for that one recipient only). Returns the
    /// members whose connection could not take it.
    pub(super) fn broadcast(
        &self,
        message: ServerMessage,
        requester: Option<(SessionId, Option<RequestId>)>,
    ) -> Vec<SessionId> {
        let mut frame = ServerFrame { message, id: None };
        let common = Utf8Bytes::from(encode(&frame));
        let own = match requester {
            Some((session, Some(id))) => {
                frame.id = Some(id);
                Some((session, Utf8Bytes::from(encode(&frame))))
            }
            _ => None,
        };
        let mut dropped = Vec::new();
        for (session, peer) in &self.peers {
            let text = match &own {
                Some((requester, text)) if requester == session => text.clone(),
                _ => common.clone(),
            };
            if peer.send_raw(Message::Text(text)).is_err() {
                dropped.push(*session);
            }
        }
        dropped
    }

    /// Queues `message` (answering request `id`) to `session` alone. False if its
    /// connection could not take it; true if it did, or if `session` is not connected.
    pub(super) fn send_to(
        &self,
        session: SessionId,
        message: ServerMessage,
        id: Option<RequestId>,
    ) -> bool {
        self.peers
            .get(&session)
            .is_none_or(|peer| peer.send(message, id).is_ok())
    }
}
