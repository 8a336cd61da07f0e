//! Builds the Connect Four opening book: a proven winning move for every position the
//! AI can meet as X (the first player, who wins 7×6) in its first plies, after its own
//! book moves and every reply of O; with `--side o`, the best move of every position it
//! can meet as O, after its own book moves and every move of X.
//!
//! ```text
//! nice -n 19 cargo run --release -p inarow-engine --example build-book -- \
//!     --plies N --out engine/data/c4-7x6.book [--side x|o] \
//!     [--checkpoint FILE] [--root MOVES] [--table-mib M] [--hint-nodes K]
//!     [--max-minutes T] [--save-minutes S] [--merge OTHER.book]...
//! ```
//!
//! O's side: O loses 7×6, but from the empty board X's score is +1 (a win with X's last
//! stone), so after X's winning moves O's best keeps the game to the end (score -1), and
//! after X's first error O holds a draw (0) or wins. An O position is classed -1, 0 or 1
//! (won): it is worth at least what its parent's move was proven to keep, and is raised
//! by a null window at the next class while O can do better — unless the X book's entry
//! says X's last move wins, which proves -1 with no search. Then O's move is proven as
//! X's is: at a leaf the solver names a move that keeps the class, above it every X
//! reply's position keeps it too. Drawn and lost positions are recorded with the exact
//! score of their move (`e` lines in the checkpoint), won ones with a floor (`w`).
//!
//! The book is the top of a proof tree: an X position of fewer than N stones gets the
//! move that wins, and every O reply to it (whose X position is also in the book, when
//! it has fewer than N stones) proves the move wins. Deepest first: an X position whose
//! replies fall past the book is a leaf, its win and its move proven by the solver (a
//! null window at 0, far cheaper than the exact score); a position above takes the move
//! a bounded search proves (`--hint-nodes`, else centre first) and is proven by its
//! replies' entries, so no search ever has to solve the opening whole. The score floor
//! of an entry is the lowest of its replies'. One table (`--table-mib`, default 4 GiB)
//! serves every search, so each leaf reuses what its neighbours proved.
//!
//! Resumable: every entry is appended to the checkpoint (default: the output path plus
//! `.progress`) as `w <column digits> <column> <score floor>` and read back on the next
//! run; the book file is rewritten every `--save-minutes` (default 10) and at the end.
//! Raising `--plies` later turns the old leaves into inner nodes and keeps their moves.
//! The output's existing entries and those of every `--merge` book are kept (exact
//! scores win over a proven move), so runs split with `--root` join into one book.
//! Lines of version 1 (`<column digits> <score per column>`, exact scores) are read too.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use inarow_engine::opening::Prover;
use inarow_engine::{Book, Cell, Move, MoveValue, Player, Position, Rules};

/// Whose lines the book proves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The first player, who wins: one winning move per X position.
    X,
    /// The second player: the best move of every O position, against every X move.
    O,
}

struct Options {
    side: Side,
    plies: u8,
    out: PathBuf,
    checkpoint: PathBuf,
    root: String,
    table_bytes: usize,
    hint_nodes: u64,
    max_time: Option<Duration>,
    save_every: Duration,
    /// Other books whose entries join this one (parallel runs, older books).
    merge: Vec<PathBuf>,
}

fn options() -> Result<Options, String> {
    let (mut plies, mut out, mut checkpoint) = (None, None, None);
    let mut root = String::new();
    let mut table_bytes = 4096 << 20;
    let mut hint_nodes = 2_000_000;
    let mut max_time = None;
    let mut save_every = Duration::from_secs(600);
    let mut merge = Vec::new();
    let mut side = Side::X;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--plies" => plies = Some(value()?.parse().map_err(|e| format!("--plies: {e}"))?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--checkpoint" => checkpoint = Some(PathBuf::from(value()?)),
            "--root" => root = value()?,
            "--side" => {
                side = match value()?.as_str() {
                    "x" | "X" => Side::X,
                    "o" | "O" => Side::O,
                    other => return Err(format!("--side: x or o, not {other}")),
                }
            }
            "--merge" => merge.push(PathBuf::from(value()?)),
            "--table-mib" => {
                let mib: usize = value()?.parse().map_err(|e| format!("--table-mib: {e}"))?;
                table_bytes = mib << 20;
            }
            "--hint-nodes" => {
                hint_nodes = value()?.parse().map_err(|e| format!("--hint-nodes: {e}"))?
            }
            "--max-minutes" | "--save-minutes" => {
                let minutes: f64 = value()?.parse().map_err(|e| format!("{arg}: {e}"))?;
                let time = Duration::from_secs_f64(minutes * 60.0);
                if arg == "--max-minutes" {
                    max_time = Some(time);
                } else {
                    save_every = time;
                }
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
        side,
        plies,
        out,
        checkpoint,
        root,
        table_bytes,
        hint_nodes,
        max_time,
        save_every,
        merge,
    })
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

/// Columns from the centre out: the likeliest winning moves first.
const ORDER: [u8; 7] = [3, 2, 4, 1, 5, 0, 6];

/// What the book already says of an X position: its winning move and score floor, or
/// that it is no win.
fn known(book: &Book, position: &Position) -> Option<Option<(u8, i32)>> {
    let (col, s) = book_move(book, position)?;
    Some((s > 0).then_some((col, s)))
}

/// The move the AI plays from `position`'s book entry (`Book::choose`: the best, the
/// most central among equals), and its score (exact, or a win's floor); the
/// generator follows the same move, so the AI's lines are the book's.
fn book_move(book: &Book, position: &Position) -> Option<(u8, i32)> {
    let moves = book.lookup(position)?;
    let mv = Book::choose(position, &moves)?;
    let value = moves.iter().find(|m| m.mv == mv)?.value;
    let s = Book::score_of(value, position.ply() as u32)?;
    let Move::Column(col) = mv else {
        unreachable!("gravity moves are columns")
    };
    Some((col, s))
}

/// What the O side's walk proved of an O position.
#[derive(Clone, Copy, Debug)]
enum OProof {
    /// A move reaches this score: the position's exact score when at most 0 (a draw, or
    /// a loss as late as it can be), a floor when a win.
    Reached(i32),
    /// The position is worth less than this class (what the walk needed of it when
    /// it looked); a later need below it asks again.
    Below(i32),
}

/// O's value class of a score: -1 lost, 0 drawn, 1 won.
fn class(score: i32) -> i32 {
    score.clamp(-1, 1)
}

struct Builder {
    plies: usize,
    prover: Prover,
    hint_nodes: u64,
    book: Book,
    checkpoint: File,
    /// Score floors of the X positions walked in this run, by board (mirror images
    /// apart: the book's lookup joins them).
    walked: HashMap<String, Option<i32>>,
    /// What was proven of the O positions walked in this run, by board.
    walked_o: HashMap<String, OProof>,
    start: Instant,
    max_time: Option<Duration>,
    last_save: Instant,
    save_every: Duration,
    out: PathBuf,
    /// Per ply: leaves proven in this run, their nodes and time.
    leaves: BTreeMap<usize, (u32, u64, Duration)>,
    stopped: bool,
}

impl Builder {
    /// Whether the run's time is up (and so `stopped`); saves the book when a save is
    /// due, so a long run loses little if it is killed.
    fn out_of_time(&mut self) -> std::io::Result<bool> {
        if self.max_time.is_some_and(|t| self.start.elapsed() >= t) {
            self.stopped = true;
        }
        if !self.stopped && self.last_save.elapsed() >= self.save_every {
            self.save()?;
            self.last_save = Instant::now();
        }
        Ok(self.stopped)
    }

    /// Proves that X, to move at `position`, wins, recording the book's entries on the
    /// way; the score floor, or `None` if X does not win (or time ran out: `stopped`).
    fn prove(&mut self, position: &mut Position) -> std::io::Result<Option<i32>> {
        let key = board_key(position);
        if let Some(&done) = self.walked.get(&key) {
            return Ok(done);
        }
        if self.out_of_time()? {
            return Ok(None);
        }
        let n = position.ply();
        let leaf = n + 2 >= self.plies;
        let known = known(&self.book, position);
        let floor = if leaf {
            match known {
                Some(win) => win.map(|(_, lo)| lo),
                None => self.leaf(position, 1)?,
            }
        } else {
            self.inner(position, known.flatten())?
        };
        if !self.stopped {
            self.walked.insert(key, floor);
        }
        Ok(floor)
    }

    /// A leaf whose mover is worth at least `s` (X's win, 1, or an O class): the solver
    /// names a move that reaches it, recorded with its floor when a win, else with `s`,
    /// the position's exact score (the caller proved it is worth no more).
    fn leaf(&mut self, position: &Position, s: i32) -> std::io::Result<Option<i32>> {
        let started = Instant::now();
        let before = self.prover.nodes;
        let deadline = self.max_time.map(|t| self.start + t);
        let Some(found) = self.prover.move_reaching(position, s, u64::MAX, deadline) else {
            self.stopped = true;
            return Ok(None);
        };
        let (took, nodes) = (started.elapsed(), self.prover.nodes - before);
        let stats = self.leaves.entry(position.ply()).or_default();
        stats.0 += 1;
        stats.1 += nodes;
        stats.2 += took;
        let Some((col, lo)) = found else {
            println!(
                "ply {:>2} {:<14} no move keeps {s}",
                position.ply(),
                digits(position)
            );
            return Ok(None);
        };
        let reached = if s <= 0 { s } else { lo };
        self.record(position, col, reached, nodes, took)?;
        Ok(Some(reached))
    }

    /// An inner node: a move whose every reply is proven won.
    fn inner(
        &mut self,
        position: &mut Position,
        known: Option<(u8, i32)>,
    ) -> std::io::Result<Option<i32>> {
        let started = Instant::now();
        let mut candidates: Vec<u8> = Vec::new();
        if let Some((col, _)) = known {
            candidates.push(col);
        } else if self.hint_nodes > 0 {
            // A bounded search proves the move, or at least leaves a likely one in
            // the table (the move that last raised the position's floor).
            match self
                .prover
                .move_reaching(position, 1, self.hint_nodes, None)
            {
                Some(Some((col, _))) => candidates.push(col),
                _ => candidates.extend(self.prover.remembered_move(position)),
            }
        }
        for col in ORDER {
            if !candidates.contains(&col) {
                candidates.push(col);
            }
        }
        for col in candidates {
            let mv = Move::Column(col);
            if position.try_play(mv).is_err() {
                continue;
            }
            let floor = if position.is_over() {
                // A win at once: its score is exact.
                Some((43 - position.ply() as i32) / 2)
            } else {
                self.replies(position)?
            };
            position.undo();
            if self.stopped {
                return Ok(None);
            }
            if let Some(lo) = floor {
                let lo = known.map_or(lo, |(_, k)| k.max(lo));
                let nodes = 0;
                self.record(position, col, lo, nodes, started.elapsed())?;
                return Ok(Some(lo));
            }
        }
        println!("ply {:>2} {:<14} no win", position.ply(), digits(position));
        Ok(None)
    }

    /// The lowest score floor over every O reply at `position` (O to move), `None` if
    /// one of them is not a win for X.
    fn replies(&mut self, position: &mut Position) -> std::io::Result<Option<i32>> {
        self.lowest_over_moves(position, |this, after| this.prove(after))
    }

    /// The lowest of `prove`'s answers over every move at `position`, `None` as soon
    /// as one of them is `None` or a move ends the game.
    fn lowest_over_moves(
        &mut self,
        position: &mut Position,
        mut prove: impl FnMut(&mut Self, &mut Position) -> std::io::Result<Option<i32>>,
    ) -> std::io::Result<Option<i32>> {
        let mut floor = i32::MAX;
        for col in ORDER {
            if position.try_play(Move::Column(col)).is_err() {
                continue;
            }
            let result = if position.is_over() {
                None
            } else {
                prove(self, position)?
            };
            position.undo();
            match result {
                Some(lo) => floor = floor.min(lo),
                None => return Ok(None),
            }
        }
        Ok(Some(floor))
    }

    /// Proves what O, to move at `position`, can reach, given that the position is
    /// worth at least `need` (-1, 0 or 1: the class its parent's move was proven to
    /// keep), recording the book's entries on the way: the score O's move reaches
    /// (exact when at most 0, a floor when a win), or `None` if the position is worth
    /// less than `need` (or time ran out: `stopped`).
    fn prove_o(&mut self, position: &mut Position, need: i32) -> std::io::Result<Option<i32>> {
        let key = board_key(position);
        match self.walked_o.get(&key) {
            Some(&OProof::Reached(s)) => return Ok((class(s) >= need).then_some(s)),
            Some(&OProof::Below(c)) if need >= c => return Ok(None),
            _ => {}
        }
        if self.out_of_time()? {
            return Ok(None);
        }
        let leaf = position.ply() + 2 >= self.plies;
        let result = match book_move(&self.book, position) {
            // An earlier run's entry: its value is proven, and so is its move below
            // its depth; deeper books prove the move again from deeper leaves.
            Some((_, s)) if class(s) < need => None,
            Some((_, s)) if leaf => Some(s),
            Some((col, s)) => self.inner_o(position, class(s), Some(col))?,
            None => match self.classify(position, need) {
                None => None,
                Some(c) if leaf => self.leaf(position, c)?,
                Some(c) => self.inner_o(position, c, None)?,
            },
        };
        if !self.stopped {
            let proof = result.map_or(OProof::Below(need), OProof::Reached);
            self.walked_o.insert(key, proof);
        }
        Ok(result)
    }

    /// The class of an O position worth at least `need`: raised by null windows while
    /// O can do better (after an X error), unless the X book already proves that X's
    /// last move wins. `None` if the X book says the position is worth less than
    /// `need`, or time ran out.
    fn classify(&mut self, position: &mut Position, need: i32) -> Option<i32> {
        if self.x_book_wins_into(position) {
            return (need <= -1).then_some(-1);
        }
        let mut c = need;
        let deadline = self.max_time.map(|t| self.start + t);
        while c < 1 {
            let started = Instant::now();
            let before = self.prover.nodes;
            let Some(bounds) = self.prover.at_least(position, c + 1, u64::MAX, deadline) else {
                self.stopped = true;
                return None;
            };
            let took = started.elapsed();
            if took > Duration::from_secs(1) {
                println!(
                    "ply {:>2} {:<14} worth {} {} ({:.1} s, {} nodes)",
                    position.ply(),
                    digits(position),
                    if bounds.lo > c { ">=" } else { "<" },
                    c + 1,
                    took.as_secs_f64(),
                    self.prover.nodes - before
                );
            }
            if bounds.lo <= c {
                break;
            }
            c += 1;
        }
        Some(c)
    }

    /// Whether X's last move into `position` is the X book's winning move, so O's
    /// position is lost without a search.
    fn x_book_wins_into(&self, position: &mut Position) -> bool {
        let Some(&Move::Column(last)) = position.history().last() else {
            return false;
        };
        position.undo();
        let wins = matches!(known(&self.book, position), Some(Some((col, _))) if col == last);
        position
            .try_play(Move::Column(last))
            .expect("the move was just undone");
        wins
    }

    /// An inner O position worth class `c`: a move whose every X reply keeps it.
    fn inner_o(
        &mut self,
        position: &mut Position,
        c: i32,
        known: Option<u8>,
    ) -> std::io::Result<Option<i32>> {
        let started = Instant::now();
        let mut candidates: Vec<u8> = known.into_iter().collect();
        if known.is_none() && self.hint_nodes > 0 {
            // A bounded search names the move, or refutes the class at once.
            match self
                .prover
                .move_reaching(position, c, self.hint_nodes, None)
            {
                Some(Some((col, _))) => candidates.push(col),
                Some(None) => return Ok(None),
                None => candidates.extend(self.prover.remembered_move(position)),
            }
        }
        for col in ORDER {
            if !candidates.contains(&col) {
                candidates.push(col);
            }
        }
        let n = position.ply() as i32;
        for col in candidates {
            if position.try_play(Move::Column(col)).is_err() {
                continue;
            }
            let floor = if position.is_over() {
                // A win at once: its score is exact.
                Some((43 - n) / 2)
            } else {
                self.x_replies(position, c)?
            };
            position.undo();
            if self.stopped {
                return Ok(None);
            }
            if let Some(lo) = floor {
                let s = if c <= 0 { c } else { lo };
                self.record(position, col, s, 0, started.elapsed())?;
                return Ok(Some(s));
            }
        }
        println!(
            "ply {:>2} {:<14} no move keeps {c}",
            position.ply(),
            digits(position)
        );
        Ok(None)
    }

    /// The lowest score O reaches over every X move at `position` (X to move), each O
    /// position worth at least class `c`; `None` if one of them is worth less (or X
    /// wins at once).
    fn x_replies(&mut self, position: &mut Position, c: i32) -> std::io::Result<Option<i32>> {
        self.lowest_over_moves(position, |this, after| this.prove_o(after, c))
    }

    /// Records `col` as the move of `position` with score `lo`: a win's floor when
    /// positive, else the exact score of the position (a draw or a loss).
    fn record(
        &mut self,
        position: &Position,
        col: u8,
        lo: i32,
        nodes: u64,
        took: Duration,
    ) -> std::io::Result<()> {
        let moves = match digits(position) {
            d if d.is_empty() => "-".to_string(),
            d => d,
        };
        // An entry an earlier run proved the same is not written twice, nor one the book
        // keeps exact anyway: the checkpoint grows only by what is new.
        let new = self.book.is_exact(position) != Some(true)
            && book_move(&self.book, position) != Some((col, lo));
        let (kind, says) = if lo > 0 {
            self.book.insert_win(position, col, lo);
            ('w', format!("wins with {} (score >= {lo:>2})", col + 1))
        } else {
            self.book.insert_best(position, col, lo);
            let what = if lo == 0 { "draws" } else { "loses" };
            ('e', format!("{what} with {} (score  = {lo:>2})", col + 1))
        };
        if new {
            writeln!(self.checkpoint, "{kind} {moves} {} {lo}", col + 1)?;
            self.checkpoint.flush()?;
        }
        println!(
            "[{:>7} in book {:>6.0} s] ply {:>2} {:<14} {says} {:>8.3} s {:>12} nodes",
            self.book.len(),
            self.start.elapsed().as_secs_f64(),
            position.ply(),
            digits(position),
            took.as_secs_f64(),
            nodes
        );
        Ok(())
    }

    fn save(&self) -> std::io::Result<()> {
        write_book(&self.book, &self.out)?;
        println!(
            "saved {} positions to {} after {:.0} s",
            self.book.len(),
            self.out.display(),
            self.start.elapsed().as_secs_f64()
        );
        Ok(())
    }
}

/// Writes `book` to `path` through a temporary file, so a reader never sees half.
fn write_book(book: &Book, path: &Path) -> std::io::Result<()> {
    let mut temporary = path.to_path_buf().into_os_string();
    temporary.push(".tmp");
    std::fs::write(&temporary, book.to_bytes())?;
    std::fs::rename(&temporary, path)
}

/// Reads the checkpoint's lines into `book`.
fn resume(path: &Path, book: &mut Book) -> Result<usize, String> {
    let Ok(file) = File::open(path) else {
        return Ok(0);
    };
    let mut count = 0;
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = |what: &str| format!("{}:{}: {what}: {line}", path.display(), number + 1);
        let parts: Vec<&str> = line.split_whitespace().collect();
        let kind = parts.first().copied();
        if kind == Some("w") || kind == Some("e") {
            // A win, `w <moves> <column> <floor>`, or the best move of a drawn or lost
            // position and its exact score, `e <moves> <column> <score>`; the empty
            // board's moves are "-".
            let [_, moves, col, lo] = parts[..] else {
                eprintln!("{}", bad("incomplete line, ignored"));
                continue;
            };
            let moves = if moves == "-" { "" } else { moves };
            let position = Position::from_column_digits(Rules::connect4(), moves)
                .map_err(|e| bad(&e.to_string()))?;
            let col: u8 = col.parse().map_err(|_| bad("bad column"))?;
            let lo: i32 = lo.parse().map_err(|_| bad("bad score"))?;
            let scores = if kind == Some("w") { 1..=22 } else { -22..=0 };
            if !(1..=7).contains(&col) || !scores.contains(&lo) {
                return Err(bad("column or score out of range"));
            }
            if position.is_over() || !position.legal_moves().contains(&Move::Column(col - 1)) {
                return Err(bad("no such move"));
            }
            if lo > 0 {
                book.insert_win(&position, col - 1, lo);
            } else {
                book.insert_best(&position, col - 1, lo);
            }
            count += 1;
            continue;
        }
        // Version 1: `<moves> <score per column>`, the empty board's line has no moves.
        let (moves, scores) = if parts.len() == 7 {
            ("", &parts[..])
        } else if parts.len() == 8 {
            (parts[0], &parts[1..])
        } else {
            eprintln!("{}", bad("incomplete line, ignored"));
            continue;
        };
        let position = Position::from_column_digits(Rules::connect4(), moves)
            .map_err(|e| bad(&e.to_string()))?;
        let n = position.ply() as u32;
        let mut values = Vec::new();
        for (col, text) in scores.iter().enumerate() {
            if *text == "x" {
                continue;
            }
            let s: i32 = text.parse().map_err(|_| bad("bad score"))?;
            values.push(MoveValue {
                mv: Move::Column(col as u8),
                value: Book::value_of(s, n),
            });
        }
        if values.len() != position.legal_moves().len() {
            return Err(bad("a score for every open column"));
        }
        book.insert(&position, &values);
        count += 1;
    }
    Ok(count)
}

fn run(options: Options) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let mut book = Book::new(options.plies);
    // The committed book's entries stay (the sample of exact ones among them, deeper
    // than the proof may reach, so its depth stays too).
    let existing = std::fs::exists(&options.out).unwrap_or(false);
    for path in existing
        .then_some(&options.out)
        .into_iter()
        .chain(&options.merge)
    {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let old = Book::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut joined = Book::new(book.plies().max(old.plies()) as u8);
        joined.merge(&book);
        joined.merge(&old);
        book = joined;
    }
    let resumed = resume(&options.checkpoint, &mut book)?;
    println!(
        "{} entries from {} ({} in all); {}'s proof below {} plies from {:?}",
        resumed,
        options.checkpoint.display(),
        book.len(),
        if options.side == Side::X { 'X' } else { 'O' },
        options.plies,
        options.root
    );
    let checkpoint = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options.checkpoint)
        .map_err(|e| format!("{}: {e}", options.checkpoint.display()))?;
    let mut builder = Builder {
        plies: options.plies.into(),
        prover: Prover::new(options.table_bytes),
        hint_nodes: options.hint_nodes,
        book,
        checkpoint,
        walked: HashMap::new(),
        walked_o: HashMap::new(),
        start: Instant::now(),
        max_time: options.max_time,
        last_save: Instant::now(),
        save_every: options.save_every,
        out: options.out.clone(),
        leaves: BTreeMap::new(),
        stopped: false,
    };
    let mut position = Position::from_column_digits(Rules::connect4(), &options.root)
        .map_err(|e| format!("--root {}: {e}", options.root))?;
    match options.side {
        Side::X => {
            let floor = if position.ply() % 2 == 0 {
                builder.prove(&mut position).map_err(io)?
            } else {
                builder.replies(&mut position).map_err(io)?
            };
            if !builder.stopped {
                println!("X wins from {:?}: score at least {floor:?}", options.root);
            }
        }
        Side::O if position.ply() % 2 == 1 => {
            let s = builder.prove_o(&mut position, -1).map_err(io)?;
            if !builder.stopped {
                println!("O at {:?} reaches {s:?}", options.root);
            }
        }
        Side::O => {
            // Every X move, each O position classed on its own: the empty board's
            // score, +1 for X, is what lets O start from -1 (X's score is at most 1).
            for col in ORDER {
                if position.try_play(Move::Column(col)).is_err() {
                    continue;
                }
                if !position.is_over() {
                    let s = builder.prove_o(&mut position, -1).map_err(io)?;
                    if !builder.stopped {
                        println!("O after {} reaches {s:?}", digits(&position));
                    }
                }
                position.undo();
            }
        }
    }
    if builder.stopped {
        println!("time is up: writing the positions proven so far");
    }
    println!("ply  leaves this run  mean nodes  mean time");
    for (ply, (count, nodes, time)) in &builder.leaves {
        println!(
            "{ply:>3}  {count:>14}  {:>10}  {:>8.3} s",
            nodes / u64::from(*count),
            time.as_secs_f64() / f64::from(*count)
        );
    }
    builder.save().map_err(io)?;
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
