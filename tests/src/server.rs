//! The server under test: `inarow_server::run` on a loopback port chosen by the OS, stopped
//! through its shutdown token, with a configuration fit for tests.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use inarow_protocol::{GameStatus, Mark, RoomId, SeatChoice};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use inarow_server::{Config, DataLocation, TlsIdentity};

use crate::client::Client;

/// How long [`TestServer::shutdown`] waits for the server task before failing the test. The
/// server promises about 5 s; tests that check that bound assert on the returned duration.
pub const SHUTDOWN_WAIT: Duration = Duration::from_secs(15);

/// A configuration for tests: AI moves without pacing and with a short time budget, and
/// the per-address and per-session limits lifted, since every test client comes from
/// 127.0.0.1 and some create many rooms (the tests of those limits set them). Games are
/// kept in memory; a test of the store sets [`Config::data`] to a file in a temporary
/// directory (see [`fast_config_with_data`]).
pub fn fast_config() -> Config {
    Config {
        ai_pace: Duration::ZERO,
        ai_move_time: Duration::from_millis(200),
        max_connections_per_ip: 100_000,
        new_connections_per_ip_per_minute: 1_000_000,
        max_sessions_per_ip: 100_000,
        max_rooms_per_session: 10_000,
        ..Config::default()
    }
}

/// [`fast_config`] keeping its games in the SQLite file `path`.
pub fn fast_config_with_data(path: impl Into<std::path::PathBuf>) -> Config {
    Config {
        data: DataLocation::File(path.into()),
        ..fast_config()
    }
}

/// Runs the server of a child process on `listener` with `config` until the parent closes
/// the child's stdin (when it is done, or dies): the crash test's server and the load
/// benchmark's.
///
/// # Errors
/// What [`inarow_server::run`] returns.
pub async fn serve_until_stdin_closes(
    listener: TcpListener,
    config: Config,
) -> Result<(), inarow_server::ServerError> {
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::task::spawn_blocking(move || {
        let _ = std::io::stdin().lines().count();
        stop.cancel();
    });
    inarow_server::run(listener, config, shutdown).await
}

/// A fresh self-signed certificate for `localhost` and `127.0.0.1`: the identity for
/// [`Config::tls`], and the certificate's PEM, which a client trusts as its CA.
pub fn self_signed() -> (TlsIdentity, String) {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .expect("rcgen makes a certificate");
    let cert = certified.cert.pem();
    let key = certified.signing_key.serialize_pem();
    let identity =
        TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes()).expect("the server takes it");
    (identity, cert)
}

/// A server running `inarow_server::run` on a loopback port chosen by the OS.
pub struct TestServer {
    /// Where clients connect.
    addr: SocketAddr,
    /// Cancelled by [`TestServer::shutdown`] or on drop, so no server outlives its test.
    token: CancellationToken,
    /// The task running `run`; taken by [`TestServer::shutdown`] to wait for it.
    task: Option<JoinHandle<Result<(), inarow_server::ServerError>>>,
}

impl TestServer {
    /// Binds 127.0.0.1:0 and spawns the server with `config`.
    pub async fn start(config: Config) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding a loopback port must work");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let token = CancellationToken::new();
        let task = tokio::spawn(inarow_server::run(listener, config, token.clone()));
        TestServer {
            addr,
            token,
            task: Some(task),
        }
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Opens a WebSocket connection (no `hello` yet).
    pub async fn connect(&self, label: &str) -> Client {
        Client::connect(self.addr, label).await
    }

    /// Opens a connection and says `hello` with `name`.
    pub async fn lobby(&self, name: &str) -> Client {
        let mut client = self.connect(name).await;
        client.hello(name).await;
        client
    }

    /// Ann (X) and Bob (O) in a fresh public tic-tac-toe room whose game has started:
    /// X to move at ply 0.
    pub async fn seated_pair(&self) -> (Client, Client, RoomId) {
        let mut ann = self.lobby("Ann").await;
        let mut bob = self.lobby("Bob").await;
        let room = ann.open_room().await;
        bob.join(&room, Some(SeatChoice::O)).await;
        ann.reach_room(&room, |s| {
            s.ply == 0 && s.status == GameStatus::Playing { turn: Mark::X }
        })
        .await;
        (ann, bob, room)
    }

    /// Cancels the shutdown token and waits for `run` to return; returns how long that took.
    /// Fails the test if `run` panicked, returned an error or did not end within
    /// [`SHUTDOWN_WAIT`].
    pub async fn shutdown(mut self) -> Duration {
        let task = self.task.take().expect("shutdown is only called once");
        let started = Instant::now();
        self.token.cancel();
        match tokio::time::timeout(SHUTDOWN_WAIT, task).await {
            Err(_) => panic!("server task still running {SHUTDOWN_WAIT:?} after cancellation"),
            Ok(Err(join)) => panic!("server task panicked: {join}"),
            Ok(Ok(Err(error))) => panic!("server run() returned an error: {error}"),
            Ok(Ok(Ok(()))) => started.elapsed(),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // A test that fails midway still stops its server instead of leaving it to the runtime.
        self.token.cancel();
    }
}
