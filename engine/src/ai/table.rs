//! The transposition table: a fixed array of entries allocated once per AI (sized for
//! the rules, up to the AI's budget), always-replace.

use crate::rules::Rules;

/// Which side of the true value a stored score bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true value is exactly the score.
    Exact,
    /// The true value is at least the score.
    Lower,
    /// The true value is at most the score.
    Upper,
}

/// Remaining depth meaning "searched to the end": the score involves no heuristic.
pub(crate) const SOLVED: u16 = 0x3fff;

/// What a probe found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub score: i32,
    pub bound: Bound,
    pub depth: u16,
    /// The best move's canonical bit, if one was stored.
    pub mv: Option<u16>,
}

/// A fixed-size table indexed by the low bits of the key.
///
/// An entry is one `u128`: key (bits 0–63), score (64–95), best move's canonical bit plus
/// one (96–111, 0 = none), remaining depth (112–125) and bound (126–127: 1 exact, 2 lower,
/// 3 upper; 0 = empty slot). Plain integers let the allocation be zeroed lazily by the
/// system, so a fresh AI on a small board does not pay for touching every page.
pub(crate) struct Table {
    entries: Vec<u128>,
    /// The most entries this table may hold.
    capacity: usize,
}

impl Table {
    /// Bytes per entry.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<u128>();

    /// A table of at most `bytes` bytes (a power of two entries, at least 1024); nothing
    /// is allocated until [`Table::prepare`].
    pub fn new(bytes: usize) -> Table {
        let wanted = (bytes / Self::ENTRY_BYTES).max(1024);
        let capacity = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        Table {
            entries: Vec::new(),
            capacity,
        }
    }

    /// Empties the table and sizes it for `rules`: the full budget, or less on a board
    /// with few positions (3×3 has under 20,000). The AI picks a part of the budget
    /// (`prepare_within`); tests take the whole.
    #[cfg(test)]
    pub fn prepare(&mut self, rules: Rules) {
        self.prepare_within(rules, self.bytes());
    }

    /// As [`Table::prepare`], using at most `bytes` of the budget (at least 1024
    /// entries): a board solved by another search only needs a little table.
    pub fn prepare_within(&mut self, rules: Rules, bytes: usize) {
        let cap = (bytes / Self::ENTRY_BYTES).clamp(1024, self.capacity.max(1024));
        let cap = if cap.is_power_of_two() {
            cap
        } else {
            cap.next_power_of_two() / 2
        };
        let positions = 3f64.powi(rules.cells() as i32) / 4.0;
        let len = if positions < cap as f64 {
            (positions as usize).next_power_of_two().max(1024)
        } else {
            cap
        };
        if self.entries.len() == len {
            self.entries.fill(0);
        } else {
            self.entries = vec![0; len];
        }
    }

    /// Frees the entries; the next [`Table::prepare`] allocates them again.
    pub fn release(&mut self) {
        self.entries = Vec::new();
    }

    /// Bytes the table holds now (none before the first `prepare` and after `release`).
    #[cfg(test)]
    pub fn allocated_bytes(&self) -> usize {
        self.entries.len() * Self::ENTRY_BYTES
    }

    /// Size in bytes of the budget.
    pub fn bytes(&self) -> usize {
        self.capacity * Self::ENTRY_BYTES
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 1)
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.entries[self.slot(key)];
        let tag = (e >> 126) as u8;
        if e as u64 != key || tag == 0 {
            return None;
        }
        let bound = match tag {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Hit {
            score: (e >> 64) as u32 as i32,
            bound,
            depth: (e >> 112) as u16 & SOLVED,
            mv: ((e >> 96) as u16).checked_sub(1),
        })
    }

    /// Stores a result, replacing whatever was in the slot.
    #[inline]
    pub fn store(&mut self, key: u64, score: i32, bound: Bound, depth: u16, mv: Option<u16>) {
        let tag: u128 = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let slot = self.slot(key);
        self.entries[slot] = u128::from(key)
            | u128::from(score as u32) << 64
            | u128::from(mv.map_or(0, |m| m + 1)) << 96
            | u128::from(depth.min(SOLVED)) << 112
            | tag << 126;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let mut table = Table::new(1 << 16);
        assert_eq!(Table::ENTRY_BYTES, 16);
        assert_eq!(table.bytes(), 1 << 16);
        table.prepare(Rules::connect4());
        assert!(table.probe(42).is_none());
        table.store(42, -17, Bound::Lower, SOLVED, Some(3));
        let hit = table.probe(42).expect("stored");
        assert_eq!(
            (hit.score, hit.bound, hit.depth, hit.mv),
            (-17, Bound::Lower, SOLVED, Some(3))
        );
        table.store(7, 1_000_123, Bound::Upper, 12, None);
        let hit = table.probe(7).expect("stored");
        assert_eq!(
            (hit.score, hit.bound, hit.depth, hit.mv),
            (1_000_123, Bound::Upper, 12, None)
        );
        // Same slot, other key: a miss, not a wrong answer.
        assert!(table.probe(42 + (1 << 20)).is_none());
        table.prepare(Rules::connect4());
        assert!(table.probe(42).is_none());
    }
}
