//! Nodes per second and depth reached on 15×15 gomoku, opening and middle game, for the
//! AI and the baseline (the AI before the gomoku search and threat-space search).
//!
//! `cargo run -p inarow-engine --release --example gomoku_speed -- 1000` (ms per search)
//!
//! `… -- --nodes 1500000` searches to a node budget instead (about one CPU second of the
//! new AI): the depth it reaches does not depend on the machine's load.
//!
//! Nodes per second are given against the wall clock and, on Linux, against the CPU time
//! the process got (from `/proc/self/stat`): on a loaded machine the first measures the
//! load, the second the search. The load average is printed with them.

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

/// CPU time used by this process so far (Linux: user + system ticks of
/// `/proc/self/stat`, at the usual 100 ticks a second), `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The load average over the last minute (Linux), for context beside the figures.
fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_string)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let nodes: Option<u64> = args
        .iter()
        .position(|a| a == "--nodes")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok());
    let millis: u64 = args.first().and_then(|m| m.parse().ok()).unwrap_or(1000);
    let rules = Rules::gomoku();
    let (limits, budget) = match nodes {
        Some(n) => (
            Limits {
                nodes: Some(n),
                ..Limits::default()
            },
            format!("{n} nodes"),
        ),
        None => (
            Limits::time(Duration::from_millis(millis)),
            format!("{millis} ms"),
        ),
    };
    println!(
        "{budget} per search, load average {}",
        load_average().unwrap_or_else(|| "unknown".to_string())
    );
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
            let cpu = cpu_seconds();
            let analysis = ai.analyze(&position, &limits);
            let secs = start.elapsed().as_secs_f64();
            let cpu = cpu_seconds().zip(cpu).map(|(after, before)| after - before);
            println!(
                "{name:>8} {label:>8}: depth {:>2}, {:>8} nodes, {:>8.0} nodes/s, {} per CPU s, best {} {:?}",
                analysis.depth,
                analysis.nodes,
                analysis.nodes as f64 / secs,
                cpu.map_or("-".to_string(), |c| format!(
                    "{:>8.0}",
                    analysis.nodes as f64 / c
                )),
                analysis.best.expect("in progress"),
                analysis.moves[0].value
            );
        }
    }
}
