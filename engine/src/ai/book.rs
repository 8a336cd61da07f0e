//! The Connect Four opening book (`crate::book`) as the AI reads it: an entry that
//! settles the move to play, or bounds that narrow the exact solver's search.

use std::sync::Arc;

use super::exact::Graded;
use super::solver::{self, Task};
use super::{Analysis, Value};
use crate::book::{Book, book_move};
use crate::position::Position;

/// Where an [`Ai`](super::Ai) finds its Connect Four opening book.
#[derive(Debug, Clone)]
pub(super) enum BookSource {
    /// The book compiled into the engine (none if it does not read).
    Embedded,
    /// A book given by the caller, or none at all.
    Given(Option<Arc<Book>>),
}

impl BookSource {
    /// The analysis of `position` from this source's book, if the book has it.
    pub(super) fn entry(&self, position: &Position) -> Option<Analysis> {
        let book = match self {
            BookSource::Embedded => Book::embedded().ok(),
            BookSource::Given(book) => book.as_deref(),
        };
        book.and_then(|book| from_book(book, position))
    }
}

/// Whether a book entry answers `task` alone: it always settles the move to play;
/// every move's value (a hint) only when it holds them all, else it bounds what the
/// solver finds.
pub(super) fn settles(entry: &Analysis, task: Task) -> bool {
    task != Task::EveryMove
        || entry
            .moves
            .iter()
            .all(|m| !matches!(m.value, Value::Estimate(_)))
}

/// The analysis of a Connect Four position from `book`, if it is there.
fn from_book(book: &Book, position: &Position) -> Option<Analysis> {
    let mut moves = book.lookup(position)?;
    let (cells, n) = (position.rules().cells(), position.ply() as u32);
    moves.sort_by_key(|m| std::cmp::Reverse(solver::score_of(m.value, cells, n)));
    Some(Analysis {
        best: book_move(position, &moves),
        moves,
        nodes: 0,
        depth: cells - n,
        proven: true,
    })
}

/// Narrows the solver's bounds with what a partial book entry proves: its move's floor
/// (a win's) or exact score (a draw's or a loss's, which no other move beats).
pub(super) fn add_book_bounds(moves: &mut [Graded], book: &Analysis, cells: u32, n: u32) {
    for proven in &book.moves {
        let Some(s) = solver::score_of(proven.value, cells, n) else {
            continue;
        };
        for m in moves.iter_mut() {
            if m.mv == proven.mv {
                m.bounds.lo = m.bounds.lo.max(s);
                if s <= 0 {
                    m.bounds.hi = m.bounds.hi.min(s);
                }
            } else if s <= 0 {
                m.bounds.hi = m.bounds.hi.min(s);
            }
        }
    }
}
