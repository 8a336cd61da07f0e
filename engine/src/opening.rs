//! The Connect Four solver's questions as the opening-book generator asks them: is this
//! position's score at least `s`, what is it exactly; with one big table kept across
//! every position, so each proof reuses what the previous ones proved. Not part of the
//! engine's supported API (hidden from the docs): `examples/build-book.rs` and the
//! book's tests are its users.

use std::time::Instant;

use crate::ai::solver::grid::{Grid, Shape, Standard};
use crate::ai::solver::table::{PartialTable, prime_at_most};
use crate::ai::solver::{Bounds, Solver};
use crate::position::Position;
use crate::rules::Rules;

/// What a search proved of a score: `lo <= score <= hi` (Pons' scale, for the mover).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proven {
    /// Lowest possible score.
    pub lo: i32,
    /// Highest possible score.
    pub hi: i32,
}

impl Proven {
    /// Whether the score is known.
    pub fn is_exact(self) -> bool {
        self.lo == self.hi
    }
}

impl From<Bounds> for Proven {
    fn from(b: Bounds) -> Proven {
        Proven { lo: b.lo, hi: b.hi }
    }
}

/// A 7×6 solver with one table for every question, and limits per question.
pub struct Prover {
    table: PartialTable<u32>,
    /// Nodes searched by every question so far.
    pub nodes: u64,
}

impl std::fmt::Debug for Prover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prover")
            .field("slots", &self.table.slots())
            .field("nodes", &self.nodes)
            .finish()
    }
}

impl Prover {
    /// A prover with a table of about `bytes` bytes (at least 2^18 slots, so its
    /// 32-bit partial keys stay exact on 7×6).
    pub fn new(bytes: usize) -> Prover {
        let slots = prime_at_most((bytes / PartialTable::<u32>::SLOT_BYTES).max(1 << 18));
        Prover {
            table: PartialTable::new(slots),
            nodes: 0,
        }
    }

    fn grid(position: &Position) -> Grid {
        assert_eq!(position.rules(), Rules::connect4(), "a 7x6 position");
        assert!(!position.is_over(), "a position in progress");
        Grid::of(Standard, position)
    }

    /// Whether the score of `position` (7×6, in progress) is at least `s`: bounds with
    /// `lo >= s` or `hi < s`, or `None` if `node_limit` nodes or the `deadline` came
    /// first.
    pub fn at_least(
        &mut self,
        position: &Position,
        s: i32,
        node_limit: u64,
        deadline: Option<Instant>,
    ) -> Option<Proven> {
        let grid = Self::grid(position);
        let mut solver = Solver::new(Standard, &mut self.table, node_limit, deadline, None);
        let bounds = solver.at_least(&grid, s);
        self.nodes += solver.nodes;
        (!solver.stopped).then_some(bounds.into())
    }

    /// The exact score of `position` (7×6, in progress), or `None` if a limit came first.
    pub fn exact(
        &mut self,
        position: &Position,
        node_limit: u64,
        deadline: Option<Instant>,
    ) -> Option<i32> {
        let grid = Self::grid(position);
        let mut solver = Solver::new(Standard, &mut self.table, node_limit, deadline, None);
        let bounds = solver.solve(&grid);
        self.nodes += solver.nodes;
        (!solver.stopped && bounds.is_exact()).then_some(bounds.lo)
    }

    /// Whether the mover wins, draws or loses (1, 0, -1) with the bounds proven on the
    /// way, or `None` if a limit came first: one or two null windows at 0, cheaper than
    /// the exact score.
    pub fn sign(
        &mut self,
        position: &Position,
        node_limit: u64,
        deadline: Option<Instant>,
    ) -> Option<Proven> {
        let win = self.at_least(position, 1, node_limit, deadline)?;
        if win.lo >= 1 {
            return Some(win);
        }
        let draw = self.at_least(position, 0, node_limit, deadline)?;
        Some(Proven {
            lo: draw.lo,
            hi: draw.hi.min(win.hi),
        })
    }

    /// A move whose score for the mover of `position` (7×6, in progress) is at least
    /// `s`, and the lowest score it is proven to reach (at least `s`): `Some(Some((column,
    /// lo)))`, `Some(None)` when the position's score is below `s`, `None` if a limit
    /// came first. One null window proves the floor; the table then names the move that
    /// proved it, checked by a second search that the table answers at once.
    pub fn move_reaching(
        &mut self,
        position: &Position,
        s: i32,
        node_limit: u64,
        deadline: Option<Instant>,
    ) -> Option<Option<(u8, i32)>> {
        let grid = Self::grid(position);
        let (cells, n) = (42, grid.moves as i32);
        let now = grid.winning_moves(Standard);
        if now != 0 {
            let col = now.trailing_zeros() / Standard.stride();
            return Some(Some((col as u8, (cells + 1 - n) / 2)));
        }
        let proven = self.at_least(position, s, node_limit, deadline)?;
        if proven.lo < s {
            return Some(None);
        }
        let lo = proven.lo;
        let slot = self.table.slot(grid.key());
        let [_, _, known] = self.table.get(slot, grid.key());
        // The remembered move first, then every other: one of them reaches `lo`.
        let first = known.checked_sub(1).map(u32::from);
        let order = first.into_iter().chain([3, 2, 4, 1, 5, 0, 6]);
        let mut tried = 0u8;
        for col in order {
            if tried & 1 << col != 0 || !grid.can_play(Standard, col) {
                continue;
            }
            tried |= 1 << col;
            let child = grid.after_column(Standard, col);
            if child.can_win_next(Standard) {
                // The opponent wins at once: the lowest score there is, enough only for a
                // floor as low (a lost position near the end of the board).
                let score = -(cells - n) / 2;
                if score >= lo {
                    return Some(Some((col as u8, score)));
                }
                continue;
            }
            let mut solver = Solver::new(Standard, &mut self.table, node_limit, deadline, None);
            // The move reaches `lo` if the opponent's score after it is below `1 - lo`.
            let reply = solver.at_least(&child, 1 - lo);
            self.nodes += solver.nodes;
            if solver.stopped {
                return None;
            }
            if reply.hi < 1 - lo {
                return Some(Some((col as u8, lo.max(-reply.hi))));
            }
        }
        unreachable!("a proven floor has a move that reaches it")
    }

    /// The move the table remembers as the last to raise the floor of `position`'s
    /// score, if any: a good first guess after a search that ran out of nodes.
    pub fn remembered_move(&self, position: &Position) -> Option<u8> {
        let grid = Self::grid(position);
        let slot = self.table.slot(grid.key());
        let [_, _, known] = self.table.get(slot, grid.key());
        known.checked_sub(1)
    }

    /// Forgets every entry of the table.
    pub fn clear(&mut self) {
        self.table.clear();
    }
}
