//! Limits under load and abuse: oversize frames and floods close only the offender, a
//! hundred rooms play at once, handshake and idle timeouts, keep-alive pings.

use std::time::Duration;

use inarow_e2e::{
    Client, Config, TestServer, assert_won, check_result, fast_config, human_connected, perfect_ai,
    plan, take_turns, tictactoe,
};
use inarow_protocol::{ByeReason, GameStatus, Mark, RoomSnapshot, SeatChoice, SeatRequest};
use rand::SeedableRng;
use rand::rngs::SmallRng;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversize_frames_and_floods_close_only_the_offender() {
    let config = Config {
        max_message_size: 4096,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    ann.play(&room, 0, "b2").await;
    bob.reach_room(&room, |s| s.ply == 1).await;

    // An oversized frame.
    let mut big = server.lobby("Big").await;
    let _ = big
        .try_send_raw(format!(
            r#"{{"type":"list_rooms","pad":"{}"}}"#,
            "p".repeat(10_000)
        ))
        .await;
    let closed = big.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::TooLarge), "{closed:?}");
    assert_eq!(closed.code, Some(1009), "{closed:?}");

    // A flood without reading: the server must close it (bye rate_limited, 1008) while
    // the game next door goes on.
    let mut flood = server.lobby("Flood").await;
    let mut sent = 0;
    for _ in 0..2_000 {
        if flood
            .try_send_raw(r#"{"type":"list_rooms","id":1}"#)
            .await
            .is_err()
        {
            break;
        }
        sent += 1;
    }
    let closed = flood.expect_closed().await;
    let refusals = closed
        .frames
        .iter()
        .filter(|f| {
            matches!(
                f.message,
                inarow_protocol::ServerMessage::Error {
                    code: inarow_protocol::ErrorCode::RateLimited,
                    ..
                }
            )
        })
        .count();
    eprintln!(
        "limits: flood sent {sent} frames, read {refusals} rate_limited, bye {:?}, close {:?}, error {:?}",
        closed.bye, closed.code, closed.error
    );
    assert_eq!(closed.bye, Some(ByeReason::RateLimited), "{closed:?}");
    assert_eq!(closed.code, Some(1008), "{closed:?}");

    // The game between Ann and Bob finishes normally: X takes the b column.
    let last = take_turns(&mut ann, &mut bob, &room, 1, &["a1", "b1", "c3", "b3"]).await;
    assert_won(&last, Mark::X);
    let seen_by_bob = bob.reach_room(&room, |s| s.status.is_over()).await;
    assert_eq!(seen_by_bob, last);
}

async fn play_pair(
    mut x: Client,
    mut o: Client,
    x_start: RoomSnapshot,
    o_start: RoomSnapshot,
    seed: u64,
) -> RoomSnapshot {
    let mut rx = SmallRng::seed_from_u64(seed);
    let mut ro = SmallRng::seed_from_u64(seed ^ 0xFFFF);
    let (a, b) = tokio::join!(
        x.play_randomly(x_start, Mark::X, &mut rx),
        o.play_randomly(o_start, Mark::O, &mut ro)
    );
    assert_eq!(a.moves, b.moves, "the two players saw different games");
    assert_eq!(a.status, b.status);
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_rooms_play_at_once() {
    const PAIRS: usize = 50;
    const VS_AI: usize = 50;
    let server = TestServer::start(fast_config()).await;
    let mut human_games = Vec::new();
    for i in 0..PAIRS {
        let mut x = server.lobby(&format!("x{i}")).await;
        let mut o = server.lobby(&format!("o{i}")).await;
        let created = x
            .create_room(
                tictactoe(),
                plan(SeatRequest::Me, SeatRequest::Open),
                i % 2 == 0,
            )
            .await;
        let o_start = o.join(&created.id, Some(SeatChoice::O)).await;
        human_games.push(tokio::spawn(play_pair(x, o, created, o_start, i as u64)));
    }
    let mut ai_games = Vec::new();
    for i in 0..VS_AI {
        let mut human = server.lobby(&format!("h{i}")).await;
        let me = if i % 2 == 0 { Mark::X } else { Mark::O };
        let seats = match me {
            Mark::X => plan(SeatRequest::Me, perfect_ai()),
            Mark::O => plan(perfect_ai(), SeatRequest::Me),
        };
        let start = human.create_room(tictactoe(), seats, false).await;
        ai_games.push(tokio::spawn(async move {
            let mut rng = SmallRng::seed_from_u64(1_000 + i as u64);
            let last = human.play_randomly(start, me, &mut rng).await;
            (me, last)
        }));
    }
    let (mut x_wins, mut o_wins, mut draws, mut ai_losses) = (0, 0, 0, 0);
    let mut tally = |s: &RoomSnapshot| match s.status {
        GameStatus::Won {
            winner: Mark::X, ..
        } => x_wins += 1,
        GameStatus::Won {
            winner: Mark::O, ..
        } => o_wins += 1,
        GameStatus::Drawn => draws += 1,
        _ => {}
    };
    for game in human_games {
        let last = game.await.expect("a human pair panicked");
        check_result(&last);
        tally(&last);
    }
    for game in ai_games {
        let (me, last) = game.await.expect("a game against the AI panicked");
        check_result(&last);
        if matches!(last.status, GameStatus::Won { winner, .. } if winner == me) {
            ai_losses += 1;
        }
        tally(&last);
    }
    eprintln!(
        "limits: {} rooms at once: X won {x_wins}, O won {o_wins}, drawn {draws}; AI lost {ai_losses}",
        PAIRS + VS_AI
    );
    assert_eq!(x_wins + o_wins + draws, PAIRS + VS_AI);
    assert_eq!(ai_losses, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_hello_in_time_closes_with_handshake_timeout() {
    let config = Config {
        handshake_timeout: Duration::from_millis(300),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut silent = server.connect("silent").await;
    let closed = silent.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::HandshakeTimeout), "{closed:?}");
    assert!(closed.code.is_some(), "a close frame: {closed:?}");
    // Saying hello in time is fine.
    let mut prompt = server.lobby("prompt").await;
    prompt.list_rooms().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_peer_is_closed_with_idle_timeout() {
    let config = Config {
        ping_interval: Duration::from_secs(60),
        idle_timeout: Duration::from_millis(400),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut quiet = server.lobby("quiet").await;
    let closed = quiet.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::IdleTimeout), "{closed:?}");
    assert!(closed.code.is_some(), "a close frame: {closed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_and_pongs_keep_a_quiet_peer_alive() {
    let config = Config {
        ping_interval: Duration::from_millis(100),
        idle_timeout: Duration::from_millis(700),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut reader = server.lobby("reader").await;
    // Sends nothing for several idle timeouts, but answers the server's pings.
    reader.idle_for(Duration::from_millis(2_500)).await;
    assert!(reader.pings() >= 3, "pings seen: {}", reader.pings());
    reader.list_rooms().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_dropped_and_keeps_its_seat() {
    let config = Config {
        outbound_queue: 8,
        max_chat_chars: 10_000,
        max_message_size: 64 * 1024,
        rate_per_second: 100_000,
        rate_burst: 100_000,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut slow = Client::connect_with_small_buffer(server.addr(), "Slow").await;
    slow.hello("Slow").await;
    let token = slow.token();
    let mut talker = server.lobby("Talker").await;
    let room = slow.open_room().await;
    talker.join(&room, Some(SeatChoice::O)).await;

    // Slow stops reading; Talker chats until the room reports Slow's connection gone
    // (its kernel buffers and then its bounded queue fill up).
    let chats = talker
        .chat_until_dropped(&room, Mark::X, &"w".repeat(10_000), 5_000)
        .await;
    // The room goes on for the others: Talker still gets answers.
    talker.list_rooms().await;

    // Reading at last, Slow finds the end of its connection after what was buffered.
    let closed = slow.expect_closed().await;
    eprintln!(
        "limits: slow reader dropped after {chats} chats of 10 kB; it then read {} frames, bye {:?}, close {:?}, error {:?}",
        closed.frames.len(),
        closed.bye,
        closed.code,
        closed.error
    );
    assert_eq!(
        closed.bye,
        Some(ByeReason::TooSlow),
        "{:?}",
        (closed.code, &closed.error)
    );

    // Its seat was kept for reconnection.
    let mut back = server.connect("Slow again").await;
    let welcome = back.hello_with("Slow", Some(token)).await;
    assert!(welcome.resumed);
    let snapshot = back.wait_room(|s| s.id == room).await;
    assert_eq!(
        human_connected(&snapshot, Mark::X),
        Some(true),
        "{snapshot:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fragmented_messages_count_as_one_against_the_size_limit() {
    let config = Config {
        max_message_size: 1024,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    // A message split across frames is reassembled and answered.
    let mut split = server.lobby("Split").await;
    split
        .try_send_fragments(&[r#"{"type":"list"#, r#"_rooms","id":"#, "77}"])
        .await
        .expect("sending fragments");
    let reply = split.recv().await;
    assert!(
        matches!(reply.message, inarow_protocol::ServerMessage::Rooms { .. }),
        "{reply:?}"
    );
    assert_eq!(reply.id, Some(inarow_protocol::RequestId::Number(77)));

    // Small frames adding up to more than the limit: too large.
    let mut sneaky = server.lobby("Sneaky").await;
    let pad = "p".repeat(600);
    let _ = sneaky
        .try_send_fragments(&[r#"{"type":"list_rooms","pad":""#, &pad, &pad, r#""}"#])
        .await;
    let closed = sneaky.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::TooLarge), "{closed:?}");
    assert_eq!(closed.code, Some(1009), "{closed:?}");
    split.list_rooms().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_spectators_see_the_same_story() {
    const WATCHERS: usize = 20;
    let server = TestServer::start(fast_config()).await;
    let mut host = server.lobby("Host").await;
    let room = host
        .create_room(
            tictactoe(),
            plan(SeatRequest::Open, SeatRequest::Open),
            false,
        )
        .await
        .id;
    let mut watchers = Vec::new();
    for i in 0..WATCHERS {
        let mut w = server.lobby(&format!("w{i}")).await;
        w.join(&room, None).await;
        watchers.push(w);
    }
    host.set_seat(&room, Mark::X, Some(inarow_protocol::Level::Perfect))
        .await;
    host.set_seat(&room, Mark::O, Some(inarow_protocol::Level::Medium))
        .await;
    let last = host.reach_room(&room, |s| s.status.is_over()).await;
    check_result(&last);
    for w in &mut watchers {
        let seen = w.reach_room(&room, |s| s.status.is_over()).await;
        assert_eq!(seen, last, "{} saw a different end", w.label());
        for ply in 0..=last.ply {
            assert!(
                w.snapshots(&room).iter().any(|s| s.ply == ply),
                "{} missed ply {ply}",
                w.label()
            );
        }
    }
    let mut everyone: Vec<&inarow_e2e::Client> = watchers.iter().collect();
    everyone.push(&host);
    inarow_e2e::assert_same_story(&room, &everyone);
}
