//! End to end in plain mode: a real server on 127.0.0.1:0 (in-process), the real `inarow`
//! binary with piped stdin/stdout, and for reconnection a loopback TCP proxy the test can
//! sever. Every read waits under a timeout.

use std::net::SocketAddr;
use std::time::Instant;

mod common;

use common::{Server, WAIT};
use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

use common::Terminal as Client;

impl Client {
    /// Starts the client against `url`.
    fn start(url: &str, name: &str, args: &[&str]) -> Client {
        let mut all = vec!["--server", url];
        all.extend_from_slice(args);
        Client::spawn(name, &all)
    }

    /// Reads until a complete room update (from `room …` to `status: …`).
    fn next_update(&mut self) -> Update {
        self.wait_for("a room update", |l| l.starts_with("room "));
        let deadline = Instant::now() + WAIT;
        let mut lines = Vec::new();
        loop {
            let line = self.next_line(deadline);
            let done = line.starts_with("status: ");
            lines.push(line);
            if done {
                return Update::parse(&lines);
            }
        }
    }

    /// Reads room updates until one satisfies `pred`.
    fn update_until(&mut self, what: &str, pred: impl Fn(&Update) -> bool) -> Update {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(
                Instant::now() < deadline,
                "{}: no update with {what}:\n{}",
                self.name,
                self.seen.join("\n")
            );
            let update = self.next_update();
            if pred(&update) {
                return update;
            }
        }
    }
}

/// A parsed room update.
#[derive(Debug)]
struct Update {
    /// Board rows top first, cells as chars.
    board: Vec<Vec<char>>,
    status: String,
    columns: String,
}

impl Update {
    fn parse(lines: &[String]) -> Update {
        let mut board = Vec::new();
        let mut columns = String::new();
        for line in lines {
            let mut parts = line.split_whitespace();
            let first = parts.next().unwrap_or("");
            if first.parse::<u32>().is_ok() {
                board.push(parts.map(|c| c.chars().next().unwrap_or('?')).collect());
            } else if line.starts_with("   a") {
                columns = line.trim().to_owned();
            }
        }
        let status = lines
            .last()
            .and_then(|l| l.strip_prefix("status: "))
            .unwrap_or("")
            .to_owned();
        Update {
            board,
            status,
            columns,
        }
    }

    fn my_move(&self) -> bool {
        self.status.ends_with("(your move)")
    }

    fn over(&self) -> bool {
        self.status.starts_with("won")
            || self.status.starts_with("drawn")
            || self.status == "aborted"
    }

    /// The first empty cell, in notation.
    fn first_empty(&self) -> String {
        let height = self.board.len();
        for (top, row) in self.board.iter().enumerate() {
            for (col, c) in row.iter().enumerate() {
                if *c == '.' {
                    let letter = char::from(b'a' + col as u8);
                    return format!("{letter}{}", height - top);
                }
            }
        }
        panic!("no empty cell in {:?}", self.board);
    }
}

/// Plays first-empty-cell moves whenever it is our turn until the game ends.
fn play_out(client: &mut Client, mut update: Update) -> Update {
    let mut moves = 0;
    while !update.over() {
        if update.my_move() {
            client.send(&format!("play {}", update.first_empty()));
            moves += 1;
            assert!(moves <= 5, "too many moves for tic-tac-toe");
        }
        update = client.next_update();
    }
    update
}

#[test]
fn a_game_against_the_ai_is_played_to_its_end() {
    let server = Server::start();
    let mut alice = Client::start(&server.url(), "alice", &[]);
    alice.wait_for("welcome", |l| l.starts_with("connected session="));
    alice.send("create tictactoe --ai O");
    let created = alice.wait_for("created", |l| l.starts_with("created "));
    let update = alice.next_update();
    assert_eq!(update.columns, "a b c");
    assert_eq!(update.board, vec![vec!['.'; 3]; 3]);
    assert_eq!(update.status, "turn X (your move)");
    // Junk is refused locally.
    alice.send("play z9");
    alice.wait_for("a local error", |l| l.starts_with("error: input: "));
    // Two moves piped at once: the second waits for the AI's reply instead of being
    // sent out of turn (it may find a1 taken by then, which is refused locally).
    alice.send("play b2\nplay a1");
    // (Whether the hold notice shows depends on which arrives first, the AI's reply or
    // the second line; either way nothing is sent out of turn.)
    let reply = alice.update_until("the AI's reply", |u| u.my_move() || u.over());
    let next = if reply.board[2][0] == '.' {
        alice.update_until("a1 played", |u| u.board[2][0] == 'X')
    } else {
        alice.wait_for("a1 refused", |l| l == "error: input: a1 is already taken");
        reply
    };
    assert!(
        alice
            .seen
            .iter()
            .all(|l| !l.starts_with("error: not_your_turn"))
    );
    let end = play_out(&mut alice, next);
    // The perfect AI never loses tic-tac-toe.
    assert!(
        end.status == "drawn" || end.status.starts_with("won O line "),
        "{}",
        end.status
    );
    assert!(created.contains(" invite="));
    alice.send("quit");
    assert!(alice.wait_exit().success());
}

/// Alice creates a tic-tac-toe room (X) and Bob joins it as O.
fn seated_pair(server: &Server) -> (Client, Client, String) {
    let mut alice = Client::start(&server.url(), "alice", &[]);
    let mut bob = Client::start(&server.url(), "bob", &[]);
    alice.wait_for("welcome", |l| l.starts_with("connected "));
    bob.wait_for("welcome", |l| l.starts_with("connected "));
    alice.send("create tictactoe");
    let created = alice.wait_for("created", |l| l.starts_with("created "));
    let room = created
        .split_whitespace()
        .nth(1)
        .expect("a room id")
        .to_owned();
    alice.update_until("waiting", |u| u.status == "waiting");
    bob.send(&format!("join {room}"));
    bob.wait_for("joined", |l| l == format!("joined {room} as O"));
    (alice, bob, room)
}

#[test]
fn two_clients_play_each_other_and_chat() {
    let server = Server::start();
    let (mut alice, mut bob, _room) = seated_pair(&server);
    // X takes the a column while O plays in b.
    for (i, mv) in ["a1", "b1", "a2", "b2", "a3"].iter().enumerate() {
        let mover = if i % 2 == 0 { &mut alice } else { &mut bob };
        mover.update_until("my move", |u| u.my_move() || u.over());
        mover.send(&format!("play {mv}"));
    }
    let a_end = alice.update_until("the end", Update::over);
    let b_end = bob.update_until("the end", Update::over);
    assert_eq!(a_end.status, "won X line a1,a2,a3");
    assert_eq!(b_end.status, "won X line a1,a2,a3");
    // Not your turn / game over: refused locally, nothing sent.
    bob.send("play c3");
    let refused = bob.wait_for("a local error", |l| l.starts_with("error: "));
    assert_eq!(refused, "error: input: the game is over");
    alice.send("chat gg");
    bob.wait_for("chat", |l| l == "chat alice: gg");
    bob.close_stdin();
    assert!(bob.wait_exit().success());
}

#[test]
fn a_client_that_quits_mid_game_gives_up_its_seat_at_once() {
    let server = Server::start();
    let (mut alice, mut bob, room) = seated_pair(&server);
    alice.update_until("my move", Update::my_move);
    alice.send("play a1");
    bob.update_until("my move", Update::my_move);
    // EOF mid-game: the client leaves before it goes, so alice sees an empty seat, not a
    // disconnected one held for the reconnection grace (60 s by default).
    bob.close_stdin();
    bob.wait_for("left", |l| l == format!("left {room}"));
    assert!(bob.wait_exit().success());
    alice.wait_for("bob's seat freed", |l| {
        l.starts_with("seats: ") && l.contains("O=(empty)")
    });
}

/// A loopback TCP proxy whose live connections the test can cut.
struct Proxy {
    addr: SocketAddr,
    sever: std::sync::Arc<std::sync::Mutex<CancellationToken>>,
}

impl Proxy {
    fn start(runtime: &Runtime, upstream: SocketAddr) -> Proxy {
        let listener = runtime
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let sever = std::sync::Arc::new(std::sync::Mutex::new(CancellationToken::new()));
        let current = sever.clone();
        runtime.spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                let cut = current.lock().expect("proxy lock").clone();
                tokio::spawn(async move {
                    let Ok(mut up) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut down, &mut up) => {}
                        () = cut.cancelled() => {}
                    }
                });
            }
        });
        Proxy { addr, sever }
    }

    /// Drops every connection made so far; later ones pass again.
    fn cut(&self) {
        let mut token = self.sever.lock().expect("proxy lock");
        token.cancel();
        *token = CancellationToken::new();
    }
}

#[test]
fn a_client_reconnects_after_its_socket_is_cut_and_finishes_the_game() {
    let server = Server::start();
    let proxy = Proxy::start(&server.runtime, server.addr);
    let mut alice = Client::start(&format!("ws://{}", proxy.addr), "alice", &[]);
    let hello = alice.wait_for("welcome", |l| l.starts_with("connected "));
    let session = hello
        .split_whitespace()
        .nth(1)
        .expect("session=…")
        .to_owned();
    assert!(hello.ends_with("resumed=false"));
    alice.send("create tictactoe --ai O");
    let first = alice.update_until("my move", Update::my_move);
    alice.send(&format!("play {}", first.first_empty()));
    // Wait until the AI has answered, so the cut falls on a quiet connection.
    let second = alice.update_until("my move again", |u| u.my_move() && u.board != first.board);
    proxy.cut();
    alice.wait_for("the drop", |l| l.starts_with("disconnected: "));
    let back = alice.wait_for("the resume", |l| l.starts_with("connected "));
    assert_eq!(back, format!("connected {session} resumed=true"));
    // The server restores the room: the same board, still our move.
    let restored = alice.next_update();
    assert_eq!(restored.board, second.board);
    assert!(restored.my_move());
    let end = play_out(&mut alice, restored);
    assert!(end.over());
    alice.close_stdin();
    assert!(alice.wait_exit().success());
}

#[test]
fn rooms_prints_the_public_rooms_and_exits() {
    let server = Server::start();
    let mut alice = Client::start(&server.url(), "alice", &[]);
    alice.wait_for("welcome", |l| l.starts_with("connected "));
    alice.send("create connect4");
    let created = alice.wait_for("created", |l| l.starts_with("created "));
    let room = created.split_whitespace().nth(1).expect("id").to_owned();
    let mut lister = Client::start(&server.url(), "lister", &["rooms"]);
    lister.close_stdin();
    let rest = lister.rest();
    assert!(lister.wait_exit().success());
    // Only the rooms: no `connected` line or anything else.
    assert_eq!(rest.len(), 2, "{rest:?}");
    assert_eq!(rest[0], "rooms: 1");
    let row = &rest[1];
    assert!(
        row.starts_with(&format!(
            "  {room} connect4 waiting X=alice O=(empty) spectators=0 "
        )),
        "{row}"
    );
}

#[test]
fn an_unsupported_protocol_ends_the_client_clearly() {
    // A fake server that refuses every hello the way the protocol says.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    runtime.spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                    return;
                };
                let _ = ws.next().await;
                for text in [
                    r#"{"type":"error","code":"unsupported_protocol","message":"this server speaks protocol 99","id":"hello"}"#,
                    r#"{"type":"bye","reason":"unsupported_protocol","message":"upgrade your client"}"#,
                ] {
                    let _ = ws
                        .send(tokio_tungstenite::tungstenite::Message::text(text))
                        .await;
                }
                let _ = ws.close(None).await;
            });
        }
    });
    let mut client = Client::start(&format!("ws://{addr}"), "alice", &[]);
    let line = client.wait_for("the refusal", |l| l.starts_with("error: "));
    assert_eq!(
        line,
        "error: unsupported_protocol: this server speaks protocol 99"
    );
    let rest = client.rest();
    let fatal = format!(
        "fatal: the server does not speak protocol version {}",
        inarow_protocol::PROTOCOL_VERSION
    );
    assert!(rest.iter().any(|l| l.starts_with(&fatal)), "{rest:?}");
    assert!(!client.wait_exit().success());
}

#[test]
fn hint_prints_every_moves_value_for_spectators_and_players_of_a_hints_room() {
    let server = Server::start();
    let mut alice = Client::start(&server.url(), "alice", &[]);
    alice.wait_for("welcome", |l| l.starts_with("connected session="));
    alice.send("create tictactoe --ai O");
    let created = alice.wait_for("created", |l| l.starts_with("created "));
    let code = created
        .split_whitespace()
        .nth(1)
        .expect("created CODE")
        .to_owned();
    alice.next_update();
    // A player in a room without hints is refused while the game is on.
    alice.send("hint");
    alice.wait_for("the refusal", |l| l.starts_with("error: hints_off: "));

    // A spectator may always ask: the empty board draws whatever the move.
    let mut bob = Client::start(&server.url(), "bob", &["watch", &code]);
    bob.wait_for("joined", |l| l.starts_with(&format!("joined {code}")));
    bob.next_update();
    bob.send("hint");
    bob.wait_for("the analysis", |l| {
        l == format!("analysis {code} game 1 ply 0: 9 moves")
    });
    let deadline = Instant::now() + WAIT;
    let mut cells: Vec<String> = (0..9)
        .map(|_| {
            let line = bob.next_line(deadline);
            let cell = line
                .strip_prefix("hint ")
                .and_then(|l| l.strip_suffix(": draw"))
                .unwrap_or_else(|| panic!("a drawn move, not {line:?}"));
            cell.to_owned()
        })
        .collect();
    cells.sort();
    assert_eq!(
        cells,
        ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]
    );

    // In a room created with --hints the player may ask too.
    alice.send("create tictactoe --ai O --hints");
    let created = alice.wait_for("created", |l| l.starts_with("created "));
    let code = created
        .split_whitespace()
        .nth(1)
        .expect("created CODE")
        .to_owned();
    alice.next_update();
    alice.send("hint");
    alice.wait_for("the analysis", |l| {
        l == format!("analysis {code} game 1 ply 0: 9 moves")
    });
    alice.wait_for("a hint", |l| {
        l.starts_with("hint ") && l.ends_with(": draw")
    });
}

#[test]
fn a_timed_game_shows_its_clocks_and_takes_takeback_and_draw() {
    let server = Server::start();
    let mut alice = Client::start(&server.url(), "alice", &[]);
    let mut bob = Client::start(&server.url(), "bob", &[]);
    alice.wait_for("welcome", |l| l.starts_with("connected "));
    bob.wait_for("welcome", |l| l.starts_with("connected "));
    alice.send("create tictactoe --clock 3+2 --takebacks on");
    let created = alice.wait_for("created", |l| l.starts_with("created "));
    let room = created
        .split_whitespace()
        .nth(1)
        .expect("a room id")
        .to_owned();
    alice.wait_for("the clocks", |l| l == "clock: X 3:00 O 3:00 (3+2)");
    bob.send(&format!("join {room}"));
    bob.wait_for("joined", |l| l == format!("joined {room} as O"));
    alice.update_until("my move", Update::my_move);
    alice.send("play b2");
    bob.update_until("my move", Update::my_move);
    bob.send("play a1");
    // X's clock runs now: `clock` shows it marked.
    alice.update_until("my move", Update::my_move);
    alice.send("clock");
    alice.wait_for("X's clock running", |l| {
        l.starts_with("clock: X 3:00 *") || l.starts_with("clock: X 2:59 *")
    });
    // Alice asks to take back b2 (and Bob's reply); Bob accepts.
    alice.send("takeback");
    bob.wait_for("the request", |l| {
        l == "offer: takeback asked by X (takeback yes to accept, takeback no to decline)"
    });
    bob.send("takeback yes");
    alice.update_until("the empty board", |u| {
        u.my_move() && u.board.iter().flatten().all(|c| *c == '.')
    });
    // A draw offered and agreed.
    alice.send("draw");
    bob.wait_for("the offer", |l| l.starts_with("offer: draw asked by X"));
    bob.send("draw yes");
    let end = alice.update_until("the end", Update::over);
    assert_eq!(end.status, "drawn by agreement");
    alice.send("quit");
    assert!(alice.wait_exit().success());
}
