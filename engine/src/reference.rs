//! Plain full-width minimax without pruning or table: the classic tic-tac-toe algorithm.
//! It is the oracle the tests check the fast search against and the baseline of the
//! benchmarks. Exponential: only for small boards.

use crate::ai::{MoveValue, Value};
use crate::position::{GameStatus, Position};

/// The value of every legal move of `position` for the player making it, in the order
/// of [`Position::legal_moves`], by exhaustive minimax (distance-aware: a sooner win and
/// a later loss are better).
pub fn move_values(position: &Position) -> Vec<MoveValue> {
    let mut position = position.clone();
    let moves = position.legal_moves();
    moves
        .into_iter()
        .map(|mv| {
            position
                .try_play(mv)
                .expect("legal_moves only lists legal moves");
            let score = -minimax(&mut position);
            position.undo();
            MoveValue {
                mv,
                value: value_of(score, position.ply()),
            }
        })
        .collect()
}

/// The value of `position` for the player to move, by exhaustive minimax; a finished
/// game has the value of its end (`Loss(0)` for the player who would move after a win).
pub fn value(position: &Position) -> Value {
    let mut position = position.clone();
    let score = minimax(&mut position);
    value_of(score, position.ply())
}

/// Counts the nodes of the full game tree under `position`, itself included.
pub fn tree_nodes(position: &Position) -> u64 {
    let mut position = position.clone();
    count(&mut position)
}

fn count(position: &mut Position) -> u64 {
    let mut nodes = 1;
    for mv in position.legal_moves() {
        position
            .try_play(mv)
            .expect("legal_moves only lists legal moves");
        nodes += count(position);
        position.undo();
    }
    nodes
}

/// Score for the player to move: `±(BASE - p)` for a win or loss with the `p`-th stone
/// of the game, 0 for a draw.
const BASE: i32 = 1000;

fn minimax(position: &mut Position) -> i32 {
    match position.status() {
        // The player who just moved won.
        GameStatus::Won { .. } => return -(BASE - position.ply() as i32),
        GameStatus::Drawn => return 0,
        GameStatus::InProgress { .. } => {}
    }
    let mut best = i32::MIN;
    for mv in position.legal_moves() {
        position
            .try_play(mv)
            .expect("legal_moves only lists legal moves");
        best = best.max(-minimax(position));
        position.undo();
    }
    best
}

fn value_of(score: i32, ply: usize) -> Value {
    let ply = ply as i32;
    if score > 0 {
        Value::Win((BASE - score - ply) as u32)
    } else if score < 0 {
        Value::Loss((BASE + score - ply) as u32)
    } else {
        Value::Draw
    }
}
