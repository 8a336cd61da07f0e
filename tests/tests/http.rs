//! Plain HTTP on the game port: the web client's files, `/healthz`, `/metrics`, answers to
//! unknown paths and methods, and the limits (request head size, time to send it,
//! connection cap) applied to HTTP as to WebSocket. Requests are written by hand on purpose:
//! the tests control every byte, including malformed and slow ones.

use std::time::Duration;

use inarow_e2e::{Config, RECV_TIMEOUT, TestServer, fast_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `request` on a fresh connection and reads until the server closes it (every
/// request says `Connection: close`); returns the status code and the whole response.
async fn exchange(server: &TestServer, request: &str) -> (u16, String) {
    let mut socket = TcpStream::connect(server.addr()).await.expect("connect");
    socket
        .write_all(request.as_bytes())
        .await
        .expect("send the request");
    read_response(&mut socket).await
}

async fn read_response(socket: &mut TcpStream) -> (u16, String) {
    let mut bytes = Vec::new();
    tokio::time::timeout(RECV_TIMEOUT, socket.read_to_end(&mut bytes))
        .await
        .expect("the server answers and closes in time")
        .expect("read the response");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {text:?}"));
    (status, text)
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
}

#[tokio::test]
async fn the_web_client_and_health_are_served_on_the_game_port() {
    let server = TestServer::start(fast_config()).await;
    let (status, page) = exchange(&server, &get("/")).await;
    assert_eq!(status, 200);
    assert!(page.contains("content-type: text/html"), "{page}");
    assert!(page.contains("<script type=\"module\" src=\"/app.js\">"));
    assert!(page.contains("content-security-policy: default-src 'self'"));
    for (path, kind) in [
        ("/app.js", "text/javascript"),
        ("/net.js", "text/javascript"),
        ("/game.js", "text/javascript"),
        ("/games.js", "text/javascript"),
        ("/style.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let (status, response) = exchange(&server, &get(path)).await;
        assert_eq!(status, 200, "{path}");
        assert!(
            response.contains(&format!("content-type: {kind}")),
            "{path}"
        );
    }
    let (status, health) = exchange(&server, &get("/healthz")).await;
    assert_eq!(status, 200);
    assert!(health.ends_with("\r\n\r\nok\n"), "{health:?}");
    // HEAD answers the headers only.
    let (status, head) = exchange(
        &server,
        "HEAD / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 200);
    assert!(head.ends_with("\r\n\r\n"), "{head:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn other_requests_get_an_http_answer_not_silence() {
    let server = TestServer::start(fast_config()).await;
    let (status, body) = exchange(&server, &get("/nope")).await;
    assert_eq!(status, 404);
    assert!(body.ends_with("not found\n"));
    let (status, body) = exchange(
        &server,
        "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
    )
    .await;
    assert_eq!(status, 405);
    assert!(body.contains("allow: GET, HEAD"), "{body}");
    let (status, body) = exchange(
        &server,
        "GET / HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n",
    )
    .await;
    assert_eq!(status, 426);
    assert!(body.contains("sec-websocket-version: 13"), "{body}");
    let (status, _) = exchange(
        &server,
        "GET / HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    )
    .await;
    assert_eq!(status, 400);
    let (status, _) = exchange(&server, "NONSENSE\r\n\r\n").await;
    assert_eq!(status, 400);
    server.shutdown().await;
}

#[tokio::test]
async fn metrics_count_what_happens() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    ann.play(&room, 0, "b2").await;
    // A stale ply is refused: an error by code.
    bob.expect_refused(
        inarow_protocol::ClientMessage::Play {
            room: room.clone(),
            ply: 0,
            mv: "a1".into(),
        },
        inarow_protocol::ErrorCode::StalePly,
    )
    .await;
    let (status, text) = exchange(&server, &get("/metrics")).await;
    assert_eq!(status, 200);
    assert!(text.contains("content-type: text/plain; version=0.0.4"));
    let value = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} missing from\n{text}"))
    };
    // Counters are process-wide (tests share the process), so they are at least ours.
    assert!(value("inarow_connections") >= 3.0);
    assert!(value("inarow_websockets") >= 2.0);
    assert!(value("inarow_sessions") >= 2.0);
    assert!(value("inarow_rooms") >= 1.0);
    assert!(value("inarow_games_started_total") >= 1.0);
    assert!(value("inarow_games_in_progress") >= 1.0);
    assert!(value("inarow_messages_in_total") >= 6.0);
    assert!(value("inarow_messages_out_total") >= 6.0);
    assert!(value("inarow_errors_total{code=\"stale_ply\"}") >= 1.0);
    assert!(value("inarow_ai_move_seconds_count") >= 0.0);
    assert!(value("inarow_ai_queue_length") >= 0.0);
    // The store's counters are this server's own: nothing kept yet, then the game that
    // bob resigns once `history` has waited for the writer.
    assert_eq!(value("inarow_store_writes_total"), 0.0);
    bob.call(inarow_protocol::ClientMessage::Resign { room: room.clone() })
        .await;
    let listed = ann
        .call(inarow_protocol::ClientMessage::History {
            name: None,
            limit: None,
            before: None,
        })
        .await;
    assert!(
        matches!(&listed, inarow_protocol::ServerMessage::History { games, .. } if games.len() == 1),
        "{listed:?}"
    );
    let (_, text) = exchange(&server, &get("/metrics")).await;
    let value = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} missing from\n{text}"))
    };
    assert!(value("inarow_store_writes_total") >= 1.0);
    assert_eq!(value("inarow_store_dropped_total"), 0.0);
    assert_eq!(value("inarow_store_queue_length"), 0.0);
    assert!(value("inarow_store_retries_total") >= 0.0);
    server.shutdown().await;
}

#[tokio::test]
async fn http_limits_apply_request_head_size_time_and_connections() {
    let config = Config {
        handshake_timeout: Duration::from_millis(500),
        max_connections: 2,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    // A request head beyond the limit (16 KiB by default) is refused with 431.
    let big = format!(
        "GET / HTTP/1.1\r\nHost: test\r\nX-Padding: {}\r\n\r\n",
        "a".repeat(40 * 1024)
    );
    let mut socket = TcpStream::connect(server.addr()).await.expect("connect");
    let _ = socket.write_all(big.as_bytes()).await;
    let (status, _) = read_response(&mut socket).await;
    assert_eq!(status, 431);
    // A head sent too slowly is cut off after the handshake timeout (408 or a close).
    let mut slow = TcpStream::connect(server.addr()).await.expect("connect");
    slow.write_all(b"GET / HTTP/1.1\r\nHost: te")
        .await
        .expect("half a request");
    let mut bytes = Vec::new();
    tokio::time::timeout(RECV_TIMEOUT, slow.read_to_end(&mut bytes))
        .await
        .expect("the server gives up on a slow head")
        .ok();
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 408"),
        "{text:?}"
    );
    // Two open connections fill the server: a third page request is answered 503.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut socket = TcpStream::connect(server.addr()).await.expect("connect");
        socket
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            .await
            .expect("send");
        // Kept alive: read the answer without waiting for a close.
        let mut buf = [0u8; 512];
        let n = tokio::time::timeout(RECV_TIMEOUT, socket.read(&mut buf))
            .await
            .expect("an answer")
            .expect("read");
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        held.push(socket);
    }
    let (status, body) = exchange(&server, &get("/")).await;
    assert_eq!(status, 503);
    assert!(body.contains("retry-after: 10"), "{body}");
    drop(held);
    server.shutdown().await;
}

/// The web client's files as embedded in the server, by the paths that serve them.
const WEB_FILES: [(&str, &[u8]); 7] = [
    ("/", include_bytes!("../../server/web/index.html")),
    ("/style.css", include_bytes!("../../server/web/style.css")),
    ("/app.js", include_bytes!("../../server/web/app.js")),
    ("/net.js", include_bytes!("../../server/web/net.js")),
    ("/game.js", include_bytes!("../../server/web/game.js")),
    ("/games.js", include_bytes!("../../server/web/games.js")),
    (
        "/favicon.svg",
        include_bytes!("../../server/web/favicon.svg"),
    ),
];

/// One whole HTTP answer, as bytes on the wire and taken apart.
struct Answer {
    status: u16,
    /// Header names lower-cased, as hyper writes them.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Every byte the server sent: the head and the body.
    wire: usize,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `method path` with these extra header lines, on a fresh connection closed after it.
async fn fetch(server: &TestServer, method: &str, path: &str, extra: &[(&str, &str)]) -> Answer {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (name, value) in extra {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut socket = TcpStream::connect(server.addr()).await.expect("connect");
    socket
        .write_all(request.as_bytes())
        .await
        .expect("send the request");
    let mut bytes = Vec::new();
    tokio::time::timeout(RECV_TIMEOUT, socket.read_to_end(&mut bytes))
        .await
        .expect("the server answers and closes in time")
        .expect("read the response");
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a whole head");
    let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {head:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: bytes[end + 4..].to_vec(),
        wire: bytes.len(),
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .expect("valid brotli");
    out
}

#[tokio::test]
async fn web_files_are_compressed_as_accepted_and_decode_to_the_embedded_files() {
    let server = TestServer::start(fast_config()).await;
    for (path, file) in WEB_FILES {
        let plain = fetch(&server, "GET", path, &[]).await;
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        if path.ends_with(".js") || path.ends_with(".css") {
            // Served without comments and indentation: every line served is one of the
            // file's, in order, and far fewer bytes.
            let served = String::from_utf8(plain.body.clone()).expect("UTF-8");
            let source = String::from_utf8(file.to_vec()).expect("UTF-8");
            let mut lines = source.lines().map(str::trim);
            for line in served.lines() {
                assert!(
                    lines.any(|l| l == line),
                    "{path}: {line:?} is not the file's"
                );
            }
            assert!(
                plain.body.len() * 10 < file.len() * 9,
                "{path}: comments left in"
            );
        } else {
            assert_eq!(plain.body, file, "{path} as is");
        }
        let gzip = fetch(
            &server,
            "GET",
            path,
            &[("Accept-Encoding", "gzip, deflate")],
        )
        .await;
        assert_eq!(gzip.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(gunzip(&gzip.body), plain.body, "{path} in gzip");
        let br = fetch(
            &server,
            "GET",
            path,
            &[("Accept-Encoding", "gzip, deflate, br, zstd")],
        )
        .await;
        assert_eq!(br.header("content-encoding"), Some("br"), "{path}");
        assert_eq!(unbrotli(&br.body), plain.body, "{path} in brotli");
        assert!(br.body.len() < gzip.body.len(), "{path}: brotli is smaller");
        for answer in [&plain, &gzip, &br] {
            assert_eq!(answer.header("vary"), Some("accept-encoding"), "{path}");
            assert_eq!(answer.header("cache-control"), Some("no-cache"), "{path}");
            let etag = answer.header("etag").expect("an ETag");
            assert!(
                etag.starts_with('"') && etag.ends_with('"'),
                "strong: {etag}"
            );
            assert_eq!(
                answer.header("content-length"),
                Some(answer.body.len().to_string().as_str())
            );
        }
        // The policies are the documents' (the page, the SVG); scripts and styles go
        // without them.
        let document = path == "/" || path.ends_with(".svg");
        assert_eq!(
            br.header("content-security-policy").is_some(),
            document,
            "{path}"
        );
        assert_eq!(br.header("x-content-type-options"), Some("nosniff"));
        let tags = [&plain, &gzip, &br].map(|a| a.header("etag").map(str::to_owned));
        assert!(
            tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2],
            "{path}: one ETag per coding: {tags:?}"
        );
    }
    // q=0 refuses a coding; the other one (or the file as is) is served.
    let answer = fetch(
        &server,
        "GET",
        "/app.js",
        &[("Accept-Encoding", "br;q=0, gzip")],
    )
    .await;
    assert_eq!(answer.header("content-encoding"), Some("gzip"));
    let answer = fetch(
        &server,
        "GET",
        "/app.js",
        &[("Accept-Encoding", "gzip;q=0, br;q=0")],
    )
    .await;
    assert_eq!(answer.header("content-encoding"), None);
    assert_eq!(
        answer.body,
        fetch(&server, "GET", "/app.js", &[]).await.body
    );
    // HEAD: the same head as GET, no body.
    let get = fetch(&server, "GET", "/style.css", &[("Accept-Encoding", "br")]).await;
    let head = fetch(&server, "HEAD", "/style.css", &[("Accept-Encoding", "br")]).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for name in [
        "content-encoding",
        "etag",
        "content-length",
        "vary",
        "content-type",
    ] {
        assert_eq!(head.header(name), get.header(name), "{name}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_matching_etag_is_answered_304_without_a_body() {
    let server = TestServer::start(fast_config()).await;
    let gzip = [("Accept-Encoding", "gzip")];
    let first = fetch(&server, "GET", "/app.js", &gzip).await;
    let etag = first.header("etag").expect("an ETag").to_owned();
    let again = fetch(
        &server,
        "GET",
        "/app.js",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    assert_eq!(again.header("cache-control"), Some("no-cache"));
    assert_eq!(again.header("vary"), Some("accept-encoding"));
    // Among others, and weak as a browser may send it.
    let listed = format!("\"0000\", W/{etag}");
    let again = fetch(
        &server,
        "GET",
        "/app.js",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &listed)],
    )
    .await;
    assert_eq!(again.status, 304);
    // The gzip tag does not stand for the brotli bytes, nor for another file.
    let other = fetch(
        &server,
        "GET",
        "/app.js",
        &[("Accept-Encoding", "br"), ("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(other.status, 200);
    assert_eq!(other.header("content-encoding"), Some("br"));
    let other = fetch(
        &server,
        "GET",
        "/net.js",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(other.status, 200);
    server.shutdown().await;
}

/// The bytes a browser receives for the web client: a first load of `/` and everything it
/// loads, then a reload that revalidates each file (304s). Printed for docs/benchmarks.md:
///
/// ```text
/// cargo test -p inarow-e2e --test http -- web_client_bytes --nocapture
/// ```
#[tokio::test]
async fn web_client_bytes_of_a_first_load_and_a_reload() {
    let server = TestServer::start(fast_config()).await;
    // What Chromium and Firefox offer over HTTPS, over plain HTTP, and nothing.
    for accept in ["gzip, deflate, br, zstd", "gzip, deflate", ""] {
        let mut first = 0;
        let mut reload = 0;
        let mut bodies = 0;
        // The page names its icon inline, and the kept games' module loads when its page
        // is first shown: a first visit loads every other file.
        let loaded = WEB_FILES
            .iter()
            .filter(|(path, _)| !["/favicon.svg", "/games.js"].contains(path));
        for (path, _) in loaded {
            let headers: &[(&str, &str)] = if accept.is_empty() {
                &[]
            } else {
                &[("Accept-Encoding", accept)]
            };
            let answer = fetch(&server, "GET", path, headers).await;
            first += answer.wire;
            bodies += answer.body.len();
            let etag = answer.header("etag").expect("an ETag").to_owned();
            let mut revalidate = headers.to_vec();
            revalidate.push(("If-None-Match", &etag));
            let answer = fetch(&server, "GET", path, &revalidate).await;
            assert_eq!(answer.status, 304, "{path}");
            reload += answer.wire;
        }
        println!(
            "Accept-Encoding {accept:?}: first load {first} bytes ({bodies} of bodies), \
             reload {reload} bytes, {} files",
            WEB_FILES.len() - 2
        );
        assert!(reload <= 2048, "a reload is {reload} bytes");
        if accept.contains("br") {
            assert!(first <= 20 * 1024, "a first load is {first} bytes");
        }
    }
    server.shutdown().await;
}
