//! One game between inarow, searching in this process as a server seat does, and another
//! Gomocup engine, driven as a manager drives it.
//!
//! inarow plays in-process rather than through `inarow-pbrain` so that its moves are the
//! server's `perfect` seats' exactly (the whole move time for the search, no margin kept
//! back for a pipe); the engine gets the same time a move through `INFO timeout_turn`, and
//! both sides' times are measured here, by the same clock, from the command to the answer.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use inarow_engine::{GameStatus, Move, Player as Side, Rules};

use crate::command::Point;
use crate::engine::{Engine, EngineError};
use crate::manager::{self, about_name, board_command};
use crate::opening::Opening;
use crate::player::Player;
use crate::results::{Colour, Ending, GameRecord, Outcome, SideStats};

/// How long an engine may take to start and answer START: some load files first.
const START_TIME: Duration = Duration::from_secs(30);

/// The least time between an engine's answer and the next command to it. Rapfi, sent its
/// next TURN at once after a move it found at once (inarow answers at once when its probe
/// settles the move), now and then took the line's coordinates for a command of their own
/// and answered `ERROR Unknown command`, as if it were still reading its input for a stop
/// command; no manager sends that fast, since a person or another brain moves in between.
/// The pause is neither side's time.
const ENGINE_GAP: Duration = Duration::from_millis(100);

/// How the games of a match are played.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The engine's executable.
    pub engine: PathBuf,
    /// The time a move, for both sides.
    pub time: Duration,
    /// How much later than `time` an answer may come before it loses on time (Gomocup's
    /// managers allow such a tolerance too, for process and pipe delays).
    pub tolerance: Duration,
    /// The board: 15×15 gomoku for the matches.
    pub rules: Rules,
}

/// Why a game could not be played at all (as opposed to a game lost by a crash, which is
/// a result).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The engine did not start, or did not accept the board.
    #[error("the engine did not start a game: {0}")]
    Engine(#[from] EngineError),
    /// The opening cannot be played on the board.
    #[error("the opening cannot be played: {0}")]
    Opening(String),
}

/// Plays `opening` with inarow as `inarow`, its random choices following `seed`, as a game
/// of the match's `round`.
///
/// # Errors
/// [`SetupError`] when no game could start; a game that starts always gives a record.
pub fn play(
    settings: &Settings,
    opening: &Opening,
    inarow: Colour,
    round: u32,
    seed: u64,
) -> Result<GameRecord, SetupError> {
    let rules = settings.rules;
    let mut position = opening.position(rules).map_err(SetupError::Opening)?;
    let mut engine = Engine::spawn(&settings.engine)?;
    let name = engine
        .about(START_TIME)
        .ok()
        .and_then(|line| about_name(&line))
        .unwrap_or_else(|| settings.engine.display().to_string());
    engine.send(&manager::start_command(rules))?;
    engine.expect_ok(START_TIME)?;
    // No `max_memory`: an engine may size its table from it at its first search, outside
    // its own clock (Rapfi, given Gomocup's 350 MB, answered its first move well after its
    // move time), and then the first move measures the allocation, not the play. Each engine
    // keeps its own default table.
    for info in [
        format!("INFO timeout_turn {}", settings.time.as_millis()),
        "INFO timeout_match 0".to_owned(),
        "INFO time_left 2147483647".to_owned(),
        "INFO thread_num 1".to_owned(),
        "INFO rule 0".to_owned(),
        "INFO game_type 1".to_owned(),
    ] {
        engine.send(&info)?;
    }

    let inarow_side = match inarow {
        Colour::X => Side::X,
        Colour::O => Side::O,
    };
    let mut player = Player::new(seed);
    let mut record = GameRecord {
        opening: opening.text(),
        inarow,
        time_ms: millis(settings.time),
        round,
        outcome: Outcome::Draw,
        ending: Ending::Full,
        detail: String::new(),
        moves: String::new(),
        engine: name,
        inarow_side: SideStats::default(),
        engine_side: SideStats::default(),
    };
    let limit = settings.time + settings.tolerance;
    // Whether the engine has been shown the board; after that it is told each move.
    let mut engine_knows = false;
    let mut engine_answered = Instant::now();
    let ended = loop {
        let to_move = match position.status() {
            GameStatus::InProgress { to_move } => to_move,
            GameStatus::Won { winner, .. } => {
                break (winner == inarow_side, Ending::Five, String::new());
            }
            GameStatus::Drawn => break (false, Ending::Full, String::new()),
        };
        if to_move == inarow_side {
            let thought = player.think(&position, settings.time);
            let ms = millis(thought.elapsed);
            record
                .inarow_side
                .add(ms, thought.analysis.nodes, thought.analysis.depth);
            if thought.elapsed > limit {
                break (false, Ending::Timeout, format!("inarow took {ms} ms"));
            }
            let Some(mv) = thought.analysis.best else {
                break (false, Ending::Illegal, "inarow found no move".into());
            };
            if let Err(e) = position.try_play(mv) {
                break (false, Ending::Illegal, format!("inarow: {e}"));
            }
            continue;
        }
        let command = if engine_knows {
            match position.last_cell() {
                Some(cell) => format!("TURN {}", Point::of(cell, rules)),
                None => "BEGIN".to_owned(),
            }
        } else {
            engine_knows = true;
            board_command(&position, to_move)
        };
        let since = engine_answered.elapsed();
        if since < ENGINE_GAP {
            std::thread::sleep(ENGINE_GAP - since);
        }
        let asked = Instant::now();
        let answer = engine.send(&command).and_then(|()| engine.read_move(limit));
        let elapsed = asked.elapsed();
        engine_answered = Instant::now();
        engine.take_messages();
        let at = match answer {
            Ok(at) => at,
            Err(e) => {
                let ending = match e {
                    EngineError::Timeout(_) => Ending::Timeout,
                    EngineError::Exited | EngineError::Io(_) => Ending::Crash,
                    EngineError::Refused(_) => Ending::Refused,
                    EngineError::NotAMove(_) => Ending::Illegal,
                };
                break (true, ending, e.to_string());
            }
        };
        record.engine_side.add(millis(elapsed), 0, 0);
        let played = at
            .cell(rules)
            .ok_or_else(|| format!("{at} is off the board"))
            .and_then(|cell| {
                position
                    .try_play(Move::Cell(cell))
                    .map_err(|e| format!("{at}: {e}"))
            });
        if let Err(detail) = played {
            break (true, Ending::Illegal, detail);
        }
    };
    let (inarow_won, ending, detail) = ended;
    record.outcome = match (ending, inarow_won) {
        (Ending::Full, _) => Outcome::Draw,
        (_, true) => Outcome::Win,
        (_, false) => Outcome::Loss,
    };
    record.ending = ending;
    record.detail = detail;
    let moves: Vec<String> = position.history().iter().map(|m| m.notation()).collect();
    record.moves = moves.join(" ");
    Ok(record)
}

fn millis(time: Duration) -> u64 {
    u64::try_from(time.as_millis()).unwrap_or(u64::MAX)
}
