//! Per-client limits: one client (or one address) that floods rooms or connections meets
//! its own cap while everybody else goes on creating rooms and playing. Test clients take
//! different loopback addresses (127.0.0.x) to be different hosts.

use std::net::Ipv4Addr;
use std::time::Duration;

use inarow_e2e::{Client, Config, TestServer, assert_won, fast_config, take_turns};
use inarow_protocol::{
    ByeReason, ClientMessage, ErrorCode, GameStatus, Mark, PROTOCOL_VERSION, SeatChoice,
    ServerMessage,
};

const FLOODER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const NEIGHBOUR: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// Creates rooms as fast as replies come until one is refused; returns how many were
/// created and the refusal.
async fn create_until_refused(client: &mut Client) -> (usize, ServerMessage) {
    let mut created = 0;
    loop {
        assert!(created <= 1_000, "never refused");
        let create = ClientMessage::CreateRoom {
            name: None,
            rules: inarow_e2e::tictactoe(),
            seats: Default::default(),
            private: true,
            hints: false,
            time_control: None,
            takebacks: None,
        };
        let id = client.request(create).await;
        let frame = loop {
            let frame = client.recv().await;
            if frame.id.as_ref() == Some(&id) {
                break frame;
            }
        };
        match frame.message {
            ServerMessage::Room { .. } => created += 1,
            refused => return (created, refused),
        }
    }
}

fn refused_with(message: &ServerMessage, code: ErrorCode, words: &str) {
    match message {
        ServerMessage::Error { code: got, message } => {
            assert_eq!(*got, code, "{message}");
            assert!(message.contains(words), "{message:?} should say {words:?}");
        }
        other => panic!("expected error {code}, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_flooder_meets_its_own_cap_while_others_create_rooms_and_play() {
    let config = Config {
        max_rooms: 30,
        max_rooms_per_session: 8,
        max_connections_per_ip: 3,
        reconnect_grace: Duration::from_millis(300),
        room_idle_timeout: Duration::from_millis(200),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let addr = server.addr();

    // One connection creating rooms back to back: 8, then its own cap.
    let mut floods = Vec::new();
    for i in 0..3 {
        let mut flood = Client::connect_from(addr, FLOODER, &format!("flood{i}")).await;
        flood.hello(&format!("flood{i}")).await;
        let (created, refusal) = create_until_refused(&mut flood).await;
        assert_eq!(created, 8, "flood{i}");
        refused_with(&refusal, ErrorCode::TooManyRooms, "for one session");
        floods.push(flood);
    }
    // A fourth connection from the same address is turned away.
    let mut fourth = Client::connect_from(addr, FLOODER, "flood3").await;
    fourth.expect_error(ErrorCode::TooManyConnections).await;
    let closed = fourth.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::TooManyConnections), Some(1013))
    );

    // 24 of the 30 rooms are the flooder's; two people elsewhere still create one and play.
    let mut ann = Client::connect_from(addr, NEIGHBOUR, "Ann").await;
    ann.hello("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let room = ann.open_room().await;
    bob.join(&room, Some(SeatChoice::O)).await;
    ann.reach_room(&room, |s| s.status == GameStatus::Playing { turn: Mark::X })
        .await;
    let last = take_turns(
        &mut ann,
        &mut bob,
        &room,
        0,
        &["a1", "b1", "a2", "b2", "a3"],
    )
    .await;
    assert_won(&last, Mark::X);

    // Once the flooder leaves, its sessions expire and its empty rooms close: the count
    // goes back to the one room Ann and Bob are in.
    for flood in floods {
        flood.close().await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    // The server frees an address's connection slots only once it has wound each socket
    // down, a moment after the client's close: until then a new connection is refused.
    let mut again = loop {
        let mut again = Client::connect_from(addr, FLOODER, "flood again").await;
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "flood again".to_owned(),
            token: None,
        };
        again.request(hello).await;
        match again.recv().await.message {
            ServerMessage::Welcome { .. } => break again,
            ServerMessage::Error {
                code: ErrorCode::TooManyConnections,
                ..
            } => assert!(
                tokio::time::Instant::now() < deadline,
                "the flooder's connections were never released"
            ),
            other => panic!("flood again: expected welcome, got {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let mut total = 0;
    loop {
        let (created, refusal) = create_until_refused(&mut again).await;
        total += created;
        if total == 8 {
            refused_with(&refusal, ErrorCode::TooManyRooms, "for one session");
            break;
        }
        // The old rooms still fill the server: wait for them to close.
        refused_with(&refusal, ErrorCode::TooManyRooms, "the server has 30 rooms");
        assert!(
            tokio::time::Instant::now() < deadline,
            "the flooder's rooms never closed"
        );
        // Time passing is the subject: rooms close a grace and an idle timeout later.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_opens_at_most_its_rate_of_connections_per_minute() {
    let config = Config {
        new_connections_per_ip_per_minute: 3,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let addr = server.addr();
    for i in 0..3 {
        let mut c = Client::connect_from(addr, FLOODER, &format!("c{i}")).await;
        c.hello("c").await;
        c.close().await;
    }
    let mut fourth = Client::connect_from(addr, FLOODER, "c3").await;
    let refused = fourth.expect_error(ErrorCode::TooManyConnections).await;
    assert!(
        refused.message.contains("in the last minute"),
        "{refused:?}"
    );
    let closed = fourth.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::TooManyConnections), Some(1013))
    );
    // Another address is not affected.
    let mut other = Client::connect_from(addr, NEIGHBOUR, "other").await;
    other.hello("other").await;
    other.list_rooms().await;
}
