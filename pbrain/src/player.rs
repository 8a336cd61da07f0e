//! inarow's move at the `perfect` level, searched as the server's AI seats search it: a
//! short probe first, then a full search for the time given, the table dropped after each
//! move.
//!
//! The server (`server/src/ai_worker.rs`) runs every AI move as a probe of at most
//! [`PROBE_NODES`] nodes with a small table, which settles forced replies at once, and, when
//! the probe does not settle it, a search bounded by the seat's move time (1 s by default)
//! with a table of [`Ai::DEFAULT_TABLE_BYTES`], releasing the table afterwards. Doing the
//! same here means a match measures the AI people play against, not a variant of it.

use std::time::{Duration, Instant};

use inarow_engine::{Ai, Analysis, Level, Limits, Position};

/// Nodes a probe may search, as the server's probes (its `PROBE_NODES`): a search that ends
/// below it finished on its own and its move stands.
pub const PROBE_NODES: u64 = 2_000;

/// The probe's table: room for every node it may visit, twice over, as the server's.
const PROBE_TABLE_BYTES: usize = (2 * PROBE_NODES as usize).next_power_of_two() * 16;

/// A `perfect` AI that searches each move as a server seat does.
#[derive(Debug)]
pub struct Player {
    ai: Ai,
}

/// A move searched, with what the search reports.
#[derive(Debug, Clone)]
pub struct Thought {
    /// The analysis of the search that chose the move (the probe's when it settled the
    /// move, else the full search's), with the probe's nodes added to its count.
    pub analysis: Analysis,
    /// Wall-clock time of the probe and the search together.
    pub elapsed: Duration,
}

impl Player {
    /// A `perfect` player whose random choices follow `seed`.
    pub fn new(seed: u64) -> Player {
        Player {
            ai: Ai::new(Level::Perfect, seed),
        }
    }

    /// Searches `position` for at most `time` (probe included) and returns the analysis.
    /// With a zero `time` only the probe runs: the protocol asks for a move "as fast as
    /// possible" then. `analysis.best` is `None` only when the game is over.
    pub fn think(&mut self, position: &Position, time: Duration) -> Thought {
        let start = Instant::now();
        self.ai.set_table_bytes(PROBE_TABLE_BYTES);
        let probe = self.ai.think(
            position,
            &Limits {
                time: Some(time.max(Duration::from_millis(1))),
                nodes: Some(PROBE_NODES),
                cancel: None,
            },
        );
        self.ai.release_memory();
        let left = time.saturating_sub(start.elapsed());
        if probe.nodes < PROBE_NODES || left.is_zero() || position.is_over() {
            return Thought {
                analysis: probe,
                elapsed: start.elapsed(),
            };
        }
        self.ai.set_table_bytes(Ai::DEFAULT_TABLE_BYTES);
        let mut analysis = self.ai.think(position, &Limits::time(left));
        // As the server: the table's memory follows the searches running, not the players.
        self.ai.release_memory();
        if analysis.best.is_none() {
            // A search always names a move while the game goes on; should it not, the
            // probe's is still a move.
            analysis.best = probe.best;
        }
        analysis.nodes += probe.nodes;
        Thought {
            analysis,
            elapsed: start.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use inarow_engine::{Move, Rules};

    use super::*;

    #[test]
    fn plays_a_legal_move_even_with_no_time() {
        let rules = Rules::gomoku();
        let mut position = Position::new(rules);
        for text in ["h8", "h9", "i8"] {
            position.try_play(rules.parse_move(text).unwrap()).unwrap();
        }
        let mut player = Player::new(1);
        for time in [Duration::ZERO, Duration::from_millis(30)] {
            let thought = player.think(&position, time);
            let best = thought.analysis.best.unwrap();
            assert!(position.legal_moves().contains(&best), "{time:?}");
        }
    }

    #[test]
    fn takes_a_win_in_one() {
        let rules = Rules::gomoku();
        let moves: Vec<Move> = ["a1", "h8", "b1", "h9", "c1", "h10", "d1", "h11"]
            .iter()
            .map(|m| rules.parse_move(m).unwrap())
            .collect();
        let position = Position::from_moves(rules, &moves).unwrap();
        let thought = Player::new(1).think(&position, Duration::from_millis(50));
        assert_eq!(thought.analysis.best, Some(rules.parse_move("e1").unwrap()));
    }
}
