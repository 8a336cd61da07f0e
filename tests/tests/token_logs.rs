//! Tokens never reach the server's logs: every event of a hello, a resume and a refused
//! resume, at the most verbose level, is captured and searched for the tokens handed out
//! and presented. (A file of its own: it installs the process's global log subscriber.)

use inarow_e2e::logs;
use inarow_e2e::{TestServer, fast_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_never_logged() {
    // The server's own filter at its most verbose.
    let captured = logs::capture("trace");
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let first = ann.token();
    ann.open_room().await;
    let mut back = server.connect("Ann back").await;
    let second = back.hello_with("Ann", Some(first.clone())).await.token;
    ann.expect_closed().await;
    let mut stranger = server.connect("Stranger").await;
    let guessed = format!("{}{}", &second[..16], "0".repeat(32));
    let third = stranger
        .hello_with("Stranger", Some(guessed.clone()))
        .await
        .token;
    back.list_rooms().await;
    server.shutdown().await;

    let logs = captured.text();
    assert!(logs.contains("session opened"), "the capture works: {logs}");
    for token in [&first, &second, &third, &guessed] {
        assert!(
            !logs.contains(token.as_str()),
            "token {token} logged:\n{logs}"
        );
        // Not even the selector half.
        assert!(!logs.contains(&token[..16]), "selector of {token} logged");
    }
}
