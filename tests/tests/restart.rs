//! Restart without loss: games in progress survive a graceful restart and a crash of the
//! server on the same data file (a real SQLite file in a temporary directory).
//!
//! The graceful test runs the server in this process and stops it through its shutdown
//! token: clients are told `bye restarting` (close code 1012), reconnect to a new server
//! on the same file with their tokens, are welcomed back with `resumed: true` at the same
//! ply, and finish their games. The crash test runs the server as a child process (this
//! crate's `child_server` binary, which runs `inarow_server::run` as the server binary does)
//! and kills it with SIGKILL mid-game.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use inarow_e2e::{
    Client, Config, TestServer, assert_won, check_result, fast_config, plan, seat_of,
};
use inarow_protocol::{
    ByeReason, GameStatus, Level, Mark, Occupant, RoomId, RoomSnapshot, Rules, RulesSpec,
    SeatChoice, SeatRequest,
};
use inarow_server::DataLocation;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Connect Four moves before the restart: X d, O d, X c, O e.
const BEFORE: [&str; 4] = ["d", "d", "c", "e"];
/// After it: X b, O g, X a, and X has a, b, c, d on the bottom row.
const AFTER: [&str; 3] = ["b", "g", "a"];

/// A fresh directory for one test's data file, removed when dropped.
struct DataDir(PathBuf);

impl DataDir {
    fn new(test: &str) -> DataDir {
        let dir = std::env::temp_dir().join(format!("inarow-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        DataDir(dir)
    }

    fn file(&self) -> PathBuf {
        self.0.join("inarow.db")
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn on_file(file: &Path, config: Config) -> Config {
    Config {
        data: DataLocation::File(file.to_owned()),
        ..config
    }
}

/// Ann (X) and Bob (O) in a Connect Four room after [`BEFORE`].
async fn connect_four(ann: &mut Client, bob: &mut Client) -> RoomId {
    let room = ann
        .create_room(
            RulesSpec::Preset("connect4".into()),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await
        .id;
    bob.join(&room, Some(SeatChoice::O)).await;
    inarow_e2e::take_turns(ann, bob, &room, 0, &BEFORE).await;
    bob.reach_room(&room, |s| s.ply == 4).await;
    room
}

/// Says `hello` on a new connection to `addr` with the token of `old`'s session and
/// checks that the session is resumed; returns the connection and its room's snapshot,
/// which follows the welcome.
async fn resume(
    addr: SocketAddr,
    old: &Client,
    name: &str,
    room: &RoomId,
) -> (Client, RoomSnapshot) {
    let mut back = Client::connect(addr, &format!("{name} again")).await;
    let welcome = back.hello_with(name, Some(old.token())).await;
    assert!(welcome.resumed, "{name}: {welcome:?}");
    assert_eq!(welcome.session, old.session(), "{name}");
    let snapshot = back.wait_room(|s| &s.id == room).await;
    assert!(
        seat_of(&snapshot, old.session()).is_some(),
        "{name}: {snapshot:?}"
    );
    (back, snapshot)
}

/// Finishes the Connect Four game from ply 4 and checks every move.
async fn finish_connect_four(ann: &mut Client, bob: &mut Client, room: &RoomId) {
    let last = inarow_e2e::take_turns(ann, bob, room, 4, &AFTER).await;
    assert_won(&last, Mark::X);
    let all: Vec<&str> = BEFORE.iter().chain(&AFTER).copied().collect();
    assert_eq!(last.moves, all);
    check_result(&last);
    bob.reach_room(room, |s| s.status.is_over()).await;
}

/// Plays the human side of an AI room to its end, then checks that it began with
/// `opening`.
async fn finish_against_ai(cy: &mut Client, start: RoomSnapshot, opening: &[String]) {
    let mut rng = SmallRng::seed_from_u64(12);
    let last = cy.play_randomly(start, Mark::X, &mut rng).await;
    assert!(last.status.is_over(), "{last:?}");
    assert_eq!(&last.moves[..opening.len()], opening, "{last:?}");
    check_result(&last);
}

fn thinking(s: &RoomSnapshot) -> bool {
    s.seats
        .iter()
        .any(|seat| matches!(seat.occupant, Occupant::Ai { thinking: true, .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_restart_keeps_every_game_in_progress() {
    let dir = DataDir::new("graceful-restart");
    // A long AI budget: the AI is still thinking when the server stops, so its move is
    // made by the restarted server.
    let first = TestServer::start(on_file(
        &dir.file(),
        Config {
            ai_move_time: Duration::from_secs(20),
            ..fast_config()
        },
    ))
    .await;
    let mut ann = first.lobby("Ann").await;
    let mut bob = first.lobby("Bob").await;
    let c4 = connect_four(&mut ann, &mut bob).await;

    // Cy against a perfect AI on a board too big to solve.
    let mut cy = first.lobby("Cy").await;
    let big = RulesSpec::Custom(Rules {
        width: 9,
        height: 9,
        k: 5,
        gravity: false,
    });
    let ai_room = cy
        .create_room(
            big,
            plan(
                SeatRequest::Me,
                SeatRequest::Ai {
                    level: Level::Perfect,
                },
            ),
            false,
        )
        .await
        .id;
    cy.play(&ai_room, 0, "e5").await;
    cy.reach_room(&ai_room, |s| s.ply > 1 || thinking(s)).await;
    let opening = cy.latest(&ai_room).expect("a snapshot").moves;

    // Shut down: everybody is told the server is restarting.
    let watchers: Vec<_> = [ann, bob, cy]
        .into_iter()
        .map(|mut c| {
            tokio::spawn(async move {
                let closed = c.expect_closed().await;
                (c, closed)
            })
        })
        .collect();
    first.shutdown().await;
    let mut clients = Vec::new();
    for watcher in watchers {
        let (client, closed) = watcher.await.expect("a watcher panicked");
        assert_eq!(
            closed.bye,
            Some(ByeReason::Restarting),
            "{}: {closed:?}",
            client.label()
        );
        assert_eq!(closed.code, Some(1012), "{}: {closed:?}", client.label());
        clients.push(client);
    }
    let [ann, bob, cy]: [Client; 3] = clients.try_into().ok().expect("three clients");

    // A new server on the same file.
    let second = TestServer::start(on_file(&dir.file(), fast_config())).await;
    let (mut ann2, at) = resume(second.addr(), &ann, "Ann", &c4).await;
    assert_eq!(
        (at.ply, at.moves.clone()),
        (4, BEFORE.map(String::from).to_vec())
    );
    assert_eq!(at.status, GameStatus::Playing { turn: Mark::X });
    let (mut bob2, at) = resume(second.addr(), &bob, "Bob", &c4).await;
    assert_eq!(at.ply, 4);
    ann2.reach_room(&c4, |s| {
        s.seats.iter().all(|seat| {
            matches!(
                seat.occupant,
                Occupant::Human {
                    connected: true,
                    ..
                }
            )
        })
    })
    .await;
    finish_connect_four(&mut ann2, &mut bob2, &c4).await;

    // The AI moves on by itself, from where the game was.
    let (mut cy2, at) = resume(second.addr(), &cy, "Cy", &ai_room).await;
    assert_eq!(&at.moves[..opening.len()], &opening[..]);
    let moved = cy2
        .reach_room(&ai_room, |s| {
            s.status == GameStatus::Playing { turn: Mark::X } && s.ply >= 2
        })
        .await;
    finish_against_ai(&mut cy2, moved, &opening).await;
    second.shutdown().await;
}

/// The server in a child process on `file`, killed without warning when dropped.
struct ChildServer {
    child: Child,
    addr: SocketAddr,
}

impl ChildServer {
    fn start(file: &Path) -> ChildServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_child_server"))
            .arg("--data")
            .arg(file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server child starts");
        let stdout = child.stdout.take().expect("its stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the child says where it listens");
        let addr = line
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("unexpected first line from the server: {line:?}"))
            .parse()
            .expect("an address");
        ChildServer { child, addr }
    }

    /// SIGKILL: no shutdown, no flush, no `bye`.
    fn kill(mut self) {
        self.child.kill().expect("the child can be killed");
        self.child.wait().expect("the child is reaped");
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_loses_no_move_older_than_a_second() {
    let dir = DataDir::new("kill-restart");
    let first = ChildServer::start(&dir.file());
    let lobby = |name: &'static str| async move {
        let mut client = Client::connect(first.addr, name).await;
        client.hello(name).await;
        client
    };
    let mut ann = lobby("Ann").await;
    let mut bob = lobby("Bob").await;
    let c4 = connect_four(&mut ann, &mut bob).await;
    let mut cy = lobby("Cy").await;
    let ai_room = cy
        .create_room(
            RulesSpec::Preset("tictactoe".into()),
            plan(
                SeatRequest::Me,
                SeatRequest::Ai {
                    level: Level::Perfect,
                },
            ),
            false,
        )
        .await
        .id;
    cy.play(&ai_room, 0, "b2").await;
    let opening = cy.reach_room(&ai_room, |s| s.ply == 2).await.moves;

    // The promise is about time: what was played more than a second before a crash is
    // on disk. Give it that second, then kill.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    first.kill();

    let second = ChildServer::start(&dir.file());
    let (mut ann2, at) = resume(second.addr, &ann, "Ann", &c4).await;
    assert_eq!(
        (at.ply, at.moves.clone()),
        (4, BEFORE.map(String::from).to_vec())
    );
    let (mut bob2, _) = resume(second.addr, &bob, "Bob", &c4).await;
    ann2.reach_room(&c4, |s| {
        s.seats.iter().all(|seat| {
            matches!(
                seat.occupant,
                Occupant::Human {
                    connected: true,
                    ..
                }
            )
        })
    })
    .await;
    finish_connect_four(&mut ann2, &mut bob2, &c4).await;

    let (mut cy2, at) = resume(second.addr, &cy, "Cy", &ai_room).await;
    assert_eq!(at.moves, opening);
    finish_against_ai(&mut cy2, at, &opening).await;
    drop(second);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_and_rooms_nobody_comes_back_to_go_as_usual() {
    let dir = DataDir::new("no-return");
    let first = TestServer::start(on_file(&dir.file(), fast_config())).await;
    let mut ann = first.lobby("Ann").await;
    let mut bob = first.lobby("Bob").await;
    let c4 = connect_four(&mut ann, &mut bob).await;
    let mut cy = first.lobby("Cy").await;
    let mut dee = first.lobby("Dee").await;
    let deserted = connect_four(&mut cy, &mut dee).await;
    first.shutdown().await;

    // A grace far longer than a resume takes, far shorter than a receive's timeout.
    let second = TestServer::start(on_file(
        &dir.file(),
        Config {
            reconnect_grace: Duration::from_secs(3),
            room_idle_timeout: Duration::from_millis(100),
            ..fast_config()
        },
    ))
    .await;
    let (mut ann2, at) = resume(second.addr(), &ann, "Ann", &c4).await;
    assert_eq!(at.ply, 4);
    // Bob never comes back: his seat empties when the grace ends, as for any drop.
    let waiting = ann2
        .wait_room(|s| s.id == c4 && matches!(s.seats[1].occupant, Occupant::Empty))
        .await;
    assert_eq!(waiting.status, GameStatus::Waiting);
    assert_eq!(
        waiting.ply, 4,
        "the game is kept for whoever takes the seat"
    );

    // Nobody came back to Cy and Dee's room: it closes.
    let deadline = tokio::time::Instant::now() + inarow_e2e::RECV_TIMEOUT;
    loop {
        let rooms = ann2.list_rooms().await;
        assert!(rooms.iter().any(|r| r.id == c4), "Ann's room stays open");
        if !rooms.iter().any(|r| r.id == deserted) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the deserted room is still listed: {rooms:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    second.shutdown().await;
}
