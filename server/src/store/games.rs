//! Finished games in the database: the row a room hands to the writer, and the queries
//! `history` and `game` answer from.

use inarow_protocol::{
    GameId, GameStatus, GameSummary, Level, Mark, OpponentTally, PlayedMove, PlayerRecord,
    PlayerRef, RoomId, Rules, Tally,
};
use rusqlite::types::{Type, ValueRef};
use rusqlite::{Connection, OptionalExtension, Row, params};

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

/// A game that has just ended, as a room hands it to the writer: what `history` lists of
/// it, and its moves already as the `moves` column's text ([`MovesJson`]), written from
/// the room's record of the game without a string for each move's notation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EndedGame {
    /// Id, room, players, result and times.
    pub(crate) summary: GameSummary,
    /// Every move, in order, with the time each took, as the `moves` column keeps them.
    pub(crate) moves: String,
}

/// The game as a room would have handed it over (tests write games built as values).
#[cfg(test)]
impl From<FinishedGame> for EndedGame {
    fn from(game: FinishedGame) -> EndedGame {
        EndedGame {
            moves: moves_json(&game.moves),
            summary: game.summary,
        }
    }
}

impl EndedGame {
    /// The moves, read back as the store reads them.
    #[cfg(test)]
    pub(crate) fn played(&self) -> Vec<PlayedMove> {
        moves_from_json(self.moves.as_bytes(), MOVES_COLUMN).expect("the moves column reads")
    }
}

/// One page of `history`, newest first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HistoryPage {
    /// The games of the page.
    pub(crate) games: Vec<GameSummary>,
    /// Whether older games (matching the same filter) remain.
    pub(crate) more: bool,
}

/// The columns a [`GameSummary`] is read from, in the order [`summary`] reads them.
const SUMMARY_COLUMNS: &str = "id, room, number, width, height, k, gravity, x_name, x_ai, \
     o_name, o_ai, result, winner, line, ply, started_at, ended_at, time_control";

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

fn mark_from(text: &str) -> Option<Mark> {
    match text {
        "X" => Some(Mark::X),
        "O" => Some(Mark::O),
        _ => None,
    }
}

fn level_from(text: &str) -> Option<Level> {
    match text {
        "easy" => Some(Level::Easy),
        "medium" => Some(Level::Medium),
        "perfect" => Some(Level::Perfect),
        _ => None,
    }
}

/// A column whose text this server does not recognise: the file was damaged or written
/// by something else.
fn bad_column(column: usize, what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, Type::Text, format!("bad {what}").into())
}

/// A stored id or time as the wire's unsigned number.
fn unsigned(row: &Row<'_>, column: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(column)?;
    u64::try_from(value)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(column, Type::Integer, e.into()))
}

/// Reads a row of [`SUMMARY_COLUMNS`].
fn summary(row: &Row<'_>) -> rusqlite::Result<GameSummary> {
    let player = |name: usize, ai: usize| -> rusqlite::Result<PlayerRef> {
        let level: Option<String> = row.get(ai)?;
        Ok(PlayerRef {
            name: row.get(name)?,
            ai: match level {
                Some(text) => Some(level_from(&text).ok_or_else(|| bad_column(ai, "AI level"))?),
                None => None,
            },
        })
    };
    let result: String = row.get(11)?;
    let winner: Option<String> = row.get(12)?;
    let winner = || {
        winner
            .as_deref()
            .and_then(mark_from)
            .ok_or_else(|| bad_column(12, "winner"))
    };
    let result = match result.as_str() {
        "won" => GameStatus::Won {
            winner: winner()?,
            line: row
                .get::<_, Option<String>>(13)?
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        },
        "resigned" => GameStatus::Resigned { winner: winner()? },
        "timeout" => GameStatus::Timeout { winner: winner()? },
        "drawn" => GameStatus::Drawn,
        "agreed" => GameStatus::Agreed,
        _ => return Err(bad_column(11, "result")),
    };
    Ok(GameSummary {
        game: GameId(unsigned(row, 0)?),
        room: row.get::<_, Option<String>>(1)?.map(RoomId),
        number: row.get(2)?,
        rules: Rules {
            width: row.get(3)?,
            height: row.get(4)?,
            k: row.get(5)?,
            gravity: row.get(6)?,
        },
        x: player(7, 8)?,
        o: player(9, 10)?,
        result,
        ply: row.get(14)?,
        started_at: unsigned(row, 15)?,
        ended_at: unsigned(row, 16)?,
        time_control: match row.get::<_, Option<String>>(17)? {
            Some(text) => {
                Some(serde_json::from_str(&text).map_err(|_| bad_column(17, "time control"))?)
            }
            None => None,
        },
    })
}

/// A page of finished games, newest first: at most `limit`, only those with an id below
/// `before` and, with `name`, only those a player of that name played.
pub(super) fn history(
    conn: &Connection,
    name: Option<&str>,
    limit: u32,
    before: Option<GameId>,
) -> rusqlite::Result<HistoryPage> {
    let before = before.map_or(i64::MAX, |id| i64::try_from(id.0).unwrap_or(i64::MAX));
    // One more than asked, to know whether more remain.
    let fetch = i64::from(limit) + 1;
    let mut games = match name {
        None => conn
            .prepare(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM games WHERE id < ?1 ORDER BY id DESC LIMIT ?2"
            ))?
            .query_map(params![before, fetch], summary)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
        // Each name index gives that name's ids in order; the union of the two is small
        // next to the whole table, which `x_name = ? OR o_name = ?` might scan instead.
        Some(name) => conn
            .prepare(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM games WHERE id IN ( \
                   SELECT id FROM games WHERE x_name = ?1 AND id < ?2 \
                   UNION ALL SELECT id FROM games WHERE o_name = ?1 AND id < ?2) \
                 ORDER BY id DESC LIMIT ?3"
            ))?
            .query_map(params![name, before, fetch], summary)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    let more = games.len() > limit as usize;
    games.truncate(limit as usize);
    Ok(HistoryPage { games, more })
}

/// `name`'s wins, draws and losses over every kept game, in total and against each
/// opponent (a person by name, an AI by level), most games first.
pub(super) fn player_record(conn: &Connection, name: &str) -> rusqlite::Result<PlayerRecord> {
    let mut statement = conn.prepare(
        "SELECT MIN(opp_name), opp_ai, SUM(w), SUM(d), SUM(l), COUNT(*) AS n FROM ( \
           SELECT o_name AS opp_name, o_ai AS opp_ai, winner IS 'X' AS w, \
                  result IN ('drawn', 'agreed') AS d, winner IS 'O' AS l \
             FROM games WHERE x_name = ?1 \
           UNION ALL \
           SELECT x_name, x_ai, winner IS 'O', result IN ('drawn', 'agreed'), winner IS 'X' \
             FROM games WHERE o_name = ?1) \
         GROUP BY CASE WHEN opp_ai IS NULL THEN opp_name END, opp_ai \
         ORDER BY n DESC, opp_ai IS NOT NULL, MIN(opp_name), opp_ai",
    )?;
    let opponents = statement
        .query_map(params![name], |row| {
            let level: Option<String> = row.get(1)?;
            Ok(OpponentTally {
                opponent: PlayerRef {
                    name: row.get(0)?,
                    ai: match level {
                        Some(text) => {
                            Some(level_from(&text).ok_or_else(|| bad_column(1, "AI level"))?)
                        }
                        None => None,
                    },
                },
                tally: Tally {
                    wins: row.get(2)?,
                    draws: row.get(3)?,
                    losses: row.get(4)?,
                },
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let total = opponents.iter().fold(Tally::default(), |sum, o| Tally {
        wins: sum.wins + o.tally.wins,
        draws: sum.draws + o.tally.draws,
        losses: sum.losses + o.tally.losses,
    });
    Ok(PlayerRecord {
        name: name.to_owned(),
        total,
        opponents,
    })
}

/// One finished game with its moves; `None` if no game has that id.
pub(super) fn game(conn: &Connection, id: GameId) -> rusqlite::Result<Option<FinishedGame>> {
    let Ok(key) = i64::try_from(id.0) else {
        return Ok(None);
    };
    conn.prepare(&format!(
        "SELECT {SUMMARY_COLUMNS}, moves FROM games WHERE id = ?1"
    ))?
    .query_row(params![key], |row| {
        Ok(FinishedGame {
            summary: summary(row)?,
            moves: moves(row, MOVES_COLUMN)?,
        })
    })
    .optional()
}

/// Where `game`'s query has the moves column: right after [`SUMMARY_COLUMNS`].
const MOVES_COLUMN: usize = 18;

/// A game's moves as [`MovesJson`] wrote them.
fn moves(row: &Row<'_>, column: usize) -> rusqlite::Result<Vec<PlayedMove>> {
    let ValueRef::Text(text) = row.get_ref(column)? else {
        return Err(bad_column(column, "moves"));
    };
    moves_from_json(text, column)
}

/// The moves of a `moves` column's `text` (the column `column` of its row, for errors).
fn moves_from_json(text: &[u8], column: usize) -> rusqlite::Result<Vec<PlayedMove>> {
    // `by` is read as text and checked by `mark_from`, as the other mark columns are,
    // rather than through `Mark`'s wire format.
    // A timed game's moves carry a fifth element, the mover's clock after the move.
    let stored: Vec<StoredMove> = serde_json::from_slice(text)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(column, Type::Text, e.into()))?;
    stored
        .into_iter()
        .map(|stored| {
            let (mv, cell, by, ms, clock_ms) = match stored {
                StoredMove::Untimed(mv, cell, by, ms) => (mv, cell, by, ms, None),
                StoredMove::Timed(mv, cell, by, ms, clock) => (mv, cell, by, ms, Some(clock)),
            };
            Ok(PlayedMove {
                mv,
                cell,
                by: mark_from(&by).ok_or_else(|| bad_column(column, "mark"))?,
                ms,
                clock_ms,
            })
        })
        .collect()
}

/// One move of the `moves` column: `[move, cell, by, ms]`, and in a timed game
/// `[move, cell, by, ms, clock]`.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum StoredMove {
    Timed(String, String, String, u64, u64),
    Untimed(String, String, String, u64),
}

/// [`MovesJson`] of `moves`, as a room's [`super::Write::Game`] of them writes it.
#[cfg(test)]
pub(super) fn moves_json(moves: &[PlayedMove]) -> String {
    let mut json = MovesJson::new(moves.len());
    for played in moves {
        json.push(
            &played.mv,
            &played.cell,
            played.by,
            played.ms,
            played.clock_ms,
        );
    }
    json.finish()
}

/// A game's moves as the text of its `moves` column, written one move at a time: a JSON
/// array with one `[move, cell, by, ms]` array per move, in order, written compactly so
/// that it is exactly the text migration 3's `json_group_array(json_array(..))` made of
/// the moves table (serde_json's escaping of each string is SQLite's `json_quote`'s:
/// tested).
pub(crate) struct MovesJson {
    out: String,
}

impl MovesJson {
    /// An empty list, with room for `moves` moves of short notation.
    pub(crate) fn new(moves: usize) -> MovesJson {
        // Per move: brackets, quotes, commas and the mark (13 bytes), two notations of up
        // to 4 bytes and a time of up to 7 digits (under 2.8 hours); more only grows it.
        let mut out = String::with_capacity(2 + 28 * moves);
        out.push('[');
        MovesJson { out }
    }

    /// Appends a move: its notation, the cell where it landed, the mark that played it
    /// and how long its player took.
    pub(crate) fn push(&mut self, mv: &str, cell: &str, by: Mark, ms: u64, clock: Option<u64>) {
        let out = &mut self.out;
        if out.len() > 1 {
            out.push(',');
        }
        out.push('[');
        // A string always encodes.
        out.push_str(&serde_json::to_string(mv).unwrap_or_default());
        out.push(',');
        out.push_str(&serde_json::to_string(cell).unwrap_or_default());
        out.push_str(match by {
            Mark::X => ",\"X\",",
            Mark::O => ",\"O\",",
        });
        out.push_str(&ms.to_string());
        if let Some(clock) = clock {
            out.push(',');
            out.push_str(&clock.to_string());
        }
        out.push(']');
    }

    /// The text.
    pub(crate) fn finish(mut self) -> String {
        self.out.push(']');
        self.out
    }
}

/// Inserts `game`: one row, its moves a JSON column ([`MovesJson`]). A game's moves are
/// written once and read whole, so one column costs one parameter where a row per move
/// cost a B-tree insert and six parameters each.
pub(super) fn insert(tx: &Connection, game: &EndedGame) -> rusqlite::Result<()> {
    let s = &game.summary;
    let (result, winner, line) = match &s.result {
        GameStatus::Won { winner, line } => ("won", Some(mark_text(*winner)), Some(line.join(" "))),
        GameStatus::Drawn => ("drawn", None, None),
        GameStatus::Resigned { winner } => ("resigned", Some(mark_text(*winner)), None),
        GameStatus::Timeout { winner } => ("timeout", Some(mark_text(*winner)), None),
        GameStatus::Agreed => ("agreed", None, None),
        // Only finished games are handed to the store (an aborted one is not); a status
        // that is not an ending is kept as it came rather than lost.
        GameStatus::Waiting | GameStatus::Playing { .. } | GameStatus::Aborted => {
            ("unfinished", None, None)
        }
    };
    super::execute(
        tx,
        "INSERT INTO games (id, room, number, width, height, k, gravity, x_name, x_ai, \
         o_name, o_ai, result, winner, line, ply, started_at, ended_at, moves, time_control) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
         ?18, ?19)",
        params![
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
            game.moves,
            s.time_control
                .map(|c| serde_json::to_string(&c).unwrap_or_default()),
        ],
    )?;
    Ok(())
}
