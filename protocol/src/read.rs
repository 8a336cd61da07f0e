//! A hand-written reader for the client messages of every game: `play` (every move) and
//! `rematch`, `resign`, `sync` and `leave`, in the shape clients send them: an object of
//! `type`, `room`, for `play` also `ply` and `move`, and an optional numeric `id`, in any
//! order, with plain strings and whole numbers. Anything else (an escape in a string, an
//! unknown or repeated field, a string id, a number that is not a plain whole number) is
//! not read here: [`frame`] returns `None` and [`crate::decode_client`] reads the text
//! through serde as before, so the answer never depends on which path read it
//! (`tests/properties.rs` checks both agree on random frames). serde_json's derived
//! reader spent most of a `play`'s decoding matching field names and checking each
//! string for escapes a second time, and read the others through its buffering of
//! internally tagged enums.

use crate::{ClientFrame, ClientMessage, RequestId, RoomId};

/// The frame `text` holds, if it is one of the messages above in the plain shape.
pub(crate) fn frame(text: &str) -> Option<ClientFrame> {
    let mut r = Reader { text, at: 0 };
    let (mut kind, mut room, mut ply, mut mv, mut id) = (None, None, None, None, None);
    r.skip_space();
    r.expect(b'{')?;
    loop {
        r.skip_space();
        let key = r.string()?;
        r.skip_space();
        r.expect(b':')?;
        r.skip_space();
        match key {
            "type" if kind.is_none() => kind = Some(r.string()?),
            "room" if room.is_none() => room = Some(r.string()?),
            "move" if mv.is_none() => mv = Some(r.string()?),
            "ply" if ply.is_none() => ply = Some(u32::try_from(r.whole()?).ok()?),
            "id" if id.is_none() => id = Some(r.whole()?),
            _ => return None,
        }
        r.skip_space();
        match r.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    r.skip_space();
    if r.at != r.text.len() {
        return None;
    }
    let room = RoomId(room?.to_owned());
    let message = match (kind?, ply, mv) {
        ("play", Some(ply), Some(mv)) => ClientMessage::Play {
            room,
            ply,
            mv: mv.to_owned(),
        },
        // The others have no `ply` or `move`; serde ignores such unknown fields, and
        // the general path answers them.
        ("rematch", None, None) => ClientMessage::Rematch { room },
        ("resign", None, None) => ClientMessage::Resign { room },
        ("sync", None, None) => ClientMessage::Sync { room },
        ("leave", None, None) => ClientMessage::Leave { room },
        _ => return None,
    };
    Some(ClientFrame {
        message,
        id: id.map(RequestId::Number),
    })
}

/// The bytes that end a plain string's scan: its closing quote, or what this reader leaves
/// to serde (a backslash's escape; a control character, which JSON forbids raw).
const STOPS_STRING: [bool; 256] = {
    let mut stops = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        stops[b] = true;
        b += 1;
    }
    stops[b'"' as usize] = true;
    stops[b'\\' as usize] = true;
    stops
};

/// A cursor over the text's bytes.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn next(&mut self) -> Option<u8> {
        let b = *self.text.as_bytes().get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.as_bytes().get(self.at) {
            self.at += 1;
        }
    }

    /// A string without escapes or control characters (which JSON forbids raw).
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let bytes = self.text.as_bytes();
        let start = self.at;
        // One table lookup a byte: the scan was a third of a `play`'s reading with three
        // comparisons a byte.
        let mut end = start;
        while let Some(&b) = bytes.get(end) {
            if STOPS_STRING[usize::from(b)] {
                break;
            }
            end += 1;
        }
        if *bytes.get(end)? != b'"' {
            return None;
        }
        // Both ends sit next to an ASCII quote, so they are character boundaries of the
        // text and the slice needs no second check of its UTF-8.
        let text = self.text.get(start..end)?;
        self.at = end + 1;
        Some(text)
    }

    /// A whole number as JSON writes one: `0`, or digits without a leading zero, at most
    /// `u64::MAX`. A sign is not a digit; a fraction or exponent after the digits is not
    /// the `,` or `}` the caller wants next, so neither reads.
    fn whole(&mut self) -> Option<u64> {
        let start = self.at;
        let mut n: u64 = 0;
        while let Some(&b) = self.text.as_bytes().get(self.at)
            && b.is_ascii_digit()
        {
            n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            self.at += 1;
        }
        let digits = self.at - start;
        let leading_zero = digits > 1 && self.text.as_bytes()[start] == b'0';
        (digits > 0 && !leading_zero).then_some(n)
    }
}
