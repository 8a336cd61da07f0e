//! The child processes this binary runs as: `serve` (an inarow server with limits raised
//! for load), `relay` (the floor's bare relay) and `writes` (one write on loopback, timed).

use std::io::Write;
use std::time::Duration;

use crate::AI_MOVE_MS;
use crate::relay;

/// The server child's runtime workers and AI search slots, as `inarow-server` reads
/// them: `INAROW_THREADS` (by default the cores the search slots leave) and
/// `INAROW_AI_THREADS`.
pub(crate) fn server_threads() -> (usize, usize) {
    let env = |name: &str| std::env::var(name).ok().and_then(|n| n.parse().ok());
    let ai_threads =
        env("INAROW_AI_THREADS").unwrap_or(inarow_server::Config::default().ai_threads);
    let threads = env("INAROW_THREADS")
        .unwrap_or_else(|| inarow_server::default_worker_threads(ai_threads))
        .max(1);
    (threads, ai_threads)
}

/// The child: an inarow server on a loopback port, with limits raised for load (the
/// clients play as fast as they can, far above a person's message rate), until stdin
/// closes. Its games and live rooms are kept in `data` (a SQLite file), else in memory.
pub(crate) fn serve(data: Option<&str>) -> anyhow::Result<()> {
    // The server binary's logging: `RUST_LOG`, else `info`, formatted as it formats it
    // (the lines go nowhere: stdout is the parent's pipe). Each poll of a connection's task
    // enters its span and each game's end is a line, so without it the figures would leave
    // out what a real server pays; `RUST_LOG=off` measures the server without it.
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| inarow_server::log_filter(&spec).ok())
        .map_or_else(|| inarow_server::log_filter("info"), Ok)?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::io::sink)
        .init();
    let (threads, ai_threads) = server_threads();
    child(threads, |listener| async move {
        let config = inarow_server::Config {
            max_connections: 20_000,
            max_rooms: 20_000,
            rate_per_second: 100_000,
            rate_burst: 100_000,
            // Every load client comes from 127.0.0.1: lift the per-address limits.
            max_connections_per_ip: 100_000,
            new_connections_per_ip_per_minute: 1_000_000,
            max_sessions_per_ip: 100_000,
            max_rooms_per_session: 100_000,
            ai_move_time: Duration::from_millis(AI_MOVE_MS),
            ai_threads,
            data: data.map_or(inarow_server::DataLocation::Memory, |path| {
                inarow_server::DataLocation::parse(path)
            }),
            ..inarow_server::Config::default()
        };
        inarow_e2e::serve_until_stdin_closes(listener, config).await?;
        Ok(())
    })
}

/// The relay child: the floor under a move's cost ([`relay`]), with the
/// server's runtime workers, until stdin closes.
pub(crate) fn relay() -> anyhow::Result<()> {
    child(server_threads().0, |listener| async move {
        tokio::select! {
            () = relay::serve(listener) => {}
            _ = tokio::task::spawn_blocking(|| std::io::stdin().lines().count()) => {}
        }
        Ok(())
    })
}

/// `load writes`: what one write of a move's frame costs on loopback TCP as one buffer
/// (`send`) and as a vectored write of its header
/// and payload (`writev`), each followed by the peer's read, alternated in blocks so that
/// the machine's other work falls on both alike. Prints nanoseconds a write and their
/// ratio.
pub(crate) fn writes() -> anyhow::Result<()> {
    use std::io::{IoSlice, Read};
    const ROUNDS: usize = 200;
    const BLOCK: usize = 500;
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let mut reader = std::net::TcpStream::connect(listener.local_addr()?)?;
    let (mut writer, _) = listener.accept()?;
    writer.set_nodelay(true)?;
    // A tic-tac-toe move's frame: a 2-byte header and a 144-byte text payload.
    let header = [0x81u8, 144];
    let payload = [b'x'; 144];
    let whole: Vec<u8> = header.iter().chain(&payload).copied().collect();
    let mut sink = [0u8; 4096];
    let mut elapsed = [Duration::ZERO; 2];
    for _ in 0..ROUNDS {
        for (vectored, total) in elapsed.iter_mut().enumerate() {
            let start = std::time::Instant::now();
            for _ in 0..BLOCK {
                let written = if vectored == 1 {
                    writer.write_vectored(&[IoSlice::new(&header), IoSlice::new(&payload)])?
                } else {
                    writer.write(&whole)?
                };
                anyhow::ensure!(written == whole.len(), "a short write on loopback");
                reader.read_exact(&mut sink[..written])?;
            }
            *total += start.elapsed();
        }
    }
    let per = |total: Duration| total.as_nanos() as f64 / (ROUNDS * BLOCK) as f64;
    let (plain, vectored) = (per(elapsed[0]), per(elapsed[1]));
    println!(
        "a 146-byte frame and its read on loopback: send {plain:.0} ns, writev of header and payload {vectored:.0} ns, ratio {:.3}",
        vectored / plain
    );
    Ok(())
}

/// Runs a child's `serve` on a runtime of `threads` workers, on a loopback listener whose
/// address it tells the parent in its first line.
pub(crate) fn child<F>(
    threads: usize,
    serve: impl FnOnce(tokio::net::TcpListener) -> F,
) -> anyhow::Result<()>
where
    F: std::future::Future<Output = anyhow::Result<()>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening {}", listener.local_addr()?);
        std::io::stdout().flush()?;
        serve(listener).await
    })
}
