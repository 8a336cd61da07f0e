//! The database schema as a list of versioned migrations, applied in order at open.
//!
//! A database file records the last migration applied in `PRAGMA user_version`. To change
//! the schema, append a [`Migration`] with the next version number; never edit one that
//! has shipped, since files in the field already ran it.

use rusqlite::{Connection, TransactionBehavior};

/// One step of the schema: the SQL that takes a database from `version - 1` to `version`.
pub(crate) struct Migration {
    /// The `user_version` the database has once this step ran.
    pub(crate) version: u32,
    /// The statements of the step, run in one transaction with the version bump.
    pub(crate) sql: &'static str,
}

/// Every migration, oldest first, versions counting up from 1 without gaps.
pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        // Finished games and their moves. `room` is NULL for a private room, whose id is its
        // invite code. `result` is `won`, `drawn` or `resigned`; `winner` the mark that won
        // (NULL for a draw); `line` the winning cells separated by spaces (only for `won`).
        // Listing newest first walks the integer primary key backwards; listing one name's
        // games uses the two name indexes.
        sql: "
        CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            room TEXT,
            number INTEGER NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            k INTEGER NOT NULL,
            gravity INTEGER NOT NULL,
            x_name TEXT NOT NULL,
            x_ai TEXT,
            o_name TEXT NOT NULL,
            o_ai TEXT,
            result TEXT NOT NULL,
            winner TEXT,
            line TEXT,
            ply INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            ended_at INTEGER NOT NULL
        );
        CREATE INDEX games_by_x_name ON games (x_name, id);
        CREATE INDEX games_by_o_name ON games (o_name, id);
        CREATE TABLE moves (
            game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            ply INTEGER NOT NULL,
            move TEXT NOT NULL,
            cell TEXT NOT NULL,
            by TEXT NOT NULL,
            ms INTEGER NOT NULL,
            PRIMARY KEY (game, ply)
        ) WITHOUT ROWID;
    ",
    },
    Migration {
        version: 2,
        // Live rooms and sessions, kept so that a restart or a crash loses no game
        // (`store::live`). A room's `record` is JSON (rules, seats, game number, rematch
        // flags, resignation, seq), rewritten when one of those changes; each move of its
        // current game is one row of `live_moves`, appended as it is played; `live_chat`
        // holds its last lines as JSON. A session keeps its token's selector and the SHA-256
        // of the verifier, never the token; `expires_at` (ms since the epoch) is when its
        // grace ends, NULL while connected. No foreign keys: rows are written in order by
        // one writer and a room's rows are deleted together when it closes.
        sql: "
        CREATE TABLE live_rooms (
            id TEXT PRIMARY KEY,
            record TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE live_moves (
            room TEXT NOT NULL,
            game INTEGER NOT NULL,
            ply INTEGER NOT NULL,
            move TEXT NOT NULL,
            seq INTEGER NOT NULL,
            ms INTEGER NOT NULL,
            PRIMARY KEY (room, game, ply)
        ) WITHOUT ROWID;
        CREATE TABLE live_chat (
            room TEXT NOT NULL,
            seq INTEGER NOT NULL,
            line TEXT NOT NULL,
            PRIMARY KEY (room, seq)
        ) WITHOUT ROWID;
        CREATE TABLE live_sessions (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            selector TEXT NOT NULL,
            verifier_hash BLOB NOT NULL,
            expires_at INTEGER
        ) WITHOUT ROWID;
    ",
    },
    Migration {
        version: 3,
        // A game's moves become one column of its row, replacing the `moves` table of
        // version 1: they are written once, whole, when the game ends and only ever read
        // whole, and a row per move cost a B-tree insert and six parameters each, the
        // biggest part of the writer's work when hundreds of games end a second. The
        // column is a JSON array with one `[move, cell, by, ms]` array per move in ply
        // order, e.g. `[["b2","b2","X",1200],["a1","a1","O",800]]`: JSON so that SQL can
        // still reach single moves through `json_each`. The existing moves are copied in
        // with SQLite's own compact JSON, the same text `games::MovesJson` writes; a game
        // with no moves gets `[]` (`json_group_array` over no rows).
        sql: "
        ALTER TABLE games ADD COLUMN moves TEXT NOT NULL DEFAULT '[]';
        UPDATE games SET moves = (
            SELECT json_group_array(json_array(m.move, m.cell, m.by, m.ms) ORDER BY m.ply)
            FROM moves AS m WHERE m.game = games.id
        );
        DROP TABLE moves;
    ",
    },
    Migration {
        version: 4,
        // Clocks. A finished game's `time_control` is the JSON of the wire's
        // `TimeControl` (NULL for a game without a clock); its timed moves carry a fifth
        // element in `moves`, the mover's remaining ms after the move. A live move's
        // `clock` is both remaining times after it, JSON `[x_ms, o_ms]` (NULL untimed),
        // so that a restart (or a crash) brings the clocks back.
        sql: "
        ALTER TABLE games ADD COLUMN time_control TEXT;
        ALTER TABLE live_moves ADD COLUMN clock TEXT;
    ",
    },
];

/// The schema version this build writes: the last migration's.
pub(crate) fn latest() -> u32 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// Why the schema could not be brought up to date.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MigrateError {
    /// The file was written by a newer build; this one does not know its schema and must
    /// not write to it.
    #[error("the database has schema version {found}, newer than this server's {known}")]
    TooNew {
        /// The file's `user_version`.
        found: u32,
        /// The newest version this build knows.
        known: u32,
    },
    /// SQLite refused a step.
    #[error("migration to version {version} failed: {source}")]
    Step {
        /// The step that failed.
        version: u32,
        /// Why.
        source: rusqlite::Error,
    },
    /// Reading or committing the version failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
}

/// Applies every migration newer than the database's `user_version`, all in one
/// transaction (a crash midway leaves the file as it was); returns the version before.
pub(crate) fn migrate(conn: &mut Connection) -> Result<u32, MigrateError> {
    // IMMEDIATE takes the write lock first, so two servers opening one file at once
    // cannot both decide to run the same step.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: u32 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let known = latest();
    if found > known {
        return Err(MigrateError::TooNew { found, known });
    }
    for step in MIGRATIONS.iter().filter(|m| m.version > found) {
        tx.execute_batch(step.sql)
            .map_err(|source| MigrateError::Step {
                version: step.version,
                source,
            })?;
        tx.pragma_update(None, "user_version", step.version)?;
    }
    tx.commit()?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one() {
        for (i, step) in MIGRATIONS.iter().enumerate() {
            assert_eq!(step.version as usize, i + 1);
        }
    }

    #[test]
    fn a_fresh_database_gets_every_step_and_a_second_run_none() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), 0);
        assert_eq!(migrate(&mut conn).unwrap(), latest());
        let version: u32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, latest());
    }

    #[test]
    fn a_newer_database_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", latest() + 1)
            .unwrap();
        let err = migrate(&mut conn).unwrap_err();
        assert!(matches!(err, MigrateError::TooNew { .. }), "{err}");
    }
}
