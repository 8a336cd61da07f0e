//! How an [`Ai`]'s tables are sized, kept between moves, cleared and freed: the
//! transposition table's budget by the search a position goes to, and the exact
//! solver's table beside it.

use super::solver::grid;
use super::table::Table;
use super::{Ai, Level, geometry};
use crate::position::Position;
use crate::rules::Rules;

/// On boards the exact solver handles the heuristic search only backs it up: this much
/// table is plenty, the rest of the budget goes to the solver's table.
pub(super) const FALLBACK_TABLE_BYTES: usize = 256 << 10;
/// The most table a search uses on a big open board with five or more in a row, far
/// from full (gomoku): there it is a heuristic search bounded by time, which a bigger
/// table does not take deeper. With 4 MiB and 512 KiB the gomoku positions of
/// `examples/gomoku_speed.rs` reach the same depth and best move at 1.5 million nodes,
/// the smaller table about 7% faster a node (fewer cache misses). A table of a core's
/// whole cache also evicts, at every search, what the threads sharing that core had in
/// it: a server's threads that carry people's moves.
const OPEN_BOARD_TABLE_BYTES: usize = 512 << 10;

impl Ai {
    /// Forgets what the tables learned, keeping their memory: the next search starts
    /// cold, as a fresh AI's would, without paying for a new allocation.
    pub fn clear(&mut self) {
        if let Some(rules) = self.rules {
            let solver = self.solver.take();
            self.rules = None;
            self.prepare(rules, self.table_budget);
            self.solver = solver;
        }
        if let Some(solver) = self.solver.as_mut() {
            solver.clear();
        }
    }

    /// Frees the transposition table (and the per-rules tables); the next analysis
    /// builds them again, as for a new AI, while the random generator carries on.
    ///
    /// For a holder of many mostly idle AIs, such as a server with an AI in many rooms:
    /// releasing after each move makes memory follow the searches running at once rather
    /// than the number of AIs, at the price of a cold table on every move.
    pub fn release_memory(&mut self) {
        self.table.release();
        self.rules = None;
        self.geometry = None;
        self.solver = None;
    }

    /// Changes the table's budget for the searches that follow (as
    /// [`Ai::with_table_bytes`]); the current table is dropped. A search capped at a few
    /// thousand nodes needs a few thousand entries: with megabytes it spends more on
    /// zeroing the table (and on the memory traffic of doing so) than on searching.
    pub fn set_table_bytes(&mut self, bytes: usize) {
        if Table::new(bytes).bytes() != self.table.bytes() {
            self.table = Table::new(bytes);
            self.release_memory();
        }
    }

    /// Whether this AI values moves with the exact solver on `rules`.
    fn uses_solver(&self, rules: Rules) -> bool {
        self.level == Level::Perfect && grid::fits(rules)
    }

    /// How much of the table's budget a search of `position` uses: a little where the
    /// solver values the moves, at most [`OPEN_BOARD_TABLE_BYTES`] on a big open board
    /// with five or more in a row while it is far from full (late in such a game the
    /// full search may prove its result, and gets the whole budget again), else all.
    fn table_budget(&self, position: &Position) -> usize {
        let rules = position.rules();
        let stones = u32::try_from(position.ply()).unwrap_or(u32::MAX);
        if self.uses_solver(rules) {
            FALLBACK_TABLE_BYTES
        } else if rules.k() >= 5 && geometry::restricts(rules, stones) {
            OPEN_BOARD_TABLE_BYTES.min(self.table.bytes())
        } else {
            self.table.bytes()
        }
    }

    /// Sizes and clears the table for a search of `position`, unless it is already so.
    pub(super) fn prepare_for(&mut self, position: &Position) {
        self.prepare(position.rules(), self.table_budget(position));
    }

    /// Sizes and clears the table for `rules` with `budget` bytes of it, unless it is
    /// already so.
    fn prepare(&mut self, rules: Rules, budget: usize) {
        if self.rules != Some(rules) || self.table_budget != budget {
            self.table.prepare_within(rules, budget);
            self.table_budget = budget;
        }
        if self.rules != Some(rules) {
            self.rules = Some(rules);
            self.geometry = None;
            self.solver = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::ai::Limits;

    #[test]
    fn released_memory_is_rebuilt_for_the_next_analysis() {
        let position = Position::from_column_digits(Rules::connect4(), "44455").expect("legal");
        let limits = Limits {
            nodes: Some(200_000),
            ..Limits::default()
        };
        let fresh = Ai::new(Level::Perfect, 7).analyze(&position, &limits);
        let mut ai = Ai::new(Level::Perfect, 7);
        ai.analyze(&Position::new(Rules::tictactoe()), &limits);
        ai.release_memory();
        assert_eq!(
            ai.table.bytes(),
            Ai::DEFAULT_TABLE_BYTES,
            "the budget is kept"
        );
        let again = ai.analyze(&position, &limits);
        assert_eq!(again.moves, fresh.moves);
        assert_eq!(again.nodes, fresh.nodes);
    }

    #[test]
    fn a_new_table_budget_holds_from_the_next_search_and_gives_the_same_answers() {
        let limits = Limits {
            nodes: Some(2_000),
            ..Limits::default()
        };
        let connect4 = Position::from_column_digits(Rules::connect4(), "44455").expect("legal");
        for position in [Position::new(Rules::gomoku()), connect4] {
            let rules = position.rules();
            let mut ai = Ai::new(Level::Perfect, 5);
            ai.set_table_bytes(64 << 10);
            let small = ai.think(&position, &limits);
            assert_eq!(ai.table.bytes(), 64 << 10, "{rules:?}");
            ai.set_table_bytes(Ai::DEFAULT_TABLE_BYTES);
            ai.think(&position, &limits);
            assert_eq!(ai.table.bytes(), Ai::DEFAULT_TABLE_BYTES);
            // The same moves' values either way: 2,000 nodes fit both tables.
            let fresh = Ai::new(Level::Perfect, 5).think(&position, &limits);
            assert_eq!(small.moves, fresh.moves, "{rules:?}");
        }
    }

    #[test]
    fn a_big_open_board_far_from_full_searches_within_a_cache_sized_table() {
        let limits = Limits {
            nodes: Some(2_000),
            ..Limits::default()
        };
        let used = |position: &Position| {
            let mut ai = Ai::new(Level::Perfect, 5);
            ai.think(position, &limits);
            ai.table.allocated_bytes()
        };
        assert_eq!(
            used(&Position::new(Rules::gomoku())),
            OPEN_BOARD_TABLE_BYTES
        );
        // Four in a row on a big board: the proof search's table keeps the whole budget.
        let nine = Rules::new(9, 9, 4, false).expect("valid rules");
        assert_eq!(used(&Position::new(nine)), Ai::DEFAULT_TABLE_BYTES);
        // Connect Four: most of the budget goes to the solver, as before.
        let connect4 = Position::from_column_digits(Rules::connect4(), "44455").expect("legal");
        assert_eq!(used(&connect4), FALLBACK_TABLE_BYTES);

        // Late in a game on such a board the search may prove its result: the whole
        // budget again, and the same AI switches between the two as the board fills.
        let seven = Rules::new(7, 7, 5, false).expect("valid rules");
        let late = (0..)
            .find_map(|seed| {
                let mut rng = SmallRng::seed_from_u64(seed);
                let mut position = Position::new(seven);
                while position.ply() < 24 && !position.is_over() {
                    let moves = position.legal_moves();
                    let mv = moves[rng.random_range(0..moves.len())];
                    position.try_play(mv).expect("legal");
                }
                (!position.is_over()).then_some(position)
            })
            .expect("some random game is still on after 24 moves");
        let mut ai = Ai::new(Level::Perfect, 5);
        ai.think(&Position::new(seven), &limits);
        assert_eq!(ai.table.allocated_bytes(), OPEN_BOARD_TABLE_BYTES);
        ai.think(&late, &limits);
        assert_eq!(ai.table.allocated_bytes(), Ai::DEFAULT_TABLE_BYTES);
        ai.clear();
        assert_eq!(
            ai.table.allocated_bytes(),
            Ai::DEFAULT_TABLE_BYTES,
            "clearing keeps the size"
        );
    }
}
