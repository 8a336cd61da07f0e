//! Times `solve` (the position's value) against `analyze` (every move valued) from the
//! empty board of open m,n,k boards, and what `analyze` plays given three times the
//! solver's time.
//!
//! `cargo run -p inarow-engine --release --example open_boards -- 5x5k4 6x5k4 6x6k4`
//! (or `7x7k4 8x8k4`, where `solve` and the AI's move come from the proof search of
//! `attack.rs`, a win with its plies an upper bound, and `analyze` proves only the
//! winning move)
//! (board sizes as `WxHkK`; an optional `--secs N` budget per search, default 600).

use std::time::{Duration, Instant};

use inarow_engine::{Ai, Level, Limits, Position, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs = args
        .iter()
        .position(|a| a == "--secs")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let limits = Limits::time(Duration::from_secs(secs));
    for name in args.iter().filter(|a| a.contains('x')) {
        let Some(rules) = parse(name) else {
            eprintln!("not a board: {name} (want WxHkK)");
            continue;
        };
        let empty = Position::new(rules);
        let start = Instant::now();
        let mut solver = Ai::new(Level::Perfect, 1);
        let value = solver.solve(&empty, &limits);
        let solve_time = start.elapsed();
        let solve_nodes = solver.last_nodes();
        let start = Instant::now();
        let analysis = Ai::new(Level::Perfect, 1).analyze(&empty, &limits);
        let analyze_time = start.elapsed();
        let best = analysis.best.expect("in progress");
        let best_value = analysis
            .moves
            .iter()
            .find(|m| m.mv == best)
            .map(|m| m.value);
        // The AI's move with three times the solver's time: is it proven?
        let quick = Limits::time(solve_time * 3);
        let start = Instant::now();
        let three = Ai::new(Level::Perfect, 1).analyze(&empty, &quick);
        let three_time = start.elapsed();
        let three_best = three.best.expect("in progress");
        let three_value = three
            .moves
            .iter()
            .find(|m| m.mv == three_best)
            .map(|m| m.value);
        println!(
            "{name}: at 3x solve time ({:.2?}) analyze plays {three_best} {three_value:?} in {three_time:.2?}",
            solve_time * 3
        );
        println!(
            "{name}: solve {value:?} in {solve_time:.2?}, {solve_nodes} nodes; analyze best {best} \
             {best_value:?} (all proven: {}) in {analyze_time:.2?}, {} nodes",
            analysis.proven, analysis.nodes
        );
    }
}

/// `WxHkK` as open rules.
fn parse(name: &str) -> Option<Rules> {
    let (w, rest) = name.split_once('x')?;
    let (h, k) = rest.split_once('k')?;
    Rules::new(w.parse().ok()?, h.parse().ok()?, k.parse().ok()?, false).ok()
}
