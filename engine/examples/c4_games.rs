//! Plays full Connect Four games with the `perfect` AI against a random opponent and
//! against itself, and prints the AI's move times (p50, p99, max), how many of its
//! moves were proven (and how many came from the opening book), and the results.
//!
//! ```text
//! cargo run --release -p inarow-engine --example c4_games -- \
//!     [--games 100] [--ms 1000] [--opponent random|ai|both] [--seed 1]
//! ```
//!
//! Against the random opponent the AI plays X in the even games and O in the odd ones.
//! Each AI keeps its default 4 MiB table for a game, as a room's AI does between moves.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use inarow_engine::{Ai, Book, GameStatus, Level, Limits, Move, Player, Position, Rules};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

struct Options {
    games: usize,
    budget: Duration,
    opponents: Vec<&'static str>,
    seed: u64,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        games: 100,
        budget: Duration::from_millis(1000),
        opponents: vec!["random", "ai"],
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--games" => o.games = value()?.parse().map_err(|e| format!("--games: {e}"))?,
            "--ms" => {
                o.budget =
                    Duration::from_millis(value()?.parse().map_err(|e| format!("--ms: {e}"))?)
            }
            "--seed" => o.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--opponent" => {
                o.opponents = match value()?.as_str() {
                    "random" => vec!["random"],
                    "ai" => vec!["ai"],
                    "both" => vec!["random", "ai"],
                    other => return Err(format!("--opponent: random, ai or both, not {other}")),
                }
            }
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(o)
}

/// One AI move's record.
struct Timed {
    /// The AI's side.
    side: Player,
    /// Stones on the board before the move.
    ply: usize,
    time: Duration,
    proven: bool,
    book: bool,
}

/// The `q`-quantile of sorted `times` (nearest rank).
fn quantile(times: &[Duration], q: f64) -> Duration {
    let rank = ((q * times.len() as f64).ceil() as usize).clamp(1, times.len());
    times[rank - 1]
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("c4_games: {e}");
            return ExitCode::FAILURE;
        }
    };
    let limits = Limits::time(o.budget);
    let book = match Book::embedded() {
        Ok(book) => Some(book),
        Err(e) => {
            eprintln!("c4_games: {e}: playing without the book");
            None
        }
    };
    let mut rng = SmallRng::seed_from_u64(o.seed);
    for opponent in &o.opponents {
        let mut record: Vec<Timed> = Vec::new();
        // Results for the AI (as X, as O): wins, draws, losses.
        let mut results = [[0u32; 3]; 2];
        let started = Instant::now();
        for game in 0..o.games {
            let ai_side = if *opponent == "ai" || game % 2 == 0 {
                Player::X
            } else {
                Player::O
            };
            let seed = o.seed * 1000 + game as u64;
            let mut ais = [
                Ai::new(Level::Perfect, seed),
                Ai::new(Level::Perfect, seed + 1),
            ];
            let mut position = Position::new(Rules::connect4());
            while !position.is_over() {
                let mover = position.to_move();
                let by_ai = *opponent == "ai" || mover == ai_side;
                let mv = if by_ai {
                    let ai = &mut ais[usize::from(mover == Player::O)];
                    let start = Instant::now();
                    let analysis = ai.think(&position, &limits);
                    let took = start.elapsed();
                    if took > o.budget + o.budget / 10 {
                        // Past the budget: worth a look (a loaded machine, or a search
                        // that polls its clock too rarely).
                        println!(
                            "  over budget: {:.0} ms at ply {} ({:?} to move), {} nodes, proven {}",
                            took.as_secs_f64() * 1e3,
                            position.ply(),
                            mover,
                            analysis.nodes,
                            analysis.proven
                        );
                    }
                    record.push(Timed {
                        side: mover,
                        ply: position.ply(),
                        time: took,
                        proven: analysis.proven,
                        book: book.is_some_and(|b| b.lookup(&position).is_some()),
                    });
                    analysis.best.expect("a move in a game in progress")
                } else {
                    let moves = position.legal_moves();
                    moves[rng.random_range(0..moves.len())]
                };
                position.try_play(mv).expect("legal");
            }
            let side = usize::from(ai_side == Player::O);
            if matches!(position.status(), GameStatus::Won { winner, .. } if winner != ai_side) {
                let moves: String = position
                    .history()
                    .iter()
                    .map(|m| match m {
                        Move::Column(c) => char::from(b'1' + c),
                        Move::Cell(_) => '?',
                    })
                    .collect();
                println!("  the AI ({ai_side:?}) lost: {moves}");
            }
            let outcome = match position.status() {
                GameStatus::Won { winner, .. } if winner == ai_side => 0,
                GameStatus::Drawn => 1,
                _ => 2,
            };
            results[side][outcome] += 1;
        }
        println!(
            "vs {opponent}: {} games in {:.1} s",
            o.games,
            started.elapsed().as_secs_f64()
        );
        for (who, side) in [
            ("all", None),
            ("as X", Some(Player::X)),
            ("as O", Some(Player::O)),
        ] {
            let moves: Vec<&Timed> = record
                .iter()
                .filter(|r| side.is_none_or(|s| r.side == s))
                .collect();
            if moves.is_empty() {
                continue;
            }
            let mut times: Vec<Duration> = moves.iter().map(|r| r.time).collect();
            times.sort();
            let proven = moves.iter().filter(|r| r.proven).count();
            let book = moves.iter().filter(|r| r.book).count();
            let last_unproven = moves.iter().filter(|r| !r.proven).map(|r| r.ply).max();
            let ms = |t: Duration| t.as_secs_f64() * 1e3;
            println!(
                "  {who}: {} AI moves at {} ms: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; proven {proven} ({book} from the book), last unproven at ply {}",
                moves.len(),
                o.budget.as_millis(),
                ms(quantile(&times, 0.5)),
                ms(quantile(&times, 0.99)),
                ms(*times.last().expect("not empty")),
                last_unproven.map_or("-".to_string(), |p| p.to_string()),
            );
        }
        for (side, name) in [(0, "X"), (1, "O")] {
            let [w, d, l] = results[side];
            if w + d + l > 0 {
                println!("  as {name}: {w} won, {d} drawn, {l} lost");
            }
        }
    }
    ExitCode::SUCCESS
}
