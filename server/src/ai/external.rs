//! External Gomocup engines as AI seats: the engines the host names, what each plays (asked
//! once at start-up), and a bounded pool of processes per engine that answer seats' moves.
//!
//! A process answers one move at a time and is shown the whole board each time (BOARD),
//! so any idle process of an engine can serve any seat of any room: processes are reused
//! between moves, seats and games, at most [`EngineLimits::processes`] alive per engine.
//! Everything a process writes is untrusted: a move is played only if it is on the board
//! and legal, and an engine that crashes, refuses, answers nonsense or overruns its time
//! by more than [`EngineLimits::margin`] is killed; the caller (`ai::run_seat`) then lets
//! inarow's own AI answer, and the room hands the seat to it for good.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use inarow_engine::{GameStatus, Move, Position, Rules};
use inarow_pbrain::child::{Child, ChildError};
use inarow_pbrain::command::Point;
use inarow_protocol::{EngineInfo, EngineName, ErrorCode};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::refusal::Refusal;

/// Stones in a row the Gomocup protocol plays: five.
const GOMOCUP_K: u32 = 5;

/// The smallest square board probed: five in a row needs five cells.
const SMALLEST_SIDE: u32 = 5;

/// How long an ending engine is given to exit after `END` before it is killed.
const END_GRACE: Duration = Duration::from_millis(200);

/// How often a move in progress looks at its job's cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// An engine the host offers: `NAME=PATH` on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name players choose it by.
    pub name: EngineName,
    /// Its executable.
    pub path: PathBuf,
}

impl FromStr for EngineSpec {
    type Err = String;

    /// Reads `NAME=PATH`.
    fn from_str(text: &str) -> Result<EngineSpec, String> {
        let (name, path) = text
            .split_once('=')
            .ok_or_else(|| format!("{text:?}: expected NAME=PATH"))?;
        let name = EngineName::new(name.trim()).map_err(|e| format!("{name:?}: {e}"))?;
        if path.is_empty() {
            return Err(format!("{text:?}: the path is empty"));
        }
        Ok(EngineSpec {
            name,
            path: PathBuf::from(path),
        })
    }
}

/// How the server runs external engines' processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineLimits {
    /// Processes alive at once per engine (busy or idle). Moves beyond wait for one (up to
    /// `start_timeout`, then the engine counts as failed); the AI pool's search slots
    /// (`ai_threads`) bound the busy ones too.
    pub processes: usize,
    /// Memory an engine is told it may use (`INFO max_memory`), in bytes. The protocol
    /// leaves keeping to it to the engine.
    pub memory: u64,
    /// How much later than its move time an answer may come (pipes, process scheduling)
    /// before the engine counts as stalled and is killed.
    pub margin: Duration,
    /// How long an engine may take to start and answer `START` (some load files first).
    pub start_timeout: Duration,
}

impl Default for EngineLimits {
    fn default() -> Self {
        EngineLimits {
            processes: 4,
            memory: 256 * 1024 * 1024,
            margin: Duration::from_millis(500),
            start_timeout: Duration::from_secs(10),
        }
    }
}

/// Why an engine's move was not played.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The process failed: could not start, crashed, refused, answered nonsense or late.
    #[error(transparent)]
    Child(#[from] ChildError),
    /// It answered a point off the board.
    #[error("it played {0}, off the board")]
    OffBoard(Point),
    /// It answered a cell that is occupied (or otherwise not a legal move).
    #[error("it played {0}, which is not a legal move")]
    Illegal(Point),
    /// No process of it came free within `start_timeout`.
    #[error("none of its processes came free in time")]
    Busy,
    /// The engine is not offered (any more): a room restored after a restart without it.
    #[error("the server does not offer it")]
    NotOffered,
    /// The position has no move due (the game is over): nothing was asked.
    #[error("no move was due")]
    NoMoveDue,
}

/// The external engines of one server, as probed at start-up.
#[derive(Default)]
pub(crate) struct Engines {
    list: Vec<Arc<External>>,
}

impl Engines {
    /// Starts each engine of `specs` and asks which boards it plays; engines that fail
    /// are left out, with a warning in the log.
    pub(crate) async fn probe(specs: &[EngineSpec], limits: &EngineLimits) -> Engines {
        let probes = specs.iter().map(|spec| async move {
            match probe(spec, limits).await {
                Ok(external) => {
                    tracing::info!(
                        engine = %spec.name,
                        path = %spec.path.display(),
                        about = %external.info.about,
                        sides = ?external.info.sides,
                        rectangles = external.info.rectangles,
                        "external engine ready"
                    );
                    Some(Arc::new(external))
                }
                Err(reason) => {
                    tracing::warn!(
                        engine = %spec.name,
                        path = %spec.path.display(),
                        %reason,
                        "external engine left out"
                    );
                    None
                }
            }
        });
        let list = futures_util::future::join_all(probes)
            .await
            .into_iter()
            .flatten()
            .collect();
        Engines { list }
    }

    /// What `list_engines` answers.
    pub(crate) fn infos(&self) -> Vec<EngineInfo> {
        self.list.iter().map(|e| e.info.clone()).collect()
    }

    /// The engine called `name`.
    pub(crate) fn get(&self, name: EngineName) -> Option<&Arc<External>> {
        self.list.iter().find(|e| e.info.name == name)
    }

    /// Whether a seat may be given engine `name` in a room of `rules`.
    ///
    /// # Errors
    /// `bad_request` for an engine the server does not offer, `invalid_rules` for one
    /// that does not play these rules.
    pub(crate) fn check(&self, name: EngineName, rules: Rules) -> Result<(), Refusal> {
        let external = self.get(name).ok_or_else(|| {
            Refusal::new(
                ErrorCode::BadRequest,
                format!("no engine {name} here (list_engines lists them)"),
            )
        })?;
        let info = &external.info;
        if info.plays(rules.width(), rules.height(), rules.k(), rules.gravity()) {
            Ok(())
        } else {
            Err(Refusal::new(
                ErrorCode::InvalidRules,
                format!(
                    "{name} plays five in a row without gravity on boards of sides {:?}{}",
                    info.sides,
                    if info.rectangles {
                        " (rectangles too)"
                    } else {
                        ""
                    }
                ),
            ))
        }
    }

    /// Ends every idle process (at shutdown); busy ones die with their jobs.
    pub(crate) async fn close(&self) {
        for external in &self.list {
            let idle = std::mem::take(&mut *external.lock_idle());
            for process in idle {
                process.child.end(END_GRACE).await;
            }
        }
    }
}

/// One engine: what it plays and its processes.
pub(crate) struct External {
    info: EngineInfo,
    path: PathBuf,
    limits: EngineLimits,
    /// Processes waiting for a move, the most recently used last.
    idle: Mutex<Vec<Process>>,
    /// One permit per live process, so at most [`EngineLimits::processes`] live.
    live: Arc<Semaphore>,
    /// Woken when a process goes idle or dies, for moves waiting for one.
    freed: Notify,
}

/// A live process and the board it last started.
struct Process {
    child: Child,
    board: (u32, u32),
    /// Its place among the engine's live processes, given back when it dies.
    _live: OwnedSemaphorePermit,
}

/// A move asked of an engine.
pub(crate) struct Ask<'a> {
    /// The position; the engine plays the side to move.
    pub(crate) position: &'a Position,
    /// Its time for this move (the AI pool's share of the server's AI move time).
    pub(crate) turn: Duration,
    /// Time left on the seat's clock for the rest of the game, once rooms have clocks:
    /// sent as `INFO time_left`. `None` (today) tells the engine its time is unbounded
    /// apart from `turn`.
    pub(crate) time_left: Option<Duration>,
    /// The room's flag to stop the job: the room no longer waits for this move.
    pub(crate) cancel: &'a AtomicBool,
}

impl External {
    /// Asks a process for its move; `Ok(None)` if the job was cancelled meanwhile (the
    /// process is then killed, as it may still be thinking). A process that fails is
    /// killed; one that answers goes back to the idle list.
    ///
    /// # Errors
    /// [`Failure`]: what went wrong, for the log and the room.
    pub(crate) async fn play(&self, ask: Ask<'_>) -> Result<Option<Move>, Failure> {
        let cancelled = async {
            while !ask.cancel.load(Ordering::Relaxed) {
                tokio::time::sleep(CANCEL_POLL).await;
            }
        };
        tokio::select! {
            played = self.play_uncancelled(&ask) => played.map(Some),
            // Dropping the move drops its process, which kills it.
            () = cancelled => Ok(None),
        }
    }

    async fn play_uncancelled(&self, ask: &Ask<'_>) -> Result<Move, Failure> {
        let position = ask.position;
        let rules = position.rules();
        let GameStatus::InProgress { to_move } = position.status() else {
            // The pool never asks in a finished game; if it did, nobody should move.
            return Err(Failure::NoMoveDue);
        };
        // Waiting for a process is not the engine's time: its moves elsewhere end within
        // their own deadlines, so a wait this long means something is stuck.
        let mut process = self
            .checkout(rules, Instant::now() + self.limits.start_timeout)
            .await?;
        let answer = async {
            let board = (rules.width(), rules.height());
            if process.board != board {
                process
                    .child
                    .start(board.0, board.1, self.limits.start_timeout)
                    .await?;
                process.board = board;
            }
            let turn = millis(ask.turn);
            let left = ask.time_left.map_or(i32::MAX as u64, millis);
            let infos = format!(
                "INFO timeout_turn {turn}\nINFO timeout_match 0\nINFO time_left {left}\n\
                 INFO max_memory {}\nINFO thread_num 1\nINFO rule 0\nINFO game_type 0",
                self.limits.memory
            );
            process.child.send(&infos).await?;
            // The engine's time starts once it has the board.
            let within = ask.turn + self.limits.margin;
            process.child.ask_move(position, to_move, within).await
        };
        let point = match answer.await {
            Ok(point) => point,
            Err(e) => {
                process.child.kill().await;
                self.freed.notify_one();
                return Err(e.into());
            }
        };
        let legal = point
            .cell(rules)
            .ok_or(Failure::OffBoard(point))
            .and_then(|cell| {
                let mv = Move::Cell(cell);
                if position.legal_moves().contains(&mv) {
                    Ok(mv)
                } else {
                    Err(Failure::Illegal(point))
                }
            });
        match legal {
            Ok(mv) => {
                self.lock_idle().push(process);
                self.freed.notify_one();
                Ok(mv)
            }
            Err(e) => {
                process.child.kill().await;
                self.freed.notify_one();
                Err(e)
            }
        }
    }

    /// An idle process (one already on this board if any), or a new one while fewer than
    /// the limit live, or the first to come free before `deadline`.
    async fn checkout(&self, rules: Rules, deadline: Instant) -> Result<Process, Failure> {
        let board = (rules.width(), rules.height());
        loop {
            // Registered before looking, so a process freed in between still wakes us.
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            {
                let mut idle = self.lock_idle();
                let same = idle.iter().rposition(|p| p.board == board);
                if let Some(i) = same.or_else(|| idle.len().checked_sub(1)) {
                    return Ok(idle.swap_remove(i));
                }
            }
            if let Ok(permit) = self.live.clone().try_acquire_owned() {
                let started = async {
                    let mut child = Child::spawn(&self.path)?;
                    child
                        .start(board.0, board.1, self.limits.start_timeout)
                        .await?;
                    Ok::<_, ChildError>(child)
                };
                return match started.await {
                    Ok(child) => Ok(Process {
                        child,
                        board,
                        _live: permit,
                    }),
                    Err(e) => {
                        // The place is free again (the child, if any, died with its
                        // handle): wake a move waiting for one.
                        drop(permit);
                        self.freed.notify_one();
                        Err(e.into())
                    }
                };
            }
            if tokio::time::timeout_at(deadline, freed).await.is_err() {
                return Err(Failure::Busy);
            }
        }
    }

    fn lock_idle(&self) -> std::sync::MutexGuard<'_, Vec<Process>> {
        // Pushes and pops only: a panic cannot leave the list half-changed.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Starts the engine of `spec`, reads its ABOUT line and tries `START` on every square
/// side inarow plays, then one rectangle; the process stays as the engine's first idle one.
async fn probe(spec: &EngineSpec, limits: &EngineLimits) -> Result<External, String> {
    let live = Arc::new(Semaphore::new(limits.processes.max(1)));
    let permit = live
        .clone()
        .try_acquire_owned()
        .map_err(|e| e.to_string())?;
    let mut child = Child::spawn(&spec.path).map_err(|e| e.to_string())?;
    let about = match child.about(limits.start_timeout).await {
        Ok(line) => line,
        // ABOUT is optional in practice: an engine that refuses it may still play.
        Err(ChildError::Refused(_) | ChildError::Garbage(_)) => String::new(),
        Err(e) => return Err(format!("ABOUT: {e}")),
    };
    let mut sides = Vec::new();
    for side in SMALLEST_SIDE..=Rules::MAX_SIDE {
        match child.start(side, side, limits.start_timeout).await {
            Ok(()) => sides.push(side),
            Err(ChildError::Refused(_)) => {}
            Err(e) => return Err(format!("START {side}: {e}")),
        }
    }
    let (Some(&low), Some(&high)) = (sides.first(), sides.last()) else {
        return Err("it refused every board from 5×5 to 19×19".to_owned());
    };
    let mut rectangles = false;
    if low < high {
        match child.start(high, low, limits.start_timeout).await {
            Ok(()) => rectangles = true,
            Err(ChildError::Refused(_)) => {}
            Err(e) => return Err(format!("RECTSTART {high},{low}: {e}")),
        }
    }
    // Only freestyle is played today (`INFO rule 0`, sent before every move); when inarow
    // offers other rules, ask here which the engine accepts.
    let info = EngineInfo {
        name: spec.name,
        about: about.chars().take(200).collect(),
        k: GOMOCUP_K,
        sides,
        rectangles,
    };
    // After a refused START an engine may hold no board at all: the first move starts
    // one whatever the board.
    let idle = Process {
        child,
        board: (0, 0),
        _live: permit,
    };
    Ok(External {
        info,
        path: spec.path.clone(),
        limits: limits.clone(),
        idle: Mutex::new(vec![idle]),
        live,
        freed: Notify::new(),
    })
}

fn millis(time: Duration) -> u64 {
    u64::try_from(time.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_name_equals_path() {
        let spec: EngineSpec = "rapfi=/opt/rapfi/pbrain-rapfi".parse().unwrap();
        assert_eq!(spec.name.as_str(), "rapfi");
        assert_eq!(spec.path, PathBuf::from("/opt/rapfi/pbrain-rapfi"));
        for bad in ["rapfi", "=x", "a b=x", "rapfi="] {
            assert!(bad.parse::<EngineSpec>().is_err(), "{bad}");
        }
    }
}
