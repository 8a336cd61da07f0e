//! The AI: negamax with alpha-beta, a transposition table, symmetry and levels.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::position::Position;
use crate::rules::Move;

/// Strength of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Level {
    /// Shallow search with random mistakes.
    Easy,
    /// Depth-limited search with the heuristic.
    Medium,
    /// Full strength.
    #[default]
    Perfect,
}

/// Bounds on a search. The best move found so far is returned when one is reached.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Wall-clock budget.
    pub time: Option<Duration>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Set to true to stop the search; polled every few thousand nodes.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// The value of a move or position for the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A forced win; the number is the plies until the winning stone (1 = this move wins).
    Win(u32),
    /// A forced loss; the number is the plies until the opponent's winning stone.
    Loss(u32),
    /// A proven draw.
    Draw,
    /// Unproven: a heuristic estimate, positive favours the player to move.
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
    /// Whether every value in `moves` is exact.
    pub proven: bool,
}

/// A player that keeps its transposition table between moves.
#[derive(Debug)]
pub struct Ai {
    level: Level,
}

impl Ai {
    /// An AI of `level` whose random choices follow `seed`.
    pub fn new(level: Level, _seed: u64) -> Ai {
        Ai { level }
    }

    /// The AI's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Values every legal move and picks one at this AI's level.
    pub fn analyze(&mut self, _position: &Position, _limits: &Limits) -> Analysis {
        todo!()
    }

    /// The move this AI plays; `None` when the game is over.
    pub fn choose(&mut self, position: &Position, limits: &Limits) -> Option<Move> {
        self.analyze(position, limits).best
    }
}

/// Analyses a position at full strength with a fresh table.
pub fn analyze(position: &Position, limits: &Limits) -> Analysis {
    Ai::new(Level::Perfect, 0).analyze(position, limits)
}
