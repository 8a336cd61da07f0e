//! Finished games in the database: the row a room hands to the writer, and the queries
//! `history` and `game` answer from.

use inarow_protocol::{GameStatus, GameSummary, Level, Mark, PlayedMove};
use rusqlite::{Transaction, params};

/// A game that has ended, as the room hands it to the store: what `history` lists of it,
/// and every move. Its record text is built when it is read, so the text format can
/// change without touching stored games.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FinishedGame {
    /// Id, room, players, result and times.
    pub(crate) summary: GameSummary,
    /// Every move, in order, with the time each took.
    pub(crate) moves: Vec<PlayedMove>,
}

/// The text of a mark in the database.
pub(super) fn mark_text(mark: Mark) -> &'static str {
    match mark {
        Mark::X => "X",
        Mark::O => "O",
    }
}

/// The text of an AI level in the database (its wire name).
pub(super) fn level_text(level: Level) -> &'static str {
    match level {
        Level::Easy => "easy",
        Level::Medium => "medium",
        Level::Perfect => "perfect",
    }
}

/// Inserts `game` and its moves.
pub(super) fn insert(tx: &Transaction<'_>, game: &FinishedGame) -> rusqlite::Result<()> {
    let s = &game.summary;
    let (result, winner, line) = match &s.result {
        GameStatus::Won { winner, line } => ("won", Some(mark_text(*winner)), Some(line.join(" "))),
        GameStatus::Drawn => ("drawn", None, None),
        GameStatus::Resigned { winner } => ("resigned", Some(mark_text(*winner)), None),
        // Only finished games are handed to the store; a status that is not an ending is
        // kept as it came rather than lost.
        GameStatus::Waiting | GameStatus::Playing { .. } => ("unfinished", None, None),
    };
    tx.prepare(
        "INSERT INTO games (id, room, number, width, height, k, gravity, x_name, x_ai, \
         o_name, o_ai, result, winner, line, ply, started_at, ended_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    )?
    .execute(params![
        s.game.0 as i64,
        s.room.as_ref().map(|r| r.0.as_str()),
        s.number,
        s.rules.width,
        s.rules.height,
        s.rules.k,
        s.rules.gravity,
        s.x.name,
        s.x.ai.map(level_text),
        s.o.name,
        s.o.ai.map(level_text),
        result,
        winner,
        line,
        s.ply,
        s.started_at as i64,
        s.ended_at as i64,
    ])?;
    let mut insert_move = tx.prepare(
        "INSERT INTO moves (game, ply, move, cell, by, ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (ply, played) in game.moves.iter().enumerate() {
        insert_move.execute(params![
            s.game.0 as i64,
            ply as i64,
            played.mv,
            played.cell,
            mark_text(played.by),
            played.ms as i64,
        ])?;
    }
    Ok(())
}
