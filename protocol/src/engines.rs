//! External engines on the wire: the name a host gives a Gomocup engine, which a client
//! seats with `{"kind":"engine","name":…}`, and what `engines` says each one plays.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest engine name, in bytes (its characters are ASCII).
pub const MAX_ENGINE_NAME: usize = 24;

/// The name under which a host offers an external engine: 1 to [`MAX_ENGINE_NAME`] ASCII
/// letters, digits, `-`, `_` or `.`. Kept inline so that it is `Copy`, like the rest of
/// a seat plan.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EngineName {
    bytes: [u8; MAX_ENGINE_NAME],
    len: u8,
}

/// Why a text is not an engine name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadEngineName;

impl fmt::Display for BadEngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an engine name is 1 to {MAX_ENGINE_NAME} ASCII letters, digits, '-', '_' or '.'"
        )
    }
}

impl std::error::Error for BadEngineName {}

impl EngineName {
    /// The name `text`, if it is one.
    ///
    /// # Errors
    /// [`BadEngineName`] when it is empty, too long, or has another character.
    pub fn new(text: &str) -> Result<EngineName, BadEngineName> {
        let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
        if text.is_empty() || text.len() > MAX_ENGINE_NAME || !text.bytes().all(ok) {
            return Err(BadEngineName);
        }
        let mut bytes = [0; MAX_ENGINE_NAME];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        // Fits: at most MAX_ENGINE_NAME (24) bytes.
        let len = text.len() as u8;
        Ok(EngineName { bytes, len })
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored, so this never fails; an empty name would be the
        // fallback, never a panic.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl fmt::Display for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl std::str::FromStr for EngineName {
    type Err = BadEngineName;
    fn from_str(text: &str) -> Result<EngineName, BadEngineName> {
        EngineName::new(text)
    }
}

impl Serialize for EngineName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EngineName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<EngineName, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        EngineName::new(&text).map_err(serde::de::Error::custom)
    }
}

/// An external engine the server offers, as `engines` lists it: it plays five in a row
/// (freestyle: five or more wins) without gravity, on the boards it accepted when the
/// server probed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// The name to seat it with.
    pub name: EngineName,
    /// What the engine says of itself (its ABOUT line), for people.
    pub about: String,
    /// Stones in a row it plays for: always 5.
    pub k: u32,
    /// The sides of the square boards it plays, smallest first.
    pub sides: Vec<u32>,
    /// Whether it also plays rectangular boards whose sides are both in `sides`' range.
    pub rectangles: bool,
}

impl EngineInfo {
    /// Whether it plays a board of `width` × `height` with `k` in a row and `gravity`.
    pub fn plays(&self, width: u32, height: u32, k: u32, gravity: bool) -> bool {
        if gravity || k != self.k {
            return false;
        }
        if width == height {
            return self.sides.contains(&width);
        }
        let (Some(&low), Some(&high)) = (self.sides.first(), self.sides.last()) else {
            return false;
        };
        self.rectangles && (low..=high).contains(&width) && (low..=high).contains(&height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_plain_ascii() {
        assert_eq!(
            EngineName::new("rapfi-1.0_x").unwrap().as_str(),
            "rapfi-1.0_x"
        );
        for bad in ["", "a b", "é", &"x".repeat(25)] {
            assert_eq!(EngineName::new(bad), Err(BadEngineName), "{bad:?}");
        }
        let json = serde_json::to_string(&EngineName::new("pbrain").unwrap()).unwrap();
        assert_eq!(json, "\"pbrain\"");
        assert!(serde_json::from_str::<EngineName>("\"no way\"").is_err());
    }

    #[test]
    fn plays_its_squares_and_rectangles_between() {
        let info = EngineInfo {
            name: EngineName::new("e").unwrap(),
            about: String::new(),
            k: 5,
            sides: vec![10, 15, 19],
            rectangles: true,
        };
        assert!(info.plays(15, 15, 5, false));
        assert!(!info.plays(12, 12, 5, false));
        assert!(info.plays(12, 19, 5, false));
        assert!(!info.plays(9, 19, 5, false));
        assert!(!info.plays(15, 15, 4, false));
        assert!(!info.plays(15, 15, 5, true));
    }
}
