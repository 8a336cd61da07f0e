//! Every error code of the protocol, produced by sending the bad input; after each error the
//! same connection goes on with a successful request, or, where the protocol closes, the
//! `bye` reason and close code are checked. One table lists the scenarios and a test runs
//! them all and checks that the codes they observed cover `ErrorCode::ALL`. It is long
//! because the table is one piece: every code must be reached from the same place.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use inarow_e2e::{Client, Config, TestServer, fast_config, fast_config_with_data, plan, tictactoe};
use inarow_protocol::{
    ByeReason, ClientMessage, ErrorCode, GameId, GameStatus, Level, Mark, Occupant,
    PROTOCOL_VERSION, RequestId, RoomId, Rules, RulesSpec, SeatChoice, SeatRequest, ServerMessage,
};

type Scenario = fn() -> Pin<Box<dyn Future<Output = Vec<ErrorCode>> + Send>>;

/// Every scenario, with a name for failure reports. Each returns the codes it observed.
const SCENARIOS: &[(&str, Scenario)] = &[
    ("bad_request", || Box::pin(bad_request())),
    ("unsupported_protocol", || Box::pin(unsupported_protocol())),
    ("invalid_name", || Box::pin(invalid_name())),
    ("invalid_rules", || Box::pin(invalid_rules())),
    ("invalid_chat", || Box::pin(invalid_chat())),
    ("unknown_room", || Box::pin(unknown_room())),
    ("seat_errors", || Box::pin(seat_errors())),
    ("play_errors", || Box::pin(play_errors())),
    ("rate_limited", || Box::pin(rate_limited())),
    ("too_large", || Box::pin(too_large())),
    ("server_full", || Box::pin(server_full())),
    ("too_many_rooms", || Box::pin(too_many_rooms())),
    ("too_many_connections", || Box::pin(too_many_connections())),
    ("too_many_sessions", || Box::pin(too_many_sessions())),
    ("store_errors", || Box::pin(store_errors())),
    ("hints_off", || Box::pin(hints_off())),
    ("offers", || Box::pin(offers())),
];

/// A request that must succeed: proves the connection is still usable.
async fn still_usable(client: &mut Client) {
    client.list_rooms().await;
}

/// Sends raw text with an id and expects `bad_request` echoing that id.
async fn bad_raw(client: &mut Client, text: &str, id: Option<RequestId>) -> ErrorCode {
    client.send_raw(text).await;
    let reply = client.expect_error(ErrorCode::BadRequest).await;
    assert_eq!(reply.id, id, "id echo for {text}: {reply:?}");
    reply.code
}

async fn bad_request() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut seen = Vec::new();
    let mut c = server.connect("bad").await;
    // Before hello: refused, with the id echoed, and hello still works afterwards.
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"list_rooms","id":41}"#,
            Some(RequestId::Number(41)),
        )
        .await,
    );
    seen.push(bad_raw(&mut c, "this is not json", None).await);
    c.send_binary(vec![1, 2, 3]).await;
    seen.push(c.expect_error(ErrorCode::BadRequest).await.code);
    // A textual id is echoed as text.
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "Bad".into(),
        token: None,
    };
    c.send_with_id(hello, RequestId::Text("hi-1".into())).await;
    let welcome = c.recv().await;
    assert!(
        matches!(
            welcome.message,
            ServerMessage::Welcome { resumed: false, .. }
        ),
        "{welcome:?}"
    );
    assert_eq!(welcome.id, Some(RequestId::Text("hi-1".into())));
    seen.push(bad_raw(&mut c, "{\"type\":\"list_rooms\",", None).await);
    seen.push(bad_raw(&mut c, "[1,2,3]", None).await);
    seen.push(bad_raw(&mut c, r#"{"id":"t1"}"#, Some(RequestId::Text("t1".into()))).await);
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"dance","id":"u1"}"#,
            Some(RequestId::Text("u1".into())),
        )
        .await,
    );
    seen.push(bad_raw(&mut c, r#"{"type":7,"id":8}"#, Some(RequestId::Number(8))).await);
    // Missing fields.
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"join","id":5}"#,
            Some(RequestId::Number(5)),
        )
        .await,
    );
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"play","id":6,"room":"abc"}"#,
            Some(RequestId::Number(6)),
        )
        .await,
    );
    // Wrong field types.
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"play","id":7,"room":"abc","ply":"zero","move":"a1"}"#,
            Some(RequestId::Number(7)),
        )
        .await,
    );
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"create_room","id":9,"rules":"tictactoe","seats":{"X":{"kind":"me"}}}"#,
            Some(RequestId::Number(9)),
        )
        .await,
    );
    seen.push(
        bad_raw(
            &mut c,
            r#"{"type":"join","id":10,"room":"abc","seat":"Z"}"#,
            Some(RequestId::Number(10)),
        )
        .await,
    );
    // A second hello.
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "Again".into(),
        token: None,
    };
    seen.push(c.expect_refused(hello, ErrorCode::BadRequest).await.code);
    // One human holds at most one seat per room.
    let both = ClientMessage::CreateRoom {
        name: None,
        rules: tictactoe(),
        seats: plan(SeatRequest::Me, SeatRequest::Me),
        private: false,
        hints: false,
        time_control: None,
        takebacks: None,
    };
    seen.push(c.expect_refused(both, ErrorCode::BadRequest).await.code);
    still_usable(&mut c).await;
    seen
}

async fn unsupported_protocol() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut c = server.connect("future").await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION + 1,
        name: "Future".into(),
        token: None,
    };
    let reply = c
        .expect_refused(hello, ErrorCode::UnsupportedProtocol)
        .await;
    let closed = c.expect_closed().await;
    assert_eq!(
        closed.bye,
        Some(ByeReason::UnsupportedProtocol),
        "{closed:?}"
    );
    assert!(closed.code.is_some(), "expected a close frame: {closed:?}");
    // The server itself is fine.
    let mut next = server.lobby("Present").await;
    still_usable(&mut next).await;
    vec![reply.code]
}

async fn invalid_name() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut c = server.connect("names").await;
    let mut seen = Vec::new();
    for name in [
        "",
        "   ",
        "a\u{7}b",
        "tab\there",
        &"n".repeat(25),
        &"é".repeat(25),
    ] {
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.to_owned(),
            token: None,
        };
        seen.push(c.expect_refused(hello, ErrorCode::InvalidName).await.code);
    }
    // The connection may retry; 24 characters (not bytes) are allowed and the name is
    // trimmed.
    c.hello(&format!("  {}  ", "é".repeat(24))).await;
    let room = c
        .create_room(tictactoe(), plan(SeatRequest::Me, SeatRequest::Open), false)
        .await;
    match &inarow_e2e::occupant(&room, Mark::X) {
        inarow_protocol::Occupant::Human { name, .. } => assert_eq!(name, &"é".repeat(24)),
        other => panic!("{other:?}"),
    }
    seen
}

async fn invalid_rules() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut c = server.lobby("Rules").await;
    let mut seen = Vec::new();
    let custom = |width, height, k| {
        RulesSpec::Custom(Rules {
            width,
            height,
            k,
            gravity: false,
        })
    };
    let bad = [
        RulesSpec::Preset("chess".into()),
        custom(0, 3, 3),
        custom(3, 0, 1),
        custom(20, 3, 3),
        custom(3, 20, 3),
        custom(3, 3, 0),
        custom(3, 3, 4),
        custom(u32::MAX, 3, 3),
    ];
    for rules in bad {
        let create = ClientMessage::CreateRoom {
            name: None,
            rules: rules.clone(),
            seats: plan(SeatRequest::Me, SeatRequest::Open),
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        };
        let reply = c.expect_refused(create, ErrorCode::InvalidRules).await;
        if let RulesSpec::Preset(_) = rules {
            assert!(
                reply.message.contains("tictactoe"),
                "presets named: {reply:?}"
            );
        }
        seen.push(reply.code);
    }
    // Rules the decoder cannot read are invalid_rules too, naming the field and its range.
    for (raw, named) in [
        (
            r#"{"type":"create_room","id":9,"rules":{"width":"3","height":3,"k":3}}"#,
            "rules.width must be a whole number from 1 to 19",
        ),
        (
            r#"{"type":"create_room","id":9,"rules":{"width":3,"height":3}}"#,
            "rules.k is missing",
        ),
    ] {
        c.send_raw(raw).await;
        let reply = c.expect_error(ErrorCode::InvalidRules).await;
        assert_eq!(reply.id, Some(RequestId::Number(9)));
        assert!(reply.message.starts_with(named), "{reply:?}");
        seen.push(reply.code);
    }
    let room = c
        .create_room(
            custom(4, 4, 3),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await;
    assert_eq!(room.board, vec!["....", "....", "....", "...."]);
    for preset in ["tictactoe", "connect4", "gomoku"] {
        c.create_room(
            RulesSpec::Preset(preset.into()),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await;
    }
    seen
}

async fn invalid_chat() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut c = server.lobby("Chatty").await;
    let room = c.open_room().await;
    let mut seen = Vec::new();
    for text in [String::new(), "   \n ".to_owned(), "x".repeat(501)] {
        let chat = ClientMessage::Chat {
            room: room.clone(),
            text,
        };
        seen.push(c.expect_refused(chat, ErrorCode::InvalidChat).await.code);
    }
    // Lengths count characters, not bytes: 500 two-byte characters are fine, 501 are not.
    let chat = ClientMessage::Chat {
        room: room.clone(),
        text: "é".repeat(501),
    };
    seen.push(c.expect_refused(chat, ErrorCode::InvalidChat).await.code);
    let long = "é".repeat(500);
    let said = c
        .call(ClientMessage::Chat {
            room: room.clone(),
            text: long.clone(),
        })
        .await;
    match said {
        ServerMessage::Chat { text, from, .. } => {
            assert_eq!((text, from.as_str()), (long, "Chatty"))
        }
        other => panic!("expected chat, got {other:?}"),
    }
    seen
}

async fn unknown_room() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut c = server.lobby("Lost").await;
    let mut seen = Vec::new();
    for seat in [None, Some(SeatChoice::Any), Some(SeatChoice::X)] {
        let join = ClientMessage::Join {
            room: RoomId::from("zzzzzzzz"),
            seat,
        };
        seen.push(c.expect_refused(join, ErrorCode::UnknownRoom).await.code);
    }
    c.open_room().await;
    seen
}

/// unknown_game; store_unavailable, by taking the database file away before the first
/// read (a read opens a connection of its own to the file, which is then missing).
async fn store_errors() -> Vec<ErrorCode> {
    let mut seen = Vec::new();
    let server = TestServer::start(fast_config()).await;
    let mut c = server.lobby("Reader").await;
    let unknown = ClientMessage::Game { game: GameId(1) };
    seen.push(c.expect_refused(unknown, ErrorCode::UnknownGame).await.code);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = TestServer::start(fast_config_with_data(dir.path().join("gone.db"))).await;
    let mut c = server.lobby("Reader").await;
    drop(dir);
    let history = ClientMessage::History {
        name: None,
        limit: None,
        before: None,
    };
    seen.push(
        c.expect_refused(history, ErrorCode::StoreUnavailable)
            .await
            .code,
    );
    let game = ClientMessage::Game { game: GameId(1) };
    seen.push(
        c.expect_refused(game, ErrorCode::StoreUnavailable)
            .await
            .code,
    );
    still_usable(&mut c).await;
    seen
}

/// room_full, seat_taken, already_seated, and not_a_player for a spectator's set_seat.
async fn seat_errors() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let mut cy = server.lobby("Cy").await;
    let mut seen = Vec::new();
    let room = ann.open_room().await;
    let join = |seat| ClientMessage::Join {
        room: room.clone(),
        seat,
    };
    // Ann already holds X.
    seen.push(
        ann.expect_refused(join(Some(SeatChoice::O)), ErrorCode::AlreadySeated)
            .await
            .code,
    );
    // Asking again for her own seat just resends the snapshot.
    let again = ann.join(&room, Some(SeatChoice::X)).await;
    assert_eq!(inarow_e2e::seat_of(&again, ann.session()), Some(Mark::X));
    // Cy wants X: taken by Ann.
    seen.push(
        cy.expect_refused(join(Some(SeatChoice::X)), ErrorCode::SeatTaken)
            .await
            .code,
    );
    bob.join(&room, Some(SeatChoice::O)).await;
    seen.push(
        cy.expect_refused(join(Some(SeatChoice::Any)), ErrorCode::RoomFull)
            .await
            .code,
    );
    seen.push(
        cy.expect_refused(join(Some(SeatChoice::O)), ErrorCode::SeatTaken)
            .await
            .code,
    );
    // A seat held by the other player cannot be replaced by an AI.
    let set = ClientMessage::SetSeat {
        room: room.clone(),
        seat: Mark::O,
        ai: Some(Level::Easy),
    };
    seen.push(
        ann.expect_refused(set.clone(), ErrorCode::SeatTaken)
            .await
            .code,
    );
    // Watching is still possible, but seats belong to the players: a spectator is told so
    // before anything about the seat itself.
    cy.join(&room, None).await;
    seen.push(cy.expect_refused(set, ErrorCode::NotAPlayer).await.code);
    // A seat held by an AI is taken too.
    let ai_room = ann
        .create_room(
            tictactoe(),
            plan(SeatRequest::Me, SeatRequest::Ai { level: Level::Easy }),
            false,
        )
        .await
        .id;
    let join_ai = ClientMessage::Join {
        room: ai_room,
        seat: Some(SeatChoice::O),
    };
    seen.push(cy.expect_refused(join_ai, ErrorCode::SeatTaken).await.code);
    still_usable(&mut cy).await;
    seen
}

/// not_in_room, not_a_player, not_your_turn, stale_ply, illegal_move,
/// game_not_in_progress, game_in_progress.
async fn play_errors() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let mut cy = server.lobby("Cy").await;
    let mut seen = Vec::new();
    let room = ann.open_room().await;
    let play = |ply: u32, mv: &str| ClientMessage::Play {
        room: room.clone(),
        ply,
        mv: mv.to_owned(),
    };
    let resign = ClientMessage::Resign { room: room.clone() };
    let rematch = ClientMessage::Rematch { room: room.clone() };

    // Cy is not in the room: every room request says so.
    for message in [
        play(0, "a1"),
        resign.clone(),
        rematch.clone(),
        ClientMessage::Leave { room: room.clone() },
        ClientMessage::Chat {
            room: room.clone(),
            text: "hi".into(),
        },
        ClientMessage::SetSeat {
            room: room.clone(),
            seat: Mark::O,
            ai: Some(Level::Easy),
        },
    ] {
        seen.push(cy.expect_refused(message, ErrorCode::NotInRoom).await.code);
    }

    // Waiting for an opponent: no game yet.
    seen.push(
        ann.expect_refused(play(0, "a1"), ErrorCode::GameNotInProgress)
            .await
            .code,
    );
    seen.push(
        ann.expect_refused(resign.clone(), ErrorCode::GameNotInProgress)
            .await
            .code,
    );
    seen.push(
        ann.expect_refused(rematch.clone(), ErrorCode::GameInProgress)
            .await
            .code,
    );

    bob.join(&room, Some(SeatChoice::O)).await;
    cy.join(&room, None).await;
    // A spectator may not play, resign or ask for a rematch.
    for message in [play(0, "a1"), resign.clone(), rematch.clone()] {
        seen.push(cy.expect_refused(message, ErrorCode::NotAPlayer).await.code);
    }
    // O moves on X's turn.
    seen.push(
        bob.expect_refused(play(0, "a1"), ErrorCode::NotYourTurn)
            .await
            .code,
    );
    // X with a wrong ply.
    seen.push(
        ann.expect_refused(play(3, "a1"), ErrorCode::StalePly)
            .await
            .code,
    );
    // Illegal moves.
    for mv in ["z9", "a4", "d1", "", "b", "11", "a1a1"] {
        let reply = ann
            .expect_refused(play(0, mv), ErrorCode::IllegalMove)
            .await;
        assert!(!reply.message.is_empty());
        seen.push(reply.code);
    }
    seen.push(
        ann.expect_refused(rematch.clone(), ErrorCode::GameInProgress)
            .await
            .code,
    );
    // None of that changed the game.
    let moved = ann.play(&room, 0, "b2").await;
    assert_eq!(moved.moves, vec!["b2"]);
    // The cell is taken now; and an old ply is stale.
    bob.reach_room(&room, |s| s.ply == 1).await;
    seen.push(
        bob.expect_refused(play(1, "b2"), ErrorCode::IllegalMove)
            .await
            .code,
    );
    seen.push(
        bob.expect_refused(play(0, "a1"), ErrorCode::StalePly)
            .await
            .code,
    );
    seen.push(
        ann.expect_refused(play(1, "a1"), ErrorCode::NotYourTurn)
            .await
            .code,
    );
    // Bob resigns; the game is over and nobody can play on.
    let over = bob.call_room(resign.clone()).await;
    assert_eq!(over.status, GameStatus::Resigned { winner: Mark::X });
    assert!(over.legal_moves.is_empty());
    seen.push(
        ann.expect_refused(play(1, "a1"), ErrorCode::GameNotInProgress)
            .await
            .code,
    );
    seen.push(
        bob.expect_refused(resign, ErrorCode::GameNotInProgress)
            .await
            .code,
    );
    // Now a rematch is allowed.
    ann.call_room(rematch).await;
    still_usable(&mut cy).await;
    seen
}

async fn rate_limited() -> Vec<ErrorCode> {
    let config = Config {
        rate_per_second: 2,
        rate_burst: 5,
        rate_strikes: 1_000,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut c = server.lobby("Hasty").await;
    let mut seen = Vec::new();
    // Lock-step requests (each answered before the next), far faster than 2/s: the first
    // few pass on the burst, then they are refused with the request's id.
    let mut passed = 0;
    for _ in 0..12 {
        let id = c.request(ClientMessage::ListRooms {}).await;
        let frame = c.recv().await;
        assert_eq!(frame.id.as_ref(), Some(&id), "{frame:?}");
        match frame.message {
            ServerMessage::Rooms { .. } => passed += 1,
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => seen.push(ErrorCode::RateLimited),
            other => panic!("expected rooms or rate_limited, got {other:?}"),
        }
    }
    assert!(
        !seen.is_empty(),
        "12 requests at once never hit a burst of 5"
    );
    // The hello took one token of the burst of 5.
    assert!((4..12).contains(&passed), "passed {passed}");
    // The bucket refills: the same connection is served again after a moment.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        assert!(tokio::time::Instant::now() < deadline, "never served again");
        // Time passing is the subject here: wait for the bucket to refill.
        tokio::time::sleep(Duration::from_millis(250)).await;
        let id = c.request(ClientMessage::ListRooms {}).await;
        let frame = c.recv().await;
        assert_eq!(frame.id.as_ref(), Some(&id));
        if let ServerMessage::Rooms { .. } = frame.message {
            break;
        }
    }

    // A flood (strikes exhausted) closes the connection with bye rate_limited and 1008.
    let config = Config {
        rate_per_second: 1,
        rate_burst: 3,
        rate_strikes: 5,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut flooder = server.lobby("Flood").await;
    let mut refused = 0;
    let closed = loop {
        assert!(refused <= 50, "still open after {refused} refusals");
        if flooder
            .try_send_raw(r#"{"type":"list_rooms","id":1}"#)
            .await
            .is_err()
        {
            break flooder.expect_closed().await;
        }
        let frame = flooder.recv().await;
        match frame.message {
            ServerMessage::Rooms { .. } => {}
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => refused += 1,
            ServerMessage::Bye { reason, .. } => {
                assert_eq!(reason, ByeReason::RateLimited);
                let mut closed = flooder.expect_closed().await;
                closed.bye = Some(reason);
                break closed;
            }
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(closed.bye, Some(ByeReason::RateLimited), "{closed:?}");
    assert_eq!(closed.code, Some(1008), "{closed:?}");
    assert!(refused >= 5, "closed after only {refused} refusals");
    let mut other = server.lobby("Calm").await;
    still_usable(&mut other).await;
    seen
}

async fn too_large() -> Vec<ErrorCode> {
    let config = Config {
        max_message_size: 1024,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    // Under the limit is fine.
    let mut fine = server.lobby("Fine").await;
    let room = fine.open_room().await;
    let text = "z".repeat(400);
    match fine
        .call(ClientMessage::Chat {
            room: room.clone(),
            text: text.clone(),
        })
        .await
    {
        ServerMessage::Chat { text: got, .. } => assert_eq!(got, text),
        other => panic!("expected chat, got {other:?}"),
    }
    // Over it: bye too_large and close code 1009 (Size).
    let mut big = server.lobby("Big").await;
    let oversized = format!(
        r#"{{"type":"chat","id":2,"room":"{room}","text":"{}"}}"#,
        "z".repeat(2000)
    );
    // The server may close before the whole frame is written; a send error is fine.
    let _ = big.try_send_raw(oversized).await;
    let closed = big.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::TooLarge), "{closed:?}");
    assert_eq!(closed.code, Some(1009), "{closed:?}");
    // As ErrorCode::TooLarge documents: an error, then bye, then the close. The id of an
    // unread message cannot be known, so none is echoed.
    let kinds: Vec<&ServerMessage> = closed.frames.iter().map(|f| &f.message).collect();
    assert!(
        matches!(
            kinds.as_slice(),
            [
                ServerMessage::Error {
                    code: ErrorCode::TooLarge,
                    ..
                },
                ServerMessage::Bye {
                    reason: ByeReason::TooLarge,
                    ..
                }
            ]
        ),
        "expected error too_large then bye too_large: {kinds:?}"
    );
    // Only the offender was closed.
    still_usable(&mut fine).await;
    vec![ErrorCode::TooLarge]
}

async fn server_full() -> Vec<ErrorCode> {
    let config = Config {
        max_connections: 1,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut first = server.lobby("First").await;
    let mut second = server.connect("Second").await;
    let refused = second.expect_error(ErrorCode::ServerFull).await;
    let closed = second.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::ServerFull), "{closed:?}");
    still_usable(&mut first).await;
    // Once the first leaves, a new connection gets in (the slot is released
    // asynchronously, so retry until a deadline).
    first.close().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mut next = server.connect("Next").await;
        let id = next
            .request(ClientMessage::Hello {
                protocol: PROTOCOL_VERSION,
                name: "Next".into(),
                token: None,
            })
            .await;
        let frame = next.recv().await;
        match frame.message {
            ServerMessage::Welcome { .. } => {
                assert_eq!(frame.id, Some(id));
                break;
            }
            ServerMessage::Error {
                code: ErrorCode::ServerFull,
                ..
            } => {
                next.expect_closed().await;
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the slot was never released"
                );
                // Time passing is the subject: the closed connection's slot is freed by
                // its task ending.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    vec![refused.code]
}

async fn too_many_rooms() -> Vec<ErrorCode> {
    let config = Config {
        max_rooms: 2,
        max_rooms_per_session: 1,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut c = server.lobby("Builder").await;
    let room = c.open_room().await;
    let create = ClientMessage::CreateRoom {
        name: None,
        rules: tictactoe(),
        seats: plan(SeatRequest::Me, SeatRequest::Open),
        private: true,
        hints: false,
        time_control: None,
        takebacks: None,
    };
    // The session's own cap, then the server's: each message says which.
    let mine = c
        .expect_refused(create.clone(), ErrorCode::TooManyRooms)
        .await;
    assert!(mine.message.contains("for one session"), "{mine:?}");
    let mut d = server.lobby("Other").await;
    d.open_room().await;
    let mut e = server.lobby("Third").await;
    let server_cap = e.expect_refused(create, ErrorCode::TooManyRooms).await;
    assert!(
        server_cap.message.contains("the server has 2 rooms"),
        "{server_cap:?}"
    );
    let listed = c.list_rooms().await;
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().any(|r| r.id == room));
    vec![mine.code, server_cap.code]
}

/// too_many_connections: an address at its limit of connections at once.
async fn too_many_connections() -> Vec<ErrorCode> {
    let config = Config {
        max_connections_per_ip: 1,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut first = server.lobby("First").await;
    let mut second = server.connect("Second").await;
    let refused = second.expect_error(ErrorCode::TooManyConnections).await;
    let closed = second.expect_closed().await;
    assert_eq!(
        closed.bye,
        Some(ByeReason::TooManyConnections),
        "{closed:?}"
    );
    assert_eq!(closed.code, Some(1013), "{closed:?}");
    still_usable(&mut first).await;
    vec![refused.code]
}

/// too_many_sessions: an address at its limit of sessions; resuming is still allowed.
async fn too_many_sessions() -> Vec<ErrorCode> {
    let config = Config {
        max_sessions_per_ip: 1,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut first = server.lobby("First").await;
    let mut second = server.connect("Second").await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "Second".into(),
        token: None,
    };
    let refused = second
        .expect_refused(hello, ErrorCode::TooManySessions)
        .await;
    let closed = second.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::TooManySessions), "{closed:?}");
    assert_eq!(closed.code, Some(1013), "{closed:?}");
    // The address's one session can still be resumed.
    let mut again = server.connect("First again").await;
    assert!(again.hello_with("First", Some(first.token())).await.resumed);
    first.expect_closed().await;
    still_usable(&mut again).await;
    vec![refused.code]
}

/// A player asks for an analysis while the game is on in a room created without hints.
async fn hints_off() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, _bob, room) = server.seated_pair().await;
    let refused = ann
        .expect_refused(ClientMessage::Analyze { room }, ErrorCode::HintsOff)
        .await;
    still_usable(&mut ann).await;
    vec![refused.code]
}

/// A time control out of range, a takeback with nothing to take back, an answer to an
/// offer never made.
async fn offers() -> Vec<ErrorCode> {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    ann.send_raw(
        r#"{"type": "create_room", "id": 7, "rules": "tictactoe", "time_control": {"kind": "per_move", "ms": 10}}"#,
    )
    .await;
    let bad_clock = ann.expect_error(ErrorCode::InvalidTimeControl).await;
    assert_eq!(bad_clock.id, Some(RequestId::Number(7)));
    assert!(
        bad_clock.message.contains("time_control.ms"),
        "{bad_clock:?}"
    );
    let takeback = |accept| ClientMessage::Takeback {
        room: room.clone(),
        accept,
    };
    let refused = bob
        .expect_refused(takeback(None), ErrorCode::TakebackRefused)
        .await;
    let no_offer = ann
        .expect_refused(takeback(Some(true)), ErrorCode::NoOffer)
        .await;
    still_usable(&mut ann).await;
    vec![bad_clock.code, refused.code, no_offer.code]
}

/// Issue 37: a spectator of a game against the AI may neither remove the AI nor put one
/// in; the player still may. In a room where nobody sits, anyone in it sets the seats up
/// (tests/tests/ai.rs has a watcher start an AI-against-AI game).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_players_change_seats() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut cy = server.lobby("Cy").await;
    let room = ann
        .create_room(
            tictactoe(),
            plan(SeatRequest::Me, SeatRequest::Ai { level: Level::Easy }),
            false,
        )
        .await
        .id;
    cy.join(&room, None).await;
    let free_o = ClientMessage::SetSeat {
        room: room.clone(),
        seat: Mark::O,
        ai: None,
    };
    let refused = cy.expect_refused(free_o, ErrorCode::NotAPlayer).await;
    assert_eq!(refused.message, "only the room's players may change seats");
    still_usable(&mut cy).await;
    // Nothing changed: the AI still plays O, and Ann still may replace it.
    let stronger = ann.set_seat(&room, Mark::O, Some(Level::Perfect)).await;
    assert!(
        matches!(
            stronger.seats[1].occupant,
            Occupant::Ai {
                level: Level::Perfect,
                ..
            }
        ),
        "{stronger:?}"
    );
    let freed = ann.set_seat(&room, Mark::O, None).await;
    assert_eq!(freed.seats[1].occupant, Occupant::Empty);
    // The empty seat is not the spectator's to fill with an AI either.
    let easy_o = ClientMessage::SetSeat {
        room: room.clone(),
        seat: Mark::O,
        ai: Some(Level::Easy),
    };
    cy.expect_refused(easy_o, ErrorCode::NotAPlayer).await;
}

macro_rules! scenario_tests {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let seen = super::$name().await;
            assert!(!seen.is_empty(), "scenario {} observed no error", stringify!($name));
        }
    )*};
}

mod each {
    scenario_tests!(
        bad_request,
        unsupported_protocol,
        invalid_name,
        invalid_rules,
        invalid_chat,
        unknown_room,
        seat_errors,
        play_errors,
        rate_limited,
        too_large,
        server_full,
        too_many_rooms,
        too_many_connections,
        too_many_sessions,
        store_errors,
        hints_off,
        offers,
    );
}

/// Runs every scenario of the table and checks that together they produced every code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scenarios_cover_every_error_code() {
    let mut seen = HashSet::new();
    let mut failed = Vec::new();
    let tasks: Vec<_> = SCENARIOS
        .iter()
        .map(|(name, scenario)| (*name, tokio::spawn(scenario())))
        .collect();
    for (name, task) in tasks {
        match task.await {
            Ok(codes) => seen.extend(codes),
            Err(error) => failed.push(format!("{name}: {error}")),
        }
    }
    let missing: Vec<ErrorCode> = ErrorCode::ALL
        .into_iter()
        .filter(|code| !seen.contains(code))
        .collect();
    assert!(failed.is_empty(), "scenarios failed: {failed:#?}");
    assert!(missing.is_empty(), "codes never produced: {missing:?}");
}
