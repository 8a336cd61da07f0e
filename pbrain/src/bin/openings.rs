//! `openings`: makes the balanced openings file the match runner plays from.
//!
//! It draws random candidate openings (three to five stones, alternating colours, in the
//! central square of the board), leaves out those that are a symmetry of one already drawn,
//! and asks the yardstick engine for its evaluation of each: the engine is shown the
//! position with BOARD, thinks for `--think-ms`, and the score in the last of its `MESSAGE`
//! lines before its move is kept. Each rating is appended to `--ratings` as it comes, so a
//! stopped run goes on where it stopped. At the end the openings whose score is within
//! `--max-eval` of even are written to `--out`, with their score as a comment.
//!
//! Not part of CI: it needs the engine and takes a while (see `docs/gomoku-match.md`).
//!
//! ```text
//! cargo run --release -p inarow-pbrain --bin openings -- \
//!     --engine ../yardsticks/rapfi/Rapfi/build/pbrain-rapfi \
//!     --ratings pbrain/openings/ratings.txt --out pbrain/openings/balanced.txt
//! ```

use std::collections::HashSet;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use inarow_engine::{Cell, Move, Rules};
use inarow_pbrain::command::Point;
use inarow_pbrain::engine::Engine;
use inarow_pbrain::opening::Opening;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Rates random openings with a Gomocup engine and keeps the balanced ones.
#[derive(Parser, Debug)]
struct Args {
    /// The engine that rates them (a Gomocup "pbrain" that writes its score in MESSAGE lines).
    #[arg(long)]
    engine: PathBuf,
    /// Every rating, appended as it comes: `moves # eval N` (or `# eval none`).
    #[arg(long)]
    ratings: PathBuf,
    /// The balanced openings file to write.
    #[arg(long)]
    out: PathBuf,
    /// Candidates to draw (those already rated are not rated again).
    #[arg(long, default_value_t = 80)]
    candidates: usize,
    /// Milliseconds the engine thinks about each.
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// The largest score, either way, of an opening kept.
    #[arg(long, default_value_t = 60)]
    max_eval: i32,
    /// Stones lie at most this far from the centre, in both directions.
    #[arg(long, default_value_t = 2)]
    radius: u8,
    /// Seed of the draw.
    #[arg(long, default_value_t = 38)]
    seed: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let rules = Rules::gomoku();
    let mut rated = read_ratings(&args.ratings)?;
    let mut seen: HashSet<Vec<(u8, u8, bool)>> =
        rated.iter().map(|(o, _)| canonical(&o.moves)).collect();
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.ratings)
        .with_context(|| format!("opening {}", args.ratings.display()))?;
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let mut drawn = 0;
    while drawn < args.candidates {
        let opening = draw(&mut rng, rules, args.radius);
        // Every candidate counts, rated now or before, so a rerun draws the same ones.
        drawn += 1;
        let key = canonical(&opening.moves);
        if !seen.insert(key) {
            continue;
        }
        let eval = rate(&args.engine, rules, &opening, args.think_ms)
            .with_context(|| format!("rating {}", opening.text()))?;
        let shown = eval.map_or("none".to_owned(), |e| e.to_string());
        writeln!(log, "{} # eval {shown}", opening.text())?;
        log.flush()?;
        println!(
            "{drawn}/{}: {} eval {shown}",
            args.candidates,
            opening.text()
        );
        rated.push((opening, eval));
    }
    let mut out = format!(
        "# Balanced gomoku openings (15x15, five or more wins): one a line, moves in inarow's\n\
         # notation, the first player's first. Kept: the yardstick's score for the side to\n\
         # move within {} after {} ms of thought. Made by the openings tool; see\n\
         # docs/gomoku-match.md.\n",
        args.max_eval, args.think_ms
    );
    let mut kept = 0;
    for (opening, eval) in &rated {
        if let Some(eval) = eval.filter(|e| e.abs() <= args.max_eval) {
            out.push_str(&format!("{} # eval {eval}\n", opening.text()));
            kept += 1;
        }
    }
    fs::write(&args.out, out).with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "{kept} of {} rated openings kept in {}",
        rated.len(),
        args.out.display()
    );
    Ok(())
}

/// The ratings file's openings and scores.
fn read_ratings(path: &Path) -> anyhow::Result<Vec<(Opening, Option<i32>)>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut rated = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (moves, comment) = line.split_once('#').unwrap_or((line, ""));
        let Ok(opening) = Opening::parse(moves, Rules::gomoku()) else {
            continue;
        };
        let eval = comment
            .trim()
            .strip_prefix("eval")
            .and_then(|e| e.trim().parse().ok());
        rated.push((opening, eval));
    }
    Ok(rated)
}

/// A random opening: three to five stones, alternating from the first player's, in the
/// square of `radius` around the centre.
fn draw(rng: &mut SmallRng, rules: Rules, radius: u8) -> Opening {
    let centre = (rules.width() / 2) as u8;
    let stones = rng.random_range(3..=5);
    let mut moves: Vec<Move> = Vec::new();
    while moves.len() < stones {
        let cell = Cell {
            col: centre - radius + rng.random_range(0..=2 * radius),
            row: centre - radius + rng.random_range(0..=2 * radius),
        };
        if !moves.contains(&Move::Cell(cell)) {
            moves.push(Move::Cell(cell));
        }
    }
    Opening { moves }
}

/// One of the square's symmetries: (side - 1, column, row) to (column, row).
type Symmetry = fn(u8, u8, u8) -> (u8, u8);

/// The same opening under each of the square's eight symmetries gives one key: the
/// smallest sorted list of (column, row, first player's) over them.
fn canonical(moves: &[Move]) -> Vec<(u8, u8, bool)> {
    let n = Rules::gomoku().width() as u8 - 1;
    let maps: [Symmetry; 8] = [
        |_, c, r| (c, r),
        |n, c, r| (n - c, r),
        |n, c, r| (c, n - r),
        |n, c, r| (n - c, n - r),
        |_, c, r| (r, c),
        |n, c, r| (n - r, c),
        |n, c, r| (r, n - c),
        |n, c, r| (n - r, n - c),
    ];
    maps.iter()
        .map(|map| {
            let mut key: Vec<(u8, u8, bool)> = moves
                .iter()
                .enumerate()
                .filter_map(|(ply, mv)| match mv {
                    Move::Cell(cell) => {
                        let (c, r) = map(n, cell.col, cell.row);
                        Some((c, r, ply % 2 == 0))
                    }
                    Move::Column(_) => None,
                })
                .collect();
            key.sort_unstable();
            key
        })
        .min()
        .unwrap_or_default()
}

/// The engine's score of `opening` for the side to move after `think_ms`: the last score
/// in its MESSAGE lines before it answered; `None` if it gave none.
fn rate(
    engine_path: &Path,
    rules: Rules,
    opening: &Opening,
    think_ms: u64,
) -> anyhow::Result<Option<i32>> {
    let mut engine = Engine::spawn(engine_path)?;
    engine.send(&format!("START {}", rules.width()))?;
    engine.expect_ok(Duration::from_secs(30))?;
    for info in [
        format!("INFO timeout_turn {think_ms}"),
        "INFO timeout_match 0".to_owned(),
        "INFO thread_num 1".to_owned(),
        "INFO rule 0".to_owned(),
    ] {
        engine.send(&info)?;
    }
    let mut lines = vec!["BOARD".to_owned()];
    let to_move_is_x = opening.moves.len().is_multiple_of(2);
    for (ply, mv) in opening.moves.iter().enumerate() {
        if let Move::Cell(cell) = mv {
            let own = (ply % 2 == 0) == to_move_is_x;
            let field = if own { 1 } else { 2 };
            lines.push(format!("{},{field}", Point::of(*cell, rules)));
        }
    }
    lines.push("DONE".to_owned());
    engine.send(&lines.join("\n"))?;
    engine.read_move(Duration::from_millis(think_ms) + Duration::from_secs(10))?;
    Ok(engine.take_messages().iter().rev().find_map(|m| eval_in(m)))
}

/// The score in an engine's MESSAGE line: the number after a word starting `ev`
/// (`Eval 35`, `ev -12`, `eval=8`); `None` when there is none or it is a forced win or
/// loss rather than a number.
fn eval_in(message: &str) -> Option<i32> {
    let mut words = message
        .split(|c: char| c.is_whitespace() || c == '=' || c == ':' || c == '|' || c == ',')
        .filter(|w| !w.is_empty());
    while let Some(word) = words.next() {
        if word.to_ascii_lowercase().starts_with("ev") {
            return words.next()?.parse().ok();
        }
    }
    None
}
