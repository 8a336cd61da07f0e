//! A gomoku match of the AI against the baseline (the AI before the gomoku search and
//! threat-space search), from varied openings, each side playing X and O from every
//! opening.
//!
//! `cargo run -p inarow-engine --release --example gomoku_match -- --games 10 --ms 200 --out match.txt`
//!
//! `--games N` openings (each played twice, colours swapped), `--ms M` per move. With
//! `--out FILE` every finished game is appended as a line (`opening new_as result plies`)
//! and games already in the file are skipped, so an interrupted run resumes; the table
//! is printed from the whole file.

use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;

use inarow_engine::{Ai, Cell, GameStatus, Level, Limits, Move, Player, Position, Rules};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let games: u64 = flag("--games").and_then(|g| g.parse().ok()).unwrap_or(10);
    let millis: u64 = flag("--ms").and_then(|m| m.parse().ok()).unwrap_or(1000);
    let out = flag("--out");
    let mut lines: Vec<String> = out
        .as_ref()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .map(|text| text.lines().map(str::to_string).collect())
        .unwrap_or_default();
    let done: HashSet<(u64, String)> = lines
        .iter()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.parse().ok()?, w.next()?.to_string()))
        })
        .collect();
    let limits = Limits::time(Duration::from_millis(millis));
    for opening in 0..games {
        for new_as in [Player::X, Player::O] {
            let tag = format!("{new_as:?}");
            if done.contains(&(opening, tag.clone())) {
                continue;
            }
            let (result, plies) = play(opening, new_as, &limits);
            let line = format!("{opening} {tag} {result} {plies}");
            println!("{line}");
            if let Some(path) = &out {
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .expect("the results file");
                writeln!(file, "{line}").expect("append a result");
            }
            lines.push(line);
        }
    }
    // The table: wins, draws, losses of the new AI by colour.
    println!("new AI   wins draws losses  (ms {millis})");
    for side in ["X", "O"] {
        let mut counts = [0; 3];
        for l in &lines {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() >= 3 && w[1] == side {
                counts[match w[2] {
                    "win" => 0,
                    "draw" => 1,
                    _ => 2,
                }] += 1;
            }
        }
        let total: u32 = counts.iter().sum();
        println!(
            "as {side}     {:>4} {:>5} {:>6}  ({:.0}% wins of {total})",
            counts[0],
            counts[1],
            counts[2],
            100.0 * f64::from(counts[0]) / f64::from(total.max(1))
        );
    }
}

/// One game from opening `opening` (two random stones each near the centre), the new AI
/// playing `new_as`: the result for the new AI and the game's length.
fn play(opening: u64, new_as: Player, limits: &Limits) -> (&'static str, usize) {
    let rules = Rules::gomoku();
    let mut rng = SmallRng::seed_from_u64(opening);
    let mut position = Position::new(rules);
    while position.ply() < 4 {
        let cell = Cell {
            col: rng.random_range(5..10),
            row: rng.random_range(5..10),
        };
        let _ = position.try_play(Move::Cell(cell));
    }
    let mut new = Ai::new(Level::Perfect, opening);
    let mut old = Ai::baseline(opening + 1);
    while !position.is_over() {
        let ai = if position.to_move() == new_as {
            &mut new
        } else {
            &mut old
        };
        let best = ai.choose(&position, limits).expect("game in progress");
        position.try_play(best).expect("the AI plays legal moves");
    }
    let result = match position.status() {
        GameStatus::Won { winner, .. } if winner == new_as => "win",
        GameStatus::Won { .. } => "loss",
        _ => "draw",
    };
    (result, position.ply())
}
