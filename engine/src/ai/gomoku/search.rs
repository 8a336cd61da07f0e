//! Principal-variation search on the incremental gomoku board: a transposition table on
//! Zobrist keys, killer and history moves, late-move reductions, forced replies to
//! fours, and only defences (or fours) against an open three.
//!
//! Every score is a heuristic estimate: the threat rules prune the tree the way gomoku
//! engines do, which is sound for play but proves nothing, so the caller never reports
//! these values as exact. (Mate scores still mean "a win seen", as in the generic
//! search.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::super::search::{INF, WIN, mate};
use super::super::table::{Bound, Table};
use super::board::Board;
use super::patterns::{DEFENCE_PERCENT, cell, line};

/// Nodes between two looks at the clock and the cancel flag.
const POLL_INTERVAL: u64 = 1024;
/// Deepest search, in plies (with forced replies not counted).
pub(crate) const MAX_PLY: usize = 96;
/// Moves searched at full depth before late ones are reduced.
const FULL_DEPTH_MOVES: usize = 3;
/// Least depth at which late moves are reduced.
const REDUCTION_DEPTH: i32 = 3;

/// Deepest remaining depth at which late quiet moves are pruned.
const PRUNING_DEPTH: i32 = 3;

/// Quiet moves searched at a node `depth` plies from the horizon (up to
/// [`PRUNING_DEPTH`]).
fn quiet_moves(depth: i32) -> usize {
    (4 + 2 * depth * depth) as usize
}

/// Plies a late quiet move is reduced by: more the deeper the node and the later the
/// move, as the log of each (the usual shape of late-move reductions).
fn reduction(depth: i32, index: usize) -> i32 {
    let r = (f64::from(depth)).ln() * (index as f64).ln() / 2.0 + 0.5;
    (r as i32).clamp(1, depth - 1)
}

/// Most fours in a row the search tries past its horizon, per side.
const QUIESCENCE_FOURS: i32 = 4;

/// Ordering bonus of the table's move and of the killers (above any threat).
const TABLE_MOVE: i32 = i32::MAX;
const KILLER: i32 = 1 << 29;

/// One search over a board, with its limits and move-ordering memory.
pub(crate) struct Search<'a> {
    pub board: Board,
    table: &'a mut Table,
    /// Nodes visited.
    pub nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
    /// Set once a limit is reached; results after that are discarded.
    pub stopped: bool,
    killers: Vec<[u16; 2]>,
    /// Per cell and player: how often a move there cut the search off, by depth².
    history: Vec<[u32; 2]>,
    /// A move list per ply, kept to avoid allocating at every node.
    lists: Vec<Vec<(i32, u16)>>,
}

impl<'a> Search<'a> {
    /// A search of `board` with these limits (a node limit of `u64::MAX` is none).
    pub fn new(
        board: Board,
        table: &'a mut Table,
        node_limit: u64,
        deadline: Option<Instant>,
        cancel: Option<&'a AtomicBool>,
    ) -> Search<'a> {
        let size = board.size();
        Search {
            board,
            table,
            nodes: 0,
            node_limit,
            deadline,
            cancel,
            stopped: false,
            killers: vec![[u16::MAX; 2]; MAX_PLY + 2],
            history: vec![[0; 2]; size],
            lists: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(128)).collect(),
        }
    }

    /// Whether a limit has been reached, looking at the clock now.
    pub fn poll(&mut self) -> bool {
        if self.nodes >= self.node_limit
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The ordering value of a move on `c` for the player to move: what it makes, plus
    /// most of what it takes from the opponent.
    #[inline]
    pub fn order(&self, c: usize) -> i32 {
        let me = self.board.side();
        self.board.order(c, me) + self.board.order(c, 1 - me) * DEFENCE_PERCENT / 100
    }

    /// The value of the board for the player to move, `depth` plies deep (fail-soft).
    pub fn pvs(&mut self, mut alpha: i32, mut beta: i32, depth: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if (self.nodes.is_multiple_of(POLL_INTERVAL) || self.nodes >= self.node_limit)
            && self.poll()
        {
            return 0;
        }
        if self.stopped {
            return 0;
        }
        let board = &self.board;
        let cells = board.cells;
        let n = board.n;
        let me = board.side();
        let opp = 1 - me;
        let five = usize::from(cell::FIVE);
        if board.counts[me][five] > 0 {
            return mate(cells, n + 1);
        }
        let threats = board.counts[opp][five];
        if threats >= 2 {
            return -mate(cells, n + 2);
        }
        if n + 2 >= cells {
            return 0;
        }
        let forced = threats == 1;
        if !forced && board.counts[me][usize::from(cell::FLEX4)] > 0 {
            // An open four (or two fours) the opponent, with no four to answer, cannot stop.
            return mate(cells, n + 3);
        }
        // Nobody wins sooner than this any more.
        let best_possible = mate(cells, n + 3);
        let worst_possible = -mate(cells, n + 4);
        alpha = alpha.max(worst_possible);
        beta = beta.min(best_possible);
        if alpha >= beta {
            return alpha;
        }
        if (depth <= 0 && !forced) || ply >= MAX_PLY {
            let stand = board.evaluate().clamp(worst_possible, best_possible);
            let fours = [cell::BLOCK4_PLUS, cell::BLOCK4_FLEX3]
                .iter()
                .any(|&class| board.counts[me][usize::from(class)] > 0);
            if !fours || ply >= MAX_PLY || depth <= -QUIESCENCE_FOURS {
                return stand;
            }
            return self.quiesce(alpha, beta, stand, depth, ply);
        }

        let key = board.hash;
        let mut table_move = u16::MAX;
        if let Some(hit) = self.table.probe(key) {
            table_move = hit.mv.unwrap_or(u16::MAX);
            if i32::from(hit.depth) >= depth {
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

        let mut list = std::mem::take(&mut self.lists[ply]);
        self.generate(&mut list, forced, table_move, ply);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = u16::MAX;
        // A forced reply costs no depth: the threat sequence is followed to its end.
        let next = if forced { depth } else { depth - 1 };
        for i in 0..list.len() {
            // Selection instead of a full sort: a cut usually comes within the first
            // few moves, and the rest need never be ordered.
            let mut top = i;
            for j in i + 1..list.len() {
                if list[j].0 > list[top].0 {
                    top = j;
                }
            }
            list.swap(i, top);
            let (score, c) = list[i];
            let c = usize::from(c);
            // Moves that neither make nor stop a three may be searched less deeply.
            let quiet = score < KILLER
                && self.board.class(c, me) < cell::FLEX3
                && self.board.class(c, opp) < cell::FLEX3;
            if quiet && depth <= PRUNING_DEPTH && i >= quiet_moves(depth) && best > -WIN {
                // Near the horizon, late quiet moves are left out (moves are tried best
                // first, so every later one is quiet too).
                break;
            }
            self.board.place(c);
            let mut v;
            if i == 0 {
                v = -self.pvs(-beta, -alpha, next, ply + 1);
            } else {
                let reduction = if quiet && depth >= REDUCTION_DEPTH && i >= FULL_DEPTH_MOVES {
                    reduction(depth, i)
                } else {
                    0
                };
                v = -self.pvs(-alpha - 1, -alpha, next - reduction, ply + 1);
                if v > alpha && reduction > 0 {
                    v = -self.pvs(-alpha - 1, -alpha, next, ply + 1);
                }
                if v > alpha && v < beta {
                    v = -self.pvs(-beta, -alpha, next, ply + 1);
                }
            }
            self.board.undo();
            if self.stopped {
                self.lists[ply] = list;
                return 0;
            }
            if v > best {
                best = v;
                best_move = c as u16;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        if quiet {
                            let k = &mut self.killers[ply];
                            if k[0] != c as u16 {
                                k[1] = k[0];
                                k[0] = c as u16;
                            }
                        }
                        let h = &mut self.history[c][me];
                        *h = h.saturating_add((depth * depth) as u32);
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        if best == -INF {
            // No move at all (cannot happen with a stone on the board): a static value.
            return self.board.evaluate();
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let stored = depth.clamp(0, 1000) as u16;
        let mv = (best_move != u16::MAX).then_some(best_move);
        self.table.store(key, best, bound, stored, mv);
        best
    }

    /// Past the horizon: the static value, unless one of the player's fours that also
    /// makes a three or a two (each answered by the forced block) does better. This
    /// sees most wins by fours (VCF) that a fixed depth cuts in half; a plain four,
    /// which rarely leads anywhere, is left out, as it multiplied the nodes.
    fn quiesce(&mut self, mut alpha: i32, beta: i32, stand: i32, depth: i32, ply: usize) -> i32 {
        if stand >= beta {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let me = self.board.side();
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        for &c in self.board.candidates() {
            let class = self.board.class(usize::from(c), me);
            if class >= cell::BLOCK4_PLUS {
                list.push((self.order(usize::from(c)), c));
            }
        }
        list.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        for &(_, c) in list.iter() {
            self.board.place(usize::from(c));
            let v = -self.pvs(-beta, -alpha, depth - 1, ply + 1);
            self.board.undo();
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        best
    }

    /// The moves of a node, unsorted: the block of the opponent's five when `forced`;
    /// against an open three (or a cell making two fours), only cells where the player
    /// to move makes a four or the opponent would make one; else every candidate.
    fn generate(&self, list: &mut Vec<(i32, u16)>, forced: bool, table_move: u16, ply: usize) {
        list.clear();
        let board = &self.board;
        let me = board.side();
        let opp = 1 - me;
        if forced {
            if let Some(c) = board.five_cell(opp) {
                list.push((TABLE_MOVE, c as u16));
            }
            return;
        }
        let defend = board.counts[opp][usize::from(cell::FLEX4)] > 0;
        let killers = self.killers[ply];
        for &c16 in board.candidates() {
            let c = usize::from(c16);
            if defend
                && board.class(c, me) < cell::BLOCK4
                && !board.lines(c, opp).iter().any(|&l| l >= line::B4)
            {
                continue;
            }
            let score = if c16 == table_move {
                TABLE_MOVE
            } else if c16 == killers[0] || c16 == killers[1] {
                KILLER + self.order(c)
            } else {
                // History only breaks ties between moves the patterns rate alike.
                self.order(c) * 64 + (self.history[c][me] >> 4).min(63) as i32
            };
            list.push((score, c16));
        }
    }
}

/// Whether `score` says a side has a win (seen, not proven).
pub(crate) fn is_mate(score: i32) -> bool {
    score.abs() > WIN
}
