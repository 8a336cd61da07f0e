//! End to end for the commands about kept games: a real server on 127.0.0.1:0 (in-process,
//! its games kept in memory), games played with the `inarow` binary in plain mode, then
//! `inarow history`, `export` and `replay --plain` run as a person would, their output
//! and exit status checked, and `export` compared with the `game` answer a raw WebSocket
//! client gets. Every wait is under a timeout.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{Server, Terminal as Client, WAIT};
use inarow_protocol::{ClientMessage, GameId, ServerMessage};

impl Server {
    /// The `game` answer for `id`, as a raw WebSocket client receives it.
    fn game(&self, id: u64) -> ServerMessage {
        self.runtime.block_on(async {
            let mut client = inarow_e2e::Client::connect(self.addr, "raw").await;
            client.hello("raw").await;
            client.call(ClientMessage::Game { game: GameId(id) }).await
        })
    }
}

/// What a one-shot command printed, and how it ended.
struct Output {
    stdout: String,
    stderr: String,
    success: bool,
}

/// Runs `inarow --server URL ARGS…` against the test server to its end.
fn inarow(server: &Server, args: &[&str]) -> Output {
    inarow_at(&server.url(), args)
}

/// Runs `inarow --server URL ARGS…` to its end (under [`WAIT`]) with stdin closed.
fn inarow_at(url: &str, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_inarow"))
        .args(["--server", url])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the inarow binary");
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for inarow") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("inarow {args:?} did not end within {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
        success: status.success(),
    }
}

/// Alice plays X against the AI in tic-tac-toe, b2, and resigns after the AI's reply;
/// then, in the rematch (she is O, the AI opens), she resigns at her first turn. Two kept
/// games: `O won (resigned)` in 2 moves, then `X won (resigned)` in 1.
fn play_two_games(server: &Server) {
    let mut alice = Client::spawn("alice", &["--server", &server.url()]);
    alice.wait_for("welcome", |l| l.starts_with("connected session="));
    alice.send("create tictactoe --ai O --level perfect");
    alice.wait_for("created", |l| l.starts_with("created "));
    alice.wait_for("our turn", |l| l == "status: turn X (your move)");
    alice.send("play b2");
    alice.wait_for("our turn again", |l| l == "status: turn X (your move)");
    alice.send("resign");
    // The ended game's snapshot says where the server keeps it, just above its status.
    let kept = alice.wait_for("where the game is kept", |l| l.starts_with("kept as game "));
    let id = kept
        .strip_prefix("kept as game ")
        .and_then(|rest| rest.split(':').next())
        .expect("an id");
    assert_eq!(kept, format!("kept as game {id}: inarow replay {id}"));
    alice.wait_for("the end", |l| l == "status: won O by resignation");
    alice.send("rematch");
    alice.wait_for("our turn in the rematch", |l| {
        l == "status: turn O (your move)"
    });
    alice.send("resign");
    alice.wait_for("the second end", |l| l == "status: won X by resignation");
    alice.send("quit");
    assert!(alice.wait_exit().success());
}

/// The id in the first column of a table row.
fn id_of(row: &str) -> u64 {
    row.split_whitespace()
        .next()
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no game id in {row:?}"))
}

#[test]
fn history_export_and_replay_read_the_games_played() {
    let server = Server::start();
    play_two_games(&server);

    // The table, newest first.
    let out = inarow(&server, &["history"]);
    assert!(out.success, "history failed: {}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "a header and two games:\n{}", out.stdout);
    assert!(lines[0].starts_with("game  ended (UTC)"), "{}", lines[0]);
    let (newest, oldest) = (lines[1], lines[2]);
    assert!(
        newest.contains("tictactoe  AI perfect  alice")
            && newest.ends_with("X won (resigned)      1"),
        "{newest}"
    );
    assert!(
        oldest.contains("tictactoe  alice       AI perfect")
            && oldest.ends_with("O won (resigned)      2"),
        "{oldest}"
    );
    let (second, first) = (id_of(newest), id_of(oldest));
    assert!(second > first);

    // A player's record comes first.
    let out = inarow(&server, &["history", "alice"]);
    assert!(out.success, "history alice failed: {}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "alice: 0 won, 0 drawn, 2 lost in 2 games");
    assert_eq!(lines[1], "  against     won  drawn  lost");
    assert_eq!(lines[2], "  AI perfect    0      0     2");
    assert_eq!(lines[3], "");
    assert!(lines[4].starts_with("game  "));
    assert_eq!(lines.len(), 7, "{}", out.stdout);

    // Pages: one game, and how to see the next; --all follows them.
    let out = inarow(&server, &["history", "--limit", "1"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    assert_eq!(id_of(lines[1]), second);
    assert_eq!(
        lines[3],
        format!("older games: inarow history --limit 1 --before {second} (or --all for every one)")
    );
    let out = inarow(
        &server,
        &["history", "--limit", "1", "--before", &second.to_string()],
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "the last page says nothing more:\n{}",
        out.stdout
    );
    assert_eq!(id_of(lines[1]), first);
    let out = inarow(&server, &["history", "--limit", "1", "--all"]);
    let ids: Vec<u64> = out.stdout.lines().skip(1).map(id_of).collect();
    assert_eq!(ids, [second, first], "{}", out.stdout);

    // export prints the server's record exactly.
    let out = inarow(&server, &["export", &first.to_string()]);
    assert!(out.success, "export failed: {}", out.stderr);
    let ServerMessage::Game { game } = server.game(first) else {
        panic!("a game answer");
    };
    assert_eq!(out.stdout, game.text);
    assert!(out.stdout.contains("[Board \"3x3\"]"), "{}", out.stdout);
    assert!(out.stdout.contains("1. b2 "), "{}", out.stdout);

    // replay --plain tells the game move by move, boards from the engine.
    let out = inarow(&server, &["replay", &first.to_string(), "--plain"]);
    assert!(out.success, "replay failed: {}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "game {first}: tictactoe, X alice vs O AI perfect, 2 moves, ended "
        )),
        "{}",
        lines[0]
    );
    // The time taken reads as in the record: `1. b2 {2.1s}` there, `move 1 X b2 2.1s` here.
    let first_time = game
        .text
        .split_once("1. b2 {")
        .and_then(|(_, rest)| rest.split_once('}'))
        .map(|(time, _)| time)
        .expect("the first move's time in the record");
    assert_eq!(lines[1], format!("move 1 X b2 {first_time}"));
    assert_eq!(
        lines[2..6],
        [" 3 . . .", " 2 . X .", " 1 . . .", "   a b c"]
    );
    assert!(lines[6].starts_with("move 2 O "), "{}", lines[6]);
    assert_eq!(lines.last(), Some(&"status: won O by resignation"));
    assert_eq!(lines.len(), 1 + 2 * 5 + 1, "{}", out.stdout);
}

#[test]
fn unknown_games_and_unreachable_servers_fail_with_a_message() {
    let server = Server::start();
    let out = inarow(&server, &["export", "987654"]);
    assert!(!out.success);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr
            .starts_with("inarow: no game 987654 on this server (unknown_game: "),
        "{}",
        out.stderr
    );
    let out = inarow(&server, &["replay", "987654", "--plain"]);
    assert!(!out.success);
    assert!(out.stderr.contains("unknown_game"), "{}", out.stderr);
    // Nothing played yet: an empty history is not an error.
    let out = inarow(&server, &["history", "nobody"]);
    assert!(out.success, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "nobody: 0 won, 0 drawn, 0 lost in 0 games\n\nno games\n"
    );
    // A server that is not there: the question fails instead of retrying forever.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("ws://{}", closed.local_addr().expect("local addr"));
    drop(closed);
    let out = inarow_at(&url, &["history"]);
    assert!(!out.success);
    assert!(
        out.stderr.starts_with("inarow: cannot connect to "),
        "{}",
        out.stderr
    );
}
