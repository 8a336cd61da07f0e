//! Plain mode: one command per line on stdin, events as stable text lines on stdout, for
//! scripts, pipes and terminals without a screen.
//!
//! Each command waits for the server's reply to the previous one before it is sent (and
//! while the connection is down, for it to come back; `play` out of turn waits for the
//! turn), so a script can pipe several commands at once. Output lines start with a fixed word
//! (`connected`, `created`, `joined`, `room`, `seats:`, `last:`, `status:`, `chat`, `left`,
//! `rooms:`, `analysis`, `hint`, `error:`, `notice:`, `disconnected:`, `bye`, `fatal:`)
//! followed by the board rows of a room update.
//!
//! Requests, the welcome, the startup action, join-or-watch and quitting are the shared
//! core's ([`Session`]); this module reads lines and prints what happened.

mod text;

use std::collections::HashMap;
use std::time::Duration;

use inarow_protocol::{
    ClientFrame, ClientMessage, GameStatus, Level, RoomId, RoomSnapshot, ServerMessage,
};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;

pub use text::{HELP, analysis_lines, board_lines, parse_create, rooms_lines, snapshot_lines};

use crate::ClientError;
use crate::board::{self, MoveRejection};
use crate::cli::Startup;
use crate::net::{self, NetEvent};
use crate::session::{NotPlayed, Offline, Pending, Session, Update, WATCHING_INSTEAD};
use crate::words::{parse_level, parse_mark};

/// How long a request waits for its reply before the next command goes anyway.
const REPLY_WAIT: Duration = Duration::from_secs(10);
/// How long the client waits for in-flight replies after EOF or `quit`.
const CLOSING_WAIT: Duration = Duration::from_secs(10);

/// What one input line or event produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Step {
    /// Lines to print.
    pub lines: Vec<String>,
    /// Frames to send.
    pub send: Vec<ClientFrame>,
    /// Quit once in-flight replies have arrived.
    pub quit: bool,
    /// Stop now with this message (exit status 1).
    pub fatal: Option<String>,
}

impl Step {
    fn line(text: impl Into<String>) -> Step {
        Step {
            lines: vec![text.into()],
            ..Step::default()
        }
    }

    fn input_error(text: impl std::fmt::Display) -> Step {
        Step::line(format!("error: input: {text}"))
    }

    fn fatal(message: String) -> Step {
        Step {
            lines: vec![format!("fatal: {message}")],
            fatal: Some(message),
            ..Step::default()
        }
    }

    /// A step that sends `frame`, or says why it cannot.
    fn send(frame: Result<ClientFrame, Offline>) -> Step {
        match frame {
            Ok(frame) => Step {
                send: vec![frame],
                ..Step::default()
            },
            Err(offline) => Step::input_error(offline),
        }
    }
}

/// Plain mode's state: the shared session, the rooms we are in, and a held `play`.
#[derive(Debug)]
pub struct Plain {
    /// Requests, replies and the link: the core shared with the TUI.
    session: Session,
    /// The latest snapshot of every room we are in.
    rooms: HashMap<RoomId, RoomSnapshot>,
    /// The room that commands like `play` and `chat` go to.
    current: Option<RoomId>,
    /// `inarow rooms`: print the list once and quit.
    quit_after_rooms: bool,
    /// A `play` typed while the opponent is to move: it runs when the turn comes.
    held: Option<String>,
    /// When each room's latest snapshot arrived: `clock` counts the running clock down
    /// from there.
    received: HashMap<RoomId, std::time::Instant>,
}

impl Plain {
    /// A fresh state that runs `startup` once welcomed.
    pub fn new(startup: Startup) -> Plain {
        Plain {
            quit_after_rooms: startup == Startup::Rooms,
            session: Session::new(startup),
            rooms: HashMap::new(),
            current: None,
            held: None,
            received: HashMap::new(),
        }
    }

    /// Whether replies (or the first welcome and its startup action, the connection's
    /// return, or our turn for a held `play`) are still awaited; the next command waits
    /// until they are not.
    pub fn awaiting_replies(&self) -> bool {
        self.session.awaiting_replies() || self.held.is_some()
    }

    /// Runs the held `play` once it is our turn (or once it can no longer be: then it
    /// reports why).
    pub fn release_held(&mut self) -> Option<Step> {
        self.held.as_ref()?;
        if let Ok(room) = self.current_room() {
            let mine = board::my_seat(room, self.session.me);
            let theirs = matches!(room.status, GameStatus::Playing { turn } if Some(turn) != mine);
            if mine.is_some() && theirs {
                return None;
            }
        }
        let line = self.held.take()?;
        Some(self.on_line(&line))
    }

    /// Forgets requests that went unanswered for too long, so input is not held forever.
    pub fn expire(&mut self) {
        self.session.expire(std::time::Instant::now(), REPLY_WAIT);
    }

    /// Leaves every room it is in, then quits once the replies are in (see
    /// [`Session::quit`]).
    pub fn quit(&mut self) -> Step {
        let mut rooms: Vec<RoomId> = self.rooms.keys().cloned().collect();
        rooms.sort();
        Step {
            send: self.session.quit(rooms),
            quit: true,
            ..Step::default()
        }
    }

    fn request(&mut self, message: ClientMessage, pending: Pending) -> Step {
        Step::send(self.session.request(message, pending))
    }

    fn current_room(&self) -> Result<&RoomSnapshot, Step> {
        self.current
            .as_ref()
            .and_then(|id| self.rooms.get(id))
            .ok_or_else(not_in_room)
    }

    /// Handles one input line.
    pub fn on_line(&mut self, line: &str) -> Step {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let args: Vec<&str> = rest.split_whitespace().collect();
        match word {
            "" => Step::default(),
            "help" | "?" => Step {
                lines: HELP.lines().map(str::to_owned).collect(),
                ..Step::default()
            },
            "quit" | "exit" => self.quit(),
            "rooms" => self.request(ClientMessage::ListRooms {}, Pending::Rooms),
            "create" => match parse_create(&args) {
                Ok(message) => self.request(message, Pending::Create),
                Err(e) => Step::input_error(e),
            },
            "join" => {
                let Some(code) = args.first() else {
                    return Step::input_error("usage: join CODE [X|O|any]");
                };
                let room = RoomId((*code).to_owned());
                match args.get(1).copied() {
                    None | Some("any") => Step::send(self.session.join_or_watch(room)),
                    Some(seat) => match parse_mark(seat) {
                        Ok(mark) => {
                            let seat = Some(mark.into());
                            self.request(ClientMessage::Join { room, seat }, Pending::Enter)
                        }
                        Err(e) => Step::input_error(e),
                    },
                }
            }
            "watch" => match args.first() {
                Some(room) => Step::send(self.session.watch(RoomId((*room).to_owned()))),
                None => Step::input_error("usage: watch ROOM"),
            },
            "board" => match self.current_room() {
                Ok(room) => Step {
                    lines: snapshot_lines(room, self.session.me),
                    ..Step::default()
                },
                Err(step) => step,
            },
            "play" | "move" => self.play(line, &args),
            "hint" | "analyze" => match self.current_room() {
                Ok(room) => {
                    let room = room.id.clone();
                    Step::send(self.session.analyze(room))
                }
                Err(step) => step,
            },
            "chat" | "say" => {
                let room = match self.current_room() {
                    Ok(room) => room.id.clone(),
                    Err(step) => return step,
                };
                if rest.is_empty() {
                    return Step::input_error("usage: chat TEXT");
                }
                // The server broadcasts the line back; it is not a reply to wait for.
                let text = rest.to_owned();
                Step::send(self.session.notify(ClientMessage::Chat { room, text }))
            }
            "clock" => match self.current_room() {
                Ok(room) => {
                    let elapsed = self
                        .received
                        .get(&room.id)
                        .map_or(std::time::Duration::ZERO, std::time::Instant::elapsed);
                    Step::line(
                        crate::words::clock_line(room, elapsed)
                            .unwrap_or_else(|| "clock: none (this room has no clock)".into()),
                    )
                }
                Err(step) => step,
            },
            "takeback" | "draw" => {
                let room = match self.current_room() {
                    Ok(room) => room.id.clone(),
                    Err(step) => return step,
                };
                let accept = match args.first().copied() {
                    None => None,
                    Some("yes" | "accept") => Some(true),
                    Some("no" | "decline") => Some(false),
                    Some(other) => {
                        return Step::input_error(format!(
                            "usage: {word} [yes|no] (not {other:?})"
                        ));
                    }
                };
                let message = if word == "takeback" {
                    ClientMessage::Takeback { room, accept }
                } else {
                    ClientMessage::Draw { room, accept }
                };
                self.request(message, Pending::Other)
            }
            "rematch" | "resign" | "leave" | "ai" => {
                let room = match self.current_room() {
                    Ok(room) => room.id.clone(),
                    Err(step) => return step,
                };
                let message = match word {
                    "rematch" => ClientMessage::Rematch { room },
                    "resign" => ClientMessage::Resign { room },
                    "leave" => ClientMessage::Leave { room },
                    _ => match set_seat(room, &args) {
                        Ok(message) => message,
                        Err(e) => return Step::input_error(e),
                    },
                };
                self.request(message, Pending::Other)
            }
            other => Step::input_error(format!("unknown command {other:?} (type help)")),
        }
    }

    /// `play MOVE`: checked locally first, and held until our turn when it is not yet.
    fn play(&mut self, line: &str, args: &[&str]) -> Step {
        let Some(room) = self.current.as_ref().and_then(|id| self.rooms.get(id)) else {
            return not_in_room();
        };
        let [text] = args else {
            return Step::input_error("usage: play MOVE (e.g. play b2, or play d with gravity)");
        };
        match self.session.play(room, text) {
            Ok(frame) => Step::send(Ok(frame)),
            Err(NotPlayed::Move(MoveRejection::NotYourTurn)) => {
                self.held = Some(line.to_owned());
                Step::line("notice: waiting for your turn")
            }
            Err(why) => Step::input_error(why),
        }
    }

    /// Handles one event from the connection.
    pub fn on_net(&mut self, event: NetEvent) -> Step {
        match self.session.on_net(event) {
            // `inarow rooms` is a one-shot question: do not retry forever.
            // Its failures go to stderr only (the binary prints the fatal message there).
            Update::Down { reason, .. } | Update::Fatal(reason) if self.quit_after_rooms => Step {
                fatal: Some(reason),
                ..Step::default()
            },
            Update::Down { reason, retry_in } => Step::line(format!(
                "disconnected: {reason}; reconnecting in {}ms",
                retry_in.as_millis()
            )),
            Update::Fatal(message) => Step::fatal(message),
            // `inarow rooms` prints the rooms and nothing else, so a script can read them.
            Update::Welcome { send, .. } if self.quit_after_rooms => Step {
                send,
                ..Step::default()
            },
            Update::Welcome { resumed, send, .. } => {
                let session = self
                    .session
                    .me
                    .map_or_else(String::new, |me| me.to_string());
                let mut step = Step::line(format!("connected session={session} resumed={resumed}"));
                if !resumed && !self.rooms.is_empty() {
                    self.rooms.clear();
                    self.current = None;
                    step.lines.push(
                        "notice: the server no longer held this session; rooms lost".to_owned(),
                    );
                }
                step.send = send;
                step
            }
            Update::Watching { send } => Step {
                lines: vec![format!("notice: {WATCHING_INSTEAD}")],
                send,
                ..Step::default()
            },
            Update::Message {
                message,
                answers,
                send,
            } => {
                let mut step = self.on_message(message, answers);
                step.send.extend(send);
                step
            }
        }
    }

    fn on_message(&mut self, message: ServerMessage, answers: Option<Pending>) -> Step {
        match message {
            // The core has taken the welcome; it never comes this far.
            ServerMessage::Welcome { .. } => Step::default(),
            // Plain mode does not ask for them.
            ServerMessage::Engines { .. } => Step::default(),
            ServerMessage::Rooms { rooms } => Step {
                lines: rooms_lines(&rooms),
                quit: self.quit_after_rooms,
                ..Step::default()
            },
            ServerMessage::Room { room } => {
                let mut step = Step::default();
                let id = room.id.clone();
                match answers {
                    Some(Pending::Create) => {
                        let link = match self.session.invite_link(&id) {
                            Some(link) => format!(" link={link}"),
                            None => String::new(),
                        };
                        step.lines.push(format!("created {id} invite={id}{link}"));
                    }
                    Some(Pending::Enter | Pending::JoinOrWatch(_)) => {
                        let role = board::my_seat(&room, self.session.me)
                            .map_or_else(|| "spectator".to_owned(), |m| m.to_string());
                        step.lines.push(format!("joined {id} as {role}"));
                    }
                    _ => {}
                }
                // The answer to a `sync` only catches up on a room we were already in.
                if answers.as_ref().is_some_and(|p| *p != Pending::Sync) || self.current.is_none() {
                    self.current = Some(id.clone());
                }
                step.lines.extend(snapshot_lines(&room, self.session.me));
                self.received.insert(id.clone(), std::time::Instant::now());
                self.rooms.insert(id, *room);
                step
            }
            ServerMessage::Chat { from, text, .. } => Step::line(format!("chat {from}: {text}")),
            // One that the session could not apply: it has asked for a snapshot.
            ServerMessage::Moved(_) => Step::default(),
            ServerMessage::Analysis {
                room,
                game,
                ply,
                moves,
            } => Step {
                lines: analysis_lines(&board::Hints {
                    room,
                    game,
                    ply,
                    moves,
                }),
                ..Step::default()
            },
            ServerMessage::Left { room } => {
                self.rooms.remove(&room);
                if self.current.as_ref() == Some(&room) {
                    self.current = None;
                }
                Step::line(format!("left {room}"))
            }
            // A refused `inarow rooms` ends it with a failure, told on stderr, not stdout.
            ServerMessage::Error { code, message }
                if self.quit_after_rooms && answers == Some(Pending::Rooms) =>
            {
                Step {
                    fatal: Some(format!("{code}: {message}")),
                    ..Step::default()
                }
            }
            ServerMessage::Error { code, message } => {
                Step::line(format!("error: {code}: {message}"))
            }
            ServerMessage::Bye { reason, message } => {
                Step::line(format!("bye {reason}: {message}"))
            }
            // Asked for only by the `history`, `replay` and `export` commands, not here.
            ServerMessage::History { .. } | ServerMessage::Game { .. } => Step::default(),
            ServerMessage::Renamed { name } => Step::line(format!("you are now {name}")),
        }
    }
}

/// What a room command says outside any room.
fn not_in_room() -> Step {
    Step::input_error("not in a room (create, join or watch one first)")
}

/// The `set_seat` of `ai X|O [LEVEL|none]`.
fn set_seat(room: RoomId, args: &[&str]) -> Result<ClientMessage, String> {
    let seat = match args.first() {
        Some(seat) => parse_mark(seat)?,
        None => return Err("usage: ai X|O [easy|medium|perfect|none]".to_owned()),
    };
    let ai = match args.get(1).copied() {
        None => Some(Level::Perfect),
        Some("none") => None,
        Some(level) => Some(parse_level(level)?),
    };
    Ok(ClientMessage::SetSeat { room, seat, ai })
}

/// Runs plain mode: commands from `input`, text to `output`, until `quit`, EOF or a fatal
/// connection error. Returns the fatal message, if any.
///
/// # Errors
/// [`ClientError::Io`] when `output` cannot be written.
pub async fn run<R, W>(
    server: net::Server,
    name: String,
    startup: Startup,
    input: R,
    mut output: W,
) -> Result<Option<String>, ClientError>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut plain = Plain::new(startup);
    plain.session.web = server.web_address();
    let mut connection = net::connect(server, name);
    let mut lines = input.lines();
    let mut input_open = true;
    let mut closing: Option<Instant> = None;
    let mut expiry = tokio::time::interval(Duration::from_secs(1));
    let fatal = loop {
        if closing.is_some() && !plain.awaiting_replies() {
            break None;
        }
        let step = tokio::select! {
            line = lines.next_line(), if input_open && closing.is_none() && !plain.awaiting_replies() => {
                match line {
                    Ok(Some(line)) => plain.on_line(&line),
                    // EOF (or unreadable input) is a quit that lets replies arrive first.
                    Ok(None) | Err(_) => {
                        input_open = false;
                        plain.quit()
                    }
                }
            }
            event = connection.events.recv() => match event {
                Some(event) => {
                    let mut step = plain.on_net(event);
                    if let Some(released) = plain.release_held() {
                        step.lines.extend(released.lines);
                        step.send.extend(released.send);
                    }
                    step
                }
                None => break Some("the connection task ended".to_owned()),
            },
            _ = expiry.tick() => {
                plain.expire();
                Step::default()
            }
            () = tokio::time::sleep_until(closing.unwrap_or_else(Instant::now)), if closing.is_some() => {
                output.write_all(b"notice: gave up waiting for replies\n").await?;
                break None;
            }
        };
        if !step.lines.is_empty() {
            let mut text = step.lines.join("\n");
            text.push('\n');
            output.write_all(text.as_bytes()).await?;
            output.flush().await?;
        }
        for frame in step.send {
            if connection.outbound.try_send(frame).is_err() {
                output
                    .write_all(b"error: input: the connection is not keeping up; command dropped\n")
                    .await?;
            }
        }
        if step.fatal.is_some() {
            break step.fatal;
        }
        if step.quit && closing.is_none() {
            closing = Some(Instant::now() + CLOSING_WAIT);
        }
    };
    output.flush().await?;
    drop(connection.outbound);
    drop(connection.events);
    let _ = tokio::time::timeout(Duration::from_secs(1), connection.task).await;
    Ok(fatal)
}

#[cfg(test)]
mod tests;
