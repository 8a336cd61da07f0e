//! Players that drive a game through the server: one that follows a script of moves for both
//! seats, and one that picks random legal moves from a seeded generator until the game ends.

use inarow_protocol::{GameStatus, Mark, RoomId, RoomSnapshot};
use rand::Rng;
use rand::seq::IndexedRandom;

use crate::client::Client;

/// Plays `moves` in turn from ply `from_ply`, X's moves by `x` and O's by `o`: before each
/// move the mover waits until it has seen the ply reached. Returns the snapshot that answers
/// the last move.
pub async fn take_turns(
    x: &mut Client,
    o: &mut Client,
    room: &RoomId,
    from_ply: u32,
    moves: &[&str],
) -> RoomSnapshot {
    let mut last = None;
    for (ply, mv) in (from_ply..).zip(moves) {
        let mover = if ply % 2 == 0 { &mut *x } else { &mut *o };
        mover.reach_room(room, |s| s.ply == ply).await;
        last = Some(mover.play(room, ply, mv).await);
    }
    last.expect("take_turns needs at least one move")
}

impl Client {
    /// Plays random legal moves, drawn from `rng`, for seat `me` of `room` until the game
    /// ends; `start` is the latest snapshot known. Returns the final snapshot.
    pub async fn play_randomly(
        &mut self,
        start: RoomSnapshot,
        me: Mark,
        rng: &mut impl Rng,
    ) -> RoomSnapshot {
        let room = start.id.clone();
        let game = start.game;
        let mut latest = start;
        // The ply of our last move: a snapshot that still shows our turn at or before that
        // ply is an old one, not an invitation to move again.
        let mut played_at: Option<u32> = None;
        loop {
            if latest.game == game && latest.status.is_over() {
                return latest;
            }
            let my_turn = latest.game == game
                && latest.status == GameStatus::Playing { turn: me }
                && played_at.is_none_or(|p| latest.ply > p);
            if my_turn {
                let Some(mv) = latest.legal_moves.choose(rng).cloned() else {
                    panic!("{}: my turn but no legal moves: {latest:?}", self.label());
                };
                played_at = Some(latest.ply);
                latest = self.play(&room, latest.ply, &mv).await;
            } else {
                latest = self
                    .wait_room(|s| {
                        s.id == room
                            && (s.game != game
                                || s.status.is_over()
                                || (s.status == GameStatus::Playing { turn: me }
                                    && played_at.is_none_or(|p| s.ply > p)))
                    })
                    .await;
            }
        }
    }
}
