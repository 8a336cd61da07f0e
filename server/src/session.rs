//! The session registry: who is connected under which session, their resume tokens, the
//! rooms each session is in, and the grace period that holds a dropped session's seats.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use inarow_protocol::{RoomId, SessionId};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::peer::{Attachment, Kick};

/// All sessions, live or within their grace period.
#[derive(Default)]
pub(crate) struct Sessions {
    inner: Mutex<Registry>,
}

#[derive(Default)]
struct Registry {
    by_id: HashMap<SessionId, Entry>,
    by_token: HashMap<String, SessionId>,
    /// The last attachment given out.
    last_attachment: Attachment,
}

struct Entry {
    token: String,
    /// The connection serving the session, if any, and its kick switch.
    attached: Option<(Attachment, Arc<Kick>)>,
    /// Rooms the session entered; may list a room that has since closed or dropped it
    /// (rooms are asked, and the list corrected, on resume).
    rooms: BTreeSet<RoomId>,
    /// Cancelled when the session is resumed during its grace period.
    grace: Option<CancellationToken>,
}

/// A session opened by `hello`.
pub(crate) struct Opened {
    /// Its public id.
    pub(crate) session: SessionId,
    /// Its resume token.
    pub(crate) token: String,
    /// Whether an earlier session was resumed.
    pub(crate) resumed: bool,
    /// The attachment of the connection, larger than any earlier one's.
    pub(crate) attachment: Attachment,
    /// The rooms of a resumed session.
    pub(crate) rooms: Vec<RoomId>,
    /// The connection that served the session until now, to be told `bye replaced`.
    pub(crate) replaced: Option<Arc<Kick>>,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Every critical section is a few map operations; a poisoned lock is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Resumes the session named by `token` if it is live or within its grace, otherwise
    /// opens a new one; either way the calling connection is attached to it under a
    /// fresh attachment (given out under the lock, so attachments follow attach order).
    pub(crate) fn open(&self, token: Option<&str>, kick: Arc<Kick>) -> Opened {
        let mut reg = self.lock();
        reg.last_attachment = Attachment(reg.last_attachment.0 + 1);
        let attachment = reg.last_attachment;
        if let Some(session) = token.and_then(|t| reg.by_token.get(t).copied())
            && let Some(entry) = reg.by_id.get_mut(&session)
        {
            if let Some(grace) = entry.grace.take() {
                grace.cancel();
            }
            let replaced = entry
                .attached
                .replace((attachment, kick))
                .map(|(_, old)| old);
            return Opened {
                session,
                token: entry.token.clone(),
                resumed: true,
                attachment,
                rooms: entry.rooms.iter().cloned().collect(),
                replaced,
            };
        }
        let session = SessionId(Uuid::new_v4());
        let token = Uuid::new_v4().simple().to_string();
        reg.by_token.insert(token.clone(), session);
        reg.by_id.insert(
            session,
            Entry {
                token: token.clone(),
                attached: Some((attachment, kick)),
                rooms: BTreeSet::new(),
                grace: None,
            },
        );
        Opened {
            session,
            token,
            resumed: false,
            attachment,
            rooms: Vec::new(),
            replaced: None,
        }
    }

    /// Detaches `attachment` from `session`. When it was the one attached, the grace
    /// period starts: the returned token is cancelled if the session is resumed.
    pub(crate) fn detach(
        &self,
        session: SessionId,
        attachment: Attachment,
    ) -> Option<CancellationToken> {
        let mut reg = self.lock();
        let entry = reg.by_id.get_mut(&session)?;
        match entry.attached {
            Some((id, _)) if id == attachment => {
                entry.attached = None;
                let grace = CancellationToken::new();
                entry.grace = Some(grace.clone());
                Some(grace)
            }
            _ => None,
        }
    }

    /// Ends a session whose grace period (`grace`) ran out without a resume; returns the
    /// rooms it was in, or `None` if it was resumed meanwhile.
    pub(crate) fn expire(
        &self,
        session: SessionId,
        grace: &CancellationToken,
    ) -> Option<Vec<RoomId>> {
        let mut reg = self.lock();
        let entry = reg.by_id.get(&session)?;
        if grace.is_cancelled() || entry.attached.is_some() {
            return None;
        }
        let entry = reg.by_id.remove(&session)?;
        reg.by_token.remove(&entry.token);
        Some(entry.rooms.into_iter().collect())
    }

    /// Records that `session` entered `room`.
    pub(crate) fn enter(&self, session: SessionId, room: &RoomId) {
        if let Some(entry) = self.lock().by_id.get_mut(&session) {
            entry.rooms.insert(room.clone());
        }
    }

    /// Records that `session` left `room`.
    pub(crate) fn exit(&self, session: SessionId, room: &RoomId) {
        if let Some(entry) = self.lock().by_id.get_mut(&session) {
            entry.rooms.remove(room);
        }
    }

    /// The rooms `session` entered.
    pub(crate) fn rooms(&self, session: SessionId) -> Vec<RoomId> {
        self.lock()
            .by_id
            .get(&session)
            .map(|e| e.rooms.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Number of sessions, live or held.
    pub(crate) fn len(&self) -> usize {
        self.lock().by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_resumes_its_session_and_replaces_the_old_connection() {
        let s = Sessions::default();
        let k1 = Arc::new(Kick::default());
        let a = s.open(None, k1.clone());
        assert!(!a.resumed);
        assert_eq!(a.token.len(), 32);
        s.enter(a.session, &RoomId::from("room1"));
        let b = s.open(Some(&a.token), Arc::new(Kick::default()));
        assert!(b.resumed);
        assert!(b.attachment > a.attachment);
        assert_eq!(b.session, a.session);
        assert_eq!(b.rooms, vec![RoomId::from("room1")]);
        assert!(b.replaced.is_some_and(|k| Arc::ptr_eq(&k, &k1)));
        // The replaced connection's end starts no grace period.
        assert!(s.detach(a.session, a.attachment).is_none());
    }

    #[test]
    fn an_unknown_token_opens_a_new_session() {
        let s = Sessions::default();
        let a = s.open(Some("nope"), Arc::new(Kick::default()));
        assert!(!a.resumed);
        assert_ne!(a.token, "nope");
    }

    #[test]
    fn a_session_expires_after_its_grace_unless_resumed() {
        let s = Sessions::default();
        let a = s.open(None, Arc::new(Kick::default()));
        s.enter(a.session, &RoomId::from("r"));
        let grace = s
            .detach(a.session, a.attachment)
            .expect("attached connection detaches");
        let b = s.open(Some(&a.token), Arc::new(Kick::default()));
        assert!(b.resumed);
        assert!(grace.is_cancelled());
        assert!(s.expire(a.session, &grace).is_none());
        let grace = s
            .detach(a.session, b.attachment)
            .expect("attached connection detaches");
        assert_eq!(s.expire(a.session, &grace), Some(vec![RoomId::from("r")]));
        assert_eq!(s.len(), 0);
        let c = s.open(Some(&a.token), Arc::new(Kick::default()));
        assert!(!c.resumed, "an expired token opens a new session");
    }
}
