//! The Connect Four opening book: the exact score of every move of the 7×6 positions
//! an AI can meet in its first plies, so it plays them at once and still reports exact
//! values. Built by `examples/build-book.rs`, embedded from `data/c4-7x6.book`.
//!
//! File format (little-endian):
//!
//! ```text
//! magic    8 bytes  "C4BOOK\0\x01"
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
//! scores in the orientation of the smaller key. A score is Pons' for the player to
//! move after playing that column (`+s` wins leaving `2s - 2` or `2s - 1` cells empty,
//! `-s` loses likewise, 0 draws); `i8::MIN` marks a full column.

use std::fmt;
use std::sync::OnceLock;

use crate::ai::solver::grid::{Grid, Standard};
use crate::ai::solver::{score_of, value_of};
use crate::ai::{MoveValue, Value};
use crate::position::Position;
use crate::rules::{Move, Rules};

const MAGIC: [u8; 8] = *b"C4BOOK\0\x01";
const HEADER_BYTES: usize = 16;
const WIDTH: usize = 7;
const ENTRY_BYTES: usize = 8 + WIDTH;
const CHECKSUM_BYTES: usize = 8;
/// Marks a full column.
const FULL: i8 = i8::MIN;

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
        if bytes[..8] != MAGIC {
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
                    value: value_of(s.into(), 42, n),
                })
                .collect(),
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
        book_move(moves, position.ply() as u32)
    }

    /// Every entry as a position key and its scores, for checks against the solver.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> &[(u64, [i8; WIDTH])] {
        &self.entries
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
/// central column among equals (the book's own line, so the next positions are in it).
/// `moves` are those of a position of `n` stones.
pub(crate) fn book_move(moves: &[MoveValue], n: u32) -> Option<Move> {
    let centre = |mv: &Move| match mv {
        Move::Column(c) => (i32::from(*c) - 3).abs(),
        Move::Cell(_) => i32::MAX,
    };
    let rank = |value: Value| score_of(value, 42, n).unwrap_or(i32::MIN);
    moves
        .iter()
        .max_by_key(|m| (rank(m.value), -centre(&m.mv)))
        .map(|m| m.mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::solver::table::{PartialTable, prime_at_most};
    use crate::ai::solver::{Bounds, Solver};

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
        assert_eq!(book_move(&moves, 10), Some(Move::Column(4)));
    }

    /// Every move of `entries` solved again.
    fn check_against_solver(book: &Book, entries: &[&(u64, [i8; WIDTH])]) {
        let mut table = PartialTable::<u32>::new(prime_at_most(1 << 22));
        for &&(key, scores) in entries {
            let grid = Grid::from_key(Standard, key);
            assert!(grid.moves < book.plies(), "{key:#x}");
            let mut solver = Solver::new(Standard, &mut table, u64::MAX, None, None);
            let solved = solver.analyze(&grid);
            for (col, (bounds, &score)) in solved.iter().zip(&scores).enumerate() {
                match bounds {
                    None => assert_eq!(score, FULL, "{key:#x} column {col}"),
                    Some(b) => assert_eq!(*b, Bounds::exact(score.into()), "{key:#x} {col}"),
                }
            }
        }
    }

    /// A spread sample of the embedded book's entries (of at least 10 stones: each
    /// solved in about a second).
    #[test]
    fn embedded_entries_match_the_solver() {
        let book = Book::embedded().expect("the embedded book reads");
        let deep: Vec<_> = book
            .entries()
            .iter()
            .filter(|&&(key, _)| Grid::from_key(Standard, key).moves >= 10)
            .collect();
        let step = (deep.len() / 4).max(1);
        let sample: Vec<_> = deep.into_iter().step_by(step).take(4).collect();
        check_against_solver(book, &sample);
    }

    #[test]
    #[ignore = "every entry: cargo test -p inarow-engine --release --lib book -- --ignored"]
    fn every_embedded_entry_matches_the_solver() {
        let book = Book::embedded().expect("the embedded book reads");
        let all: Vec<_> = book.entries().iter().collect();
        check_against_solver(book, &all);
    }
}
