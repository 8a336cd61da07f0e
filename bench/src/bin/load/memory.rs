//! Server memory: idle connections after `hello`, and what is given back after they close.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::players::Player;
use crate::server::Server;

/// RSS with no connection, with 10,000 idle ones (after `hello`), and after they close.
pub(crate) async fn memory(server: &Server) -> anyhow::Result<()> {
    const CONNECTIONS: usize = 10_000;
    let rss0 = server.status_kib("VmRSS")?;
    let fds0 = server.fds();
    let gate = Arc::new(tokio::sync::Semaphore::new(256));
    let mut tasks = Vec::new();
    for i in 0..CONNECTIONS {
        let gate = gate.clone();
        let addr = server.addr;
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await;
            Player::connect(addr, 2, 100_000 + i as u64).await
        }));
    }
    let mut open = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Ok(p)) => open.push(p.ws),
            Ok(Err(e)) => eprintln!("connect failed: {e:#}"),
            Err(e) => eprintln!("connect panicked: {e}"),
        }
    }
    let rss1 = server.status_kib("VmRSS")?;
    let n = open.len();
    for mut ws in open {
        let _ = ws.close(None).await;
    }
    wait_for_fds(server, fds0).await;
    let rss2 = server.status_kib("VmRSS")?;
    // Closed sessions are held for the reconnection grace (60 s by default), then dropped.
    let grace = inarow_server::Config::default().reconnect_grace;
    tokio::time::sleep(grace + Duration::from_secs(2)).await;
    let rss3 = server.status_kib("VmRSS")?;
    println!();
    println!("## server memory (RSS)");
    println!();
    println!("| state | RSS |");
    println!("|---|---|");
    println!(
        "| fresh server, no connection | {:.1} MiB |",
        rss0 as f64 / 1024.0
    );
    println!(
        "| {n} idle connections after hello | {:.1} MiB ({:.1} KiB per connection) |",
        rss1 as f64 / 1024.0,
        (rss1.saturating_sub(rss0)) as f64 / n.max(1) as f64
    );
    println!("| after they closed | {:.1} MiB |", rss2 as f64 / 1024.0);
    println!(
        "| {} s later, their sessions' reconnection grace over | {:.1} MiB |",
        grace.as_secs() + 2,
        rss3 as f64 / 1024.0
    );
    Ok(())
}

/// Waits (up to 30 s) until the server holds at most `fds` file descriptors: its
/// connections have closed.
pub(crate) async fn wait_for_fds(server: &Server, fds: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.fds() > fds && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
