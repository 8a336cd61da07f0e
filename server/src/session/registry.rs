//! The session registry: who is connected under which session, their resume tokens, the
//! rooms each session is in, the grace period that holds a dropped session's seats, and
//! how many sessions each address holds.
//!
//! A token is a selector and a verifier in hex: the selector finds the session in a map
//! (so a lookup's timing says nothing about the secret), the verifier's SHA-256 is
//! compared in constant time with the one kept. Only the hash is kept, in memory and in
//! the store (`SessionRecord`), so a copy of the data file resumes nobody. Every resume
//! issues a new token and retires the old one, so a stolen token works at most once, and
//! the connection it displaces is told `bye replaced`. Tokens are never logged.
//!
//! After a restart the saved sessions come back detached ([`Sessions::restore`]), each
//! with a fresh grace period in which its token resumes it.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use inarow_protocol::{RoomId, SessionId};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::net::admission::AddressKey;
use crate::net::{Attachment, Kick};
pub(crate) use crate::store::saved::SessionRecord;

/// Bytes of a token's selector (its first 16 hex digits).
const SELECTOR_BYTES: usize = 8;
/// Bytes of a token's verifier (its last 32 hex digits): the secret part.
const VERIFIER_BYTES: usize = 16;
/// Length of a token in hex digits.
pub(crate) const TOKEN_LEN: usize = 2 * (SELECTOR_BYTES + VERIFIER_BYTES);

/// All sessions, live or within their grace period.
pub(crate) struct Sessions {
    /// Sessions one address may hold.
    max_per_address: usize,
    inner: Mutex<Registry>,
}

struct Registry {
    by_id: HashMap<SessionId, Entry>,
    /// Sessions by their token's selector.
    by_selector: HashMap<String, SessionId>,
    /// Sessions held per address (that opened them).
    per_address: HashMap<AddressKey, usize>,
    /// The last attachment given out.
    last_attachment: Attachment,
    /// Where tokens come from: a CSPRNG seeded by the operating system.
    rng: StdRng,
}

struct Entry {
    /// The current token's selector (hex), the key of `by_selector`.
    selector: String,
    /// SHA-256 of the current token's verifier (its hex text).
    verifier_hash: [u8; 32],
    /// The display name of its last `hello`.
    name: String,
    /// The address that opened the session, whose count it is in; `None` for a session
    /// restored after a restart, which counts against no address.
    address: Option<AddressKey>,
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
    /// Its resume token: new for every `hello`, resumed or not.
    pub(crate) token: String,
    /// Whether an earlier session was resumed.
    pub(crate) resumed: bool,
    /// The attachment of the connection, larger than any earlier one's.
    pub(crate) attachment: Attachment,
    /// The rooms of a resumed session.
    pub(crate) rooms: Vec<RoomId>,
    /// The connection that served the session until now, to be told `bye replaced`.
    pub(crate) replaced: Option<Arc<Kick>>,
    /// What the store keeps of the session now (its token rotated).
    pub(crate) record: SessionRecord,
}

/// SHA-256 of a verifier's hex text.
fn verifier_hash(verifier: &str) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    let mut hash = [0u8; 32];
    hash.copy_from_slice(digest.as_ref());
    hash
}

/// The address already holds its limit of sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "your address holds {limit} sessions, the limit; resume one with its token or try again later"
)]
pub(crate) struct TooManySessions {
    /// The limit.
    pub(crate) limit: usize,
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

impl Registry {
    /// A fresh (selector, verifier) whose selector is not in use.
    fn new_token(&mut self) -> (String, String) {
        loop {
            let mut selector = [0u8; SELECTOR_BYTES];
            let mut verifier = [0u8; VERIFIER_BYTES];
            self.rng.fill_bytes(&mut selector);
            self.rng.fill_bytes(&mut verifier);
            let selector = hex(&selector);
            if !self.by_selector.contains_key(&selector) {
                return (selector, hex(&verifier));
            }
        }
    }

    /// The session `token` names, if it is live or held and the token is its current one.
    fn find(&self, token: &str) -> Option<SessionId> {
        if token.len() != TOKEN_LEN {
            return None;
        }
        let (selector, verifier) = token.split_at_checked(2 * SELECTOR_BYTES)?;
        let session = *self.by_selector.get(selector)?;
        let entry = self.by_id.get(&session)?;
        bool::from(verifier_hash(verifier).ct_eq(&entry.verifier_hash)).then_some(session)
    }
}

impl Entry {
    fn record(&self, session: SessionId) -> SessionRecord {
        SessionRecord {
            session,
            name: self.name.clone(),
            selector: self.selector.clone(),
            verifier_hash: self.verifier_hash,
        }
    }
}

impl Sessions {
    /// An empty registry that lets one address hold `max_per_address` sessions.
    pub(crate) fn new(max_per_address: usize) -> Sessions {
        Sessions {
            max_per_address,
            inner: Mutex::new(Registry {
                by_id: HashMap::new(),
                by_selector: HashMap::new(),
                per_address: HashMap::new(),
                last_attachment: Attachment::default(),
                rng: StdRng::from_os_rng(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Every critical section is a few map operations; a poisoned lock is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Resumes the session named by `token` if it is live or within its grace, otherwise
    /// opens a new one for a peer at `ip`; either way the calling connection is attached
    /// to it under a fresh attachment (given out under the lock, so attachments follow
    /// attach order) and the session gets a new token, the old one no longer working.
    ///
    /// # Errors
    /// [`TooManySessions`] when a new session is needed and `ip`'s address holds its limit.
    pub(crate) fn open(
        &self,
        token: Option<&str>,
        name: &str,
        ip: IpAddr,
        kick: Arc<Kick>,
    ) -> Result<Opened, TooManySessions> {
        let mut reg = self.lock();
        let resumed = token.and_then(|t| reg.find(t));
        let address = AddressKey::of(ip);
        if resumed.is_none()
            && reg.per_address.get(&address).copied().unwrap_or(0) >= self.max_per_address
        {
            return Err(TooManySessions {
                limit: self.max_per_address,
            });
        }
        reg.last_attachment = Attachment(reg.last_attachment.0 + 1);
        let attachment = reg.last_attachment;
        let (selector, verifier) = reg.new_token();
        let token = format!("{selector}{verifier}");
        if let Some(session) = resumed
            && let Some(entry) = reg.by_id.get_mut(&session)
        {
            if let Some(grace) = entry.grace.take() {
                grace.cancel();
            }
            let replaced = entry
                .attached
                .replace((attachment, kick))
                .map(|(_, old)| old);
            let old_selector = std::mem::replace(&mut entry.selector, selector.clone());
            entry.verifier_hash = verifier_hash(&verifier);
            name.clone_into(&mut entry.name);
            let rooms = entry.rooms.iter().cloned().collect();
            let record = entry.record(session);
            reg.by_selector.remove(&old_selector);
            reg.by_selector.insert(selector, session);
            return Ok(Opened {
                session,
                token,
                resumed: true,
                attachment,
                rooms,
                replaced,
                record,
            });
        }
        let session = SessionId(Uuid::new_v4());
        reg.by_selector.insert(selector.clone(), session);
        *reg.per_address.entry(address).or_default() += 1;
        let entry = Entry {
            selector,
            verifier_hash: verifier_hash(&verifier),
            name: name.to_owned(),
            address: Some(address),
            attached: Some((attachment, kick)),
            rooms: BTreeSet::new(),
            grace: None,
        };
        let record = entry.record(session);
        reg.by_id.insert(session, entry);
        Ok(Opened {
            session,
            token,
            resumed: false,
            attachment,
            rooms: Vec::new(),
            replaced: None,
            record,
        })
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
        reg.by_selector.remove(&entry.selector);
        if let Some(address) = entry.address
            && let Some(held) = reg.per_address.get_mut(&address)
        {
            *held = held.saturating_sub(1);
            if *held == 0 {
                reg.per_address.remove(&address);
            }
        }
        Some(entry.rooms.into_iter().collect())
    }

    /// Brings back sessions saved before a restart, detached: each gets a grace period
    /// from now, whose token (returned with its id) is cancelled if it is resumed. A
    /// record whose id or selector is already known is skipped.
    pub(crate) fn restore(
        &self,
        records: impl IntoIterator<Item = SessionRecord>,
    ) -> Vec<(SessionId, CancellationToken)> {
        let mut reg = self.lock();
        let mut restored = Vec::new();
        for record in records {
            if reg.by_id.contains_key(&record.session)
                || reg.by_selector.contains_key(&record.selector)
            {
                tracing::warn!(session = %record.session, "saved session known twice; skipped");
                continue;
            }
            let grace = CancellationToken::new();
            reg.by_selector
                .insert(record.selector.clone(), record.session);
            reg.by_id.insert(
                record.session,
                Entry {
                    selector: record.selector,
                    verifier_hash: record.verifier_hash,
                    name: record.name,
                    address: None,
                    attached: None,
                    rooms: BTreeSet::new(),
                    grace: Some(grace.clone()),
                },
            );
            restored.push((record.session, grace));
        }
        restored
    }

    /// Gives `session` the display name `name` (already checked): the name a restart
    /// brings it back with. Returns its record for the store, `None` if it has ended.
    pub(crate) fn rename(&self, session: SessionId, name: &str) -> Option<SessionRecord> {
        let mut registry = self.lock();
        let entry = registry.by_id.get_mut(&session)?;
        name.clone_into(&mut entry.name);
        Some(entry.record(session))
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

    const HOME: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn open(s: &Sessions, token: Option<&str>) -> Opened {
        s.open(token, "ann", HOME, Arc::new(Kick::default()))
            .expect("under the address's limit")
    }

    #[test]
    fn a_token_resumes_its_session_once_and_replaces_the_old_connection() {
        let s = Sessions::new(8);
        let k1 = Arc::new(Kick::default());
        let a = s.open(None, "ann", HOME, k1.clone()).expect("opens");
        assert!(!a.resumed);
        assert_eq!(a.token.len(), TOKEN_LEN);
        assert!(a.token.bytes().all(|b| b.is_ascii_hexdigit()));
        s.enter(a.session, &RoomId::from("room1"));
        let b = open(&s, Some(&a.token));
        assert!(b.resumed);
        assert!(b.attachment > a.attachment);
        assert_eq!(b.session, a.session);
        assert_eq!(b.rooms, vec![RoomId::from("room1")]);
        assert!(b.replaced.is_some_and(|k| Arc::ptr_eq(&k, &k1)));
        // The replaced connection's end starts no grace period.
        assert!(s.detach(a.session, a.attachment).is_none());
        // The token rotated: the old one opens a new session, the new one resumes.
        assert_ne!(b.token, a.token);
        let stolen = open(&s, Some(&a.token));
        assert!(!stolen.resumed);
        assert_ne!(stolen.session, a.session);
        assert!(open(&s, Some(&b.token)).resumed);
    }

    #[test]
    fn unknown_and_malformed_tokens_open_a_new_session() {
        let s = Sessions::new(8);
        let a = open(&s, None);
        let mut wrong_verifier = a.token.clone();
        wrong_verifier.replace_range(TOKEN_LEN - 1.., "x");
        for token in ["nope", "", "é", &a.token[..TOKEN_LEN - 1], &wrong_verifier] {
            let b = open(&s, Some(token));
            assert!(!b.resumed, "{token:?}");
            assert_ne!(b.token, token);
        }
    }

    #[test]
    fn a_session_expires_after_its_grace_unless_resumed() {
        let s = Sessions::new(8);
        let a = open(&s, None);
        s.enter(a.session, &RoomId::from("r"));
        let grace = s
            .detach(a.session, a.attachment)
            .expect("attached connection detaches");
        let b = open(&s, Some(&a.token));
        assert!(b.resumed);
        assert!(grace.is_cancelled());
        assert!(s.expire(a.session, &grace).is_none());
        let grace = s
            .detach(a.session, b.attachment)
            .expect("attached connection detaches");
        assert_eq!(s.expire(a.session, &grace), Some(vec![RoomId::from("r")]));
        assert_eq!(s.len(), 0);
        let c = open(&s, Some(&b.token));
        assert!(!c.resumed, "an expired token opens a new session");
    }

    #[test]
    fn an_address_holds_at_most_its_limit_of_sessions_but_may_always_resume() {
        let s = Sessions::new(2);
        let a = open(&s, None);
        let _b = open(&s, None);
        let refused = s.open(None, "ann", HOME, Arc::new(Kick::default())).err();
        assert_eq!(refused, Some(TooManySessions { limit: 2 }));
        let other: IpAddr = "192.0.2.1".parse().expect("an address");
        assert!(
            s.open(None, "ann", other, Arc::new(Kick::default()))
                .is_ok()
        );
        // Resuming is not a new session.
        let a = open(&s, Some(&a.token));
        assert!(a.resumed);
        // An expired session frees its place.
        let grace = s.detach(a.session, a.attachment).expect("detaches");
        s.expire(a.session, &grace).expect("expires");
        assert!(!open(&s, None).resumed);
    }

    #[test]
    fn only_the_verifier_hash_is_kept_and_it_resumes_a_restored_session() {
        let s = Sessions::new(8);
        let a = open(&s, None);
        let record = a.record.clone();
        // The record holds the selector and a hash, never the secret half of the token.
        let (selector, verifier) = a.token.split_at(2 * SELECTOR_BYTES);
        assert_eq!(record.selector, selector);
        assert_ne!(&record.verifier_hash[..], verifier.as_bytes());
        assert_eq!(record.verifier_hash, verifier_hash(verifier));
        assert_eq!(record.name, "ann");

        // A new registry (after a restart) takes the record back, detached.
        let restarted = Sessions::new(8);
        let restored = restarted.restore([record.clone()]);
        assert_eq!(restored.len(), 1);
        let (session, grace) = &restored[0];
        assert_eq!(*session, a.session);
        // Twice is once.
        assert!(restarted.restore([record]).is_empty());
        // A wrong verifier with the right selector opens a new session.
        let mut wrong = a.token.clone();
        let last = if wrong.ends_with('0') { "1" } else { "0" };
        wrong.replace_range(TOKEN_LEN - 1.., last);
        assert!(!open(&restarted, Some(&wrong)).resumed);
        // The token resumes it and ends its grace; the rotated record differs.
        let b = open(&restarted, Some(&a.token));
        assert!(b.resumed);
        assert_eq!(b.session, a.session);
        assert!(grace.is_cancelled());
        assert_ne!(b.record.verifier_hash, a.record.verifier_hash);
        assert!(
            !open(&restarted, Some(&a.token)).resumed,
            "the old token is retired"
        );
    }

    #[test]
    fn a_restored_session_expires_after_its_grace() {
        let s = Sessions::new(8);
        let a = open(&s, None);
        let restarted = Sessions::new(1);
        let (session, grace) = restarted
            .restore([a.record])
            .pop()
            .expect("one session restored");
        restarted.enter(session, &RoomId::from("r"));
        assert_eq!(
            restarted.expire(session, &grace),
            Some(vec![RoomId::from("r")])
        );
        assert_eq!(restarted.len(), 0);
        // It counted against no address: the address may still open its one session.
        assert!(!open(&restarted, None).resumed);
    }
}
