//! `match`: inarow's `perfect` AI against any Gomocup engine, one game at a time.
//!
//! Each opening of the file is played twice, inarow once with each colour, and so is the
//! empty board, once a round (`--rounds`, one by default); both sides get the same time a
//! move. Each finished game is appended to the
//! results file as one JSON line, and games already there are skipped, so a stopped match
//! goes on where it stopped. The summary (score, Elo difference with its 95 % interval, by
//! colour, from the empty board, time a move, inarow's nodes a second and depth) is printed
//! at the end, or alone with `--summary`.
//!
//! ```text
//! cargo run --release -p inarow-pbrain --bin match -- \
//!     --engine ../yardsticks/rapfi/Rapfi/build/pbrain-rapfi \
//!     --openings pbrain/openings/balanced.txt --time-ms 1000 \
//!     --results pbrain/results/rapfi-1s.jsonl
//! ```

use std::collections::HashSet;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use inarow_engine::Rules;
use inarow_pbrain::game::{self, Settings};
use inarow_pbrain::opening::{self, Opening};
use inarow_pbrain::results::{self, Colour, Summary};

/// Plays inarow against a Gomocup engine and sums up the games.
#[derive(Parser, Debug)]
struct Args {
    /// The engine's executable (a Gomocup "pbrain").
    #[arg(long)]
    engine: Option<PathBuf>,
    /// The openings file (see `pbrain/openings/README.md`).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Milliseconds a move for both sides.
    #[arg(long, default_value_t = 1000)]
    time_ms: u64,
    /// Milliseconds an answer may come after its time before it loses on time.
    #[arg(long, default_value_t = 1000)]
    tolerance_ms: u64,
    /// Where games are appended, one JSON line each; games already in it are skipped.
    #[arg(long)]
    results: PathBuf,
    /// Play only the first N openings of the file.
    #[arg(long)]
    limit: Option<usize>,
    /// Play the openings this many times over (rounds already in the results file are
    /// skipped game by game, as always).
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// Leave out the empty board.
    #[arg(long)]
    no_empty: bool,
    /// Print the summary of the results file and play nothing.
    #[arg(long)]
    summary: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let rules = Rules::gomoku();
    if !args.summary {
        run(&args, rules)?;
    }
    let text = read_results(&args.results)?;
    let (games, skipped) = results::parse(&text);
    let games: Vec<_> = games
        .into_iter()
        .filter(|g| g.time_ms == args.time_ms)
        .collect();
    println!("{}", Summary::of(&games));
    if skipped > 0 {
        println!("({skipped} unreadable lines skipped)");
    }
    Ok(())
}

fn read_results(path: &PathBuf) -> anyhow::Result<String> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn run(args: &Args, rules: Rules) -> anyhow::Result<()> {
    let engine = args.engine.clone().context("--engine is needed to play")?;
    let mut openings = Vec::new();
    if !args.no_empty {
        openings.push(Opening::empty());
    }
    if let Some(path) = &args.openings {
        let text =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut file = opening::parse_file(&text, rules)
            .with_context(|| format!("reading {}", path.display()))?;
        if let Some(limit) = args.limit {
            file.truncate(limit);
        }
        openings.extend(file);
    }
    let (played, _) = results::parse(&read_results(&args.results)?);
    let done: HashSet<_> = played.iter().map(|g| g.key()).collect();
    let settings = Settings {
        engine,
        time: Duration::from_millis(args.time_ms),
        tolerance: Duration::from_millis(args.tolerance_ms),
        rules,
    };
    let total = openings.len() * 2;
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.results)
        .with_context(|| format!("opening {}", args.results.display()))?;
    for round in 1..=args.rounds {
        for (index, opening) in openings.iter().enumerate() {
            for (side, colour) in [Colour::X, Colour::O].into_iter().enumerate() {
                let key = (opening.text(), colour, args.time_ms, round);
                if done.contains(&key) {
                    continue;
                }
                let number = index * 2 + side;
                // A seed a game, so a game replayed after a restart searches as it did.
                let seed = u64::from(round) << 32 | number as u64;
                let record = game::play(&settings, opening, colour, round, seed)
                    .with_context(|| format!("round {round}, game {} of {total}", number + 1))?;
                let line = serde_json::to_string(&record)?;
                writeln!(out, "{line}")?;
                out.flush()?;
                let shown = if record.opening.is_empty() {
                    "empty board"
                } else {
                    &record.opening
                };
                println!(
                    "round {round}, game {}/{total}: {shown}, inarow {:?}: {:?} by {:?} in {} plies {}",
                    number + 1,
                    colour,
                    record.outcome,
                    record.ending,
                    record.moves.split_whitespace().count(),
                    record.detail
                );
            }
        }
    }
    Ok(())
}
