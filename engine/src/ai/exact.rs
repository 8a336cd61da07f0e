//! Valuing the moves of a gravity board with four in a row that fits 64 bits (Connect
//! Four and its smaller cousins) with the exact solver (`solver`): its tasks run in
//! shares of the budget, and where it leaves moves unproven the general search values
//! them with the rest, the choice never straying below what was proven.

use std::time::Instant;

use rand::Rng;

use super::memory::FALLBACK_TABLE_BYTES;
use super::search::WIN;
use super::solver::{self, Bounds, SolverTable, Task};
use super::strategy::EXACT_FALLBACK;
use super::{Ai, Analysis, Limits, MoveValue, Value, book};
use crate::position::Position;
use crate::rules::{Move, Rules};

/// On boards the exact solver handles, the share of the budget (time and nodes) it may
/// use before the heuristic search gets the rest to value what it did not prove.
const SOLVER_SHARE: (u32, u32) = (4, 5);

impl Ai {
    /// The solver's table for `rules` (those of the last `prepare`), allocated on first
    /// use with the budget the general table leaves.
    fn solver_table(&mut self, rules: Rules) -> &mut SolverTable {
        let budget = self.table.bytes().saturating_sub(FALLBACK_TABLE_BYTES);
        self.solver
            .get_or_insert_with(|| SolverTable::new(rules, budget))
    }

    /// Whether `limits` already end the search: cancelled, or past `deadline`.
    fn stopped_by(&self, limits: &Limits, deadline: Option<Instant>) -> bool {
        limits
            .cancel
            .as_deref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            || deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The moves of `position` (whose game is on) valued with the exact solver for
    /// `task`, narrowed by `booked`, the book's partial entry: every move solved in turn
    /// with the shared table; if a limit comes first, the general search values what was
    /// not proven with the rest of the budget, and the choice never strays below what
    /// was proven.
    pub(super) fn run_exact(
        &mut self,
        position: &Position,
        limits: &Limits,
        task: Task,
        booked: Option<Analysis>,
    ) -> Analysis {
        let start = Instant::now();
        let rules = position.rules();
        let (cells, n) = (rules.cells(), position.ply() as u32);
        let deadline = limits.deadline(start);
        let (share, of) = SOLVER_SHARE;
        let solver_deadline = deadline.map(|d| start + (d - start) * share / of);
        let solver_nodes = limits
            .nodes
            .map_or(u64::MAX, |nodes| nodes / u64::from(of) * u64::from(share));
        // Playing: the exact score with half the solver's budget, then, if it is out of
        // reach, the outcome (win, draw, loss) and a move that keeps it with the rest.
        let playing = task == Task::BestMove;
        let outcome = self.solver_table(rules).run(
            position,
            task,
            if playing {
                solver_nodes / 2
            } else {
                solver_nodes
            },
            solver_deadline.map(|d| if playing { start + (d - start) / 2 } else { d }),
            limits.cancel.as_deref(),
        );
        let mut nodes = outcome.nodes;
        let mut moves: Vec<Graded> = outcome
            .bounds
            .iter()
            .enumerate()
            .filter_map(|(col, bounds)| {
                bounds.map(|bounds| Graded {
                    mv: Move::Column(col as u8),
                    bounds,
                    estimate: 0,
                })
            })
            .collect();
        if let Some(analysis) = &booked {
            book::add_book_bounds(&mut moves, analysis, cells, n);
        }
        let mut depth = cells - n;
        // A move proven as good as any other can be: enough to play, and no search
        // after it changes the choice. When playing, a proven win is one (the quickest
        // win may be another, if the exact scores were out of reach).
        let proven_best = |moves: &[Graded]| {
            moves.iter().any(|m| {
                (playing && m.bounds.lo > 0)
                    || (m.bounds.is_exact() && moves.iter().all(|o| o.bounds.hi <= m.bounds.lo))
            })
        };
        // The outcome gets up to three quarters of the solver's share, the screen of
        // every move below the last quarter.
        let outcome_deadline = solver_deadline.map(|d| start + (d - start) * 3 / 4);
        if playing && !proven_best(&moves) && !self.stopped_by(limits, outcome_deadline) {
            let more = self.solver_table(rules).run(
                position,
                Task::Outcome,
                (solver_nodes / 4 * 3).saturating_sub(nodes),
                outcome_deadline,
                limits.cancel.as_deref(),
            );
            nodes += more.nodes;
            for (m, bounds) in moves.iter_mut().zip(more.bounds.iter().flatten()) {
                m.bounds.lo = m.bounds.lo.max(bounds.lo);
                m.bounds.hi = m.bounds.hi.min(bounds.hi);
            }
        }
        if playing && !proven_best(&moves) {
            // Lost, or the outcome out of reach too: the rest of the solver's share,
            // split between the moves, asks of each whether it hands the opponent a win,
            // so the choice below avoids the moves proven to lose (quick losses, the
            // blunders a heuristic misses, are cheap to prove).
            let open: Vec<usize> = (0..moves.len())
                .filter(|&i| !moves[i].bounds.is_exact() && moves[i].bounds.hi > 0)
                .collect();
            for (k, &i) in open.iter().enumerate() {
                if self.stopped_by(limits, solver_deadline) {
                    break;
                }
                let mut child = position.clone();
                child.try_play(moves[i].mv).expect("a legal move");
                if child.is_over() {
                    continue;
                }
                let share = (open.len() - k) as u32;
                let slice_deadline = solver_deadline.map(|d| {
                    let now = Instant::now();
                    now + d.saturating_duration_since(now) / share
                });
                let slice_nodes = solver_nodes.saturating_sub(nodes) / u64::from(share);
                let reply = self.solver_table(rules).run(
                    &child,
                    Task::Win,
                    slice_nodes,
                    slice_deadline,
                    limits.cancel.as_deref(),
                );
                nodes += reply.nodes;
                if let Some(Some(b)) = reply.bounds.first() {
                    let m = &mut moves[i];
                    m.bounds.lo = m.bounds.lo.max(-b.hi);
                    m.bounds.hi = m.bounds.hi.min(-b.lo);
                }
            }
        }
        let settled = proven_best(&moves) && (task == Task::BestMove);
        if !settled && moves.iter().any(|m| !m.bounds.is_exact()) {
            // The rest of the budget for a heuristic opinion on the unproven moves.
            let fallback = Limits {
                time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
                nodes: limits.nodes.map(|limit| limit.saturating_sub(nodes)),
                cancel: limits.cancel.clone(),
            };
            let general = self.run_general(position, &fallback, EXACT_FALLBACK);
            nodes += general.nodes;
            depth = general.depth;
            for m in &mut moves {
                let Some(found) = general.moves.iter().find(|g| g.mv == m.mv) else {
                    continue;
                };
                match solver::score_of(found.value, cells, n) {
                    Some(score) => {
                        debug_assert!(
                            m.bounds.lo <= score && score <= m.bounds.hi,
                            "{:?} against {score}",
                            m.bounds
                        );
                        m.bounds = Bounds::exact(score);
                    }
                    None => {
                        if let Value::Estimate(e) = found.value {
                            m.estimate = e;
                        }
                    }
                }
            }
        }
        // Best first: the highest proven floor, then the highest ceiling (a move proven
        // exactly at that floor is no better than one that may do more), then the
        // heuristic.
        moves.sort_by_key(|m| std::cmp::Reverse((m.bounds.lo, m.bounds.hi, m.estimate)));
        let top = moves[0];
        let best = if top.bounds.is_exact() {
            // Any move proven as good as the best: they are equal for certain.
            let ties = moves.iter().take_while(|m| m.bounds == top.bounds).count();
            moves[self.rng.random_range(0..ties)].mv
        } else {
            // Nothing unproven is picked at random: the top one has the best proven
            // floor, which no proven value exceeds.
            top.mv
        };
        let proven = if task == Task::EveryMove {
            moves.iter().all(|m| m.bounds.is_exact())
        } else {
            proven_best(&moves)
        };
        Analysis {
            moves: moves
                .iter()
                .map(|m| MoveValue {
                    mv: m.mv,
                    value: m.value(cells, n),
                })
                .collect(),
            best: Some(best),
            nodes,
            depth,
            proven,
        }
    }

    /// The exact value of `position` (whose game is on) for the player to move, if the
    /// solver proves it within `limits`.
    pub(super) fn value_exact(&mut self, position: &Position, limits: &Limits) -> Option<Value> {
        let rules = position.rules();
        let deadline = limits.deadline(Instant::now());
        let outcome = self.solver_table(rules).run(
            position,
            Task::Position,
            limits.nodes.unwrap_or(u64::MAX),
            deadline,
            limits.cancel.as_deref(),
        );
        self.last_nodes = outcome.nodes;
        let bounds = outcome.bounds[0].expect("one entry for the position");
        bounds
            .is_exact()
            .then(|| solver::value_of(bounds.lo, rules.cells(), position.ply() as u32))
    }
}

/// A move valued by the solver (and, where it could not prove it, by the heuristic).
#[derive(Debug, Clone, Copy)]
pub(super) struct Graded {
    /// The move.
    pub mv: Move,
    /// What was proven of its score (Pons' scale, for the mover).
    pub bounds: Bounds,
    /// The heuristic's estimate when unproven.
    pub estimate: i32,
}

impl Graded {
    /// Its [`Value`]: exact when proven; else an estimate that says a win or a loss
    /// when the bounds prove one (of unknown length), else the heuristic's.
    fn value(&self, cells: u32, n: u32) -> Value {
        if self.bounds.is_exact() || self.bounds.lo > 0 {
            // A win of score at least `lo` comes no later than one of exactly `lo`:
            // `Win` of that many plies is the bound `Value::Win` allows.
            solver::value_of(self.bounds.lo, cells, n)
        } else if self.bounds.hi < 0 {
            Value::Estimate(-WIN + self.bounds.hi)
        } else {
            Value::Estimate(self.estimate.clamp(-WIN + 1, WIN - 1))
        }
    }
}
