//! Replaying a kept game: the boards of every ply rebuilt with the engine from the game's
//! rules and moves, a cursor stepped by keys (the replay screen's one state machine), and
//! the game told move by move as text for plain mode.
//!
//! The boards come from the engine, not from the server, so a replay needs nothing but the
//! record, and a record whose moves the rules refuse is reported rather than drawn. Each
//! ply is kept as a [`RoomSnapshot`] so the board drawing and the plain board lines of the
//! live game serve the replay unchanged. The drawing is in [`view`].

pub mod view;

use inarow_engine::{Move, Player, Position};
use inarow_protocol::{ClockState, GameRecord, GameStatus, Mark, RoomId, RoomSnapshot};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::board;
use crate::history::{move_time, player_label, result_label, utc_minute};
use crate::plain::board_lines;
use crate::words;

/// Why a record cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The engine refuses the game's rules.
    #[error("game {game} has rules this client cannot play: {rules}")]
    Rules {
        /// The game's id.
        game: u64,
        /// The rules, as a label.
        rules: String,
    },
    /// A move is not legal where the record plays it.
    #[error("game {game}: move {ply} ({mv}) cannot be played there: {why}")]
    Move {
        /// The game's id.
        game: u64,
        /// The move's number, from 1.
        ply: usize,
        /// The move as recorded.
        mv: String,
        /// The engine's reason.
        why: String,
    },
}

/// One move of the replay, as the engine played it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayMove {
    /// The mark that moved.
    pub by: Mark,
    /// The move in notation (a column with gravity).
    pub mv: String,
    /// Where the stone landed.
    pub cell: String,
    /// How long the mover took, in milliseconds.
    pub ms: u64,
}

/// What a key did to the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Keep showing it.
    Stay,
    /// Close the replay.
    Quit,
}

/// A kept game being replayed: every ply's board and the ply shown.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The game as the server kept it.
    pub record: GameRecord,
    /// The moves as the engine played them.
    pub moves: Vec<ReplayMove>,
    /// The board before any move, then after each: `boards[ply]`.
    boards: Vec<RoomSnapshot>,
    /// How many moves are on the board shown.
    ply: usize,
}

fn mark(player: Player) -> Mark {
    match player {
        Player::X => Mark::X,
        Player::O => Mark::O,
    }
}

/// The wire status of an engine status.
fn wire_status(status: inarow_engine::GameStatus) -> GameStatus {
    match status {
        inarow_engine::GameStatus::InProgress { to_move } => GameStatus::Playing {
            turn: mark(to_move),
        },
        inarow_engine::GameStatus::Won { winner, line } => GameStatus::Won {
            winner: mark(winner),
            line: line.iter().map(ToString::to_string).collect(),
        },
        inarow_engine::GameStatus::Drawn => GameStatus::Drawn,
    }
}

impl Replay {
    /// Plays the record's moves with the engine, keeping the board of every ply; the
    /// replay starts at the end, where the result is.
    ///
    /// # Errors
    /// [`ReplayError`] when the engine refuses the rules or a move.
    pub fn new(record: GameRecord) -> Result<Replay, ReplayError> {
        let summary = &record.summary;
        let game = summary.game.0;
        let rules = board::engine_rules(&summary.rules).ok_or_else(|| ReplayError::Rules {
            game,
            rules: words::rules_label(&summary.rules),
        })?;
        let width = summary.rules.width as usize;
        let mut snapshot = RoomSnapshot {
            // A private room's id is its invite code, which the server does not give away.
            id: summary
                .room
                .clone()
                .unwrap_or_else(|| RoomId::from("private")),
            name: format!("game {game}"),
            rules: summary.rules,
            private: summary.room.is_none(),
            seq: 0,
            game: summary.number,
            seats: Vec::new(),
            board: vec![".".repeat(width); summary.rules.height as usize],
            moves: Vec::new(),
            ply: 0,
            legal_moves: Vec::new(),
            status: GameStatus::Playing { turn: Mark::X },
            last_move: None,
            spectators: Vec::new(),
            last_game: Some(summary.game),
            chat: Vec::new(),
            hints: false,
            time_control: summary.time_control,
            takebacks: false,
            clock: None,
            offer: None,
        };
        let mut position = Position::new(rules);
        let mut boards = vec![snapshot.clone()];
        let mut moves = Vec::with_capacity(record.moves.len());
        for (i, played) in record.moves.iter().enumerate() {
            let refused = |why: String| ReplayError::Move {
                game,
                ply: i + 1,
                mv: played.mv.clone(),
                why,
            };
            let by = mark(position.to_move());
            let mv: Move = rules
                .parse_move(&played.mv)
                .map_err(|e| refused(e.message))?;
            let cell = position.try_play(mv).map_err(|e| refused(e.to_string()))?;
            // The engine names every board the client can draw; rows count from the bottom.
            let top = snapshot.board.len() - 1 - usize::from(cell.row);
            let col = usize::from(cell.col);
            if let Some(row) = snapshot.board.get_mut(top) {
                row.replace_range(col..=col, &by.to_string());
            }
            let (mv, cell) = (mv.to_string(), cell.to_string());
            snapshot.moves.push(mv.clone());
            snapshot.ply += 1;
            snapshot.seq += 1;
            snapshot.last_move = Some(cell.clone());
            snapshot.status = wire_status(position.status());
            // In a timed game the mover's clock after the move, as the record keeps it.
            if let Some(left) = played.clock_ms {
                let clock = snapshot.clock.get_or_insert(ClockState {
                    x_ms: left,
                    o_ms: left,
                    running: None,
                });
                match by {
                    Mark::X => clock.x_ms = left,
                    Mark::O => clock.o_ms = left,
                }
            }
            boards.push(snapshot.clone());
            moves.push(ReplayMove {
                by,
                mv,
                cell,
                ms: played.ms,
            });
        }
        // A game that ended without a line or a full board was resigned: the record says so.
        if let Some(last) = boards.last_mut()
            && !last.status.is_over()
        {
            last.status = record.summary.result.clone();
        }
        let ply = moves.len();
        Ok(Replay {
            record,
            moves,
            boards,
            ply,
        })
    }

    /// How many moves the game has.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether the game has no move at all (resigned at once).
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// How many moves are on the board shown.
    pub fn ply(&self) -> usize {
        self.ply
    }

    /// The board after `ply` moves (the last board beyond the end).
    pub fn board_at(&self, ply: usize) -> &RoomSnapshot {
        &self.boards[ply.min(self.boards.len() - 1)]
    }

    /// The board shown.
    pub fn board(&self) -> &RoomSnapshot {
        self.board_at(self.ply)
    }

    /// Shows the board after `ply` moves (at most the whole game).
    pub fn go_to(&mut self, ply: usize) {
        self.ply = ply.min(self.len());
    }

    /// Takes a key: ←/→ (or h/l) step one move, Home/End (or g/G) go to the start and the
    /// end, q, Esc and Ctrl-C close.
    pub fn on_key(&mut self, key: KeyEvent) -> Control {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c' | 'd') if ctrl => return Control::Quit,
            KeyCode::Char('q') | KeyCode::Esc => return Control::Quit,
            KeyCode::Left | KeyCode::Char('h') | KeyCode::Backspace => {
                self.go_to(self.ply.saturating_sub(1));
            }
            KeyCode::Right | KeyCode::Char('l' | ' ') => self.go_to(self.ply + 1),
            KeyCode::Home | KeyCode::Char('g') => self.go_to(0),
            KeyCode::End | KeyCode::Char('G') => self.go_to(self.len()),
            _ => {}
        }
        Control::Stay
    }

    /// The replay screen's status line: the move shown, who played it (mark and name) and
    /// how long they took, and the result once at the end.
    pub fn status_line(&self) -> String {
        let total = self.len();
        let Some(shown) = self.ply.checked_sub(1).and_then(|i| self.moves.get(i)) else {
            let plural = if total == 1 { "" } else { "s" };
            return if total == 0 {
                format!("No moves: {}", self.result())
            } else {
                format!("Start: {total} move{plural}, → to step through them")
            };
        };
        let mut line = format!(
            "Move {} of {total}: {} ({}) played {} in {}",
            self.ply,
            shown.by,
            player_label(self.player(shown.by)),
            self.move_words(shown),
            move_time(shown.ms)
        );
        if self.ply == total {
            line.push_str(&format!(" · {}", self.result()));
        }
        line
    }

    /// Who played `mark`.
    fn player(&self, mark: Mark) -> &inarow_protocol::PlayerRef {
        match mark {
            Mark::X => &self.record.summary.x,
            Mark::O => &self.record.summary.o,
        }
    }

    /// A move as people name it: the cell, or with gravity the column and where it landed.
    fn move_words(&self, played: &ReplayMove) -> String {
        if played.mv == played.cell {
            played.mv.clone()
        } else {
            format!("{} ({})", played.mv, played.cell)
        }
    }

    /// The result as a sentence part: `X won (line a1 b2 c3)`, `O won (resigned)`, `draw`.
    pub fn result(&self) -> String {
        match &self.board_at(self.len()).status {
            GameStatus::Won { winner, line } => format!("{winner} won (line {})", line.join(" ")),
            status => result_label(status),
        }
    }

    /// The game's first line: its id, rules, players, number of moves and end (UTC).
    pub fn title(&self) -> String {
        let summary = &self.record.summary;
        format!(
            "game {}: {}, X {} vs O {}, {} move{}, ended {} UTC",
            summary.game,
            words::rules_label(&summary.rules),
            player_label(&summary.x),
            player_label(&summary.o),
            self.len(),
            if self.len() == 1 { "" } else { "s" },
            utc_minute(summary.ended_at)
        )
    }

    /// The whole game as plain mode prints it: the title, then each move (`move 1 X b2
    /// 2.1s`, with gravity `move 1 X d (d1) 2.1s`) and the board after it, then the final
    /// `status:` line in the words of a live game's.
    pub fn plain_lines(&self) -> Vec<String> {
        let mut lines = vec![self.title()];
        for (i, played) in self.moves.iter().enumerate() {
            lines.push(format!(
                "move {} {} {} {}",
                i + 1,
                played.by,
                self.move_words(played),
                move_time(played.ms)
            ));
            lines.extend(board_lines(self.board_at(i + 1)));
        }
        if self.is_empty() {
            lines.extend(board_lines(self.board_at(0)));
        }
        lines.push(words::status_text(self.board_at(self.len()), None));
        lines
    }
}

#[cfg(test)]
mod tests;
