//! The exact solver for gravity boards of at most 64 bits with four in a row (Connect
//! Four and its smaller and narrower cousins), after Pascal Pons' solver: negamax with
//! alpha-beta on a null window, narrowed from both ends until the score is exact; only
//! moves that do not lose at once; moves ordered by the winning cells they make, centre
//! first among equals; a transposition table of bounds.
//!
//! Beyond Pons: a table slot keeps both a lower and an upper bound (the null windows
//! of one solve ask about the same position from both sides) and the move that last
//! proved a lower bound, which is tried first; and before searching a node's moves the
//! table is asked whether one of them already refutes it (enhanced transposition
//! cutoff). Each saves a tenth to a fifth of the nodes on the harder test sets.
//!
//! Scores are Pons': for the side to move, `+s` for a win whose stone leaves `2s - 2` or
//! `2s - 1` cells empty (the sooner, the higher), `-s` for a loss likewise, 0 for a draw.
//! [`value_of`] turns one into the engine's [`Value`].
//!
//! One file for the search (past 600 lines with its tests): the solver's recursion and
//! the tasks that drive it share one [`Solver`]; its positions (`grid`) and table
//! (`table`) have files of their own.

pub(crate) mod grid;
pub(crate) mod table;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use self::grid::{Custom, Grid, Shape, Standard};
use self::table::{PartialTable, StoredKey, prime_at_most};
use crate::ai::Value;
use crate::position::Position;
use crate::rules::Rules;

/// Nodes between two looks at the clock and the cancel flag.
const POLL_INTERVAL: u64 = 4096;

/// What is known of a score: `lo <= score <= hi`; exact when they meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// Lowest possible score.
    pub lo: i32,
    /// Highest possible score.
    pub hi: i32,
}

impl Bounds {
    /// Exactly `score`.
    pub fn exact(score: i32) -> Bounds {
        Bounds {
            lo: score,
            hi: score,
        }
    }

    /// Whether the score is known.
    pub fn is_exact(self) -> bool {
        self.lo == self.hi
    }

    /// The same bounds seen by the other player.
    pub fn negate(self) -> Bounds {
        Bounds {
            lo: -self.hi,
            hi: -self.lo,
        }
    }
}

/// The solver's table, with keys cut to 32 bits where that is still exact for the board
/// and the number of slots (always on 7×6 above 2^17 slots), whole otherwise.
pub(crate) enum SolverTable {
    /// Five bytes a slot.
    Short(PartialTable<u32>),
    /// Nine bytes a slot.
    Long(PartialTable<u64>),
}

/// What to work out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    /// The position's score.
    Position,
    /// The score of every move.
    EveryMove,
    /// One move proven best (its exact score, the position's), the others only proven
    /// no better: what playing needs, often a fraction of [`Task::EveryMove`].
    BestMove,
    /// The position's win, draw or loss and a move that keeps it (for a win, a move
    /// proven to win, its score only bounded): cheaper still, for when the exact
    /// score is out of reach.
    Outcome,
    /// Whether the mover wins: one null window at 0, one entry.
    Win,
}

/// What a [`Task`] found: one entry for [`Task::Position`] and [`Task::Win`], one per column (`None` when
/// full) for the other tasks; and the nodes it took.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub bounds: Vec<Option<Bounds>>,
    pub nodes: u64,
}

impl SolverTable {
    /// A table of at most `bytes` bytes (and no more slots than the board has
    /// positions), for `rules` that [`grid::fits`].
    pub fn new(rules: Rules, bytes: usize) -> SolverTable {
        let key_bits = rules.width() * (rules.height() + 1);
        let positions = 3f64.powi(rules.cells() as i32) / 4.0;
        let slots = |slot_bytes: usize| {
            let wanted = bytes / slot_bytes;
            let wanted = if positions < wanted as f64 {
                positions as usize
            } else {
                wanted
            };
            prime_at_most(wanted.max(1021))
        };
        let short = slots(PartialTable::<u32>::SLOT_BYTES);
        if PartialTable::<u32>::exact_for(short, key_bits) {
            SolverTable::Short(PartialTable::new(short))
        } else {
            SolverTable::Long(PartialTable::new(slots(PartialTable::<u64>::SLOT_BYTES)))
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        match self {
            SolverTable::Short(t) => t.slots() * PartialTable::<u32>::SLOT_BYTES,
            SolverTable::Long(t) => t.slots() * PartialTable::<u64>::SLOT_BYTES,
        }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        match self {
            SolverTable::Short(t) => t.clear(),
            SolverTable::Long(t) => t.clear(),
        }
    }

    /// Runs `task` on `position` (in progress, rules that [`grid::fits`]).
    pub fn run(
        &mut self,
        position: &Position,
        task: Task,
        node_limit: u64,
        deadline: Option<Instant>,
        cancel: Option<&AtomicBool>,
    ) -> Outcome {
        let rules = position.rules();
        let limits = (node_limit, deadline, cancel);
        // 7×6 gets its own copy of the search with every mask a constant.
        match (self, rules == Rules::connect4()) {
            (SolverTable::Short(t), true) => run_task(Standard, t, position, task, limits),
            (SolverTable::Short(t), false) => {
                run_task(Custom::new(rules), t, position, task, limits)
            }
            (SolverTable::Long(t), true) => run_task(Standard, t, position, task, limits),
            (SolverTable::Long(t), false) => {
                run_task(Custom::new(rules), t, position, task, limits)
            }
        }
    }
}

fn run_task<S: Shape, K: StoredKey>(
    shape: S,
    table: &mut PartialTable<K>,
    position: &Position,
    task: Task,
    (node_limit, deadline, cancel): (u64, Option<Instant>, Option<&AtomicBool>),
) -> Outcome {
    let grid = Grid::of(shape, position);
    let mut solver = Solver::new(shape, table, node_limit, deadline, cancel);
    let bounds = match task {
        Task::Position => vec![Some(solver.solve(&grid))],
        Task::Win => vec![Some(solver.at_least(&grid, 1))],
        task => solver.analyze(&grid, task),
    };
    Outcome {
        bounds,
        nodes: solver.nodes,
    }
}

/// One search (or several sharing a table): the shape, the table, counters and limits.
pub(crate) struct Solver<'a, S: Shape, K: StoredKey> {
    shape: S,
    table: &'a mut PartialTable<K>,
    /// Columns from the centre outwards: the order of search among equal moves.
    order: [u32; 20],
    /// Added to a score to store it (so its code is at least 1; 0 means none).
    base: i32,
    /// Nodes visited (calls of `negamax`, as Pons counts them).
    pub nodes: u64,
    node_limit: u64,
    next_poll: u64,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
    /// Set once a limit is reached; the search in progress is then abandoned.
    pub stopped: bool,
}

impl<'a, S: Shape, K: StoredKey> Solver<'a, S, K> {
    /// A solver on `table` with these limits (`u64::MAX` nodes is none).
    pub fn new(
        shape: S,
        table: &'a mut PartialTable<K>,
        node_limit: u64,
        deadline: Option<Instant>,
        cancel: Option<&'a AtomicBool>,
    ) -> Solver<'a, S, K> {
        let width = shape.width();
        let mut order = [0; 20];
        for (i, slot) in order.iter_mut().take(width as usize).enumerate() {
            // width / 2, then right and left of it alternately: 3 4 2 5 1 6 0 for 7.
            let i = i as i32;
            *slot = (width as i32 / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32;
        }
        let cells = shape.cells() as i32;
        // Scores lie in -cells/2 ..= (cells+1)/2.
        let base = cells / 2 + 1;
        Solver {
            shape,
            table,
            order,
            base,
            nodes: 0,
            node_limit,
            next_poll: node_limit.min(POLL_INTERVAL),
            deadline,
            cancel,
            stopped: false,
        }
    }

    fn poll(&mut self) {
        if self.nodes >= self.node_limit
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
        {
            self.stopped = true;
        }
        self.next_poll = self.node_limit.min(self.nodes + POLL_INTERVAL);
    }

    /// The score of `grid` (not over), or as much as was proven of it before a limit.
    pub fn solve(&mut self, grid: &Grid) -> Bounds {
        match self.before_search(grid) {
            Ok(bounds) => self.narrow(grid, bounds, false),
            Err(won) => won,
        }
    }

    /// What is known of `grid`'s score (not over) before any search: `Err` with the exact
    /// score when the mover wins at once, else the bounds every score of it lies in.
    fn before_search(&self, grid: &Grid) -> Result<Bounds, Bounds> {
        let (cells, n) = (self.shape.cells() as i32, grid.moves as i32);
        if grid.can_win_next(self.shape) {
            return Err(Bounds::exact((cells + 1 - n) / 2));
        }
        Ok(Bounds {
            lo: -(cells - n) / 2,
            hi: (cells + 1 - n) / 2,
        })
    }

    /// Whether the score of `grid` (not over) is at least `s`, by one null-window
    /// search: bounds with `lo >= s` if so, `hi < s` if not (fail-soft, so often
    /// tighter), the trivial bounds if a limit stopped it. The cheapest question: the
    /// opening book asks only `s = 1` (a win) of most positions.
    pub fn at_least(&mut self, grid: &Grid, s: i32) -> Bounds {
        let bounds = match self.before_search(grid) {
            Ok(bounds) => bounds,
            Err(won) => return won,
        };
        if s <= bounds.lo {
            return bounds;
        }
        if s > bounds.hi {
            return bounds;
        }
        let r = self.negamax(grid, s - 1, s);
        if self.stopped {
            bounds
        } else if r >= s {
            Bounds { lo: r, ..bounds }
        } else {
            Bounds { hi: r, ..bounds }
        }
    }

    /// Narrows `bounds` on the score of `grid` (in progress, the mover cannot win at
    /// once) until it is exact or a limit comes. With `low_first`, the first window
    /// asks whether the score is its lowest bound: the cheapest question when that is
    /// likely, as for a move whose opponent's reply is expected to hold the best score.
    fn narrow(&mut self, grid: &Grid, mut bounds: Bounds, low_first: bool) -> Bounds {
        if low_first && bounds.lo < bounds.hi && !self.stopped {
            let r = self.negamax(grid, bounds.lo, bounds.lo + 1);
            if self.stopped {
                return bounds;
            }
            if r <= bounds.lo {
                bounds.hi = r;
            } else {
                bounds.lo = r;
            }
        }
        // Null windows, each halving the interval, but tried nearer 0 first: most
        // positions are close to a draw, and windows near 0 are the cheapest to search.
        while bounds.lo < bounds.hi && !self.stopped {
            let mut med = bounds.lo + (bounds.hi - bounds.lo) / 2;
            if med <= 0 && bounds.lo / 2 < med {
                med = bounds.lo / 2;
            } else if med >= 0 && bounds.hi / 2 > med {
                med = bounds.hi / 2;
            }
            let r = self.negamax(grid, med, med + 1);
            if self.stopped {
                break;
            }
            if r <= med {
                bounds.hi = r;
            } else {
                bounds.lo = r;
            }
        }
        bounds
    }

    /// Bounds on the score of every column of `grid` (not over) for the mover, `None`
    /// for a full column, each child solved in turn with the shared table. Stops at a
    /// limit, leaving the rest as far as they were proven (at least the trivial bounds).
    /// For [`Task::BestMove`], stops at the first move proven to reach the position's
    /// score: each move is asked only whether it does (one null window), and the others
    /// keep an upper bound below it. For [`Task::Outcome`], likewise with the position's
    /// win, draw or loss instead of its score. (The one-entry tasks are taken as
    /// [`Task::EveryMove`].)
    pub fn analyze(&mut self, grid: &Grid, task: Task) -> Vec<Option<Bounds>> {
        let shape = self.shape;
        let (cells, n) = (shape.cells() as i32, grid.moves as i32);
        let width = shape.width();
        let mut result = vec![None; width as usize];
        let mut todo: Vec<(u32, Grid)> = Vec::new();
        for col in 0..width {
            if !grid.can_play(shape, col) {
                continue;
            }
            let child = grid.after_column(shape, col);
            result[col as usize] = Some(if grid.wins_with(shape, col) {
                Bounds::exact((cells + 1 - n) / 2)
            } else if child.moves as i32 == cells {
                Bounds::exact(0)
            } else if child.can_win_next(shape) {
                Bounds::exact(-(cells - n) / 2)
            } else {
                // The opponent cannot win at once: at best they win on their next
                // stone but one; and we have not won with this stone.
                todo.push((col, child));
                Bounds {
                    lo: -(cells - 2 - n) / 2,
                    hi: (cells - 1 - n) / 2,
                }
            });
        }
        // Likely best first: its proof fills the table with what the others need.
        let rank = |col: u32| self.order.iter().position(|&c| c == col).unwrap_or(0);
        todo.sort_by_key(|&(col, _)| {
            let mv = grid.after_column(shape, col).mask ^ grid.mask;
            (std::cmp::Reverse(grid.move_score(shape, mv)), rank(col))
        });
        if todo.is_empty() {
            return result;
        }
        if task == Task::Outcome {
            if result.iter().flatten().any(|b| b.lo > 0) {
                return result;
            }
            // Is it a win? Else a draw? One null window each, at 0.
            let mut position = self.at_least(grid, 1);
            if !self.stopped && position.hi < 1 {
                let draw = self.at_least(grid, 0);
                position = Bounds {
                    lo: draw.lo,
                    hi: draw.hi.min(position.hi),
                };
            }
            if self.stopped {
                return result;
            }
            for slot in result.iter_mut().flatten() {
                slot.hi = slot.hi.min(position.hi);
            }
            if position.hi < 0 {
                // Lost: no move keeps more, and only exact scores tell them apart.
                return result;
            }
            // A move that wins (`target` 1) or draws (0).
            let target = position.lo.min(1);
            for (col, child) in todo {
                let reply = self.at_least(&child, 1 - target);
                if self.stopped {
                    break;
                }
                let slot = result[col as usize].as_mut().expect("set above");
                if reply.hi <= -target {
                    slot.lo = slot.lo.max(-reply.hi);
                    break;
                }
                slot.hi = slot.hi.min(-reply.lo);
            }
            return result;
        }
        // The position's own score first: no move beats it, one move reaches it, and
        // its search leaves in the table most of what proves each move's score.
        let best = self.solve(grid);
        if task == Task::BestMove {
            if !best.is_exact() {
                return result;
            }
            // A move settled without search (a win at once) may already reach it.
            if result.iter().flatten().any(|b| *b == best) {
                return result;
            }
            for (col, child) in todo {
                let slot = result[col as usize].as_mut().expect("set above");
                slot.hi = slot.hi.min(best.hi);
                // The move reaches the score if the opponent's after it is at most -best.
                let reply = self.at_least(&child, 1 - best.lo);
                if self.stopped {
                    break;
                }
                if reply.hi <= -best.lo {
                    *slot = best;
                    break;
                }
                slot.hi = slot.hi.min(-reply.lo);
            }
            // The moves not reached are no better than the position.
            for slot in result.iter_mut().flatten() {
                slot.hi = slot.hi.min(best.hi);
            }
            return result;
        }
        for (col, child) in todo {
            if self.stopped {
                break;
            }
            let slot = result[col as usize].as_mut().expect("set above");
            slot.hi = slot.hi.min(best.hi);
            let bounds = self.narrow(&child, slot.negate(), true).negate();
            slot.lo = slot.lo.max(bounds.lo);
            slot.hi = slot.hi.min(bounds.hi);
        }
        result
    }

    /// Negamax with alpha-beta on a position where the mover cannot win at once, and
    /// nobody has. Fail-soft: at most `alpha` means an upper bound, at least `beta` a
    /// lower bound, between them the score.
    fn negamax(&mut self, grid: &Grid, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.poll();
            if self.stopped {
                return 0;
            }
        }
        let shape = self.shape;
        let (cells, n) = (shape.cells() as i32, grid.moves as i32);
        let possible = grid.non_losing_moves(shape);
        if possible == 0 {
            // Every move lets the opponent win with their next stone.
            return -(cells - n) / 2;
        }
        if n >= cells - 2 {
            // Neither of the last two stones can win: see `non_losing_moves`.
            return 0;
        }
        // The opponent cannot win with their next stone, nor we with this one.
        let min = -(cells - 2 - n) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let mut max = (cells - 1 - n) / 2;
        let key = grid.key();
        let slot = self.table.slot(key);
        let [lower, upper, known] = self.table.get(slot, key);
        if lower != 0 {
            let lower = i32::from(lower) - self.base;
            if alpha < lower {
                alpha = lower;
                if alpha >= beta {
                    return alpha;
                }
            }
        }
        if upper != 0 {
            max = max.min(i32::from(upper) - self.base);
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        // Insertion sort by score, ascending; equal scores keep the order added, and
        // the centre is added last, so popping from the end takes the best move, the
        // most central among equals.
        // Enhanced transposition cutoff: a child whose stored upper bound already
        // proves this node's lower bound saves searching anything.
        {
            let mut rest = possible;
            while rest != 0 {
                let mv = rest & rest.wrapping_neg();
                rest ^= mv;
                let mut child = *grid;
                child.play(mv);
                let ckey = child.key();
                let cslot = self.table.slot(ckey);
                let [_, cupper, _] = self.table.get(cslot, ckey);
                if cupper != 0 {
                    let score = -(i32::from(cupper) - self.base);
                    if score >= beta {
                        let col = mv.trailing_zeros() / shape.stride();
                        self.store::<true>(slot, key, score, col);
                        return score;
                    }
                }
            }
        }
        // The move that last proved a lower bound here goes first.
        let mut moves = [(0u64, 0u32, 0u32); 20];
        let mut count = 0;
        for &col in self.order[..shape.width() as usize].iter().rev() {
            let mv = possible & shape.column(col);
            if mv == 0 {
                continue;
            }
            let score = if col + 1 == u32::from(known) {
                u32::MAX
            } else {
                grid.move_score(shape, mv)
            };
            let mut at = count;
            while at > 0 && moves[at - 1].1 > score {
                moves[at] = moves[at - 1];
                at -= 1;
            }
            moves[at] = (mv, score, col);
            count += 1;
        }
        for &(mv, _, col) in moves[..count].iter().rev() {
            let mut child = *grid;
            child.play(mv);
            let score = -self.negamax(&child, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            if score >= beta {
                self.store::<true>(slot, key, score, col);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.store::<false>(slot, key, alpha, 0);
        alpha
    }

    #[inline]
    fn store<const LOWER: bool>(&mut self, slot: usize, key: u64, score: i32, col: u32) {
        let code = score + self.base;
        debug_assert!(code > 0 && code <= 2 * self.base, "score {score}");
        let entry = self.table.entry(slot, key);
        if LOWER {
            entry[0] = code as u8;
            entry[2] = col as u8 + 1;
        } else {
            entry[1] = code as u8;
        }
    }
}

/// A Pons score for the mover at a position of `n` stones on a board of `cells`
/// cells, as a [`Value`] (plies until the winning stone).
pub(crate) fn value_of(score: i32, cells: u32, n: u32) -> Value {
    if score == 0 {
        return Value::Draw;
    }
    // The winning stone is the p-th of the game, with (cells + 2 - p) / 2 = |score|
    // (rounded down): p is one of two numbers, told apart by whose stone it is.
    let p = (cells + 1) - 2 * score.unsigned_abs();
    let winner_parity = if score > 0 { (n + 1) % 2 } else { n % 2 };
    let p = if p % 2 == winner_parity { p } else { p + 1 };
    if score > 0 {
        Value::Win(p - n)
    } else {
        Value::Loss(p - n)
    }
}

/// A [`Value`] (exact) for the mover at `n` stones as a Pons score.
pub(crate) fn score_of(value: Value, cells: u32, n: u32) -> Option<i32> {
    match value {
        Value::Win(plies) => Some(((cells + 2 - (n + plies)) / 2) as i32),
        Value::Loss(plies) => Some(-(((cells + 2 - (n + plies)) / 2) as i32)),
        Value::Draw => Some(0),
        Value::Estimate(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_scores_round_trip() {
        for n in 0..42 {
            for plies in 1..=(42 - n) {
                let value = if plies % 2 == 1 {
                    Value::Win(plies)
                } else {
                    Value::Loss(plies)
                };
                let score = score_of(value, 42, n).expect("exact");
                assert_eq!(value_of(score, 42, n), value, "n {n} plies {plies}");
            }
        }
        // X wins with its 4th stone (the 7th of the game) on an empty board: 22 - 4.
        assert_eq!(score_of(Value::Win(7), 42, 0), Some(18));
        assert_eq!(value_of(-18, 42, 1), Value::Loss(6));
    }

    #[test]
    fn solves_known_positions() {
        let mut table = PartialTable::<u32>::new(prime_at_most(1 << 20));
        let cases = [
            // From Pons' Test_L3_R1.
            ("2252576253462244111563365343671351441", -1),
            ("7422341735647741166133573473242566", 1),
            ("23163416124767223154467471272416755633", 0),
        ];
        for (moves, expected) in cases {
            let position = Position::from_column_digits(Rules::connect4(), moves).expect("legal");
            let grid = Grid::of(Standard, &position);
            let mut solver = Solver::new(Standard, &mut table, u64::MAX, None, None);
            assert_eq!(solver.solve(&grid), Bounds::exact(expected), "{moves}");
            let best = solver
                .analyze(&grid, Task::EveryMove)
                .into_iter()
                .flatten()
                .map(|b| {
                    assert!(b.is_exact());
                    b.lo
                })
                .max();
            assert_eq!(best, Some(expected), "{moves}");
        }
    }
}
