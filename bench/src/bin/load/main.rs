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

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ClientFrame, ClientMessage, GameStatus, Level, Mark, Occupant, RequestId, RoomSnapshot,
    RulesSpec, SeatPlan, SeatRequest, ServerMessage, SessionId, decode_server, encode,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

mod relay;

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
        Some("relay") => return relay(),
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

/// The server child's runtime workers and AI search slots, as `inarow-server` reads
/// them: `INAROW_THREADS` (by default the cores the search slots leave) and
/// `INAROW_AI_THREADS`.
fn server_threads() -> (usize, usize) {
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
fn serve(data: Option<&str>) -> anyhow::Result<()> {
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
        .with_timer(inarow_server::LogTime)
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
        let shutdown = tokio_util::sync::CancellationToken::new();
        let stop = shutdown.clone();
        // The parent closes our stdin when it is done (or dies).
        tokio::task::spawn_blocking(move || {
            let _ = std::io::stdin().lines().count();
            stop.cancel();
        });
        inarow_server::run(listener, config, shutdown).await?;
        Ok(())
    })
}

/// The relay child: the floor under a move's cost ([`relay`]), with the
/// server's runtime workers, until stdin closes.
fn relay() -> anyhow::Result<()> {
    child(server_threads().0, |listener| async move {
        tokio::select! {
            () = relay::serve(listener) => {}
            _ = tokio::task::spawn_blocking(|| std::io::stdin().lines().count()) => {}
        }
        Ok(())
    })
}

/// `load writes`: what one write of a move's frame costs on loopback TCP as one buffer
/// (`send`, what the server does with a short batch) and as a vectored write of its header
/// and payload (`writev`), each followed by the peer's read, alternated in blocks so that
/// the machine's other work falls on both alike. Prints nanoseconds a write and their
/// ratio (`server/src/frame_out.rs`).
fn writes() -> anyhow::Result<()> {
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
fn child<F>(threads: usize, serve: impl FnOnce(tokio::net::TcpListener) -> F) -> anyhow::Result<()>
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

/// The server child process.
struct Server {
    child: Child,
    addr: SocketAddr,
    /// Clock ticks per second of `/proc/PID/stat`.
    ticks: f64,
}

impl Server {
    /// Starts `exe serve` (this binary, or another build of it), under callgrind if asked
    /// (which counts its instructions, [`Cpu::counts`]).
    fn start(
        exe: &Path,
        data: Option<&str>,
        callgrind: Option<Callgrind<'_>>,
    ) -> anyhow::Result<Server> {
        Server::spawn(exe, "serve", data, callgrind)
    }

    /// Starts `exe relay`, the bare relay of `--floor`.
    fn start_relay(exe: &Path) -> anyhow::Result<Server> {
        Server::spawn(exe, "relay", None, None)
    }

    /// Starts `exe mode`.
    fn spawn(
        exe: &Path,
        mode: &str,
        data: Option<&str>,
        callgrind: Option<Callgrind<'_>>,
    ) -> anyhow::Result<Server> {
        let mut command = if let Some(callgrind) = callgrind {
            let mut valgrind = Command::new("valgrind");
            valgrind
                .arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", callgrind.profile))
                // Each part of a kept profile names its functions and files in full:
                // compressed, a later part refers to names only the first one gives.
                .arg("--compress-strings=no");
            if callgrind.cache_sim {
                // The first level as this machine's (48 KiB, 12 ways), the last as its
                // L2 a core (2 MiB, 16 ways): the L3 is shared with other machines' work.
                valgrind.args(["--cache-sim=yes", "--D1=49152,12,64", "--LL=2097152,16,64"]);
            }
            valgrind.arg(exe);
            valgrind
        } else {
            Command::new(exe)
        };
        command.arg(mode);
        if let Some(data) = data {
            command.args(["--data", data]);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // valgrind's own notes, not the server's.
            .stderr(if callgrind.is_some() {
                Stdio::null()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .with_context(|| {
                if callgrind.is_some() {
                    "--callgrind needs valgrind on the PATH".to_owned()
                } else {
                    format!("cannot start {}", exe.display())
                }
            })?;
        let stdout = child.stdout.take().context("child stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening ")
            .ok_or_else(|| anyhow!("unexpected first line from the server: {line:?}"))?
            .parse()?;
        let ticks = Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0);
        Ok(Server { child, addr, ticks })
    }

    /// Reads the server's CPU time and context switches.
    fn cpu(&self) -> Cpu {
        Cpu {
            pid: self.child.id(),
            ticks: self.ticks,
        }
    }

    /// A line of `/proc/PID/status`, in KiB.
    fn status_kib(&self, key: &str) -> anyhow::Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let line = status
            .lines()
            .find(|l| l.starts_with(key))
            .context("status line")?;
        Ok(line
            .split_whitespace()
            .nth(1)
            .context("status value")?
            .parse()?)
    }

    /// Open file descriptors of the server: its connections plus a few.
    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id())).map_or(0, Iterator::count)
    }
}

/// Reads a process's CPU time.
#[derive(Clone, Copy)]
struct Cpu {
    pid: u32,
    /// Clock ticks per second of `/proc/PID/stat`.
    ticks: f64,
}

impl Cpu {
    /// The same reader for this process: the load clients, who share the server's cores.
    fn this_process(self) -> Cpu {
        Cpu {
            pid: std::process::id(),
            ticks: self.ticks,
        }
    }

    /// Context switches of all the process's threads so far (voluntary ones are mostly a
    /// thread going to sleep for want of work, and waking costs as much again).
    fn switches(self) -> u64 {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid)) else {
            return 0;
        };
        tasks
            .filter_map(Result::ok)
            .filter_map(|task| std::fs::read_to_string(task.path().join("status")).ok())
            .flat_map(|status| {
                status
                    .lines()
                    .filter(|l| l.contains("ctxt_switches:"))
                    .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                    .collect::<Vec<_>>()
            })
            .sum()
    }

    /// User-space instructions the process (every thread) has run so far, and with
    /// `misses` its last-level data misses, from a server run under callgrind
    /// (`callgrind_control` asks it; this takes a fraction of a second).
    fn counts(self, misses: bool) -> anyhow::Result<Counted> {
        let events = if misses { "Ir,DLmr,DLmw" } else { "Ir" };
        let out = Command::new("callgrind_control")
            .args(["-e", events])
            .arg(self.pid.to_string())
            .output()
            .context("--callgrind needs callgrind_control on the PATH")?;
        let text = String::from_utf8_lossy(&out.stdout);
        // `Totals: Ir DLmr DLmw`, then one `Th N  1,234,567 890 12` line per thread.
        let threads: Vec<Vec<u64>> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("Th "))
            .map(|l| {
                l.split_whitespace()
                    .skip(2)
                    .filter_map(|n| n.replace(',', "").parse().ok())
                    .collect()
            })
            .collect();
        let column = |i: usize| threads.iter().filter_map(|t| t.get(i)).sum::<u64>();
        if threads.is_empty() {
            return Err(anyhow!("no counts from callgrind_control: {text:?}"));
        }
        Ok(Counted {
            instructions: column(0),
            misses: misses.then(|| column(1) + column(2)),
        })
    }

    /// Has callgrind write the profile so far as a part of its own, labelled, and start
    /// the next part from zero (`callgrind_control --dump`).
    fn dump(self, label: &str) -> anyhow::Result<()> {
        let status = Command::new("callgrind_control")
            .arg(format!("--dump={label}"))
            .arg(self.pid.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .context("--callgrind-out needs callgrind_control on the PATH")?;
        if !status.success() {
            return Err(anyhow!("callgrind_control --dump: {status}"));
        }
        Ok(())
    }

    /// User plus system CPU time the process has used.
    fn read(self) -> anyhow::Result<Duration> {
        self.read_split().map(CpuTime::total)
    }

    /// The CPU time the process has used, in user space and in the kernel apart.
    fn read_split(self) -> anyhow::Result<CpuTime> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid))?;
        // Fields after the command name (which is in parentheses and may hold spaces).
        let rest = stat.rsplit_once(')').context("stat format")?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let utime: f64 = fields.get(11).context("utime")?.parse()?;
        let stime: f64 = fields.get(12).context("stime")?.parse()?;
        Ok(CpuTime {
            user: Duration::from_secs_f64(utime / self.ticks),
            system: Duration::from_secs_f64(stime / self.ticks),
        })
    }
}

/// CPU time in user space and in the kernel. On loopback the kernel's share of a send
/// includes the receiving client's TCP work (run in the sender's context), so the split
/// says how much of a move's cost the server's own code can still change.
#[derive(Clone, Copy, Default)]
struct CpuTime {
    user: Duration,
    system: Duration,
}

impl CpuTime {
    /// User and system time together.
    fn total(self) -> Duration {
        self.user + self.system
    }
}

impl std::ops::Sub for CpuTime {
    type Output = CpuTime;

    fn sub(self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Which game a room plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    TicTacToe,
    ConnectFour,
    Gomoku,
}

impl Kind {
    fn preset(self) -> RulesSpec {
        RulesSpec::Preset(
            match self {
                Kind::TicTacToe => "tictactoe",
                Kind::ConnectFour => "connect4",
                Kind::Gomoku => "gomoku",
            }
            .to_owned(),
        )
    }
}

/// What one client measured.
#[derive(Default)]
struct Tally {
    /// Moves of ours the server acknowledged.
    moves: u64,
    /// Frames and wire bytes (payload plus WebSocket header) of move events received:
    /// `moved`, or for protocol 1 the snapshot a move caused.
    move_frames: u64,
    move_bytes: u64,
    /// Every frame and wire byte received in the window.
    frames: u64,
    bytes: u64,
    /// From sending `play` to its acknowledgement.
    round_trips: Vec<Duration>,
    /// From sending `play` to the AI's answering move.
    ai_replies: Vec<Duration>,
    /// Rematches asked for (each player asks once a game).
    rematches: u64,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.moves += other.moves;
        self.move_frames += other.move_frames;
        self.move_bytes += other.move_bytes;
        self.frames += other.frames;
        self.bytes += other.bytes;
        self.round_trips.extend(other.round_trips);
        self.ai_replies.extend(other.ai_replies);
        self.rematches += other.rematches;
    }
}

fn wire_bytes(payload: usize) -> u64 {
    let header = match payload {
        0..=125 => 2,
        126..=65_535 => 4,
        _ => 10,
    };
    (payload + header) as u64
}

/// One connection playing: random legal moves on its turn, a rematch when a game ends.
struct Player {
    ws: Ws,
    me: Option<SessionId>,
    next_id: u64,
    room: Option<RoomSnapshot>,
    /// The id and sending time of our `play` awaiting its acknowledgement.
    pending: Option<(u64, Instant)>,
    /// When we last moved against an AI, until its answer.
    ai_asked: Option<Instant>,
    /// The game and ply we last acted on, so one snapshot causes one action.
    acted: Option<(u32, u32)>,
    /// How long a person thinks before moving (zero: as fast as the server answers).
    think: Duration,
    /// The move decided on and when it is sent, after thinking.
    due: Option<(Instant, ClientMessage)>,
    rng: SmallRng,
}

impl Player {
    async fn connect(addr: SocketAddr, protocol: u32, seed: u64) -> anyhow::Result<Player> {
        // tungstenite zero-fills its whole read buffer before every read: at its default
        // of 128 KiB that memset was a fifth of the clients' CPU, and it swept the caches
        // of the cores the server shares with them.
        let config = WebSocketConfig::default().read_buffer_size(client_read_buffer());
        let (ws, _) = tokio_tungstenite::connect_async_with_config(
            format!("ws://{addr}/"),
            Some(config),
            false,
        )
        .await?;
        let mut player = Player {
            ws,
            me: None,
            next_id: 1,
            room: None,
            pending: None,
            ai_asked: None,
            acted: None,
            think: Duration::ZERO,
            due: None,
            rng: SmallRng::seed_from_u64(seed),
        };
        let hello = ClientMessage::Hello {
            protocol,
            name: format!("load{seed}"),
            token: None,
        };
        player.send(hello).await?;
        match player.recv().await?.0 {
            ServerMessage::Welcome { session, .. } => player.me = Some(session),
            other => return Err(anyhow!("expected welcome, got {other:?}")),
        }
        Ok(player)
    }

    async fn send(&mut self, message: ClientMessage) -> anyhow::Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let frame = ClientFrame {
            message,
            id: Some(RequestId::Number(id)),
        };
        self.ws.send(Message::text(encode(&frame))).await?;
        Ok(id)
    }

    /// The next message, its id and its wire size.
    async fn recv(&mut self) -> anyhow::Result<(ServerMessage, Option<u64>, u64)> {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(30), self.ws.next())
                .await
                .context("no frame for 30 s")?
                .context("connection closed")??;
            if let Message::Text(text) = next {
                let frame = decode_server(text.as_str())?;
                let id = match frame.id {
                    Some(RequestId::Number(n)) => Some(n),
                    _ => None,
                };
                return Ok((frame.message, id, wire_bytes(text.len())));
            }
        }
    }

    /// Reads until a snapshot of a room arrives and keeps it.
    async fn await_room(&mut self) -> anyhow::Result<RoomSnapshot> {
        loop {
            if let (ServerMessage::Room { room }, _, _) = self.recv().await? {
                self.room = Some((*room).clone());
                return Ok(*room);
            }
        }
    }

    fn my_mark(&self) -> Option<Mark> {
        let room = self.room.as_ref()?;
        room.seats.iter().find_map(|s| match &s.occupant {
            Occupant::Human { session, .. } if Some(*session) == self.me => Some(s.mark),
            _ => None,
        })
    }

    /// Plays until `end`, measuring from `start` on.
    async fn play(mut self, start: Instant, end: Instant) -> anyhow::Result<Tally> {
        let mut tally = Tally::default();
        self.act().await?;
        while Instant::now() < end {
            let due = self.due.as_ref().map(|(at, _)| *at);
            let next = tokio::select! {
                next = self.recv() => next,
                () = tokio::time::sleep_until(due.unwrap_or(end)), if due.is_some() => {
                    if let Some((_, play)) = self.due.take() {
                        let id = self.send(play).await?;
                        self.pending = Some((id, Instant::now()));
                    }
                    continue;
                }
                () = tokio::time::sleep_until(end) => break,
            };
            let (message, id, size) = next?;
            let now = Instant::now();
            let measuring = now >= start;
            if measuring {
                tally.frames += 1;
                tally.bytes += size;
            }
            let acked = matches!((id, self.pending), (Some(id), Some((p, _))) if id == p);
            // The snapshot is changed in place, never copied: the clients share the
            // machine with the server, and copying a 15×15 board's snapshot for every
            // event made them, not the server, the bottleneck of the gomoku rows.
            let (changed, is_move) = match message {
                ServerMessage::Moved(event) => {
                    let applied = self
                        .room
                        .as_mut()
                        .is_some_and(|room| inarow::board::apply_moved_in_place(room, &event));
                    (applied, true)
                }
                ServerMessage::Room { room } => {
                    let is_move = self
                        .room
                        .as_ref()
                        .is_some_and(|old| old.game == room.game && room.ply == old.ply + 1);
                    self.room = Some(*room);
                    (true, is_move)
                }
                _ => (false, false),
            };
            if changed {
                let mover_was_ai = is_move && !acked && self.ai_asked.is_some();
                if measuring && is_move {
                    tally.move_frames += 1;
                    tally.move_bytes += size;
                }
                if acked && let Some((_, sent)) = self.pending.take() {
                    if measuring {
                        tally.moves += 1;
                        tally.round_trips.push(now - sent);
                    }
                    if self.against_ai() {
                        self.ai_asked = Some(sent);
                    }
                } else if mover_was_ai
                    && let Some(asked) = self.ai_asked.take()
                    && measuring
                {
                    tally.moves += 1;
                    tally.ai_replies.push(now - asked);
                }
                let rematch = self.act().await?;
                if measuring && rematch {
                    tally.rematches += 1;
                }
            }
        }
        Ok(tally)
    }

    fn against_ai(&self) -> bool {
        self.room.as_ref().is_some_and(|r| {
            r.seats
                .iter()
                .any(|s| matches!(s.occupant, Occupant::Ai { .. }))
        })
    }

    /// Moves when it is our turn, asks for a rematch when the game is over; says whether
    /// it asked for a rematch.
    async fn act(&mut self) -> anyhow::Result<bool> {
        let me = self.my_mark();
        let Some(room) = &self.room else {
            return Ok(false);
        };
        let busy = self.pending.is_some() || self.due.is_some();
        let at = (room.game, room.ply);
        if busy || self.acted == Some(at) {
            return Ok(false);
        }
        if room.status.is_over() {
            let id = room.id.clone();
            self.acted = Some(at);
            self.ai_asked = None;
            self.send(ClientMessage::Rematch { room: id }).await?;
            return Ok(true);
        } else if me.is_some_and(|m| room.status == GameStatus::Playing { turn: m }) {
            let Some(mv) = room.legal_moves.choose(&mut self.rng).cloned() else {
                return Ok(false);
            };
            let play = ClientMessage::Play {
                room: room.id.clone(),
                ply: room.ply,
                mv,
            };
            self.acted = Some(at);
            if self.think.is_zero() {
                let id = self.send(play).await?;
                self.pending = Some((id, Instant::now()));
            } else {
                self.due = Some((Instant::now() + self.think, play));
            }
        }
        Ok(false)
    }
}

/// A human game: two connected players in a private room, X's creator and O joining.
async fn human_pair(
    addr: SocketAddr,
    kind: Kind,
    protocol: u32,
    seed: u64,
) -> anyhow::Result<[Player; 2]> {
    let mut x = Player::connect(addr, protocol, seed).await?;
    let mut o = Player::connect(addr, protocol, seed + 1).await?;
    x.send(ClientMessage::CreateRoom {
        name: None,
        rules: kind.preset(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        },
        private: true,
        hints: false,
    })
    .await?;
    let room = x.await_room().await?;
    o.send(ClientMessage::Join {
        room: room.id.clone(),
        seat: Some(inarow_protocol::SeatChoice::O),
    })
    .await?;
    o.await_room().await?;
    Ok([x, o])
}

/// A person against the perfect AI, the person playing X.
async fn ai_room(addr: SocketAddr, kind: Kind, seed: u64) -> anyhow::Result<Player> {
    let mut p = Player::connect(addr, 2, seed).await?;
    p.send(ClientMessage::CreateRoom {
        name: None,
        rules: kind.preset(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Ai {
                level: Level::Perfect,
            },
        },
        private: true,
        hints: false,
    })
    .await?;
    p.await_room().await?;
    p.think = THINK;
    Ok(p)
}

/// What the server used over a measured window.
struct Window {
    cpu: CpuTime,
    /// What the load clients (this process) used meanwhile, on the same cores.
    clients: CpuTime,
    /// Context switches of its threads.
    switches: u64,
    /// System calls, when counted (`--syscalls`).
    syscalls: Option<Syscalls>,
    /// User-space instructions and cache misses, when counted (`--callgrind`).
    counted: Option<Counted>,
}

/// What callgrind counted of a server's user space.
#[derive(Clone, Copy)]
struct Counted {
    instructions: u64,
    /// Last-level data misses, reads and writes (`--cache-sim`).
    misses: Option<u64>,
}

/// How a server runs under callgrind.
#[derive(Clone, Copy)]
struct Callgrind<'a> {
    /// Where its profile goes.
    profile: &'a str,
    /// Whether the caches are simulated (`--cache-sim`).
    cache_sim: bool,
}

/// System calls counted over a window: all of them, and the socket writes and reads
/// among them (counts that do not depend on the machine's speed or load).
#[derive(Clone, Copy)]
struct Syscalls {
    all: f64,
    /// `sendto` and `writev`: one per write of a connection's queued frames (the server
    /// writes its frames with `writev`, tungstenite and the floor's relay with `sendto`).
    sends: f64,
    /// `recvfrom`: one per read of a connection's socket.
    reads: f64,
}

impl Syscalls {
    /// These counts, each divided by `n`.
    fn per(self, n: f64) -> Syscalls {
        Syscalls {
            all: self.all / n,
            sends: self.sends / n,
            reads: self.reads / n,
        }
    }
}

/// Which of the server's costs are counted beyond CPU time and context switches.
#[derive(Clone, Copy)]
struct Counting {
    /// System calls, with `perf stat` attached to the server for the window.
    syscalls: bool,
    /// User-space instructions, with the servers run under callgrind (`--callgrind`): a
    /// count that neither the machine's load nor its caches change, for comparing builds'
    /// own work. The servers run tens of times slower, so their CPU times say nothing.
    callgrind: bool,
    /// Last-level cache misses too, with callgrind simulating the caches (`--cache-sim`).
    cache_sim: bool,
    /// Whether a kept profile (`--callgrind-out`) has each measured window as a part of
    /// its own (`callgrind_control --dump` at its ends), apart from the connections'
    /// setup and the warm-up, which would otherwise be most of what it shows.
    window_parts: bool,
}

impl Counting {
    /// CPU time and context switches only: what the AI phases read.
    const NONE: Counting = Counting {
        syscalls: false,
        callgrind: false,
        cache_sim: false,
        window_parts: false,
    };
}

/// The tracepoints `perf stat` counts, in the order of [`Syscalls`]' fields.
/// (`sends` is the second and the fourth together).
const SYSCALL_EVENTS: [&str; 4] = [
    "raw_syscalls:sys_enter",
    "syscalls:sys_enter_sendto",
    "syscalls:sys_enter_recvfrom",
    "syscalls:sys_enter_writev",
];

/// `perf stat` counting a process's system calls until stopped.
struct SyscallCount {
    child: Child,
    out: std::path::PathBuf,
}

impl SyscallCount {
    fn start(pid: u32) -> anyhow::Result<SyscallCount> {
        let out = std::env::temp_dir().join(format!("inarow-load-perf-{pid}.csv"));
        let child = Command::new("perf")
            .args(["stat", "-x", ",", "-e", &SYSCALL_EVENTS.join(","), "-p"])
            .arg(pid.to_string())
            .arg("-o")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("--syscalls needs `perf` on the PATH")?;
        // perf attaches asynchronously; give it a moment before the window opens.
        std::thread::sleep(Duration::from_millis(200));
        Ok(SyscallCount { child, out })
    }

    /// Stops counting (SIGINT, which makes perf print) and reads the counts.
    fn stop(mut self) -> anyhow::Result<Syscalls> {
        Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()?;
        self.child.wait()?;
        let text = std::fs::read_to_string(&self.out)?;
        let _ = std::fs::remove_file(&self.out);
        let count = |event: &str| {
            text.lines()
                .find(|l| l.split(',').nth(2) == Some(event))
                .and_then(|l| l.split(',').next()?.trim().parse::<f64>().ok())
                .with_context(|| format!("no count of {event} in perf's output: {text:?}"))
        };
        Ok(Syscalls {
            all: count(SYSCALL_EVENTS[0])?,
            sends: count(SYSCALL_EVENTS[1])? + count(SYSCALL_EVENTS[3])?,
            reads: count(SYSCALL_EVENTS[2])?,
        })
    }
}

/// Runs every player for a second of warm-up and then `phase`, measured; returns their
/// tallies (in order; a player that failed gives an empty one) and what the server used
/// over the measured window.
async fn run_players(
    players: Vec<Player>,
    cpu: Cpu,
    phase: Duration,
    counting: Counting,
) -> anyhow::Result<(Vec<Tally>, Window)> {
    let perf = if counting.syscalls {
        Some(SyscallCount::start(cpu.pid)?)
    } else {
        None
    };
    let start = Instant::now() + Duration::from_secs(1);
    let end = start + phase;
    let tasks: Vec<_> = players
        .into_iter()
        .map(|p| tokio::spawn(p.play(start, end)))
        .collect();
    // perf counts from the warm-up on (it takes a moment to attach): its count is scaled
    // to the window by the window's share of the server's CPU time while it counted.
    let cpu0 = cpu.read()?;
    // Off the runtime's threads: asking callgrind takes a while, and the clients play on.
    // With a kept profile, the part dumped at the window's start ends the setup's and the
    // one dumped at its end is the window's; the count is read after the first and before
    // the second, so that both dumps fall outside it.
    let counts = |counting: Counting, at_start: bool| async move {
        if !counting.callgrind {
            return Ok(None);
        }
        let dump = counting.window_parts;
        tokio::task::spawn_blocking(move || {
            if dump && at_start {
                cpu.dump("setup")?;
            }
            let counted = cpu.counts(counting.cache_sim)?;
            if dump && !at_start {
                cpu.dump("window")?;
            }
            anyhow::Ok(Some(counted))
        })
        .await?
    };
    tokio::time::sleep_until(start).await;
    let counted_before = counts(counting, true).await?;
    let before = cpu.read_split()?;
    let clients = cpu.this_process();
    let clients_before = clients.read_split()?;
    let switches_before = cpu.switches();
    tokio::time::sleep_until(end).await;
    let used = cpu.read_split()? - before;
    let clients_used = clients.read_split()? - clients_before;
    let switches = cpu.switches() - switches_before;
    let counted = match (counted_before, counts(counting, false).await?) {
        (Some(before), Some(after)) => Some(Counted {
            instructions: after.instructions.saturating_sub(before.instructions),
            misses: after
                .misses
                .zip(before.misses)
                .map(|(a, b)| a.saturating_sub(b)),
        }),
        _ => None,
    };
    let cpu1 = cpu.read()?;
    let syscalls = match perf {
        Some(perf) => {
            let counted = perf.stop()?;
            let window = used.total().as_secs_f64();
            let share = window / (cpu1 - cpu0).as_secs_f64().max(1e-9);
            Some(counted.per(1.0 / share))
        }
        None => None,
    };
    let mut tallies = Vec::new();
    for task in tasks {
        tallies.push(match task.await {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => {
                eprintln!("a player failed: {e:#}");
                Tally::default()
            }
            Err(e) => {
                eprintln!("a player panicked: {e}");
                Tally::default()
            }
        });
    }
    let window = Window {
        cpu: used,
        clients: clients_used,
        switches,
        syscalls,
        counted,
    };
    Ok((tallies, window))
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

/// One row of the human games' table.
#[derive(Clone, Copy)]
struct Row {
    games: u64,
    kind: Kind,
    protocol: u32,
}

impl Row {
    /// The rows played unless `--row` picks some.
    const ALL: [Row; 6] = [
        Row::new(50, Kind::TicTacToe, 1),
        Row::new(50, Kind::TicTacToe, 2),
        Row::new(50, Kind::Gomoku, 1),
        Row::new(50, Kind::Gomoku, 2),
        Row::new(500, Kind::TicTacToe, 2),
        Row::new(500, Kind::Gomoku, 2),
    ];

    const fn new(games: u64, kind: Kind, protocol: u32) -> Row {
        Row {
            games,
            kind,
            protocol,
        }
    }
}

impl std::str::FromStr for Row {
    type Err = anyhow::Error;

    /// `GAMES:RULES:PROTOCOL`, such as `50:tictactoe:2`.
    fn from_str(text: &str) -> anyhow::Result<Row> {
        let parts: Vec<&str> = text.split(':').collect();
        let [games, rules, protocol] = parts[..] else {
            return Err(anyhow!("a row is GAMES:RULES:PROTOCOL, not {text:?}"));
        };
        let kind = match rules {
            "tictactoe" => Kind::TicTacToe,
            "gomoku" => Kind::Gomoku,
            _ => return Err(anyhow!("rules are tictactoe or gomoku, not {rules:?}")),
        };
        Ok(Row::new(games.parse()?, kind, protocol.parse()?))
    }
}

/// How the human games are played.
struct Plan<'a> {
    phase: Duration,
    rows: &'a [Row],
    /// Runs of each row on each server.
    repeat: usize,
    counting: Counting,
}

/// One run of a row on one server, per move.
struct Measured {
    cpu_us: f64,
    /// The user-space part of `cpu_us`.
    user_us: f64,
    /// The load clients' CPU, which competes with the server's for the same cores.
    clients_us: f64,
    switches: f64,
    syscalls: Option<Syscalls>,
    /// User-space instructions (`--callgrind`).
    instructions: Option<f64>,
    /// Last-level data misses (`--cache-sim`).
    misses: Option<f64>,
}

/// Human games as fast as the server answers: throughput, bytes, CPU and round trips, on
/// each of `servers` in turn (the order alternating from run to run).
async fn humans(servers: &[(&str, &Server)], plan: &Plan<'_>) -> anyhow::Result<()> {
    let phase = plan.phase;
    println!();
    println!("## human games: one move event per player per move");
    println!();
    println!(
        "| server | games | rules | protocol | moves/s | moves/game | bytes/move | frames/move | all bytes/move | CPU µs/move | user µs/move | clients CPU µs/move | switches/move | syscalls/move | sends/move | reads/move | instructions/move | LL misses/move | RTT p50 | RTT p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut results: Vec<Vec<Vec<Measured>>> = plan
        .rows
        .iter()
        .map(|_| servers.iter().map(|_| Vec::new()).collect())
        .collect();
    let mut seed = 0;
    for (r, row) in plan.rows.iter().enumerate() {
        for run in 0..plan.repeat {
            for i in 0..servers.len() {
                let s = if (r + run) % 2 == 0 {
                    i
                } else {
                    servers.len() - 1 - i
                };
                let (name, server) = servers[s];
                let mut players = Vec::new();
                for g in 0..row.games {
                    players.extend(
                        human_pair(server.addr, row.kind, row.protocol, seed + 2 * g).await?,
                    );
                }
                seed += 2 * row.games;
                let (tallies, window) =
                    run_players(players, server.cpu(), phase, plan.counting).await?;
                let mut total = Tally::default();
                tallies.into_iter().for_each(|t| total.add(t));
                let moves = total.moves.max(1) as f64;
                let cpu = window.cpu.total();
                let measured = Measured {
                    cpu_us: cpu.as_secs_f64() * 1e6 / moves,
                    user_us: window.cpu.user.as_secs_f64() * 1e6 / moves,
                    clients_us: window.clients.total().as_secs_f64() * 1e6 / moves,
                    switches: window.switches as f64 / moves,
                    syscalls: window.syscalls.map(|n| n.per(moves)),
                    instructions: window.counted.map(|n| n.instructions as f64 / moves),
                    misses: window
                        .counted
                        .and_then(|n| n.misses)
                        .map(|n| n as f64 / moves),
                };
                // Both players ask for a rematch at the end of every game.
                let games = total.rematches as f64 / 2.0;
                let count = |f: fn(Syscalls) -> f64| {
                    measured
                        .syscalls
                        .map_or("-".to_owned(), |n| format!("{:.2}", f(n)))
                };
                let recipients = 2.0 * moves;
                let p50 = percentile(&mut total.round_trips, 0.5);
                let p99 = percentile(&mut total.round_trips, 0.99);
                println!(
                    "| {name} | {} | {:?} | {} | {:.0} | {:.1} | {:.0} | {:.2} | {:.0} | {:.1} | {:.1} | {:.1} | {:.2} | {} | {} | {} | {} | {} | {} | {} |",
                    row.games,
                    row.kind,
                    row.protocol,
                    moves / phase.as_secs_f64(),
                    moves / games.max(1.0),
                    total.move_bytes as f64 / recipients,
                    total.move_frames as f64 / recipients,
                    total.bytes as f64 / recipients,
                    measured.cpu_us,
                    measured.user_us,
                    measured.clients_us,
                    measured.switches,
                    count(|n| n.all),
                    count(|n| n.sends),
                    count(|n| n.reads),
                    measured
                        .instructions
                        .map_or("-".to_owned(), |n| format!("{n:.0}")),
                    measured
                        .misses
                        .map_or("-".to_owned(), |n| format!("{n:.1}")),
                    ms(p50),
                    ms(p99),
                );
                results[r][s].push(measured);
            }
        }
    }
    if let [(base_name, _), (name, _)] = servers {
        println!();
        println!(
            "## medians over {} runs: {name} against {base_name}",
            plan.repeat
        );
        println!();
        println!(
            "| games | rules | protocol | CPU µs/move {base_name} | CPU µs/move {name} | ratio | least CPU µs/move | user µs/move | switches/move | syscalls/move | sends/move | reads/move | instructions/move | LL misses/move |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (row, result) in plan.rows.iter().zip(&results) {
            let median = |runs: &[Measured], f: &dyn Fn(&Measured) -> Option<f64>| {
                let mut v: Vec<f64> = runs.iter().filter_map(f).collect();
                v.sort_by(f64::total_cmp);
                v.get(v.len() / 2).copied()
            };
            let pair = |f: &dyn Fn(&Measured) -> Option<f64>| {
                let (a, b) = (median(&result[0], f), median(&result[1], f));
                match (a, b) {
                    (Some(a), Some(b)) => format!("{} → {}", figure(a), figure(b)),
                    _ => "-".to_owned(),
                }
            };
            let (base, new) = (
                median(&result[0], &|m| Some(m.cpu_us)).unwrap_or(0.0),
                median(&result[1], &|m| Some(m.cpu_us)).unwrap_or(0.0),
            );
            // The other jobs on a shared machine only ever add time: the least of the runs
            // is the closest to what the server itself costs.
            let least = |runs: &[Measured]| runs.iter().map(|m| m.cpu_us).min_by(f64::total_cmp);
            let fewest = match (least(&result[0]), least(&result[1])) {
                (Some(a), Some(b)) => format!("{a:.1} → {b:.1}"),
                _ => "-".to_owned(),
            };
            println!(
                "| {} | {:?} | {} | {base:.1} | {new:.1} | {:.2} | {fewest} | {} | {} | {} | {} | {} | {} | {} |",
                row.games,
                row.kind,
                row.protocol,
                new / base.max(1e-9),
                pair(&|m| Some(m.user_us)),
                pair(&|m| Some(m.switches)),
                pair(&|m| m.syscalls.map(|n| n.all)),
                pair(&|m| m.syscalls.map(|n| n.sends)),
                pair(&|m| m.syscalls.map(|n| n.reads)),
                pair(&|m| m.instructions),
                pair(&|m| m.misses),
            );
        }
    }
    Ok(())
}

/// AI replies alone and among many AI rooms and human games, and the human games' round
/// trips with and without the AI rooms. The two human phases alternate `repeat` times: a
/// p99 is the slowest 1% of some 5,000 round trips of about a millisecond, which one busy
/// moment of the shared machine moves by more than the AI rooms do, so each run's ratio is
/// printed and then the ratio of the runs' pooled round trips and the median ratio.
async fn ai(server: &Server, phase: Duration, repeat: usize) -> anyhow::Result<()> {
    println!();
    println!(
        "## AI replies (perfect AI; people play X at random, after thinking {} ms)",
        THINK.as_millis()
    );
    println!();
    let mut alone_replies = Vec::new();
    for kind in [Kind::TicTacToe, Kind::ConnectFour, Kind::Gomoku] {
        let players = vec![ai_room(server.addr, kind, 9_000).await?];
        let mut total = Tally::default();
        let (tallies, _) = run_players(players, server.cpu(), phase, Counting::NONE).await?;
        tallies.into_iter().for_each(|t| total.add(t));
        alone_replies.push((kind, total.ai_replies));
    }
    let mut beside: HashMap<Option<Kind>, Tally> = HashMap::new();
    let mut alone_trips = Vec::new();
    let mut runs = Vec::new();
    for run in 0..repeat as u64 {
        let mut humans_alone = Tally::default();
        let players = paced_humans(server.addr, 10_000 + 1_000 * run).await?;
        let (tallies, _) = run_players(players, server.cpu(), phase, Counting::NONE).await?;
        tallies.into_iter().for_each(|t| humans_alone.add(t));

        let mut players = paced_humans(server.addr, 20_000 + 1_000 * run).await?;
        let mut kinds = vec![None; players.len()];
        for (kind, rooms) in [
            (Kind::TicTacToe, 50),
            (Kind::ConnectFour, 20),
            (Kind::Gomoku, 20),
        ] {
            for r in 0..rooms {
                players.push(ai_room(server.addr, kind, 30_000 + 1_000 * run + r).await?);
                kinds.push(Some(kind));
            }
        }
        let (tallies, _) = run_players(players, server.cpu(), phase, Counting::NONE).await?;
        let mut by_kind: HashMap<Option<Kind>, Tally> = HashMap::new();
        for (kind, tally) in kinds.into_iter().zip(tallies) {
            by_kind.entry(kind).or_default().add(tally);
        }
        let mut humans = by_kind
            .get(&None)
            .map(|t| t.round_trips.clone())
            .unwrap_or_default();
        let mut alone = humans_alone.round_trips;
        runs.push([
            percentile(&mut alone, 0.5),
            percentile(&mut alone, 0.99),
            percentile(&mut humans, 0.5),
            percentile(&mut humans, 0.99),
        ]);
        alone_trips.extend(alone);
        for (kind, tally) in by_kind {
            beside.entry(kind).or_default().add(tally);
        }
    }
    println!("| load | kind | replies | p50 | p99 |");
    println!("|---|---|---|---|---|");
    for (kind, mut replies) in alone_replies {
        print_ai("alone", kind, &mut replies);
    }
    for kind in [Kind::TicTacToe, Kind::ConnectFour, Kind::Gomoku] {
        let mut t = beside.remove(&Some(kind)).unwrap_or_default();
        print_ai("50 human + 50/20/20 AI rooms", kind, &mut t.ai_replies);
    }
    println!();
    println!(
        "## 50 human tic-tac-toe games (same thinking time): move round trip alone, then beside the AI rooms"
    );
    println!();
    println!("| run | alone p50 | alone p99 | beside p50 | beside p99 | p99 ratio |");
    println!("|---|---|---|---|---|---|");
    let ratio =
        |alone: Duration, beside: Duration| beside.as_secs_f64() / alone.as_secs_f64().max(1e-9);
    let mut ratios = Vec::new();
    for (run, [a50, a99, b50, b99]) in runs.into_iter().enumerate() {
        ratios.push(ratio(a99, b99));
        println!(
            "| {} | {} | {} | {} | {} | {:.2} |",
            run + 1,
            ms(a50),
            ms(a99),
            ms(b50),
            ms(b99),
            ratio(a99, b99)
        );
    }
    ratios.sort_by(f64::total_cmp);
    let mut beside_trips = beside.remove(&None).unwrap_or_default().round_trips;
    let (a99, b99) = (
        percentile(&mut alone_trips, 0.99),
        percentile(&mut beside_trips, 0.99),
    );
    println!(
        "| all {repeat}, pooled | {} | {} | {} | {} | {:.2} (median of the runs {:.2}) |",
        ms(percentile(&mut alone_trips, 0.5)),
        ms(a99),
        ms(percentile(&mut beside_trips, 0.5)),
        ms(b99),
        ratio(a99, b99),
        ratios[ratios.len() / 2],
    );
    Ok(())
}

/// The bare relay's CPU per move with 50 and 500 pairs playing as fast as it answers,
/// `repeat` runs of each: the floor under the human rows' figures.
async fn floor(relay: &Server, phase: Duration, repeat: usize) -> anyhow::Result<()> {
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
struct FloorRun {
    moves_per_s: f64,
    /// The relay's CPU.
    cpu_us: f64,
    /// Its user-space part.
    user_us: f64,
    /// The clients' CPU (this process).
    clients_us: f64,
}

/// `pairs` pairs playing through the relay as fast as it answers, measured for `phase`
/// after a second's warm-up; `key` numbers the pairs (the relay pairs two connections by
/// it) and is advanced past them.
async fn floor_run(
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
async fn wait_for_quiet(relay: &Server, limit_us: f64) -> anyhow::Result<()> {
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

/// 50 human tic-tac-toe games whose players think [`THINK`] before each move.
async fn paced_humans(addr: SocketAddr, seed: u64) -> anyhow::Result<Vec<Player>> {
    let mut players = Vec::new();
    for g in 0..50 {
        for mut p in human_pair(addr, Kind::TicTacToe, 2, seed + 2 * g).await? {
            p.think = THINK;
            players.push(p);
        }
    }
    Ok(players)
}

fn print_ai(load: &str, kind: Kind, replies: &mut [Duration]) {
    println!(
        "| {load} | {kind:?} | {} | {} | {} |",
        replies.len(),
        ms(percentile(replies, 0.5)),
        ms(percentile(replies, 0.99)),
    );
}

/// RSS with no connection, with 10,000 idle ones (after `hello`), and after they close.
async fn memory(server: &Server) -> anyhow::Result<()> {
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
async fn wait_for_fds(server: &Server, fds: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.fds() > fds && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
