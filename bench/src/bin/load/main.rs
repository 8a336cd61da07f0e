//! The load benchmark of issue 8: bytes, server CPU and round trips per move with many
//! human games, AI reply times with many AI rooms, and server memory with many idle
//! connections. It prints figures; it asserts nothing. `--floor` (also part of the
//! default run) measures the same for a bare TCP relay of the server's shape
//! ([`relay`], this binary with `relay`): the kernel's loopback work for a move's
//! reads and writes, which the server's figures include and no server code can remove.
//!
//! The server runs in a child process (this binary with `serve`), so its CPU time and
//! memory are read from `/proc/PID/stat` and `/proc/PID/status` apart from the load
//! clients, which run in this process. Both share the machine's cores, so round trips
//! include the clients' own scheduling.
//!
//! ```sh
//! cargo run --release -p inarow-bench --bin load            # every phase
//! cargo run --release -p inarow-bench --bin load -- --quick # shorter phases
//! cargo run --release -p inarow-bench --bin load -- --humans --quick --data /tmp/load.db
//! ```
//!
//! `--data FILE` keeps the server's finished games and live rooms in that SQLite file (as
//! `inarow-server --data` does); without it they are kept in memory. With it the human
//! games also run on a second server that keeps nothing (`:memory:`), side by side in one
//! run: the difference in CPU µs per move is the cost of keeping games and checkpointing
//! every move. `serve --data FILE` runs the child alone on FILE (the restart tests kill it).
//!
//! Comparing two builds on a shared machine, where one run's CPU figures drift with the
//! machine's other work: `--baseline EXE` also starts EXE's server (another build of this
//! binary, say one built from `main`; with `--data FILE` it keeps `FILE.baseline`) and plays
//! every human row on both, alternating which goes first, `--repeat N` times; a summary
//! gives each row's medians and their ratio, and the least CPU per move of each build's
//! runs (the machine's other work only ever adds time), and `--ai` runs on each server in
//! turn. With `--ai`, `--repeat N` alternates the human games alone and beside the AI rooms
//! N times, and prints each run's round-trip p99 ratio, the median ratio and the ratio of
//! the pooled round trips. `--row GAMES:RULES:PROTOCOL` (repeatable; rules `tictactoe` or `gomoku`) picks
//! rows. Context switches per move are read from `/proc`; `--syscalls` also counts the
//! server's system calls with `perf stat` (installed, and allowed to trace the child).
//! `--callgrind` (with `--humans` alone) runs the servers under valgrind's callgrind and
//! counts their user-space instructions per move, which the machine's load does not
//! change; `--callgrind-out PATTERN` keeps their profiles (`%p` is a server's pid) for
//! `callgrind_annotate`, each measured window a part of its own (`PATTERN.2` with one
//! row: `.1` is the setup and warm-up). `--cache-sim` (with `--callgrind`) also simulates the caches and
//! counts the misses of a 2 MiB last level (this machine's L2 a core) per move: with 500
//! games the state of a thousand connections no longer stays in the caches, and what a
//! move touches of it, which no timing on a shared machine shows steadily, is counted.
//!
//! ```sh
//! cp target/release/load /tmp/load-before   # built from the code to compare against
//! cargo run --release -p inarow-bench --bin load -- --humans --quick --baseline /tmp/load-before --repeat 3 --syscalls
//! ```
//!
//! `--wait-quiet US` first waits for a quiet moment on a shared machine: it measures the
//! floor with 500 pairs every minute or so until that is at most `US` µs a move (8.5–9 in
//! this machine's quietest hours), then runs as asked. Started in the background, it takes
//! the hour's first quiet moment:
//!
//! ```sh
//! cargo run --release -p inarow-bench --bin load -- --wait-quiet 10.5 --humans --floor --baseline /tmp/load-before --repeat 3 --row 500:tictactoe:2 > /tmp/quiet.txt &
//! ```
//!
//! `load writes` times one write of a move's frame on loopback as one buffer and as a
//! vectored write of header and payload, side by side (why the server copies a short
//! batch into one buffer).
//!
//! The code: this file reads the command line and runs the parts; `child` is what the
//! child processes run, `server` starts one and reads what it used, `players` are the load
//! clients, and `humans`, `ai`, `floor` and `memory` are the parts.

mod ai;
mod child;
mod floor;
mod humans;
mod memory;
mod players;
mod relay;
mod server;

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, anyhow};
use tokio::net::TcpStream;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use ai::ai;
use child::{serve, server_threads, writes};
use floor::{floor, wait_for_quiet};
use humans::{Plan, Row, humans};
use memory::memory;
use server::{Callgrind, Counting, Server};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The allocator of the `inarow-server` binary, so the server child measures as it runs.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The clients' WebSocket read buffer unless `--client-read-buffer BYTES` says otherwise:
/// a move's frame is some 150 bytes and a 15×15 snapshot a few KiB (a longer frame takes
/// more reads, not a larger buffer).
const CLIENT_READ_BUFFER: usize = 4 * 1024;

/// The clients' read buffer for this run, set once from the command line.
static CLIENT_READ_BUFFER_SET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

fn client_read_buffer() -> usize {
    CLIENT_READ_BUFFER_SET
        .get()
        .copied()
        .unwrap_or(CLIENT_READ_BUFFER)
}

/// The AI budget the server runs with, as `--ai-move-ms` would set it.
const AI_MOVE_MS: u64 = 1_000;
/// How long the people of the AI phase think before each move: without it, 50 human
/// games at full speed take every core, which is a throughput test (the first phase),
/// not a test of AI seats among people.
const THINK: Duration = Duration::from_millis(100);

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = args
        .iter()
        .position(|a| a == "--data")
        .map(|i| args.get(i + 1).cloned().context("--data FILE"))
        .transpose()?;
    match args.first().map(String::as_str) {
        Some("serve") => return serve(data.as_deref()),
        Some("relay") => return child::relay(),
        Some("writes") => return writes(),
        _ => {}
    }
    let quick = args.iter().any(|a| a == "--quick");
    let phase = Duration::from_secs(if quick { 4 } else { 10 });
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| {
                args.get(i + 1)
                    .cloned()
                    .with_context(|| format!("{flag} VALUE"))
            })
            .transpose()
    };
    let baseline = value_of("--baseline")?;
    if let Some(bytes) = value_of("--client-read-buffer")? {
        let bytes: usize = bytes.parse().context("--client-read-buffer BYTES")?;
        if bytes == 0 {
            return Err(anyhow!("--client-read-buffer must be at least one byte"));
        }
        CLIENT_READ_BUFFER_SET
            .set(bytes)
            .map_err(|_| anyhow!("--client-read-buffer given twice"))?;
    }
    let repeat: usize = value_of("--repeat")?.map_or(Ok(1), |n| n.parse())?;
    let rows = args
        .iter()
        .enumerate()
        .filter(|(_, a)| *a == "--row")
        .map(|(i, _)| {
            args.get(i + 1)
                .context("--row GAMES:RULES:PROTOCOL")?
                .parse()
        })
        .collect::<anyhow::Result<Vec<Row>>>()?;
    let rows = if rows.is_empty() {
        Row::ALL.to_vec()
    } else {
        rows
    };
    let counting = Counting {
        syscalls: args.iter().any(|a| a == "--syscalls"),
        callgrind: args.iter().any(|a| a == "--callgrind"),
        cache_sim: args.iter().any(|a| a == "--cache-sim"),
        window_parts: args.iter().any(|a| a == "--callgrind-out"),
    };
    if counting.cache_sim && !counting.callgrind {
        return Err(anyhow!("--cache-sim goes with --callgrind"));
    }
    // Under callgrind the servers run tens of times slower: AI replies and memory measured
    // there would say nothing, so the count is for the human games alone.
    let parts = ["--memory", "--humans", "--ai", "--floor"];
    let only_humans = args.iter().any(|a| a == "--humans")
        && !args.iter().any(|a| a == "--ai" || a == "--memory");
    if counting.callgrind && !only_humans {
        return Err(anyhow!(
            "--callgrind counts the human games only: run it with --humans"
        ));
    }
    // Where callgrind writes its profiles (`%p` is the server's pid), for
    // `callgrind_annotate`; nowhere by default, the count alone is wanted.
    let profiles = value_of("--callgrind-out")?;
    if profiles.is_some() && !counting.callgrind {
        return Err(anyhow!("--callgrind-out goes with --callgrind"));
    }
    let callgrind = counting.callgrind.then(|| Callgrind {
        profile: profiles.as_deref().unwrap_or("/dev/null"),
        cache_sim: counting.cache_sim,
    });
    let wait_quiet: Option<f64> = value_of("--wait-quiet")?
        .map(|us| us.parse().context("--wait-quiet MICROSECONDS"))
        .transpose()?;
    let exe = std::env::current_exe()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    if let Some(limit) = wait_quiet {
        let relay = Server::start_relay(&exe)?;
        runtime.block_on(wait_for_quiet(&relay, limit))?;
    }
    let server = Server::start(&exe, data.as_deref(), callgrind)?;
    // `--memory`, `--humans`, `--ai` pick parts; all of them by default.
    let picked = |part: &str| {
        args.iter().any(|a| a == part) || !args.iter().any(|a| parts.contains(&a.as_str()))
    };
    if picked("--memory") {
        // On a fresh server: the other parts leave rooms open for minutes.
        let fresh = Server::start(&exe, None, None)?;
        runtime.block_on(memory(&fresh))?;
    }
    let (threads, ai_threads) = server_threads();
    println!(
        "# inarow load benchmark (server pid {}, {threads} worker threads, {ai_threads} AI search slots, {phase:?} per phase, AI budget {AI_MOVE_MS} ms, games kept in {})",
        server.child.id(),
        data.as_deref().unwrap_or(":memory:")
    );
    // The build to compare against, keeping its data as ours does but in a file of its
    // own (two servers on one file would restore each other's rooms).
    let base_data = data.as_ref().map(|file| format!("{file}.baseline"));
    let baseline = baseline
        .map(|exe| {
            Server::start(Path::new(&exe), base_data.as_deref(), callgrind).map(|s| (exe, s))
        })
        .transpose()?;
    if let Some((exe, base)) = &baseline {
        println!("# baseline: {exe} (server pid {})", base.child.id());
    }
    if picked("--humans") {
        let plan = Plan {
            phase,
            rows: &rows,
            repeat,
            counting,
        };
        if data.is_some() {
            // The same games on a server that keeps nothing, for comparison.
            let memory = Server::start(&exe, None, callgrind)?;
            println!();
            println!("### data :memory: (no checkpoints)");
            runtime.block_on(humans(&[("this build", &memory)], &plan))?;
        }
        println!();
        println!("### data {}", data.as_deref().unwrap_or(":memory:"));
        let mut servers = vec![("this build", &server)];
        if let Some((_, base)) = &baseline {
            servers.insert(0, ("baseline", base));
        }
        runtime.block_on(humans(&servers, &plan))?;
    }
    if picked("--floor") {
        let relay = Server::start_relay(&exe)?;
        runtime.block_on(floor(&relay, phase, repeat))?;
    }
    if picked("--ai") {
        if let Some((_, base)) = &baseline {
            println!();
            println!("### baseline");
            runtime.block_on(ai(base, phase, repeat))?;
            println!();
            println!("### this build");
        }
        runtime.block_on(ai(&server, phase, repeat))?;
    }
    Ok(())
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort_unstable();
    let rank = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

/// A per-move figure: counts of a few with two decimals, instructions whole.
fn figure(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}
