//! Smoke test over a real socket: hello, a room against the AI, a few moves, snapshots.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ClientFrame, ClientMessage, GameStatus, Level, Mark, Occupant, PROTOCOL_VERSION, RequestId,
    RoomSnapshot, RulesSpec, SeatPlan, SeatRequest, ServerFrame, ServerMessage, decode_server,
    encode,
};
use inarow_server::Config;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

const WAIT: Duration = Duration::from_secs(10);

async fn send(ws: &mut Ws, id: u64, message: ClientMessage) {
    let frame = ClientFrame {
        message,
        id: Some(RequestId::Number(id)),
    };
    ws.send(Message::text(encode(&frame))).await.expect("send");
}

async fn recv(ws: &mut Ws) -> ServerFrame {
    loop {
        let next = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("a frame within the timeout")
            .expect("the stream is open")
            .expect("a readable frame");
        if let Message::Text(text) = next {
            return decode_server(text.as_str()).expect("a valid server frame");
        }
    }
}

/// Reads until a snapshot satisfying `done` arrives.
async fn snapshot_until(ws: &mut Ws, done: impl Fn(&RoomSnapshot) -> bool) -> RoomSnapshot {
    loop {
        if let ServerMessage::Room { room } = recv(ws).await.message
            && done(&room)
        {
            return *room;
        }
    }
}

#[tokio::test]
async fn hello_create_a_room_against_the_ai_and_play() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let shutdown = CancellationToken::new();
    let config = Config {
        ai_pace: Duration::ZERO,
        ai_move_time: Duration::from_millis(200),
        ..Config::default()
    };
    let server = tokio::spawn(inarow_server::run(listener, config, shutdown.clone()));

    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
        .await
        .expect("connect");
    send(
        &mut ws,
        1,
        ClientMessage::Hello {
            // Protocol 1 on purpose: this test reads a whole snapshot after every move,
            // which version 1 clients still get (version 2 is covered end to end).
            protocol: 1,
            name: " Ann ".into(),
            token: None,
        },
    )
    .await;
    let welcome = recv(&mut ws).await;
    assert_eq!(welcome.id, Some(RequestId::Number(1)));
    let ServerMessage::Welcome {
        session, resumed, ..
    } = welcome.message
    else {
        panic!("expected welcome, got {welcome:?}");
    };
    assert!(!resumed);

    send(
        &mut ws,
        2,
        ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("tictactoe".into()),
            seats: SeatPlan {
                x: SeatRequest::Me,
                o: SeatRequest::Ai {
                    level: Level::Perfect,
                },
            },
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        },
    )
    .await;
    let created = recv(&mut ws).await;
    assert_eq!(created.id, Some(RequestId::Number(2)));
    let ServerMessage::Room { room } = created.message else {
        panic!("expected a snapshot, got {created:?}");
    };
    assert_eq!(room.name, "Ann's room");
    assert_eq!(room.seq, 1);
    assert_eq!(room.board, vec!["...", "...", "..."]);
    assert_eq!(room.status, GameStatus::Playing { turn: Mark::X });
    assert!(
        matches!(&room.seats[0].occupant, Occupant::Human { session: s, name, connected: true } if *s == session && name == "Ann")
    );
    let id = room.id.clone();

    // Play the centre, then whatever is legal, until the game ends; the AI answers each move.
    let mut next_id = 3;
    let mut current = *room;
    let mut my_moves = 0;
    while !current.status.is_over() {
        let mv = if current.legal_moves.contains(&"b2".to_owned()) {
            "b2".to_owned()
        } else {
            current.legal_moves[0].clone()
        };
        send(
            &mut ws,
            next_id,
            ClientMessage::Play {
                room: id.clone(),
                ply: current.ply,
                mv: mv.clone(),
            },
        )
        .await;
        next_id += 1;
        my_moves += 1;
        let ply = current.ply;
        current = snapshot_until(&mut ws, |s| {
            s.status.is_over()
                || (s.ply == ply + 2 && s.status == GameStatus::Playing { turn: Mark::X })
        })
        .await;
        assert!(current.moves.contains(&mv));
        assert!(my_moves <= 5, "tic-tac-toe lasts at most five moves of X");
    }
    // Perfect play from O cannot lose tic-tac-toe.
    assert!(
        !matches!(
            current.status,
            GameStatus::Won {
                winner: Mark::X,
                ..
            }
        ),
        "the perfect AI lost: {:?}",
        current.moves
    );

    // The snapshot after the game's end names the id the store keeps it under.
    let kept = snapshot_until(&mut ws, |s| s.last_game.is_some()).await;
    assert_eq!(kept.moves, current.moves);

    send(&mut ws, 99, ClientMessage::ListRooms {}).await;
    let rooms = recv(&mut ws).await;
    assert_eq!(rooms.id, Some(RequestId::Number(99)));
    let ServerMessage::Rooms { rooms } = rooms.message else {
        panic!("expected rooms, got {rooms:?}");
    };
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].id, id);

    shutdown.cancel();
    let bye = recv(&mut ws).await;
    assert!(
        matches!(
            bye.message,
            ServerMessage::Bye {
                reason: inarow_protocol::ByeReason::Shutdown,
                ..
            }
        ),
        "{bye:?}"
    );
    tokio::time::timeout(WAIT, server)
        .await
        .expect("the server stops within the timeout")
        .expect("the server task does not panic")
        .expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_a_thinking_ai_and_says_bye_to_a_spectator() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let shutdown = CancellationToken::new();
    let config = Config {
        ai_pace: Duration::ZERO,
        // Far longer than the test waits: only the cancel flag can end the search in time.
        ai_move_time: Duration::from_secs(600),
        ..Config::default()
    };
    let server = tokio::spawn(inarow_server::run(listener, config, shutdown.clone()));
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
        .await
        .expect("connect");
    send(
        &mut ws,
        1,
        ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "Watcher".into(),
            token: None,
        },
    )
    .await;
    recv(&mut ws).await;
    let ai = SeatRequest::Ai {
        level: Level::Perfect,
    };
    send(
        &mut ws,
        2,
        ClientMessage::CreateRoom {
            name: Some("AIs".into()),
            rules: RulesSpec::Preset("gomoku".into()),
            seats: SeatPlan { x: ai, o: ai },
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        },
    )
    .await;
    let thinking = snapshot_until(&mut ws, |s| {
        matches!(s.seats[0].occupant, Occupant::Ai { thinking: true, .. })
    })
    .await;
    assert_eq!(thinking.spectators, vec!["Watcher"]);

    let started = std::time::Instant::now();
    shutdown.cancel();
    let bye = loop {
        let frame = recv(&mut ws).await;
        if let ServerMessage::Bye { reason, .. } = frame.message {
            break reason;
        }
    };
    assert_eq!(bye, inarow_protocol::ByeReason::Shutdown);
    tokio::time::timeout(WAIT, server)
        .await
        .expect("the server stops within the timeout")
        .expect("the server task does not panic")
        .expect("run returns Ok");
    eprintln!("shutdown with a thinking AI took {:?}", started.elapsed());
}
