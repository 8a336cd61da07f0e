//! Negamax with alpha-beta over bitboards: transposition table keyed by the smallest
//! symmetric Zobrist hash, immediate-win and forced-block pruning, score-window clamping
//! by the earliest possible win, threat-based move ordering, and a flag that tracks
//! whether a result depends on a heuristic (so nothing unproven is reported as proven).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::bits::Bits;
use super::geometry::{Geometry, MAX_SYMMETRIES};
use super::table::{Bound, SOLVED, Table};
use super::threats::Threats;

/// Nodes a VCF search may take at one node of the main search.
const VCF_NODES: u64 = 64;
/// Least remaining depth at which the main search looks for a VCF: near the leaves it
/// costs more than it finds.
const VCF_DEPTH: u32 = 2;

/// Scores above this are wins: `WIN + (cells + 1 - p)` for a win with the `p`-th stone
/// of the game, so a sooner win scores higher; losses are the negation; a draw is 0.
/// Heuristic scores stay strictly inside `(-WIN, WIN)`.
pub(crate) const WIN: i32 = 1_000_000;

/// Beyond every score.
pub(crate) const INF: i32 = 2_000_000;

/// Nodes between two looks at the clock and the cancel flag.
const POLL_INTERVAL: u64 = 2048;

/// A position as the search sees it: the stones of the side to move, all stones, the
/// stone count, and one Zobrist hash per symmetry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Board<B: Bits> {
    /// Stones of the player to move.
    pub me: B,
    /// All stones.
    pub mask: B,
    /// Number of stones.
    pub n: u32,
    /// `hash[s]`: the Zobrist hash of the board's image under symmetry `s`.
    pub hash: [u64; MAX_SYMMETRIES],
}

impl<B: Bits> Board<B> {
    /// The empty board.
    pub fn empty() -> Board<B> {
        Board {
            me: B::zero(),
            mask: B::zero(),
            n: 0,
            hash: [0; MAX_SYMMETRIES],
        }
    }

    /// Stones of the player who just moved.
    #[inline]
    pub fn opp(&self) -> B {
        self.me ^ self.mask
    }

    /// The board after the player to move puts a stone on `bit`.
    #[inline]
    pub fn play(&self, geo: &Geometry<B>, bit: u32) -> Board<B> {
        let player = (self.n & 1) as usize;
        let mut hash = self.hash;
        for (s, h) in hash.iter_mut().enumerate().take(geo.symmetries) {
            *h ^= geo.key(s, player, bit);
        }
        Board {
            // The opponent becomes the player to move.
            me: self.me ^ self.mask,
            mask: self.mask | B::bit(bit),
            n: self.n + 1,
            hash,
        }
    }

    /// The table key (smallest hash over the symmetries) and the symmetry giving it.
    #[inline]
    pub fn key(&self, symmetries: usize) -> (u64, usize) {
        let mut best = (self.hash[0], 0);
        for s in 1..symmetries {
            if self.hash[s] < best.0 {
                best = (self.hash[s], s);
            }
        }
        best
    }
}

/// The score of a win with the `p`-th stone of the game on a board of `cells` cells.
#[inline]
pub(crate) fn mate(cells: u32, p: u32) -> i32 {
    WIN + (cells + 1 - p) as i32
}

/// One search: its limits, counters, and the table it shares with later searches.
pub(crate) struct Search<'a, B: Bits> {
    geo: &'a Geometry<B>,
    table: &'a mut Table,
    /// Nodes visited.
    pub nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
    /// Set once a limit is reached; every result after that is garbage and discarded.
    pub stopped: bool,
    /// Whether the node being searched has so far relied on a heuristic (a depth
    /// horizon, a table entry from a shallower search, or skipped far cells).
    inexact: bool,
    /// A threat search run at inner nodes on big boards, once enabled.
    threats: Option<Threats<'a, B>>,
}

impl<'a, B: Bits> Search<'a, B> {
    /// A search with these limits (a node limit of `u64::MAX` is none).
    pub fn new(
        geo: &'a Geometry<B>,
        table: &'a mut Table,
        node_limit: u64,
        deadline: Option<Instant>,
        cancel: Option<&'a AtomicBool>,
    ) -> Search<'a, B> {
        Search {
            geo,
            table,
            nodes: 0,
            node_limit,
            deadline,
            cancel,
            stopped: false,
            inexact: false,
            threats: None,
        }
    }

    /// Looks for a VCF of the player to move at inner nodes (big boards without
    /// gravity): a win found gives a lower bound that can cut the node.
    pub fn enable_threats(&mut self) {
        self.threats = Some(Threats::new(self.geo, 0, None));
    }

    fn poll(&mut self) {
        if self.nodes >= self.node_limit
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
        {
            self.stopped = true;
        }
    }

    /// The value of `board` for the player to move, searching `depth` more plies
    /// before falling back on the heuristic, and whether that value is exact (no
    /// heuristic involved). Fail-soft: below `alpha` it is an upper bound, above `beta`
    /// a lower bound.
    pub fn value(&mut self, board: &Board<B>, alpha: i32, beta: i32, depth: u32) -> (i32, bool) {
        self.inexact = false;
        let v = self.negamax(board, alpha, beta, depth);
        (v, !self.inexact)
    }

    /// Whether a limit has been reached, looking at the clock now.
    pub fn check_limits(&mut self) -> bool {
        self.poll();
        self.stopped
    }

    fn negamax(&mut self, board: &Board<B>, alpha: i32, beta: i32, depth: u32) -> i32 {
        let outer = std::mem::replace(&mut self.inexact, false);
        let v = self.node(board, alpha, beta, depth);
        self.inexact |= outer;
        v
    }

    fn node(&mut self, b: &Board<B>, mut alpha: i32, mut beta: i32, depth: u32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_INTERVAL) || self.nodes >= self.node_limit {
            self.poll();
        }
        if self.stopped {
            return 0;
        }
        let geo = self.geo;
        let cells = geo.cells;
        let n = b.n;
        if n >= cells {
            return 0;
        }
        let (me, mask) = (b.me, b.mask);
        let opp = b.opp();
        let playable = geo.playable(mask);
        if !(geo.winning_cells(me, mask) & playable).is_zero() {
            return mate(cells, n + 1);
        }
        let opp_wins = geo.winning_cells(opp, mask);
        let threats = opp_wins & playable;
        let mut moves = playable;
        let forced = !threats.is_zero();
        if forced {
            if threats.count() > 1 {
                return -mate(cells, n + 2);
            }
            moves = threats;
        }
        if geo.gravity {
            // Never play under the opponent's winning cell.
            moves &= !opp_wins.shr(1);
            if moves.is_zero() {
                return -mate(cells, n + 2);
            }
        }
        // Neither side can win sooner than this any more (the opponent's immediate
        // wins are all blocked by every move left in `moves`).
        let max = if n + 3 <= cells {
            mate(cells, n + 3)
        } else {
            0
        };
        let min = if n + 4 <= cells {
            -mate(cells, n + 4)
        } else {
            0
        };
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        if depth == 0 {
            self.inexact = true;
            return geo.evaluate(me, opp).clamp(min, max);
        }

        let (key, sym) = b.key(geo.symmetries);
        let mut table_move = None;
        if let Some(hit) = self.table.probe(key) {
            table_move = hit.mv.map(|m| geo.preimage(sym, m));
            if hit.depth == SOLVED || u32::from(hit.depth) >= depth {
                if hit.depth != SOLVED {
                    self.inexact = true;
                }
                match hit.bound {
                    Bound::Exact => return hit.score,
                    Bound::Lower => alpha = alpha.max(hit.score),
                    Bound::Upper => beta = beta.min(hit.score),
                }
                if alpha >= beta {
                    return hit.score;
                }
            }
        }

        // A VCF is a proven lower bound (its distance an upper bound on the plies).
        let mut floor = None;
        if depth >= VCF_DEPTH
            && let Some(threats) = self.threats.as_mut()
        {
            threats.extend_budget(VCF_NODES);
            if let Some(line) = threats.vcf(me, opp) {
                let score = mate(cells, n + line.plies);
                if score >= beta {
                    return score;
                }
                alpha = alpha.max(score);
                floor = Some((score, line.first));
            }
        }

        if !forced && geo.restricts(n) {
            let near = if mask.is_zero() {
                let centre = B::bit(geo.bit_of(geo.width / 2, geo.height / 2));
                geo.near(centre) | centre
            } else {
                geo.near(mask)
            };
            if !(moves & !near).is_zero() {
                self.inexact = true;
                moves &= near;
            }
        }

        let mut list = B::list();
        let list = list.as_mut();
        let mut count = 0;
        let mut bits = moves;
        while let Some(bit) = bits.pop() {
            let order = if Some(bit) == table_move {
                1 << 21
            } else {
                self.order(me, opp, mask, bit)
            };
            list[count] = order << 9 | bit;
            count += 1;
        }
        let list = &mut list[..count];
        list.sort_unstable_by(|a, b| b.cmp(a));

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for &entry in list.iter() {
            let bit = entry & 511;
            let child = b.play(geo, bit);
            let v = -self.negamax(&child, -beta, -alpha, depth - 1);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(bit);
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        if let Some((score, first)) = floor
            && score >= best
        {
            // The distance of a VCF is only a bound: not an exact value.
            best = score;
            best_move = Some(first);
            self.inexact = true;
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let stored_depth = if self.inexact {
            depth.min(u32::from(SOLVED) - 1) as u16
        } else {
            SOLVED
        };
        let canonical = best_move.map(|m| geo.image(sym, m));
        self.table.store(key, best, bound, stored_depth, canonical);
        best
    }

    /// Ordering score of a move: threats it makes, threats of the opponent's it takes
    /// away, then closeness to the centre.
    #[inline]
    pub fn order(&self, me: B, opp: B, mask: B, bit: u32) -> u32 {
        let geo = self.geo;
        let m = B::bit(bit);
        let mine = geo.winning_cells(me | m, mask | m).count();
        // Counting the opponent's threats a move takes away costs more than it saves
        // when solving (immediate threats are forced blocks anyway); it helps the
        // heuristic search on big boards.
        let theirs = if !geo.restrict {
            0
        } else {
            geo.winning_cells(opp | m, mask | m).count()
        };
        (mine * 3 + theirs * 2) * 128 + u32::from(geo.centre[bit as usize])
    }
}
