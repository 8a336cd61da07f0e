//! Valuing every root move of a board small enough to solve: solve the position once,
//! then prove each move against that value with a null window over the shared table,
//! and search exactly only the moves that fall short of it.
//!
//! Searching every move with a full window, depth by depth, repeats the solver's work
//! once per move; after the solve most of each move's proof is already in the table,
//! and a null window proves "this move keeps the value" far more cheaply than an
//! exact score.

use super::bits::Bits;
use super::general::Root;
use super::search::{Board, INF, Search};

/// Solves `board` (`empty` cells left) and values the roots that are not exact yet.
/// Returns whether every root is then exact; when a limit stops it, the roots proven so
/// far keep their values, and the others are ranked below any move proven to keep the
/// position's value.
pub(super) fn prove<B: Bits>(
    search: &mut Search<'_, B>,
    board: &Board<B>,
    roots: &mut [Root<B>],
    empty: u32,
) -> bool {
    let (value, exact) = search.value(board, -INF, INF, empty);
    if search.stopped || !exact {
        return false;
    }
    let mut order: Vec<usize> = (0..roots.len()).filter(|&i| !roots[i].exact).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(roots[i].score),
            std::cmp::Reverse(roots[i].order),
        )
    });
    // No move is worth more than the position: an unproven one ranks below the proven.
    for &i in &order {
        roots[i].score = roots[i].score.min(value - 1);
    }
    // Which moves keep the value: a null window each, mostly answered by the table.
    let mut short = Vec::new();
    for &i in &order {
        let (v, exact) = search.value(&roots[i].child, -value, -value + 1, empty - 1);
        if search.stopped {
            return false;
        }
        if exact && -v >= value {
            roots[i].score = value;
            roots[i].exact = true;
        } else if exact {
            roots[i].score = -v;
            short.push(i);
        }
    }
    // The exact value of each move that falls short: below the position's value.
    for &i in &short {
        let (v, exact) = search.value(&roots[i].child, -value, INF, empty - 1);
        if search.stopped {
            return false;
        }
        if exact {
            roots[i].score = -v;
            roots[i].exact = true;
        }
    }
    roots.iter().all(|r| r.exact)
}
