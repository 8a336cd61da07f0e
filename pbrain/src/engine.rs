//! Another Gomocup engine driven as a child process over its stdin and stdout, as a
//! manager drives it: commands written a line at a time, answers read with a deadline.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use crate::command::{self, Point};
use crate::manager::{self, Answer};

/// Why an engine gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine could not be started or written to.
    #[error("engine i/o: {0}")]
    Io(#[from] io::Error),
    /// No answer within the deadline.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The engine closed its output (it exited or crashed).
    #[error("the engine exited")]
    Exited,
    /// The engine answered `ERROR` (or `UNKNOWN`) to a command.
    #[error("the engine answered {0:?}")]
    Refused(String),
    /// The engine answered something that is not a move where a move was due.
    #[error("not a move: {0:?}")]
    NotAMove(String),
}

/// An engine process.
#[derive(Debug)]
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    /// Lines of its stdout, read by a thread of their own so that a read can time out.
    lines: Receiver<String>,
    /// The `MESSAGE` lines it wrote since the last move, for whoever wants its view.
    messages: Vec<String>,
}

impl Engine {
    /// Starts the engine at `path` in its own directory (engines look for their files
    /// beside them); its stderr is dropped.
    ///
    /// # Errors
    /// [`EngineError::Io`] when it cannot be started.
    pub fn spawn(path: &Path) -> Result<Engine, EngineError> {
        // A relative path would be read from the engine's directory once the child starts
        // there; a bare name found on PATH has no file here and stays as it is.
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut command = Command::new(&path);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            command.current_dir(dir);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(EngineError::Io(io::Error::other("no pipes to the engine")));
        };
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Engine {
            child,
            stdin,
            lines,
            messages: Vec::new(),
        })
    }

    /// Writes one command line.
    ///
    /// # Errors
    /// [`EngineError::Io`] when the engine no longer reads.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// The next line that is an answer (not `MESSAGE` or `DEBUG`, which are kept or
    /// dropped), within `timeout`.
    fn answer(&mut self, timeout: Duration) -> Result<String, EngineError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(EngineError::Timeout(timeout)),
                Err(RecvTimeoutError::Disconnected) => return Err(EngineError::Exited),
            };
            match manager::answer(&line) {
                Answer::Ignored => {}
                Answer::Message(message) => self.messages.push(message),
                Answer::Refused(line) => return Err(EngineError::Refused(line)),
                _ => return Ok(line.trim().to_owned()),
            }
        }
    }

    /// Waits for `OK` (after START, RECTSTART or RESTART).
    ///
    /// # Errors
    /// Whatever came instead, or nothing within `timeout`.
    pub fn expect_ok(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let line = self.answer(timeout)?;
        if line.to_ascii_uppercase().starts_with("OK") {
            Ok(())
        } else {
            Err(EngineError::Refused(line))
        }
    }

    /// Waits for a move, `x,y`, within `timeout`.
    ///
    /// # Errors
    /// [`EngineError::NotAMove`] for another answer; the others as [`Engine::expect_ok`].
    pub fn read_move(&mut self, timeout: Duration) -> Result<Point, EngineError> {
        let line = self.answer(timeout)?;
        command::point(&line).ok_or(EngineError::NotAMove(line))
    }

    /// Sends ABOUT and returns the engine's line (its name, version, author).
    ///
    /// # Errors
    /// As [`Engine::read_move`].
    pub fn about(&mut self, timeout: Duration) -> Result<String, EngineError> {
        self.send("ABOUT")?;
        self.answer(timeout)
    }

    /// The `MESSAGE` lines written since the last call, oldest first.
    pub fn take_messages(&mut self) -> Vec<String> {
        std::mem::take(&mut self.messages)
    }
}

impl Drop for Engine {
    /// Sends END and gives the engine a moment to exit, as managers do, then kills it.
    fn drop(&mut self) {
        let _ = self.send("END");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
