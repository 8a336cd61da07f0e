//! The `inarow` binary run in plain mode by the client's end-to-end tests: piped stdin,
//! stdout read line by line on a thread, every read under [`WAIT`].

#![allow(dead_code)] // each test file uses its own part of it

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Upper bound for any single expected line; generous because CI machines are slow.
pub const WAIT: Duration = Duration::from_secs(20);

/// The `inarow` binary in plain mode, its stdout read line by line on a thread.
pub struct Terminal {
    /// The player's name, for failure messages.
    pub name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line read so far, printed when a wait fails.
    pub seen: Vec<String>,
}

impl Terminal {
    pub fn spawn(name: &str, args: &[&str]) -> Terminal {
        let mut child = Command::new(env!("CARGO_BIN_EXE_inarow"))
            .args(["--plain", "--name", name])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the inarow binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Terminal {
            name: name.to_owned(),
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").expect("write to the client");
        stdin.flush().expect("flush to the client");
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or a panic with everything seen so far.
    pub fn next_line(&mut self, deadline: Instant) -> String {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => {
                self.seen.push(line.clone());
                line
            }
            Err(e) => panic!(
                "{}: no line within the timeout ({e}); output so far:\n{}",
                self.name,
                self.seen.join("\n")
            ),
        }
    }

    /// Reads until a line satisfies `pred` and returns it.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let line = self.next_line(deadline);
            assert!(
                !line.starts_with("fatal:"),
                "{}: fatal while waiting for {what}:\n{}",
                self.name,
                self.seen.join("\n")
            );
            if pred(&line) {
                return line;
            }
        }
    }

    /// Waits for the process to end.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let (tx, rx) = mpsc::channel();
        let mut child = std::mem::replace(
            &mut self.child,
            Command::new("true").spawn().expect("a placeholder process"),
        );
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        rx.recv_timeout(WAIT)
            .expect("the client exits in time")
            .expect("wait for the client")
    }

    /// Every line still to come until the process closes stdout.
    pub fn rest(&mut self) -> Vec<String> {
        let deadline = Instant::now() + WAIT;
        let mut out = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.seen.push(line.clone());
            out.push(line);
        }
        out
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server running on its own runtime for the length of a test, on a loopback port, with
/// AI seats that answer at once (no pacing) and think for at most 300 ms.
pub struct Server {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    /// The runtime it runs on, for tests that speak to it directly.
    pub runtime: tokio::runtime::Runtime,
    shutdown: tokio_util::sync::CancellationToken,
}

impl Server {
    /// Starts a server with the test configuration.
    pub fn start() -> Server {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let shutdown = tokio_util::sync::CancellationToken::new();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let config = inarow_server::Config {
            ai_pace: Duration::ZERO,
            ai_move_time: Duration::from_millis(300),
            ..inarow_server::Config::default()
        };
        runtime.spawn(inarow_server::run(listener, config, shutdown.clone()));
        Server {
            addr,
            runtime,
            shutdown,
        }
    }

    /// The server's WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
