//! Line patterns: what a stone on an empty cell would make along one line, read from a
//! table indexed by the line's contents around the cell, and what the four lines
//! through a cell make together (a five, an open four, a four and a three …).
//!
//! A cell's line key holds its `2 (k - 1)` neighbours along one direction, two bits
//! each (empty, X, O, wall): exactly the cells of every k-window through the cell, so
//! the table's answer is exact for those windows and the board can keep every key up
//! to date with one `or` per neighbour when a stone is placed.

use std::sync::OnceLock;

/// Smallest and largest k the tables are built for: the key of a cell then fits in
/// 20 bits (k = 6).
pub(crate) const K_RANGE: std::ops::RangeInclusive<u32> = 4..=6;

/// What one stone makes along one line, weakest first. `B` patterns are one-sided
/// (blocked), `F` patterns free: an `F4` has two completion cells, an `F3` can become
/// an `F4` in one move, and so on down.
pub(crate) mod line {
    /// No k-window through the cell is free of the opponent: nothing can come of it.
    pub const DEAD: u8 = 0;
    /// A window is free, but no completion in fewer than three more stones is open.
    pub const B1: u8 = 1;
    /// One more stone makes an F2.
    pub const F1: u8 = 2;
    /// One more stone makes a B3.
    pub const B2: u8 = 3;
    /// One more stone makes an F3 (an open two).
    pub const F2: u8 = 4;
    /// One more stone makes a four.
    pub const B3: u8 = 5;
    /// One more stone makes an open four: an open three.
    pub const F3: u8 = 6;
    /// A four: one cell completes a line.
    pub const B4: u8 = 7;
    /// An open four: two cells complete a line.
    pub const F4: u8 = 8;
    /// A line of k (or more).
    pub const FIVE: u8 = 9;
    /// Number of patterns.
    pub const COUNT: usize = 10;
}

/// What the four lines through a cell make together, weakest first (after Rapfi's
/// `Pattern4`): the threat a stone there is.
pub(crate) mod cell {
    /// Less than an open three.
    pub const NONE: u8 = 0;
    /// An open three.
    pub const FLEX3: u8 = 1;
    /// An open three and a two or a closed three.
    pub const FLEX3_PLUS: u8 = 2;
    /// Two open threes.
    pub const FLEX3_2X: u8 = 3;
    /// A four.
    pub const BLOCK4: u8 = 4;
    /// A four and a two or a closed three.
    pub const BLOCK4_PLUS: u8 = 5;
    /// A four and an open three: wins unless the opponent has fours of its own.
    pub const BLOCK4_FLEX3: u8 = 6;
    /// An open four or two fours: wins unless the opponent has a five to make.
    pub const FLEX4: u8 = 7;
    /// A line of k: wins now.
    pub const FIVE: u8 = 8;
    /// Number of classes.
    pub const COUNT: usize = 9;
}

/// Heuristic value of one line pattern on an empty cell, for its owner: to move (0),
/// and having just moved (1). Fitted (with [`CELL_VALUE`] and the board's initiative
/// bonuses) to a stronger engine's evaluations of positions from matches: see
/// `pbrain/tune/` and `docs/gomoku-match.md`. The fit's small negative weights of the
/// weakest patterns are set to 0; the owner's open four and five are never evaluated
/// (the search sees the win first) and keep large values.
const LINE_VALUE: [[i32; line::COUNT]; 2] = [
    [0, 0, 1, 0, 17, 43, 71, 134, 456, 912],
    [0, 0, 1, 0, 13, 32, 72, 128, 228, 912],
];
/// Extra value of a cell by its class, for its owner to move (0) and having moved (1),
/// fitted with [`LINE_VALUE`]. Two open threes on one cell weigh less than one here
/// because the board's initiative bonus for them comes on top.
const CELL_VALUE: [[i32; cell::COUNT]; 2] = [
    [0, 58, 155, -228, 105, 303, 1035, 646, 1292],
    [0, 30, 114, 142, 109, 263, 884, 323, 1292],
];
/// Move-ordering value of a line pattern for the player who would make it.
const LINE_ORDER: [i32; line::COUNT] = [0, 1, 3, 6, 20, 24, 90, 120, 0, 0];
/// Move-ordering value of a cell class: a five beats blocking one (scaled by
/// [`DEFENCE_PERCENT`]), which beats an open four, which beats blocking one …
const CELL_ORDER: [i32; cell::COUNT] = [0, 700, 900, 4000, 1000, 1600, 8000, 20000, 100_000];

/// Weight, in percent, of what a cell would give the opponent in its ordering value:
/// taking away a threat is worth a little less than making the same threat.
pub(crate) const DEFENCE_PERCENT: i32 = 80;

/// The tables for one k.
pub(crate) struct Patterns {
    /// Neighbours on each side of a cell in a key (`k - 1`).
    pub radius: u32,
    /// `lines[key]`: the line pattern of a stone on the cell for X (byte 0) and O (byte 1).
    lines: Vec<[u8; 2]>,
    /// `cells[index of four line patterns]`: (class, heuristic values, ordering value).
    cells: Vec<(u8, [i32; 2], i32)>,
}

impl Patterns {
    /// The tables for `k` (in [`K_RANGE`]), built at first use and kept.
    pub fn get(k: u32) -> &'static Patterns {
        static TABLES: [OnceLock<Patterns>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        assert!(K_RANGE.contains(&k), "patterns for k in {K_RANGE:?}");
        TABLES[(k - K_RANGE.start()) as usize].get_or_init(|| Patterns::build(k))
    }

    fn build(k: u32) -> Patterns {
        let radius = k - 1;
        let len = 2 * radius + 1;
        let mut memo = Classifier {
            k,
            len,
            memo: vec![u8::MAX; 3usize.pow(len)],
        };
        let neighbours = 2 * radius;
        let mut lines = vec![[line::DEAD; 2]; 1 << (2 * neighbours)];
        for (key, entry) in lines.iter_mut().enumerate() {
            for (player, slot) in entry.iter_mut().enumerate() {
                // Ternary line: 0 empty, 1 own, 2 blocked (the opponent or a wall).
                let mut code = 0usize;
                for t in (0..len).rev() {
                    let state = if t == radius {
                        1
                    } else {
                        let n = if t < radius { t } else { t - 1 };
                        match (key >> (2 * n)) & 3 {
                            0 => 0,
                            s if s == player + 1 => 1,
                            _ => 2,
                        }
                    };
                    code = code * 3 + state;
                }
                *slot = memo.classify(code);
            }
        }
        let mut cells = Vec::with_capacity(line::COUNT.pow(4));
        for index in 0..line::COUNT.pow(4) {
            let pats = [
                index / 1000 % 10,
                index / 100 % 10,
                index / 10 % 10,
                index % 10,
            ];
            cells.push(combine(pats.map(|p| p as u8)));
        }
        Patterns {
            radius,
            lines,
            cells,
        }
    }

    /// The line patterns (X, O) of a stone on a cell whose neighbours are `key`.
    #[inline]
    pub fn line(&self, key: u32) -> [u8; 2] {
        self.lines[key as usize]
    }

    /// Class, heuristic value and ordering value of a cell with these four line patterns.
    #[inline]
    pub fn cell(&self, pats: [u8; 4]) -> (u8, [i32; 2], i32) {
        let index =
            ((usize::from(pats[0]) * 10 + usize::from(pats[1])) * 10 + usize::from(pats[2])) * 10
                + usize::from(pats[3]);
        self.cells[index]
    }
}

/// The class and values of a cell from its four line patterns.
fn combine(pats: [u8; 4]) -> (u8, [i32; 2], i32) {
    let mut n = [0u32; line::COUNT];
    for &p in &pats {
        n[usize::from(p)] += 1;
    }
    let minor = n[usize::from(line::B3)] + n[usize::from(line::F2)];
    let class = if n[usize::from(line::FIVE)] > 0 {
        cell::FIVE
    } else if n[usize::from(line::F4)] > 0 || n[usize::from(line::B4)] >= 2 {
        cell::FLEX4
    } else if n[usize::from(line::B4)] > 0 && n[usize::from(line::F3)] > 0 {
        cell::BLOCK4_FLEX3
    } else if n[usize::from(line::B4)] > 0 && minor > 0 {
        cell::BLOCK4_PLUS
    } else if n[usize::from(line::B4)] > 0 {
        cell::BLOCK4
    } else if n[usize::from(line::F3)] >= 2 {
        cell::FLEX3_2X
    } else if n[usize::from(line::F3)] > 0 && minor > 0 {
        cell::FLEX3_PLUS
    } else if n[usize::from(line::F3)] > 0 {
        cell::FLEX3
    } else {
        cell::NONE
    };
    let value = |side: usize| -> i32 {
        let lines: i32 = pats.iter().map(|&p| LINE_VALUE[side][usize::from(p)]).sum();
        lines + CELL_VALUE[side][usize::from(class)]
    };
    let order: i32 = pats.iter().map(|&p| LINE_ORDER[usize::from(p)]).sum();
    (
        class,
        [value(0), value(1)],
        order + CELL_ORDER[usize::from(class)],
    )
}

/// Classifies lines of `len` cells (ternary codes, cell 0 the least significant digit)
/// whose centre holds the player's stone, memoised: a line's pattern follows from the
/// patterns of the lines one stone fuller.
struct Classifier {
    k: u32,
    len: u32,
    memo: Vec<u8>,
}

impl Classifier {
    fn state(&self, code: usize, t: u32) -> usize {
        code / 3usize.pow(t) % 3
    }

    fn classify(&mut self, code: usize) -> u8 {
        if self.memo[code] != u8::MAX {
            return self.memo[code];
        }
        let (k, len) = (self.k, self.len);
        let centre = len / 2;
        // Windows of k cells through the centre free of blocks, and the empty cells
        // that would complete one (every other cell of the window the player's).
        let mut free = false;
        let mut five = false;
        let mut completions = 0u32;
        for start in (centre + 1).saturating_sub(k)..=centre {
            if start + k > len {
                continue;
            }
            let window = start..start + k;
            if window.clone().any(|t| self.state(code, t) == 2) {
                continue;
            }
            free = true;
            let empty: Vec<u32> = window.filter(|&t| self.state(code, t) == 0).collect();
            match empty.as_slice() {
                [] => five = true,
                [e] => completions |= 1 << e,
                _ => {}
            }
        }
        let pattern = if five {
            line::FIVE
        } else if !free {
            line::DEAD
        } else if completions.count_ones() >= 2 {
            line::F4
        } else if completions != 0 {
            line::B4
        } else {
            // The best line one more stone makes, one step down.
            let mut best = line::DEAD;
            for t in 0..len {
                if self.state(code, t) == 0 {
                    best = best.max(self.classify(code + 3usize.pow(t)));
                }
            }
            match best {
                line::F4 => line::F3,
                line::B4 => line::B3,
                line::F3 => line::F2,
                line::B3 => line::B2,
                line::F2 => line::F1,
                _ => line::B1,
            }
        };
        self.memo[code] = pattern;
        pattern
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern for X of a stone on the centre of `text` (radius 4, k = 5): `x` an X
    /// stone, `o` an O stone, `#` a wall, `.` empty; the centre written `*`.
    fn pattern(text: &str) -> u8 {
        let patterns = Patterns::get(5);
        let cells: Vec<char> = text.chars().collect();
        assert_eq!(cells.len(), 9);
        assert_eq!(cells[4], '*');
        let mut key = 0u32;
        let mut n = 0;
        for (t, &c) in cells.iter().enumerate() {
            if t == 4 {
                continue;
            }
            let state = match c {
                '.' => 0,
                'x' => 1,
                'o' => 2,
                _ => 3,
            };
            key |= state << (2 * n);
            n += 1;
        }
        patterns.line(key)[0]
    }

    #[test]
    fn line_patterns_of_gomoku() {
        assert_eq!(pattern("..xx*xx.."), line::FIVE);
        assert_eq!(pattern("xxxx*...."), line::FIVE);
        // Five or more wins: an overline is a five.
        assert_eq!(pattern("xxxx*x..."), line::FIVE);
        assert_eq!(pattern("..xx*x..."), line::F4);
        assert_eq!(pattern("oxxx*...."), line::B4);
        assert_eq!(pattern("..x.*xx.."), line::B4);
        // x.x*x.x: two completion cells on one line, as good as an open four.
        assert_eq!(pattern(".x.x*x.x."), line::F4);
        assert_eq!(pattern("...x*x..."), line::F3);
        assert_eq!(pattern("..x.*x..."), line::F3);
        assert_eq!(pattern("..ox*x..."), line::B3);
        assert_eq!(pattern("...x*...."), line::F2);
        assert_eq!(pattern("....*...."), line::F1);
        assert_eq!(pattern("##ox*.o##"), line::DEAD);
        assert_eq!(pattern("###o*...."), line::B1);
    }

    #[test]
    fn cell_classes() {
        let p = Patterns::get(5);
        assert_eq!(p.cell([line::F3, line::F3, 0, 0]).0, cell::FLEX3_2X);
        assert_eq!(p.cell([line::B4, line::B4, 0, 0]).0, cell::FLEX4);
        assert_eq!(p.cell([line::B4, 0, line::F3, 0]).0, cell::BLOCK4_FLEX3);
        assert_eq!(p.cell([0, 0, 0, line::FIVE]).0, cell::FIVE);
        // Ordering: a five first, then blocking one, then an open four.
        let five = p.cell([line::FIVE, 0, 0, 0]).2;
        let flex4 = p.cell([line::F4, 0, 0, 0]).2;
        assert!(five * DEFENCE_PERCENT / 100 > flex4);
        assert!(flex4 * DEFENCE_PERCENT / 100 > p.cell([line::B4, line::F3, 0, 0]).2);
    }

    #[test]
    fn other_k_build() {
        for k in K_RANGE {
            let p = Patterns::get(k);
            assert_eq!(p.radius, k - 1);
        }
    }
}
