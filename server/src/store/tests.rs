//! The store against real files in a temporary directory and in memory: migrations at
//! open, the writer's batching, flushing and retrying, and the game queries.
//! (Over 600 lines: one test file for one store.)

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use inarow_protocol::{
    GameId, GameStatus, GameSummary, Level, Mark, PlayedMove, PlayerRef, RoomId, Rules, Tally,
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
            clock_ms: None,
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
            time_control: None,
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
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()).into())));
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
    let moves: i64 = conn
        .query_row("SELECT json_array_length(moves) FROM games", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(moves, 3);
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
        store.write(Write::Game(Box::new(
            game(id, "ann", "bob", drawn()).into(),
        )));
    }
    store.flush().await.unwrap();
    let games = store.read(|conn| Ok(count(conn, "games"))).await.unwrap();
    assert_eq!(games, 3);
    assert_eq!(store.stats().committed.load(Ordering::Relaxed), 3);
}

#[tokio::test]
async fn each_memory_store_has_its_own_database() {
    // The in-memory databases share one name in SQLite's `memdb`: each must still be its
    // connection's own, or two servers in one process (the tests) would see each other's
    // games.
    let one = Store::open(&DataLocation::Memory).unwrap();
    let two = Store::open(&DataLocation::Memory).unwrap();
    one.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()).into())));
    one.flush().await.unwrap();
    let in_one = one.read(|conn| Ok(count(conn, "games"))).await.unwrap();
    let in_two = two.read(|conn| Ok(count(conn, "games"))).await.unwrap();
    assert_eq!((in_one, in_two), (1, 0));
    // The name was read as a URI (the `memdb` VFS, see `MEMORY_DATABASE`), not as the
    // name of a file to create.
    let file = one
        .read(|conn| {
            conn.query_row(
                "SELECT file FROM pragma_database_list WHERE name = 'main'",
                [],
                |row| row.get::<_, String>(0),
            )
            .map_err(StoreError::from)
        })
        .await
        .unwrap();
    assert_eq!(file, "", "an in-memory database has no file");
    assert!(!std::path::Path::new(MEMORY_DATABASE).exists());
}

#[tokio::test]
async fn writes_queued_together_share_a_transaction() {
    let store = Store::open(&DataLocation::Memory).unwrap();
    // Queued back to back, as rooms ending games under load queue them: the writer lets
    // them gather after the first instead of committing each on its own.
    for id in 1..=100 {
        store.write(Write::Game(Box::new(
            game(id, "ann", "bob", drawn()).into(),
        )));
    }
    store.flush().await.unwrap();
    let stats = store.stats();
    assert_eq!(stats.committed.load(Ordering::Relaxed), 100);
    let transactions = stats.transactions.load(Ordering::Relaxed);
    assert!(
        transactions <= 10,
        "100 writes took {transactions} transactions"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_is_retried_until_the_write_lands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.db");
    let store = Store::open(&DataLocation::File(path.clone())).unwrap();
    // Another process (here, connection) holds the write lock.
    let other = Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()).into())));
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
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()).into())));
    store.write(Write::Game(Box::new(game(1, "cy", "dee", drawn()).into())));
    store.write(Write::Game(Box::new(game(2, "ann", "bob", drawn()).into())));
    store.flush().await.unwrap();
    let games = store.read(|conn| Ok(count(conn, "games"))).await.unwrap();
    assert_eq!(games, 2);
    assert_eq!(store.stats().dropped.load(Ordering::Relaxed), 1);
}

fn won(winner: Mark) -> GameStatus {
    GameStatus::Won {
        winner,
        line: vec!["a1".into(), "b2".into(), "c3".into()],
    }
}

/// Ann's games: against bob, the perfect AI and the easy AI, plus games she is not in.
async fn ann_store() -> Store {
    let store = Store::open(&DataLocation::Memory).unwrap();
    let games = [
        game(1, "ann", "bob", won(Mark::X)),
        game(2, "bob", "ann", won(Mark::X)),
        game(3, "ann", "AI perfect", drawn()),
        game(4, "cy", "dee", drawn()),
        game(
            5,
            "AI perfect",
            "ann",
            GameStatus::Resigned { winner: Mark::X },
        ),
        game(6, "ann", "bob", GameStatus::Resigned { winner: Mark::X }),
        game(7, "AI easy", "ann", won(Mark::O)),
        game(8, "bob", "ann", drawn()),
        game(9, "AI perfect", "ann", won(Mark::X)),
    ];
    for g in games {
        store.write(Write::Game(Box::new(g.into())));
    }
    store
}

fn ids(page: &HistoryPage) -> Vec<u64> {
    page.games.iter().map(|g| g.game.0).collect()
}

#[tokio::test]
async fn history_pages_newest_first() {
    let store = ann_store().await;
    let (page, record) = store.history(None, 4, None).await.unwrap();
    assert_eq!(ids(&page), [9, 8, 7, 6]);
    assert!(page.more);
    assert_eq!(record, None);
    let (page, _) = store.history(None, 4, Some(GameId(6))).await.unwrap();
    assert_eq!(ids(&page), [5, 4, 3, 2]);
    assert!(page.more);
    let (page, _) = store.history(None, 4, Some(GameId(2))).await.unwrap();
    assert_eq!(ids(&page), [1]);
    assert!(!page.more);
    let (page, _) = store.history(None, 5, Some(GameId(6))).await.unwrap();
    assert_eq!(ids(&page), [5, 4, 3, 2, 1]);
    assert!(!page.more, "exactly the rest is not more");
    // What was written comes back as it was.
    let (page, _) = store.history(None, 1, Some(GameId(2))).await.unwrap();
    assert_eq!(page.games[0], game(1, "ann", "bob", won(Mark::X)).summary);
}

#[tokio::test]
async fn history_by_name_lists_that_players_games_and_record() {
    let store = ann_store().await;
    let (page, record) = store.history(Some("bob".into()), 2, None).await.unwrap();
    assert_eq!(ids(&page), [8, 6]);
    assert!(page.more);
    let (page, _) = store
        .history(Some("bob".into()), 2, Some(GameId(6)))
        .await
        .unwrap();
    assert_eq!(ids(&page), [2, 1]);
    assert!(!page.more);
    let bob = record.unwrap();
    assert_eq!(
        (bob.total.wins, bob.total.draws, bob.total.losses),
        (1, 1, 2)
    );

    let (page, record) = store.history(Some("ann".into()), 100, None).await.unwrap();
    assert_eq!(ids(&page), [9, 8, 7, 6, 5, 3, 2, 1]);
    let ann = record.unwrap();
    assert_eq!(ann.name, "ann");
    assert_eq!(
        ann.total,
        Tally {
            wins: 3,
            draws: 2,
            losses: 3
        }
    );
    let rows: Vec<(String, Option<Level>, u32, u32, u32)> = ann
        .opponents
        .iter()
        .map(|o| {
            (
                o.opponent.name.clone(),
                o.opponent.ai,
                o.tally.wins,
                o.tally.draws,
                o.tally.losses,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("bob".to_owned(), None, 2, 1, 1),
            ("AI perfect".to_owned(), Some(Level::Perfect), 0, 1, 2),
            ("AI easy".to_owned(), Some(Level::Easy), 1, 0, 0),
        ]
    );

    let (page, record) = store
        .history(Some("nobody".into()), 10, None)
        .await
        .unwrap();
    assert!(page.games.is_empty() && !page.more);
    let nobody = record.unwrap();
    assert_eq!(nobody.total, Tally::default());
    assert!(nobody.opponents.is_empty());
}

#[tokio::test]
async fn a_game_reads_back_with_its_moves() {
    let store = ann_store().await;
    let kept = store.game(GameId(7)).await.unwrap().unwrap();
    assert_eq!(kept, game(7, "AI easy", "ann", won(Mark::O)));
    assert_eq!(store.game(GameId(70)).await.unwrap(), None);
    assert_eq!(store.game(GameId(u64::MAX)).await.unwrap(), None);
}

#[tokio::test]
async fn a_private_rooms_game_is_kept_without_its_room() {
    let store = Store::open(&DataLocation::Memory).unwrap();
    let mut private = game(1, "ann", "bob", drawn());
    private.summary.room = None;
    store.write(Write::Game(Box::new(private.clone().into())));
    assert_eq!(store.game(GameId(1)).await.unwrap(), Some(private));
}

#[tokio::test]
async fn a_long_games_moves_read_back_in_order() {
    // A game's moves are one JSON column: no moves (`[]`), one, and games long enough
    // that the times outgrow the length the text is first given (7 digits), up to the
    // largest `u64`, which SQLite's integers could not hold.
    let store = Store::open(&DataLocation::Memory).unwrap();
    let mut kept = Vec::new();
    for (id, plies) in [(1u64, 0usize), (2, 1), (3, 16), (4, 17), (5, 32), (6, 225)] {
        let mut long = game(id, "ann", "bob", drawn());
        long.summary.rules = Rules {
            width: 15,
            height: 15,
            k: 5,
            gravity: false,
        };
        long.moves = (0..plies)
            .map(|i| {
                let cell = format!("{}{}", char::from(b'a' + (i % 15) as u8), i / 15 + 1);
                PlayedMove {
                    mv: cell.clone(),
                    cell,
                    by: if i % 2 == 0 { Mark::X } else { Mark::O },
                    ms: match i {
                        7 => u64::MAX,
                        _ => 7u64.pow((i % 20) as u32),
                    },
                    clock_ms: None,
                }
            })
            .collect();
        long.summary.ply = plies as u32;
        store.write(Write::Game(Box::new(long.clone().into())));
        kept.push(long);
    }
    store.flush().await.unwrap();
    for long in kept {
        let read = store.game(long.summary.game).await.unwrap().unwrap();
        assert_eq!(read, long, "{} moves", long.moves.len());
    }
}

/// The moves column's text of game `id`.
fn moves_text(conn: &Connection, id: u64) -> String {
    conn.query_row("SELECT moves FROM games WHERE id = ?1", [id as i64], |r| {
        r.get(0)
    })
    .unwrap()
}

/// Writes `game` as a version 2 file held it: its row in `games` and one row per move in
/// `moves`, inserted in the order of `plies`.
fn insert_at_version_2(conn: &Connection, game: &FinishedGame, plies: &[usize]) {
    let s = &game.summary;
    let (result, winner, line) = match &s.result {
        GameStatus::Won { winner, line } => ("won", Some(*winner), Some(line.join(" "))),
        GameStatus::Resigned { winner } => ("resigned", Some(*winner), None),
        _ => ("drawn", None, None),
    };
    conn.execute(
        "INSERT INTO games (id, room, number, width, height, k, gravity, x_name, x_ai, \
         o_name, o_ai, result, winner, line, ply, started_at, ended_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        rusqlite::params![
            s.game.0 as i64,
            s.room.as_ref().map(|r| r.0.as_str()),
            s.number,
            s.rules.width,
            s.rules.height,
            s.rules.k,
            s.rules.gravity,
            s.x.name,
            s.x.ai.map(games::level_text),
            s.o.name,
            s.o.ai.map(games::level_text),
            result,
            winner.map(games::mark_text),
            line,
            s.ply,
            s.started_at as i64,
            s.ended_at as i64,
        ],
    )
    .unwrap();
    for &ply in plies {
        let played = &game.moves[ply];
        conn.execute(
            "INSERT INTO moves (game, ply, move, cell, by, ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![
                s.game.0 as i64,
                ply as i64,
                played.mv,
                played.cell,
                games::mark_text(played.by),
                played.ms as i64,
            ],
        )
        .unwrap();
    }
}

/// A Connect Four game, whose moves (columns) differ from their cells, with `plies` moves.
fn connect_four(id: u64, plies: usize) -> FinishedGame {
    let mut four = game(id, "ann", "AI medium", won(Mark::X));
    four.summary.rules = Rules {
        width: 7,
        height: 6,
        k: 4,
        gravity: true,
    };
    four.moves = (0..plies)
        .map(|i| {
            let column = char::from(b'a' + (i % 7) as u8);
            PlayedMove {
                mv: column.to_string(),
                cell: format!("{column}{}", i / 7 + 1),
                by: if i % 2 == 0 { Mark::X } else { Mark::O },
                ms: 1_200 + 13 * i as u64,
                clock_ms: None,
            }
        })
        .collect();
    four.summary.ply = plies as u32;
    four
}

#[tokio::test]
async fn a_version_2_file_gets_its_moves_as_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.db");
    // Out of order: the rows' order in the file must not be the moves' order.
    let shuffled = connect_four(1, 9);
    let none = game(2, "bob", "cy", drawn());
    let none = FinishedGame {
        summary: GameSummary {
            ply: 0,
            ..none.summary
        },
        moves: Vec::new(),
    };
    let plain = game(3, "ann", "bob", won(Mark::X));
    let kept = [shuffled, none, plain];
    {
        let conn = Connection::open(&path).unwrap();
        for step in &schema::MIGRATIONS[..2] {
            conn.execute_batch(step.sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 2).unwrap();
        insert_at_version_2(&conn, &kept[0], &[4, 0, 8, 2, 1, 7, 3, 6, 5]);
        insert_at_version_2(&conn, &kept[1], &[]);
        insert_at_version_2(&conn, &kept[2], &[0, 1, 2]);
        assert_eq!(count(&conn, "moves"), 12);
    }

    let store = Store::open(&DataLocation::File(path.clone())).unwrap();
    for want in &kept {
        let read = store.game(want.summary.game).await.unwrap().unwrap();
        assert_eq!(&read, want);
    }
    let conn = Connection::open(&path).unwrap();
    let version: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, schema::latest());
    let tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'moves'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0, "the moves table is dropped");
    assert_eq!(moves_text(&conn, 2), "[]");
    assert_eq!(
        moves_text(&conn, 3),
        r#"[["b2","b2","X",100],["a1","a1","O",200],["c3","c3","X",300]]"#
    );

    // The same games written by this build: the very same text.
    let fresh = Store::open(&DataLocation::Memory).unwrap();
    for want in &kept {
        fresh.write(Write::Game(Box::new(want.clone().into())));
    }
    fresh.flush().await.unwrap();
    let written = fresh
        .read(|conn| Ok((1..=3).map(|id| moves_text(conn, id)).collect::<Vec<_>>()))
        .await
        .unwrap();
    let migrated: Vec<String> = (1..=3).map(|id| moves_text(&conn, id)).collect();
    assert_eq!(written, migrated);
}

#[tokio::test]
async fn moves_text_is_escaped_as_sqlite_escapes_it() {
    // Notation never holds these, but a move is only text to the store.
    let odd = [
        "quote\"",
        "back\\slash",
        "tab\tnew\nline\r",
        "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "é→😀",
        "",
    ];
    let store = Store::open(&DataLocation::Memory).unwrap();
    let mut kept = game(1, "ann", "bob", drawn());
    kept.moves = odd
        .iter()
        .enumerate()
        .map(|(i, text)| PlayedMove {
            mv: (*text).to_owned(),
            cell: format!("{text}{i}"),
            by: if i % 2 == 0 { Mark::X } else { Mark::O },
            ms: i as u64,
            clock_ms: None,
        })
        .collect();
    store.write(Write::Game(Box::new(kept.clone().into())));
    assert_eq!(store.game(GameId(1)).await.unwrap(), Some(kept.clone()));
    let moves = kept.moves.clone();
    let (written, sqlites) = store
        .read(move |conn| {
            let sqlites = moves
                .iter()
                .map(|m| {
                    conn.query_row(
                        "SELECT json_array(?1, ?2, ?3, ?4)",
                        rusqlite::params![m.mv, m.cell, games::mark_text(m.by), m.ms as i64],
                        |r| r.get::<_, String>(0),
                    )
                })
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((moves_text(conn, 1), sqlites))
        })
        .await
        .unwrap();
    assert_eq!(written, format!("[{}]", sqlites.join(",")));
}

#[tokio::test]
async fn a_damaged_moves_column_is_an_error() {
    let store = Store::open(&DataLocation::Memory).unwrap();
    store.write(Write::Game(Box::new(game(1, "ann", "bob", drawn()).into())));
    store.flush().await.unwrap();
    for damage in [
        "'nonsense'",
        "''",
        "'{}'",
        r#"'[["b2","b2","X"]]'"#,
        r#"'[["b2","b2","Z",1]]'"#,
        r#"'[["b2","b2","X",-1]]'"#,
        r#"'[["b2",2,"X",1]]'"#,
        "x'5b5d'",
        "42",
    ] {
        store
            .read(move |conn| {
                conn.execute(&format!("UPDATE games SET moves = {damage}"), [])?;
                Ok(())
            })
            .await
            .unwrap();
        let err = store.game(GameId(1)).await.unwrap_err();
        assert!(matches!(err, StoreError::Query(_)), "{damage}: {err}");
    }
}
