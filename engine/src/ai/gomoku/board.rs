//! The gomoku board of the fast search: a padded cell array whose line keys, line
//! patterns, cell classes, evaluation sums and candidate cells are all updated per move
//! (only the cells within k - 1 along the four lines through the stone), never
//! recomputed from scratch.

use super::patterns::{Patterns, cell, line};
use crate::position::Position;

/// Cell contents.
const EMPTY: u8 = 0;
const WALL: u8 = 3;

/// A stone makes the empty cells within this many steps along its eight rays
/// candidates: gomoku moves far from every stone are rarely worth searching.
const NEAR: isize = 2;

/// Bonus for the player to move with a four and an open three on one cell, with two
/// open threes on one cell, and (negative) against an open three of the opponent's: the
/// player to move cashes a threat first. A four with an open three wins unless answered
/// by fours, two open threes win unless the opponent has a three of its own to push; an
/// open three of the opponent's costs a move to stop. Fitted with the patterns' values
/// (see `patterns`).
const INITIATIVE: [i32; 3] = [2597, 815, -114];

/// A board for one player to move after another, X first.
pub(crate) struct Board {
    patterns: &'static Patterns,
    /// Padding on each side: the pattern radius, so no neighbour index leaves the array.
    pad: u32,
    stride: u32,
    /// Cells of the real board.
    pub cells: u32,
    /// Stones on the board.
    pub n: u32,
    /// Zobrist hash of the stones.
    pub hash: u64,
    /// `EMPTY`, 1 for X, 2 for O, `WALL`.
    state: Vec<u8>,
    /// Per cell and direction, its neighbours along the line, two bits each.
    keys: Vec<[u32; 4]>,
    /// Per cell: what a stone of either player there would make.
    info: Vec<Info>,
    /// Stones within [`NEAR`] along a ray: a cell is a candidate while this is not 0.
    near: Vec<u8>,
    /// Empty cells with a stone near, in no particular order (a dense set).
    candidates: Vec<u16>,
    /// Where each cell sits in `candidates`, `u16::MAX` when absent.
    slot: Vec<u16>,
    /// Per player, the number of empty cells of each class.
    pub counts: [[u16; cell::COUNT]; 2],
    /// Per player, the sum of the heuristic values of the empty cells, as the player to
    /// move (0) and as the player who just moved (1).
    sums: [[i32; 2]; 2],
    zobrist: Vec<[u64; 2]>,
    /// Index steps of the four directions: down a column, along a row, two diagonals.
    steps: [usize; 4],
    /// The stones in the order played.
    moves: Vec<u16>,
    /// What each move changed, for [`Board::undo`]: the totals before it, then each
    /// refreshed cell with its info before.
    undo: Vec<Change>,
}

/// What a stone on an empty cell would make, for each player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Info {
    /// Per player and direction: the line pattern.
    lines: [[u8; 4]; 2],
    /// Per player: the cell class.
    class: [u8; 2],
    /// Per player: the heuristic value, for the player to move and for the other.
    value: [[i32; 2]; 2],
    /// Per player: the ordering value.
    order: [i32; 2],
}

/// One entry of the undo stack.
#[derive(Clone, Copy)]
enum Change {
    /// A move starts here: the totals before it.
    Totals {
        counts: [[u16; cell::COUNT]; 2],
        sums: [[i32; 2]; 2],
    },
    /// A cell's info before the move refreshed it.
    Cell(u16, Info),
}

impl Board {
    /// The board of `position` (no gravity, k in the pattern tables' range).
    pub fn new(position: &Position) -> Board {
        let rules = position.rules();
        let (width, height, k) = (rules.width(), rules.height(), rules.k());
        let patterns = Patterns::get(k);
        let pad = patterns.radius;
        let stride = width + 2 * pad;
        let size = (stride * (height + 2 * pad)) as usize;
        let mut state = vec![WALL; size];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64 ^ u64::from(width << 8 | height);
        let zobrist = (0..size)
            .map(|_| [splitmix(&mut seed), splitmix(&mut seed)])
            .collect();
        let mut board = Board {
            patterns,
            pad,
            stride,
            cells: width * height,
            n: 0,
            hash: 0,
            state: Vec::new(),
            keys: vec![[0; 4]; size],
            info: vec![Info::default(); size],
            near: vec![0; size],
            candidates: Vec::with_capacity(size),
            slot: vec![u16::MAX; size],
            counts: [[0; cell::COUNT]; 2],
            sums: [[0; 2]; 2],
            zobrist,
            steps: [1, stride as usize, stride as usize + 1, stride as usize - 1],
            moves: Vec::with_capacity(size),
            undo: Vec::with_capacity(4096),
        };
        for col in 0..width {
            for row in 0..height {
                state[board.index(col, row)] = EMPTY;
            }
        }
        board.state = state;
        // Walls into every key (no totals to keep yet), then each empty cell's
        // patterns from its keys.
        for c in 0..size {
            if board.state[c] != WALL {
                continue;
            }
            for dir in 0..4 {
                let step = board.steps[dir];
                for j in 1..=pad as usize {
                    for (nb, slot) in board.neighbours(c, step, j) {
                        if nb < size {
                            board.keys[nb][dir] |= u32::from(WALL) << (2 * slot);
                        }
                    }
                }
            }
        }
        for col in 0..width {
            for row in 0..height {
                let c = board.index(col, row);
                for dir in 0..4 {
                    let pats = patterns.line(board.keys[c][dir]);
                    board.info[c].lines[0][dir] = pats[0];
                    board.info[c].lines[1][dir] = pats[1];
                }
                board.refresh(c);
                board.add(c);
            }
        }
        for landed in position.landed() {
            let c = board.index(landed.col.into(), landed.row.into());
            board.place(c);
        }
        board
    }

    /// The array index of a cell.
    #[inline]
    pub fn index(&self, col: u32, row: u32) -> usize {
        ((row + self.pad) * self.stride + col + self.pad) as usize
    }

    /// The (column, row) of an array index.
    #[cfg(test)]
    pub fn cell_of(&self, c: usize) -> (u32, u32) {
        let c = c as u32;
        (c % self.stride - self.pad, c / self.stride - self.pad)
    }

    /// The player to move: 0 for X, 1 for O.
    #[inline]
    pub fn side(&self) -> usize {
        (self.n & 1) as usize
    }

    /// The empty cells near a stone.
    #[inline]
    pub fn candidates(&self) -> &[u16] {
        &self.candidates
    }

    /// The class of a stone of `player` on `c`.
    #[inline]
    pub fn class(&self, c: usize, player: usize) -> u8 {
        self.info[c].class[player]
    }

    /// The line patterns of a stone of `player` on `c`.
    #[inline]
    pub fn lines(&self, c: usize, player: usize) -> [u8; 4] {
        self.info[c].lines[player]
    }

    /// The ordering value of a stone of `player` on `c`.
    #[inline]
    pub fn order(&self, c: usize, player: usize) -> i32 {
        self.info[c].order[player]
    }

    /// The heuristic value for the player to move.
    #[inline]
    pub fn evaluate(&self) -> i32 {
        let me = self.side();
        let opp = 1 - me;
        let initiative: i32 = self
            .initiative_conditions()
            .iter()
            .zip(INITIATIVE)
            .map(|(&holds, bonus)| if holds { bonus } else { 0 })
            .sum();
        self.sums[me][0] - self.sums[opp][1] + initiative
    }

    /// What the evaluation weighs, for fitting its weights: for the player to move, then
    /// the other, the number of (empty cell, direction) pairs of each line pattern from
    /// `B1` to `F4` and of empty cells of each class from `FLEX3` to `FIVE`; then the
    /// three initiative conditions of [`Board::evaluate`] (1 when it holds).
    pub fn features(&self) -> Vec<i32> {
        let me = self.side();
        let mut out = Vec::new();
        for p in [me, 1 - me] {
            let mut lines = [0; line::COUNT];
            let mut classes = [0; cell::COUNT];
            for (c, &state) in self.state.iter().enumerate() {
                if state != EMPTY {
                    continue;
                }
                for &l in &self.info[c].lines[p] {
                    lines[usize::from(l)] += 1;
                }
                classes[usize::from(self.info[c].class[p])] += 1;
            }
            out.extend_from_slice(&lines[usize::from(line::B1)..=usize::from(line::F4)]);
            out.extend_from_slice(&classes[usize::from(cell::FLEX3)..=usize::from(cell::FIVE)]);
        }
        out.extend(self.initiative_conditions().map(i32::from));
        out
    }

    /// Which of the initiative bonuses of [`Board::evaluate`] apply.
    fn initiative_conditions(&self) -> [bool; 3] {
        let me = self.side();
        let opp = 1 - me;
        let has = |player: usize, class: u8| self.counts[player][usize::from(class)] > 0;
        let first = has(me, cell::BLOCK4_FLEX3);
        let second = !first && has(me, cell::FLEX3_2X) && !has(opp, cell::FLEX4);
        let third = !first && !second && has(opp, cell::FLEX4);
        [first, second, third]
    }

    /// An empty cell where `player` completes a line, if any.
    pub fn five_cell(&self, player: usize) -> Option<usize> {
        self.candidates
            .iter()
            .map(|&c| usize::from(c))
            .find(|&c| self.info[c].class[player] == cell::FIVE)
    }

    /// Puts a stone of the player to move on the empty cell `c`.
    pub fn place(&mut self, c: usize) {
        debug_assert_eq!(self.state[c], EMPTY);
        let colour = self.side() as u8 + 1;
        self.undo.push(Change::Totals {
            counts: self.counts,
            sums: self.sums,
        });
        self.remove(c);
        if self.slot[c] != u16::MAX {
            self.delete(c);
        }
        self.state[c] = colour;
        self.hash ^= self.zobrist[c][usize::from(colour - 1)];
        self.n += 1;
        self.moves.push(c as u16);
        self.mark(c, colour);
        for dir in 0..4 {
            let step = self.steps[dir];
            for j in 1..=NEAR as usize {
                for nb in [c + j * step, c - j * step] {
                    self.near[nb] += 1;
                    if self.near[nb] == 1 && self.state[nb] == EMPTY {
                        self.insert(nb);
                    }
                }
            }
        }
    }

    /// Takes back the last stone.
    pub fn undo(&mut self) {
        let c = usize::from(self.moves.pop().expect("a stone to take back"));
        let colour = self.state[c];
        for dir in 0..4 {
            let step = self.steps[dir];
            for j in 1..=NEAR as usize {
                for nb in [c + j * step, c - j * step] {
                    self.near[nb] -= 1;
                    if self.near[nb] == 0 && self.slot[nb] != u16::MAX {
                        self.delete(nb);
                    }
                }
            }
        }
        self.unmark(c, colour);
        // Cells back as they were, then the totals (which counted `c` as empty).
        while let Some(change) = self.undo.pop() {
            match change {
                Change::Cell(nb, info) => self.info[usize::from(nb)] = info,
                Change::Totals { counts, sums } => {
                    self.counts = counts;
                    self.sums = sums;
                    break;
                }
            }
        }
        self.n -= 1;
        self.hash ^= self.zobrist[c][usize::from(colour - 1)];
        self.state[c] = EMPTY;
        // Its keys are as they were when it was placed (later stones are gone), and so
        // is its info.
        if self.near[c] > 0 {
            self.insert(c);
        }
    }

    /// Writes `colour` at `c` (a real cell) into its neighbours' keys and refreshes the
    /// empty ones, saving what they were for [`Board::undo`].
    fn mark(&mut self, c: usize, colour: u8) {
        let radius = self.pad as usize;
        let patterns = self.patterns;
        for dir in 0..4 {
            let step = self.steps[dir];
            for j in 1..=radius {
                for (nb, slot) in self.neighbours(c, step, j) {
                    let key = self.keys[nb][dir] | u32::from(colour) << (2 * slot);
                    self.keys[nb][dir] = key;
                    if self.state[nb] != EMPTY {
                        continue;
                    }
                    let pats = patterns.line(key);
                    let info = &self.info[nb];
                    if pats[0] != info.lines[0][dir] || pats[1] != info.lines[1][dir] {
                        self.undo.push(Change::Cell(nb as u16, *info));
                        self.remove(nb);
                        self.info[nb].lines[0][dir] = pats[0];
                        self.info[nb].lines[1][dir] = pats[1];
                        self.refresh(nb);
                        self.add(nb);
                    }
                }
            }
        }
    }

    /// Takes `colour` at `c` out of its neighbours' keys (their info comes back from
    /// the undo stack).
    fn unmark(&mut self, c: usize, colour: u8) {
        let radius = self.pad as usize;
        for dir in 0..4 {
            let step = self.steps[dir];
            for j in 1..=radius {
                for (nb, slot) in self.neighbours(c, step, j) {
                    self.keys[nb][dir] &= !(u32::from(colour) << (2 * slot));
                }
            }
        }
    }

    /// The two cells `j` steps from `c` along `step`, each with the slot `c` takes in
    /// its key (an index past the array where the line leaves it).
    #[inline]
    fn neighbours(&self, c: usize, step: usize, j: usize) -> [(usize, usize); 2] {
        let radius = self.pad as usize;
        // The neighbour `j` after `c` sees `c` `j` before it, and the other way.
        [
            (c + j * step, radius - j),
            (c.wrapping_sub(j * step), radius + j - 1),
        ]
    }

    /// Recomputes a cell's class and values from its line patterns.
    #[inline]
    fn refresh(&mut self, c: usize) {
        let info = &mut self.info[c];
        for p in 0..2 {
            let (class, value, order) = self.patterns.cell(info.lines[p]);
            info.class[p] = class;
            info.value[p] = value;
            info.order[p] = order;
        }
    }

    /// Counts an empty cell's class and value in the totals.
    #[inline]
    fn add(&mut self, c: usize) {
        let info = &self.info[c];
        for p in 0..2 {
            self.counts[p][usize::from(info.class[p])] += 1;
            self.sums[p][0] += info.value[p][0];
            self.sums[p][1] += info.value[p][1];
        }
    }

    /// Takes a cell's class and value out of the totals.
    #[inline]
    fn remove(&mut self, c: usize) {
        let info = &self.info[c];
        for p in 0..2 {
            self.counts[p][usize::from(info.class[p])] -= 1;
            self.sums[p][0] -= info.value[p][0];
            self.sums[p][1] -= info.value[p][1];
        }
    }

    fn insert(&mut self, c: usize) {
        self.slot[c] = self.candidates.len() as u16;
        self.candidates.push(c as u16);
    }

    fn delete(&mut self, c: usize) {
        let at = usize::from(self.slot[c]);
        let last = self.candidates.pop().expect("a candidate");
        if usize::from(last) != c {
            self.candidates[at] = last;
            self.slot[usize::from(last)] = at as u16;
        }
        self.slot[c] = u16::MAX;
    }

    /// Length of the padded cell array: every index is below it.
    pub fn size(&self) -> usize {
        self.state.len()
    }
}

/// The next number of the SplitMix64 sequence.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn position(moves: &str) -> Position {
        let rules = Rules::gomoku();
        let moves: Vec<_> = moves
            .split_whitespace()
            .map(|m| rules.parse_move(m).expect("notation"))
            .collect();
        Position::from_moves(rules, &moves).expect("legal")
    }

    /// Everything kept incrementally equals a board built from scratch, after moves and
    /// after taking them back.
    #[test]
    fn incremental_state_matches_a_fresh_board() {
        use rand::rngs::SmallRng;
        use rand::{Rng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..20 {
            let mut pos = position("h8");
            let mut board = Board::new(&pos);
            let start = board.hash;
            for _ in 0..30 {
                let cands = board.candidates().to_vec();
                let c = usize::from(cands[rng.random_range(0..cands.len())]);
                let (col, row) = board.cell_of(c);
                board.place(c);
                pos.try_play(crate::rules::Move::Cell(crate::rules::Cell {
                    col: col as u8,
                    row: row as u8,
                }))
                .expect("legal");
                let fresh = Board::new(&pos);
                assert_same(&board, &fresh);
                if pos.is_over() {
                    break;
                }
            }
            while board.n > 1 {
                board.undo();
            }
            assert_same(&board, &Board::new(&position("h8")));
            assert_eq!(board.hash, start);
        }
    }

    fn assert_same(a: &Board, b: &Board) {
        assert_eq!(a.keys, b.keys);
        assert_eq!(a.counts, b.counts);
        assert_eq!(a.sums, b.sums);
        assert_eq!(a.hash, b.hash);
        for c in 0..a.state.len() {
            if a.state[c] == EMPTY {
                assert_eq!(a.info[c], b.info[c]);
            }
        }
        let mut x = a.candidates.clone();
        let mut y = b.candidates.clone();
        x.sort_unstable();
        y.sort_unstable();
        assert_eq!(x, y);
    }

    #[test]
    fn fours_and_fives_are_counted() {
        // X: h8 i8 j8 k8 (an open four); O elsewhere.
        let board = Board::new(&position("h8 a1 i8 a3 j8 a5 k8"));
        // O to move; X has two cells that complete five.
        assert_eq!(board.counts[0][usize::from(cell::FIVE)], 2);
        assert!(board.five_cell(0).is_some());
        assert_eq!(board.five_cell(1), None);
    }
}
