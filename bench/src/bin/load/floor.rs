//! The floor: the bare relay's CPU a move, and the wait for a quiet moment it measures.

use std::sync::Arc;
use std::time::Duration;

use crate::relay;
use crate::server::Server;

/// The bare relay's CPU per move with 50 and 500 pairs playing as fast as it answers,
/// `repeat` runs of each: the floor under the human rows' figures.
pub(crate) async fn floor(relay: &Server, phase: Duration, repeat: usize) -> anyhow::Result<()> {
    println!();
    println!(
        "## the floor: a bare TCP relay of the server's shape (one task and queue per connection, one write per wake-up), {}-byte moves answered with {}-byte messages to both players",
        relay::MOVE,
        relay::MOVED
    );
    println!();
    println!("| pairs | run | moves/s | CPU µs/move | user µs/move | clients CPU µs/move |");
    println!("|---|---|---|---|---|---|");
    let mut key = 0;
    for pairs in [50, 500] {
        for run in 1..=repeat {
            let r = floor_run(relay, pairs, phase, &mut key).await?;
            println!(
                "| {pairs} | {run} | {:.0} | {:.1} | {:.1} | {:.1} |",
                r.moves_per_s, r.cpu_us, r.user_us, r.clients_us,
            );
        }
    }
    Ok(())
}

/// What one run of the floor measured, per move.
pub(crate) struct FloorRun {
    pub(crate) moves_per_s: f64,
    /// The relay's CPU.
    pub(crate) cpu_us: f64,
    /// Its user-space part.
    pub(crate) user_us: f64,
    /// The clients' CPU (this process).
    pub(crate) clients_us: f64,
}

/// `pairs` pairs playing through the relay as fast as it answers, measured for `phase`
/// after a second's warm-up; `key` numbers the pairs (the relay pairs two connections by
/// it) and is advanced past them.
pub(crate) async fn floor_run(
    relay: &Server,
    pairs: u64,
    phase: Duration,
    key: &mut u64,
) -> anyhow::Result<FloorRun> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let moves = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for _ in 0..pairs {
        *key += 1;
        let pair = relay::pair(relay.addr, *key).await?;
        tasks.push(tokio::spawn(relay::play(pair, moves.clone(), stop.clone())));
    }
    // Warm up, as the human rows do, then measure a phase.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let cpu = relay.cpu();
    let clients = cpu.this_process();
    let (before, start) = (cpu.read_split()?, moves.load(Ordering::Relaxed));
    let clients_before = clients.read_split()?;
    tokio::time::sleep(phase).await;
    let (after, end) = (cpu.read_split()?, moves.load(Ordering::Relaxed));
    let clients_used = clients.read_split()? - clients_before;
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await??;
    }
    let n = (end - start).max(1) as f64;
    let used = after - before;
    Ok(FloorRun {
        moves_per_s: n / phase.as_secs_f64(),
        cpu_us: used.total().as_secs_f64() * 1e6 / n,
        user_us: used.user.as_secs_f64() * 1e6 / n,
        clients_us: clients_used.total().as_secs_f64() * 1e6 / n,
    })
}

/// Waits for a quiet moment on a shared machine: measures the floor with 500 pairs (5 s)
/// every minute or so until it is at most `limit_us` a move, printing each check. The
/// machine's other work changes every CPU figure, so a comparison with a figure measured
/// in another hour needs the same quiet.
pub(crate) async fn wait_for_quiet(relay: &Server, limit_us: f64) -> anyhow::Result<()> {
    let mut key = 0;
    loop {
        let r = floor_run(relay, 500, Duration::from_secs(5), &mut key).await?;
        let clock = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() % 86_400);
        println!(
            "# {:02}:{:02}:{:02} UTC: the floor with 500 pairs at {:.1} µs a move (waiting for {limit_us} or less)",
            clock / 3_600,
            clock / 60 % 60,
            clock % 60,
            r.cpu_us,
        );
        if r.cpu_us <= limit_us {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_secs(60)).await;
    }
}
