//! AI benchmarks: the perfect move on 3×3 positions (fresh and warm table) against the
//! plain-minimax baseline, the 4×4 k4 solve, and the mean time per Connect Four
//! position of Pons' Test_L3_R1 set.
//!
//! Run: `cargo bench -p inarow-engine -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use inarow_engine::{Ai, Level, Limits, Move, Position, Rules, reference};

/// The 3×3 positions measured: the empty board and some mid-game ones.
fn tictactoe_positions() -> Vec<(&'static str, Position)> {
    let rules = Rules::tictactoe();
    [
        ("empty", ""),
        ("after_b2", "b2"),
        ("after_a1_b2", "a1 b2"),
        ("ply3_a1_b2_c3", "a1 b2 c3"),
        ("ply4_b2_a1_c1_a3", "b2 a1 c1 a3"),
    ]
    .into_iter()
    .map(|(name, moves)| {
        let moves: Vec<Move> = moves
            .split_whitespace()
            .map(|m| rules.parse_move(m).expect("valid notation"))
            .collect();
        (
            name,
            Position::from_moves(rules, &moves).expect("legal moves"),
        )
    })
    .collect()
}

fn limits() -> Limits {
    Limits::time(Duration::from_secs(3600))
}

fn tictactoe(c: &mut Criterion) {
    let mut group = c.benchmark_group("tictactoe");
    for (name, position) in tictactoe_positions() {
        group.bench_function(format!("perfect_fresh_ai/{name}"), |b| {
            b.iter(|| {
                let mut ai = Ai::new(Level::Perfect, 1);
                black_box(ai.analyze(black_box(&position), &limits()))
            })
        });
        let mut warm = Ai::new(Level::Perfect, 1);
        group.bench_function(format!("perfect_warm_table/{name}"), |b| {
            b.iter(|| black_box(warm.analyze(black_box(&position), &limits())))
        });
        group.bench_function(format!("baseline_plain_minimax/{name}"), |b| {
            b.iter(|| black_box(reference::move_values(black_box(&position))))
        });
    }
    group.finish();
}

fn solve_4x4(c: &mut Criterion) {
    let rules = Rules::new(4, 4, 4, false).expect("valid rules");
    let empty = Position::new(rules);
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    group.bench_function("4x4_k4_empty_fresh_ai", |b| {
        b.iter(|| black_box(Ai::new(Level::Perfect, 1).analyze(&empty, &limits())))
    });
    group.finish();
}

/// `$INAROW_DATA_DIR`, else `<workspace root>/../shared/data`.
fn data_dir() -> PathBuf {
    match std::env::var_os("INAROW_DATA_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    }
}

fn connect4(c: &mut Criterion) {
    let path = data_dir().join("connect4/Test_L3_R1");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED connect4 bench: {} not found", path.display());
        return;
    };
    let positions: Vec<Position> = text
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(|moves| Position::from_column_digits(Rules::connect4(), moves).expect("legal"))
        .collect();
    let mut group = c.benchmark_group("connect4");
    let mut next = 0;
    // One position per iteration, cycling through the set, each with a fresh AI (a warm
    // table would soon hold every answer): the mean is per position, all 7 moves valued.
    group.bench_function("Test_L3_R1_per_position_fresh_ai", |b| {
        b.iter(|| {
            let position = &positions[next % positions.len()];
            next += 1;
            black_box(Ai::new(Level::Perfect, 1).analyze(position, &limits()))
        })
    });
    let mut next = 0;
    // The same with a 64 KiB table: most of the fresh 4 MiB table's cost is the page
    // faults of first touches, not the search.
    group.bench_function("Test_L3_R1_per_position_fresh_64k_table", |b| {
        b.iter(|| {
            let position = &positions[next % positions.len()];
            next += 1;
            let mut ai = Ai::with_table_bytes(Level::Perfect, 1, 64 << 10);
            black_box(ai.analyze(position, &limits()))
        })
    });
    let mut next = 0;
    // The same, but only the position's value (one search, as Pons' solver does).
    group.bench_function("Test_L3_R1_position_value_fresh_ai", |b| {
        b.iter(|| {
            let position = &positions[next % positions.len()];
            next += 1;
            black_box(Ai::new(Level::Perfect, 1).solve(position, &limits()))
        })
    });
    group.finish();
}

criterion_group!(benches, tictactoe, solve_4x4, connect4);
criterion_main!(benches);
