//! Live rooms and sessions in the database, so that a restart, or a crash, loses no game:
//! the rows rooms and the session registry write as things happen (a room's record when
//! its seats or game change, one row per move, chat lines, a session's token hash), the
//! whole rooms saved at shutdown, and reading it all back at start.
//!
//! A move is one appended row (`live_moves`), never the whole room. The writer commits
//! whatever is queued as soon as it has it, so a crash loses at most the writes of the
//! last moment. A row that cannot be read back (not written by this server, or damaged)
//! is logged and skipped, never a panic; the room it belonged to is not restored.

use std::collections::HashMap;

use inarow_protocol::{RoomId, SessionId};
use rusqlite::{Connection, params};

use super::{StoreError, execute};
use crate::store::saved::{SavedChat, SavedMove, SavedRoom, SessionRecord, TableRecord};

/// A write about a live room or session.
#[derive(Debug)]
pub(crate) enum LiveWrite {
    /// A room's record, new or changed. Moves of its earlier games go with it.
    Room(Box<TableRecord>),
    /// A move of a room's current game.
    Move {
        /// The room.
        room: RoomId,
        /// The move.
        mv: SavedMove,
    },
    /// A chat line; the room keeps its last [`CHAT_KEPT`].
    Chat {
        /// The room.
        room: RoomId,
        /// The line.
        line: SavedChat,
    },
    /// A whole room, replacing whatever was kept of it (at shutdown).
    Saved(Box<SavedRoom>),
    /// A room closed as usual: nothing of it is kept.
    RoomClosed(RoomId),
    /// A session opened, or resumed with a new token: connected, so no expiry.
    Session(SessionRecord),
    /// A session's connection ended: its grace runs out at `expires_at`.
    SessionDetached {
        /// The session.
        session: SessionId,
        /// When its grace period ends, in ms since the Unix epoch.
        expires_at: u64,
    },
    /// A session ended (its grace ran out): nothing of it is kept.
    SessionEnded(SessionId),
}

/// Chat lines kept per room.
const CHAT_KEPT: usize = crate::store::saved::CHAT_TAIL;

/// A session as read back: its record and when its grace runs out (`None`: it was
/// connected when last written).
pub(crate) type LoadedSession = (SessionRecord, Option<u64>);

/// Everything live the database holds.
#[derive(Debug, Default)]
pub(crate) struct Live {
    /// Rooms that were open, each with its current game's moves and chat tail.
    pub(crate) rooms: Vec<SavedRoom>,
    /// Rooms whose rows could not be read: to be forgotten.
    pub(crate) unreadable_rooms: Vec<RoomId>,
    /// Sessions that were live or within their grace.
    pub(crate) sessions: Vec<LoadedSession>,
}

impl LiveWrite {
    /// What the logs call this write (no token material: a hash is not one, but it is
    /// not logged either).
    pub(crate) fn describe(&self) -> String {
        match self {
            LiveWrite::Room(record) => format!("room {} record", record.id),
            LiveWrite::Move { room, mv } => format!("room {room} move {}", mv.ply),
            LiveWrite::Chat { room, line } => format!("room {room} chat {}", line.seq),
            LiveWrite::Saved(room) => format!("room {} saved", room.table.id),
            LiveWrite::RoomClosed(room) => format!("room {room} closed"),
            LiveWrite::Session(record) => format!("session {}", record.session),
            LiveWrite::SessionDetached { session, .. } => format!("session {session} detached"),
            LiveWrite::SessionEnded(session) => format!("session {session} ended"),
        }
    }

    /// Writes this in `tx`; writing it twice is harmless.
    pub(crate) fn apply(&self, tx: &Connection) -> rusqlite::Result<()> {
        match self {
            LiveWrite::Room(record) => put_record(tx, record),
            LiveWrite::Move { room, mv } => put_move(tx, room, mv),
            LiveWrite::Chat { room, line } => {
                put_chat(tx, room, line)?;
                execute(
                    tx,
                    "DELETE FROM live_chat WHERE room = ?1 AND seq <= \
                     (SELECT seq FROM live_chat WHERE room = ?1 ORDER BY seq DESC \
                      LIMIT 1 OFFSET ?2)",
                    params![room.0, CHAT_KEPT as i64],
                )?;
                Ok(())
            }
            LiveWrite::Saved(room) => {
                forget_room(tx, &room.table.id)?;
                put_record(tx, &room.table)?;
                for mv in &room.moves {
                    put_move(tx, &room.table.id, mv)?;
                }
                for line in &room.chat {
                    put_chat(tx, &room.table.id, line)?;
                }
                Ok(())
            }
            LiveWrite::RoomClosed(room) => forget_room(tx, room),
            LiveWrite::Session(record) => {
                execute(
                    tx,
                    "INSERT OR REPLACE INTO live_sessions \
                     (id, name, selector, verifier_hash, expires_at) \
                     VALUES (?1, ?2, ?3, ?4, NULL)",
                    params![
                        record.session.0.to_string(),
                        record.name,
                        record.selector,
                        &record.verifier_hash[..],
                    ],
                )?;
                Ok(())
            }
            LiveWrite::SessionDetached {
                session,
                expires_at,
            } => {
                execute(
                    tx,
                    "UPDATE live_sessions SET expires_at = ?2 WHERE id = ?1",
                    params![
                        session.0.to_string(),
                        i64::try_from(*expires_at).unwrap_or(i64::MAX)
                    ],
                )?;
                Ok(())
            }
            LiveWrite::SessionEnded(session) => {
                execute(
                    tx,
                    "DELETE FROM live_sessions WHERE id = ?1",
                    params![session.0.to_string()],
                )?;
                Ok(())
            }
        }
    }
}

fn put_record(tx: &Connection, record: &TableRecord) -> rusqlite::Result<()> {
    let json = serde_json::to_string(record)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    execute(
        tx,
        "INSERT OR REPLACE INTO live_rooms (id, record) VALUES (?1, ?2)",
        params![record.id.0, json],
    )?;
    // A rematch started a new game: the old one's moves are history now.
    execute(
        tx,
        "DELETE FROM live_moves WHERE room = ?1 AND game < ?2",
        params![record.id.0, record.game],
    )?;
    Ok(())
}

fn put_move(tx: &Connection, room: &RoomId, mv: &SavedMove) -> rusqlite::Result<()> {
    execute(
        tx,
        "INSERT OR REPLACE INTO live_moves (room, game, ply, move, seq, ms, clock) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            room.0,
            mv.game,
            mv.ply,
            mv.mv,
            i64::try_from(mv.seq).unwrap_or(i64::MAX),
            i64::try_from(mv.ms).unwrap_or(i64::MAX),
            mv.clock.map(|[x, o]| format!("[{x},{o}]")),
        ],
    )?;
    Ok(())
}

fn put_chat(tx: &Connection, room: &RoomId, line: &SavedChat) -> rusqlite::Result<()> {
    let json = serde_json::to_string(line)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    execute(
        tx,
        "INSERT OR REPLACE INTO live_chat (room, seq, line) VALUES (?1, ?2, ?3)",
        params![room.0, i64::try_from(line.seq).unwrap_or(i64::MAX), json],
    )?;
    Ok(())
}

fn forget_room(tx: &Connection, room: &RoomId) -> rusqlite::Result<()> {
    for sql in [
        "DELETE FROM live_moves WHERE room = ?1",
        "DELETE FROM live_chat WHERE room = ?1",
        "DELETE FROM live_rooms WHERE id = ?1",
    ] {
        execute(tx, sql, params![room.0])?;
    }
    Ok(())
}

/// Reads every live room and session. Unreadable rows are logged and skipped; a room
/// with an unreadable record, move or chat line is listed in
/// [`Live::unreadable_rooms`] instead.
///
/// # Errors
/// [`StoreError::Query`] if the tables cannot be read at all.
pub(crate) fn load(conn: &Connection) -> Result<Live, StoreError> {
    let mut live = Live::default();
    let mut records = Vec::new();
    let mut rows = conn.prepare("SELECT id, record FROM live_rooms")?;
    let mut query = rows.query([])?;
    while let Some(row) = query.next()? {
        let id: String = row.get(0)?;
        let parsed = row
            .get::<_, String>(1)
            .map_err(|e| e.to_string())
            .and_then(|json| serde_json::from_str::<TableRecord>(&json).map_err(|e| e.to_string()));
        match parsed {
            Ok(record) if record.id.0 == id => records.push(record),
            Ok(_) => {
                tracing::warn!(room = %id, "saved room names another id; not restored");
                live.unreadable_rooms.push(RoomId(id));
            }
            Err(error) => {
                tracing::warn!(room = %id, %error, "saved room unreadable; not restored");
                live.unreadable_rooms.push(RoomId(id));
            }
        }
    }
    let mut moves: HashMap<String, Vec<SavedMove>> = HashMap::new();
    let mut bad: Vec<String> = Vec::new();
    let mut rows = conn.prepare(
        "SELECT room, game, ply, move, seq, ms, clock FROM live_moves \
         ORDER BY room, game, ply",
    )?;
    let mut query = rows.query([])?;
    while let Some(row) = query.next()? {
        let room: String = row.get(0)?;
        let read = (|| -> rusqlite::Result<SavedMove> {
            Ok(SavedMove {
                game: row.get(1)?,
                ply: row.get(2)?,
                mv: row.get(3)?,
                seq: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                ms: u64::try_from(row.get::<_, i64>(5)?).unwrap_or(0),
                clock: match row.get::<_, Option<String>>(6)? {
                    Some(text) => Some(serde_json::from_str(&text).map_err(|e| {
                        rusqlite::Error::FromSqlConversionFailure(
                            6,
                            rusqlite::types::Type::Text,
                            Box::new(e),
                        )
                    })?),
                    None => None,
                },
            })
        })();
        match read {
            Ok(mv) => moves.entry(room).or_default().push(mv),
            Err(error) => {
                tracing::warn!(%room, %error, "saved move unreadable");
                bad.push(room);
            }
        }
    }
    let mut chat: HashMap<String, Vec<SavedChat>> = HashMap::new();
    let mut rows = conn.prepare("SELECT room, line FROM live_chat ORDER BY room, seq")?;
    let mut query = rows.query([])?;
    while let Some(row) = query.next()? {
        let room: String = row.get(0)?;
        let line = row
            .get::<_, String>(1)
            .map_err(|e| e.to_string())
            .and_then(|json| serde_json::from_str::<SavedChat>(&json).map_err(|e| e.to_string()));
        match line {
            Ok(line) => chat.entry(room).or_default().push(line),
            // A lost chat line costs nothing of the game: keep the room.
            Err(error) => tracing::warn!(%room, %error, "saved chat line unreadable; skipped"),
        }
    }
    for record in records {
        if bad.contains(&record.id.0) {
            live.unreadable_rooms.push(record.id);
            continue;
        }
        let game = record.game;
        let moves = moves
            .remove(&record.id.0)
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m.game == game)
            .collect();
        let chat = chat.remove(&record.id.0).unwrap_or_default();
        live.rooms.push(SavedRoom {
            table: record,
            moves,
            chat,
        });
    }
    let mut rows =
        conn.prepare("SELECT id, name, selector, verifier_hash, expires_at FROM live_sessions")?;
    let mut query = rows.query([])?;
    while let Some(row) = query.next()? {
        let id: String = row.get(0).unwrap_or_default();
        let read = (|| -> Result<LoadedSession, String> {
            let session = uuid::Uuid::parse_str(&id).map_err(|e| e.to_string())?;
            let hash: Vec<u8> = row.get(3).map_err(|e| e.to_string())?;
            let verifier_hash: [u8; 32] = hash
                .try_into()
                .map_err(|h: Vec<u8>| format!("a hash of {} bytes", h.len()))?;
            let expires_at: Option<i64> = row.get(4).map_err(|e| e.to_string())?;
            Ok((
                SessionRecord {
                    session: SessionId(session),
                    name: row.get(1).map_err(|e| e.to_string())?,
                    selector: row.get(2).map_err(|e| e.to_string())?,
                    verifier_hash,
                },
                expires_at.map(|t| u64::try_from(t).unwrap_or(0)),
            ))
        })();
        match read {
            Ok(session) => live.sessions.push(session),
            Err(error) => {
                tracing::warn!(session = %id, %error, "saved session unreadable; skipped")
            }
        }
    }
    Ok(live)
}

impl super::Store {
    /// Whether live rooms and sessions are kept: only with a data file, since nothing
    /// in memory outlives the process.
    pub(crate) fn keeps_live(&self) -> bool {
        matches!(self.location(), super::DataLocation::File(_))
    }

    /// Reads every live room and session (see [`load`]) on the blocking pool, on a
    /// connection of its own that is closed afterwards: a read at start has no reason to
    /// hold a pooled connection (and the file) open for later reads. Nothing when live
    /// rooms are not kept.
    ///
    /// # Errors
    /// [`StoreError`] if the file cannot be opened or its tables read.
    pub(crate) async fn load_live(&self) -> Result<Live, StoreError> {
        let super::DataLocation::File(path) = self.location().clone() else {
            return Ok(Live::default());
        };
        tokio::task::spawn_blocking(move || load(&super::open_reader(&path)?))
            .await
            .map_err(|_| StoreError::Closed)?
    }

    /// Queues `write` when live rooms are kept (see [`super::Store::keeps_live`]);
    /// never waits.
    pub(crate) fn checkpoint(&self, write: LiveWrite) {
        if self.keeps_live() {
            self.write(super::Write::Live(write));
        }
    }
}

#[cfg(test)]
mod tests {
    use inarow_protocol::{Level, Mark, Rules};
    use rusqlite::TransactionBehavior;

    use super::*;
    use crate::store::saved::SavedSeat;

    fn database() -> Connection {
        let mut conn = Connection::open_in_memory().expect("an in-memory database");
        super::super::schema::migrate(&mut conn).expect("the schema");
        conn
    }

    fn write(conn: &mut Connection, writes: &[LiveWrite]) {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .expect("a transaction");
        for w in writes {
            w.apply(&tx).expect("the write applies");
        }
        tx.commit().expect("it commits");
    }

    fn session(n: u128) -> SessionId {
        SessionId(uuid::Uuid::from_u128(n))
    }

    fn record(id: &str, game: u32) -> TableRecord {
        TableRecord {
            id: RoomId::from(id),
            name: "ann's room".into(),
            private: false,
            creator: session(1),
            hints: false,
            rules: Rules {
                width: 3,
                height: 3,
                k: 3,
                gravity: false,
            },
            game,
            seq: 7,
            started_at: Some(1_000),
            last_game: None,
            seats: [
                SavedSeat::Human {
                    session: session(1),
                    name: "ann".into(),
                    rematch: false,
                },
                SavedSeat::Ai {
                    level: Level::Perfect,
                },
            ],
            resigned: None,
            time_control: None,
            takebacks: true,
            ending: None,
            clock: None,
        }
    }

    fn mv(game: u32, ply: u32, mv: &str) -> LiveWrite {
        LiveWrite::Move {
            room: RoomId::from("room1"),
            mv: SavedMove {
                game,
                ply,
                mv: mv.into(),
                seq: 10 + u64::from(ply),
                ms: 250,
                clock: None,
            },
        }
    }

    #[test]
    fn rooms_and_sessions_read_back_as_written() {
        let mut conn = database();
        let ann = SessionRecord {
            session: session(1),
            name: "ann".into(),
            selector: "0123456789abcdef".into(),
            verifier_hash: [7; 32],
        };
        write(
            &mut conn,
            &[
                LiveWrite::Session(ann.clone()),
                LiveWrite::Room(Box::new(record("room1", 1))),
                mv(1, 0, "b2"),
                mv(1, 1, "a1"),
                // A rematch: game 2's record drops game 1's moves.
                LiveWrite::Room(Box::new(record("room1", 2))),
                mv(2, 0, "c3"),
                // Written twice after a retried commit: still one row.
                mv(2, 0, "c3"),
                LiveWrite::SessionDetached {
                    session: session(1),
                    expires_at: 1_000,
                },
                LiveWrite::Room(Box::new(record("gone", 1))),
                LiveWrite::RoomClosed(RoomId::from("gone")),
            ],
        );
        for seq in 0..(CHAT_KEPT as u64 + 5) {
            let line = SavedChat {
                seq,
                from: "ann".into(),
                seat: Some(Mark::X),
                text: format!("line {seq}"),
            };
            write(
                &mut conn,
                &[LiveWrite::Chat {
                    room: RoomId::from("room1"),
                    line,
                }],
            );
        }
        let live = load(&conn).expect("it loads");
        assert!(live.unreadable_rooms.is_empty());
        assert_eq!(live.rooms.len(), 1, "the closed room is gone");
        let room = &live.rooms[0];
        assert_eq!(room.table, record("room1", 2));
        let moves: Vec<_> = room
            .moves
            .iter()
            .map(|m| (m.game, m.ply, m.mv.as_str()))
            .collect();
        assert_eq!(moves, vec![(2, 0, "c3")]);
        assert_eq!(room.chat.len(), CHAT_KEPT, "only the tail is kept");
        assert_eq!(room.chat.last().map(|c| c.seq), Some(CHAT_KEPT as u64 + 4));
        assert_eq!(live.sessions, vec![(ann, Some(1_000))]);

        write(&mut conn, &[LiveWrite::SessionEnded(session(1))]);
        assert!(load(&conn).expect("it loads").sessions.is_empty());
    }

    #[test]
    fn a_saved_room_replaces_what_was_kept_of_it() {
        let mut conn = database();
        write(
            &mut conn,
            &[
                LiveWrite::Room(Box::new(record("room1", 1))),
                mv(1, 0, "b2"),
                mv(1, 1, "a1"),
                mv(1, 2, "c1"),
            ],
        );
        let saved = SavedRoom {
            table: record("room1", 1),
            moves: vec![SavedMove {
                game: 1,
                ply: 0,
                mv: "b2".into(),
                seq: 12,
                ms: 0,
                clock: None,
            }],
            chat: Vec::new(),
        };
        write(&mut conn, &[LiveWrite::Saved(Box::new(saved.clone()))]);
        let live = load(&conn).expect("it loads");
        assert_eq!(live.rooms, vec![saved]);
    }

    #[test]
    fn unreadable_rows_are_skipped_not_fatal() {
        let mut conn = database();
        write(
            &mut conn,
            &[
                LiveWrite::Room(Box::new(record("room1", 1))),
                LiveWrite::Room(Box::new(record("room2", 1))),
                LiveWrite::Room(Box::new(record("room3", 1))),
            ],
        );
        conn.execute_batch(
            "UPDATE live_rooms SET record = '{not json' WHERE id = 'room1';
             UPDATE live_rooms SET record = replace(record, 'room3', 'other') WHERE id = 'room3';
             INSERT INTO live_moves VALUES ('room2', 1, 0, 'b2', 'not a number', 0, NULL);
             INSERT INTO live_chat VALUES ('room2', 1, 'garbage');
             INSERT INTO live_sessions VALUES ('not a uuid', 'x', 'sel', x'00', NULL);
             INSERT INTO live_sessions VALUES
                 ('00000000-0000-0000-0000-000000000002', 'bob', 'sel2', x'0102', NULL);",
        )
        .expect("damage done");
        let live = load(&conn).expect("damage is not fatal");
        let mut unreadable: Vec<String> =
            live.unreadable_rooms.iter().map(|r| r.0.clone()).collect();
        unreadable.sort();
        assert_eq!(unreadable, vec!["room1", "room2", "room3"]);
        assert!(live.rooms.is_empty());
        assert!(live.sessions.is_empty());
    }
}
