//! The real `inarow` binary (plain mode) with the web client and over TLS: a browser and
//! the terminal client play each other through the invite link the terminal prints, and
//! two terminal clients play over `wss://` against a server with a self-signed certificate
//! that they trust with `--ca-file` (and that a client without it refuses). The server runs
//! in-process on 127.0.0.1:0; every read waits under a timeout.

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

mod common;

use common::Terminal;
use inarow_e2e::browser::Browser;
use inarow_server::{Config, TlsIdentity};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A server on the test's runtime, stopped on drop.
struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
}

impl Server {
    async fn start(tls: Option<TlsIdentity>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let config = Config {
            ai_pace: Duration::ZERO,
            ai_move_time: Duration::from_millis(200),
            tls,
            ..Config::default()
        };
        let shutdown = CancellationToken::new();
        tokio::spawn(inarow_server::run(listener, config, shutdown.clone()));
        Server { addr, shutdown }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

const VIEW: &str = "document.getElementById('room-view').dataset";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_and_the_terminal_client_play_each_other() {
    let server = Server::start(None).await;
    let url = format!("ws://{}", server.addr);
    let mut ann = Terminal::spawn("ann", &["--server", &url]);
    ann.wait_for("welcome", |l| l.starts_with("connected session="));
    ann.send("create tictactoe");
    let created = ann.wait_for("created", |l| l.starts_with("created "));
    let link = created
        .split_whitespace()
        .find_map(|w| w.strip_prefix("link="))
        .unwrap_or_else(|| panic!("the terminal prints the invite link: {created}"))
        .to_owned();
    assert!(
        link.starts_with(&format!("http://{}/#/r/", server.addr)),
        "{link}"
    );
    let Some(browser) = Browser::start("browser against the terminal client", 1000, 800).await
    else {
        return;
    };
    browser.goto(&link).await;
    browser.type_into("#name-input", "web").await;
    browser.click("#name-form button").await;
    browser
        .wait_for(
            "the browser seated as O",
            &format!("{VIEW}.mine === 'O' && {VIEW}.state === 'playing'"),
        )
        .await;
    // X: a1 a2 a3 wins; O (the browser) answers b1, b2. A `play` waits for its turn.
    // A `play` before the game starts is refused locally: wait until Ann sees it start.
    ann.wait_for("the game to start", |l| l == "status: turn X (your move)");
    ann.send("play a1\nplay a2\nplay a3");
    for (ply, cell) in [(1, "b1"), (3, "b2")] {
        browser
            .wait_for(
                "the browser's turn",
                &format!("{VIEW}.ply === '{ply}' && {VIEW}.turn === 'O'"),
            )
            .await;
        browser.click(&format!("[data-cell='{cell}']")).await;
    }
    ann.wait_for("X's win", |l| l.starts_with("status: won X line a1,a2,a3"));
    let status = browser
        .wait_for(
            "X's win in the browser",
            &format!(
                "{VIEW}.state === 'won' && {VIEW}.winner === 'X' && \
                 document.querySelectorAll('.cell.win').length === 3 && \
                 document.getElementById('room-status').textContent"
            ),
        )
        .await;
    assert_eq!(status, "ann (X) won.");
    // Chat both ways.
    browser.type_into("#chat-input", "good game\n").await;
    ann.wait_for("the browser's chat", |l| l.contains("good game"));
    ann.send("chat thanks");
    browser
        .wait_for(
            "the terminal's chat",
            "document.getElementById('chat-log').textContent.includes('thanks')",
        )
        .await;
    ann.send("quit");
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_client_plays_over_wss_trusting_a_self_signed_ca() {
    let (identity, ca_pem) = inarow_e2e::self_signed();
    let server = Server::start(Some(identity)).await;
    let ca_file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inarow-test-ca-{}.pem", server.addr.port()));
    std::fs::write(&ca_file, ca_pem).expect("write the CA file");
    let ca = ca_file.to_str().expect("a UTF-8 path");
    let url = format!("wss://localhost:{}", server.addr.port());

    // Without the CA the certificate is refused; there is no switch to skip the check.
    let mut stranger = Terminal::spawn("eve", &["--server", &url]);
    let refused = stranger.wait_for("a refused connection", |l| l.starts_with("disconnected:"));
    assert!(
        refused.contains("certificate") || refused.contains("UnknownIssuer"),
        "{refused}"
    );
    drop(stranger);

    let mut ann = Terminal::spawn("ann", &["--server", &url, "--ca-file", ca]);
    ann.wait_for("welcome over wss", |l| l.starts_with("connected session="));
    ann.send("create tictactoe");
    let created = ann.wait_for("created", |l| l.starts_with("created "));
    let code = created
        .split_whitespace()
        .nth(1)
        .expect("a room id")
        .to_owned();
    assert!(
        created.contains(&format!(
            "link=https://localhost:{}/#/r/",
            server.addr.port()
        )),
        "{created}"
    );
    let mut bob = Terminal::spawn("bob", &["--server", &url, "--ca-file", ca]);
    bob.wait_for("welcome over wss", |l| l.starts_with("connected session="));
    bob.send(&format!("join {code}"));
    bob.wait_for("seated", |l| {
        l.starts_with("joined ") && l.ends_with(" as O")
    });
    // A `play` before the game starts is refused locally: wait until Ann sees it start.
    ann.wait_for("the game to start", |l| l == "status: turn X (your move)");
    ann.send("play a1\nplay a2\nplay a3");
    bob.send("play b1\nplay b2");
    ann.wait_for("X's win", |l| l.starts_with("status: won X line a1,a2,a3"));
    bob.wait_for("X's win", |l| l.starts_with("status: won X line a1,a2,a3"));
    ann.send("quit");
    bob.send("quit");
    let _ = std::fs::remove_file(&ca_file);
}

/// The nginx example of docs/hosting.md, run for real: nginx (Debian's package) terminates
/// TLS with a self-signed certificate and proxies to a plain server; two terminal clients
/// play over `wss://` through it. Not run by `cargo test` (it needs nginx):
/// `cargo test -p inarow --test web_tls_e2e -- --ignored`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx (apt-get install nginx)"]
async fn the_hosting_doc_nginx_example_proxies_wss() {
    let hosting = include_str!("../../docs/hosting.md");
    let example = hosting
        .split("```nginx\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/hosting.md has an nginx example");
    let server = Server::start(None).await;
    let certified = rcgen_pair();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inarow-nginx-{}", server.addr.port()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let (cert, key, ca) = (
        dir.join("cert.pem"),
        dir.join("key.pem"),
        dir.join("ca.pem"),
    );
    std::fs::write(&cert, &certified.0).expect("write cert");
    std::fs::write(&key, &certified.1).expect("write key");
    std::fs::write(&ca, &certified.0).expect("write ca");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let site = example
        .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{port} ssl;"))
        .replace(
            "/etc/letsencrypt/live/games.example.org/fullchain.pem",
            &cert.display().to_string(),
        )
        .replace(
            "/etc/letsencrypt/live/games.example.org/privkey.pem",
            &key.display().to_string(),
        )
        .replace("127.0.0.1:7878", &server.addr.to_string());
    let d = dir.display();
    let conf = format!(
        "daemon off; pid {d}/nginx.pid; error_log {d}/error.log;\n\
         events {{}}\nhttp {{ access_log off; client_body_temp_path {d}; proxy_temp_path {d};\n\
         fastcgi_temp_path {d}; uwsgi_temp_path {d}; scgi_temp_path {d};\n{site}\n}}\n"
    );
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf).expect("write nginx.conf");
    let mut nginx = Command::new("nginx")
        .args(["-p", &d.to_string(), "-c", &conf_path.display().to_string()])
        .spawn()
        .expect("start nginx");
    let url = format!("wss://localhost:{port}");
    let ca = ca.display().to_string();
    let mut ann = Terminal::spawn("ann", &["--server", &url, "--ca-file", &ca]);
    ann.wait_for("welcome through nginx", |l| {
        l.starts_with("connected session=")
    });
    ann.send("create tictactoe");
    let created = ann.wait_for("created", |l| l.starts_with("created "));
    let code = created.split_whitespace().nth(1).expect("an id").to_owned();
    let mut bob = Terminal::spawn("bob", &["--server", &url, "--ca-file", &ca]);
    bob.send(&format!("join {code}"));
    bob.wait_for("seated", |l| {
        l.starts_with("joined ") && l.ends_with(" as O")
    });
    // A `play` before the game starts is refused locally: wait until Ann sees it start.
    ann.wait_for("the game to start", |l| l == "status: turn X (your move)");
    ann.send("play a1\nplay a2\nplay a3");
    bob.send("play b1\nplay b2");
    bob.wait_for("X's win", |l| l.starts_with("status: won X line a1,a2,a3"));
    // `-s stop` ends the workers too; killing the master would orphan them.
    let _ = Command::new("nginx")
        .args(["-p", &d.to_string(), "-c", &conf_path.display().to_string()])
        .args(["-s", "stop"])
        .status();
    let _ = nginx.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A self-signed certificate and key for localhost, as PEM.
fn rcgen_pair() -> (String, String) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
        .expect("rcgen makes a certificate");
    (certified.cert.pem(), certified.signing_key.serialize_pem())
}
