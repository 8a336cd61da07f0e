//! Measures what the opening book's generator and the AI past the book pay per
//! position: for random 7×6 positions at the given plies, the nodes and time to prove
//! the win/draw/loss value (null windows at 0) and the exact score with a fresh table,
//! and whether the `perfect` AI proves every move within a move budget from a cold
//! default table (as the server runs it).
//!
//! ```text
//! cargo run --release -p inarow-engine --example c4_probe -- \
//!     [--plies 8,10,12] [--samples 10] [--cap-secs 60] [--budget-ms 1000] [--seed 1]
//! ```

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
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        plies: vec![8, 10, 12],
        samples: 10,
        cap: Duration::from_secs(60),
        budget: Duration::from_millis(1000),
        seed: 1,
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
            let p = random_position(&mut rng, ply);
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
            let analysis = ai.analyze(&p, &Limits::time(o.budget));
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
