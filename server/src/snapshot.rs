//! The one place where engine types become wire types: marks, levels, rules, statuses,
//! whole room snapshots, `moved` events, analyses and the text record of a finished game.

use inarow_engine::record::{self, Record, RecordResult};
use inarow_engine::{self as engine, Cell, Position};
use inarow_protocol::{
    self as wire, GameId, GameStatus, GameSummary, Mark, PlayedMove, RoomId, RoomSnapshot,
    SeatInfo, ServerMessage,
};

/// How a game ended other than on the board, as the table keeps it (and the store saves
/// it for a restart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Ending {
    /// A player resigned; `winner` is the other.
    Resigned {
        /// The player who did not resign.
        winner: Mark,
    },
    /// A clock ran out (or a seat was given up in a timed game); `winner` is the other.
    Timeout {
        /// The player whose clock did not run out.
        winner: Mark,
    },
    /// The players agreed a draw.
    Agreed,
    /// A player left before each side had moved: no result.
    Aborted,
}

/// A game's status without a won game's line: what the room decides with (whose turn,
/// whether the game is over), cheap to copy. [`status`] gives the wire's whole status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatusView {
    /// A seat is empty.
    Waiting,
    /// `turn` is to move.
    Playing {
        /// Whose turn it is.
        turn: Mark,
    },
    /// `winner` made a line.
    Won {
        /// Who won.
        winner: Mark,
    },
    /// The board is full.
    Drawn,
    /// The loser resigned.
    Resigned {
        /// Who won.
        winner: Mark,
    },
    /// The loser's clock ran out.
    Timeout {
        /// Who won.
        winner: Mark,
    },
    /// Drawn by agreement.
    Agreed,
    /// Aborted before each side had moved.
    Aborted,
}

/// The wire mark of an engine player.
pub(crate) fn mark(player: engine::Player) -> Mark {
    match player {
        engine::Player::X => Mark::X,
        engine::Player::O => Mark::O,
    }
}

/// The engine level of a wire level.
pub(crate) fn engine_level(level: wire::Level) -> engine::Level {
    match level {
        wire::Level::Easy => engine::Level::Easy,
        wire::Level::Medium => engine::Level::Medium,
        wire::Level::Perfect => engine::Level::Perfect,
    }
}

/// The name an AI seat goes by in game records: `AI (perfect)`.
pub(crate) fn ai_name(level: wire::Level) -> String {
    format!("AI ({level})")
}

/// The wire form of validated engine rules.
pub(crate) fn rules(rules: engine::Rules) -> wire::Rules {
    wire::Rules {
        width: rules.width(),
        height: rules.height(),
        k: rules.k(),
        gravity: rules.gravity(),
    }
}

/// The board as rows of `.`, `X` and `O`, top row first (row 1 of the notation is last).
pub(crate) fn board(position: &Position) -> Vec<String> {
    (0..side(position.rules().height()))
        .rev()
        .map(|row| {
            let mut text = String::new();
            push_row(position, row, &mut text);
            text
        })
        .collect()
}

/// Appends row `row` of the board (0 = the bottom one) as `.`, `X` and `O`.
fn push_row(position: &Position, row: u8, out: &mut String) {
    // Sides are at most `Rules::MAX_SIDE`, so every index fits a u8.
    for col in 0..side(position.rules().width()) {
        out.push(match position.get(Cell { col, row }) {
            None => '.',
            Some(engine::Player::X) => 'X',
            Some(engine::Player::O) => 'O',
        });
    }
}

fn side(n: u32) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// The room's game status: the engine's, unless a player resigned, or a seat is empty
/// while the game is not over (then it waits for someone to take the seat).
pub(crate) fn status(
    position: &Position,
    ending: Option<Ending>,
    seats_filled: bool,
) -> GameStatus {
    match status_view(position, ending, seats_filled) {
        StatusView::Waiting => GameStatus::Waiting,
        StatusView::Playing { turn } => GameStatus::Playing { turn },
        StatusView::Won { winner } => GameStatus::Won {
            winner,
            line: match position.status() {
                engine::GameStatus::Won { line, .. } => {
                    line.iter().map(|cell| cell.notation()).collect()
                }
                _ => Vec::new(),
            },
        },
        StatusView::Drawn => GameStatus::Drawn,
        StatusView::Resigned { winner } => GameStatus::Resigned { winner },
        StatusView::Timeout { winner } => GameStatus::Timeout { winner },
        StatusView::Agreed => GameStatus::Agreed,
        StatusView::Aborted => GameStatus::Aborted,
    }
}

/// [`status`] without a won game's line.
pub(crate) fn status_view(
    position: &Position,
    ending: Option<Ending>,
    seats_filled: bool,
) -> StatusView {
    match ending {
        Some(Ending::Resigned { winner }) => return StatusView::Resigned { winner },
        Some(Ending::Timeout { winner }) => return StatusView::Timeout { winner },
        Some(Ending::Agreed) => return StatusView::Agreed,
        Some(Ending::Aborted) => return StatusView::Aborted,
        None => {}
    }
    match position.status() {
        engine::GameStatus::Won { winner, .. } => StatusView::Won {
            winner: mark(winner),
        },
        engine::GameStatus::Drawn => StatusView::Drawn,
        engine::GameStatus::InProgress { to_move } if seats_filled => StatusView::Playing {
            turn: mark(to_move),
        },
        engine::GameStatus::InProgress { .. } => StatusView::Waiting,
    }
}

/// Everything a room knows that goes into its snapshot.
pub(crate) struct RoomFacts<'a> {
    /// The room id.
    pub(crate) id: &'a RoomId,
    /// Display name.
    pub(crate) name: &'a str,
    /// Hidden from the lobby.
    pub(crate) private: bool,
    /// Players may analyse while the game is on.
    pub(crate) hints: bool,
    /// The sequence number of this event.
    pub(crate) seq: u64,
    /// Game number, from 1.
    pub(crate) game: u32,
    /// X then O.
    pub(crate) seats: Vec<SeatInfo>,
    /// The game.
    pub(crate) position: &'a Position,
    /// How the game ended off the board, if it did.
    pub(crate) ending: Option<Ending>,
    /// The time control; `None` without a clock.
    pub(crate) time_control: Option<wire::TimeControl>,
    /// Whether takebacks may be granted.
    pub(crate) takebacks: bool,
    /// Both clocks now, in a timed game.
    pub(crate) clock: Option<wire::ClockState>,
    /// An offer waiting for its answer.
    pub(crate) offer: Option<wire::Offer>,
    /// Spectators' names.
    pub(crate) spectators: Vec<String>,
    /// The id of the room's last finished game, once one has ended.
    pub(crate) last_game: Option<GameId>,
}

/// Builds a room snapshot.
pub(crate) fn snapshot(facts: RoomFacts<'_>) -> RoomSnapshot {
    let seats_filled = facts
        .seats
        .iter()
        .all(|s| !matches!(s.occupant, wire::Occupant::Empty));
    let status = status(facts.position, facts.ending, seats_filled);
    let legal_moves = if matches!(status, GameStatus::Playing { .. }) {
        facts
            .position
            .legal_moves()
            .iter()
            .map(|mv| mv.notation())
            .collect()
    } else {
        Vec::new()
    };
    RoomSnapshot {
        id: facts.id.clone(),
        name: facts.name.to_owned(),
        rules: rules(facts.position.rules()),
        private: facts.private,
        hints: facts.hints,
        time_control: facts.time_control,
        takebacks: facts.takebacks,
        seq: facts.seq,
        game: facts.game,
        seats: facts.seats,
        board: board(facts.position),
        moves: facts
            .position
            .history()
            .iter()
            .map(|mv| mv.notation())
            .collect(),
        ply: u32::try_from(facts.position.ply()).unwrap_or(u32::MAX),
        legal_moves,
        status,
        last_move: facts.position.last_cell().map(Cell::notation),
        clock: facts.clock,
        offer: facts.offer,
        spectators: facts.spectators,
        last_game: facts.last_game,
        chat: Vec::new(),
    }
}

/// The `moved` event of the last move of `position`, as event `seq` of room `id`, with the
/// room's `status` after it; `None` before the first move.
pub(crate) fn moved(
    id: &RoomId,
    seq: u64,
    game: u32,
    position: &Position,
    status: GameStatus,
    clock: Option<wire::ClockState>,
) -> Option<ServerMessage> {
    let mv = position.history().last()?;
    let cell = position.last_cell()?;
    Some(ServerMessage::Moved(wire::MoveEvent {
        room: id.clone(),
        seq,
        game,
        ply: u32::try_from(position.ply()).unwrap_or(u32::MAX),
        mv: mv.notation(),
        cell: cell.notation(),
        by: mark(position.get(cell)?),
        status,
        clock,
    }))
}

/// The text record (docs/protocol.md, "Game records") of a finished game: its tags, then
/// its moves with the time each took as a comment.
///
/// # Errors
/// Why the stored rules or moves do not make a game (a damaged store).
pub(crate) fn record_text(game: &GameSummary, moves: &[PlayedMove]) -> Result<String, String> {
    let r = game.rules;
    let rules = engine::Rules::new(r.width, r.height, r.k, r.gravity).map_err(|e| e.to_string())?;
    let mut position = Position::new(rules);
    for played in moves {
        let mv = rules
            .parse_move(&played.mv)
            .map_err(|e| format!("{}: {e}", played.mv))?;
        position
            .try_play(mv)
            .map_err(|e| format!("{}: {e}", played.mv))?;
    }
    let (result, termination) = match &game.result {
        GameStatus::Won { winner, line } => (won_by(*winner), format!("line {}", line.join(" "))),
        GameStatus::Resigned { winner } => (won_by(*winner), "resigned".to_owned()),
        GameStatus::Timeout { winner } => (won_by(*winner), "time".to_owned()),
        GameStatus::Drawn => (RecordResult::Drawn, "board full".to_owned()),
        GameStatus::Agreed => (RecordResult::Drawn, "agreement".to_owned()),
        GameStatus::Waiting | GameStatus::Playing { .. } | GameStatus::Aborted => {
            (RecordResult::Unfinished, "unfinished".to_owned())
        }
    };
    let mut tags = vec![("Game".to_owned(), game.game.to_string())];
    if let Some(room) = &game.room {
        tags.push(("Room".to_owned(), room.0.clone()));
    }
    tags.extend(Record::rules_tags(rules));
    for (tag, player) in [("X", &game.x), ("O", &game.o)] {
        tags.push((tag.to_owned(), player.name.clone()));
        if let Some(level) = player.ai {
            tags.push((format!("{tag}AI"), level.to_string()));
        }
    }
    tags.push(("Start".to_owned(), record::utc_timestamp(game.started_at)));
    tags.push(("End".to_owned(), record::utc_timestamp(game.ended_at)));
    tags.push(("Result".to_owned(), result.token().to_owned()));
    tags.push(("Termination".to_owned(), termination));
    if let Some(control) = game.time_control {
        tags.push(("TimeControl".to_owned(), control.to_string()));
    }
    let comments = moves
        .iter()
        .map(|m| {
            let mut comment = record::seconds_comment(m.ms);
            if let Some(clock) = m.clock_ms {
                comment.push_str(&format!(" [%clk {}]", clock_text(clock)));
            }
            Some(comment)
        })
        .collect();
    Ok(Record {
        tags,
        position,
        comments,
        result,
    }
    .to_string())
}

/// A remaining time as PGN's `%clk` writes it: `H:MM:SS.t` (tenths).
fn clock_text(ms: u64) -> String {
    let tenths = ms / 100;
    format!(
        "{}:{:02}:{:02}.{}",
        tenths / 36_000,
        tenths / 600 % 60,
        tenths / 10 % 60,
        tenths % 10
    )
}

fn won_by(winner: Mark) -> RecordResult {
    match winner {
        Mark::X => RecordResult::XWon,
        Mark::O => RecordResult::OWon,
    }
}

/// The `analysis` of `position` (game `game` of room `id`) from the engine's values of
/// its moves, best first (see [`rank`]).
pub(crate) fn analysis(
    id: &RoomId,
    game: u32,
    position: &Position,
    analysis: &engine::Analysis,
) -> ServerMessage {
    let mut valued = analysis.moves.clone();
    // Stable: moves of equal value keep the engine's order.
    valued.sort_by_key(|m| std::cmp::Reverse(rank(m.value)));
    let moves = valued
        .iter()
        .filter_map(|valued| {
            // Every analysed move is legal here; one that is not is left out rather than
            // shown on a cell it cannot reach.
            let cell = position.landing_cell(valued.mv).ok()?;
            let (value, proven) = match valued.value {
                engine::Value::Win(plies) => (wire::MoveValue::Win { plies }, true),
                engine::Value::Loss(plies) => (wire::MoveValue::Loss { plies }, true),
                engine::Value::Draw => (wire::MoveValue::Draw, true),
                engine::Value::Estimate(score) => (wire::MoveValue::Estimate { score }, false),
            };
            Some(wire::MoveAnalysis {
                mv: valued.mv.to_string(),
                cell: cell.to_string(),
                value,
                proven,
            })
        })
        .collect();
    ServerMessage::Analysis {
        room: id.clone(),
        game,
        ply: u32::try_from(position.ply()).unwrap_or(u32::MAX),
        moves,
    }
}

/// How good a value is for the mover, higher better, in the order docs/protocol.md gives
/// for `analysis`: wins (the quickest first), then draws and estimates by score (a draw
/// scores 0), then losses (the slowest first). The engine's own order puts what it
/// searched first, which is not what a person reading a list of hints expects.
fn rank(value: engine::Value) -> (u8, i64) {
    match value {
        engine::Value::Win(plies) => (2, -i64::from(plies)),
        engine::Value::Draw => (1, 0),
        engine::Value::Estimate(score) => (1, i64::from(score)),
        engine::Value::Loss(plies) => (0, i64::from(plies)),
    }
}

#[cfg(test)]
mod tests;
