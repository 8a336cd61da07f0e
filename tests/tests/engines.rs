//! External Gomocup engines as AI seats, through a real server: `inarow-pbrain` (built
//! here as `pbrain_engine`) plays whole games; fake engines that crash, stall, answer
//! nonsense or play occupied or off-board cells are killed, inarow's AI takes their seat
//! and the game still ends, the host's log saying why; the server's engine processes are
//! gone after a shutdown. The log is the process's subscriber: this file installs it once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use inarow_e2e::logs::{self, Captured};
use inarow_e2e::{Client, Config, TestServer, fast_config, occupant, plan};
use inarow_protocol::{
    ClientMessage, EngineName, ErrorCode, GameStatus, Level, Mark, Occupant, RoomId, RoomSnapshot,
    Rules, RulesSpec, SeatRequest, ServerMessage,
};
use inarow_server::{EngineLimits, EngineSpec};

const PBRAIN: &str = env!("CARGO_BIN_EXE_pbrain_engine");
const FAKE: &str = env!("CARGO_BIN_EXE_fake_engine");

/// How long a whole game may take: AI moves of 200 ms at most, a few dozen of them.
const GAME_TIME: Duration = Duration::from_secs(120);

/// The server's log, captured from the first call on.
fn log() -> &'static Captured {
    static LOG: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOG.get_or_init(|| logs::capture("info"))
}

fn name(text: &str) -> EngineName {
    EngineName::new(text).expect("a valid engine name")
}

/// A script in `dir` that runs the fake engine in `mode`, appending its pid to `pids`: the
/// server runs an engine by its path alone, without arguments.
fn fake(dir: &Path, mode: &str, pids: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(format!("fake-{mode}.sh"));
    let script = format!(
        "#!/bin/sh\nexec '{FAKE}' {mode} '{}'\n",
        pids.to_str().expect("a UTF-8 temporary path")
    );
    std::fs::write(&path, script).expect("the script is written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("the script is made executable");
    path
}

/// A server offering `engines`. An answer may come 2 s late: on a loaded test machine a
/// well-behaved engine must not be taken for a stalled one (the stall test shortens it).
fn config(engines: Vec<(&str, PathBuf)>) -> Config {
    Config {
        engines: engines
            .into_iter()
            .map(|(n, path)| EngineSpec {
                name: name(n),
                path,
            })
            .collect(),
        engine_limits: EngineLimits {
            margin: Duration::from_secs(2),
            start_timeout: Duration::from_secs(5),
            ..EngineLimits::default()
        },
        ..fast_config()
    }
}

/// Free-style five in a row on a board small enough for short games.
fn small_gomoku() -> RulesSpec {
    RulesSpec::Custom(Rules {
        width: 9,
        height: 9,
        k: 5,
        gravity: false,
    })
}

/// Reads until `room`'s game is won or drawn; returns the last snapshot.
async fn finish(client: &mut Client, room: &RoomId) -> RoomSnapshot {
    let deadline = Instant::now() + GAME_TIME;
    loop {
        if let Some(last) = client.latest(room)
            && last.status.is_over()
        {
            return last;
        }
        assert!(Instant::now() < deadline, "the game did not end in time");
        let _ = client.recv().await;
    }
}

/// The chat lines of `room` received so far, as (from, seat, text).
fn chat(client: &Client, room: &RoomId) -> Vec<(String, Option<Mark>, String)> {
    client
        .history()
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Chat {
                room: r,
                from,
                seat,
                text,
                ..
            } if r == room => Some((from.clone(), *seat, text.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn pbrain_is_listed_and_plays_whole_games_as_a_seat() {
    let server = TestServer::start(config(vec![("pbrain", PBRAIN.into())])).await;
    let mut watcher = server.lobby("watcher").await;
    let ServerMessage::Engines { engines } = watcher.call(ClientMessage::ListEngines {}).await
    else {
        panic!("expected engines");
    };
    assert_eq!(engines.len(), 1, "{engines:?}");
    let info = &engines[0];
    assert_eq!(info.name, name("pbrain"));
    assert_eq!(info.k, 5);
    assert_eq!(info.sides, (5..=19).collect::<Vec<_>>());
    assert!(info.rectangles);

    // inarow's easy AI against the engine, and the engine against itself.
    for seats in [
        plan(
            SeatRequest::Ai { level: Level::Easy },
            SeatRequest::Engine {
                name: name("pbrain"),
            },
        ),
        plan(
            SeatRequest::Engine {
                name: name("pbrain"),
            },
            SeatRequest::Engine {
                name: name("pbrain"),
            },
        ),
    ] {
        let start = watcher.create_room(small_gomoku(), seats, true).await;
        assert!(
            matches!(
                occupant(&start, Mark::O),
                Occupant::Ai {
                    level: Level::Perfect,
                    engine: Some(e),
                    ..
                } if *e == name("pbrain")
            ),
            "{start:?}"
        );
        let end = finish(&mut watcher, &start.id).await;
        assert!(chat(&watcher, &start.id).is_empty(), "no engine failed");
        assert!(
            matches!(
                occupant(&end, Mark::O),
                Occupant::Ai {
                    engine: Some(_),
                    ..
                }
            ),
            "{end:?}"
        );
        if let GameStatus::Won { winner, .. } = end.status
            && matches!(occupant(&end, Mark::X), Occupant::Ai { engine: None, .. })
        {
            assert_eq!(winner, Mark::O, "pbrain beats the easy AI: {end:?}");
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn rooms_share_one_engine_process_in_turn() {
    let mut config = config(vec![("pbrain", PBRAIN.into())]);
    config.engine_limits.processes = 1;
    config.ai_threads = 2;
    let server = TestServer::start(config).await;
    let mut watcher = server.lobby("watcher").await;
    let engine = SeatRequest::Engine {
        name: name("pbrain"),
    };
    let mut rooms = Vec::new();
    for _ in 0..2 {
        let seats = plan(SeatRequest::Ai { level: Level::Easy }, engine);
        rooms.push(watcher.create_room(small_gomoku(), seats, true).await.id);
    }
    for room in &rooms {
        let end = finish(&mut watcher, room).await;
        assert!(
            matches!(
                occupant(&end, Mark::O),
                Occupant::Ai {
                    engine: Some(_),
                    ..
                }
            ),
            "the engine kept its seat: {end:?}"
        );
    }
    assert!(chat(&watcher, &rooms[0]).is_empty() && chat(&watcher, &rooms[1]).is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn engines_are_offered_only_for_boards_they_play() {
    let server = TestServer::start(config(vec![("pbrain", PBRAIN.into())])).await;
    let mut ann = server.lobby("ann").await;
    let engine = SeatRequest::Engine {
        name: name("pbrain"),
    };
    for (rules, code) in [
        (
            RulesSpec::Preset("tictactoe".into()),
            ErrorCode::InvalidRules,
        ),
        (
            RulesSpec::Preset("connect4".into()),
            ErrorCode::InvalidRules,
        ),
    ] {
        ann.expect_refused(
            ClientMessage::CreateRoom {
                name: None,
                rules,
                seats: plan(SeatRequest::Me, engine),
                private: false,
                hints: false,
                time_control: None,
                takebacks: None,
            },
            code,
        )
        .await;
    }
    ann.expect_refused(
        ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("gomoku".into()),
            seats: plan(
                SeatRequest::Me,
                SeatRequest::Engine {
                    name: name("rapfi"),
                },
            ),
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        },
        ErrorCode::BadRequest,
    )
    .await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_failing_engine_is_replaced_by_inarows_ai_and_the_game_ends() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let log = log();
    let modes = ["crash", "stall", "nonsense", "occupied", "offboard"];
    let mut engines: Vec<_> = modes
        .iter()
        .map(|mode| (*mode, fake(dir.path(), mode, &pids)))
        .collect();
    // Never seated: its process stays idle from the probe until the shutdown ends it.
    engines.push(("first", fake(dir.path(), "first", &pids)));
    let mut config = config(engines);
    // The stalling engine is given up on 300 ms after its move time.
    config.engine_limits.margin = Duration::from_millis(300);
    let server = TestServer::start(config).await;
    let mut watcher = server.lobby("watcher").await;
    let ServerMessage::Engines { engines } = watcher.call(ClientMessage::ListEngines {}).await
    else {
        panic!("expected engines");
    };
    assert_eq!(
        engines.len(),
        modes.len() + 1,
        "every fake engine passes the probe"
    );

    for mode in modes {
        // The engine moves second, so that the occupied-cell engine has a stone to name.
        let seats = plan(
            SeatRequest::Ai { level: Level::Easy },
            SeatRequest::Engine { name: name(mode) },
        );
        let start = watcher.create_room(small_gomoku(), seats, true).await;
        let end = finish(&mut watcher, &start.id).await;
        let lines = chat(&watcher, &start.id);
        assert_eq!(lines.len(), 1, "{mode}: {lines:?}");
        let (from, seat, text) = &lines[0];
        assert_eq!((from.as_str(), *seat), (mode, Some(Mark::O)), "{mode}");
        assert!(text.contains("failed"), "{mode}: {text}");
        assert!(
            text.contains("inarow's AI (perfect) plays O now"),
            "{mode}: {text}"
        );
        // The seat is inarow's from then on.
        assert!(
            matches!(
                occupant(&end, Mark::O),
                Occupant::Ai {
                    level: Level::Perfect,
                    engine: None,
                    ..
                }
            ),
            "{mode}: {end:?}"
        );
    }
    server.shutdown().await;

    // The host's log names each engine that failed, and why.
    let text = log.text();
    for (mode, why) in [
        ("crash", "the engine exited"),
        ("stall", "no answer within"),
        ("nonsense", "unexpected answer"),
        ("occupied", "not a legal move"),
        ("offboard", "off the board"),
    ] {
        assert!(
            text.lines().any(|l| l.contains("WARN")
                && l.contains("external engine failed")
                && l.contains(&format!("engine={mode}"))
                && l.contains(why)),
            "no warning for {mode} ({why}) in:\n{text}"
        );
    }

    // Every process the server started (the probes' and the games') is gone: killed
    // and reaped, none left as a zombie.
    let pids = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<&str> = pids.lines().collect();
    assert!(pids.len() > modes.len(), "{pids:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    for pid in pids {
        let proc = PathBuf::from(format!("/proc/{pid}"));
        while proc.exists() {
            assert!(
                Instant::now() < deadline,
                "engine process {pid} still exists"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
