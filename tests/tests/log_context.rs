//! Every line the server logs at `info` about a connection or a room names it: the
//! connection's lines carry its span (id, peer, and the session once `hello` named it),
//! a game's end carries the room's. The connection's span is entered only where it can log,
//! not on every poll of its task, so this checks those places keep the context. (A file of
//! its own: it installs the process's global log subscriber.)

use std::time::Duration;

use inarow_e2e::logs;
use inarow_e2e::players::take_turns;
use inarow_e2e::{TestServer, fast_config};

/// The lines of `logs` that contain `what`, at least one.
fn lines_with<'a>(logs: &'a str, what: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = logs.lines().filter(|l| l.contains(what)).collect();
    assert!(!lines.is_empty(), "no line with {what:?} in:\n{logs}");
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_and_room_lines_name_their_connection_and_room() {
    // The server binary's default level.
    let captured = logs::capture("info");
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    let (ann_session, bob_session) = (ann.session(), bob.session());
    // X wins on the diagonal.
    take_turns(
        &mut ann,
        &mut bob,
        &room,
        0,
        &["a1", "b1", "b2", "c1", "c3"],
    )
    .await;
    bob.reach_room(&room, |s| s.status.is_over()).await;
    bob.close().await;
    // The server logs the close once it has seen it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !captured.text().contains("connection closed") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no close logged:\n{}",
            captured.text()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.shutdown().await;

    let logs = captured.text();
    for line in lines_with(&logs, "connection opened") {
        assert!(
            line.contains("conn{id=") && line.contains("peer=127.0.0.1:"),
            "an opened connection's line without its span: {line}"
        );
    }
    for session in [ann_session, bob_session] {
        let named = format!("session={session}");
        let opened: Vec<_> = lines_with(&logs, "session opened")
            .into_iter()
            .filter(|l| l.contains(&named))
            .collect();
        assert_eq!(opened.len(), 1, "{session}'s hello, in its span:\n{logs}");
        assert!(opened[0].contains("conn{id="), "{}", opened[0]);
    }
    let bob_closed = format!("session={bob_session}");
    assert!(
        lines_with(&logs, "connection closed")
            .iter()
            .any(|l| l.contains("conn{id=") && l.contains(&bob_closed)),
        "Bob's close, in his connection's span:\n{logs}"
    );
    let over = lines_with(&logs, "game over");
    assert_eq!(over.len(), 1, "one game ended:\n{logs}");
    assert!(
        over[0].contains(&format!("room{{id={room}}}")) && over[0].contains("result=\"X won\""),
        "the game's end names its room and result: {}",
        over[0]
    );
}
