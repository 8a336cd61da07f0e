//! Clocks end to end, with short real clocks: a game lost on time and its record, an
//! increment that keeps a player alive, a dropped player's clock running out, a seat
//! freed by the grace ending, a restart that keeps both clocks, and bad time controls.
//!
//! Clocks are about time, so these tests let real time pass (a player who thinks is a
//! player who waits); every wait for the server is still a read under a timeout.

use std::path::PathBuf;
use std::time::Duration;

use inarow_e2e::{Client, Config, DataLocation, TestServer, fast_config, plan};
use inarow_protocol::{
    ClientMessage, ErrorCode, GameStatus, Mark, RoomId, RoomSnapshot, RulesSpec, SeatChoice,
    SeatRequest, TimeControl, TimeControlSpec,
};

fn fischer(base_ms: u64, increment_ms: u64) -> TimeControlSpec {
    TimeControlSpec::Custom(TimeControl::Fischer {
        base_ms,
        increment_ms,
    })
}

/// A tic-tac-toe room timed by `clock`, Ann in X and O open.
fn create(clock: TimeControlSpec) -> ClientMessage {
    ClientMessage::CreateRoom {
        name: None,
        rules: RulesSpec::Preset("tictactoe".into()),
        seats: plan(SeatRequest::Me, SeatRequest::Open),
        private: false,
        hints: false,
        time_control: Some(clock),
        takebacks: None,
    }
}

/// Ann (X) and Bob (O) in a tic-tac-toe room timed by `clock`, after each side's free
/// first move (b2, a1): X's clock runs.
async fn timed_pair(server: &TestServer, clock: TimeControlSpec) -> (Client, Client, RoomId) {
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let room = ann.call_room(create(clock)).await.id;
    bob.join(&room, Some(SeatChoice::O)).await;
    ann.reach_room(&room, |s| s.status == GameStatus::Playing { turn: Mark::X })
        .await;
    let first = ann.play(&room, 0, "b2").await;
    let clock = first.clock.expect("a timed room's move carries the clocks");
    assert_eq!(clock.running, None, "the first move of each side is free");
    bob.reach_room(&room, |s| s.ply == 1).await;
    let second = bob.play(&room, 1, "a1").await;
    assert_eq!(
        second.clock.and_then(|c| c.running),
        Some(Mark::X),
        "{second:?}"
    );
    (ann, bob, room)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_lost_on_time_and_kept_so() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = timed_pair(&server, fischer(1_000, 0)).await;
    // X plays once more, quickly; O replies; then X thinks too long.
    ann.reach_room(&room, |s| s.ply == 2).await;
    ann.play(&room, 2, "c3").await;
    bob.reach_room(&room, |s| s.ply == 3).await;
    let after = bob.play(&room, 3, "a3").await;
    let clock = after.clock.expect("clocks");
    assert_eq!(clock.running, Some(Mark::X));
    assert!(clock.o_ms <= 1_000 && clock.x_ms <= 1_000, "{clock:?}");
    let over = ann
        .reach_room(&room, |s| s.status.is_over() && s.last_game.is_some())
        .await;
    assert_eq!(over.status, GameStatus::Timeout { winner: Mark::O });
    let clock = over.clock.expect("clocks");
    assert_eq!((clock.x_ms, clock.running), (0, None), "{clock:?}");
    bob.reach_room(&room, |s| {
        s.status == GameStatus::Timeout { winner: Mark::O }
    })
    .await;
    // A move after the flag fell is too late.
    ann.expect_refused(
        ClientMessage::Play {
            room: room.clone(),
            ply: 4,
            mv: "a2".into(),
        },
        ErrorCode::GameNotInProgress,
    )
    .await;

    let record = ann
        .game_record(over.last_game.expect("the game is kept"))
        .await;
    assert_eq!(
        record.summary.result,
        GameStatus::Timeout { winner: Mark::O }
    );
    assert_eq!(
        record.summary.time_control,
        Some(TimeControl::Fischer {
            base_ms: 1_000,
            increment_ms: 0
        })
    );
    assert_eq!(record.moves.len(), 4);
    assert!(
        record.moves.iter().all(|m| m.clock_ms.is_some()),
        "{record:?}"
    );
    assert_eq!(record.moves[0].clock_ms, Some(1_000), "a free move");
    assert!(
        record.text.contains("[TimeControl \"1s+0\"]"),
        "{}",
        record.text
    );
    assert!(
        record.text.contains("[Termination \"time\"]"),
        "{}",
        record.text
    );
    assert!(record.text.contains("[%clk 0:00:01.0]"), "{}", record.text);
    assert!(record.text.contains("0-1"), "{}", record.text);
    let page = bob.list_games(Some("Ann"), None, None).await;
    let listed = page.games.first().expect("listed");
    assert_eq!(listed.result, GameStatus::Timeout { winner: Mark::O });
    assert_eq!(page.record.expect("Ann's record").total.losses, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_increment_keeps_a_slow_player_alive() {
    let server = TestServer::start(fast_config()).await;
    // One second each and one more a move: X thinks 700 ms on each of its two timed
    // moves, 1.4 s in all, more than the base, and wins (a3, b2, c1).
    let (mut ann, mut bob, room) = timed_pair(&server, fischer(1_000, 1_000)).await;
    ann.reach_room(&room, |s| s.ply == 2).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    ann.play(&room, 2, "c1").await;
    bob.reach_room(&room, |s| s.ply == 3).await;
    bob.play(&room, 3, "a2").await;
    ann.reach_room(&room, |s| s.ply == 4).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let after = ann.play(&room, 4, "a3").await;
    assert!(
        matches!(
            after.status,
            GameStatus::Won {
                winner: Mark::X,
                ..
            }
        ),
        "{after:?}"
    );
    let x = after.clock.expect("clocks").x_ms;
    assert!(x > 0 && x < 2_000, "X lived on its increments: {x} ms left");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_players_clock_runs_out() {
    let server = TestServer::start(fast_config()).await;
    let (ann, mut bob, room) = timed_pair(&server, fischer(1_000, 0)).await;
    // X's clock runs; Ann's connection drops. Her seat is held, her clock runs on.
    ann.close().await;
    let over = bob.reach_room(&room, |s| s.status.is_over()).await;
    assert_eq!(over.status, GameStatus::Timeout { winner: Mark::O });
    assert_eq!(inarow_e2e::human_connected(&over, Mark::X), Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_freed_by_the_grace_ending_loses_on_time() {
    let server = TestServer::start(Config {
        reconnect_grace: Duration::from_millis(300),
        ..fast_config()
    })
    .await;
    let (mut ann, bob, room) = timed_pair(&server, fischer(60_000, 0)).await;
    ann.reach_room(&room, |s| s.ply == 2).await;
    ann.play(&room, 2, "c3").await;
    // O to move with plenty of time, and O's player goes away for good.
    bob.close().await;
    let over = ann.reach_room(&room, |s| s.status.is_over()).await;
    assert_eq!(over.status, GameStatus::Timeout { winner: Mark::X });
    assert!(over.clock.expect("clocks").o_ms > 50_000, "{over:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_time_controls_are_refused_with_their_code() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    for bad in [
        r#""2+1""#,
        r#"{"kind": "fischer", "base_ms": 0, "increment_ms": 0}"#,
        r#"{"kind": "fischer", "base_ms": 60000}"#,
        r#"{"kind": "per_move", "ms": "30s"}"#,
        r#"{"kind": "correspondence", "days": 30}"#,
        r#"{"kind": "hourglass"}"#,
        "17",
    ] {
        ann.send_raw(format!(
            r#"{{"type": "create_room", "id": 1, "rules": "tictactoe", "time_control": {bad}}}"#
        ))
        .await;
        let refused = ann.expect_error(ErrorCode::InvalidTimeControl).await;
        assert!(
            refused.message.contains("time_control"),
            "{bad}: {refused:?}"
        );
    }
    // The connection is still good: a preset works.
    let room = ann
        .call_room(create(TimeControlSpec::Preset("3+2".into())))
        .await;
    assert_eq!(
        room.time_control,
        Some(TimeControl::Fischer {
            base_ms: 180_000,
            increment_ms: 2_000
        })
    );
    assert!(!room.takebacks, "off for timed games unless chosen");
    let clock = room.clock.expect("a timed room shows its clocks");
    assert_eq!(
        (clock.x_ms, clock.o_ms, clock.running),
        (180_000, 180_000, None)
    );
}

/// A fresh directory for one test's data file, removed when dropped.
struct DataDir(PathBuf);

impl DataDir {
    fn new(test: &str) -> DataDir {
        let dir = std::env::temp_dir().join(format!("inarow-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        DataDir(dir)
    }

    fn config(&self) -> Config {
        Config {
            data: DataLocation::File(self.0.join("inarow.db")),
            ..fast_config()
        }
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_both_clocks() {
    let dir = DataDir::new("clock-restart");
    let first = TestServer::start(dir.config()).await;
    let (mut ann, mut bob, room) = timed_pair(&first, fischer(60_000, 0)).await;
    // X uses some time, then O's clock runs when the server stops.
    ann.reach_room(&room, |s| s.ply == 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = ann.play(&room, 2, "c3").await;
    let before = after.clock.expect("clocks");
    assert!(before.x_ms <= 59_700, "{before:?}");
    assert_eq!(before.running, Some(Mark::O));
    bob.reach_room(&room, |s| s.ply == 3).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let closing = [ann, bob].map(|mut c| {
        tokio::spawn(async move {
            c.expect_closed().await;
            c
        })
    });
    first.shutdown().await;
    let mut clients = Vec::new();
    for c in closing {
        clients.push(c.await.expect("a watcher"));
    }
    // Down for a while: that time is not charged.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = TestServer::start(dir.config()).await;
    let mut back = Vec::new();
    for (old, name) in clients.iter().zip(["Ann", "Bob"]) {
        let mut c = Client::connect(second.addr(), &format!("{name} again")).await;
        assert!(c.hello_with(name, Some(old.token())).await.resumed);
        let snapshot: RoomSnapshot = c.wait_room(|s| s.id == room).await;
        back.push((c, snapshot));
    }
    let (_, at) = &back[1];
    let clock = at.clock.expect("clocks after the restart");
    assert_eq!(at.ply, 3);
    assert_eq!(clock.x_ms, before.x_ms, "X's clock is as it was");
    assert_eq!(clock.running, Some(Mark::O));
    assert!(
        clock.o_ms <= 59_800 && clock.o_ms > 55_000,
        "O's clock kept what it used before the stop, not the downtime: {clock:?}"
    );
    let (mut bob, _) = back.pop().expect("bob");
    let moved = bob.play(&room, 3, "a3").await;
    let clock = moved.clock.expect("clocks");
    assert_eq!(clock.running, Some(Mark::X));
    assert!(clock.o_ms < 59_800, "{clock:?}");
}
