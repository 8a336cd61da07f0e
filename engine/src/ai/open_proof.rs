//! The proof search (`attack`) on big open boards as the rest of the engine calls it:
//! [`Ai::solve`](super::Ai::solve)'s first try where the general search proves nothing,
//! and the queries the tests and benchmarks ask of it ([`proven_win`], [`proven_value`],
//! [`refuted_win`], [`replay_proven_win`]). The AI's move choice runs it through
//! `attack::judge`.

use std::time::Instant;

use super::attack::{self, Attack};
use super::bits::Bits;
use super::general::board_of;
use super::geometry::{Geometry, Layout};
use super::search::Board;
use super::{Limits, Value};
use crate::position::Position;
use crate::rules::Move;

/// [`Ai::solve`](super::Ai::solve)'s first try on a big open board far from full: the
/// proof search for a win or a loss of the player to move on `board`, within `limits`
/// (started at `start`), with a table of `2^table_bits` entries. Returns the value it
/// proved (its plies an upper bound), whether a limit stopped it, and the nodes.
pub(super) fn outcome<B: Bits>(
    geo: &Geometry<B>,
    board: &Board<B>,
    table_bits: u32,
    limits: &Limits,
    start: Instant,
) -> (Option<Value>, bool, u64) {
    let mut attack = Attack::new(
        geo,
        table_bits,
        limits.nodes.unwrap_or(u64::MAX),
        limits.deadline(start),
        limits.cancel.as_deref(),
    );
    let value = attack
        .outcome(board, geo.cells - board.n)
        .map(|(won, plies)| {
            if won {
                Value::Win(plies)
            } else {
                Value::Loss(plies)
            }
        });
    (value, attack.stopped, attack.nodes)
}

/// Runs `query` on a fresh proof search of `position` (big open boards; `refuting` for
/// the defender's side) within `limits`, with a table of `2^table_bits` entries: its
/// answer and the nodes searched, or `None` with gravity or once the game is over.
fn attack_on<B: Layout, R>(
    position: &Position,
    table_bits: u32,
    limits: &Limits,
    refuting: bool,
    query: impl FnOnce(&mut Attack<'_, B>, &Board<B>, &Geometry<B>) -> R,
) -> Option<(R, u64)> {
    let geo = Geometry::<B>::new(position.rules());
    if geo.gravity || position.is_over() {
        return None;
    }
    let board = board_of(&geo, position);
    let mut attack = Attack::new(
        &geo,
        table_bits,
        limits.nodes.unwrap_or(u64::MAX),
        limits.deadline(Instant::now()),
        limits.cancel.as_deref(),
    );
    if refuting {
        attack = attack.refuting();
    }
    let answer = query(&mut attack, &board, &geo);
    Some((answer, attack.nodes))
}

/// A proven win of the player to move within `max_plies` plies, by the attacker's proof
/// search of `attack` (big open boards), with a table of `2^table_bits` entries:
/// `(plies, first move, nodes)`; plies an upper bound. For tests and benchmarks.
#[doc(hidden)]
pub fn proven_win(
    position: &Position,
    max_plies: u32,
    table_bits: u32,
    limits: &Limits,
) -> (Option<(u32, Move)>, u64) {
    fn run<B: Layout>(
        position: &Position,
        max_plies: u32,
        table_bits: u32,
        limits: &Limits,
    ) -> (Option<(u32, Move)>, u64) {
        attack_on::<B, _>(position, table_bits, limits, false, |attack, board, geo| {
            attack
                .win(board, max_plies)
                .map(|(plies, bit)| (plies, move_at(geo, bit)))
        })
        .unwrap_or((None, 0))
    }
    dispatch!(position, run(position, max_plies, table_bits, limits))
}

/// A proven win or loss of the player to move within `max_plies` plies, by the proof
/// search of `attack` (as [`Ai::solve`] runs it on big open boards), with a table of
/// `2^table_bits` entries: the value (its plies an upper bound) and the nodes. For
/// tests and benchmarks.
#[doc(hidden)]
pub fn proven_value(
    position: &Position,
    max_plies: u32,
    table_bits: u32,
    limits: &Limits,
) -> (Option<Value>, u64) {
    fn run<B: Layout>(
        position: &Position,
        max_plies: u32,
        table_bits: u32,
        limits: &Limits,
    ) -> (Option<Value>, u64) {
        attack_on::<B, _>(position, table_bits, limits, false, |attack, board, _| {
            attack.outcome(board, max_plies).map(|(won, plies)| {
                if won {
                    Value::Win(plies)
                } else {
                    Value::Loss(plies)
                }
            })
        })
        .unwrap_or((None, 0))
    }
    dispatch!(position, run(position, max_plies, table_bits, limits))
}

/// Whether the player to move is proven not to win within `plies` plies (every move of
/// its own tried, the opponent's replies near the stones), with a table of
/// `2^table_bits` entries: `Some(proven)` and the nodes, `None` when a limit stopped
/// the search. With [`proven_win`], the exact plies of a win. For tests and
/// benchmarks.
#[doc(hidden)]
pub fn refuted_win(
    position: &Position,
    plies: u32,
    table_bits: u32,
    limits: &Limits,
) -> (Option<bool>, u64) {
    fn run<B: Layout>(
        position: &Position,
        plies: u32,
        table_bits: u32,
        limits: &Limits,
    ) -> (Option<bool>, u64) {
        attack_on::<B, _>(position, table_bits, limits, true, |attack, board, _| {
            let refuted = attack.refute(board, plies);
            (refuted || !attack.stopped).then_some(refuted)
        })
        .unwrap_or((None, 0))
    }
    dispatch!(position, run(position, plies, table_bits, limits))
}

/// Replays the proof of [`proven_win`] from `position` against every defender reply,
/// each attacker move taken from the proof and each line's end checked by
/// [`Position`]'s rules: the number of attacker positions checked, or the first position
/// where the proof fails (the attacker has no proven win there, or the defender won).
/// `None` when no win is proven within `max_plies`. For tests.
#[doc(hidden)]
pub fn replay_proven_win(
    position: &Position,
    max_plies: u32,
    table_bits: u32,
) -> Option<Result<u64, Box<Position>>> {
    fn run<B: Layout>(
        position: &Position,
        max_plies: u32,
        table_bits: u32,
    ) -> Option<Result<u64, Box<Position>>> {
        // No limit: a replay needs the whole proof.
        let limits = Limits {
            nodes: Some(u64::MAX),
            ..Limits::default()
        };
        attack_on::<B, _>(position, table_bits, &limits, false, |attack, board, _| {
            let (plies, _) = attack.win(board, max_plies)?;
            let mut count = 0;
            let mut seen = std::collections::HashMap::new();
            let mut walk = position.clone();
            Some(
                attack::replay(attack, &mut walk, board, plies, &mut seen, &mut count)
                    .map(|()| count),
            )
        })?
        .0
    }
    dispatch!(position, run(position, max_plies, table_bits))
}

/// The cell of a bit as a move.
fn move_at<B: Bits>(geo: &Geometry<B>, bit: u32) -> Move {
    let stride = geo.height + 1;
    Move::Cell(crate::rules::Cell {
        col: (bit / stride) as u8,
        row: (bit % stride) as u8,
    })
}
