//! The fast search for big open boards (gomoku and other boards of 49 cells or more
//! without gravity, k from 4 to 6): an incremental pattern board (`board`, `patterns`)
//! and a principal-variation search over it (`search`), deepened until the time runs
//! out. It replaces the generic bitboard search while a game is far from a full board;
//! the threat search before it still proves what can be proven.

mod board;
mod patterns;
mod search;

use std::time::{Duration, Instant};

use super::Limits;
use super::bits::Bits;
use super::general::Root;
use super::search::INF;
use super::table::Table;
use crate::position::Position;
use crate::rules::Move;

use self::board::Board;
use self::search::{MAX_PLY, Search, is_mate};

/// Whether the pattern tables cover lines of `k`: where the fast search can value the
/// root moves of a big open board far from full (see `strategy`).
pub(super) fn covers(k: u32) -> bool {
    patterns::K_RANGE.contains(&k)
}

/// The evaluation's inputs at `position` (see the gomoku board's `features`), for
/// fitting its weights; `None` where the pattern board does not apply (gravity, or k
/// outside the tables' range). For tuning tools, not for players.
#[doc(hidden)]
pub fn eval_features(position: &Position) -> Option<Vec<i32>> {
    let rules = position.rules();
    if rules.gravity() || !covers(rules.k()) {
        return None;
    }
    Some(Board::new(position).features())
}

/// Part of the search's time after which no new iteration starts: the next one would
/// take several times as long as all before it, and of an unfinished one only a new best
/// move is kept.
const NEW_ITERATION_PERCENT: u32 = 50;

/// Part of the move's time, in percent, kept back from the search for what follows it
/// (ranking the moves, answering) and for a machine that stalls the thread between two
/// polls of the clock, so the answer comes within the time asked.
const MARGIN_PERCENT: u32 = 5;
/// Least time kept back, for the same reasons.
const MARGIN_MIN: Duration = Duration::from_millis(10);

/// When the search of a move given `limits` from `start` must stop: its deadline less a
/// margin, never before `start`.
fn search_deadline(limits: &Limits, start: Instant) -> Option<Instant> {
    let deadline = limits.deadline(start)?;
    let time = deadline.saturating_duration_since(start);
    let margin = (time * MARGIN_PERCENT / 100).max(MARGIN_MIN).min(time / 2);
    Some(deadline - margin)
}

/// Values the searched roots of `position` that are not exact yet by iterative
/// deepening, within `limits` (started at `start`, `spent` nodes already used).
/// Returns the depth of the last finished iteration (0: none, the roots keep the values
/// they had) and the nodes searched. Values are estimates: roots stay inexact.
pub(super) fn deepen<B: Bits>(
    position: &Position,
    table: &mut Table,
    roots: &mut [Root<B>],
    limits: &Limits,
    start: Instant,
    spent: u64,
) -> (u32, u64) {
    let budget = limits.nodes.map_or(u64::MAX, |n| n.saturating_sub(spent));
    let deadline = search_deadline(limits, start);
    let board = Board::new(position);
    let mut search = Search::new(board, table, budget, deadline, limits.cancel.as_deref());
    if search.poll() {
        return (0, 0);
    }
    // (root index, cell index, score) for every root the search values.
    let mut entries: Vec<(usize, usize, i32)> = roots
        .iter()
        .enumerate()
        .filter(|(_, r)| r.searched && !r.exact)
        .filter_map(|(i, r)| match r.mv {
            Move::Cell(cell) => {
                let c = search.board.index(cell.col.into(), cell.row.into());
                Some((i, c, search.order(c)))
            }
            Move::Column(_) => None,
        })
        .collect();
    if entries.is_empty() {
        return (0, 0);
    }
    entries.sort_by_key(|e| std::cmp::Reverse(e.2));
    let search_start = Instant::now();
    let mut depth_done = 0;
    let mut scores = vec![0; entries.len()];
    for depth in 1..=MAX_PLY as i32 {
        // The best move so far first, with a full window; the others only need to be
        // shown worse, with a null window, unless they turn out better.
        let mut alpha = -INF;
        let mut finished = 0;
        for (j, &(_, c, _)) in entries.iter().enumerate() {
            search.board.place(c);
            let v = if j == 0 {
                -search.pvs(-INF, INF, depth - 1, 1)
            } else {
                let v = -search.pvs(-alpha - 1, -alpha, depth - 1, 1);
                if v > alpha && !search.stopped {
                    -search.pvs(-INF, -alpha, depth - 1, 1)
                } else {
                    // Only an upper bound: it ranks below the move that set alpha, so
                    // the AI never picks it as tied with the best.
                    v.min(alpha - 1)
                }
            };
            search.board.undo();
            if search.stopped {
                break;
            }
            scores[j] = v;
            finished = j + 1;
            alpha = alpha.max(v);
        }
        if search.stopped {
            // (The first iteration's moves have no values to rank the others by.)
            if depth_done > 0 {
                keep_new_best(&mut entries, &scores[..finished]);
            }
            break;
        }
        for (entry, &score) in entries.iter_mut().zip(&scores) {
            entry.2 = score;
        }
        // Stable: among equals the earlier (better ordered) move stays first.
        entries.sort_by_key(|e| std::cmp::Reverse(e.2));
        depth_done = depth as u32;
        if is_mate(entries[0].2) || search.poll() {
            break;
        }
        if let Some(deadline) = deadline {
            let used = search_start.elapsed();
            let total = deadline.saturating_duration_since(search_start);
            if used > total * NEW_ITERATION_PERCENT / 100 {
                break;
            }
        }
    }
    if depth_done > 0 {
        for &(i, _, score) in &entries {
            roots[i].score = score;
        }
    }
    (depth_done, search.nodes)
}

/// After an iteration stopped part way, with `scores` the values of its first moves (in
/// `entries`' order, the best of the last iteration first): a move shown better than
/// that one at the new depth goes first with its new value, every other below it, so
/// the time spent finding it is not lost. Returns whether it did.
fn keep_new_best(entries: &mut [(usize, usize, i32)], scores: &[i32]) -> bool {
    let Some((best, &value)) = scores
        .iter()
        .enumerate()
        .max_by_key(|&(j, &v)| (v, std::cmp::Reverse(j)))
    else {
        return false;
    };
    if best == 0 || value <= scores[0] {
        return false;
    }
    for entry in entries.iter_mut() {
        entry.2 = entry.2.min(value - 1);
    }
    entries[best].2 = value;
    entries[..=best].rotate_right(1);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfinished_iteration_keeps_only_a_new_best_move() {
        // (root, cell, score) ranked by the last iteration.
        let last = vec![(0, 10, 50), (1, 11, 40), (2, 12, 30), (3, 13, 20)];
        // The first move fell to 10 and the second rose to 60 before the time ran out.
        let mut entries = last.clone();
        assert!(keep_new_best(&mut entries, &[10, 60]));
        assert_eq!(entries[0], (1, 11, 60));
        assert!(entries[1..].iter().all(|e| e.2 < 60));
        assert_eq!(entries.len(), 4);
        // Nothing better than the first move: the last iteration's ranking stands.
        let mut entries = last.clone();
        assert!(!keep_new_best(&mut entries, &[45, 44, 30]));
        assert_eq!(entries, last);
        assert!(!keep_new_best(&mut entries, &[]));
    }

    #[test]
    fn the_search_stops_a_margin_before_the_deadline() {
        let start = Instant::now();
        let limits = Limits::time(Duration::from_millis(1000));
        let deadline = search_deadline(&limits, start).expect("a time limit");
        assert_eq!(deadline - start, Duration::from_millis(950));
        let short = Limits::time(Duration::from_millis(100));
        let deadline = search_deadline(&short, start).expect("a time limit");
        assert_eq!(deadline - start, Duration::from_millis(90));
        let nodes = Limits {
            nodes: Some(1000),
            ..Limits::default()
        };
        assert_eq!(search_deadline(&nodes, start), None);
    }
}
