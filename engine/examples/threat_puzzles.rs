//! Gomoku threat puzzles: generates the suite in `engine/tests/data/gomoku_threats.txt`
//! and scores the AI on it.
//!
//! Generate (positions from games of the baseline or easy AIs after random openings, each answer
//! proven by the threat search with a large budget):
//! `cargo run -p inarow-engine --release --example threat_puzzles -- generate 60 > engine/tests/data/gomoku_threats.txt`
//!
//! The committed file is games 0–69 checked by `verify` (below), then games 70–99:
//! `… -- generate 70 | … -- verify > FILE && … -- generate 30 70 >> FILE`.
//! Generation checks each `defend` answer as it goes; `verify` re-checks a file's
//! (`… -- verify < old.txt > new.txt`).
//!
//! Score (each puzzle with a fresh AI and a time budget in milliseconds):
//! `cargo run -p inarow-engine --release --example threat_puzzles -- score 1000`
//!
//! A line is `kind answer plies moves…`: `vcf` and `vct` puzzles are wins for the player
//! to move (by fours, or fours and threes) within `plies` plies, `answer` being one
//! winning first move; `defend` puzzles have exactly one move that the threat search
//! does not prove lost, `answer` (and a deeper search sees no win for the opponent after
//! it), and `plies` is the shortest loss among the others.

use std::time::{Duration, Instant};

use inarow_engine::{
    Ai, Cell, Level, Limits, Move, Position, Rules, Value, hopeless_moves, threat_win,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/gomoku_threats.txt");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("generate") => generate(
            args.get(1).and_then(|a| a.parse().ok()).unwrap_or(60),
            args.get(2).and_then(|a| a.parse().ok()).unwrap_or(0),
        ),
        Some("verify") => verify(),
        Some("score") => score(args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000)),
        _ => eprintln!("usage: threat_puzzles generate GAMES [FIRST] | verify | score MILLIS"),
    }
}

/// Puzzles from games `first..first + games`.
fn generate(games: u64, first: u64) {
    let rules = Rules::gomoku();
    let mut found = [0usize; 3];
    for game in first..first + games {
        let mut rng = SmallRng::seed_from_u64(game);
        let mut position = Position::new(rules);
        // A random opening of four to eight stones in the central 7×7.
        let opening = rng.random_range(4..=8);
        while position.ply() < opening {
            let cell = Cell {
                col: rng.random_range(4..11),
                row: rng.random_range(4..11),
            };
            let _ = position.try_play(Move::Cell(cell));
        }
        // Half the games between baseline AIs, half between easy ones, whose mistakes
        // leave wins by threes on the board.
        let mut ais = if game % 2 == 0 {
            [Ai::baseline(game), Ai::baseline(game + 1000)]
        } else {
            [
                Ai::new(Level::Easy, game),
                Ai::new(Level::Easy, game + 1000),
            ]
        };
        let mut taken = [false; 3];
        while !position.is_over() && position.ply() < 120 {
            if let Some(line) = puzzle(&position, &mut taken) {
                let kind = ["vcf", "vct", "defend"]
                    .iter()
                    .position(|k| line.starts_with(k))
                    .expect("known kind");
                found[kind] += 1;
                println!("{line}");
            }
            let limits = Limits {
                nodes: Some(4000),
                ..Limits::default()
            };
            let best = ais[position.ply() % 2]
                .choose(&position, &limits)
                .expect("game in progress");
            position.try_play(best).expect("legal");
        }
        eprintln!(
            "game {game}: vcf {} vct {} defend {}",
            found[0], found[1], found[2]
        );
    }
}

/// The puzzle this position makes, if any kind not yet taken in this game.
fn puzzle(position: &Position, taken: &mut [bool; 3]) -> Option<String> {
    let moves: Vec<String> = position.history().iter().map(Move::to_string).collect();
    let moves = moves.join(" ");
    if let Some((plies, first)) = threat_win(position, 0, 200_000) {
        if plies >= 3 && !taken[0] {
            taken[0] = true;
            return Some(format!("vcf {first} {plies} {moves}"));
        }
        return None;
    }
    if let Some((plies, first)) = threat_win(position, 2, 1_000_000) {
        if !taken[1] {
            taken[1] = true;
            return Some(format!("vct {first} {plies} {moves}"));
        }
        return None;
    }
    if taken[2] {
        return None;
    }
    let legal = position.legal_moves();
    let lost = hopeless_moves(position, 4_000_000);
    if lost.len() + 1 == legal.len() {
        let answer = legal.iter().find(|m| lost.iter().all(|(l, _)| l != *m))?;
        let plies = lost.iter().map(|&(_, p)| p).min()?;
        // A lone forced block of a four is too easy to count as a puzzle; and the answer
        // must hold up to a deeper look (the threat search only proves losses, so the
        // last move standing might lose too).
        if plies > 2 && holds(position, *answer) {
            taken[2] = true;
            return Some(format!("defend {answer} {plies} {moves}"));
        }
    }
    None
}

/// Whether the player to move survives `answer` as far as a full-strength search of
/// two million nodes sees: the opponent has no win, proven or seen.
fn holds(position: &Position, answer: Move) -> bool {
    let mut child = position.clone();
    child.try_play(answer).expect("legal");
    let limits = Limits {
        nodes: Some(2_000_000),
        ..Limits::default()
    };
    let analysis = Ai::new(Level::Perfect, 7).analyze(&child, &limits);
    match analysis.moves[0].value {
        Value::Win(_) => false,
        Value::Estimate(e) => e < 1_000_000,
        _ => true,
    }
}

/// Copies puzzle lines from stdin to stdout, leaving out `defend` puzzles whose answer
/// does not hold up to the deeper look of [`holds`].
fn verify() {
    let rules = Rules::gomoku();
    for line in std::io::stdin().lines() {
        let line = line.expect("a line of text");
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"defend") {
            let moves: Vec<Move> = words[3..]
                .iter()
                .map(|w| rules.parse_move(w).expect("move"))
                .collect();
            let position = Position::from_moves(rules, &moves).expect("legal");
            let answer = rules.parse_move(words[1]).expect("move");
            if !holds(&position, answer) {
                eprintln!("dropped: {line}");
                continue;
            }
        }
        println!("{line}");
    }
}

/// One puzzle of the suite.
struct Puzzle {
    kind: String,
    answer: Move,
    position: Position,
}

fn puzzles() -> Vec<Puzzle> {
    let rules = Rules::gomoku();
    let text = std::fs::read_to_string(DATA).expect("the puzzle file");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let kind = words.next().expect("kind").to_string();
            let answer = rules
                .parse_move(words.next().expect("answer"))
                .expect("move");
            let _plies = words.next();
            let moves: Vec<Move> = words.map(|w| rules.parse_move(w).expect("move")).collect();
            Puzzle {
                kind,
                answer,
                position: Position::from_moves(rules, &moves).expect("legal"),
            }
        })
        .collect()
}

fn score(millis: u64) {
    let limits = Limits::time(Duration::from_millis(millis));
    let mut tally: Vec<(String, usize, usize)> = Vec::new();
    let start = Instant::now();
    for (i, p) in puzzles().iter().enumerate() {
        let analysis = Ai::new(Level::Perfect, i as u64).analyze(&p.position, &limits);
        let best = analysis.best.expect("in progress");
        let value = analysis
            .moves
            .iter()
            .find(|m| m.mv == best)
            .map(|m| m.value);
        let solved = match p.kind.as_str() {
            "defend" => best == p.answer,
            _ => matches!(value, Some(Value::Win(_))),
        };
        match tally.iter_mut().find(|t| t.0 == p.kind) {
            Some(t) => {
                t.1 += usize::from(solved);
                t.2 += 1;
            }
            None => tally.push((p.kind.clone(), usize::from(solved), 1)),
        }
        if !solved {
            println!(
                "missed {i}: {} answer {} played {best} {value:?}",
                p.kind, p.answer
            );
        }
    }
    let (solved, total) = tally
        .iter()
        .fold((0, 0), |acc, t| (acc.0 + t.1, acc.1 + t.2));
    for (kind, s, t) in &tally {
        println!("{kind:>6}: {s}/{t}");
    }
    println!(
        "solved {solved}/{total} at {millis} ms a puzzle in {:.1?}",
        start.elapsed()
    );
}
