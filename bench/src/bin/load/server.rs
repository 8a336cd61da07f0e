//! A server child as the parent sees it: started (under callgrind if asked), its CPU time,
//! memory and file descriptors read from `/proc`, its system calls counted with `perf`.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, anyhow};

/// The server child process.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: SocketAddr,
    /// Clock ticks per second of `/proc/PID/stat`.
    pub(crate) ticks: f64,
}

impl Server {
    /// Starts `exe serve` (this binary, or another build of it), under callgrind if asked
    /// (which counts its instructions, [`Cpu::counts`]).
    pub(crate) fn start(
        exe: &Path,
        data: Option<&str>,
        callgrind: Option<Callgrind<'_>>,
    ) -> anyhow::Result<Server> {
        Server::spawn(exe, "serve", data, callgrind)
    }

    /// Starts `exe relay`, the bare relay of `--floor`.
    pub(crate) fn start_relay(exe: &Path) -> anyhow::Result<Server> {
        Server::spawn(exe, "relay", None, None)
    }

    /// Starts `exe mode`.
    pub(crate) fn spawn(
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
    pub(crate) fn cpu(&self) -> Cpu {
        Cpu {
            pid: self.child.id(),
            ticks: self.ticks,
        }
    }

    /// A line of `/proc/PID/status`, in KiB.
    pub(crate) fn status_kib(&self, key: &str) -> anyhow::Result<u64> {
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
    pub(crate) fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id())).map_or(0, Iterator::count)
    }
}

/// Reads a process's CPU time.
#[derive(Clone, Copy)]
pub(crate) struct Cpu {
    pub(crate) pid: u32,
    /// Clock ticks per second of `/proc/PID/stat`.
    pub(crate) ticks: f64,
}

impl Cpu {
    /// The same reader for this process: the load clients, who share the server's cores.
    pub(crate) fn this_process(self) -> Cpu {
        Cpu {
            pid: std::process::id(),
            ticks: self.ticks,
        }
    }

    /// Context switches of all the process's threads so far (voluntary ones are mostly a
    /// thread going to sleep for want of work, and waking costs as much again).
    pub(crate) fn switches(self) -> u64 {
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
    pub(crate) fn counts(self, misses: bool) -> anyhow::Result<Counted> {
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
    pub(crate) fn dump(self, label: &str) -> anyhow::Result<()> {
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
    pub(crate) fn read(self) -> anyhow::Result<Duration> {
        self.read_split().map(CpuTime::total)
    }

    /// The CPU time the process has used, in user space and in the kernel apart.
    pub(crate) fn read_split(self) -> anyhow::Result<CpuTime> {
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
pub(crate) struct CpuTime {
    pub(crate) user: Duration,
    pub(crate) system: Duration,
}

impl CpuTime {
    /// User and system time together.
    pub(crate) fn total(self) -> Duration {
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

/// What the server used over a measured window.
pub(crate) struct Window {
    pub(crate) cpu: CpuTime,
    /// What the load clients (this process) used meanwhile, on the same cores.
    pub(crate) clients: CpuTime,
    /// Context switches of its threads.
    pub(crate) switches: u64,
    /// System calls, when counted (`--syscalls`).
    pub(crate) syscalls: Option<Syscalls>,
    /// User-space instructions and cache misses, when counted (`--callgrind`).
    pub(crate) counted: Option<Counted>,
}

/// What callgrind counted of a server's user space.
#[derive(Clone, Copy)]
pub(crate) struct Counted {
    pub(crate) instructions: u64,
    /// Last-level data misses, reads and writes (`--cache-sim`).
    pub(crate) misses: Option<u64>,
}

/// How a server runs under callgrind.
#[derive(Clone, Copy)]
pub(crate) struct Callgrind<'a> {
    /// Where its profile goes.
    pub(crate) profile: &'a str,
    /// Whether the caches are simulated (`--cache-sim`).
    pub(crate) cache_sim: bool,
}

/// System calls counted over a window: all of them, and the socket writes and reads
/// among them (counts that do not depend on the machine's speed or load).
#[derive(Clone, Copy)]
pub(crate) struct Syscalls {
    pub(crate) all: f64,
    /// `sendto` and `writev`: one per write of a connection's queued frames (the server
    /// writes its frames with `writev`, tungstenite and the floor's relay with `sendto`).
    pub(crate) sends: f64,
    /// `recvfrom`: one per read of a connection's socket.
    pub(crate) reads: f64,
}

impl Syscalls {
    /// These counts, each divided by `n`.
    pub(crate) fn per(self, n: f64) -> Syscalls {
        Syscalls {
            all: self.all / n,
            sends: self.sends / n,
            reads: self.reads / n,
        }
    }
}

/// Which of the server's costs are counted beyond CPU time and context switches.
#[derive(Clone, Copy)]
pub(crate) struct Counting {
    /// System calls, with `perf stat` attached to the server for the window.
    pub(crate) syscalls: bool,
    /// User-space instructions, with the servers run under callgrind (`--callgrind`): a
    /// count that neither the machine's load nor its caches change, for comparing builds'
    /// own work. The servers run tens of times slower, so their CPU times say nothing.
    pub(crate) callgrind: bool,
    /// Last-level cache misses too, with callgrind simulating the caches (`--cache-sim`).
    pub(crate) cache_sim: bool,
    /// Whether a kept profile (`--callgrind-out`) has each measured window as a part of
    /// its own (`callgrind_control --dump` at its ends), apart from the connections'
    /// setup and the warm-up, which would otherwise be most of what it shows.
    pub(crate) window_parts: bool,
}

impl Counting {
    /// CPU time and context switches only: what the AI phases read.
    pub(crate) const NONE: Counting = Counting {
        syscalls: false,
        callgrind: false,
        cache_sim: false,
        window_parts: false,
    };
}

/// The tracepoints `perf stat` counts, in the order of [`Syscalls`]' fields.
/// (`sends` is the second and the fourth together).
pub(crate) const SYSCALL_EVENTS: [&str; 4] = [
    "raw_syscalls:sys_enter",
    "syscalls:sys_enter_sendto",
    "syscalls:sys_enter_recvfrom",
    "syscalls:sys_enter_writev",
];

/// `perf stat` counting a process's system calls until stopped.
pub(crate) struct SyscallCount {
    pub(crate) child: Child,
    pub(crate) out: std::path::PathBuf,
}

impl SyscallCount {
    pub(crate) fn start(pid: u32) -> anyhow::Result<SyscallCount> {
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
    pub(crate) fn stop(mut self) -> anyhow::Result<Syscalls> {
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
