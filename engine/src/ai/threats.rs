//! Threat-space search (after Allis): wins forced by a chain of fours (VCF), or of fours
//! and threes (VCT), found without a full-width search, on boards without gravity.
//!
//! A *four* is a move after which the attacker has a cell that completes a line (a
//! *winning cell*); with one such cell the defender's reply is forced, with two it is
//! lost. A *three* is a move after which the attacker would have a VCF if the defender
//! passed. Every result is a proof, never a guess:
//!
//! - at each attacker turn the defender's own winning cells come first: two lose, one
//!   must be blocked, and the block must itself be a threat;
//! - a four's reply is the one cell that stops the line (every other reply loses at
//!   once), and the defender's block is played, so a counter-four it makes is answered;
//! - after a three, every defence that could matter is played and refuted by a deeper
//!   search: the cells of the threatened VCF line (its moves, its replies and every
//!   winning cell along it), and every cell that would give the defender a four or a
//!   five during that line. Any other defender stone leaves the line exactly as it was
//!   (same fours, same forced replies, no new defender threat), so it loses to it.
//!
//! Plies are counted from the attacker's first move to the winning stone along the
//! proof, with the defender taking the longest defence the proof considers. The true
//! distance can be shorter (another route may win sooner), so a threat result is an
//! *upper bound* on the plies to a win, and the search uses it as a bound (a lower
//! bound on the attacker's score), never as an exact value.
//!
//! One file (past 600 lines with its tests): VCF, VCT and the verdicts on the root moves
//! share one [`Threats`] state and its memory of refuted positions.

use std::collections::HashSet;
use std::time::Instant;

use super::Limits;
use super::bits::Bits;
use super::general::board_of;
use super::geometry::Geometry;
use crate::position::Position;
use crate::rules::{Cell, Move};

use super::search::{Board, Search, WIN, mate};

/// Nodes between two looks at the clock.
const POLL_INTERVAL: u64 = 256;

/// A VCF line found for the attacker to move.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proof<B: Bits> {
    /// Plies from the attacker's first move to its winning stone, both included.
    pub plies: u32,
    /// The attacker's first move.
    pub first: u32,
    /// Every cell the line relies on: the attacker's moves, the defender's forced
    /// replies and every winning cell the attacker had along the way.
    pub cells: B,
    /// The defender's forced replies.
    pub replies: B,
}

/// One threat search: node budget, deadline, and the positions already refuted.
pub(crate) struct Threats<'a, B: Bits> {
    geo: &'a Geometry<B>,
    /// Nodes visited, over every search made with this value.
    pub nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    /// Set once the budget or the deadline is reached: every later search fails.
    pub stopped: bool,
    /// Hashes of (attacker, defender) positions with no VCF, and of VCT searches that
    /// failed with a given number of threes: a transposition never searched twice.
    failed: HashSet<u64>,
}

/// Whether threat search applies to these rules: no gravity (a four's reply is then
/// always playable) and lines of at least three (so fours and threes exist).
pub(crate) fn applies<B: Bits>(geo: &Geometry<B>) -> bool {
    !geo.gravity && covers(geo.k)
}

/// Whether lines of `k` have fours and threes: at least three.
pub(crate) fn covers(k: u32) -> bool {
    k >= 3
}

impl<'a, B: Bits> Threats<'a, B> {
    /// A search that gives up after `budget` nodes or at `deadline`.
    pub fn new(geo: &'a Geometry<B>, budget: u64, deadline: Option<Instant>) -> Threats<'a, B> {
        Threats {
            geo,
            nodes: 0,
            budget,
            deadline,
            stopped: false,
            failed: HashSet::new(),
        }
    }

    /// Allows `more` nodes beyond those spent so far (the deadline stays).
    pub fn extend_budget(&mut self, more: u64) {
        self.budget = self.nodes.saturating_add(more);
        self.stopped = self.deadline.is_some_and(|d| Instant::now() >= d);
    }

    fn visit(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.budget
            || (self.nodes.is_multiple_of(POLL_INTERVAL)
                && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
        !self.stopped
    }

    /// Hash of a position with the attacker's stones `att` and the defender's `def`.
    fn hash(&self, att: B, def: B) -> u64 {
        let mut h = 0;
        for (side, mut stones) in [(0, att), (1, def)] {
            while let Some(bit) = stones.pop() {
                h ^= self.geo.key(0, side, bit);
            }
        }
        h
    }

    /// Empty cells lying in a k-window free of `others` that holds exactly `count`
    /// stones of `stones` (or at least `count` when `at_least`).
    pub fn window_cells(&self, stones: B, others: B, count: u32, at_least: bool) -> B {
        self.geo.window_cells(stones, others, count, at_least)
    }

    /// Moves that make a four: cells in an open window one stone short of a four.
    fn four_moves(&self, att: B, def: B) -> B {
        let k = self.geo.k;
        self.window_cells(att, def, k - 2, false)
    }

    /// A VCF for the attacker (`att`) to move against `def`, if one is found within the
    /// budget: a line of fours ending in a winning stone.
    pub fn vcf(&mut self, att: B, def: B) -> Option<Proof<B>> {
        let hash = self.hash(att, def);
        self.vcf_from(att, def, hash)
    }

    fn vcf_from(&mut self, att: B, def: B, hash: u64) -> Option<Proof<B>> {
        if !self.visit() {
            return None;
        }
        let geo = self.geo;
        let mask = att | def;
        let wins = geo.winning_cells(att, mask);
        if let Some(first) = { wins }.pop() {
            return Some(Proof {
                plies: 1,
                first,
                cells: wins,
                replies: B::zero(),
            });
        }
        let threats = geo.winning_cells(def, mask);
        if threats.count() >= 2 || self.failed.contains(&hash) {
            return None;
        }
        let mut fours = self.four_moves(att, def);
        if !threats.is_zero() {
            // The defender's four must be blocked, and the block must be a four.
            fours &= threats;
        }
        // Double fours first: they win at once.
        let mut singles = B::list();
        let singles = singles.as_mut();
        let mut count = 0;
        let mut moves = fours;
        while let Some(m) = moves.pop() {
            let stone = B::bit(m);
            let wins = geo.winning_cells(att | stone, mask | stone);
            match wins.count() {
                0 => {}
                1 => {
                    singles[count] = m;
                    count += 1;
                }
                _ => {
                    return Some(Proof {
                        plies: 3,
                        first: m,
                        cells: stone | wins,
                        replies: B::zero(),
                    });
                }
            }
        }
        for &m in singles[..count].iter() {
            let stone = B::bit(m);
            let block = geo.winning_cells(att | stone, mask | stone);
            let Some(reply) = { block }.pop() else {
                continue;
            };
            let child = hash ^ geo.key(0, 0, m) ^ geo.key(0, 1, reply);
            if let Some(line) = self.vcf_from(att | stone, def | block, child) {
                return Some(Proof {
                    plies: line.plies + 2,
                    first: m,
                    cells: line.cells | stone | block,
                    replies: line.replies | block,
                });
            }
            if self.stopped {
                return None;
            }
        }
        if !self.stopped {
            self.failed.insert(hash);
        }
        None
    }

    /// The cells where a defender stone could change the VCF line `line` that the
    /// attacker (`att`) has against `def`: the line's own cells, and every cell that
    /// would give the defender a four or a five while the line is played (a window free
    /// of the attacker's stones holding k - 2 of the defender's stones, replies
    /// included). A defender stone anywhere else leaves the line valid.
    pub fn relevant(&self, att: B, def: B, line: &Proof<B>) -> B {
        let k = self.geo.k;
        let spoilers = self.window_cells(def | line.replies, att, k - 2, true);
        (line.cells | spoilers) & self.geo.board & !(att | def)
    }

    /// A VCT (fours and at most `threes` threes) for the attacker to move, if one is
    /// found within the budget: `(plies, first move)`, plies an upper bound.
    pub fn vct(&mut self, att: B, def: B, threes: u32) -> Option<(u32, u32)> {
        let hash = self.hash(att, def);
        self.vct_from(att, def, hash, threes)
    }

    fn vct_from(&mut self, att: B, def: B, hash: u64, threes: u32) -> Option<(u32, u32)> {
        if let Some(line) = self.vcf_from(att, def, hash) {
            return Some((line.plies, line.first));
        }
        if threes == 0 || self.stopped {
            return None;
        }
        let geo = self.geo;
        let k = geo.k;
        let mask = att | def;
        let threats = geo.winning_cells(def, mask);
        if threats.count() >= 2 {
            return None;
        }
        let key = hash ^ u64::from(threes).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        if self.failed.contains(&key) {
            return None;
        }
        let mut fours = self.four_moves(att, def);
        let mut makers = self.window_cells(att, def, k - 3, false) & !fours;
        if !threats.is_zero() {
            fours &= threats;
            makers &= threats;
        }
        // Fours that lead on to a VCT (the VCF search above tried fours alone).
        let mut moves = fours;
        while let Some(m) = moves.pop() {
            let stone = B::bit(m);
            let block = geo.winning_cells(att | stone, mask | stone);
            match block.count() {
                0 => continue,
                1 => {}
                _ => return Some((3, m)),
            }
            let reply = { block }.pop().expect("one cell");
            let child = hash ^ geo.key(0, 0, m) ^ geo.key(0, 1, reply);
            if let Some((plies, _)) = self.vct_from(att | stone, def | block, child, threes) {
                return Some((plies + 2, m));
            }
            if self.stopped {
                return None;
            }
        }
        // Threes: moves after which the attacker threatens a VCF; every defence that
        // could matter must be refuted.
        let mut moves = makers;
        'three: while let Some(m) = moves.pop() {
            let stone = B::bit(m);
            let (att2, mask2) = (att | stone, mask | stone);
            let hash2 = hash ^ geo.key(0, 0, m);
            // The defender passes: is there a VCF? (The defender has no winning cell
            // now: it had none, or `m` took it.)
            let Some(line) = self.vcf_from(att2, def, hash2) else {
                if self.stopped {
                    return None;
                }
                continue;
            };
            // Any defence outside the relevant cells loses to `line`, one ply later.
            let mut worst = line.plies + 1;
            let mut defences = self.relevant(att2, def, &line);
            while let Some(d) = defences.pop() {
                debug_assert!(!mask2.has(d));
                let child = hash2 ^ geo.key(0, 1, d);
                match self.vct_from(att2, def | B::bit(d), child, threes - 1) {
                    Some((plies, _)) => worst = worst.max(plies + 1),
                    None if self.stopped => return None,
                    None => continue 'three,
                }
            }
            return Some((worst + 1, m));
        }
        if !self.stopped {
            self.failed.insert(key);
        }
        None
    }
}

/// Most threes in a VCT the root looks for, by iterative deepening from zero.
const ROOT_THREES: u32 = 3;
/// Threes in the VCT checked after each candidate defence at the root.
const DEFENCE_THREES: u32 = 1;

/// Node budget of the threat search at the root.
const ROOT_NODES: u64 = 400_000;

/// Runs the threat search at the root of a big board (`roots`: each move's cell, score
/// and exactness, updated with what is proven) and returns whether it found a win. It
/// takes at most a quarter of the time budget and half of the node budget.
pub(crate) fn judge<B: Bits>(
    geo: &Geometry<B>,
    board: &Board<B>,
    roots: &mut [(u32, &mut i32, &mut bool)],
    search: &mut Search<'_, B>,
    limits: &Limits,
    start: Instant,
) -> bool {
    if !geo.restrict || !applies(geo) {
        return false;
    }
    search.enable_threats();
    if roots.iter().any(|(_, s, e)| **e && **s > WIN) {
        return false;
    }
    let budget = limits.nodes.map_or(ROOT_NODES, |n| (n / 2).min(ROOT_NODES));
    let deadline = match (limits.time, limits.nodes) {
        (Some(t), _) => Some(start + t / 4),
        (None, None) => Some(start + Limits::DEFAULT_TIME / 4),
        (None, Some(_)) => None,
    };
    let open: Vec<usize> = (0..roots.len()).filter(|&i| !*roots[i].2).collect();
    let moves: Vec<u32> = open.iter().map(|&i| roots[i].0).collect();
    let (verdicts, nodes) = judge_roots(
        geo,
        board.me,
        board.opp(),
        board.n,
        &moves,
        budget,
        deadline,
    );
    search.nodes += nodes;
    let mut won = false;
    for (&i, verdict) in open.iter().zip(verdicts) {
        if let Some(score) = verdict {
            *roots[i].1 = score;
            *roots[i].2 = true;
            won |= score > WIN;
        }
    }
    won
}

/// Proven values, by threat search, of moves of the root position (`me` to move against
/// `opp`, `n` stones on the board): `Some(score)` in the search's score scale for a move
/// that wins by a VCT or loses to the opponent's VCF or VCT, the distance in the score
/// being an upper bound (see the module header). `moves` must not hold a winning cell
/// of `me` (a win in one is valued before this). Returns the verdicts and the nodes
/// spent.
pub(crate) fn judge_roots<B: Bits>(
    geo: &Geometry<B>,
    me: B,
    opp: B,
    n: u32,
    moves: &[u32],
    budget: u64,
    deadline: Option<Instant>,
) -> (Vec<Option<i32>>, u64) {
    let cells = geo.cells;
    let mut verdicts = vec![None; moves.len()];
    let mut t = Threats::new(geo, budget, deadline);
    // A win of my own comes first: it answers everything the opponent threatens.
    for threes in 0..=ROOT_THREES {
        if let Some((plies, first)) = t.vct(me, opp, threes)
            && let Some(i) = moves.iter().position(|&m| m == first)
        {
            verdicts[i] = Some(mate(cells, n + plies));
            return (verdicts, t.nodes);
        }
        if t.stopped {
            break;
        }
    }
    // The opponent's threat if I passed; then which of my moves still lose to one.
    let spent = t.nodes;
    t.extend_budget(budget.saturating_sub(spent));
    let null_line = t.vcf(opp, me);
    let relevant = match &null_line {
        Some(line) => t.relevant(opp, me, line),
        None => {
            if t.vct(opp, me, DEFENCE_THREES).is_none() {
                return (verdicts, t.nodes);
            }
            geo.board
        }
    };
    for (verdict, &d) in verdicts.iter_mut().zip(moves) {
        if t.stopped {
            break;
        }
        let plies = match &null_line {
            // Outside the relevant cells the same line wins.
            Some(line) if !relevant.has(d) => Some(line.plies),
            _ => t.vct(opp, me | B::bit(d), DEFENCE_THREES).map(|(p, _)| p),
        };
        if let Some(plies) = plies {
            *verdict = Some(-mate(cells, n + 1 + plies));
        }
    }
    (verdicts, t.nodes)
}

/// A VCT of at most `threes` threes (0: a VCF) for the player to move, found within
/// `nodes` nodes: `(plies, first move)`, plies an upper bound on the distance to the
/// winning stone. `None` on a board with gravity or k < 3, or when the game is over.
/// For puzzle generation and tests, not for players.
#[doc(hidden)]
pub fn threat_win(position: &Position, threes: u32, nodes: u64) -> Option<(u32, Move)> {
    fn run<B: Bits>(position: &Position, threes: u32, nodes: u64) -> Option<(u32, Move)> {
        let geo = Geometry::<B>::new(position.rules());
        if !applies(&geo) || position.is_over() {
            return None;
        }
        let board = board_of(&geo, position);
        let mut t = Threats::new(&geo, nodes, None);
        (0..=threes)
            .find_map(|t3| t.vct(board.me, board.opp(), t3))
            .map(|(plies, first)| (plies, move_of(&geo, first)))
    }
    dispatch!(position, run(position, threes, nodes))
}

/// The legal moves of the player to move that the threat search proves lost (to the
/// opponent's VCF or VCT, within `nodes` nodes in all), each with an upper bound on the
/// plies to the opponent's winning stone, counting the move itself. Empty when the
/// player to move has a win of its own or the rules do not allow threat search. For
/// puzzle generation and tests, not for players.
#[doc(hidden)]
pub fn hopeless_moves(position: &Position, nodes: u64) -> Vec<(Move, u32)> {
    fn run<B: Bits>(position: &Position, nodes: u64) -> Vec<(Move, u32)> {
        let geo = Geometry::<B>::new(position.rules());
        if !applies(&geo) || position.is_over() {
            return Vec::new();
        }
        let board = board_of(&geo, position);
        if !geo.winning_cells(board.me, board.mask).is_zero() {
            return Vec::new();
        }
        let moves: Vec<u32> = {
            let mut empty = geo.playable(board.mask);
            std::iter::from_fn(|| empty.pop()).collect()
        };
        let (verdicts, _) = judge_roots(&geo, board.me, board.opp(), board.n, &moves, nodes, None);
        let p = |score: i32| geo.cells + 1 - (-score - WIN) as u32 - board.n;
        moves
            .iter()
            .zip(verdicts)
            .filter_map(|(&m, v)| v.filter(|&s| s < -WIN).map(|s| (move_of(&geo, m), p(s))))
            .collect()
    }
    dispatch!(position, run(position, nodes))
}

/// The cell of a bit as a move.
fn move_of<B: Bits>(geo: &Geometry<B>, bit: u32) -> Move {
    let stride = geo.height + 1;
    Move::Cell(Cell {
        col: (bit / stride) as u8,
        row: (bit % stride) as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn stones(geo: &Geometry<u128>, cells: &str) -> u128 {
        cells.split_whitespace().fold(0, |acc, text| {
            let col = u32::from(text.as_bytes()[0] - b'a');
            let row: u32 = text[1..].parse().expect("row");
            acc | u128::bit(geo.bit_of(col, row - 1))
        })
    }

    #[test]
    fn finds_a_vcf_and_its_length() {
        let geo = Geometry::<u128>::new(Rules::new(9, 9, 5, false).expect("valid"));
        // X: a broken four in two lines meeting at e5 is a double four at once.
        let x = stones(&geo, "b5 c5 d5 e2 e3 e4");
        let o = stones(&geo, "a5 e1 i9 h9 g9 a9");
        let mut threats = Threats::new(&geo, 10_000, None);
        let proof = threats.vcf(x, o).expect("a VCF");
        assert_eq!(proof.plies, 3);
        assert_eq!(proof.first, geo.bit_of(4, 4));
        // Without the vertical stones there is no four to make twice.
        let x = stones(&geo, "b5 c5 d5");
        assert!(threats.vcf(x, o).is_none());
    }

    #[test]
    fn open_three_is_a_vct_but_not_a_vcf() {
        let geo = Geometry::<u128>::new(Rules::new(9, 9, 5, false).expect("valid"));
        // Two open twos crossing at e5: e5 makes two open threes, O blocks one, X makes
        // an open four of the other.
        let x = stones(&geo, "c5 d5 e3 e4");
        let o = stones(&geo, "a1 i9 a9");
        let mut threats = Threats::new(&geo, 1_000_000, None);
        assert!(threats.vcf(x, o).is_none());
        assert!(threats.vct(x, o, 0).is_none());
        let (plies, first) = threats.vct(x, o, 1).expect("a VCT");
        assert_eq!((plies, first), (5, geo.bit_of(4, 4)));
    }

    /// Random positions of small boards: every VCF and VCT found is checked against the
    /// exact solver (itself checked against plain minimax in tests/oracle.rs), and every
    /// defence the threat search calls hopeless is confirmed lost.
    #[test]
    fn threat_results_agree_with_the_solver() {
        use super::super::search::{Board, INF, Search, WIN, mate};
        use super::super::table::Table;
        use rand::rngs::SmallRng;
        use rand::{Rng, SeedableRng};

        let mut rng = SmallRng::seed_from_u64(9);
        let (mut wins, mut hopeless) = (0, 0);
        for (w, h, k, stones) in [
            (6, 6, 4, 9..=16),
            (5, 5, 4, 7..=12),
            (6, 6, 5, 12..=18),
            (8, 5, 5, 18..=24),
        ] {
            let rules = Rules::new(w, h, k, false).expect("valid");
            let geo = Geometry::<u64>::new(rules);
            let mut table = Table::new(1 << 22);
            table.prepare(rules);
            // The exact value of a board for the player to move, as a signed ply count:
            // +p a win in p plies, -p a loss in p plies, 0 a draw.
            let mut exact = |board: &Board<u64>| -> i32 {
                let mut search = Search::new(&geo, &mut table, u64::MAX, None, None);
                let (score, proven) = search.value(board, -INF, INF, geo.cells - board.n);
                assert!(proven);
                let p = |s: i32| (geo.cells + 1 - (s - WIN) as u32) as i32 - board.n as i32;
                if score > WIN {
                    p(score)
                } else if score < -WIN {
                    -p(-score)
                } else {
                    0
                }
            };
            let mut samples = 0;
            let started = std::time::Instant::now();
            while samples < 150 {
                let count = rng.random_range(stones.clone());
                let mut board = Board::<u64>::empty();
                let mut over = false;
                for _ in 0..count {
                    let empty = geo.playable(board.mask);
                    let cells: Vec<u32> = {
                        let mut e = empty;
                        std::iter::from_fn(|| e.pop()).collect()
                    };
                    let bit = cells[rng.random_range(0..cells.len())];
                    over |= geo.winning_cells(board.me, board.mask).has(bit);
                    board = board.play(&geo, bit);
                }
                if over {
                    continue;
                }
                samples += 1;
                let (me, opp) = (board.me, board.opp());
                let mut threats = Threats::new(&geo, 200_000, None);
                if let Some((plies, first)) = threats.vct(me, opp, 2) {
                    wins += 1;
                    let value = exact(&board);
                    assert!(value > 0 && value as u32 <= plies, "{value} {plies}");
                    // (A win in one ends the game: nothing to check after it.)
                    if plies > 1 {
                        let after = exact(&board.play(&geo, first));
                        assert!(after < 0 && ((-after) as u32) < plies, "{after} {plies}");
                    }
                }
                // The opponent's VCF if the player to move passed: every move outside
                // its relevant cells must lose.
                if let Some(line) = threats.vcf(opp, me) {
                    let relevant = threats.relevant(opp, me, &line);
                    let mut others = geo.playable(board.mask) & !relevant;
                    while let Some(d) = others.pop() {
                        hopeless += 1;
                        let after = exact(&board.play(&geo, d));
                        assert!(after > 0 && after as u32 <= line.plies, "{after}");
                    }
                }
            }
            let _ = mate;
            eprintln!(
                "{w}x{h}k{k}: {wins} wins, {hopeless} hopeless, {:?}",
                started.elapsed()
            );
        }
        eprintln!("{wins} wins, {hopeless} hopeless");
        assert!(
            wins > 20 && hopeless > 20,
            "{wins} wins, {hopeless} hopeless"
        );
    }
}
