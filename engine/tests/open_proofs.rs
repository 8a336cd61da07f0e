//! The attacker's proof search of big open boards (`proven_win`) against exact values on
//! small boards (a proven win must be a true win, never quicker than the true one; a
//! proven loss likewise; a refuted win no true win), proofs replayed against every
//! defender reply, and the first-player wins of 6×5, 6×6, 7×7 and 8×8 with four in a
//! row, in exactly 11 plies (ignored: run them with
//! `cargo test -p inarow-engine --release --test open_proofs -- --ignored --nocapture`).

use std::time::{Duration, Instant};

use inarow_engine::reference;
use inarow_engine::{
    Ai, Level, Limits, Move, Position, Rules, Value, proven_value, proven_win, refuted_win,
    replay_proven_win,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Table size of the proof searches in these tests: 2^16 entries.
const TABLE_BITS: u32 = 16;

/// A random game prefix of `stones` moves that has not ended, if one is found.
fn random_position(rules: Rules, stones: usize, rng: &mut SmallRng) -> Option<Position> {
    let mut position = Position::new(rules);
    for _ in 0..stones {
        let moves = position.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        position.try_play(mv).expect("legal");
        if position.is_over() {
            return None;
        }
    }
    Some(position)
}

/// Checks `samples` random positions of `rules` with stones in `stones` against `exact`
/// (the true value of a position): every proven win is a true win no quicker than the
/// true one and its proof replays; returns how many true wins within `max_plies` were
/// proven, and how many there were.
fn check(
    rules: Rules,
    stones: std::ops::RangeInclusive<usize>,
    samples: usize,
    max_plies: u32,
    seed: u64,
    exact: &mut dyn FnMut(&Position) -> Value,
) -> (usize, usize) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let limits = Limits::time(Duration::from_secs(600));
    let (mut found, mut wins, mut checked, mut losses, mut refuted) = (0, 0, 0, 0, 0);
    while checked < samples {
        let count = rng.random_range(stones.clone());
        let Some(position) = random_position(rules, count, &mut rng) else {
            continue;
        };
        checked += 1;
        let truth = exact(&position);
        // A proven loss is a true loss, never slower than the true one.
        match proven_value(&position, max_plies, TABLE_BITS, &limits).0 {
            Some(Value::Loss(e)) => {
                losses += 1;
                assert!(
                    matches!(truth, Value::Loss(q) if q <= e),
                    "{truth:?} but a loss within {e} proven\n{position}"
                );
            }
            Some(Value::Win(w)) => {
                assert!(
                    matches!(truth, Value::Win(p) if p <= w),
                    "{truth:?}: win within {w}"
                )
            }
            _ => {}
        }
        // A refuted win is no true win within as many plies.
        if let Value::Win(p) = truth {
            let below = refuted_win(&position, p.saturating_sub(2), TABLE_BITS, &limits).0;
            refuted += usize::from(below == Some(true));
            assert_eq!(
                refuted_win(&position, p, TABLE_BITS, &limits).0,
                Some(false),
                "{truth:?} refuted\n{position}"
            );
        } else {
            for plies in [3, 5, max_plies] {
                let refutation = refuted_win(&position, plies, TABLE_BITS, &limits).0;
                refuted += usize::from(refutation == Some(true));
            }
        }
        let (proof, _) = proven_win(&position, max_plies, TABLE_BITS, &limits);
        if matches!(truth, Value::Win(p) if p <= max_plies) {
            wins += 1;
        }
        let Some((plies, first)) = proof else {
            continue;
        };
        found += 1;
        match truth {
            Value::Win(p) => assert!(
                p <= plies,
                "{truth:?} but proven within {plies}\n{position}"
            ),
            _ => panic!("{truth:?} but a win within {plies} proven\n{position}"),
        }
        // The first move keeps the win.
        let mut after = position.clone();
        after.try_play(first).expect("a legal move");
        if !after.is_over() {
            assert!(
                matches!(exact(&after), Value::Loss(q) if q < plies),
                "{first} from\n{position}"
            );
        }
        let replay = replay_proven_win(&position, max_plies, TABLE_BITS).expect("proven again");
        if let Err(failed) = replay {
            panic!("the proof fails at\n{failed}\nfrom\n{position}");
        }
    }
    eprintln!(
        "{}x{} k{}: {found} of {wins} wins within {max_plies} proven, {losses} losses, \
         {refuted} refutations ({checked} positions)",
        rules.width(),
        rules.height(),
        rules.k()
    );
    (found, wins)
}

fn rules(width: u32, height: u32, k: u32) -> Rules {
    Rules::new(width, height, k, false).expect("valid")
}

/// The exact general search, itself checked against plain minimax (`oracle.rs`).
fn solver() -> impl FnMut(&Position) -> Value {
    let mut ai = Ai::new(Level::Perfect, 1);
    move |position| {
        ai.solve(position, &Limits::time(Duration::from_secs(600)))
            .expect("solved")
    }
}

#[test]
fn four_by_four_k3_agrees_with_minimax() {
    let (found, wins) = check(rules(4, 4, 3), 7..=12, 150, 13, 1, &mut |p| {
        reference::value(p)
    });
    assert!(found * 10 >= wins * 9, "{found} of {wins}");
}

#[test]
fn five_by_four_k3_agrees_with_the_solver() {
    let (found, wins) = check(rules(5, 4, 3), 2..=10, 150, 13, 2, &mut solver());
    assert!(found * 10 >= wins * 9, "{found} of {wins}");
}

/// Long thin boards, where many cells lie more than two from every stone: a refutation
/// must try them too.
#[test]
fn long_boards_agree_with_the_solver() {
    check(rules(8, 3, 3), 1..=6, 100, 9, 6, &mut solver());
    check(rules(7, 4, 4), 7..=12, 40, 9, 7, &mut solver());
}

#[test]
fn five_by_five_k4_agrees_with_the_solver() {
    let (found, wins) = check(rules(5, 5, 4), 7..=14, 100, 15, 3, &mut solver());
    assert!(found * 10 >= wins * 8, "{found} of {wins}");
}

#[test]
fn six_by_five_k4_agrees_with_the_solver() {
    let (found, wins) = check(rules(6, 5, 4), 6..=16, 80, 11, 4, &mut solver());
    assert!(found * 10 >= wins * 8, "{found} of {wins}");
}

#[test]
fn six_by_six_k5_agrees_with_the_solver() {
    let (found, wins) = check(rules(6, 6, 5), 17..=22, 20, 11, 5, &mut solver());
    assert!(found * 10 >= wins * 8, "{found} of {wins}");
}

/// Proves the empty board a first-player win, replays the proof and prints the figures.
fn first_player_wins(width: u32, height: u32, plies: u32) {
    let rules = rules(width, height, 4);
    let empty = Position::new(rules);
    let start = Instant::now();
    let (proof, nodes) = proven_win(&empty, plies, 22, &Limits::time(Duration::from_secs(3600)));
    let time = start.elapsed();
    let (found, first) = proof.expect("a first-player win");
    eprintln!(
        "{width}x{height} k4: first player wins within {found} plies, first move {first}, \
         {nodes} nodes, {time:.2?}"
    );
    assert_eq!(found, plies);
    // And no quicker win: every first move tried, so the win takes exactly `plies`.
    let start = Instant::now();
    let (refuted, nodes) = refuted_win(
        &empty,
        plies - 2,
        22,
        &Limits::time(Duration::from_secs(3600)),
    );
    eprintln!(
        "{width}x{height} k4: no win within {} plies: {refuted:?}, {nodes} nodes, {:.2?}",
        plies - 2,
        start.elapsed()
    );
    assert_eq!(refuted, Some(true));
    let start = Instant::now();
    let checked = replay_proven_win(&empty, plies, 22)
        .expect("proven again")
        .unwrap_or_else(|failed| panic!("the proof fails at\n{failed}"));
    eprintln!(
        "{width}x{height} k4: proof found again and replayed against every reply: {checked} \
         attacker positions, {:.2?}",
        start.elapsed()
    );
    assert!(matches!(first, Move::Cell(_)));
}

#[test]
#[ignore = "figures for docs/ai.md; run with --ignored"]
fn six_by_five_k4_is_a_first_player_win() {
    first_player_wins(6, 5, 11);
}

#[test]
#[ignore = "figures for docs/ai.md; run with --ignored"]
fn six_by_six_k4_is_a_first_player_win() {
    first_player_wins(6, 6, 11);
}

#[test]
#[ignore = "seconds in release; run with --ignored"]
fn seven_by_seven_k4_is_a_first_player_win() {
    first_player_wins(7, 7, 11);
}

#[test]
#[ignore = "seconds in release; run with --ignored"]
fn eight_by_eight_k4_is_a_first_player_win() {
    first_player_wins(8, 8, 11);
}

/// The position after `moves` (in notation) on `rules`.
fn after(rules: Rules, moves: &[&str]) -> Position {
    let mut position = Position::new(rules);
    for text in moves {
        let mv = rules.parse_move(text).expect("notation");
        position.try_play(mv).expect("legal");
    }
    position
}

/// On a big board `solve` proves a quick win and the loss it leaves, and the AI plays a
/// move that keeps the win, valued as proven.
#[test]
fn the_ai_proves_and_plays_a_win_on_a_big_board() {
    let rules = rules(7, 7, 4);
    // X has an open two on row 4: a third stone beside it makes two winning cells.
    let position = after(rules, &["d4", "a7", "e4", "g1"]);
    let limits = Limits::time(Duration::from_secs(60));
    let mut ai = Ai::new(Level::Perfect, 1);
    assert_eq!(ai.solve(&position, &limits), Some(Value::Win(3)));
    let analysis = ai.think(&position, &limits);
    let best = analysis.best.expect("in progress");
    assert_eq!(analysis.moves[0].mv, best);
    assert_eq!(analysis.moves[0].value, Value::Win(3));
    let mut next = position.clone();
    next.try_play(best).expect("legal");
    assert_eq!(ai.solve(&next, &limits), Some(Value::Loss(2)));
    // Another AI given the empty 7×7 board: nothing proven is claimed beyond the win.
    let empty = Position::new(rules);
    let analysis =
        Ai::new(Level::Perfect, 2).think(&empty, &Limits::time(Duration::from_millis(50)));
    for m in &analysis.moves {
        assert!(
            matches!(m.value, Value::Estimate(_) | Value::Win(11)),
            "{m:?}"
        );
    }
}

/// On 7×7 and 8×8 k4 themselves, where no exact value is at hand, every proof found from
/// random positions replays against every defender reply.
#[test]
fn big_board_proofs_replay() {
    for (size, count, seed) in [(7, 40, 8), (8, 16, 9)] {
        let rules = rules(size, size, 4);
        let mut rng = SmallRng::seed_from_u64(seed);
        let limits = Limits {
            nodes: Some(200_000),
            ..Limits::default()
        };
        let (mut proofs, mut tried) = (0, 0);
        while tried < count {
            let stones = rng.random_range(4..=12);
            let Some(position) = random_position(rules, stones, &mut rng) else {
                continue;
            };
            tried += 1;
            let (Some((plies, _)), _) = proven_win(&position, 11, TABLE_BITS, &limits) else {
                continue;
            };
            proofs += 1;
            let replay = replay_proven_win(&position, plies, TABLE_BITS).expect("proven again");
            if let Err(failed) = replay {
                panic!("the proof fails at\n{failed}\nfrom\n{position}");
            }
        }
        eprintln!("{size}x{size} k4: {proofs} proofs of {tried} positions replayed");
        assert!(proofs * 2 >= count, "{proofs}");
    }
}
