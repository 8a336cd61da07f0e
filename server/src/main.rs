//! `inarow-server`: runs the inarow game server. Flags (or `INAROW_*` environment
//! variables) set the limits and TLS; Ctrl-C or SIGTERM shuts it down within a few seconds.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use inarow_server::{Config, DataLocation, EngineLimits, EngineSpec, Store, TlsIdentity};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

/// jemalloc rather than the system allocator: after a burst of connections closes it
/// gives the memory back to the system, where glibc's per-thread arenas kept it
/// (docs/benchmarks.md, server memory).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Host k-in-a-row games (tic-tac-toe, m×n×k, gomoku, Connect Four) for friends: the web
/// client at http://HOST:PORT/ and WebSocket on the same port. Every duration is in
/// milliseconds.
#[derive(Debug, Parser)]
#[command(name = "inarow-server", version)]
struct Args {
    /// Address to listen on; the default accepts players from the local network.
    #[arg(long, env = "INAROW_BIND", default_value = "0.0.0.0:7878")]
    bind: String,
    /// Log filter (such as "info" or "inarow_server=debug"); RUST_LOG overrides it.
    #[arg(long, env = "INAROW_LOG", default_value = "info")]
    log: String,
    /// Connections served at once; more are told server_full.
    #[arg(long, env = "INAROW_MAX_CONNECTIONS", default_value_t = 10_000)]
    max_connections: usize,
    /// Connections open at once from one address (IPv4, or IPv6 /64); more are told
    /// too_many_connections.
    #[arg(long, env = "INAROW_MAX_CONNECTIONS_PER_IP", default_value_t = 32)]
    max_connections_per_ip: usize,
    /// New connections one address may open per minute; more are told too_many_connections.
    #[arg(
        long,
        env = "INAROW_NEW_CONNECTIONS_PER_IP_PER_MINUTE",
        default_value_t = 120
    )]
    new_connections_per_ip_per_minute: u32,
    /// Sessions (live or within their grace) one address may hold; a hello that would open
    /// one more is told too_many_sessions.
    #[arg(long, env = "INAROW_MAX_SESSIONS_PER_IP", default_value_t = 64)]
    max_sessions_per_ip: usize,
    /// Rooms open at once; more are refused with too_many_rooms.
    #[arg(long, env = "INAROW_MAX_ROOMS", default_value_t = 5_000)]
    max_rooms: usize,
    /// Open rooms one session may have created; more are refused with too_many_rooms.
    #[arg(long, env = "INAROW_MAX_ROOMS_PER_SESSION", default_value_t = 8)]
    max_rooms_per_session: usize,
    /// Largest WebSocket frame or message, in bytes.
    #[arg(long, env = "INAROW_MAX_MESSAGE_SIZE", default_value_t = 16 * 1024)]
    max_message_size: usize,
    /// Average messages per second allowed per connection.
    #[arg(long, env = "INAROW_RATE_PER_SECOND", default_value_t = 20)]
    rate_per_second: u32,
    /// Messages allowed in a burst above the average.
    #[arg(long, env = "INAROW_RATE_BURST", default_value_t = 40)]
    rate_burst: u32,
    /// rate_limited answers in one flood before the connection is closed.
    #[arg(long, env = "INAROW_RATE_STRIKES", default_value_t = 40)]
    rate_strikes: u32,
    /// Time allowed for the hello after connecting, in ms.
    #[arg(long, env = "INAROW_HANDSHAKE_TIMEOUT_MS", default_value_t = 10_000)]
    handshake_timeout_ms: u64,
    /// Interval between pings, in ms.
    #[arg(long, env = "INAROW_PING_INTERVAL_MS", default_value_t = 15_000)]
    ping_interval_ms: u64,
    /// Silence after which a connection is closed, in ms.
    #[arg(long, env = "INAROW_IDLE_TIMEOUT_MS", default_value_t = 45_000)]
    idle_timeout_ms: u64,
    /// Longest display name, in characters.
    #[arg(long, env = "INAROW_MAX_NAME_CHARS", default_value_t = inarow_protocol::MAX_NAME_CHARS)]
    max_name_chars: usize,
    /// Longest chat line, in characters.
    #[arg(long, env = "INAROW_MAX_CHAT_CHARS", default_value_t = inarow_protocol::MAX_CHAT_CHARS)]
    max_chat_chars: usize,
    /// Time budget of one AI move, in ms: the most a move takes; shared out when more AI
    /// seats wait than there are AI threads.
    #[arg(long, env = "INAROW_AI_MOVE_MS", default_value_t = 1_000)]
    ai_move_ms: u64,
    /// Minimum time before each move when both seats are AI, in ms.
    #[arg(long, env = "INAROW_AI_PACE_MS", default_value_t = 700)]
    ai_pace_ms: u64,
    /// AI searches run at once [default: one fewer than the cores, at least 1].
    #[arg(long, env = "INAROW_AI_THREADS")]
    ai_threads: Option<usize>,
    /// Worker threads for connections and rooms [default: the cores the AI threads
    /// leave, at least 1].
    #[arg(long, env = "INAROW_THREADS")]
    threads: Option<usize>,
    /// How long a dropped player's seats are held, in ms.
    #[arg(long, env = "INAROW_RECONNECT_GRACE_MS", default_value_t = 60_000)]
    reconnect_grace_ms: u64,
    /// A room that nobody is in (no one connected, no seat held) closes after this long, in ms.
    #[arg(long, env = "INAROW_ROOM_IDLE_TIMEOUT_MS", default_value_t = 30_000)]
    room_idle_timeout_ms: u64,
    /// Frames queued per connection before it is dropped as too slow.
    #[arg(long, env = "INAROW_OUTBOUND_QUEUE", default_value_t = 256)]
    outbound_queue: usize,
    /// Largest HTTP request head (request line and headers), in bytes (at least 8192).
    #[arg(long, env = "INAROW_MAX_REQUEST_HEAD", default_value_t = 16 * 1024)]
    max_request_head: usize,
    /// Serve https:// and wss:// with this PEM certificate chain (leaf first); needs
    /// --tls-key.
    #[arg(long, env = "INAROW_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, env = "INAROW_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The SQLite file where finished games are kept, created on first start (its
    /// directory too), or ":memory:" to keep nothing [default:
    /// $XDG_DATA_HOME/inarow/inarow.db, else ~/.local/share/inarow/inarow.db].
    #[arg(long, env = "INAROW_DATA")]
    data: Option<PathBuf>,
    /// An external Gomocup engine offered as an AI seat, NAME=PATH (repeatable; in the
    /// environment, comma-separated): probed at start-up, offered for the boards it plays.
    #[arg(long = "engine", env = "INAROW_ENGINES", value_delimiter = ',')]
    engines: Vec<EngineSpec>,
    /// External engines' processes alive at once, per engine.
    #[arg(long, env = "INAROW_ENGINE_PROCESSES", default_value_t = 4)]
    engine_processes: usize,
    /// Memory an external engine is told it may use (INFO max_memory), in MiB.
    #[arg(long, env = "INAROW_ENGINE_MEMORY_MIB", default_value_t = 256)]
    engine_memory_mib: u64,
    /// How much later than its move time an external engine's answer may come before the
    /// engine is killed and inarow's AI takes its seat, in ms.
    #[arg(long, env = "INAROW_ENGINE_MARGIN_MS", default_value_t = 500)]
    engine_margin_ms: u64,
    /// Time an external engine may take to start and answer START, in ms.
    #[arg(long, env = "INAROW_ENGINE_START_MS", default_value_t = 10_000)]
    engine_start_ms: u64,
}

impl Args {
    /// The configuration without TLS (see [`Args::tls`]).
    fn config(&self) -> Config {
        let ms = Duration::from_millis;
        Config {
            engines: self.engines.clone(),
            engine_limits: EngineLimits {
                processes: self.engine_processes,
                memory: self.engine_memory_mib.saturating_mul(1024 * 1024),
                margin: ms(self.engine_margin_ms),
                start_timeout: ms(self.engine_start_ms),
            },
            max_connections: self.max_connections,
            max_connections_per_ip: self.max_connections_per_ip,
            new_connections_per_ip_per_minute: self.new_connections_per_ip_per_minute,
            max_sessions_per_ip: self.max_sessions_per_ip,
            max_rooms: self.max_rooms,
            max_rooms_per_session: self.max_rooms_per_session,
            max_message_size: self.max_message_size,
            rate_per_second: self.rate_per_second,
            rate_burst: self.rate_burst,
            rate_strikes: self.rate_strikes,
            handshake_timeout: ms(self.handshake_timeout_ms),
            ping_interval: ms(self.ping_interval_ms),
            idle_timeout: ms(self.idle_timeout_ms),
            max_name_chars: self.max_name_chars,
            max_chat_chars: self.max_chat_chars,
            ai_move_time: ms(self.ai_move_ms),
            ai_pace: ms(self.ai_pace_ms),
            ai_threads: self
                .ai_threads
                .unwrap_or_else(|| Config::default().ai_threads),
            reconnect_grace: ms(self.reconnect_grace_ms),
            room_idle_timeout: ms(self.room_idle_timeout_ms),
            outbound_queue: self.outbound_queue,
            max_request_head: self.max_request_head,
            tls: None,
            data: DataLocation::Memory,
        }
    }

    /// Where the games are kept: --data, else the user's data directory. Creates the
    /// file's directory, so the first start works on a fresh machine.
    fn data(&self) -> anyhow::Result<DataLocation> {
        let path = match &self.data {
            Some(path) if path.as_os_str() == ":memory:" => return Ok(DataLocation::Memory),
            Some(path) => path.clone(),
            None => default_data_file(std::env::var_os("XDG_DATA_HOME"), std::env::var_os("HOME"))?,
        };
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
        }
        Ok(DataLocation::File(path))
    }

    /// The certificate to serve, if --tls-cert and --tls-key are given.
    fn tls(&self) -> anyhow::Result<Option<TlsIdentity>> {
        let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) else {
            return Ok(None);
        };
        let identity = TlsIdentity::from_pem_files(cert, key)
            .with_context(|| format!("cannot use {} with {}", cert.display(), key.display()))?;
        Ok(Some(identity))
    }
}

/// The default database file: `inarow/inarow.db` under `$XDG_DATA_HOME` (when set to an
/// absolute path, as the XDG spec asks), else under `$HOME/.local/share`.
fn default_data_file(
    xdg_data_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> anyhow::Result<PathBuf> {
    let base = match (xdg_data_home.map(PathBuf::from), home) {
        (Some(xdg), _) if xdg.is_absolute() => xdg,
        (_, Some(home)) if !home.is_empty() => PathBuf::from(home).join(".local/share"),
        _ => anyhow::bail!(
            "no data directory: set --data FILE (or INAROW_DATA), XDG_DATA_HOME or HOME"
        ),
    };
    Ok(base.join("inarow").join("inarow.db"))
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let filter = std::env::var(EnvFilter::DEFAULT_ENV)
        .ok()
        .and_then(|spec| inarow_server::log_filter(&spec).ok())
        .map_or_else(|| inarow_server::log_filter(&args.log), Ok)
        .with_context(|| format!("bad log filter {:?}", args.log))?;
    // `fmt()` writes to stdout: colour only when stdout is a terminal, so a log file
    // redirected from it holds plain text rather than escape sequences.
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal());
    // Under systemd the journal stamps every line itself.
    if std::env::var_os("JOURNAL_STREAM").is_some() {
        logs.without_time().init();
    } else {
        logs.init();
    }
    let ai_threads = args.config().ai_threads;
    let threads = args
        .threads
        .unwrap_or_else(|| inarow_server::default_worker_threads(ai_threads))
        .max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(serve(args));
    // An AI search that ignores its cancel flag must not hold the process open.
    runtime.shutdown_timeout(Duration::from_millis(500));
    result
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let config = Config {
        tls: args.tls()?,
        data: args.data()?,
        ..args.config()
    };
    // The store first: a server that cannot keep its games does not start.
    let location = config.data.clone();
    let store = tokio::task::spawn_blocking(move || Store::open(&location))
        .await
        .context("the store's opening task failed")??;
    let listener = TcpListener::bind(&args.bind)
        .await
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    let addr = listener.local_addr()?;
    let (web, ws) = if config.tls.is_some() {
        ("https", "wss")
    } else {
        ("http", "ws")
    };
    println!("inarow-server listening on {ws}://{addr} (web client: {web}://{addr}/)");
    let shutdown = CancellationToken::new();
    tokio::spawn(cancel_on_signal(shutdown.clone()));
    println!("finished games are kept in {}", store.location());
    inarow_server::run_with_store(listener, config, store, shutdown).await?;
    Ok(())
}

/// Cancels `shutdown` on Ctrl-C or SIGTERM.
async fn cancel_on_signal(shutdown: CancellationToken) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch SIGTERM; Ctrl-C still works");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("signal received: shutting down");
    shutdown.cancel();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_defaults_are_the_config_defaults() {
        let args = Args::try_parse_from(["inarow-server"]).expect("no flags parse");
        let (got, want) = (args.config(), Config::default());
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
    }

    #[test]
    fn durations_are_milliseconds() {
        let args = Args::try_parse_from([
            "inarow-server",
            "--ai-move-ms",
            "250",
            "--bind",
            "127.0.0.1:0",
        ])
        .expect("flags parse");
        assert_eq!(args.config().ai_move_time, Duration::from_millis(250));
        assert_eq!(args.bind, "127.0.0.1:0");
    }

    #[test]
    fn the_data_file_defaults_to_the_users_data_directory() {
        let file = |xdg: Option<&str>, home: Option<&str>| {
            default_data_file(xdg.map(Into::into), home.map(Into::into)).ok()
        };
        assert_eq!(
            file(Some("/x/data"), Some("/home/ann")),
            Some(PathBuf::from("/x/data/inarow/inarow.db"))
        );
        // A relative XDG_DATA_HOME is invalid by the spec and ignored.
        assert_eq!(
            file(Some("rel"), Some("/home/ann")),
            Some(PathBuf::from("/home/ann/.local/share/inarow/inarow.db"))
        );
        assert_eq!(file(None, None), None);
    }

    #[test]
    fn data_memory_keeps_nothing_on_disk() {
        let args =
            Args::try_parse_from(["inarow-server", "--data", ":memory:"]).expect("flags parse");
        assert_eq!(
            args.data().expect("memory needs no directory"),
            DataLocation::Memory
        );
    }
}
