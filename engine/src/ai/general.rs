//! The general search at the root: every legal move valued by negamax with alpha-beta
//! (`search`) over bitboards, after the proof passes the [`Plan`] names, then by
//! iterative deepening, by solving and proving each move (`prove`) or by the gomoku
//! search (`gomoku`); the moves ranked and one picked at the AI's level. Also the
//! value of a whole position, searched to the end, for [`Ai::solve`].

use std::time::Instant;

use super::attack;
use super::bits::{Bits, Wide};
use super::geometry::{Geometry, Layout};
use super::search::{Board, INF, Search, WIN, mate};
use super::strategy::{Finish, Plan};
use super::{Ai, Analysis, Limits, MoveValue, Value, gomoku, open_proof, prove, threats};
use crate::position::Position;
use crate::rules::Move;

/// Positions with at most this many empty cells are solved right after the shallow
/// iterations instead of deepening one ply at a time.
const SOLVE_EMPTY: u32 = 25;
/// Positions with at most this many empty cells are solved at once, without shallow
/// iterations first: it takes a moment.
const SOLVE_AT_ONCE: u32 = 16;
/// Iterations run before jumping to a full solve: they give a sound move if the solve
/// does not finish in time.
const SHALLOW_DEPTHS: u32 = 4;

impl Ai {
    /// The moves of `position` valued by the general search as `plan` says, with the
    /// narrowest bitboard that holds the board.
    pub(super) fn run_general(
        &mut self,
        position: &Position,
        limits: &Limits,
        plan: Plan,
    ) -> Analysis {
        let rules = position.rules();
        let bits = rules.width() * (rules.height() + 1);
        if bits <= u64::BITS {
            self.run::<u64>(position, limits, plan)
        } else if bits <= u128::BITS {
            self.run::<u128>(position, limits, plan)
        } else {
            self.run::<Wide>(position, limits, plan)
        }
    }

    /// [`Ai::run_general`] on the bitboard `B`.
    fn run<B: Layout>(&mut self, position: &Position, limits: &Limits, plan: Plan) -> Analysis {
        let start = Instant::now();
        let legal = position.legal_moves();
        if legal.is_empty() {
            return Analysis::over();
        }
        let attack_bits = attack::table_bits(self.table.bytes());
        let geo: &Geometry<B> = B::geometry(&mut self.geometry, position.rules());
        let board = board_of(geo, position);
        let cells = geo.cells;
        let n = board.n;
        let mut search = Search::new(
            geo,
            &mut self.table,
            limits.nodes.unwrap_or(u64::MAX),
            limits.deadline(start),
            limits.cancel.as_deref(),
        );

        // Root moves with a first value that needs no search: a win now, a loss next
        // move, or the heuristic (which stands if even depth 1 is cut off).
        let my_wins = geo.winning_cells(board.me, board.mask);
        let candidates = if geo.restricts(board.n) {
            if board.mask.is_zero() {
                let centre = B::bit(geo.bit_of(geo.width / 2, geo.height / 2));
                geo.near(centre) | centre
            } else {
                geo.near(board.mask)
            }
        } else {
            geo.board
        };
        let mut roots: Vec<Root<B>> = legal
            .iter()
            .map(|&mv| {
                let cell = position
                    .landing_cell(mv)
                    .expect("legal moves have a landing cell");
                let bit = geo.bit_of(cell.col.into(), cell.row.into());
                let child = board.play(geo, bit);
                let (score, exact) = if my_wins.has(bit) {
                    (mate(cells, n + 1), true)
                } else if child.n == cells {
                    (0, true)
                } else if !(geo.winning_cells(child.me, child.mask) & geo.playable(child.mask))
                    .is_zero()
                {
                    (-mate(cells, n + 2), true)
                } else if candidates.has(bit) {
                    // The search will value it; the heuristic is only needed if even
                    // depth 1 is cut off (see below).
                    (0, false)
                } else {
                    (-geo.evaluate(child.me, child.opp()), false)
                };
                Root {
                    mv,
                    child,
                    score,
                    exact,
                    searched: candidates.has(bit),
                    order: search.order(board.me, board.opp(), board.mask, bit),
                }
            })
            .collect();

        // Small big boards (k up to 4): a proven win by the proof search first.
        let proof_win = plan.proof
            && attack::judge(
                geo,
                &board,
                &mut roots_view(&mut roots, board.mask),
                &mut search,
                attack_bits,
                limits,
                start,
            );
        let threat_win = proof_win
            || (plan.threats
                && threats::judge(
                    geo,
                    &board,
                    &mut roots_view(&mut roots, board.mask),
                    &mut search,
                    limits,
                    start,
                ));

        // Big open boards far from full: the fast gomoku search values the moves.
        let fast = plan.then == Finish::Gomoku;
        let empty = cells - n;
        let max_depth = self.level.max_depth().unwrap_or(empty).min(empty);
        let mut depth_done = 0;
        let mut scratch: Vec<(i32, bool)> = vec![(0, false); roots.len()];
        // Iterative deepening, except that a board small enough to solve skips the
        // middle depths: their heuristic searches cost far more than the exact one.
        let shallow = if empty <= SOLVE_AT_ONCE {
            0
        } else {
            SHALLOW_DEPTHS
        };
        // Open boards small enough to solve: shallow iterations for a fallback move, then
        // the position is solved and each move proven against its value (`prove`).
        let proving = plan.then == Finish::Prove;
        let schedule = (1..=max_depth).filter(|&d| {
            if proving {
                d <= shallow
            } else {
                empty > SOLVE_EMPTY || d <= shallow || d == max_depth
            }
        });
        for depth in schedule {
            if fast || threat_win || roots.iter().all(|r| r.exact || !r.searched) {
                break;
            }
            // Best first, so the table fills with the lines that matter.
            let mut order: Vec<usize> = (0..roots.len()).collect();
            order.sort_by_key(|&i| {
                (
                    std::cmp::Reverse(roots[i].score),
                    std::cmp::Reverse(roots[i].order),
                )
            });
            for &i in &order {
                let root = &roots[i];
                scratch[i] = if root.exact || !root.searched {
                    (root.score, root.exact)
                } else {
                    let (v, exact) = search.value(&root.child, -INF, INF, depth - 1);
                    (-v, exact)
                };
                if search.stopped {
                    break;
                }
            }
            if search.stopped {
                // An unfinished iteration is discarded: the previous one stands.
                break;
            }
            for (root, &(score, exact)) in roots.iter_mut().zip(&scratch) {
                root.score = score;
                root.exact = exact;
            }
            depth_done = depth;
            if search.check_limits() {
                break;
            }
        }
        if proving && !search.stopped && prove::prove(&mut search, &board, &mut roots, empty) {
            depth_done = empty;
        }
        let mut nodes = search.nodes;
        let won = roots.iter().any(|r| r.exact && r.score > WIN);
        if fast && !won && !search.stopped {
            let (depth, more) =
                gomoku::deepen(position, &mut self.table, &mut roots, limits, start, nodes);
            depth_done = depth;
            nodes += more;
        }
        if depth_done == 0 {
            // Not even depth 1 finished: fall back on the heuristic for every move.
            for root in roots.iter_mut().filter(|r| !r.exact) {
                root.score = -geo.evaluate(root.child.me, root.child.opp());
            }
        }

        let proven = roots.iter().all(|r| r.exact);
        // Among moves proven lost in as many plies, those that take a cell the opponent
        // wins on, then the best placed by the heuristic: a person sees the AI defend
        // rather than give up. (Not with gravity, whose play is left as it was.)
        let threats = geo.winning_cells(board.opp(), board.mask);
        let defence = |r: &Root<B>| -> (bool, i32) {
            if geo.gravity || !r.exact || r.score >= -WIN {
                return (false, 0);
            }
            let bit = { r.child.mask ^ board.mask }.pop().unwrap_or(0);
            (threats.has(bit), -geo.evaluate(r.child.me, r.child.opp()))
        };
        // Far cells of a big board only have a static value, not comparable with a
        // searched one: they rank after every searched move.
        let mut moves: Vec<(MoveValue, Rank)> = roots
            .iter()
            .map(|r| {
                (
                    MoveValue {
                        mv: r.mv,
                        value: value_of(r.score, r.exact, cells, n),
                    },
                    (r.searched || r.exact, r.score, r.exact, defence(r)),
                )
            })
            .collect();
        moves.sort_by_key(|&(_, rank)| std::cmp::Reverse(rank));
        let best = self.pick(&moves);
        Analysis {
            moves: moves.into_iter().map(|(mv, _)| mv).collect(),
            best: Some(best),
            nodes,
            depth: depth_done,
            proven,
        }
    }

    /// The exact value of `position` (whose game is on) for the player to move, by one
    /// full search after the proof search when `proof`, if proven within `limits`.
    pub(super) fn value_general(
        &mut self,
        position: &Position,
        limits: &Limits,
        proof: bool,
    ) -> Option<Value> {
        let rules = position.rules();
        let bits = rules.width() * (rules.height() + 1);
        if bits <= u64::BITS {
            self.value::<u64>(position, limits, proof)
        } else if bits <= u128::BITS {
            self.value::<u128>(position, limits, proof)
        } else {
            self.value::<Wide>(position, limits, proof)
        }
    }

    /// [`Ai::value_general`] on the bitboard `B`.
    fn value<B: Layout>(
        &mut self,
        position: &Position,
        limits: &Limits,
        proof: bool,
    ) -> Option<Value> {
        let start = Instant::now();
        let geo: &Geometry<B> = B::geometry(&mut self.geometry, position.rules());
        let board = board_of(geo, position);
        let mut spent = 0;
        if proof {
            // The general search cannot prove anything here (it skips far cells for
            // both sides); the proof search can prove a win or a loss.
            let table_bits = attack::table_bits(self.table.bytes());
            let (value, stopped, nodes) =
                open_proof::outcome(geo, &board, table_bits, limits, start);
            spent = nodes;
            self.last_nodes = spent;
            if value.is_some() || stopped {
                return value;
            }
        }
        let mut search = Search::new(
            geo,
            &mut self.table,
            limits.nodes.map_or(u64::MAX, |n| n.saturating_sub(spent)),
            limits.deadline(start),
            limits.cancel.as_deref(),
        );
        let (score, exact) = search.value(&board, -INF, INF, geo.cells - board.n);
        self.last_nodes = spent + search.nodes;
        (exact && !search.stopped).then(|| value_of(score, true, geo.cells, board.n))
    }
}

/// How a root move ranks, best highest: searched (or exact) before far cells, then by
/// score, then proven before unproven (so a random pick among ties never mixes a proven
/// value with an estimate that merely equals it: the AI plays no move its search has not
/// shown as good as the one it proved), then, among proven losses, by how it defends
/// (takes an opponent's winning cell, heuristic value after it).
pub(super) type Rank = (bool, i32, bool, (bool, i32));

/// A root move under analysis.
pub(super) struct Root<B: Bits> {
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub child: Board<B>,
    /// Value for the player making the move, from the last completed iteration.
    pub score: i32,
    /// Whether `score` is proven.
    pub exact: bool,
    /// Whether the search looks at it (big boards skip cells far from the stones).
    pub searched: bool,
    /// Move-ordering score, to break ties in the order of search.
    pub order: u32,
}

/// The root moves as the threat search sees them: (cell, score, exact).
fn roots_view<B: Bits>(roots: &mut [Root<B>], mask: B) -> Vec<(u32, &mut i32, &mut bool)> {
    roots
        .iter_mut()
        .map(|r| {
            let cell = { r.child.mask ^ mask }.pop();
            (cell.unwrap_or(0), &mut r.score, &mut r.exact)
        })
        .collect()
}

/// The search's view of a position.
pub(super) fn board_of<B: Bits>(geo: &Geometry<B>, position: &Position) -> Board<B> {
    let mut board = Board::empty();
    // Replaying the moves keeps the side to move and the hashes right.
    for cell in position.landed() {
        board = board.play(geo, geo.bit_of(cell.col.into(), cell.row.into()));
    }
    board
}

/// A score read back as a value for the player to move at a position with `n` stones.
fn value_of(score: i32, exact: bool, cells: u32, n: u32) -> Value {
    if !exact {
        return Value::Estimate(score);
    }
    if score > WIN {
        let p = cells + 1 - (score - WIN) as u32;
        Value::Win(p - n)
    } else if score < -WIN {
        let p = cells + 1 - (-score - WIN) as u32;
        Value::Loss(p - n)
    } else {
        Value::Draw
    }
}
