//! The server of the crash test (`tests/restart.rs`), run as a child process so that the test
//! can kill it without warning: `inarow_server::run` on a loopback port, keeping its games
//! in the SQLite file given by `--data FILE`, until its stdin closes. Its first line on
//! stdout is `listening ADDR`.
//!
//! It lives here rather than in the load benchmark (whose `serve` mode did this job) so
//! that the end-to-end tests build without the benchmark crate.

use std::io::Write;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = args
        .iter()
        .position(|a| a == "--data")
        .and_then(|i| args.get(i + 1))
        .ok_or("usage: child_server --data FILE")?;
    let config = inarow_server::Config {
        // The test's clients play as fast as they can, all from 127.0.0.1.
        rate_per_second: 100_000,
        rate_burst: 100_000,
        max_connections_per_ip: 100_000,
        new_connections_per_ip_per_minute: 1_000_000,
        max_sessions_per_ip: 100_000,
        max_rooms_per_session: 100_000,
        ai_move_time: Duration::from_millis(1_000),
        data: inarow_server::DataLocation::parse(data),
        ..inarow_server::Config::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening {}", listener.local_addr()?);
        std::io::stdout().flush()?;
        inarow_e2e::serve_until_stdin_closes(listener, config).await?;
        Ok(())
    })
}
