//! Nodes per second and depth reached on 15×15 gomoku, opening and middle game, for the
//! AI and the baseline (the AI before threat-space search).
//!
//! `cargo run -p inarow-engine --release --example gomoku_speed -- 1000` (ms per search)

use std::time::{Duration, Instant};

use inarow_engine::{Ai, Level, Limits, Position, Rules};

/// Positions measured: an opening and two middle games (moves in notation).
const POSITIONS: [(&str, &str); 3] = [
    ("opening", "h8 h9 i8"),
    (
        "middle",
        "h8 i9 j8 i8 i7 g9 h9 h7 j9 j7 g7 k9 f8 e9 h10 h11",
    ),
    (
        "middle2",
        "h8 h9 g8 i8 g9 g10 f10 e11 h10 i11 i10 j10 f8 e8 f9 f7 e10 d11",
    ),
];

fn main() {
    let millis: u64 = std::env::args()
        .nth(1)
        .and_then(|m| m.parse().ok())
        .unwrap_or(1000);
    let rules = Rules::gomoku();
    let limits = Limits::time(Duration::from_millis(millis));
    for (name, moves) in POSITIONS {
        let mut position = Position::new(rules);
        for text in moves.split_whitespace() {
            position
                .try_play(rules.parse_move(text).expect("notation"))
                .expect("legal");
        }
        for (label, mut ai) in [
            ("new", Ai::new(Level::Perfect, 1)),
            ("baseline", Ai::baseline(1)),
        ] {
            let start = Instant::now();
            let analysis = ai.analyze(&position, &limits);
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{name:>8} {label:>8}: depth {:>2}, {:>8} nodes, {:>8.0} nodes/s, best {} {:?}",
                analysis.depth,
                analysis.nodes,
                analysis.nodes as f64 / secs,
                analysis.best.expect("in progress"),
                analysis.moves[0].value
            );
        }
    }
}
