//! Proof that the player to move wins (or loses) on a big open board such as 7×7 or 8×8
//! with four in a row, where the general search skips far cells for both sides and so
//! proves nothing: a depth-limited AND/OR
//! search ("does the attacker win within `d` plies?") where the attacker plays only
//! cells near the stones and the defender is refuted on every cell, with a
//! transposition table over the board's symmetries and defender moves pruned by a
//! relevance zone.
//!
//! Soundness, step by step:
//!
//! - Leaving out attacker moves only makes winning harder: a win found is a win.
//! - A defender with a winning cell wins; an attacker with two winning cells (and the
//!   defender none) wins; with one, the defender's block is its only move that does not
//!   lose at once. These are the only places the defender is not searched full width,
//!   besides the zone below.
//! - The zone: at a defender node the search first lets the defender pass and looks
//!   for a short win of the attacker (the *null proof*) by a search that refutes every
//!   defender move (no zones inside, so one extra defender stone is all it must
//!   withstand). Its zone is every cell the proof relies on: the attacker's moves, the
//!   attacker's winning cells where a win or a forced block comes, and at every node
//!   where the attacker moves without winning at once, every empty cell of a window
//!   free of attacker stones that holds k - 2 or more defender stones (a defender stone
//!   there would give the defender a winning cell, or a win, that the proof never
//!   met). A defender stone anywhere else changes none of it: the attacker's moves and
//!   winning cells stay empty, the defender never gets a winning cell it did not have,
//!   and its moves in the proof are a superset of its moves with that stone. So every
//!   defender move outside the zone loses to the null proof, and only moves inside it
//!   are searched.
//! - Table entries are facts of the restricted game ("wins within `d`", "does not win
//!   within `d`"), each keyed by the smallest hash over the symmetries, which map the
//!   restriction onto itself; a win within `d` is a win within any more, a failure
//!   within `d` a failure within any fewer.
//!
//! A loss is the same question asked one ply earlier: the player to move is the
//! defender, and every one of its moves must be refuted.
//!
//! The plies of a win are counted from the attacker's move to its winning stone. The
//! true game may hold a quicker win through a cell the attacker never tried, so the
//! count is an upper bound (as [`Value::Win`](super::Value::Win) allows), not an exact
//! distance.
//!
//! One file for the search, its table and the replay that checks its proofs, with their
//! tests beside them (past 600 lines): the soundness argument above covers them together.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::Limits;
use super::bits::Bits;
use super::geometry::Geometry;
use super::search::{Board, Search, WIN, mate};
use crate::position::{GameStatus, Position};
use crate::rules::{Cell, Move};

/// Nodes between two looks at the clock and the cancel flag.
const POLL_INTERVAL: u64 = 4096;

/// Longest null proof looked for at a defender node, in plies: deeper ones cost more
/// than the moves they save.
const NULL_PLIES: u32 = 5;

/// Whether the AI's move choice runs the proof search first ([`judge`]) on lines of
/// `k`: at most four, where wins come quickly enough for it to find them (on boards
/// without gravity where the general search skips far cells: see `strategy`).
pub(crate) fn covers(k: u32) -> bool {
    k <= 4
}

/// Runs the proof search at the root (`roots`: each move's cell, score and exactness)
/// with at most half of the time budget and of the node budget, and records a win it
/// proves on the move that starts it (its plies an upper bound). Returns whether it
/// proved one.
pub(crate) fn judge<B: Bits>(
    geo: &Geometry<B>,
    board: &Board<B>,
    roots: &mut [(u32, &mut i32, &mut bool)],
    search: &mut Search<'_, B>,
    table_bits: u32,
    limits: &Limits,
    start: Instant,
) -> bool {
    if roots.iter().any(|(_, s, e)| **e && **s > WIN) {
        return false;
    }
    let deadline = match (limits.time, limits.nodes) {
        (Some(t), _) => Some(start + t / 2),
        (None, None) => Some(start + Limits::DEFAULT_TIME / 2),
        (None, Some(_)) => None,
    };
    let mut attack = Attack::new(
        geo,
        table_bits,
        limits.nodes.map_or(u64::MAX, |n| n / 2),
        deadline,
        limits.cancel.as_deref(),
    );
    let win = attack.win(board, geo.cells - board.n);
    search.nodes += attack.nodes;
    let Some((plies, first)) = win else {
        return false;
    };
    let Some((_, score, exact)) = roots.iter_mut().find(|(cell, ..)| *cell == first) else {
        return false;
    };
    **score = mate(geo.cells, board.n + plies);
    **exact = true;
    true
}

/// The position with the other player to move, as after a pass. Its hashes carry a
/// mark of the pass, so the table never mistakes it (or a position after it) for the
/// position with the usual player to move.
fn pass<B: Bits>(board: &Board<B>, geo: &Geometry<B>) -> Board<B> {
    const PASS: u64 = 0x6a09_e667_f3bc_c909;
    let mut hash = board.hash;
    for h in hash.iter_mut().take(geo.symmetries) {
        *h ^= PASS;
    }
    Board {
        me: board.opp(),
        mask: board.mask,
        // The parity of `n` says whose stone the next move is.
        n: board.n + 1,
        hash,
    }
}

/// Bytes per table entry.
const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// Table size (as a power of two of entries) that fits in `bytes`, at least 2^10.
pub(crate) fn table_bits(bytes: usize) -> u32 {
    (bytes / ENTRY_BYTES).max(1 << 10).ilog2()
}

/// One table entry: what is proven of a position for the attacker to move.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// Fewest plies the attacker is proven to win within; 0 when none is.
    win: u16,
    /// Most plies the attacker is proven not to win within (0: nothing proven).
    fail: u16,
    /// The winning move's canonical bit plus one, 0 when none.
    mv: u16,
}

/// A proof search with its limits, counters and table.
pub(crate) struct Attack<'a, B: Bits> {
    geo: &'a Geometry<B>,
    table: Vec<Entry>,
    /// Nodes visited (main search and null proofs).
    pub nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
    /// Set once a limit is reached: every result after it is discarded.
    pub stopped: bool,
    /// The other question, "is there no win within `d`?": the attacker plays every
    /// cell and the defender only cells near the stones (leaving out defender moves
    /// only makes refuting harder), so a failure found is a true failure and a win
    /// found proves nothing. The table's entries are then facts of that game.
    refute: bool,
}

impl<'a, B: Bits> Attack<'a, B> {
    /// A search with a table of `2^table_bits` entries and these limits (a node limit
    /// of `u64::MAX` is none).
    pub fn new(
        geo: &'a Geometry<B>,
        table_bits: u32,
        node_limit: u64,
        deadline: Option<Instant>,
        cancel: Option<&'a AtomicBool>,
    ) -> Attack<'a, B> {
        Attack {
            geo,
            table: vec![Entry::default(); 1 << table_bits],
            nodes: 0,
            node_limit,
            deadline,
            cancel,
            stopped: false,
            refute: false,
        }
    }

    /// This search asking the other question: whether the player to move is proven
    /// *not* to win within `d` plies ([`Attack::refute`]).
    pub fn refuting(mut self) -> Attack<'a, B> {
        self.refute = true;
        self
    }

    /// Whether the player to move at `board` is proven not to win within `plies` plies
    /// (a search made with [`Attack::refuting`]); `false` when it may win, or a limit
    /// stopped the search.
    pub fn refute(&mut self, board: &Board<B>, plies: u32) -> bool {
        debug_assert!(self.refute);
        !self.attacker(board, plies) && !self.stopped
    }

    fn visit(&mut self) -> bool {
        self.nodes += 1;
        if (self.nodes.is_multiple_of(POLL_INTERVAL) || self.nodes >= self.node_limit)
            && (self.nodes >= self.node_limit
                || self.deadline.is_some_and(|d| Instant::now() >= d)
                || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)))
        {
            self.stopped = true;
        }
        !self.stopped
    }

    /// The fewest plies (odd, at most `max_plies`) within which the player to move is
    /// proven to win, and the first move of that win, by iterative deepening; `None`
    /// when no win is found within `max_plies` or a limit stops the search.
    pub fn win(&mut self, board: &Board<B>, max_plies: u32) -> Option<(u32, u32)> {
        let mut d = 1;
        while d <= max_plies {
            if self.attacker(board, d) {
                return self.first_move(board, d).map(|m| (d, m));
            }
            if self.stopped {
                return None;
            }
            d += 2;
        }
        None
    }

    /// A proven outcome for the player to move at `board` within `max_plies` plies, the
    /// fewest found by iterative deepening: `Some((true, plies))` for a win within
    /// `plies`, `Some((false, plies))` for a loss within `plies` (the opponent's
    /// winning stone at the latest that many plies ahead, whatever is played). `None`
    /// when neither is found or a limit stops the search.
    pub fn outcome(&mut self, board: &Board<B>, max_plies: u32) -> Option<(bool, u32)> {
        let passed = pass(board, self.geo);
        let max_plies = max_plies.min(u32::from(u16::MAX));
        // Odd plies ask for a win, even ones for a loss, each loss after the win one
        // ply further (the two cannot both hold, and the win is the cheaper search).
        for d in (1..=max_plies + 1).step_by(2) {
            if d <= max_plies && self.attacker(board, d) {
                return Some((true, d));
            }
            // A loss is only looked for when passing would lose as quickly: a stone
            // never hurts its owner on an open board, so otherwise no move loses that
            // quickly either (as a rule, in the restricted game: this only saves time,
            // it proves nothing).
            let e = d - 1;
            if e >= 2 && self.attacker(&passed, e - 1) && self.defender(board, e) {
                return Some((false, e));
            }
            if self.stopped {
                return None;
            }
        }
        None
    }

    /// The attacker's move at `board` that the table names for a win within `d`.
    pub fn first_move(&mut self, board: &Board<B>, d: u32) -> Option<u32> {
        let geo = self.geo;
        if let Some(w) = { geo.winning_cells(board.me, board.mask) }.pop() {
            return Some(w);
        }
        let (key, sym) = board.key(geo.symmetries);
        let entry = self.table[self.slot(key)];
        if entry.key == key && entry.mv > 0 && u32::from(entry.win) <= d {
            return Some(geo.preimage(sym, entry.mv - 1));
        }
        None
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    fn store(&mut self, board: &Board<B>, d: u32, won: Option<u32>) {
        let (key, sym) = board.key(self.geo.symmetries);
        let slot = self.slot(key);
        let mut e = self.table[slot];
        if e.key != key {
            e = Entry {
                key,
                ..Entry::default()
            };
        }
        match won {
            Some(m) => {
                if e.win == 0 || d < u32::from(e.win) {
                    e.win = d as u16;
                    e.mv = self.geo.image(sym, m) + 1;
                }
            }
            None => e.fail = e.fail.max(d as u16),
        }
        self.table[slot] = e;
    }

    /// What the table proves of `board` within `d` plies.
    fn probe(&self, board: &Board<B>, d: u32) -> Option<bool> {
        let (key, _) = board.key(self.geo.symmetries);
        let e = self.table[self.slot(key)];
        if e.key != key {
            return None;
        }
        if e.win > 0 && u32::from(e.win) <= d {
            return Some(true);
        }
        if u32::from(e.fail) >= d {
            return Some(false);
        }
        None
    }

    /// Cells the attacker may play at `board` (none forced): those near the stones.
    fn attacker_cells(&self, mask: B) -> B {
        let geo = self.geo;
        if mask.is_zero() {
            let centre = B::bit(geo.bit_of(geo.width / 2, geo.height / 2));
            geo.near(centre) | centre
        } else {
            geo.near(mask)
        }
    }

    /// The attacker's candidate moves, best first: most winning cells made, then the
    /// heuristic.
    fn attacker_order(&self, att: B, def: B, mut moves: B, out: &mut Vec<u32>) {
        let geo = self.geo;
        let mask = att | def;
        let mut scored: Vec<(i64, u32)> = Vec::new();
        while let Some(m) = moves.pop() {
            let stone = B::bit(m);
            let wins = geo.winning_cells(att | stone, mask | stone).count();
            let value = i64::from(wins) * 10_000_000 + i64::from(geo.evaluate(att | stone, def));
            scored.push((value, m));
        }
        scored.sort_unstable_by(|a, b| b.cmp(a));
        out.extend(scored.iter().map(|&(_, m)| m));
    }

    /// Whether the attacker (to move at `b`) wins within `d` plies.
    fn attacker(&mut self, b: &Board<B>, d: u32) -> bool {
        if !self.visit() {
            return false;
        }
        let geo = self.geo;
        let (att, def, mask) = (b.me, b.opp(), b.mask);
        if !geo.winning_cells(att, mask).is_zero() {
            return true;
        }
        if d < 3 || b.n + 3 > geo.cells {
            return false;
        }
        let threats = geo.winning_cells(def, mask);
        let moves = match threats.count() {
            0 if self.refute => geo.board & !mask,
            0 => self.attacker_cells(mask),
            1 => threats,
            _ => return false,
        };
        if let Some(known) = self.probe(b, d) {
            return known;
        }
        let mut list = Vec::new();
        // The table's move first.
        let (key, sym) = b.key(geo.symmetries);
        let e = self.table[self.slot(key)];
        let hint = (e.key == key && e.mv > 0).then(|| geo.preimage(sym, e.mv - 1));
        if let Some(h) = hint.filter(|&h| moves.has(h)) {
            list.push(h);
        }
        self.attacker_order(att, def, moves, &mut list);
        for (i, &m) in list.iter().enumerate() {
            if i > 0 && Some(m) == hint {
                continue;
            }
            let child = b.play(geo, m);
            if self.defender(&child, d - 1) {
                self.store(b, d, Some(m));
                return true;
            }
            if self.stopped {
                return false;
            }
        }
        self.store(b, d, None);
        false
    }

    /// Whether the attacker wins within `d` plies of `b`, where the defender is to move
    /// (its move counted in `d`).
    fn defender(&mut self, b: &Board<B>, d: u32) -> bool {
        if !self.visit() {
            return false;
        }
        let geo = self.geo;
        let (def, att, mask) = (b.me, b.opp(), b.mask);
        if !geo.winning_cells(def, mask).is_zero() {
            return false;
        }
        let wins = geo.winning_cells(att, mask);
        match wins.count() {
            0 => {}
            1 => {
                let child = b.play(geo, { wins }.pop().expect("one cell"));
                return self.attacker(&child, d - 1);
            }
            _ => return true,
        }
        // No winning cell now, and a defender move makes none: a win in one is out.
        if d < 4 || b.n + 2 > geo.cells {
            return false;
        }
        let empty = geo.board & !mask;
        let moves = if self.refute {
            self.attacker_cells(mask)
        } else {
            let zone = self.null_zone(att, def, (d - 1).min(NULL_PLIES));
            if self.stopped {
                return false;
            }
            zone.map_or(empty, |z| z & empty)
        };
        let mut list: Vec<(i32, u32)> = Vec::new();
        let mut cells = moves;
        while let Some(m) = cells.pop() {
            let stone = B::bit(m);
            // Blocking the attacker's lines first: the likeliest refutations.
            list.push((geo.evaluate(def | stone, att), m));
        }
        list.sort_unstable_by(|a, b| b.cmp(a));
        for &(_, m) in &list {
            let child = b.play(geo, m);
            if !self.attacker(&child, d - 1) {
                return false;
            }
        }
        !self.stopped && !list.is_empty()
    }

    /// Null proof: if the defender (`def`) passed and the attacker (`att`) moved again,
    /// a win of the attacker within `d` plies found with every defender move refuted,
    /// and its zone (see the module header). `None` when there is none.
    fn null_zone(&mut self, att: B, def: B, d: u32) -> Option<B> {
        self.zone_attacker(att, def, d)
    }

    fn zone_attacker(&mut self, att: B, def: B, d: u32) -> Option<B> {
        if !self.visit() {
            return None;
        }
        let geo = self.geo;
        let mask = att | def;
        if let Some(w) = { geo.winning_cells(att, mask) }.pop() {
            return Some(B::bit(w));
        }
        if d < 3 || (mask.count() + 3 > geo.cells) {
            return None;
        }
        let threats = geo.winning_cells(def, mask);
        let moves = match threats.count() {
            0 => self.attacker_cells(mask),
            1 => threats,
            _ => return None,
        };
        let spoilers = geo.window_cells(def, att, geo.k - 2, true);
        let mut list = Vec::new();
        self.attacker_order(att, def, moves, &mut list);
        for &m in &list {
            let stone = B::bit(m);
            if let Some(zone) = self.zone_defender(att | stone, def, d - 1) {
                return Some(zone | stone | spoilers);
            }
            if self.stopped {
                return None;
            }
        }
        None
    }

    fn zone_defender(&mut self, att: B, def: B, d: u32) -> Option<B> {
        if !self.visit() {
            return None;
        }
        let geo = self.geo;
        let mask = att | def;
        if !geo.winning_cells(def, mask).is_zero() {
            return None;
        }
        let wins = geo.winning_cells(att, mask);
        match wins.count() {
            0 => {}
            1 => return self.zone_attacker(att, def | wins, d - 1).map(|z| z | wins),
            _ => return Some(wins),
        }
        if d < 4 || mask.count() + 2 > geo.cells {
            return None;
        }
        let mut zone = B::zero();
        let mut cells = geo.board & !mask;
        while let Some(m) = cells.pop() {
            zone |= self.zone_attacker(att, def | B::bit(m), d - 1)?;
        }
        Some(zone)
    }
}

/// A replay of a proof, for tests: with the attacker to move at `position`, plays the
/// move the search proves wins within `d` plies, then every legal defender reply (no
/// zone: every cell), and so on until the attacker's line stands, checked by
/// [`Position`]'s own rules rather than the bitboards. `seen` holds the positions
/// (canonical keys) already checked with their plies; `count` the attacker positions
/// checked. `Err` gives the first position where the attacker has no proven winning
/// move, or the defender has won.
pub(crate) fn replay<B: Bits>(
    attack: &mut Attack<'_, B>,
    position: &mut Position,
    board: &Board<B>,
    d: u32,
    seen: &mut HashMap<u64, u32>,
    count: &mut u64,
) -> Result<(), Box<Position>> {
    let geo = attack.geo;
    let (key, _) = board.key(geo.symmetries);
    if seen.get(&key).is_some_and(|&done| done <= d) {
        return Ok(());
    }
    *count += 1;
    let mut mv = attack.first_move(board, d);
    if mv.is_none() && attack.attacker(board, d) {
        mv = attack.first_move(board, d);
    }
    let Some(bit) = mv.filter(|_| d >= 1) else {
        return Err(Box::new(position.clone()));
    };
    let attacker = position.to_move();
    let stride = geo.height + 1;
    let cell = Cell {
        col: (bit / stride) as u8,
        row: (bit % stride) as u8,
    };
    position
        .try_play(Move::Cell(cell))
        .map_err(|_| Box::new(position.clone()))?;
    let mut result = Ok(());
    match position.status() {
        GameStatus::Won { winner, .. } if winner == attacker => {}
        GameStatus::InProgress { .. } if d >= 3 => {
            let after = board.play(geo, bit);
            for reply in position.legal_moves() {
                let Move::Cell(c) = reply else {
                    unreachable!("open boards take cells")
                };
                position.try_play(reply).expect("a legal move");
                let child = after.play(geo, geo.bit_of(c.col.into(), c.row.into()));
                result = if position.is_over() {
                    Err(Box::new(position.clone()))
                } else {
                    replay(attack, position, &child, d - 2, seen, count)
                };
                position.undo();
                if result.is_err() {
                    break;
                }
            }
        }
        _ => result = Err(Box::new(position.clone())),
    }
    position.undo();
    if result.is_ok() {
        seen.insert(key, d);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn cells(geo: &Geometry<u64>, names: &[&str]) -> u64 {
        names.iter().fold(0, |acc, name| {
            let col = u32::from(name.as_bytes()[0] - b'a');
            let row: u32 = name[1..].parse::<u32>().expect("a row") - 1;
            acc | u64::bit(geo.bit_of(col, row))
        })
    }

    /// The null proof's zone holds its own cells and the defender's spoilers, and
    /// nothing the proof does not rely on.
    #[test]
    fn the_zone_holds_the_proof_and_the_spoilers() {
        let geo = Geometry::<u64>::new(Rules::new(7, 7, 4, false).expect("valid"));
        let mut attack = Attack::new(&geo, 10, u64::MAX, None, None);
        // X's open two on row 4; two O stones on row 7.
        let (att, def) = (cells(&geo, &["c4", "d4"]), cells(&geo, &["a7", "b7"]));
        let zone = attack
            .zone_attacker(att, def, 3)
            .expect("an open three wins");
        // A third stone beside the two and its two winning cells.
        let three = cells(&geo, &["b4", "e4"]) & zone;
        assert_ne!(three, 0, "{zone:#x}");
        let both = cells(&geo, &["a4", "b4", "e4", "f4"]);
        assert!((zone & both).count_ones() >= 3, "{zone:#x}");
        // An O stone on c7 or d7 would make a third O stone in the window a7-d7: a
        // winning cell for O.
        let spoilers = cells(&geo, &["c7", "d7"]);
        assert_eq!(zone & spoilers, spoilers);
        // Every window through these holds at most one O stone, and the proof is on
        // row 4: a stone there changes nothing.
        assert_eq!(zone & cells(&geo, &["e7", "a1", "g1", "g7"]), 0);
    }

    #[test]
    fn a_pass_is_another_position_for_the_table() {
        let geo = Geometry::<u64>::new(Rules::new(7, 7, 4, false).expect("valid"));
        let board = Board::empty().play(&geo, geo.bit_of(3, 3));
        let passed = pass(&board, &geo);
        assert_eq!(passed.me, board.opp());
        assert_ne!(passed.key(geo.symmetries).0, board.key(geo.symmetries).0);
        assert_eq!(table_bits(0), 10);
        assert_eq!(table_bits(4 << 20), 18);
    }
}
