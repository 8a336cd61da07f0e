//! The Connect Four opening book: for the 7×6 positions an AI can meet in its first
//! plies, as X or as O, a proven move (a win with a floor on its score, the exact score
//! of a drawn or lost position's best move, or every move's exact score), so it plays
//! them at once and still reports proven values. Built by `examples/build-book.rs`,
//! embedded from `data/c4-7x6.book`.
//!
//! File format (little-endian):
//!
//! ```text
//! magic    8 bytes  "C4BOOK\0\x02" (version 1, "C4BOOK\0\x01", had exact scores only)
//! width    u8       7
//! height   u8       6
//! plies    u8       positions with fewer stones than this may be in the book
//! reserved u8       0
//! count    u32      number of entries
//! entries  count × (key u64, width × i8)   sorted by key, no key twice
//! checksum u64      FNV-1a of every byte before it
//! ```
//!
//! A key is the solver's position key (mover's stones plus all stones), the smaller of
//! the position's and its mirror image's: mirror images are stored once, with the
//! scores in the orientation of the smaller key. A column's byte is one of:
//!
//! - `-22..=22`: the exact score, Pons' for the player to move after playing that
//!   column (`+s` wins leaving `2s - 2` or `2s - 1` cells empty, `-s` loses likewise,
//!   0 draws); beside unsearched columns, the best move's, so the position's too (O's
//!   entries for drawn and lost positions);
//! - `64 + s` (`s >= 1`): a proven win whose score is at least `s` — the book's move
//!   where only the win was proven, far cheaper than the exact score;
//! - `i8::MAX`: not searched (the entry's proven move is its best);
//! - `i8::MIN`: a full column.
use std::fmt;
use std::sync::OnceLock;

use crate::ai::solver::grid::{Grid, Standard};
use crate::ai::solver::{score_of, value_of};
use crate::ai::{MoveValue, Value};
use crate::position::Position;
use crate::rules::{Move, Rules};

const MAGIC: [u8; 8] = *b"C4BOOK\0\x02";
/// Version 1: exact scores only, read as they are.
const MAGIC_V1: [u8; 8] = *b"C4BOOK\0\x01";
const HEADER_BYTES: usize = 16;
const WIDTH: usize = 7;
const ENTRY_BYTES: usize = 8 + WIDTH;
const CHECKSUM_BYTES: usize = 8;
/// Marks a full column.
const FULL: i8 = i8::MIN;
/// Marks a move not searched: the entry's proven move is its best.
const UNKNOWN: i8 = i8::MAX;
/// `AT_LEAST + s` marks a win of score at least `s`.
const AT_LEAST: i8 = 64;

/// The book compiled into the engine.
static EMBEDDED: &[u8] = include_bytes!("../data/c4-7x6.book");

/// Why bytes are not a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    /// Shorter than its header and checksum, or than its entries need.
    Truncated {
        /// Bytes given.
        len: usize,
    },
    /// Not a book of this format version.
    BadMagic,
    /// A board other than 7×6.
    WrongBoard {
        /// Width in the header.
        width: u8,
        /// Height in the header.
        height: u8,
    },
    /// The checksum does not match: the file is damaged.
    BadChecksum,
    /// Entries out of order or repeated: the file was not written by this engine.
    Unsorted {
        /// Index of the first entry out of order.
        index: usize,
    },
    /// A column's byte is no score, bound or mark of the format.
    BadScore {
        /// Index of the entry.
        index: usize,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Truncated { len } => write!(f, "opening book truncated ({len} bytes)"),
            BookError::BadMagic => f.write_str("not an opening book of this version"),
            BookError::WrongBoard { width, height } => {
                write!(f, "opening book for {width}x{height}, not 7x6")
            }
            BookError::BadChecksum => f.write_str("opening book damaged (checksum mismatch)"),
            BookError::Unsorted { index } => {
                write!(f, "opening book entries out of order at entry {index}")
            }
            BookError::BadScore { index } => {
                write!(f, "opening book entry {index} holds an invalid score")
            }
        }
    }
}

impl std::error::Error for BookError {}

/// Exact move values of Connect Four (7×6) positions, mirror images stored once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Book {
    plies: u8,
    /// Sorted by key.
    entries: Vec<(u64, [i8; WIDTH])>,
}

impl Book {
    /// An empty book for positions of fewer than `plies` stones.
    pub fn new(plies: u8) -> Book {
        Book {
            plies,
            entries: Vec::new(),
        }
    }

    /// The book compiled into the engine, read once.
    ///
    /// # Errors
    /// [`BookError`] if the embedded file is damaged; the AI then searches instead.
    pub fn embedded() -> Result<&'static Book, BookError> {
        static BOOK: OnceLock<Result<Book, BookError>> = OnceLock::new();
        BOOK.get_or_init(|| Book::from_bytes(EMBEDDED))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Reads a book.
    ///
    /// # Errors
    /// [`BookError`] naming what is wrong with the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let truncated = BookError::Truncated { len: bytes.len() };
        if bytes.len() < HEADER_BYTES + CHECKSUM_BYTES {
            return Err(truncated);
        }
        if bytes[..8] != MAGIC && bytes[..8] != MAGIC_V1 {
            return Err(BookError::BadMagic);
        }
        let (width, height, plies) = (bytes[8], bytes[9], bytes[10]);
        if (usize::from(width), height) != (WIDTH, 6) {
            return Err(BookError::WrongBoard { width, height });
        }
        let count = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
        let end = count
            .checked_mul(ENTRY_BYTES)
            .and_then(|n| n.checked_add(HEADER_BYTES))
            .ok_or(truncated.clone())?;
        if bytes.len() != end + CHECKSUM_BYTES {
            return Err(truncated);
        }
        let stored = u64::from_le_bytes(bytes[end..].try_into().expect("8 bytes"));
        if fnv1a(&bytes[..end]) != stored {
            return Err(BookError::BadChecksum);
        }
        let mut entries = Vec::with_capacity(count);
        for (index, raw) in bytes[HEADER_BYTES..end]
            .chunks_exact(ENTRY_BYTES)
            .enumerate()
        {
            let key = u64::from_le_bytes(raw[..8].try_into().expect("8 bytes"));
            let scores: [i8; WIDTH] = std::array::from_fn(|i| raw[8 + i] as i8);
            if scores.iter().any(|&s| decode(s).is_none()) {
                return Err(BookError::BadScore { index });
            }
            if entries.last().is_some_and(|&(last, _)| last >= key) {
                return Err(BookError::Unsorted { index });
            }
            entries.push((key, scores));
        }
        Ok(Book { plies, entries })
    }

    /// The book as bytes in the file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes =
            Vec::with_capacity(HEADER_BYTES + self.entries.len() * ENTRY_BYTES + CHECKSUM_BYTES);
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&[WIDTH as u8, 6, self.plies, 0]);
        bytes.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for (key, scores) in &self.entries {
            bytes.extend_from_slice(&key.to_le_bytes());
            bytes.extend(scores.iter().map(|&s| s as u8));
        }
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Positions with fewer stones than this may be in the book.
    pub fn plies(&self) -> u32 {
        self.plies.into()
    }

    /// Number of positions (mirror pairs counted once).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records the exact value of every legal move of `position` (Connect Four, in
    /// progress); a later insert of the same position or its mirror image replaces it.
    ///
    /// # Panics
    /// If the rules are not Connect Four's, or `moves` lacks a legal move or holds an
    /// unproven value.
    pub fn insert(&mut self, position: &Position, moves: &[MoveValue]) {
        assert_eq!(
            position.rules(),
            Rules::connect4(),
            "a 7x6 Connect Four book"
        );
        let n = position.ply() as u32;
        let mut scores = [FULL; WIDTH];
        for mv in position.legal_moves() {
            let Move::Column(col) = mv else {
                unreachable!("gravity moves are columns")
            };
            let value = moves
                .iter()
                .find(|m| m.mv == mv)
                .unwrap_or_else(|| panic!("no value for {mv}"))
                .value;
            let score = score_of(value, 42, n).unwrap_or_else(|| panic!("{mv}: {value:?}"));
            scores[usize::from(col)] = score as i8;
        }
        let (key, mirrored) = canonical(position);
        if mirrored {
            scores.reverse();
        }
        match self.entries.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(at) => self.entries[at].1 = scores,
            Err(at) => self.entries.insert(at, (key, scores)),
        }
    }

    /// Records a proven win of `position` (Connect Four, in progress) for its mover by
    /// dropping in `col`, with a score of at least `lo` (at least 1); the other moves
    /// are left unsearched. An entry of exact scores for the same position is kept: it
    /// says more.
    ///
    /// # Panics
    /// If the rules are not Connect Four's, `col` is full, or `lo` is not a win.
    pub fn insert_win(&mut self, position: &Position, col: u8, lo: i32) {
        assert!((1..=22).contains(&lo), "a win's score, not {lo}");
        self.insert_move(position, col, AT_LEAST + lo as i8);
    }

    /// Records that dropping in `col` is the best move of `position` (Connect Four, in
    /// progress) and that its score, so the position's, is exactly `score` (a draw or a
    /// loss: a win's exact length is rarely worth its price, see
    /// [`Book::insert_win`]); the other moves are left unsearched. An entry of exact
    /// scores for the same position is kept.
    ///
    /// # Panics
    /// If the rules are not Connect Four's, `col` is full, or `score` is no score.
    pub fn insert_best(&mut self, position: &Position, col: u8, score: i32) {
        assert!((-22..=22).contains(&score), "a score, not {score}");
        self.insert_move(position, col, score as i8);
    }

    /// An entry for `position` where `col` holds `byte` and every other open column is
    /// unsearched.
    fn insert_move(&mut self, position: &Position, col: u8, byte: i8) {
        assert_eq!(
            position.rules(),
            Rules::connect4(),
            "a 7x6 Connect Four book"
        );
        let mut scores = [FULL; WIDTH];
        for mv in position.legal_moves() {
            let Move::Column(c) = mv else {
                unreachable!("gravity moves are columns")
            };
            scores[usize::from(c)] = UNKNOWN;
        }
        assert_eq!(scores[usize::from(col)], UNKNOWN, "column {col} is full");
        scores[usize::from(col)] = byte;
        let (key, mirrored) = canonical(position);
        if mirrored {
            scores.reverse();
        }
        match self.entries.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(at) => {
                if !exact(&self.entries[at].1) {
                    self.entries[at].1 = scores;
                }
            }
            Err(at) => self.entries.insert(at, (key, scores)),
        }
    }

    /// Adds `other`'s entries that this book lacks, and those where `other` has every
    /// move exact and this book only a proven move.
    pub fn merge(&mut self, other: &Book) {
        for &(key, scores) in &other.entries {
            match self.entries.binary_search_by_key(&key, |&(k, _)| k) {
                Ok(at) => {
                    if exact(&scores) && !exact(&self.entries[at].1) {
                        self.entries[at].1 = scores;
                    }
                }
                Err(at) => self.entries.insert(at, (key, scores)),
            }
        }
    }

    /// The exact value of every legal move of `position`, if it is in the book, in
    /// column order.
    pub fn lookup(&self, position: &Position) -> Option<Vec<MoveValue>> {
        if position.rules() != Rules::connect4()
            || position.ply() >= usize::from(self.plies)
            || position.is_over()
        {
            return None;
        }
        let (key, mirrored) = canonical(position);
        let at = self.entries.binary_search_by_key(&key, |&(k, _)| k).ok()?;
        let mut scores = self.entries[at].1;
        if mirrored {
            scores.reverse();
        }
        let n = position.ply() as u32;
        Some(
            scores
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s != FULL)
                .map(|(col, &s)| MoveValue {
                    mv: Move::Column(col as u8),
                    value: match decode(s) {
                        Some(Known::Exact(score) | Known::AtLeast(score)) => {
                            // A win of score at least `s` comes at the latest when a
                            // win of exactly `s` would: `Win` of that many plies is
                            // the bound `Value::Win` allows.
                            value_of(score, 42, n)
                        }
                        _ => Value::Estimate(0),
                    },
                })
                .collect(),
        )
    }

    /// Whether `position` has an entry whose every move is exact (version 1's kind),
    /// rather than only a proven move.
    pub fn is_exact(&self, position: &Position) -> Option<bool> {
        if position.rules() != Rules::connect4() || position.ply() >= usize::from(self.plies) {
            return None;
        }
        let (key, _) = canonical(position);
        let at = self.entries.binary_search_by_key(&key, |&(k, _)| k).ok()?;
        Some(
            self.entries[at]
                .1
                .iter()
                .all(|&s| matches!(decode(s), Some(Known::Exact(_) | Known::Full))),
        )
    }

    /// Pons' score of `value` for the player to move at a 7×6 position of `ply`
    /// stones: `+(22 - k)` for a win with the mover's k-th stone, `-(22 - k)` for a
    /// loss to the opponent's k-th, 0 for a draw; `None` for an estimate. The scores
    /// of the book file, and of Pons' test data.
    pub fn score_of(value: Value, ply: u32) -> Option<i32> {
        score_of(value, 42, ply)
    }

    /// The [`Value`] of a Pons score (see [`Book::score_of`]) at a position of `ply`
    /// stones.
    pub fn value_of(score: i32, ply: u32) -> Value {
        value_of(score, 42, ply)
    }

    /// The move the AI plays from a book position with these exact `moves`: the
    /// best, the most central among equals. The generator follows the same rule, so
    /// the positions after it (and every reply) are in the book too.
    pub fn choose(position: &Position, moves: &[MoveValue]) -> Option<Move> {
        book_move(position, moves)
    }

    /// Every entry as a position key and its scores, for checks against the solver.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> &[(u64, [i8; WIDTH])] {
        &self.entries
    }
}

/// Whether an entry holds every move's exact score (version 1's kind of entry).
fn exact(scores: &[i8; WIDTH]) -> bool {
    scores.iter().all(|&v| v == FULL || v.abs() <= 22)
}

/// What a column's byte says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    Exact(i32),
    AtLeast(i32),
    Unknown,
    Full,
}

/// A column's byte read, `None` if no byte of the format.
fn decode(s: i8) -> Option<Known> {
    match s {
        FULL => Some(Known::Full),
        UNKNOWN => Some(Known::Unknown),
        -22..=22 => Some(Known::Exact(s.into())),
        _ if (AT_LEAST + 1..=AT_LEAST + 22).contains(&s) => {
            Some(Known::AtLeast(i32::from(s - AT_LEAST)))
        }
        _ => None,
    }
}

/// The book key of a Connect Four position and whether it is its mirror image's.
fn canonical(position: &Position) -> (u64, bool) {
    let grid = Grid::of(Standard, position);
    let (key, mirror) = (grid.key(), grid.mirror_key(Standard));
    if mirror < key {
        (mirror, true)
    } else {
        (key, false)
    }
}

/// FNV-1a, 64 bits: enough to tell a damaged file, and a few lines long.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The best move of a book entry the AI plays from: the highest score, the most
/// central column among equals (the book's own line, so the next positions are in it),
/// and between a column and its mirror image the one to the right in the position's
/// stored orientation, so that a position and its mirror image make the same choice
/// (the generator meets each in whichever orientation it reaches first).
/// `moves` are those of `position`.
pub(crate) fn book_move(position: &Position, moves: &[MoveValue]) -> Option<Move> {
    let n = position.ply() as u32;
    let mirrored = position.rules() == Rules::connect4() && canonical(position).1;
    let rank = |mv: &Move, value: Value| match *mv {
        Move::Column(c) => {
            let stored = if mirrored {
                6 - i32::from(c)
            } else {
                i32::from(c)
            };
            let score = score_of(value, 42, n).unwrap_or(i32::MIN);
            (score, -(i32::from(c) - 3).abs(), stored)
        }
        Move::Cell(_) => (i32::MIN, i32::MIN, i32::MIN),
    };
    moves
        .iter()
        .max_by_key(|m| rank(&m.mv, m.value))
        .map(|m| m.mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::solver::table::{PartialTable, prime_at_most};
    use crate::ai::solver::{Bounds, Solver, Task};

    fn position(moves: &str) -> Position {
        Position::from_column_digits(Rules::connect4(), moves).expect("legal")
    }

    fn values(scores: &[(u8, Value)]) -> Vec<MoveValue> {
        scores
            .iter()
            .map(|&(col, value)| MoveValue {
                mv: Move::Column(col),
                value,
            })
            .collect()
    }

    #[test]
    fn round_trip_and_mirror() {
        let mut book = Book::new(8);
        let p = position("4453");
        let moves = values(&[
            (0, Value::Loss(10)),
            (1, Value::Draw),
            (2, Value::Win(21)),
            (3, Value::Draw),
            (4, Value::Loss(4)),
            (5, Value::Draw),
            (6, Value::Win(7)),
        ]);
        book.insert(&p, &moves);
        let bytes = book.to_bytes();
        assert_eq!(bytes.len(), HEADER_BYTES + ENTRY_BYTES + CHECKSUM_BYTES);
        let read = Book::from_bytes(&bytes).expect("valid");
        assert_eq!(read, book);
        assert_eq!(read.lookup(&p), Some(moves.clone()));
        // The mirror image reads the same values, columns reversed.
        let mirrored = read.lookup(&position("4435")).expect("mirror stored once");
        for m in &mirrored {
            let Move::Column(c) = m.mv else { panic!() };
            let original = moves.iter().find(|o| o.mv == Move::Column(6 - c));
            assert_eq!(Some(m.value), original.map(|o| o.value));
        }
        assert_eq!(read.lookup(&position("4454")), None);
        // Too many stones for this book.
        let mut deep = Book::new(2);
        deep.insert(&p, &moves);
        assert_eq!(deep.lookup(&p), None);
    }

    #[test]
    fn proven_wins_round_trip_and_mirror() {
        let mut book = Book::new(8);
        let p = position("4453");
        book.insert_win(&p, 2, 3);
        let read = Book::from_bytes(&book.to_bytes()).expect("valid");
        assert_eq!(read, book);
        assert_eq!(read.is_exact(&p), Some(false));
        let moves = read.lookup(&p).expect("in the book");
        assert_eq!(moves.len(), 7);
        let win = Book::value_of(3, 4);
        assert!(matches!(win, Value::Win(_)));
        for m in &moves {
            let expected = if m.mv == Move::Column(2) {
                win
            } else {
                Value::Estimate(0)
            };
            assert_eq!(m.value, expected, "{}", m.mv);
        }
        assert_eq!(book_move(&p, &moves), Some(Move::Column(2)));
        let mirrored = read.lookup(&position("4435")).expect("mirror stored once");
        assert_eq!(
            book_move(&position("4435"), &mirrored),
            Some(Move::Column(4))
        );
        // Exact scores are kept over a proven move, and win when merged.
        let exact = values(&(0..7).map(|c| (c, Value::Draw)).collect::<Vec<_>>());
        let mut other = Book::new(8);
        other.insert(&p, &exact);
        book.merge(&other);
        assert_eq!(book.lookup(&p), Some(exact.clone()));
        book.insert_win(&p, 2, 3);
        assert_eq!(book.lookup(&p), Some(exact));
        // Version 1 files (exact scores only) still read.
        let mut v1 = other.to_bytes();
        v1[..8].copy_from_slice(&MAGIC_V1);
        let end = v1.len() - CHECKSUM_BYTES;
        let checksum = fnv1a(&v1[..end]).to_le_bytes();
        v1[end..].copy_from_slice(&checksum);
        assert_eq!(Book::from_bytes(&v1), Ok(other));
    }

    #[test]
    fn damage_is_an_error() {
        let mut book = Book::new(4);
        book.insert(
            &position(""),
            &values(&(0..7).map(|c| (c, Value::Draw)).collect::<Vec<_>>()),
        );
        let bytes = book.to_bytes();
        assert_eq!(
            Book::from_bytes(&bytes[..10]),
            Err(BookError::Truncated { len: 10 })
        );
        let mut bad = bytes.clone();
        bad[HEADER_BYTES + 9] ^= 1;
        assert_eq!(Book::from_bytes(&bad), Err(BookError::BadChecksum));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(Book::from_bytes(&bad), Err(BookError::BadMagic));
        let mut bad = bytes.clone();
        bad[HEADER_BYTES + 8] = 30;
        let end = bad.len() - CHECKSUM_BYTES;
        let checksum = fnv1a(&bad[..end]).to_le_bytes();
        bad[end..].copy_from_slice(&checksum);
        assert_eq!(
            Book::from_bytes(&bad),
            Err(BookError::BadScore { index: 0 })
        );
        let mut bad = bytes;
        bad.pop();
        assert!(matches!(
            Book::from_bytes(&bad),
            Err(BookError::Truncated { .. })
        ));
    }

    #[test]
    fn book_move_prefers_the_centre_among_equals() {
        let moves = values(&[
            (1, Value::Win(9)),
            (3, Value::Draw),
            (4, Value::Win(9)),
            (5, Value::Win(9)),
        ]);
        let p = position("4444441256");
        assert_eq!(book_move(&p, &moves), Some(Move::Column(4)));
        // A column and its mirror image tie: the same choice from either orientation.
        let tie = |p: &Position| {
            let moves = values(&[(1, Value::Win(9)), (3, Value::Draw), (5, Value::Win(9))]);
            book_move(p, &moves).expect("a move")
        };
        let (a, b) = (position("4444441256"), position("4444447632"));
        let mirror = |mv: Move| match mv {
            Move::Column(c) => Move::Column(6 - c),
            Move::Cell(_) => unreachable!("columns"),
        };
        assert_eq!(tie(&a), mirror(tie(&b)));
    }

    /// Every proven move of `entries` proven again by the solver with at most
    /// `node_limit` nodes per entry; the number of entries checked (those within it).
    fn check_against_solver(
        book: &Book,
        entries: &[&(u64, [i8; WIDTH])],
        node_limit: u64,
    ) -> usize {
        let mut table = PartialTable::<u32>::new(prime_at_most(1 << 22));
        let mut checked = 0;
        'entry: for &&(key, scores) in entries {
            let grid = Grid::from_key(Standard, key);
            let n = grid.moves as i32;
            assert!(grid.moves < book.plies(), "{key:#x}");
            let mut solver = Solver::new(Standard, &mut table, node_limit, None, None);
            if scores
                .iter()
                .all(|&s| matches!(decode(s), Some(Known::Exact(_) | Known::Full)))
            {
                let solved = solver.analyze(&grid, Task::EveryMove);
                if solver.stopped {
                    continue;
                }
                for (col, (bounds, &score)) in solved.iter().zip(&scores).enumerate() {
                    match bounds {
                        None => assert_eq!(score, FULL, "{key:#x} column {col}"),
                        Some(b) => assert_eq!(*b, Bounds::exact(score.into()), "{key:#x} {col}"),
                    }
                }
                checked += 1;
                continue;
            }
            let mut proven = 0;
            for (col, &byte) in scores.iter().enumerate() {
                let col32 = col as u32;
                match decode(byte).expect("read") {
                    Known::Full => assert!(!grid.can_play(Standard, col32), "{key:#x} {col}"),
                    Known::Unknown => assert!(grid.can_play(Standard, col32), "{key:#x} {col}"),
                    Known::Exact(score) => {
                        // The best move's exact score: the move reaches it, and the
                        // position is worth no more.
                        proven += 1;
                        let child = grid.after_column(Standard, col32);
                        let reply = solver.at_least(&child, 1 - score);
                        let whole = solver.at_least(&grid, score + 1);
                        if solver.stopped {
                            continue 'entry;
                        }
                        assert!(reply.hi < 1 - score, "{key:#x} column {col}: {reply:?}");
                        assert!(whole.hi <= score, "{key:#x}: worth more, {whole:?}");
                    }
                    Known::AtLeast(lo) => {
                        proven += 1;
                        if grid.wins_with(Standard, col32) {
                            assert!((43 - n) / 2 >= lo, "{key:#x} {col}");
                            continue;
                        }
                        let child = grid.after_column(Standard, col32);
                        // The opponent's score after it is below `1 - lo`.
                        let reply = solver.at_least(&child, 1 - lo);
                        if solver.stopped {
                            continue 'entry;
                        }
                        assert!(reply.hi < 1 - lo, "{key:#x} column {col}: {reply:?}");
                    }
                }
            }
            assert_eq!(proven, 1, "{key:#x}: one proven move");
            checked += 1;
        }
        checked
    }

    /// A spread sample of the embedded book's deeper entries (quick to prove again):
    /// three of each of its nine deepest plies, each checked within 20 million nodes.
    #[test]
    fn embedded_entries_match_the_solver() {
        let book = Book::embedded().expect("the embedded book reads");
        let plies = |&&(key, _): &&(u64, [i8; WIDTH])| Grid::from_key(Standard, key).moves;
        let deepest = book
            .entries()
            .iter()
            .map(|e| plies(&e))
            .max()
            .expect("entries");
        let mut sample = Vec::new();
        for ply in deepest.saturating_sub(8)..=deepest {
            let at: Vec<_> = book.entries().iter().filter(|e| plies(e) == ply).collect();
            let step = (at.len() / 3).max(1);
            sample.extend(at.into_iter().step_by(step).take(3));
        }
        let checked = check_against_solver(book, &sample, 20_000_000);
        eprintln!("{checked} of {} sampled entries proven again", sample.len());
        assert!(checked * 2 >= sample.len(), "{checked} of {}", sample.len());
    }

    /// O's entries hold exact scores beside unsearched moves (drawn and lost positions)
    /// as well as wins: a sample of each kind at O's deepest book ply, proven again.
    #[test]
    fn embedded_o_entries_match_the_solver() {
        let book = Book::embedded().expect("the embedded book reads");
        let plies = |key: u64| Grid::from_key(Standard, key).moves;
        // O's proven-move entries (not the old exact sample): odd plies, some unsearched.
        let o_entries: Vec<_> = book
            .entries()
            .iter()
            .filter(|&&(key, scores)| plies(key) % 2 == 1 && scores.contains(&UNKNOWN))
            .collect();
        let deepest = o_entries
            .iter()
            .map(|&&(key, _)| plies(key))
            .max()
            .expect("O entries");
        let at: Vec<_> = o_entries
            .into_iter()
            .filter(|&&(key, _)| plies(key) == deepest)
            .collect();
        let kind = |scores: &[i8; WIDTH], score: i32| scores.iter().any(|&s| i32::from(s) == score);
        let mut sample = Vec::new();
        for score in [-1, 0] {
            let of: Vec<_> = at.iter().filter(|e| kind(&e.1, score)).collect();
            let step = (of.len() / 3).max(1);
            sample.extend(of.into_iter().step_by(step).take(3).copied());
        }
        let wins: Vec<_> = at
            .iter()
            .filter(|e| e.1.iter().any(|&s| s > 22 && s != UNKNOWN))
            .collect();
        sample.extend(wins.into_iter().step_by(97).take(3).copied());
        let checked = check_against_solver(book, &sample, 50_000_000);
        eprintln!(
            "{checked} of {} O entries at ply {deepest} proven again",
            sample.len()
        );
        assert!(sample.len() >= 6, "{} entries", sample.len());
        assert!(checked * 2 >= sample.len(), "{checked} of {}", sample.len());
    }

    #[test]
    #[ignore = "every entry of 12 stones or more (minutes): cargo test -p inarow-engine --release --lib book -- --ignored"]
    fn every_deep_embedded_entry_matches_the_solver() {
        let book = Book::embedded().expect("the embedded book reads");
        let deep: Vec<_> = book
            .entries()
            .iter()
            .filter(|&&(key, _)| Grid::from_key(Standard, key).moves >= 12)
            .collect();
        assert_eq!(check_against_solver(book, &deep, u64::MAX), deep.len());
    }
}
