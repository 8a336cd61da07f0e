//! The AI: negamax with alpha-beta, a transposition table, symmetry and levels.
//!
//! The search runs on bitboards (`bits`, `geometry`), the recursion is in `search`, the
//! table in `table`; this module turns a [`Position`] into a search, reads the result
//! back as [`Value`]s and picks a move at the AI's [`Level`].

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
mod geometry;
mod gomoku;
mod prove;
mod search;
pub(crate) mod solver;
mod table;
mod threats;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use self::attack::Attack;
use self::bits::{Bits, Wide};
use self::geometry::{Geometry, Layout, Layouts};
use self::search::{Board, INF, Search, WIN, mate};
use self::solver::{Bounds, SolverTable, Task, grid};
use self::table::Table;
#[doc(hidden)]
pub use self::threats::{hopeless_moves, threat_win};
use crate::book::{Book, book_move};
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

impl Level {
    /// Deepest iteration at this level, in plies from the position.
    fn max_depth(self) -> Option<u32> {
        match self {
            Level::Easy => Some(1),
            Level::Medium => Some(3),
            Level::Perfect => None,
        }
    }
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

/// Positions with at most this many empty cells are solved right after the shallow
/// iterations instead of deepening one ply at a time.
const SOLVE_EMPTY: u32 = 25;
/// Positions with at most this many empty cells are solved at once, without shallow
/// iterations first: it takes a moment.
const SOLVE_AT_ONCE: u32 = 16;
/// Iterations run before jumping to a full solve: they give a sound move if the solve
/// does not finish in time.
const SHALLOW_DEPTHS: u32 = 4;

/// On boards the exact solver handles, the share of the budget (time and nodes) it may
/// use before the heuristic search gets the rest to value what it did not prove.
const SOLVER_SHARE: (u32, u32) = (4, 5);
/// On those boards the heuristic search only backs the solver up: this much table is
/// plenty, the rest of the budget goes to the solver's table.
const FALLBACK_TABLE_BYTES: usize = 256 << 10;
/// The most table a search uses on a big open board with five or more in a row, far
/// from full (gomoku): there it is a heuristic search bounded by time, which a bigger
/// table does not take deeper. With 4 MiB and 512 KiB the gomoku positions of
/// `examples/gomoku_speed.rs` reach the same depth and best move at 1.5 million nodes,
/// the smaller table about 7% faster a node (fewer cache misses). A table of a core's
/// whole cache also evicts, at every search, what the threads sharing that core had in
/// it: a server's threads that carry people's moves.
const OPEN_BOARD_TABLE_BYTES: usize = 512 << 10;

/// Probability that an Easy AI plays a random legal move instead of its search's choice.
const EASY_MISTAKE: f64 = 0.3;
/// Probability that an Easy AI takes a win in one when it has one.
const EASY_TAKES_WIN: f64 = 0.9;

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

/// Where an [`Ai`] finds its Connect Four opening book.
#[derive(Debug, Clone)]
enum BookSource {
    /// The book compiled into the engine (none if it does not read).
    Embedded,
    /// A book given by the caller, or none at all.
    Given(Option<Arc<Book>>),
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
    pub fn think(&mut self, position: &Position, limits: &Limits) -> Analysis {
        self.analyze_for(position, limits, Task::BestMove)
    }

    fn analyze_for(&mut self, position: &Position, limits: &Limits, task: Task) -> Analysis {
        let rules = position.rules();
        self.prepare(rules, self.table_budget(position));
        let analysis = if self.uses_solver(rules) {
            self.run_solver(position, limits, task)
        } else {
            self.run_general(position, limits)
        };
        self.last_nodes = analysis.nodes;
        analysis
    }

    fn run_general(&mut self, position: &Position, limits: &Limits) -> Analysis {
        let rules = position.rules();
        let bits = rules.width() * (rules.height() + 1);
        if bits <= u64::BITS {
            self.run::<u64>(position, limits)
        } else if bits <= u128::BITS {
            self.run::<u128>(position, limits)
        } else {
            self.run::<Wide>(position, limits)
        }
    }

    /// Nodes visited by the last [`Ai::analyze`] or [`Ai::solve`], for benchmarks.
    pub fn last_nodes(&self) -> u64 {
        self.last_nodes
    }

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
        let rules = position.rules();
        self.prepare(rules, self.table_budget(position));
        self.last_nodes = 0;
        if grid::fits(rules) {
            if position.is_over() {
                return None;
            }
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
            return bounds
                .is_exact()
                .then(|| solver::value_of(bounds.lo, rules.cells(), position.ply() as u32));
        }
        let bits = position.rules().width() * (position.rules().height() + 1);
        if bits <= u64::BITS {
            self.solve_with::<u64>(position, limits)
        } else if bits <= u128::BITS {
            self.solve_with::<u128>(position, limits)
        } else {
            self.solve_with::<Wide>(position, limits)
        }
    }

    fn solve_with<B: Layout>(&mut self, position: &Position, limits: &Limits) -> Option<Value> {
        if position.is_over() {
            return None;
        }
        let start = Instant::now();
        let geo: &Geometry<B> = B::geometry(&mut self.geometry, position.rules());
        let board = board_of(geo, position);
        let mut spent = 0;
        if geo.restricts(board.n) {
            // The general search cannot prove anything here (it skips far cells for
            // both sides); the proof search can prove a win or a loss.
            let mut attack = Attack::new(
                geo,
                attack::table_bits(self.table.bytes()),
                limits.nodes.unwrap_or(u64::MAX),
                limits.deadline(start),
                limits.cancel.as_deref(),
            );
            let outcome = attack.outcome(&board, geo.cells - board.n);
            spent = attack.nodes;
            self.last_nodes = spent;
            match outcome {
                Some((true, plies)) => return Some(Value::Win(plies)),
                Some((false, plies)) => return Some(Value::Loss(plies)),
                None if attack.stopped => return None,
                None => {}
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

    /// Sizes and clears the table (and the cached geometry) when the rules change.
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

    /// [`Ai::analyze`] with the exact solver: every move solved in turn with the shared
    /// table; if a limit comes first, the general search values what was not proven
    /// with the rest of the budget, and the choice never strays below what was proven.
    fn run_solver(&mut self, position: &Position, limits: &Limits, task: Task) -> Analysis {
        let start = Instant::now();
        if position.is_over() {
            return Analysis {
                moves: Vec::new(),
                best: None,
                nodes: 0,
                depth: 0,
                proven: true,
            };
        }
        let rules = position.rules();
        let (cells, n) = (rules.cells(), position.ply() as u32);
        let book = match &self.book {
            BookSource::Embedded => Book::embedded().ok(),
            BookSource::Given(book) => book.as_deref(),
        };
        // The book's entry settles the move to play; every move's value (a hint) it
        // settles only when it holds them all, else it bounds what the search finds.
        let booked = book.and_then(|book| from_book(book, position));
        if let Some(analysis) = &booked
            && (task != Task::EveryMove
                || analysis
                    .moves
                    .iter()
                    .all(|m| !matches!(m.value, Value::Estimate(_))))
        {
            return analysis.clone();
        }
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
            add_book_bounds(&mut moves, analysis, cells, n);
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
            let general = self.run_general(position, &fallback);
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

    fn run<B: Layout>(&mut self, position: &Position, limits: &Limits) -> Analysis {
        let start = Instant::now();
        let legal = position.legal_moves();
        if legal.is_empty() {
            return Analysis {
                moves: Vec::new(),
                best: None,
                nodes: 0,
                depth: 0,
                proven: true,
            };
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
        let proof_win = self.threats
            && self.level == Level::Perfect
            && attack::applies(geo, n)
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
            || (self.threats
                && self.level == Level::Perfect
                && threats::judge(
                    geo,
                    &board,
                    &mut roots_view(&mut roots, board.mask),
                    &mut search,
                    limits,
                    start,
                ));

        // Big open boards far from full: the fast gomoku search values the moves.
        let fast = self.threats
            && self.level == Level::Perfect
            && gomoku::applies(position.rules(), geo.restricts(n));
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
        let proving = self.level == Level::Perfect && prove::applies(geo, n);
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

    /// The move to play from `moves` (sorted best first, with ranks), at this level.
    fn pick(&mut self, moves: &[(MoveValue, Rank)]) -> Move {
        if self.level == Level::Easy {
            let win_now = moves
                .iter()
                .find(|(m, _)| m.value == Value::Win(1))
                .map(|(m, _)| m.mv);
            if let Some(mv) = win_now
                && self.rng.random_bool(EASY_TAKES_WIN)
            {
                return mv;
            }
            if self.rng.random_bool(EASY_MISTAKE) {
                // Any move the search looked at: on a big board, not a far-away cell.
                let near = moves.iter().filter(|(_, (searched, ..))| *searched).count();
                return moves[self.rng.random_range(0..near.max(1))].0.mv;
            }
        }
        let top = moves[0].1;
        let ties = moves.iter().take_while(|(_, s)| *s == top).count();
        moves[self.rng.random_range(0..ties)].0.mv
    }
}

/// The analysis of a Connect Four position from `book`, if it is there.
fn from_book(book: &Book, position: &Position) -> Option<Analysis> {
    let mut moves = book.lookup(position)?;
    let (cells, n) = (position.rules().cells(), position.ply() as u32);
    moves.sort_by_key(|m| std::cmp::Reverse(solver::score_of(m.value, cells, n)));
    Some(Analysis {
        best: book_move(position, &moves),
        moves,
        nodes: 0,
        depth: cells - n,
        proven: true,
    })
}

/// Narrows the solver's bounds with what a partial book entry proves: its move's floor
/// (a win's) or exact score (a draw's or a loss's, which no other move beats).
fn add_book_bounds(moves: &mut [Graded], book: &Analysis, cells: u32, n: u32) {
    for proven in &book.moves {
        let Some(s) = solver::score_of(proven.value, cells, n) else {
            continue;
        };
        for m in moves.iter_mut() {
            if m.mv == proven.mv {
                m.bounds.lo = m.bounds.lo.max(s);
                if s <= 0 {
                    m.bounds.hi = m.bounds.hi.min(s);
                }
            } else if s <= 0 {
                m.bounds.hi = m.bounds.hi.min(s);
            }
        }
    }
}

/// A move valued by the solver (and, where it could not prove it, by the heuristic).
#[derive(Debug, Clone, Copy)]
struct Graded {
    mv: Move,
    /// What was proven of its score (Pons' scale, for the mover).
    bounds: Bounds,
    /// The heuristic's estimate when unproven.
    estimate: i32,
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

/// How a root move ranks, best highest: searched (or exact) before far cells, then by
/// score, then proven before unproven (so a random pick among ties never mixes a proven
/// value with an estimate that merely equals it: the AI plays no move its search has not
/// shown as good as the one it proved), then, among proven losses, by how it defends
/// (takes an opponent's winning cell, heuristic value after it).
type Rank = (bool, i32, bool, (bool, i32));

/// A root move under analysis.
struct Root<B: Bits> {
    mv: Move,
    child: Board<B>,
    /// Value for the player making the move, from the last completed iteration.
    score: i32,
    exact: bool,
    /// Whether the search looks at it (big boards skip cells far from the stones).
    searched: bool,
    /// Move-ordering score, to break ties in the order of search.
    order: u32,
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
fn board_of<B: Bits>(geo: &Geometry<B>, position: &Position) -> Board<B> {
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

/// Runs `query` on a fresh proof search of `position` (big open boards; `refuting` for
/// the defender's side) within `limits`, with a table of `2^table_bits` entries: its
/// answer and the nodes searched, or `None` with gravity or once the game is over.
fn attack_on<B: Layout, R>(
    position: &Position,
    table_bits: u32,
    limits: &Limits,
    refuting: bool,
    query: impl FnOnce(&mut Attack<'_, B>, &Board<B>, &Geometry<B>) -> R,
) -> Option<(R, u64)> {
    let geo = Geometry::<B>::new(position.rules());
    if geo.gravity || position.is_over() {
        return None;
    }
    let board = board_of(&geo, position);
    let mut attack = Attack::new(
        &geo,
        table_bits,
        limits.nodes.unwrap_or(u64::MAX),
        limits.deadline(Instant::now()),
        limits.cancel.as_deref(),
    );
    if refuting {
        attack = attack.refuting();
    }
    let answer = query(&mut attack, &board, &geo);
    Some((answer, attack.nodes))
}

/// A proven win of the player to move within `max_plies` plies, by the attacker's proof
/// search of `attack` (big open boards), with a table of `2^table_bits` entries:
/// `(plies, first move, nodes)`; plies an upper bound. For tests and benchmarks.
#[doc(hidden)]
pub fn proven_win(
    position: &Position,
    max_plies: u32,
    table_bits: u32,
    limits: &Limits,
) -> (Option<(u32, Move)>, u64) {
    fn run<B: Layout>(
        position: &Position,
        max_plies: u32,
        table_bits: u32,
        limits: &Limits,
    ) -> (Option<(u32, Move)>, u64) {
        attack_on::<B, _>(position, table_bits, limits, false, |attack, board, geo| {
            attack
                .win(board, max_plies)
                .map(|(plies, bit)| (plies, move_at(geo, bit)))
        })
        .unwrap_or((None, 0))
    }
    dispatch!(position, run(position, max_plies, table_bits, limits))
}

/// A proven win or loss of the player to move within `max_plies` plies, by the proof
/// search of `attack` (as [`Ai::solve`] runs it on big open boards), with a table of
/// `2^table_bits` entries: the value (its plies an upper bound) and the nodes. For
/// tests and benchmarks.
#[doc(hidden)]
pub fn proven_value(
    position: &Position,
    max_plies: u32,
    table_bits: u32,
    limits: &Limits,
) -> (Option<Value>, u64) {
    fn run<B: Layout>(
        position: &Position,
        max_plies: u32,
        table_bits: u32,
        limits: &Limits,
    ) -> (Option<Value>, u64) {
        attack_on::<B, _>(position, table_bits, limits, false, |attack, board, _| {
            attack.outcome(board, max_plies).map(|(won, plies)| {
                if won {
                    Value::Win(plies)
                } else {
                    Value::Loss(plies)
                }
            })
        })
        .unwrap_or((None, 0))
    }
    dispatch!(position, run(position, max_plies, table_bits, limits))
}

/// Whether the player to move is proven not to win within `plies` plies (every move of
/// its own tried, the opponent's replies near the stones), with a table of
/// `2^table_bits` entries: `Some(proven)` and the nodes, `None` when a limit stopped
/// the search. With [`proven_win`], the exact plies of a win. For tests and
/// benchmarks.
#[doc(hidden)]
pub fn refuted_win(
    position: &Position,
    plies: u32,
    table_bits: u32,
    limits: &Limits,
) -> (Option<bool>, u64) {
    fn run<B: Layout>(
        position: &Position,
        plies: u32,
        table_bits: u32,
        limits: &Limits,
    ) -> (Option<bool>, u64) {
        attack_on::<B, _>(position, table_bits, limits, true, |attack, board, _| {
            let refuted = attack.refute(board, plies);
            (refuted || !attack.stopped).then_some(refuted)
        })
        .unwrap_or((None, 0))
    }
    dispatch!(position, run(position, plies, table_bits, limits))
}

/// Replays the proof of [`proven_win`] from `position` against every defender reply,
/// each attacker move taken from the proof and each line's end checked by
/// [`Position`]'s rules: the number of attacker positions checked, or the first position
/// where the proof fails (the attacker has no proven win there, or the defender won).
/// `None` when no win is proven within `max_plies`. For tests.
#[doc(hidden)]
pub fn replay_proven_win(
    position: &Position,
    max_plies: u32,
    table_bits: u32,
) -> Option<Result<u64, Box<Position>>> {
    fn run<B: Layout>(
        position: &Position,
        max_plies: u32,
        table_bits: u32,
    ) -> Option<Result<u64, Box<Position>>> {
        // No limit: a replay needs the whole proof.
        let limits = Limits {
            nodes: Some(u64::MAX),
            ..Limits::default()
        };
        attack_on::<B, _>(position, table_bits, &limits, false, |attack, board, _| {
            let (plies, _) = attack.win(board, max_plies)?;
            let mut count = 0;
            let mut seen = std::collections::HashMap::new();
            let mut walk = position.clone();
            Some(
                attack::replay(attack, &mut walk, board, plies, &mut seen, &mut count)
                    .map(|()| count),
            )
        })?
        .0
    }
    dispatch!(position, run(position, max_plies, table_bits))
}

/// The cell of a bit as a move.
fn move_at<B: Bits>(geo: &Geometry<B>, bit: u32) -> Move {
    let stride = geo.height + 1;
    Move::Cell(crate::rules::Cell {
        col: (bit / stride) as u8,
        row: (bit % stride) as u8,
    })
}

/// Analyses a position at full strength with a fresh table.
pub fn analyze(position: &Position, limits: &Limits) -> Analysis {
    Ai::new(Level::Perfect, 0).analyze(position, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn ties_never_mix_a_proven_value_with_an_equal_estimate() {
        let mut ai = Ai::new(Level::Perfect, 3);
        let mv = |col| Move::Column(col);
        let mut moves = vec![
            (
                MoveValue {
                    mv: mv(0),
                    value: Value::Estimate(0),
                },
                (true, 0, false, (false, 0)),
            ),
            (
                MoveValue {
                    mv: mv(1),
                    value: Value::Draw,
                },
                (true, 0, true, (false, 0)),
            ),
            (
                MoveValue {
                    mv: mv(2),
                    value: Value::Estimate(0),
                },
                (true, 0, false, (false, 0)),
            ),
        ];
        moves.sort_by_key(|&(_, rank)| std::cmp::Reverse(rank));
        for _ in 0..50 {
            assert_eq!(ai.pick(&moves), mv(1));
        }
    }

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
