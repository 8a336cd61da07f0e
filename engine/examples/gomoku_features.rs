//! The gomoku evaluation's inputs for positions read from stdin, for fitting its weights.
//!
//! Each input line is a position's moves in inarow's notation, a tab, and anything after
//! (a label, passed through). Each output line is the label, a tab, and the features of
//! `inarow_engine::eval_features` separated by spaces; lines whose moves do not parse,
//! and positions where the game is over, are left out.
//!
//! `cargo run -p inarow-engine --release --example gomoku_features < labels.tsv`

use std::io::{BufRead, Write};

use inarow_engine::{Position, Rules, eval_features};

fn main() -> std::io::Result<()> {
    let rules = Rules::gomoku();
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let line = line?;
        let Some((moves, label)) = line.split_once('\t') else {
            continue;
        };
        let parsed: Option<Vec<_>> = moves
            .split_whitespace()
            .map(|m| rules.parse_move(m).ok())
            .collect();
        let Some(position) = parsed.and_then(|m| Position::from_moves(rules, &m).ok()) else {
            continue;
        };
        if position.is_over() {
            continue;
        }
        let Some(features) = eval_features(&position) else {
            continue;
        };
        let text: Vec<String> = features.iter().map(i32::to_string).collect();
        writeln!(out, "{label}\t{}", text.join(" "))?;
    }
    out.flush()
}
