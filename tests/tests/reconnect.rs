//! Reconnection: a dropped player's seat is held for the grace period and resumed with the
//! session token; after the grace the seat empties and an AI can take it over.

use std::time::Duration;

use inarow_e2e::{
    Client, Config, TestServer, assert_won, check_result, fast_config, human_connected, occupant,
    plan, seat_of, take_turns, tictactoe,
};
use inarow_protocol::{
    ByeReason, ClientMessage, GameStatus, Level, Mark, Occupant, RoomId, RoomSnapshot, SeatChoice,
    SeatRequest, ServerMessage,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Ann (X) and Bob (O) in a fresh tic-tac-toe room after X `a1` and O `b2`: X to move.
async fn seated_pair(server: &TestServer) -> (Client, Client, RoomId) {
    let (mut ann, mut bob, room) = server.seated_pair().await;
    take_turns(&mut ann, &mut bob, &room, 0, &["a1", "b2"]).await;
    ann.reach_room(&room, |s| s.ply == 2).await;
    (ann, bob, room)
}

/// X plays a2 and a3 around O's c3 and wins the a column.
async fn finish_with_x_win(x: &mut Client, o: &mut Client, room: &RoomId) {
    let last = take_turns(x, o, room, 2, &["a2", "c3", "a3"]).await;
    assert_won(&last, Mark::X);
    o.reach_room(room, |s| s.status.is_over()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_player_resumes_within_the_grace_and_finishes() {
    let server = TestServer::start(fast_config()).await;
    let (ann, mut bob, room) = seated_pair(&server).await;
    let mut sam = server.lobby("Sam").await;
    sam.join(&room, None).await;
    bob.reach_room(&room, |s| s.spectators.iter().any(|n| n == "Sam"))
        .await;

    let token = ann.token();
    let session = ann.session();
    // Abrupt drop: no close frame, the TCP connection just ends.
    drop(ann);
    let held = bob
        .wait_room(|s| s.id == room && human_connected(s, Mark::X) == Some(false))
        .await;
    assert_eq!(
        seat_of(&held, session),
        Some(Mark::X),
        "seat held: {held:?}"
    );
    assert_eq!(held.ply, 2);
    assert!(!held.status.is_over());

    // A dropped spectator simply leaves.
    drop(sam);
    bob.wait_room(|s| s.id == room && !s.spectators.iter().any(|n| n == "Sam"))
        .await;

    let mut back = server.connect("Ann again").await;
    let welcome = back.hello_with("Ann", Some(token)).await;
    assert!(welcome.resumed, "{welcome:?}");
    assert_eq!(welcome.session, session);
    // A fresh snapshot of the room follows the welcome.
    let snapshot = back.wait_room(|s| s.id == room).await;
    assert_eq!(snapshot.ply, 2);
    assert_eq!(snapshot.moves, vec!["a1", "b2"]);
    assert_eq!(seat_of(&snapshot, session), Some(Mark::X));
    assert_eq!(human_connected(&snapshot, Mark::X), Some(true));
    bob.wait_room(|s| s.id == room && human_connected(s, Mark::X) == Some(true))
        .await;

    finish_with_x_win(&mut back, &mut bob, &room).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_connection_with_the_token_replaces_the_first() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = seated_pair(&server).await;
    let mut twin = server.connect("Ann twin").await;
    let welcome = twin.hello_with("Ann", Some(ann.token())).await;
    assert!(welcome.resumed);
    assert_eq!(welcome.session, ann.session());
    let closed = ann.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::Replaced), "{closed:?}");
    twin.wait_room(|s| s.id == room && s.ply == 2).await;
    finish_with_x_win(&mut twin, &mut bob, &room).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_grace_the_seat_empties_and_an_ai_takes_over() {
    let config = Config {
        reconnect_grace: Duration::from_millis(300),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let (ann, mut bob, room) = seated_pair(&server).await;
    let token = ann.token();
    let session = ann.session();
    drop(ann);
    bob.wait_room(|s| s.id == room && human_connected(s, Mark::X) == Some(false))
        .await;
    let emptied = bob
        .wait_room(|s| s.id == room && occupant(s, Mark::X) == &Occupant::Empty)
        .await;
    assert_eq!(emptied.ply, 2, "the game keeps its position: {emptied:?}");
    assert!(!emptied.status.is_over(), "no forfeit: {emptied:?}");

    // The old token no longer resumes anything.
    let mut late = server.connect("Ann late").await;
    let welcome = late.hello_with("Ann", Some(token)).await;
    assert!(!welcome.resumed, "{welcome:?}");
    assert_ne!(welcome.session, session);

    // Bob seats an AI as X, and it moves.
    let seated = bob.set_seat(&room, Mark::X, Some(Level::Perfect)).await;
    assert!(
        matches!(
            occupant(&seated, Mark::X),
            Occupant::Ai {
                level: Level::Perfect,
                ..
            }
        ),
        "{seated:?}"
    );
    let moved = bob.reach_room(&room, |s| s.ply == 3).await;
    assert_eq!(moved.moves[..2], ["a1", "b2"]);
    assert_eq!(moved.status, GameStatus::Playing { turn: Mark::O });

    // Bob plays on at random; the perfect AI (X after a1 b2, a drawn position) must not lose.
    let mut rng = SmallRng::seed_from_u64(7);
    let last = bob.play_randomly(moved, Mark::O, &mut rng).await;
    check_result(&last);
    assert!(
        !matches!(
            last.status,
            GameStatus::Won {
                winner: Mark::O,
                ..
            }
        ),
        "the AI lost: {last:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_token_opens_a_new_session() {
    let server = TestServer::start(fast_config()).await;
    let mut first = server.lobby("First").await;
    let mut stranger = server.connect("Stranger").await;
    let welcome = stranger
        .hello_with("Stranger", Some("not-a-token-anyone-was-given".to_owned()))
        .await;
    assert!(!welcome.resumed, "{welcome:?}");
    assert_ne!(welcome.session, first.session());
    assert_ne!(welcome.token, first.token());
    assert_ne!(
        welcome.token,
        welcome.session.to_string(),
        "the token is not the public id"
    );
    stranger.list_rooms().await;
    first.list_rooms().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_restores_the_seats_of_every_room() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let mut rooms = Vec::new();
    for mark in [Mark::X, Mark::O] {
        let seats = match mark {
            Mark::X => plan(SeatRequest::Me, SeatRequest::Open),
            Mark::O => plan(SeatRequest::Open, SeatRequest::Me),
        };
        let room = ann.create_room(tictactoe(), seats, false).await.id;
        bob.join(&room, Some(SeatChoice::Any)).await;
        rooms.push((room, mark));
    }
    let token = ann.token();
    let session = ann.session();
    drop(ann);
    for (room, mark) in &rooms {
        bob.reach_room(room, |s| human_connected(s, *mark) == Some(false))
            .await;
    }
    let mut back = server.connect("Ann back").await;
    let welcome = back.hello_with("Ann", Some(token)).await;
    assert!(welcome.resumed);
    // One fresh snapshot per room, in any order.
    let mut restored = Vec::new();
    while restored.len() < rooms.len() {
        let snapshot = back.wait_room(|_| true).await;
        if !restored.contains(&snapshot.id) {
            let mark = rooms
                .iter()
                .find(|(r, _)| *r == snapshot.id)
                .map(|(_, m)| *m)
                .unwrap_or_else(|| panic!("a snapshot of a room Ann is not in: {snapshot:?}"));
            assert_eq!(seat_of(&snapshot, session), Some(mark));
            assert_eq!(human_connected(&snapshot, mark), Some(true));
            restored.push(snapshot.id);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_rotates_the_token_so_a_stolen_one_works_once_and_the_owner_notices() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = seated_pair(&server).await;
    let stolen = ann.token();
    // The thief resumes Ann's session with the stolen token: Ann is told so.
    let mut thief = server.connect("Thief").await;
    let taken = thief.hello_with("Ann", Some(stolen.clone())).await;
    assert!(taken.resumed);
    assert_eq!(taken.session, ann.session());
    assert_ne!(taken.token, stolen, "a resume issues a new token");
    let closed = ann.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::Replaced), "{closed:?}");
    // The stolen token does not work a second time: it opens a new, empty session.
    let mut again = server.connect("Thief again").await;
    let fresh = again.hello_with("Ann", Some(stolen)).await;
    assert!(!fresh.resumed, "{fresh:?}");
    assert_ne!(fresh.session, taken.session);
    thief.list_rooms().await;
    // The current token does resume (and rotates again), and the game goes on.
    let mut back = server.connect("Ann back").await;
    let welcome = back.hello_with("Ann", Some(taken.token.clone())).await;
    assert!(welcome.resumed);
    assert_ne!(welcome.token, taken.token);
    assert_eq!(thief.expect_closed().await.bye, Some(ByeReason::Replaced));
    back.wait_room(|s| s.id == room && s.ply == 2).await;
    finish_with_x_win(&mut back, &mut bob, &room).await;
}

/// Issue 37: whoever enters a room sees its recent chat. A late spectator's `join`, a
/// reload (a new connection resuming with the token) and a `sync` each bring the lines
/// said so far in the snapshot; snapshots sent to everybody carry none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_is_there_after_a_reload_and_for_a_late_spectator() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = seated_pair(&server).await;
    for (who, text) in [(&mut ann, "good luck!"), (&mut bob, "you too")] {
        let said = who
            .call(ClientMessage::Chat {
                room: room.clone(),
                text: text.into(),
            })
            .await;
        assert!(matches!(said, ServerMessage::Chat { .. }), "{said:?}");
    }
    let said = |snapshot: &RoomSnapshot| -> Vec<(String, Option<Mark>, String)> {
        snapshot
            .chat
            .iter()
            .map(|l| (l.from.clone(), l.seat, l.text.clone()))
            .collect()
    };
    let expected = vec![
        ("Ann".to_owned(), Some(Mark::X), "good luck!".to_owned()),
        ("Bob".to_owned(), Some(Mark::O), "you too".to_owned()),
    ];

    // A late spectator.
    let mut cy = server.lobby("Cy").await;
    let watching = cy.join(&room, None).await;
    assert_eq!(said(&watching), expected, "{watching:?}");
    assert!(watching.chat.iter().all(|l| l.seq <= watching.seq));
    // The others' copy of the same event carries no chat.
    let seen_by_bob = bob
        .wait_room(|s| s.id == room && s.spectators.iter().any(|n| n == "Cy"))
        .await;
    assert!(seen_by_bob.chat.is_empty(), "{seen_by_bob:?}");

    // Cy speaks too; then Ann reloads: a new connection resumes her session.
    cy.call(ClientMessage::Chat {
        room: room.clone(),
        text: "nice corner".into(),
    })
    .await;
    let token = ann.token();
    drop(ann);
    bob.wait_room(|s| s.id == room && human_connected(s, Mark::X) == Some(false))
        .await;
    let mut back = server.connect("Ann reloaded").await;
    assert!(back.hello_with("Ann", Some(token)).await.resumed);
    let resumed = back.wait_room(|s| s.id == room).await;
    let mut all = expected.clone();
    all.push(("Cy".to_owned(), None, "nice corner".to_owned()));
    assert_eq!(said(&resumed), all, "{resumed:?}");

    // `sync` brings it too.
    let synced = bob
        .call_room(ClientMessage::Sync { room: room.clone() })
        .await;
    assert_eq!(said(&synced), all, "{synced:?}");
}
