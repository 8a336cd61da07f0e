//! What the levels change: how deep Easy and Medium search, and how each level picks
//! its move from the ranked moves (Easy with its random mistakes, the others at random
//! only among moves ranked equal).

use rand::Rng;

use super::general::Rank;
use super::{Ai, Level, MoveValue, Value};
use crate::rules::Move;

/// Probability that an Easy AI plays a random legal move instead of its search's choice.
const EASY_MISTAKE: f64 = 0.3;
/// Probability that an Easy AI takes a win in one when it has one.
const EASY_TAKES_WIN: f64 = 0.9;

impl Level {
    /// Deepest iteration at this level, in plies from the position.
    pub(super) fn max_depth(self) -> Option<u32> {
        match self {
            Level::Easy => Some(1),
            Level::Medium => Some(3),
            Level::Perfect => None,
        }
    }
}

impl Ai {
    /// The move to play from `moves` (sorted best first, with ranks), at this level.
    pub(super) fn pick(&mut self, moves: &[(MoveValue, Rank)]) -> Move {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
