//! Fan-out: the connections of a room's connected members, and delivery of one event to
//! all of them, encoded once per protocol version that needs it rather than once per
//! recipient.
//!
//! Delivery never waits: each connection has a bounded queue that is filled with
//! `try_send`, and a connection whose queue is full is reported so the room can drop it.

use foldhash::HashMap;

use inarow_protocol::{RequestId, ServerMessage, SessionId, encode};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::Member;
use super::table::Table;
use crate::net::Peer;

/// Who caused an event, and the id its copy must carry.
pub(super) type Requester = Option<(SessionId, Option<RequestId>)>;

/// The connections through which a room reaches its members, kept in line with the
/// table's record of who is connected under which attachment.
#[derive(Default)]
pub(super) struct Audience {
    peers: HashMap<SessionId, Peer>,
}

/// One message encoded once: the text everybody gets, and the requester's copy carrying
/// its request id.
struct Encoded {
    common: Utf8Bytes,
    own: Option<(SessionId, Utf8Bytes)>,
}

impl Encoded {
    /// `message` encoded for everybody, and for the requester with its id.
    fn new(message: &ServerMessage, requester: &Requester) -> Encoded {
        let common = encode(message);
        let own = match requester {
            Some((session, Some(id))) => Some((*session, Utf8Bytes::from(with_id(&common, id)))),
            _ => None,
        };
        Encoded {
            common: Utf8Bytes::from(common),
            own,
        }
    }

    /// The text for `session`: a cheap clone of a shared buffer.
    fn for_session(&self, session: SessionId) -> Utf8Bytes {
        match &self.own {
            Some((requester, text)) if *requester == session => text.clone(),
            _ => self.common.clone(),
        }
    }
}

/// `message`, the encoded JSON object of a [`ServerMessage`], as the `ServerFrame` that
/// carries request `id`: the requester's copy without encoding a snapshot a second time.
fn with_id(message: &str, id: &RequestId) -> String {
    // A frame is its message's fields with `id` beside them (`#[serde(flatten)]`), so
    // the object gains one field in front.
    match message.strip_prefix('{') {
        Some("}") => format!("{{\"id\":{}}}", encode(id)),
        Some(rest) => format!("{{\"id\":{},{rest}", encode(id)),
        // Every message encodes to an object (its `type` tag is a field of it).
        None => message.to_owned(),
    }
}

impl Audience {
    /// Brings the connections in line with `table` after it changed: `arrived`'s
    /// connection is taken if the table attached it, and connections the table no longer
    /// counts (members gone, connections replaced or dropped) are forgotten.
    pub(super) fn sync(&mut self, table: &Table, arrived: Option<&Member>) {
        if let Some(member) = arrived {
            self.take_connection(table, member);
        }
        self.peers
            .retain(|session, peer| table.attachment_of(*session) == Some(peer.attachment));
    }

    /// As [`Audience::sync`] after a request that cannot change who is in the room or
    /// through which connection (anything but joining and leaving): only the requester's
    /// connection may be new, and then only if the table already counts it.
    pub(super) fn arrive(&mut self, table: &Table, member: &Member) {
        self.take_connection(table, member);
        debug_assert!(
            self.peers
                .iter()
                .all(|(session, peer)| table.attachment_of(*session) == Some(peer.attachment)),
            "a request that was not a join or a leave changed the room's roster"
        );
    }

    /// Takes `member`'s connection if the table counts it and it is not already known.
    fn take_connection(&mut self, table: &Table, member: &Member) {
        let attachment = member.peer.attachment;
        let known = self
            .peers
            .get(&member.session)
            .is_some_and(|peer| peer.attachment == attachment);
        if !known && table.attachment_of(member.session) == Some(attachment) {
            self.peers.insert(member.session, member.peer.clone());
        }
    }

    /// Queues `message` to everybody; the requester's copy carries its request id when
    /// it has one. Returns the members whose connection could not take it.
    pub(super) fn broadcast(
        &self,
        message: &ServerMessage,
        requester: Requester,
    ) -> Vec<SessionId> {
        let encoded = Encoded::new(message, &requester);
        self.deliver(|session, _| encoded.for_session(session))
    }

    /// Queues a move to everybody: `moved` to protocol 2 connections, and the snapshot
    /// that `full` gives (made only if somebody needs it) to protocol 1 connections. As
    /// [`Audience::broadcast`] otherwise.
    pub(super) fn broadcast_move(
        &self,
        moved: &ServerMessage,
        full: impl FnOnce() -> ServerMessage,
        requester: Requester,
    ) -> Vec<SessionId> {
        let lean = Encoded::new(moved, &requester);
        let full = self
            .peers
            .values()
            .any(|peer| !peer.lean())
            .then(|| Encoded::new(&full(), &requester));
        self.deliver(|session, peer| match &full {
            Some(full) if !peer.lean() => full.for_session(session),
            _ => lean.for_session(session),
        })
    }

    /// Queues to every connection the text `text_for` gives it; returns the members whose
    /// connection could not take it.
    fn deliver(&self, text_for: impl Fn(SessionId, &Peer) -> Utf8Bytes) -> Vec<SessionId> {
        let mut dropped = Vec::new();
        for (session, peer) in &self.peers {
            if peer.send_text(text_for(*session, peer)).is_err() {
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

#[cfg(test)]
mod tests {
    use inarow_protocol::{ServerFrame, decode_server};

    use super::*;

    #[test]
    fn the_requesters_copy_is_the_frame_with_its_id() {
        for message in [
            ServerMessage::Left { room: "abc".into() },
            ServerMessage::Rooms { rooms: Vec::new() },
        ] {
            let common = encode(&message);
            for id in [RequestId::Number(7), RequestId::Text("a\"b".into())] {
                let spliced = decode_server(&with_id(&common, &id)).expect("decodes");
                let expected = ServerFrame {
                    message: message.clone(),
                    id: Some(id),
                };
                assert_eq!(spliced, expected);
            }
        }
    }
}
