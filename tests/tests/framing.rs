//! The server's outbound frames, read byte by byte from a raw socket: the frames it writes
//! itself from the queued messages' bytes and the pongs tungstenite writes for it share the
//! socket without one landing inside another, and every ping gets its own pong.

use inarow_e2e::{RawFrame, RawSocket, TestServer, fast_config, raw::opcode};

/// Pings sent between requests, some in the same write as a request, are each answered
/// with a pong carrying their payload, and the requests' answers come whole and in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pongs_and_answers_share_the_socket_whole() {
    let server = TestServer::start(fast_config()).await;
    let mut raw = RawSocket::websocket(server.addr()).await;
    let mut bytes = Vec::new();
    bytes.extend(
        RawFrame::new(
            opcode::TEXT,
            br#"{"type":"hello","id":1,"protocol":2,"name":"framed"}"#.to_vec(),
        )
        .encode(),
    );
    bytes.extend(RawFrame::new(opcode::PING, b"a".to_vec()).encode());
    for id in 2..12 {
        let request = format!(r#"{{"type":"list_rooms","id":{id}}}"#);
        bytes.extend(RawFrame::new(opcode::TEXT, request.into_bytes()).encode());
        bytes.extend(RawFrame::new(opcode::PING, format!("p{id}").into_bytes()).encode());
    }
    // All of it in one write: the server reads several frames a wake-up.
    raw.write(&bytes).await;
    // And a last pair on their own.
    raw.send(&RawFrame::new(opcode::PING, b"last".to_vec()))
        .await;

    let mut pongs = Vec::new();
    let mut ids = Vec::new();
    while pongs.len() < 12 || ids.len() < 11 {
        let Some((code, payload)) = raw.read_frame().await else {
            panic!("the server ended the stream; pongs {pongs:?}, answers {ids:?}");
        };
        match code {
            opcode::PONG => pongs.push(String::from_utf8(payload).expect("our payload")),
            opcode::TEXT => {
                let value: serde_json::Value =
                    serde_json::from_slice(&payload).expect("a whole JSON message");
                ids.push(value["id"].as_u64().expect("an answer with its id"));
            }
            other => panic!("unexpected opcode {other:#x}"),
        }
    }
    let mut expected = vec!["a".to_owned()];
    expected.extend((2..12).map(|id| format!("p{id}")));
    expected.push("last".to_owned());
    assert_eq!(pongs, expected);
    assert_eq!(ids, (1..12).collect::<Vec<u64>>());
}

/// A 64-bit frame length with its most significant bit set is no length at all (RFC 6455
/// §5.2): the connection is failed with 1002, not told its message is too large (1009).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_length_with_its_top_bit_set_is_a_protocol_error() {
    let server = TestServer::start(fast_config()).await;
    let mut raw = RawSocket::websocket(server.addr()).await;
    // FIN + text, masked, 64-bit length 0x8000_0000_0000_001d, then a mask key.
    raw.write(&[
        0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x1D, 0x37, 0xfa, 0x21, 0x3d,
    ])
    .await;
    let (end, texts) = raw.expect_end().await;
    assert_eq!(end, inarow_e2e::raw::RawEnd::Close(Some(1002)), "{texts:?}");
    assert!(
        texts.is_empty(),
        "no bye for a protocol violation: {texts:?}"
    );
}
