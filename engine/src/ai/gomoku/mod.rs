//! The fast search for big open boards (gomoku and other boards of 49 cells or more
//! without gravity, k from 4 to 6): an incremental pattern board (`board`, `patterns`)
//! and a principal-variation search over it (`search`), deepened until the time runs
//! out. It replaces the generic bitboard search while a game is far from a full board;
//! the threat search before it still proves what can be proven.

mod board;
mod patterns;
mod search;

use std::time::Instant;

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

/// Part of the time left at which no new iteration starts: the next one would take
/// several times as long as all before it, and an unfinished one is thrown away.
const NEW_ITERATION_PERCENT: u32 = 45;

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
    let deadline = limits.deadline(start);
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
            alpha = alpha.max(v);
        }
        if search.stopped {
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
