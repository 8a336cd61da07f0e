//! Builds the Connect Four opening book: every position the AI can meet in its first
//! plies, each with the exact value of every move, solved by the engine.
//!
//! ```text
//! cargo run --release -p inarow-engine --example build-book -- \
//!     --plies N --out engine/data/c4-7x6.book \
//!     [--checkpoint FILE] [--side x|o|both] [--root MOVES] [--table-mib M] [--max-minutes T]
//! ```
//!
//! Positions covered, for fewer than N stones: with the AI as X, X to move after the
//! book's own X moves and every O reply; with the AI as O, O to move after every X
//! move and the book's O replies. The book's move is the best, the most central among
//! equals, which is what the AI plays from the book, so it stays on these lines.
//!
//! Resumable: each solved position is appended to the checkpoint (default: the output
//! path plus `.progress`) as `<column digits> <score per column>` and read back on the
//! next run, so an interrupted run loses at most the position it was solving. The
//! book file is written at the end, or when `--max-minutes` runs out (with what is
//! solved so far: every entry is exact, the book is only thinner). `--root` builds the
//! subtree under a move sequence, for splitting the work between processes (each with
//! its own checkpoint; concatenate the checkpoints and run once more to merge).

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use inarow_engine::{
    Ai, Book, Cell, Level, Limits, Move, MoveValue, Player, Position, Rules, Value,
};

struct Options {
    plies: u8,
    out: PathBuf,
    checkpoint: PathBuf,
    sides: Vec<Player>,
    root: String,
    table_bytes: usize,
    max_time: Option<Duration>,
}

fn options() -> Result<Options, String> {
    let (mut plies, mut out, mut checkpoint) = (None, None, None);
    let mut sides = vec![Player::X, Player::O];
    let mut root = String::new();
    let mut table_bytes = 256 << 20;
    let mut max_time = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--plies" => plies = Some(value()?.parse().map_err(|e| format!("--plies: {e}"))?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--checkpoint" => checkpoint = Some(PathBuf::from(value()?)),
            "--side" => {
                sides = match value()?.as_str() {
                    "x" | "X" => vec![Player::X],
                    "o" | "O" => vec![Player::O],
                    "both" => vec![Player::X, Player::O],
                    other => return Err(format!("--side: x, o or both, not {other}")),
                }
            }
            "--root" => root = value()?,
            "--table-mib" => {
                let mib: usize = value()?.parse().map_err(|e| format!("--table-mib: {e}"))?;
                table_bytes = mib << 20;
            }
            "--max-minutes" => {
                let minutes: f64 = value()?
                    .parse()
                    .map_err(|e| format!("--max-minutes: {e}"))?;
                max_time = Some(Duration::from_secs_f64(minutes * 60.0));
            }
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    let plies = plies.ok_or("--plies N is required")?;
    let out = out.ok_or("--out FILE is required")?;
    let checkpoint = checkpoint.unwrap_or_else(|| {
        let mut name = out.clone().into_os_string();
        name.push(".progress");
        PathBuf::from(name)
    });
    Ok(Options {
        plies,
        out,
        checkpoint,
        sides,
        root,
        table_bytes,
        max_time,
    })
}

/// Pons' score of an exact value at a position of `n` stones.
fn score(value: Value, n: u32) -> i32 {
    Book::score_of(value, n)
        .unwrap_or_else(|| panic!("unproven value {value:?} while building the book"))
}

/// The column digits of a position's moves, as in Pons' data.
fn digits(position: &Position) -> String {
    position
        .history()
        .iter()
        .map(|mv| match mv {
            Move::Column(c) => char::from(b'1' + c),
            Move::Cell(_) => unreachable!("gravity moves are columns"),
        })
        .collect()
}

/// The board as text, the same for a position and its mirror image.
fn board_key(position: &Position) -> String {
    let cell = |col: u8, row: u8| match position.get(Cell { col, row }) {
        None => '.',
        Some(Player::X) => 'x',
        Some(Player::O) => 'o',
    };
    let text = |cols: &mut dyn Iterator<Item = u8>| -> String {
        cols.flat_map(|c| (0..6).map(move |r| (c, r)))
            .map(|(c, r)| cell(c, r))
            .collect()
    };
    let forward = text(&mut (0..7));
    let mirror = text(&mut (0..7).rev());
    forward.min(mirror)
}

/// Columns from the centre out, so the first positions solved are the likeliest.
const ORDER: [u8; 7] = [3, 2, 4, 1, 5, 0, 6];

struct Builder {
    plies: u8,
    ai: Ai,
    book: Book,
    checkpoint: File,
    /// Positions (as [`board_key`]) already expanded for each side.
    seen: HashSet<(Player, String)>,
    start: Instant,
    max_time: Option<Duration>,
    /// Per ply: positions solved in this run and the time they took.
    solved: BTreeMap<usize, (u32, Duration)>,
    stopped: bool,
}

impl Builder {
    fn visit(&mut self, position: &mut Position, side: Player) -> std::io::Result<()> {
        if self.stopped || position.ply() >= usize::from(self.plies) || position.is_over() {
            return Ok(());
        }
        if !self.seen.insert((side, board_key(position))) {
            return Ok(());
        }
        if position.to_move() == side {
            let moves = match self.book.lookup(position) {
                Some(moves) => moves,
                None => {
                    if self.max_time.is_some_and(|t| self.start.elapsed() >= t) {
                        self.stopped = true;
                        return Ok(());
                    }
                    let Some(moves) = self.solve(position)? else {
                        return Ok(());
                    };
                    moves
                }
            };
            let mv = Book::choose(position, &moves).expect("a position in progress has moves");
            position.try_play(mv).expect("legal");
            self.visit(position, side)?;
            position.undo();
        } else {
            for col in ORDER {
                if position.try_play(Move::Column(col)).is_ok() {
                    self.visit(position, side)?;
                    position.undo();
                }
            }
        }
        Ok(())
    }

    fn solve(&mut self, position: &Position) -> std::io::Result<Option<Vec<MoveValue>>> {
        let started = Instant::now();
        // No time limit: a book entry must be exact, however long it takes.
        let analysis = self.ai.analyze(
            position,
            &Limits::time(Duration::from_secs(365 * 24 * 3600)),
        );
        let took = started.elapsed();
        if !analysis.proven {
            eprintln!("{}: not proven, skipped", digits(position));
            return Ok(None);
        }
        let n = position.ply() as u32;
        let mut line = digits(position);
        for col in 0..7 {
            match analysis.moves.iter().find(|m| m.mv == Move::Column(col)) {
                Some(m) => line += &format!(" {}", score(m.value, n)),
                None => line += " x",
            }
        }
        writeln!(self.checkpoint, "{line}")?;
        self.checkpoint.flush()?;
        self.book.insert(position, &analysis.moves);
        let entry = self.solved.entry(position.ply()).or_default();
        entry.0 += 1;
        entry.1 += took;
        println!(
            "[{} in book] ply {:>2} {:<14} {:>8.2} s {:>13} nodes  scores{}",
            self.book.len(),
            position.ply(),
            if line.starts_with(' ') {
                "(empty)"
            } else {
                line.split(' ').next().unwrap_or("")
            },
            took.as_secs_f64(),
            analysis.nodes,
            &line[line.find(' ').unwrap_or(0)..]
        );
        Ok(Some(analysis.moves))
    }
}

/// Reads the checkpoint's lines into `book`.
fn resume(path: &PathBuf, book: &mut Book) -> Result<usize, String> {
    let Ok(file) = File::open(path) else {
        return Ok(0);
    };
    let mut count = 0;
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = |what: &str| format!("{}:{}: {what}: {line}", path.display(), number + 1);
        let mut parts = line.split_whitespace();
        // The empty board's line starts with its scores.
        let first = parts.clone().count() == 7;
        let moves = if first {
            ""
        } else {
            parts.next().unwrap_or("")
        };
        let position = Position::from_column_digits(Rules::connect4(), moves)
            .map_err(|e| bad(&e.to_string()))?;
        let n = position.ply() as u32;
        let mut values = Vec::new();
        for (col, text) in parts.enumerate() {
            if text == "x" {
                continue;
            }
            let s: i32 = text.parse().map_err(|_| bad("bad score"))?;
            values.push(MoveValue {
                mv: Move::Column(col as u8),
                value: Book::value_of(s, n),
            });
        }
        if values.len() != position.legal_moves().len() {
            // A line cut short by an interrupted write: solved again.
            eprintln!("{}", bad("incomplete line, ignored"));
            continue;
        }
        book.insert(&position, &values);
        count += 1;
    }
    Ok(count)
}

fn run(options: Options) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let mut book = Book::new(options.plies);
    let resumed = resume(&options.checkpoint, &mut book)?;
    println!(
        "{} positions from {}; building plies < {} for {:?} from {:?}",
        resumed,
        options.checkpoint.display(),
        options.plies,
        options.sides,
        options.root
    );
    let checkpoint = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options.checkpoint)
        .map_err(|e| format!("{}: {e}", options.checkpoint.display()))?;
    let mut builder = Builder {
        plies: options.plies,
        ai: Ai::with_table_bytes(Level::Perfect, 0, options.table_bytes),
        book,
        checkpoint,
        seen: HashSet::new(),
        start: Instant::now(),
        max_time: options.max_time,
        solved: BTreeMap::new(),
        stopped: false,
    };
    for &side in &options.sides {
        let mut position = Position::from_column_digits(Rules::connect4(), &options.root)
            .map_err(|e| format!("--root {}: {e}", options.root))?;
        builder.visit(&mut position, side).map_err(io)?;
    }
    if builder.stopped {
        println!("time is up: writing the positions solved so far");
    }
    println!("ply  solved this run  mean time per position");
    for (ply, (count, time)) in &builder.solved {
        println!(
            "{ply:>3}  {count:>15}  {:>10.3} s",
            time.as_secs_f64() / f64::from(*count)
        );
    }
    let bytes = builder.book.to_bytes();
    let mut temporary = options.out.clone().into_os_string();
    temporary.push(".tmp");
    std::fs::write(&temporary, &bytes).map_err(io)?;
    std::fs::rename(&temporary, &options.out).map_err(io)?;
    println!(
        "wrote {} positions ({} bytes) to {}",
        builder.book.len(),
        bytes.len(),
        options.out.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    match options().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("build-book: {message}");
            ExitCode::FAILURE
        }
    }
}
