//! The shape of a board as bit masks: line steps, symmetries, Zobrist keys, and the bit
//! tricks the search reads a board with (winning cells, playable cells, the heuristic).

use super::bits::{Bits, Wide};
use crate::rules::Rules;

/// Boards with at least this many cells and no gravity restrict the search to cells near
/// stones: too big to solve, and far cells are rarely good moves.
pub(crate) const RESTRICT_CELLS: u32 = 49;

/// ... but only while more than this many cells are empty: late in a game the full
/// search is affordable and can prove its result.
pub(crate) const RESTRICT_EMPTY: u32 = 25;

/// Whether the search skips cells far from the stones on a board of `rules` with
/// `stones` stones (the rule [`Geometry::restricts`] applies with the geometry built).
pub(crate) fn restricts(rules: Rules, stones: u32) -> bool {
    restricted_board(rules) && rules.cells().saturating_sub(stones) > RESTRICT_EMPTY
}

/// Whether a board of `rules` is big and open enough that the search skips far cells
/// (early in a game: see [`restricts`]).
pub(crate) fn restricted_board(rules: Rules) -> bool {
    !rules.gravity() && rules.cells() >= RESTRICT_CELLS
}

/// Most symmetries of a board: the 8 of a square.
pub(crate) const MAX_SYMMETRIES: usize = 8;

/// Weight of a window holding `c` stones of one player and none of the other, by `c`
/// counted back from `k`: one stone short of a line weighs most.
const WINDOW_WEIGHTS: [i32; 8] = [0, 1, 4, 16, 64, 256, 1024, 4096];

/// Everything about a board's shape, computed once per search.
pub(crate) struct Geometry<B: Bits> {
    pub width: u32,
    pub height: u32,
    pub k: u32,
    pub gravity: bool,
    pub cells: u32,
    /// Bits that are cells (no padding).
    pub board: B,
    /// The bottom cell of every column.
    pub bottom: B,
    /// Bit steps of the four line directions: up, right, down-right, up-right.
    pub steps: [u32; 4],
    /// Per direction, the cells where a k-window starting there lies on the board.
    window_starts: [B; 4],
    /// Whether far cells are skipped by the search (big boards without gravity).
    pub restrict: bool,
    /// Number of symmetries in use (1, 2, 4 or 8).
    pub symmetries: usize,
    /// Bits spanned by the board, padding included: `width * (height + 1)`.
    used: usize,
    /// `map[s * used + bit]`: where symmetry `s` sends a cell.
    map: Vec<u16>,
    /// `unmap[s * used + bit]`: the inverse of symmetry `s`.
    unmap: Vec<u16>,
    /// `zobrist[(s * 2 + player) * used + bit]`: the key of the player's stone on the
    /// image of `bit` under symmetry `s`.
    zobrist: Vec<u64>,
    /// Closeness to the centre, for move ordering: higher is more central.
    pub centre: [u8; 384],
}

impl<B: Bits> Geometry<B> {
    /// The geometry of `rules`; the bit type must be wide enough (checked by the caller).
    pub fn new(rules: Rules) -> Geometry<B> {
        let (width, height, k) = (rules.width(), rules.height(), rules.k());
        let stride = height + 1;
        assert!(
            width * stride <= B::BITS,
            "the caller picks a bitboard wide enough"
        );
        let mut board = B::zero();
        let mut bottom = B::zero();
        for col in 0..width {
            bottom |= B::bit(col * stride);
            for row in 0..height {
                board |= B::bit(col * stride + row);
            }
        }
        let steps = [1, stride, height, height + 2];
        let window_starts = steps.map(|d| (0..k).fold(board, |acc, i| acc & board.shr(i * d)));
        let square = width == height;
        // (transpose, flip columns, flip rows) for each symmetry the rules allow.
        let mut transforms = vec![(false, false, false)];
        if rules.gravity() {
            transforms.push((false, true, false));
        } else {
            transforms.extend([
                (false, true, false),
                (false, false, true),
                (false, true, true),
            ]);
            if square {
                transforms.extend([
                    (true, false, false),
                    (true, true, false),
                    (true, false, true),
                    (true, true, true),
                ]);
            }
        }
        let used = (width * stride) as usize;
        let mut map = vec![0u16; transforms.len() * used];
        let mut unmap = vec![0u16; transforms.len() * used];
        for (s, &(transpose, flip_c, flip_r)) in transforms.iter().enumerate() {
            for col in 0..width {
                for row in 0..height {
                    let (mut c, mut r) = if transpose { (row, col) } else { (col, row) };
                    if flip_c {
                        c = width - 1 - c;
                    }
                    if flip_r {
                        r = height - 1 - r;
                    }
                    let from = (col * stride + row) as usize;
                    let to = (c * stride + r) as usize;
                    map[s * used + from] = to as u16;
                    unmap[s * used + to] = from as u16;
                }
            }
        }
        let base = zobrist_base();
        let mut zobrist = vec![0u64; transforms.len() * 2 * used];
        for s in 0..transforms.len() {
            for (player, keys) in base.iter().enumerate() {
                for bit in 0..used {
                    zobrist[(s * 2 + player) * used + bit] = keys[usize::from(map[s * used + bit])];
                }
            }
        }
        let mut centre = [0u8; 384];
        for col in 0..width {
            for row in 0..height {
                // Manhattan distance from the centre, doubled to stay integral.
                let dc = (2 * col as i32 - (width as i32 - 1)).unsigned_abs();
                let dr = (2 * row as i32 - (height as i32 - 1)).unsigned_abs();
                let far = dc + if rules.gravity() { dr / 4 } else { dr };
                centre[(col * stride + row) as usize] = (80u32.saturating_sub(far)) as u8;
            }
        }
        Geometry {
            width,
            height,
            k,
            gravity: rules.gravity(),
            cells: width * height,
            board,
            bottom,
            steps,
            window_starts,
            restrict: restricted_board(rules),
            symmetries: transforms.len(),
            used,
            map,
            unmap,
            zobrist,
            centre,
        }
    }

    /// Cells where a k-window in direction `dir` (an index into `steps`) starts on the
    /// board.
    #[inline]
    pub fn window_starts(&self, dir: usize) -> B {
        self.window_starts[dir]
    }

    /// Where symmetry `s` sends the cell at `bit`.
    #[inline]
    pub fn image(&self, s: usize, bit: u32) -> u16 {
        self.map[s * self.used + bit as usize]
    }

    /// The cell that symmetry `s` sends to `bit`.
    #[inline]
    pub fn preimage(&self, s: usize, bit: u16) -> u32 {
        self.unmap[s * self.used + usize::from(bit)].into()
    }

    /// The Zobrist key of `player`'s stone (0 = X) on `bit`, seen through symmetry `s`.
    #[inline]
    pub fn key(&self, s: usize, player: usize, bit: u32) -> u64 {
        self.zobrist[(s * 2 + player) * self.used + bit as usize]
    }

    /// The bit of a cell.
    pub fn bit_of(&self, col: u32, row: u32) -> u32 {
        col * (self.height + 1) + row
    }

    /// Whether the search skips cells far from the stones at a position of `n` stones.
    #[inline]
    pub fn restricts(&self, n: u32) -> bool {
        self.restrict && self.cells - n > RESTRICT_EMPTY
    }

    /// Cells where a stone can go now, given all stones `mask`.
    #[inline]
    pub fn playable(&self, mask: B) -> B {
        if self.gravity {
            (mask.shl(1) | self.bottom) & !mask & self.board
        } else {
            self.board & !mask
        }
    }

    /// Empty cells where a stone of the player owning `stones` completes k or more in a
    /// line (whether or not the cell is playable yet). Works for any k: a line through a
    /// padding bit or off the board breaks, since those bits are never set.
    #[inline]
    pub fn winning_cells(&self, stones: B, mask: B) -> B {
        let k = self.k as usize;
        let mut result = B::zero();
        for &d in &self.steps {
            // before[j]: cells whose j neighbours before them (step -d) are all stones.
            // The cell itself wins if before[j] & after[k-1-j] for some j.
            let mut after = [B::zero(); 20];
            after[0] = !B::zero();
            for j in 1..k {
                after[j] = after[j - 1] & stones.shr(j as u32 * d);
            }
            let mut before = !B::zero();
            for j in 0..k {
                if j > 0 {
                    before &= stones.shl(j as u32 * d);
                }
                result |= before & after[k - 1 - j];
            }
        }
        result & self.board & !mask
    }

    /// Empty cells lying in a k-window free of `others` that holds exactly `count`
    /// stones of `stones` (or at least `count` when `at_least`).
    pub fn window_cells(&self, stones: B, others: B, count: u32, at_least: bool) -> B {
        let geo = self;
        let k = geo.k;
        let mut cells = B::zero();
        for (dir, &d) in geo.steps.iter().enumerate() {
            let windows = geo.window_counts(dir, d, stones, others);
            let top = if at_least { k } else { count };
            let mut selected = B::zero();
            for c in count..=top {
                selected |= windows.holding(c);
            }
            if selected.is_zero() {
                continue;
            }
            for i in 0..k {
                cells |= selected.shl(i * d);
            }
        }
        cells & geo.board & !(stones | others)
    }

    /// The windows of k cells starting in direction `dir` (step `d`) that hold no stone of
    /// `others`, with how many stones of `stones` each holds.
    #[inline(always)]
    fn window_counts(&self, dir: usize, d: u32, stones: B, others: B) -> WindowCounts<B> {
        let mut open = self.window_starts(dir);
        let mut counter = [B::zero(); 5];
        for i in 0..self.k {
            open &= !others.shr(i * d);
            let mut carry = stones.shr(i * d);
            for slice in counter.iter_mut() {
                let next = *slice & carry;
                *slice ^= carry;
                carry = next;
            }
        }
        WindowCounts { open, counter }
    }

    /// Empty cells within two rows and columns of a stone.
    #[inline]
    pub fn near(&self, mask: B) -> B {
        let mut v = mask;
        for _ in 0..2 {
            v = v | (v.shl(1) & self.board) | (v.shr(1) & self.board);
        }
        let stride = self.height + 1;
        let mut h = v;
        for _ in 0..2 {
            h = h | h.shl(stride) | h.shr(stride);
        }
        h & self.board & !mask
    }

    /// The heuristic value for the owner of `me`, who is to move: open windows of k cells
    /// (no enemy stone) weighted by how full they are, mine minus the opponent's.
    pub fn evaluate(&self, me: B, opp: B) -> i32 {
        let k = self.k;
        let mut total: i64 = 0;
        for (dir, &d) in self.steps.iter().enumerate() {
            for (stones, others, sign) in [(me, opp, 1i64), (opp, me, -1i64)] {
                let windows = self.window_counts(dir, d, stones, others);
                for c in 1..k {
                    let n = windows.holding(c).count();
                    if n > 0 {
                        // Count back from k so the weights matter near a line for any k.
                        let from_top = (k - c) as usize;
                        let weight = if from_top < WINDOW_WEIGHTS.len() {
                            WINDOW_WEIGHTS[WINDOW_WEIGHTS.len() - from_top]
                        } else {
                            1
                        };
                        total += sign * i64::from(weight) * i64::from(n);
                    }
                }
            }
        }
        total.clamp(-900_000, 900_000) as i32
    }
}

/// Window starts of one direction with no stone of the other player, and a 5-bit counter
/// per start, bit-sliced: how many stones of the player the window holds.
struct WindowCounts<B> {
    open: B,
    counter: [B; 5],
}

impl<B: Bits> WindowCounts<B> {
    /// The open window starts holding exactly `c` stones.
    #[inline(always)]
    fn holding(&self, c: u32) -> B {
        let mut eq = self.open;
        for (j, slice) in self.counter.iter().enumerate() {
            eq &= if c >> j & 1 == 1 { *slice } else { !*slice };
        }
        eq
    }
}

/// A cached geometry of whichever bitboard width the rules need.
pub(crate) enum Layouts {
    Narrow(Box<Geometry<u64>>),
    Middle(Box<Geometry<u128>>),
    Wide(Box<Geometry<Wide>>),
}

/// A bitboard type whose geometry can be cached in [`Layouts`].
pub(crate) trait Layout: Bits {
    /// The cached geometry for `rules`, built on first use (the cache holds one rule set).
    fn geometry(cache: &mut Option<Layouts>, rules: Rules) -> &Geometry<Self>;
}

macro_rules! layout {
    ($t:ty, $variant:ident) => {
        impl Layout for $t {
            fn geometry(cache: &mut Option<Layouts>, rules: Rules) -> &Geometry<Self> {
                if !matches!(cache, Some(Layouts::$variant(_))) {
                    *cache = Some(Layouts::$variant(Box::new(Geometry::new(rules))));
                }
                match cache {
                    Some(Layouts::$variant(geo)) => geo,
                    _ => unreachable!("set just above"),
                }
            }
        }
    };
}

layout!(u64, Narrow);
layout!(u128, Middle);
layout!(Wide, Wide);

/// Zobrist keys by player and bit, from a fixed seed so keys are the same in every
/// search; computed once per process.
fn zobrist_base() -> &'static [[u64; 384]; 2] {
    static KEYS: std::sync::OnceLock<[[u64; 384]; 2]> = std::sync::OnceLock::new();
    KEYS.get_or_init(zobrist_keys)
}

fn zobrist_keys() -> [[u64; 384]; 2] {
    // SplitMix64: tiny, well mixed, and needs no generator state beyond a counter.
    let mut state: u64 = 0x1d8e_4e27_c47d_124f;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut keys = [[0u64; 384]; 2];
    for player in keys.iter_mut() {
        for key in player.iter_mut() {
            *key = next();
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stones(geo: &Geometry<u64>, cells: &[(u32, u32)]) -> u64 {
        cells
            .iter()
            .fold(0, |acc, &(c, r)| acc | u64::bit(geo.bit_of(c, r)))
    }

    #[test]
    fn winning_cells_find_gaps_and_ends() {
        let geo = Geometry::<u64>::new(Rules::tictactoe());
        let me = stones(&geo, &[(0, 0), (2, 2)]);
        let mask = me;
        assert_eq!(geo.winning_cells(me, mask), stones(&geo, &[(1, 1)]));
        let me = stones(&geo, &[(0, 0), (0, 1), (1, 0)]);
        assert_eq!(geo.winning_cells(me, me), stones(&geo, &[(0, 2), (2, 0)]));
        // No wrap from the top of one column to the bottom of the next.
        let me = stones(&geo, &[(0, 1), (0, 2)]);
        assert_eq!(geo.winning_cells(me, me | stones(&geo, &[(0, 0)])), 0);
    }

    #[test]
    fn symmetries_are_permutations() {
        for rules in [
            Rules::tictactoe(),
            Rules::connect4(),
            Rules::new(5, 4, 4, false).expect("valid"),
        ] {
            let geo = Geometry::<u64>::new(rules);
            for s in 0..geo.symmetries {
                for col in 0..geo.width {
                    for row in 0..geo.height {
                        let bit = geo.bit_of(col, row);
                        let image = geo.image(s, bit);
                        assert!(geo.board.has(image.into()));
                        assert_eq!(geo.preimage(s, image), bit);
                    }
                }
            }
        }
        assert_eq!(Geometry::<u64>::new(Rules::tictactoe()).symmetries, 8);
        assert_eq!(Geometry::<u64>::new(Rules::connect4()).symmetries, 2);
    }

    #[test]
    fn evaluation_is_antisymmetric() {
        let geo = Geometry::<u64>::new(Rules::connect4());
        let me = stones(&geo, &[(3, 0), (3, 1), (4, 0)]);
        let opp = stones(&geo, &[(2, 0), (5, 0), (3, 2)]);
        assert_eq!(geo.evaluate(me, opp), -geo.evaluate(opp, me));
        assert!(geo.evaluate(stones(&geo, &[(3, 0)]), 0) > 0);
    }
}
