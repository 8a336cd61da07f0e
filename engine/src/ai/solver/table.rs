//! The solver's transposition table: a lower and an upper bound on the score (a byte each) and a
//! truncated key, in a prime number of slots, always-replace (Pons' design).
//!
//! A key is `width * (height + 1)` bits. The slot is `key % len` and the stored part is
//! `key mod 2^K::BITS`; since `len` is odd (prime), the two together name the key exactly
//! whenever `len * 2^K::BITS` exceeds every key (Chinese remainder theorem). The caller
//! picks `u32` stored keys when that holds and `u64` otherwise, so a hit is never another
//! position's.

/// The stored part of a key.
pub(crate) trait StoredKey: Copy + Default + Eq + Send + Sync + 'static {
    /// Bits kept.
    const BITS: u32;
    /// The kept bits of `key`.
    fn truncate(key: u64) -> Self;
}

impl StoredKey for u32 {
    const BITS: u32 = 32;
    #[inline]
    fn truncate(key: u64) -> u32 {
        key as u32
    }
}

impl StoredKey for u64 {
    const BITS: u32 = 64;
    #[inline]
    fn truncate(key: u64) -> u64 {
        key
    }
}

/// Fixed-size table of one-byte values; 0 means empty.
pub(crate) struct PartialTable<K> {
    keys: Vec<K>,
    /// Per slot, a lower and an upper bound, each a score code (0 = none), and the
    /// column of the last move that proved a lower bound, plus one (0 = none).
    values: Vec<[u8; 3]>,
}

impl<K: StoredKey> PartialTable<K> {
    /// Bytes per slot.
    pub const SLOT_BYTES: usize = std::mem::size_of::<K>() + 3;

    /// A table of `slots` slots, which should be prime (see [`prime_at_most`]).
    /// Zeroed lazily by the system: pages are only touched when used.
    pub fn new(slots: usize) -> PartialTable<K> {
        let slots = slots.max(1);
        PartialTable {
            keys: vec![K::default(); slots],
            values: vec![[0; 3]; slots],
        }
    }

    /// Whether every key of `key_bits` bits is told apart exactly in this table.
    pub fn exact_for(slots: usize, key_bits: u32) -> bool {
        let slot_bits = usize::BITS - slots.leading_zeros() - 1;
        key_bits <= K::BITS + slot_bits
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.keys.len()
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.keys.fill(K::default());
        self.values.fill([0; 3]);
    }

    /// The slot of `key`.
    #[inline]
    pub fn slot(&self, key: u64) -> usize {
        (key % self.keys.len() as u64) as usize
    }

    /// The entry for `key` at `slot` (its [`PartialTable::slot`]): lower bound code,
    /// upper bound code, move; 0 where none.
    #[inline]
    pub fn get(&self, slot: usize, key: u64) -> [u8; 3] {
        if self.keys[slot] == K::truncate(key) {
            self.values[slot]
        } else {
            [0; 3]
        }
    }

    /// The entry for `key` at `slot` to update, emptied first if it held another key.
    /// What it held for the same key stays: bounds are facts about the position, and
    /// null-window searches ask for one side, then the other.
    #[inline]
    pub fn entry(&mut self, slot: usize, key: u64) -> &mut [u8; 3] {
        let stored = K::truncate(key);
        if self.keys[slot] != stored {
            self.keys[slot] = stored;
            self.values[slot] = [0; 3];
        }
        &mut self.values[slot]
    }
}

/// The largest prime at most `n` (at least 2).
pub(crate) fn prime_at_most(n: usize) -> usize {
    let is_prime = |m: usize| {
        m >= 2
            && (2..)
                .take_while(|d| d * d <= m)
                .all(|d| !m.is_multiple_of(d))
    };
    (2..=n.max(2)).rev().find(|&m| is_prime(m)).unwrap_or(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes() {
        assert_eq!(prime_at_most(1 << 24), 16_777_213);
        assert_eq!(prime_at_most(100), 97);
        assert_eq!(prime_at_most(0), 2);
    }

    #[test]
    fn hits_only_their_own_key() {
        let slots = prime_at_most(1 << 17);
        assert!(PartialTable::<u32>::exact_for(slots, 48));
        assert!(!PartialTable::<u32>::exact_for(slots, 50));
        assert!(PartialTable::<u64>::exact_for(slots, 64));
        let mut table = PartialTable::<u32>::new(slots);
        let key = 0x1_2345_6789_abcd;
        let slot = table.slot(key);
        assert_eq!(table.get(slot, key), [0, 0, 0]);
        table.entry(slot, key)[0] = 17;
        table.entry(slot, key)[1] = 20;
        assert_eq!(table.get(slot, key), [17, 20, 0]);
        // Same slot and same low 32 bits would need a key apart by a multiple of both.
        let other = key + slots as u64;
        assert_eq!(table.get(table.slot(other), other), [0, 0, 0]);
        let neighbour = key + 1;
        assert_eq!(table.slot(neighbour), slot + 1);
        table.entry(slot, key + slots as u64)[1] = 3;
        assert_eq!(table.get(slot, key), [0, 0, 0], "replaced by another key");
        table.clear();
        assert_eq!(table.get(slot, key + slots as u64), [0, 0, 0]);
    }
}
