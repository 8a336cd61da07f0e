//! Bitboards: one bit per cell in Pascal Pons' column-major layout, as `u64`, `u128` or a
//! wide array, behind one trait so the search is written once and monomorphised.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of bit positions. Shifts by at least the width give zero instead of panicking,
/// because line tests shift by `(k - 1) * step`, which may exceed the width on thin boards.
pub(crate) trait Bits:
    Copy
    + Eq
    + std::fmt::Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Send
    + Sync
    + 'static
{
    /// Number of bits.
    const BITS: u32;
    /// A move list big enough for every bit, on the stack (no allocation per node).
    type List: AsMut<[u32]> + AsRef<[u32]>;

    /// No bits.
    fn zero() -> Self;
    /// A zeroed move list.
    fn list() -> Self::List;
    /// Only bit `i`.
    fn bit(i: u32) -> Self;
    /// Shifted towards higher positions.
    fn shl(self, n: u32) -> Self;
    /// Shifted towards lower positions.
    fn shr(self, n: u32) -> Self;
    /// Number of bits set.
    fn count(self) -> u32;
    /// Whether no bit is set.
    fn is_zero(self) -> bool;
    /// Whether bit `i` is set.
    fn has(self, i: u32) -> bool {
        !(self & Self::bit(i)).is_zero()
    }
    /// Removes and returns the lowest set bit.
    fn pop(&mut self) -> Option<u32>;
}

macro_rules! native_bits {
    ($t:ty, $n:expr) => {
        impl Bits for $t {
            const BITS: u32 = <$t>::BITS;
            type List = [u32; $n];

            #[inline]
            fn zero() -> Self {
                0
            }
            #[inline]
            fn list() -> Self::List {
                [0; $n]
            }
            #[inline]
            fn bit(i: u32) -> Self {
                1 << i
            }
            #[inline]
            fn shl(self, n: u32) -> Self {
                self.checked_shl(n).unwrap_or(0)
            }
            #[inline]
            fn shr(self, n: u32) -> Self {
                self.checked_shr(n).unwrap_or(0)
            }
            #[inline]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline]
            fn pop(&mut self) -> Option<u32> {
                if *self == 0 {
                    return None;
                }
                let i = self.trailing_zeros();
                *self &= *self - 1;
                Some(i)
            }
        }
    };
}

native_bits!(u64, 64);
native_bits!(u128, 128);

/// Words in a [`Wide`] board: 19 columns × 20 bits (19 rows and the padding bit) = 380.
const WORDS: usize = 6;

/// A bitboard for boards up to 19×19: six 64-bit words, least significant first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Wide([u64; WORDS]);

impl BitAnd for Wide {
    type Output = Wide;
    #[inline]
    fn bitand(self, rhs: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] & rhs.0[i]))
    }
}
impl BitOr for Wide {
    type Output = Wide;
    #[inline]
    fn bitor(self, rhs: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] | rhs.0[i]))
    }
}
impl BitXor for Wide {
    type Output = Wide;
    #[inline]
    fn bitxor(self, rhs: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] ^ rhs.0[i]))
    }
}
impl Not for Wide {
    type Output = Wide;
    #[inline]
    fn not(self) -> Wide {
        Wide(self.0.map(|w| !w))
    }
}
impl BitAndAssign for Wide {
    #[inline]
    fn bitand_assign(&mut self, rhs: Wide) {
        *self = *self & rhs;
    }
}
impl BitOrAssign for Wide {
    #[inline]
    fn bitor_assign(&mut self, rhs: Wide) {
        *self = *self | rhs;
    }
}
impl BitXorAssign for Wide {
    #[inline]
    fn bitxor_assign(&mut self, rhs: Wide) {
        *self = *self ^ rhs;
    }
}

impl Bits for Wide {
    const BITS: u32 = 64 * WORDS as u32;
    type List = [u32; 64 * WORDS];

    fn zero() -> Self {
        Wide([0; WORDS])
    }
    fn list() -> Self::List {
        [0; 64 * WORDS]
    }
    fn bit(i: u32) -> Self {
        let mut w = Wide::zero();
        if i < Self::BITS {
            w.0[(i / 64) as usize] = 1 << (i % 64);
        }
        w
    }
    #[inline]
    fn shl(self, n: u32) -> Self {
        if n >= Self::BITS {
            return Wide::zero();
        }
        let (words, bits) = ((n / 64) as usize, n % 64);
        Wide(std::array::from_fn(|i| {
            if i < words {
                return 0;
            }
            let lo = self.0[i - words];
            if bits == 0 {
                lo
            } else {
                let below = if i > words { self.0[i - words - 1] } else { 0 };
                (lo << bits) | (below >> (64 - bits))
            }
        }))
    }
    #[inline]
    fn shr(self, n: u32) -> Self {
        if n >= Self::BITS {
            return Wide::zero();
        }
        let (words, bits) = ((n / 64) as usize, n % 64);
        Wide(std::array::from_fn(|i| {
            if i + words >= WORDS {
                return 0;
            }
            let hi = self.0[i + words];
            if bits == 0 {
                hi
            } else {
                let above = if i + words + 1 < WORDS {
                    self.0[i + words + 1]
                } else {
                    0
                };
                (hi >> bits) | (above << (64 - bits))
            }
        }))
    }
    #[inline]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn is_zero(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    #[inline]
    fn pop(&mut self) -> Option<u32> {
        for (i, w) in self.0.iter_mut().enumerate() {
            if *w != 0 {
                let bit = w.trailing_zeros();
                *w &= *w - 1;
                return Some(i as u32 * 64 + bit);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_bits<B: Bits>(bits: &[u32]) -> B {
        bits.iter().fold(B::zero(), |acc, &i| acc | B::bit(i))
    }

    fn to_bits<B: Bits>(mut b: B) -> Vec<u32> {
        std::iter::from_fn(|| b.pop()).collect()
    }

    /// The wide board shifts like a plain integer would, across word boundaries.
    #[test]
    fn wide_shifts_match_u128_semantics() {
        let bits = [0, 1, 5, 63, 64, 65, 100, 127, 128, 200, 255, 300, 383];
        let wide: Wide = from_bits(&bits);
        for n in [0, 1, 7, 63, 64, 65, 127, 128, 200, 383, 384, 1000] {
            let left: Vec<u32> = bits.iter().map(|b| b + n).filter(|&b| b < 384).collect();
            let right: Vec<u32> = bits.iter().filter(|&&b| b >= n).map(|b| b - n).collect();
            assert_eq!(to_bits(wide.shl(n)), left, "shl {n}");
            assert_eq!(to_bits(wide.shr(n)), right, "shr {n}");
        }
        assert_eq!(wide.count(), bits.len() as u32);
        assert!(wide.has(300) && !wide.has(301));
        assert_eq!(7u64.shl(64), 0);
        assert_eq!(7u128.shr(200), 0);
    }
}
