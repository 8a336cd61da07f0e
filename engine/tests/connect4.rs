//! Connect Four against Pascal Pons' benchmark positions: the exact score of every line.

mod common;

use std::time::{Duration, Instant};

use inarow_engine::{Ai, Level, Limits, Position, Rules};

/// The positions of a `Test_Lx_Ry` file, each with its expected score and a label naming
/// its line for failure messages.
fn cases(text: &str) -> impl Iterator<Item = (String, Position, i32)> + '_ {
    text.lines().enumerate().filter_map(|(line_no, line)| {
        let mut parts = line.split_whitespace();
        let (moves, score) = (parts.next()?, parts.next()?);
        let expected: i32 = score.parse().expect("score is an integer");
        let position =
            Position::from_column_digits(Rules::connect4(), moves).expect("legal sequence");
        Some((format!("line {}: {line}", line_no + 1), position, expected))
    })
}

/// Values every move of every position of a `Test_Lx_Ry` file and compares the best
/// with the position's score.
fn check_set(name: &str) {
    let Some(text) = common::read_data(&format!("connect4/{name}")) else {
        return;
    };
    let mut ai = Ai::new(Level::Perfect, 1);
    // Generous: a solve that hits it fails below instead of passing unproven.
    let limits = Limits::time(Duration::from_secs(600));
    let mut total = Duration::ZERO;
    let mut count = 0u32;
    let mut nodes = 0u64;
    for (what, position, expected) in cases(&text) {
        let start = Instant::now();
        let analysis = ai.analyze(&position, &limits);
        total += start.elapsed();
        nodes += analysis.nodes;
        count += 1;
        assert!(analysis.proven, "{what} not proven");
        let got = common::pons_score(&position, analysis.moves[0].value);
        assert_eq!(got, expected, "{what}: {analysis:?}");
    }
    assert_eq!(count, 1000, "{name} has 1000 positions");
    eprintln!(
        "{name}: {count} positions, mean {:.1} µs and {} nodes per position (all moves valued)",
        total.as_secs_f64() * 1e6 / f64::from(count),
        nodes / u64::from(count)
    );
}

/// Solves (the position's value only, not every move's) every position of a
/// `Test_Lx_Ry` file and compares with its score.
fn solve_set(name: &str) {
    let Some(text) = common::read_data(&format!("connect4/{name}")) else {
        return;
    };
    let mut ai = Ai::new(Level::Perfect, 1);
    let limits = Limits::time(Duration::from_secs(600));
    let start = Instant::now();
    let mut count = 0u32;
    for (what, position, expected) in cases(&text) {
        let value = ai
            .solve(&position, &limits)
            .unwrap_or_else(|| panic!("{what} not solved"));
        assert_eq!(
            common::pons_score(&position, value),
            expected,
            "{what}: {value:?}"
        );
        count += 1;
    }
    assert_eq!(count, 1000, "{name} has 1000 positions");
    eprintln!(
        "{name}: {count} positions solved, mean {:.1} µs per position (position value only)",
        start.elapsed().as_secs_f64() * 1e6 / f64::from(count)
    );
}

#[test]
fn test_l3_r1_scores_match() {
    check_set("Test_L3_R1");
}

#[test]
fn test_l3_r1_position_values_match() {
    solve_set("Test_L3_R1");
}

#[test]
#[ignore = "slow (~0.3 s in release): cargo test -p inarow-engine --release --test connect4 -- --ignored"]
fn test_l2_r1_position_values_match() {
    solve_set("Test_L2_R1");
}

#[test]
#[ignore = "slow (~13 s in release): cargo test -p inarow-engine --release --test connect4 -- --ignored"]
fn test_l2_r2_position_values_match() {
    solve_set("Test_L2_R2");
}

#[test]
#[ignore = "slow (~22 s in release): cargo test -p inarow-engine --release --test connect4 -- --ignored"]
fn test_l1_r1_position_values_match() {
    solve_set("Test_L1_R1");
}

#[test]
#[ignore = "slow (~7 s in release): cargo test -p inarow-engine --release --test connect4 -- --ignored"]
fn test_l2_r1_scores_match() {
    check_set("Test_L2_R1");
}

#[test]
#[ignore = "slow (~110 s in release): cargo test -p inarow-engine --release --test connect4 -- --ignored"]
fn test_l2_r2_scores_match() {
    check_set("Test_L2_R2");
}

#[test]
#[ignore = "slow (~12 min in release): cargo test -p inarow-engine --release --test connect4 -- --ignored"]
fn test_l1_r2_position_values_match() {
    solve_set("Test_L1_R2");
}

/// Where the embedded opening book answers, its values are the solver's: each move's
/// value is the negation of the position after it, solved without the book. (The
/// sample positions are in the book as committed; a test skips those a rebuilt book
/// lacks.)
#[test]
fn book_answers_match_the_solver() {
    let limits = Limits::time(Duration::from_secs(600));
    let mut checked = 0;
    // One solver for every child: its table carries over, as in a game.
    let mut solver = Ai::new(Level::Perfect, 1);
    for moves in ["4444443625", "44444436"] {
        let position = Position::from_column_digits(Rules::connect4(), moves).expect("legal");
        // A book answer takes no node; without one, a one-node budget ends at once.
        let one_node = Limits {
            nodes: Some(1),
            ..Limits::default()
        };
        let analysis = Ai::new(Level::Perfect, 1).analyze(&position, &one_node);
        if analysis.nodes != 0 {
            continue;
        }
        assert!(analysis.proven, "{moves}");
        if moves.len() < 10 {
            // Proven by the book alone; solving its moves again takes too long here.
            continue;
        }
        let n = position.ply() as u32;
        for m in &analysis.moves {
            let mut child = position.clone();
            child.try_play(m.mv).expect("legal");
            let score = if child.is_over() {
                22 - (n / 2 + 1) as i32
            } else {
                let value = solver.solve(&child, &limits).expect("solved");
                -common::pons_score(&child, value)
            };
            assert_eq!(
                common::pons_score(&position, m.value),
                score,
                "{moves} {}",
                m.mv
            );
        }
        let best = analysis.moves.iter().find(|m| Some(m.mv) == analysis.best);
        assert_eq!(
            best.map(|m| m.value),
            Some(analysis.moves[0].value),
            "{moves}"
        );
        checked += 1;
    }
    if checked == 0 {
        eprintln!("SKIPPED: none of the sample positions is in the embedded book");
    }
}

/// `think` (what the AI plays) proves the best move only: the same score as the
/// position's, proven, in no more nodes than valuing every move.
#[test]
fn think_proves_the_best_move_in_fewer_nodes() {
    let Some(text) = common::read_data("connect4/Test_L2_R1") else {
        return;
    };
    let limits = Limits::time(Duration::from_secs(600));
    let (mut think_nodes, mut analyze_nodes) = (0, 0);
    for (what, position, expected) in cases(&text).take(100) {
        let mut ai = Ai::new(Level::Perfect, 1);
        let thought = ai.think(&position, &limits);
        assert!(thought.proven, "{what}: {thought:?}");
        let best = thought.best.expect("a move");
        let value = thought
            .moves
            .iter()
            .find(|m| m.mv == best)
            .expect("valued")
            .value;
        assert_eq!(common::pons_score(&position, value), expected, "{what}");
        think_nodes += thought.nodes;
        analyze_nodes += Ai::new(Level::Perfect, 1).analyze(&position, &limits).nodes;
    }
    eprintln!("100 positions: think {think_nodes} nodes, analyze {analyze_nodes}");
    assert!(think_nodes <= analyze_nodes);
}
