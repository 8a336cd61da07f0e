//! Measures what the opening book's generator and the AI past the book pay per
//! position: for random 7×6 positions at the given plies, the nodes and time to prove
//! the win/draw/loss value (null windows at 0) and the exact score with a fresh table,
//! and whether the `perfect` AI proves its move (`think`) within a move budget from a
//! cold default table (as the server runs it).
//!
//! ```text
//! cargo run --release -p inarow-engine --example c4_probe -- \
//!     [--plies 8,10,12] [--samples 10] [--cap-secs 60] [--budget-ms 1000] [--seed 1]
//!     [--book-lines engine/data/c4-7x6.book.progress]
//! ```
//!
//! With `--book-lines`, positions are not random: each is an X position of the book's
//! checkpoint (`w` lines) with that many stones, then X's book move and a random O
//! reply, then random play up to each ply asked: what the AI meets just past the book.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use inarow_engine::opening::Prover;
use inarow_engine::{Ai, Level, Limits, Move, Position, Rules};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

struct Options {
    plies: Vec<usize>,
    samples: usize,
    cap: Duration,
    budget: Duration,
    seed: u64,
    book_lines: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        plies: vec![8, 10, 12],
        samples: 10,
        cap: Duration::from_secs(60),
        budget: Duration::from_millis(1000),
        seed: 1,
        book_lines: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        let bad = |e: std::num::ParseIntError| format!("{arg}: {e}");
        match arg.as_str() {
            "--plies" => {
                o.plies = value()?
                    .split(',')
                    .map(|p| p.trim().parse().map_err(bad))
                    .collect::<Result<_, _>>()?
            }
            "--samples" => o.samples = value()?.parse().map_err(bad)?,
            "--cap-secs" => o.cap = Duration::from_secs(value()?.parse().map_err(bad)?),
            "--budget-ms" => o.budget = Duration::from_millis(value()?.parse().map_err(bad)?),
            "--seed" => o.seed = value()?.parse().map_err(bad)?,
            "--book-lines" => o.book_lines = Some(value()?),
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(o)
}

/// A random position of `plies` stones still in progress, where the mover cannot win
/// at once (such positions are trivial).
fn random_position(rng: &mut SmallRng, plies: usize) -> Position {
    'again: loop {
        let mut p = Position::new(Rules::connect4());
        while p.ply() < plies {
            let moves = p.legal_moves();
            p.try_play(moves[rng.random_range(0..moves.len())])
                .expect("legal");
            if p.is_over() {
                continue 'again;
            }
        }
        return p;
    }
}

/// `line` played, then random moves up to `plies` stones; `None` if the game ends.
fn extend(rng: &mut SmallRng, line: &str, plies: usize) -> Option<Position> {
    let mut p = Position::from_column_digits(Rules::connect4(), line).ok()?;
    while p.ply() < plies && !p.is_over() {
        let moves = p.legal_moves();
        p.try_play(moves[rng.random_range(0..moves.len())])
            .expect("legal");
    }
    (!p.is_over() && p.ply() == plies).then_some(p)
}

fn digits(p: &Position) -> String {
    p.history()
        .iter()
        .map(|m| match m {
            Move::Column(c) => char::from(b'1' + c),
            Move::Cell(_) => '?',
        })
        .collect()
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("c4_probe: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut rng = SmallRng::seed_from_u64(o.seed);
    // The book's X lines: moves then X's book move, deepest first.
    let mut lines: Vec<String> = match &o.book_lines {
        None => Vec::new(),
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => text
                .lines()
                .filter_map(|l| {
                    let parts: Vec<&str> = l.split_whitespace().collect();
                    (parts.len() == 4 && parts[0] == "w").then(|| {
                        let moves = if parts[1] == "-" { "" } else { parts[1] };
                        format!("{moves}{}", parts[2])
                    })
                })
                .collect(),
            Err(e) => {
                eprintln!("c4_probe: {path}: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    lines.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let deepest = lines.first().map_or(0, String::len);
    lines.retain(|l| l.len() == deepest);
    let mut prover = Prover::new(1 << 30);
    println!(
        "{:>4} {:<16} {:>12} {:>9} {:>5} | {:>12} {:>9} {:>5} | AI {}ms cold 4 MiB",
        "ply",
        "moves",
        "sign nodes",
        "sign s",
        "sign",
        "exact nodes",
        "exact s",
        "score",
        o.budget.as_millis()
    );
    for &ply in &o.plies {
        for _ in 0..o.samples {
            let p = if lines.is_empty() {
                random_position(&mut rng, ply)
            } else {
                let line = &lines[rng.random_range(0..lines.len())];
                match extend(&mut rng, line, ply) {
                    Some(p) => p,
                    None => continue,
                }
            };
            prover.clear();
            let before = prover.nodes;
            let start = Instant::now();
            let sign = prover.sign(&p, u64::MAX, Some(start + o.cap));
            let (sign_nodes, sign_time) = (prover.nodes - before, start.elapsed());
            prover.clear();
            let before = prover.nodes;
            let start = Instant::now();
            let exact = prover.exact(&p, u64::MAX, Some(start + o.cap));
            let (exact_nodes, exact_time) = (prover.nodes - before, start.elapsed());
            let mut ai = Ai::new(Level::Perfect, 1);
            let start = Instant::now();
            let analysis = ai.think(&p, &Limits::time(o.budget));
            let ai_time = start.elapsed();
            println!(
                "{ply:>4} {:<16} {sign_nodes:>12} {:>9.3} {:>5} | {exact_nodes:>12} {:>9.3} {:>5} | proven {} in {:.3} s",
                digits(&p),
                sign_time.as_secs_f64(),
                sign.map_or("?".into(), |s| if s.lo >= 1 {
                    "win".to_string()
                } else if s.hi <= -1 {
                    "loss".into()
                } else {
                    "draw".into()
                }),
                exact_time.as_secs_f64(),
                exact.map_or("?".into(), |s| s.to_string()),
                analysis.proven,
                ai_time.as_secs_f64()
            );
        }
    }
    ExitCode::SUCCESS
}
