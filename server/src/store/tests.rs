//! The store against real files in a temporary directory and in memory: migrations at
//! open, the writer's batching, flushing and retrying, and the game queries.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use inarow_protocol::{
    GameId, GameStatus, GameSummary, Level, Mark, PlayedMove, PlayerRef, RoomId, Rules,
};
use rusqlite::Connection;

use super::*;

/// A finished tic-tac-toe game with id `id` between `x` and `o` (`None`: an AI).
pub(super) fn game(id: u64, x: &str, o: &str, result: GameStatus) -> FinishedGame {
    let player = |name: &str| PlayerRef {
        name: name.to_owned(),
        ai: name.strip_prefix("AI ").map(|level| match level {
            "easy" => Level::Easy,
            "medium" => Level::Medium,
            _ => Level::Perfect,
        }),
    };
    let moves: Vec<PlayedMove> = ["b2", "a1", "c3"]
        .iter()
        .enumerate()
        .map(|(i, cell)| PlayedMove {
            mv: (*cell).to_owned(),
            cell: (*cell).to_owned(),
            by: if i % 2 == 0 { Mark::X } else { Mark::O },
            ms: 100 * (i as u64 + 1),
        })
        .collect();
    FinishedGame {
        summary: GameSummary {
            game: GameId(id),
            room: Some(RoomId("k7m2q9xa".into())),
            number: 1,
            rules: Rules {
                width: 3,
                height: 3,
                k: 3,
                gravity: false,
            },
            x: player(x),
            o: player(o),
            result,
            ply: moves.len() as u32,
            started_at: 1_795_450_800_000 + id,
            ended_at: 1_795_450_861_250 + id,
        },
        moves,
    }
}

fn drawn() -> GameStatus {
    GameStatus::Drawn
}

fn count(conn: &Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// Waits (without a fixed sleep as the signal) until `done` holds, failing after 10 s.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[tokio::test]
async fn a_fresh_file_gets_the_schema_and_keeps_games_across_opens() {
    let dir = tempfile::tempdir().unwrap();
    let location = DataLocation::File(dir.path().join("inarow.db"));
    let store = Store::open(&location).unwrap();
    assert_eq!(store.next_game_id(), GameId(1));
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()))));
    store.flush().await.unwrap();
    drop(store);

    let conn = Connection::open(dir.path().join("inarow.db")).unwrap();
    let version: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, schema::latest());
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(count(&conn, "games"), 1);
    assert_eq!(count(&conn, "moves"), 3);
    drop(conn);

    // Reopened: nothing migrated again, and ids go on after the kept games.
    let store = Store::open(&location).unwrap();
    assert_eq!(store.next_game_id(), GameId(2));
}

#[test]
fn an_older_file_is_migrated_and_a_newer_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    // A file from before the store existed: some unrelated table, version 0.
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE notes (text TEXT);")
        .unwrap();
    Store::open(&DataLocation::File(path.clone())).unwrap();
    let conn = Connection::open(&path).unwrap();
    assert_eq!(count(&conn, "games"), 0);
    assert_eq!(count(&conn, "notes"), 0);
    conn.pragma_update(None, "user_version", schema::latest() + 1)
        .unwrap();
    drop(conn);
    let err = Store::open(&DataLocation::File(path)).unwrap_err();
    assert!(matches!(err, StoreError::Schema { .. }), "{err}");
    assert!(err.to_string().contains("newer"), "{err:#}");
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.db");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let err = Store::open(&DataLocation::File(path)).unwrap_err();
    assert!(
        matches!(err, StoreError::Open { .. } | StoreError::Schema { .. }),
        "{err}"
    );
    let missing = dir.path().join("no/such/dir/inarow.db");
    let err = Store::open(&DataLocation::File(missing)).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err}");
}

#[tokio::test]
async fn memory_reads_see_what_was_written() {
    let store = Store::open(&DataLocation::Memory).unwrap();
    for id in 1..=3 {
        store.write(Write::Game(Box::new(game(id, "ann", "bob", drawn()))));
    }
    store.flush().await.unwrap();
    let games = store.read(|conn| Ok(count(conn, "games"))).await.unwrap();
    assert_eq!(games, 3);
    assert_eq!(store.stats().committed.load(Ordering::Relaxed), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_is_retried_until_the_write_lands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.db");
    let store = Store::open(&DataLocation::File(path.clone())).unwrap();
    // Another process (here, connection) holds the write lock.
    let other = Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()))));
    let stats = store.clone();
    tokio::task::spawn_blocking(move || {
        wait_until("a failed attempt", || {
            stats.stats().retries.load(Ordering::Relaxed) >= 1
        })
    })
    .await
    .unwrap();
    other.execute_batch("COMMIT").unwrap();
    store.flush().await.unwrap();
    assert_eq!(count(&other, "games"), 1);
    assert_eq!(store.stats().dropped.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn a_refused_write_is_dropped_alone() {
    let store = Store::open(&DataLocation::Memory).unwrap();
    // The same id twice in one batch: the second violates the primary key.
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()))));
    store.write(Write::Game(Box::new(game(1, "cy", "dee", drawn()))));
    store.write(Write::Game(Box::new(game(2, "ann", "bob", drawn()))));
    store.flush().await.unwrap();
    let games = store.read(|conn| Ok(count(conn, "games"))).await.unwrap();
    assert_eq!(games, 2);
    assert_eq!(store.stats().dropped.load(Ordering::Relaxed), 1);
}
