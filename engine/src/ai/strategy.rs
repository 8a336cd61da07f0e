//! Which search runs where: one table for valuing a position's moves ([`Ai::strategy`],
//! behind [`Ai::think`] and [`Ai::analyze`]) and one for valuing the position itself
//! ([`Ai::value_strategy`], behind [`Ai::solve`]). Each reads top to bottom, the first
//! row that matches wins; the searches themselves live in the modules the rows name.

use super::solver::{Task, grid};
use super::{Ai, Analysis, Level, attack, book, geometry, gomoku, threats};
use crate::position::Position;

/// How the moves of a position are valued (see [`Ai::strategy`]).
#[derive(Debug)]
pub(super) enum Strategy {
    /// The game is over: there is no move to value.
    Over,
    /// The Connect Four opening book answers (module `book`).
    Book(Analysis),
    /// The exact solver (module `exact`), bounded by the book's partial entry if there
    /// is one; the general search values what it leaves unproven.
    Exact(Option<Analysis>),
    /// The general search (module `general`), as the plan says.
    General(Plan),
}

/// What the general search runs: the proof passes first, then how it values the moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Plan {
    /// The proof search looks for a forced win first (module `attack`).
    pub proof: bool,
    /// The threat search looks for wins by fours and threes, and for losses to them
    /// (module `threats`); it also lets the search see threats at its leaves.
    pub threats: bool,
    /// What values the moves after the passes (when they prove no win).
    pub then: Finish,
}

/// How the general search values the moves after its proof passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Finish {
    /// Iterative deepening with the heuristic, as deep as the level and the limits
    /// allow; a board with few enough empty cells is solved after a few shallow
    /// iterations instead of deepening one ply at a time.
    Deepen,
    /// Shallow iterations for a fallback move, then the position solved and every move
    /// proven against its value (module `prove`).
    Prove,
    /// The gomoku search (module `gomoku`).
    Gomoku,
}

impl Plan {
    /// The proof search if `proof`, the threat search if `threats`, then `then`.
    const fn new(proof: bool, threats: bool, then: Finish) -> Plan {
        Plan {
            proof,
            threats,
            then,
        }
    }

    /// `then` with no proof pass before it.
    const fn only(then: Finish) -> Plan {
        Plan::new(false, false, then)
    }
}

/// How the general search values the moves the exact solver leaves unproven (on gravity
/// boards, so no proof pass).
pub(super) const EXACT_FALLBACK: Plan = Plan::only(Finish::Deepen);

/// How the value of a position is found (see [`Ai::value_strategy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueStrategy {
    /// The game is over: no value is reported.
    Over,
    /// The exact solver (module `exact`).
    Exact,
    /// The general search to the end of the game (module `general`), after the proof
    /// search (module `open_proof`) when `proof`.
    Search {
        /// Whether the proof search looks for a win or a loss first.
        proof: bool,
    },
}

impl Ai {
    /// Which search values the moves of `position` for `task`.
    pub(super) fn strategy(&self, position: &Position, task: Task) -> Strategy {
        use Finish::{Deepen, Gomoku, Prove};
        use Strategy::General;
        let rules = position.rules();
        let stones = u32::try_from(position.ply()).unwrap_or(u32::MAX);
        // Big open boards far from full, where the general search skips far cells.
        let early = geometry::restricts(rules, stones);
        // Which proof passes suit the line: the proof search lines of four or fewer,
        // the threat search lines of three or more.
        let proof = attack::covers(rules.k());
        let threats = threats::covers(rules.k());
        match () {
            _ if position.is_over() => Strategy::Over,
            // Easy and Medium: the heuristic search to the level's depth (the level's
            // mistakes come when it picks the move).
            _ if self.level != Level::Perfect => General(Plan::only(Deepen)),
            // Gravity, four in a row, 64 bits (Connect Four): the book where it settles
            // the task, else the exact solver.
            _ if grid::fits(rules) => match self.book.entry(position) {
                Some(entry) if book::settles(&entry, task) => Strategy::Book(entry),
                entry => Strategy::Exact(entry),
            },
            // Other gravity boards: too big for the solver, or not four in a row.
            _ if rules.gravity() => General(Plan::only(Deepen)),
            // Small open boards (tic-tac-toe, 6×6): every cell searched, so solved.
            _ if !geometry::restricted_board(rules) => General(Plan::only(Prove)),
            // The benchmarks' baseline (`Ai::baseline`) on big open boards: the AI from
            // before the proof passes and the gomoku search.
            _ if !self.threats && early => General(Plan::only(Deepen)),
            _ if !self.threats => General(Plan::only(Prove)),
            // Big open boards with 25 cells or fewer empty: every cell searched again,
            // so solved, after the threat search.
            _ if !early => General(Plan::new(false, threats, Prove)),
            // Big open boards early, lines the gomoku search handles (7×7 four in a
            // row, gomoku): the proof passes, then the gomoku search.
            _ if gomoku::covers(rules.k()) => General(Plan::new(proof, threats, Gomoku)),
            // Big open boards early, other lines: the proof passes, then deepening.
            _ => General(Plan::new(proof, threats, Deepen)),
        }
    }

    /// Which search finds the value of `position` (at any level).
    pub(super) fn value_strategy(&self, position: &Position) -> ValueStrategy {
        let rules = position.rules();
        let stones = u32::try_from(position.ply()).unwrap_or(u32::MAX);
        match () {
            _ if position.is_over() => ValueStrategy::Over,
            // Gravity, four in a row, 64 bits (Connect Four): the exact solver.
            _ if grid::fits(rules) => ValueStrategy::Exact,
            // Big open boards far from full: the general search skips far cells there
            // and proves nothing, the proof search can prove a win or a loss.
            _ if geometry::restricts(rules, stones) => ValueStrategy::Search { proof: true },
            // Every other board: the general search to the end.
            _ => ValueStrategy::Search { proof: false },
        }
    }
}
