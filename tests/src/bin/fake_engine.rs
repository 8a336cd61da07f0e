//! A Gomocup engine that misbehaves on purpose, for the tests of external AI seats and of
//! the bot bridge: it starts like any engine (ABOUT, START, RECTSTART, INFO) and then, when
//! asked for a move, does what its first argument says:
//!
//! - `crash`: exits at once;
//! - `stall`: never answers (but keeps reading, so only a deadline ends it);
//! - `nonsense`: answers a line that is not a move;
//! - `occupied`: answers the cell of a stone already on the board (0,0 on an empty one);
//! - `offboard`: answers 99,99;
//! - `first`: plays the first empty cell, row by row (a legal, weak engine).
//!
//! A second argument names a file to which it appends its process id, so that a test can
//! check that the server's processes are gone after a shutdown.

use std::collections::HashSet;
use std::io::{self, BufRead, Write};

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "first".to_owned());
    if let Some(file) = args.next() {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)?;
        writeln!(f, "{}", std::process::id())?;
    }
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut size = (15u32, 15u32);
    let mut stones: HashSet<(u32, u32)> = HashSet::new();
    let mut in_board = false;
    for line in stdin.lock().lines() {
        let line = line?;
        let line = line.trim().to_ascii_uppercase();
        if in_board {
            if line == "DONE" {
                in_board = false;
                answer(&mode, size, &stones, &mut out)?;
            } else if let Some(point) = point(&line) {
                stones.insert(point);
            }
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((&line, ""));
        match word {
            "ABOUT" => writeln!(out, "name=\"fake-{mode}\", version=\"1\"")?,
            "START" => {
                let side = rest.trim().parse().unwrap_or(15);
                size = (side, side);
                stones.clear();
                writeln!(out, "OK")?;
            }
            "RECTSTART" => {
                size = point(rest).unwrap_or((15, 15));
                stones.clear();
                writeln!(out, "OK")?;
            }
            "RESTART" => {
                stones.clear();
                writeln!(out, "OK")?;
            }
            "BOARD" => {
                stones.clear();
                in_board = true;
            }
            "BEGIN" => {
                stones.clear();
                answer(&mode, size, &stones, &mut out)?;
            }
            "TURN" => {
                if let Some(p) = point(rest) {
                    stones.insert(p);
                }
                answer(&mode, size, &stones, &mut out)?;
            }
            "END" => return Ok(()),
            "INFO" | "" => {}
            _ => writeln!(out, "UNKNOWN {word}")?,
        }
        out.flush()?;
    }
    Ok(())
}

fn answer(
    mode: &str,
    size: (u32, u32),
    stones: &HashSet<(u32, u32)>,
    out: &mut impl Write,
) -> io::Result<()> {
    match mode {
        "crash" => std::process::exit(3),
        "stall" => return Ok(()),
        "nonsense" => writeln!(out, "I resign, probably")?,
        "occupied" => {
            let (x, y) = stones.iter().next().copied().unwrap_or((0, 0));
            writeln!(out, "{x},{y}")?;
        }
        "offboard" => writeln!(out, "99,99")?,
        _ => {
            let free = (0..size.1)
                .flat_map(|y| (0..size.0).map(move |x| (x, y)))
                .find(|p| !stones.contains(p));
            if let Some((x, y)) = free {
                writeln!(out, "{x},{y}")?;
            }
        }
    }
    out.flush()
}

/// `x,y` (and any `,field` after it).
fn point(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.split(',').map(str::trim);
    let x = parts.next()?.parse().ok()?;
    let y = parts.next()?.parse().ok()?;
    Some((x, y))
}
