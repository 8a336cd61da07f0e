//! The AI: its public face ([`Ai`], [`Level`], [`Limits`], [`Value`], [`Analysis`]) and
//! the entry points that hand a position to the search that suits it.
//!
//! Which search runs is decided in one table, `strategy`; each search lives in its
//! own module:
//!
//! - `book`: the Connect Four opening book as the AI reads it;
//! - `exact`: the exact solver's play on Connect Four and its cousins (the solver
//!   itself is in `solver`);
//! - `general`: negamax with alpha-beta at the root, by iterative deepening, with
//!   `prove` (solve, then prove every move) for boards small enough to solve;
//! - `attack` and `open_proof`: the proof search on big open boards;
//! - `threats`: threat-space search (fours and threes) on big open boards;
//! - `gomoku`: the pattern search for gomoku and other big open boards;
//! - `levels`: what Easy and Medium do differently;
//! - `memory`: how the tables are sized, kept, cleared and freed.
//!
//! Underneath: bitboards (`bits`, `geometry`), the negamax recursion (`search`) and its
//! transposition table (`table`).

/// Calls `run::<B>(...)` with the narrowest bitboard `B` that holds the position's board.
macro_rules! dispatch {
    ($position:expr, $run:ident($($arg:expr),*)) => {{
        let rules = $position.rules();
        let bits = rules.width() * (rules.height() + 1);
        if bits <= u64::BITS {
            $run::<u64>($($arg),*)
        } else if bits <= u128::BITS {
            $run::<u128>($($arg),*)
        } else {
            $run::<$crate::ai::bits::Wide>($($arg),*)
        }
    }};
}

mod attack;
mod bits;
mod book;
mod exact;
mod general;
mod geometry;
mod gomoku;
mod levels;
mod memory;
mod open_proof;
mod prove;
mod search;
pub(crate) mod solver;
mod strategy;
mod table;
mod threats;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;

use self::book::BookSource;
use self::geometry::Layouts;
#[doc(hidden)]
pub use self::gomoku::eval_features;
#[doc(hidden)]
pub use self::open_proof::{proven_value, proven_win, refuted_win, replay_proven_win};
use self::solver::{SolverTable, Task};
use self::strategy::{Strategy, ValueStrategy};
use self::table::Table;
#[doc(hidden)]
pub use self::threats::{hopeless_moves, threat_win};
use crate::book::Book;
use crate::position::Position;
use crate::rules::{Move, Rules};

/// Strength of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Level {
    /// Shallow search with random mistakes: a one-ply search (which still sees wins in
    /// one and forced blocks), a random move nearly a third of the time, and a win in
    /// one missed one time in ten.
    Easy,
    /// A three-ply search with the heuristic (plus the immediate-win and forced-block
    /// checks at its leaves).
    Medium,
    /// Full strength: solves the position when the limits allow (never a losing move
    /// while a non-losing one exists, the quickest win, the slowest loss), else the
    /// deepest heuristic search the limits allow.
    #[default]
    Perfect,
}

/// Bounds on a search. The best move found so far is returned when one is reached.
///
/// With neither `time` nor `nodes` set, [`Limits::DEFAULT_TIME`] applies, so a search
/// on a board too big to solve (gomoku) still ends.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Wall-clock budget.
    pub time: Option<Duration>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Set to true to stop the search; polled every few thousand nodes.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// The time budget used when neither a time nor a node budget is given.
    pub const DEFAULT_TIME: Duration = Duration::from_secs(2);

    /// When a search started at `start` must stop: its time budget, or
    /// [`Limits::DEFAULT_TIME`] when neither time nor nodes are limited.
    fn deadline(&self, start: Instant) -> Option<Instant> {
        match (self.time, self.nodes) {
            (None, None) => Some(start + Limits::DEFAULT_TIME),
            (time, _) => time.map(|t| start + t),
        }
    }

    /// Limits of `time` only.
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }
}

/// The value of a move or position for the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A forced win; the number is the plies until the winning stone (1 = this move wins).
    /// Exact where the search solved the position; where the win was found by the threat
    /// search or the proof search on a big open board (49 cells or more, such as gomoku
    /// or 7×7) it is an upper bound: the win is proven, and it comes in at most this many
    /// plies.
    Win(u32),
    /// A forced loss; the number is the plies until the opponent's winning stone. Exact
    /// where the search solved the position; where [`Ai::solve`] proved it on a big open
    /// board, an upper bound: whatever is played, the opponent wins within that many
    /// plies.
    Loss(u32),
    /// A proven draw.
    Draw,
    /// Unproven: a heuristic estimate, positive favours the player to move. Beyond
    /// ±1,000,000 the search saw a win (or loss) it could not prove, e.g. on a board
    /// too big to search every cell.
    Estimate(i32),
}

/// One legal move and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its value for the player making it.
    pub value: Value,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Every legal move with its value, best first.
    pub moves: Vec<MoveValue>,
    /// The move chosen at the AI's level; `None` when the game is over.
    pub best: Option<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Depth of the last completed iteration, in plies.
    pub depth: u32,
    /// Whether the chosen move is proven best: its value is proven and no move can do
    /// better. From [`Ai::analyze`]'s search every value in `moves` is then exact; from
    /// [`Ai::think`] and from the Connect Four opening book only the chosen move's need
    /// be (from the book, a win's plies may be an upper bound, as [`Value::Win`]
    /// allows), the others being `Estimate`s.
    pub proven: bool,
}

impl Analysis {
    /// The analysis of a finished game: no move.
    fn over() -> Analysis {
        Analysis {
            moves: Vec::new(),
            best: None,
            nodes: 0,
            depth: 0,
            proven: true,
        }
    }
}

/// A player that keeps its transposition table between moves.
pub struct Ai {
    level: Level,
    rng: SmallRng,
    table: Table,
    /// The rules the table's entries belong to; another rule set clears it.
    rules: Option<Rules>,
    /// The part of the table's budget those entries use (see [`Ai::table_budget`]);
    /// another part clears it too.
    table_budget: usize,
    /// The board geometry of those rules, built once.
    geometry: Option<Layouts>,
    /// Whether big open boards get the gomoku search and threat-space search (off only
    /// for the baseline AI the benchmarks compare against).
    threats: bool,
    /// The exact solver's table, on boards it handles (gravity, k = 4, 64 bits),
    /// allocated at its first use and kept between moves like `table`.
    solver: Option<SolverTable>,
    /// Nodes visited by the last [`Ai::analyze`] or [`Ai::solve`].
    last_nodes: u64,
    /// The Connect Four opening book consulted before searching.
    book: BookSource,
}

impl std::fmt::Debug for Ai {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ai")
            .field("level", &self.level)
            .field("table_bytes", &self.table.bytes())
            .field(
                "solver_table_bytes",
                &self.solver.as_ref().map(SolverTable::bytes),
            )
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

impl Ai {
    /// Default transposition table size: 4 MiB.
    pub const DEFAULT_TABLE_BYTES: usize = 4 << 20;

    /// An AI of `level` whose random choices follow `seed`, with a table of
    /// [`Ai::DEFAULT_TABLE_BYTES`].
    pub fn new(level: Level, seed: u64) -> Ai {
        Ai::with_table_bytes(level, seed, Self::DEFAULT_TABLE_BYTES)
    }

    /// An AI with a transposition table of at most `bytes` bytes (a power of two
    /// entries of 16 bytes, at least 1024 entries). It is allocated at the first
    /// analysis, smaller than that on boards with few positions, and kept between moves
    /// of the same rules.
    ///
    /// On boards the exact solver handles (gravity, k = 4, `width * (height + 1) <=
    /// 64`) the same budget is split instead: 256 KiB for the general search that backs
    /// the solver up, the rest for the solver's table (a prime number of 7-byte slots).
    /// On open boards of 49 cells or more with five or more in a row (gomoku), while
    /// more than 25 cells are empty, a search uses at most 512 KiB of it: there the
    /// search is bounded by time, and a bigger table neither takes it deeper nor leaves
    /// the core's cache to anything else.
    pub fn with_table_bytes(level: Level, seed: u64, bytes: usize) -> Ai {
        Ai {
            level,
            rng: SmallRng::seed_from_u64(seed),
            table: Table::new(bytes),
            rules: None,
            table_budget: 0,
            geometry: None,
            threats: true,
            solver: None,
            last_nodes: 0,
            book: BookSource::Embedded,
        }
    }

    /// This AI with `book` as its Connect Four opening book instead of the embedded one;
    /// `None` plays without a book (every move searched, as when the embedded book is
    /// damaged).
    pub fn with_book(mut self, book: Option<Arc<Book>>) -> Ai {
        self.book = BookSource::Given(book);
        self
    }

    /// The AI as it was before the gomoku search and threat-space search, kept only so
    /// benchmarks can measure the new one against it; not a level offered to players.
    #[doc(hidden)]
    pub fn baseline(seed: u64) -> Ai {
        Ai {
            threats: false,
            ..Ai::new(Level::Perfect, seed)
        }
    }

    /// The AI's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Values every legal move and picks one at this AI's level.
    ///
    /// At [`Level::Perfect`] on gravity boards with four in a row that fit 64 bits
    /// (Connect Four among them) the exact solver values each move; every other case
    /// (and the moves the solver could not prove within the limits) is valued by the
    /// general search.
    pub fn analyze(&mut self, position: &Position, limits: &Limits) -> Analysis {
        self.analyze_for(position, limits, Task::EveryMove)
    }

    /// What the AI plays and why: [`Ai::analyze`], except that where the exact solver
    /// values the moves it stops as soon as one move is proven best (`proven`), and
    /// returns at once instead of spending the rest of the budget on the others, whose
    /// values are then estimates with the bounds proven (never above the best).
    ///
    /// # Examples
    ///
    /// ```
    /// use inarow_engine::{Ai, Level, Limits, Move, Position, Rules, Value};
    ///
    /// // Tic-tac-toe, X to move with two in the bottom row and c1 free.
    /// let rules = Rules::tictactoe();
    /// let mut position = Position::new(rules);
    /// for text in ["a1", "b2", "b1", "c3"] {
    ///     position.try_play(rules.parse_move(text)?)?;
    /// }
    /// let mut ai = Ai::new(Level::Perfect, 7);
    /// let limits = Limits { nodes: Some(100_000), ..Limits::default() };
    /// let analysis = ai.think(&position, &limits);
    /// let c1 = rules.parse_move("c1")?;
    /// assert_eq!(analysis.best, Some(c1));
    /// assert_eq!(analysis.moves[0].value, Value::Win(1));
    /// assert!(analysis.proven);
    ///
    /// // Connect Four's opening comes from the book: the centre column, a proven win,
    /// // with no search at all.
    /// let analysis = ai.think(&Position::new(Rules::connect4()), &limits);
    /// assert_eq!(analysis.best, Some(Move::Column(3)));
    /// assert!(matches!(analysis.moves[0].value, Value::Win(_)));
    /// assert_eq!(analysis.nodes, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn think(&mut self, position: &Position, limits: &Limits) -> Analysis {
        self.analyze_for(position, limits, Task::BestMove)
    }

    fn analyze_for(&mut self, position: &Position, limits: &Limits, task: Task) -> Analysis {
        self.prepare_for(position);
        let analysis = match self.strategy(position, task) {
            Strategy::Over => Analysis::over(),
            Strategy::Book(entry) => entry,
            Strategy::Exact(booked) => self.run_exact(position, limits, task, booked),
            Strategy::General(plan) => self.run_general(position, limits, plan),
        };
        self.last_nodes = analysis.nodes;
        analysis
    }

    /// Nodes visited by the last [`Ai::analyze`] or [`Ai::solve`], for benchmarks.
    pub fn last_nodes(&self) -> u64 {
        self.last_nodes
    }

    /// The move this AI plays; `None` when the game is over.
    pub fn choose(&mut self, position: &Position, limits: &Limits) -> Option<Move> {
        self.think(position, limits).best
    }

    /// The exact value of the position for the player to move, by one full search
    /// (much cheaper than [`Ai::analyze`], which values every move exactly). `None`
    /// when the game is over, or when the limits (by default [`Limits::DEFAULT_TIME`])
    /// stop the search before it is proven.
    ///
    /// On open boards of 49 cells or more with more than 25 empty, where the general
    /// search skips far cells and so proves nothing, a proof search looks for a win or
    /// a loss instead: a value it finds is proven, its plies an upper bound (see
    /// [`Value::Win`]); a draw is not proven there.
    pub fn solve(&mut self, position: &Position, limits: &Limits) -> Option<Value> {
        self.prepare_for(position);
        self.last_nodes = 0;
        match self.value_strategy(position) {
            ValueStrategy::Over => None,
            ValueStrategy::Exact => self.value_exact(position, limits),
            ValueStrategy::Search { proof } => self.value_general(position, limits, proof),
        }
    }
}

/// Analyses a position at full strength with a fresh table.
pub fn analyze(position: &Position, limits: &Limits) -> Analysis {
    Ai::new(Level::Perfect, 0).analyze(position, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ai_is_send() {
        fn send<T: Send>() {}
        send::<Ai>();
    }

    #[test]
    fn game_over_has_no_move() {
        let position = Position::from_column_digits(Rules::connect4(), "1212121").expect("legal");
        let analysis = analyze(&position, &Limits::default());
        assert_eq!(analysis.best, None);
        assert!(analysis.moves.is_empty());
    }

    #[test]
    fn empty_tictactoe_is_a_draw_for_every_move() {
        let analysis = analyze(&Position::new(Rules::tictactoe()), &Limits::default());
        assert!(analysis.proven);
        assert_eq!(analysis.moves.len(), 9);
        assert!(
            analysis.moves.iter().all(|m| m.value == Value::Draw),
            "{analysis:?}"
        );
    }
}
