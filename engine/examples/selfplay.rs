//! Plays the AI against itself and prints each move with its search figures.
//!
//! `cargo run -p inarow-engine --release --example selfplay -- gomoku 1000 perfect`
//! (rules preset, milliseconds per move, level).

use std::time::{Duration, Instant};

use inarow_engine::{Ai, Level, Limits, Position, Rules};

fn main() {
    let mut args = std::env::args().skip(1);
    let rules = args
        .next()
        .and_then(|name| Rules::preset(&name))
        .unwrap_or_else(Rules::gomoku);
    let millis: u64 = args.next().and_then(|t| t.parse().ok()).unwrap_or(1000);
    let level = match args.next().as_deref() {
        Some("easy") => Level::Easy,
        Some("medium") => Level::Medium,
        _ => Level::Perfect,
    };
    let limits = Limits::time(Duration::from_millis(millis));
    let mut ais = [Ai::new(level, 1), Ai::new(level, 2)];
    let mut position = Position::new(rules);
    while !position.is_over() {
        let start = Instant::now();
        let ai = &mut ais[position.ply() % 2];
        let analysis = ai.analyze(&position, &limits);
        let best = analysis.best.expect("game in progress");
        println!(
            "{:>3}. {best:<4} {:?} depth {} nodes {} proven {} in {:.0?}",
            position.ply() + 1,
            analysis.moves[0].value,
            analysis.depth,
            analysis.nodes,
            analysis.proven,
            start.elapsed()
        );
        position.try_play(best).expect("the AI plays legal moves");
    }
    println!("{position}{:?}", position.status());
}
