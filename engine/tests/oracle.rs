//! The fast search against plain minimax on random positions of small boards, with and
//! without gravity: every move's value must agree exactly.

use std::time::Duration;

use inarow_engine::reference;
use inarow_engine::{Ai, Level, Limits, Position, Rules};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A random game prefix of `stones` moves that has not ended, if one is found.
fn random_position(rules: Rules, stones: usize, rng: &mut SmallRng) -> Option<Position> {
    let mut position = Position::new(rules);
    for _ in 0..stones {
        let moves = position.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        position.try_play(mv).expect("legal");
    }
    (!position.is_over()).then_some(position)
}

fn check(rules: Rules, stones: std::ops::RangeInclusive<usize>, samples: usize, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    // One AI for all samples: its table carries over, as in a real game.
    let mut ai = Ai::new(Level::Perfect, seed);
    let limits = Limits::time(Duration::from_secs(600));
    let mut checked = 0;
    while checked < samples {
        let count = rng.random_range(stones.clone());
        let Some(position) = random_position(rules, count, &mut rng) else {
            continue;
        };
        let analysis = ai.analyze(&position, &limits);
        assert!(analysis.proven, "{position}");
        let mut mine = analysis.moves.clone();
        let mut oracle = reference::move_values(&position);
        mine.sort_by_key(|m| m.mv);
        oracle.sort_by_key(|m| m.mv);
        assert_eq!(mine, oracle, "{:?}\n{position}", position.history());
        // The position's value alone, by one search, with a separate table.
        let value = Ai::with_table_bytes(Level::Perfect, seed, 1 << 20).solve(&position, &limits);
        assert_eq!(value, Some(reference::value(&position)), "{position}");
        assert_eq!(value, Some(analysis.moves[0].value));
        let best = analysis.best.expect("in progress");
        let best_value = analysis.moves[0].value;
        assert_eq!(
            mine.iter().find(|m| m.mv == best).map(|m| m.value),
            Some(best_value)
        );
        checked += 1;
    }
}

#[test]
fn four_by_four_k3() {
    check(Rules::new(4, 4, 3, false).expect("valid"), 6..=12, 150, 1);
}

#[test]
fn four_by_four_k4() {
    check(Rules::new(4, 4, 4, false).expect("valid"), 7..=12, 100, 2);
}

#[test]
fn four_by_three_gravity_k3() {
    check(Rules::new(4, 3, 3, true).expect("valid"), 0..=8, 200, 3);
}

#[test]
fn five_by_four_gravity_k4() {
    check(Rules::new(5, 4, 4, true).expect("valid"), 8..=15, 100, 4);
}

#[test]
fn thin_and_odd_boards() {
    check(Rules::new(1, 6, 3, true).expect("valid"), 0..=3, 20, 5);
    check(Rules::new(6, 1, 3, false).expect("valid"), 0..=3, 30, 6);
    check(Rules::new(3, 4, 2, false).expect("valid"), 0..=6, 50, 7);
    check(Rules::new(3, 3, 1, true).expect("valid"), 0..=0, 1, 8);
    check(Rules::new(5, 3, 3, true).expect("valid"), 3..=9, 60, 9);
}

/// Boards needing the 128-bit and the wide bitboards, nearly full so minimax can finish.
#[test]
fn wider_bitboards() {
    // 13 × (4 + 1) = 65 bits: u128.
    check(Rules::new(13, 4, 5, true).expect("valid"), 42..=46, 40, 10);
    // 19 × (7 + 1) = 152 bits: the wide board.
    check(
        Rules::new(19, 7, 8, true).expect("valid"),
        122..=126,
        20,
        11,
    );
    // 16 × (4 + 1) = 80 bits, no gravity.
    check(Rules::new(16, 4, 5, false).expect("valid"), 56..=58, 20, 12);
}
