//! At `warn`, the level a host picks for a quiet log, the server writes no line for a
//! client's ordinary close: in particular none of the WebSocket library's own debug lines,
//! which quote the close frame's reason as the client wrote it. (A file of its own: it
//! installs the process's global log subscriber.)

use inarow_e2e::raw::{RawEnd, opcode};
use inarow_e2e::{RawFrame, RawSocket, TestServer, fast_config, logs};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_close_writes_nothing_at_warn() {
    let captured = logs::capture("warn");
    let server = TestServer::start(fast_config()).await;
    let mut raw = RawSocket::websocket(server.addr()).await;
    raw.send_text(r#"{"type":"hello","id":1,"protocol":2,"name":"quiet"}"#)
        .await;
    let Some((opcode::TEXT, _welcome)) = raw.read_frame().await else {
        panic!("no welcome");
    };
    let mut close = 1000u16.to_be_bytes().to_vec();
    close.extend_from_slice(b"reason-from-the-client");
    raw.send(&RawFrame::new(opcode::CLOSE, close)).await;
    let (end, _) = raw.expect_end().await;
    assert_eq!(end, RawEnd::Close(Some(1000)));
    server.shutdown().await;
    let logs = captured.text();
    assert!(
        !logs.contains("reason-from-the-client") && !logs.contains("Received close frame"),
        "lines at warn:\n{logs}"
    );
}
