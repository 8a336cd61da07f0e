//! A Gomocup engine as a tokio child process, driven as a manager drives it, for programs
//! that must never hang on one: every answer is awaited against a deadline, a line is read
//! only up to [`MAX_LINE`] bytes, and the process is killed when its handle is dropped
//! (`kill_on_drop`), so a crashed, stalled or babbling engine costs a deadline, never a
//! task or a zombie.
//!
//! Whatever the engine writes is untrusted: its lines go through [`manager::answer`], a
//! move is only a [`Point`] until the caller checks it against the board.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use inarow_engine::{Player as Side, Position};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::time::{Instant, timeout_at};

use crate::command::Point;
use crate::manager::{self, Answer};

/// The longest answer line read; a longer one is garbage (no answer of the protocol comes
/// near it), and reading stops there so that an engine cannot fill the manager's memory.
pub const MAX_LINE: usize = 4096;

/// The least time between an engine's answer and the next move asked of it: Rapfi, sent
/// a command at once after an answer, now and then took it for input to its search (see
/// the match runner's `ENGINE_GAP`). Pooled processes may be asked again at once.
pub const ENGINE_GAP: Duration = Duration::from_millis(100);

/// Why an engine gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// The engine could not be started.
    #[error("cannot start {path}: {source}")]
    Spawn {
        /// The executable.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Writing to or reading from the engine failed.
    #[error("engine i/o: {0}")]
    Io(#[from] io::Error),
    /// No answer within the time allowed.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The engine closed its output: it exited or crashed.
    #[error("the engine exited")]
    Exited,
    /// The engine answered `ERROR` or `UNKNOWN`.
    #[error("the engine refused: {0:?}")]
    Refused(String),
    /// The engine answered something else than the answer due.
    #[error("unexpected answer {0:?}")]
    Garbage(String),
    /// The engine wrote a line longer than [`MAX_LINE`].
    #[error("an answer line longer than {MAX_LINE} bytes")]
    LineTooLong,
}

/// An engine process and its pipes.
#[derive(Debug)]
pub struct Child {
    process: tokio::process::Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The line being read, kept between reads.
    line: Vec<u8>,
    /// When the engine last answered, for [`ENGINE_GAP`].
    answered: Option<Instant>,
}

impl Child {
    /// Starts the engine at `path` in its own directory (engines look for their files
    /// beside them), its stderr dropped. The process dies with the handle.
    ///
    /// # Errors
    /// [`ChildError::Spawn`] when it cannot be started.
    pub fn spawn(path: &Path) -> Result<Child, ChildError> {
        // A relative path would be read from the engine's directory once the child starts
        // there; a bare name found on PATH has no file here and stays as it is.
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut command = Command::new(&path);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            command.current_dir(dir);
        }
        let spawned = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn();
        let mut process = spawned.map_err(|source| ChildError::Spawn {
            path: path.clone(),
            source,
        })?;
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err(ChildError::Spawn {
                path,
                source: io::Error::other("no pipes to the engine"),
            });
        };
        Ok(Child {
            process,
            stdin,
            stdout: BufReader::new(stdout),
            line: Vec::new(),
            answered: None,
        })
    }

    /// The process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.process.id()
    }

    /// Writes `lines` (one command, or a block such as BOARD's) and a line end.
    ///
    /// # Errors
    /// [`ChildError::Io`] when the engine no longer reads.
    pub async fn send(&mut self, lines: &str) -> Result<(), ChildError> {
        self.stdin.write_all(lines.as_bytes()).await?;
        self.stdin.write_all(b"\n").await?;
        self.stdin.flush().await?;
        Ok(())
    }

    /// Reads one line, at most [`MAX_LINE`] bytes of it.
    async fn read_line(&mut self) -> Result<String, ChildError> {
        loop {
            let buf = self.stdout.fill_buf().await?;
            if buf.is_empty() {
                return Err(ChildError::Exited);
            }
            let (take, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(end) => (end, true),
                None => (buf.len(), false),
            };
            if self.line.len() + take > MAX_LINE {
                return Err(ChildError::LineTooLong);
            }
            self.line.extend_from_slice(&buf[..take]);
            self.stdout.consume(if done { take + 1 } else { take });
            if done {
                let line = String::from_utf8_lossy(&self.line).into_owned();
                self.line.clear();
                return Ok(line);
            }
        }
    }

    /// The next answer that is not ignored nor a `MESSAGE`, by `deadline`.
    ///
    /// # Errors
    /// [`ChildError::Timeout`] past the deadline, [`ChildError::Refused`] for `ERROR` or
    /// `UNKNOWN`, the others as they come.
    pub async fn answer(&mut self, deadline: Instant) -> Result<Answer, ChildError> {
        let allowed = deadline.saturating_duration_since(Instant::now());
        let read = async {
            loop {
                match manager::answer(&self.read_line().await?) {
                    Answer::Ignored | Answer::Message(_) => {}
                    Answer::Refused(line) => return Err(ChildError::Refused(line)),
                    answer => return Ok(answer),
                }
            }
        };
        let answer = timeout_at(deadline, read)
            .await
            .map_err(|_| ChildError::Timeout(allowed))?;
        self.answered = Some(Instant::now());
        answer
    }

    /// Starts a game on a `width` × `height` board (START or RECTSTART) and waits for `OK`.
    ///
    /// # Errors
    /// [`ChildError::Refused`] when the engine does not play that board; the others as
    /// [`Child::answer`].
    pub async fn start(
        &mut self,
        width: u32,
        height: u32,
        within: Duration,
    ) -> Result<(), ChildError> {
        self.send(&manager::start_size(width, height)).await?;
        match self.answer(Instant::now() + within).await? {
            Answer::Ok => Ok(()),
            other => Err(ChildError::Garbage(format!("{other:?}"))),
        }
    }

    /// Sends ABOUT and returns the engine's line (its name, version, author).
    ///
    /// # Errors
    /// As [`Child::answer`].
    pub async fn about(&mut self, within: Duration) -> Result<String, ChildError> {
        self.send("ABOUT").await?;
        match self.answer(Instant::now() + within).await? {
            Answer::Other(line) => Ok(line),
            other => Err(ChildError::Garbage(format!("{other:?}"))),
        }
    }

    /// Shows the engine `position` (BEGIN, or a BOARD block with its own stones as
    /// `side`'s) and waits for its move, `within` from when the board is sent (after the
    /// [`ENGINE_GAP`], which is not the engine's time). The move is only read: whether it
    /// is on the board and empty is the caller's to check.
    ///
    /// # Errors
    /// [`ChildError::Garbage`] for an answer that is not a move; the others as
    /// [`Child::answer`].
    pub async fn ask_move(
        &mut self,
        position: &Position,
        side: Side,
        within: Duration,
    ) -> Result<Point, ChildError> {
        if let Some(answered) = self.answered {
            tokio::time::sleep_until(answered + ENGINE_GAP).await;
        }
        let deadline = Instant::now() + within;
        let command = manager::board_command(position, side);
        // A stalled engine that no longer reads could leave a write waiting forever once
        // the pipe is full: the deadline covers the write too.
        let allowed = deadline.saturating_duration_since(Instant::now());
        timeout_at(deadline, self.send(&command))
            .await
            .map_err(|_| ChildError::Timeout(allowed))??;
        match self.answer(deadline).await? {
            Answer::Move(point) => Ok(point),
            other => Err(ChildError::Garbage(format!("{other:?}"))),
        }
    }

    /// Ends the engine as managers do: `END`, a moment to exit, then a kill; the process
    /// is waited for, so it leaves no zombie.
    pub async fn end(mut self, grace: Duration) {
        let _ = tokio::time::timeout(grace, self.send("END")).await;
        if tokio::time::timeout(grace, self.process.wait())
            .await
            .is_err()
        {
            self.kill().await;
        }
    }

    /// Kills the engine at once and waits for it.
    pub async fn kill(mut self) {
        let _ = self.process.kill().await;
    }
}
