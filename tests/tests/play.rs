//! Two humans play tic-tac-toe through the server while a spectator watches; private rooms.

use inarow_e2e::{
    Client, TestServer, assert_same_story, check_result, fast_config, human_connected, plan,
    seat_of, tictactoe,
};
use inarow_protocol::{
    ClientMessage, GameStatus, Mark, Occupant, RoomId, RoomSnapshot, SeatChoice, SeatRequest,
    ServerMessage,
};

/// X wins with the a column.
const X_WINS: [&str; 5] = ["a1", "b1", "a2", "b2", "a3"];
/// Nine moves and no line.
const DRAW: [&str; 9] = ["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"];

/// Plays `moves` alternately starting with `x`; each player answers only when the
/// snapshot shows it is its turn. Returns the final snapshot as `x` saw it.
async fn play_script(
    room: &RoomId,
    game: u32,
    x: &mut Client,
    o: &mut Client,
    moves: &[&str],
) -> RoomSnapshot {
    let mut last = None;
    for (ply, mv) in moves.iter().enumerate() {
        let ply = u32::try_from(ply).expect("short games");
        let (mover, mark) = if ply % 2 == 0 {
            (&mut *x, Mark::X)
        } else {
            (&mut *o, Mark::O)
        };
        let before = mover
            .reach_room(room, |s| {
                s.game == game && s.ply == ply && s.status != GameStatus::Waiting
            })
            .await;
        assert_eq!(
            before.status,
            GameStatus::Playing { turn: mark },
            "ply {ply}: {before:?}"
        );
        assert!(
            before.legal_moves.iter().any(|m| m == mv),
            "{mv} not listed as legal: {before:?}"
        );
        let after = mover.play(room, ply, mv).await;
        assert_eq!(after.ply, ply + 1);
        assert_eq!(after.moves.last().map(String::as_str), Some(*mv));
        assert_eq!(after.last_move.as_deref(), Some(*mv));
        last = Some(after);
    }
    let last = last.expect("a script has moves");
    let final_ply = last.ply;
    // Both players see the final position.
    x.reach_room(room, |s| s.game == game && s.ply == final_ply)
        .await;
    o.reach_room(room, |s| s.game == game && s.ply == final_ply)
        .await;
    last
}

/// The spectator saw every position of `game` from the empty board to the final one.
fn assert_saw_every_move(spectator: &Client, room: &RoomId, game: u32, moves: &[&str]) {
    let seen: Vec<RoomSnapshot> = spectator
        .snapshots(room)
        .into_iter()
        .filter(|s| s.game == game)
        .collect();
    for ply in 0..=moves.len() {
        let at_ply: Vec<&RoomSnapshot> = seen.iter().filter(|s| s.ply as usize == ply).collect();
        assert!(
            !at_ply.is_empty(),
            "spectator missed ply {ply} of game {game}: saw plies {:?}",
            seen.iter().map(|s| s.ply).collect::<Vec<_>>()
        );
        for snap in at_ply {
            assert_eq!(snap.moves, moves[..ply], "moves at ply {ply}");
        }
    }
    for pair in seen.windows(2) {
        assert!(pair[1].ply >= pair[0].ply, "plies went backwards");
        assert!(pair[1].seq > pair[0].seq);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_humans_win_then_draw_watched_by_a_spectator() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let mut sam = server.lobby("Sam").await;

    let created = ann
        .create_room(tictactoe(), plan(SeatRequest::Me, SeatRequest::Open), false)
        .await;
    let room = created.id.clone();
    assert_eq!(created.status, GameStatus::Waiting);
    assert_eq!(created.game, 1);
    assert_eq!(created.board, vec!["...", "...", "..."]);
    assert_eq!(seat_of(&created, ann.session()), Some(Mark::X));
    assert_eq!(occupant(&created, Mark::O), &Occupant::Empty);

    // The lobby lists the public room.
    let listed = sam.list_rooms().await;
    assert!(listed.iter().any(|r| r.id == room), "{listed:?}");

    let watching = sam.join(&room, None).await;
    assert!(
        watching.spectators.iter().any(|n| n == "Sam"),
        "{watching:?}"
    );
    assert_eq!(seat_of(&watching, sam.session()), None);

    // The lobby's summary counts the spectator.
    let listed = ann.list_rooms().await;
    let summary = listed
        .iter()
        .find(|r| r.id == room)
        .expect("the room is listed");
    assert_eq!(summary.spectators, 1, "{summary:?}");
    assert_eq!(summary.status, GameStatus::Waiting);
    assert_eq!(summary.name, created.name);

    let seated = bob.join(&room, Some(SeatChoice::O)).await;
    assert_eq!(seat_of(&seated, bob.session()), Some(Mark::O));
    assert_eq!(seated.status, GameStatus::Playing { turn: Mark::X });
    assert_eq!(human_connected(&seated, Mark::X), Some(true));

    // A chat line is a room event too: it takes the next seq for everybody.
    let said = bob
        .call(ClientMessage::Chat {
            room: room.clone(),
            text: "good luck".to_owned(),
        })
        .await;
    match said {
        ServerMessage::Chat {
            from, seat, text, ..
        } => {
            assert_eq!(
                (from.as_str(), seat, text.as_str()),
                ("Bob", Some(Mark::O), "good luck")
            );
        }
        other => panic!("expected the chat line back, got {other:?}"),
    }

    // A spectator's chat line carries no seat.
    match sam
        .call(ClientMessage::Chat {
            room: room.clone(),
            text: "go Ann".to_owned(),
        })
        .await
    {
        ServerMessage::Chat { from, seat, .. } => assert_eq!((from.as_str(), seat), ("Sam", None)),
        other => panic!("expected the chat line back, got {other:?}"),
    }

    let won = play_script(&room, 1, &mut ann, &mut bob, &X_WINS).await;
    match &won.status {
        GameStatus::Won { winner, line } => {
            assert_eq!(*winner, Mark::X);
            let mut line = line.clone();
            line.sort();
            assert_eq!(line, vec!["a1", "a2", "a3"]);
        }
        other => panic!("expected X to win, got {other:?}"),
    }
    check_result(&won);
    sam.reach_room(&room, |s| s.status.is_over()).await;
    assert_saw_every_move(&sam, &room, 1, &X_WINS);

    // Rematch: marks swap, Bob plays X in game 2.
    let asked = ann
        .call_room(ClientMessage::Rematch { room: room.clone() })
        .await;
    assert_eq!(
        asked.game, 1,
        "one player asking does not start the rematch"
    );
    let flags: Vec<(Mark, bool)> = asked.seats.iter().map(|s| (s.mark, s.rematch)).collect();
    assert_eq!(flags, vec![(Mark::X, true), (Mark::O, false)], "{asked:?}");
    bob.reach_room(&room, |s| s.seats.iter().any(|seat| seat.rematch))
        .await;
    let second = bob
        .call_room(ClientMessage::Rematch { room: room.clone() })
        .await;
    assert_eq!(second.game, 2, "{second:?}");
    assert_eq!(second.ply, 0);
    assert_eq!(second.status, GameStatus::Playing { turn: Mark::X });
    assert_eq!(seat_of(&second, bob.session()), Some(Mark::X));
    assert_eq!(seat_of(&second, ann.session()), Some(Mark::O));
    assert!(
        second.seats.iter().all(|s| !s.rematch),
        "flags cleared: {second:?}"
    );

    let drawn = play_script(&room, 2, &mut bob, &mut ann, &DRAW).await;
    assert_eq!(drawn.status, GameStatus::Drawn, "{drawn:?}");
    check_result(&drawn);
    sam.reach_room(&room, |s| s.game == 2 && s.status.is_over())
        .await;
    assert_saw_every_move(&sam, &room, 2, &DRAW);

    assert_same_story(&room, &[&ann, &bob, &sam]);
    // Everybody saw the chat line with the same seq.
    let chat_seqs: Vec<Vec<u64>> = [&ann, &bob, &sam]
        .iter()
        .map(|c| {
            c.history()
                .iter()
                .filter_map(|m| match m {
                    ServerMessage::Chat { seq, .. } => Some(*seq),
                    _ => None,
                })
                .collect()
        })
        .collect();
    assert_eq!(chat_seqs[0].len(), 2, "{chat_seqs:?}");
    assert!(
        chat_seqs.iter().all(|s| *s == chat_seqs[0]),
        "{chat_seqs:?}"
    );
    let seqs = sam.seqs(&room);
    eprintln!(
        "play: spectator saw {} snapshots and 2 chat lines over 2 games, seq {} to {}",
        sam.snapshots(&room).len(),
        seqs.first().copied().unwrap_or_default(),
        seqs.last().copied().unwrap_or_default()
    );
}

fn occupant(snapshot: &RoomSnapshot, mark: Mark) -> &Occupant {
    inarow_e2e::occupant(snapshot, mark)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_room_is_unlisted_and_joined_by_its_code() {
    let server = TestServer::start(fast_config()).await;
    let mut host = server.lobby("Host").await;
    let mut guest = server.lobby("Guest").await;

    let public = host
        .create_room(tictactoe(), plan(SeatRequest::Me, SeatRequest::Open), false)
        .await;
    let private = host
        .call_room(ClientMessage::CreateRoom {
            name: Some("Friday night".to_owned()),
            rules: tictactoe(),
            seats: plan(SeatRequest::Me, SeatRequest::Open),
            private: true,
            hints: false,
            time_control: None,
            takebacks: None,
        })
        .await;
    assert_eq!(private.name, "Friday night");
    assert!(
        public.name.contains("Host"),
        "default name: {:?}",
        public.name
    );
    assert!(private.private);
    assert!(!public.private);
    assert_ne!(private.id, public.id);
    // The id doubles as an invite code: 8 characters without ambiguous ones.
    assert_eq!(private.id.0.chars().count(), 8, "{:?}", private.id);
    assert!(
        private
            .id
            .0
            .chars()
            .all(|c| "abcdefghjkmnpqrstuvwxyz23456789".contains(c)),
        "{:?}",
        private.id
    );

    let listed = guest.list_rooms().await;
    assert!(listed.iter().any(|r| r.id == public.id), "{listed:?}");
    assert!(!listed.iter().any(|r| r.id == private.id), "{listed:?}");

    // The guest first watches, then takes the free seat and stops being a spectator.
    let watching = guest.join(&private.id, None).await;
    assert_eq!(watching.spectators, vec!["Guest"]);
    let joined = guest.join(&private.id, Some(SeatChoice::Any)).await;
    assert!(joined.spectators.is_empty(), "{joined:?}");
    assert_eq!(joined.id, private.id);
    assert_eq!(seat_of(&joined, guest.session()), Some(Mark::O));
    assert_eq!(joined.status, GameStatus::Playing { turn: Mark::X });
    host.reach_room(&private.id, |s| {
        s.status == GameStatus::Playing { turn: Mark::X }
    })
    .await;

    // Still unlisted once the game is on.
    let listed = host.list_rooms().await;
    assert!(!listed.iter().any(|r| r.id == private.id), "{listed:?}");
    let final_snapshot = play_script(&private.id, 1, &mut host, &mut guest, &X_WINS).await;
    check_result(&final_snapshot);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_frees_the_seat_without_forfeiting() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    let mut cy = server.lobby("Cy").await;
    // Each side has moved (leaving before that aborts the game: tests/tests/offers.rs).
    inarow_e2e::take_turns(&mut ann, &mut bob, &room, 0, &["b2", "a1"]).await;
    bob.reach_room(&room, |s| s.ply == 2).await;
    bob.leave(&room).await;
    let after = ann
        .wait_room(|s| s.ply == 2 && occupant(s, Mark::O) == &Occupant::Empty)
        .await;
    assert!(
        !after.status.is_over(),
        "leaving must not forfeit: {after:?}"
    );

    // Someone else takes the seat and the game goes on from where it was.
    let taken = cy.join(&room, Some(SeatChoice::Any)).await;
    assert_eq!(seat_of(&taken, cy.session()), Some(Mark::O));
    assert_eq!(taken.ply, 2);
    assert_eq!(taken.status, GameStatus::Playing { turn: Mark::X });
    ann.reach_room(&room, |s| s.status == GameStatus::Playing { turn: Mark::X })
        .await;
    ann.play(&room, 2, "c3").await;
    cy.reach_room(&room, |s| s.ply == 3).await;
    let moved = cy.play(&room, 3, "a3").await;
    assert_eq!(moved.moves, vec!["b2", "a1", "c3", "a3"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_nobody_watches_closes_after_the_idle_timeout() {
    let config = inarow_e2e::Config {
        room_idle_timeout: std::time::Duration::from_millis(300),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut host = server.lobby("Host").await;
    let mut other = server.lobby("Other").await;
    let room = host.open_room().await;
    // A room with a connected human stays, however long it is idle...
    let kept = host.list_rooms().await;
    assert!(kept.iter().any(|r| r.id == room));
    host.leave(&room).await;
    // ...and one without closes: it leaves the lobby and cannot be joined.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while other.list_rooms().await.iter().any(|r| r.id == room) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the room never closed"
        );
        // Time passing is the subject: poll the lobby until the room's timer fires.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The host's connection spoke to the room last (and keeps its handle): the same.
    for who in [&mut other, &mut host] {
        who.expect_refused(
            ClientMessage::Join {
                room: room.clone(),
                seat: Some(SeatChoice::Any),
            },
            inarow_protocol::ErrorCode::UnknownRoom,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_joins_racing_for_one_seat_get_one_seat() {
    let server = TestServer::start(fast_config()).await;
    let mut host = server.lobby("Host").await;
    let mut one = server.lobby("One").await;
    let mut two = server.lobby("Two").await;
    let (mut one_won, mut two_won) = (0, 0);
    for _ in 0..20 {
        let room = host.open_room().await;
        let join = ClientMessage::Join {
            room: room.clone(),
            seat: Some(SeatChoice::Any),
        };
        // Both requests are on the wire before either reads its answer.
        let id_one = one.request(join.clone()).await;
        let id_two = two.request(join).await;
        let mut outcomes = Vec::new();
        for (client, id) in [(&mut one, id_one), (&mut two, id_two)] {
            let frame = client.recv().await;
            assert_eq!(frame.id, Some(id), "{frame:?}");
            outcomes.push(match frame.message {
                ServerMessage::Room { room: snapshot } => {
                    assert_eq!(seat_of(&snapshot, client.session()), Some(Mark::O));
                    true
                }
                ServerMessage::Error { code, .. } => {
                    assert_eq!(code, inarow_protocol::ErrorCode::RoomFull);
                    false
                }
                other => panic!("unexpected {other:?}"),
            });
        }
        assert_eq!(
            outcomes.iter().filter(|&&won| won).count(),
            1,
            "{outcomes:?}"
        );
        if outcomes[0] {
            one_won += 1;
        } else {
            two_won += 1;
        }
        let started = host
            .reach_room(&room, |s| s.status == GameStatus::Playing { turn: Mark::X })
            .await;
        assert_eq!(
            seat_of(
                &started,
                if outcomes[0] {
                    one.session()
                } else {
                    two.session()
                }
            ),
            Some(Mark::O)
        );
    }
    eprintln!("play: join races won by the first {one_won}, by the second {two_won}");
}

/// Version 1 and version 2 clients in one room: a version 2 client gets `moved` events and
/// the harness applies them (with the terminal client's rule); the snapshots that makes
/// must be the very snapshots version 1 clients receive, seq for seq, through human moves,
/// AI moves (the `thinking` flag), chat lines and the end of the game. `sync` repeats the
/// current snapshot to the requester alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_1_and_2_clients_see_the_same_snapshots() {
    use inarow_protocol::{Level, RulesSpec};
    use rand::SeedableRng;

    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut old = server.connect("Old").await;
    old.set_protocol(1);
    assert_eq!(old.hello("Old").await.protocol, 1);
    let mut sam = server.lobby("Sam").await;

    // Humans, with gravity: Ann (2) against Old (1), watched by Sam (2).
    let created = ann
        .create_room(
            RulesSpec::Preset("connect4".into()),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await;
    let room = created.id.clone();
    sam.join(&room, None).await;
    let start = old.join(&room, Some(SeatChoice::O)).await;
    ann.call(ClientMessage::Chat {
        room: room.clone(),
        text: "good luck".into(),
    })
    .await;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(8);
    let mut rng_o = rand::rngs::SmallRng::seed_from_u64(9);
    let ann_start = ann
        .reach_room(&room, |s| {
            s.ply == 0 && !s.spectators.is_empty() && s.seats[1].occupant != Occupant::Empty
        })
        .await;
    let (a, b) = tokio::join!(
        ann.play_randomly(ann_start, Mark::X, &mut rng),
        old.play_randomly(start, Mark::O, &mut rng_o)
    );
    assert!(a.status.is_over() && a.ply == b.ply, "{a:?} {b:?}");
    sam.reach_room(&room, |s| s.status.is_over()).await;
    assert!(ann.moves_received() >= usize::try_from(a.ply).expect("small"));
    assert_eq!(old.moves_received(), 0, "version 1 gets snapshots only");
    assert_same_story(&room, &[&ann, &old, &sam]);

    // `sync` answers the requester alone, repeating the current seq.
    let synced = ann
        .call_room(ClientMessage::Sync { room: room.clone() })
        .await;
    // The game's end was followed by one more snapshot, naming the kept game.
    assert!(synced.last_game.is_some(), "{synced:?}");
    // It also brings the room's recent chat, which snapshots sent to everybody lack.
    assert_eq!(synced.chat.len(), 1, "{synced:?}");
    let kept = RoomSnapshot {
        seq: a.seq + 1,
        last_game: synced.last_game,
        chat: synced.chat.clone(),
        ..a.clone()
    };
    assert_eq!(synced, kept);

    // An AI seat: Old (1) watches Ann (2) play a medium AI; `thinking` must agree.
    let vs_ai = ann
        .create_room(
            RulesSpec::Preset("connect4".into()),
            plan(
                SeatRequest::Me,
                SeatRequest::Ai {
                    level: Level::Medium,
                },
            ),
            false,
        )
        .await;
    let ai_room = vs_ai.id.clone();
    old.join(&ai_room, None).await;
    let start = ann.reach_room(&ai_room, |s| s.spectators.len() == 1).await;
    let end = ann.play_randomly(start, Mark::X, &mut rng).await;
    old.reach_room(&ai_room, |s| s.ply == end.ply && s.status.is_over())
        .await;
    assert_same_story(&ai_room, &[&ann, &old]);
}

/// Issue 37: a rename is answered `renamed` and shows at once in the rooms the session is
/// in, in its seat and among the spectators; a bad name changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_shows_in_the_rooms() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    let mut cy = server.lobby("Cy").await;
    cy.join(&room, None).await;
    bob.wait_room(|s| s.id == room && s.spectators == ["Cy"])
        .await;

    let rename = |name: &str| ClientMessage::Rename {
        name: name.to_owned(),
    };
    match ann.call(rename("  Ann B.  ")).await {
        ServerMessage::Renamed { name } => assert_eq!(name, "Ann B."),
        other => panic!("expected renamed, got {other:?}"),
    }
    let seen = bob
        .wait_room(|s| {
            s.id == room
                && matches!(&s.seats[0].occupant, Occupant::Human { name, .. } if name == "Ann B.")
        })
        .await;
    assert_eq!(human_connected(&seen, Mark::X), Some(true));

    match cy.call(rename("Cyrus")).await {
        ServerMessage::Renamed { name } => assert_eq!(name, "Cyrus"),
        other => panic!("expected renamed, got {other:?}"),
    }
    ann.wait_room(|s| s.id == room && s.spectators == ["Cyrus"])
        .await;

    // A name hello would refuse is refused here too, and the name stays.
    let refused = cy
        .expect_refused(rename("   "), inarow_protocol::ErrorCode::InvalidName)
        .await;
    assert!(!refused.message.is_empty());
    let synced = cy
        .call_room(ClientMessage::Sync { room: room.clone() })
        .await;
    assert_eq!(synced.spectators, ["Cyrus"]);
    // Later chat lines carry the new name.
    match ann
        .call(ClientMessage::Chat {
            room: room.clone(),
            text: "hi".into(),
        })
        .await
    {
        ServerMessage::Chat { from, .. } => assert_eq!(from, "Ann B."),
        other => panic!("expected chat, got {other:?}"),
    }
}
