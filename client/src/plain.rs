//! Plain mode: one command per line on stdin, events as stable text lines on stdout, for
//! scripts, pipes and terminals without a screen.
//!
//! Each command waits for the server's reply to the previous one before it is sent (and
//! while the connection is down, for it to come back; `play` out of turn waits for the
//! turn), so a script can pipe several commands at once. Output lines start with a fixed word
//! (`connected`, `created`, `joined`, `room`, `seats:`, `last:`, `status:`, `chat`, `left`,
//! `rooms:`, `error:`, `notice:`, `disconnected:`, `bye`, `fatal:`) followed by the board
//! rows of a room update.

use std::collections::HashMap;
use std::time::Duration;

use inarow_protocol::{
    ByeReason, ClientFrame, ClientMessage, ErrorCode, GameStatus, Level, Mark, Occupant, RequestId,
    RoomId, RoomSnapshot, RoomSummary, SeatChoice, SeatPlan, SeatRequest, ServerMessage, SessionId,
};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;

use crate::ClientError;
use crate::board::{self, MoveRejection, check_move, parse_level, parse_mark, parse_rules};
use crate::cli::Startup;
use crate::net::{self, NetEvent};

/// How long a request waits for its reply before the next command goes anyway.
const REPLY_WAIT: Duration = Duration::from_secs(10);
/// How long the client waits for in-flight replies after EOF or `quit`.
const CLOSING_WAIT: Duration = Duration::from_secs(10);

/// The help text printed by `help`.
pub const HELP: &str = "\
commands:
  rooms                          list the public rooms
  create RULES [--ai X|O] [--level easy|medium|perfect] [--as X|O] [--private]
                                 create a room; RULES: tictactoe, connect4, gomoku, or WxHkK[g]
                                 (e.g. 5x5k4, 8x7k4g); without --ai the other seat is open
  join CODE [X|O|any]            take a seat (any: the first free one, else watch)
  watch ROOM                     watch a room
  play MOVE                      place a stone: a cell like b2, or a column like d (gravity)
  chat TEXT                      say something in the room
  ai X|O [LEVEL|none]            seat an AI in an empty seat (none empties an AI seat)
  rematch | resign | leave       the current room
  board                          print the current room again
  quit                           exit (after replies to commands already sent)
  help                           this text";

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
}

/// Why a request was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    Create,
    JoinOrWatch(RoomId),
    Enter,
    Rooms,
    Other,
}

/// Plain mode's state: the rooms we are in and the requests awaiting replies.
#[derive(Debug)]
pub struct Plain {
    me: Option<SessionId>,
    online: bool,
    rooms: HashMap<RoomId, RoomSnapshot>,
    current: Option<RoomId>,
    pending: HashMap<u64, (Pending, Instant)>,
    next_id: u64,
    startup: Option<Startup>,
    quit_after_rooms: bool,
    /// A `play` typed while the opponent is to move: it runs when the turn comes.
    held: Option<String>,
}

impl Plain {
    /// A fresh state that runs `startup` once welcomed.
    pub fn new(startup: Startup) -> Plain {
        Plain {
            me: None,
            online: false,
            rooms: HashMap::new(),
            current: None,
            pending: HashMap::new(),
            next_id: 1,
            quit_after_rooms: startup == Startup::Rooms,
            held: None,
            startup: Some(startup),
        }
    }

    /// Whether replies (or the first welcome and its startup action, the connection's
    /// return, or our turn for a held `play`) are still awaited; the next command waits
    /// until they are not.
    pub fn awaiting_replies(&self) -> bool {
        self.startup.is_some() || !self.online || !self.pending.is_empty() || self.held.is_some()
    }

    /// Runs the held `play` once it is our turn (or once it can no longer be: then it
    /// reports why).
    pub fn release_held(&mut self) -> Option<Step> {
        self.held.as_ref()?;
        if let Ok(room) = self.current_room() {
            let mine = board::my_seat(room, self.me);
            let theirs = matches!(room.status, GameStatus::Playing { turn } if Some(turn) != mine);
            if mine.is_some() && theirs {
                return None;
            }
        }
        let line = self.held.take()?;
        Some(self.on_line(&line))
    }

    /// Forgets requests that went unanswered for too long, so input is not held forever.
    pub fn expire(&mut self, now: Instant) {
        self.pending
            .retain(|_, (_, sent)| now.duration_since(*sent) < REPLY_WAIT);
    }

    fn request(&mut self, step: &mut Step, message: ClientMessage, pending: Option<Pending>) {
        if !self.online {
            step.lines
                .push("error: input: not connected (reconnecting…)".to_owned());
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        if let Some(p) = pending {
            self.pending.insert(id, (p, Instant::now()));
        }
        step.send.push(ClientFrame {
            message,
            id: Some(RequestId::Number(id)),
        });
    }

    /// Leaves every room it is in, then quits once the replies are in: the session token is
    /// not kept across runs, so the seat could never be resumed, and holding it through the
    /// reconnection grace would only keep the others waiting.
    pub fn quit(&mut self) -> Step {
        let mut step = Step::default();
        let mut rooms: Vec<RoomId> = self.rooms.keys().cloned().collect();
        rooms.sort();
        for room in rooms {
            self.request(
                &mut step,
                ClientMessage::Leave { room },
                Some(Pending::Other),
            );
        }
        step.quit = true;
        step
    }

    fn send(&mut self, message: ClientMessage, pending: Pending) -> Step {
        let mut step = Step::default();
        self.request(&mut step, message, Some(pending));
        step
    }

    fn current_room(&self) -> Result<&RoomSnapshot, Step> {
        self.current
            .as_ref()
            .and_then(|id| self.rooms.get(id))
            .ok_or_else(|| Step::input_error("not in a room (create, join or watch one first)"))
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
            "rooms" => self.send(ClientMessage::ListRooms {}, Pending::Rooms),
            "create" => match parse_create(&args) {
                Ok(message) => self.send(message, Pending::Create),
                Err(e) => Step::input_error(e),
            },
            "join" => {
                let Some(code) = args.first() else {
                    return Step::input_error("usage: join CODE [X|O|any]");
                };
                let room = RoomId((*code).to_owned());
                match args.get(1).copied() {
                    None | Some("any") => self.send(
                        ClientMessage::Join {
                            room: room.clone(),
                            seat: Some(SeatChoice::Any),
                        },
                        Pending::JoinOrWatch(room),
                    ),
                    Some(seat) => match parse_mark(seat) {
                        Ok(mark) => self.send(
                            ClientMessage::Join {
                                room,
                                seat: Some(mark.into()),
                            },
                            Pending::Enter,
                        ),
                        Err(e) => Step::input_error(e),
                    },
                }
            }
            "watch" => match args.first() {
                Some(room) => self.send(
                    ClientMessage::Join {
                        room: RoomId((*room).to_owned()),
                        seat: None,
                    },
                    Pending::Enter,
                ),
                None => Step::input_error("usage: watch ROOM"),
            },
            "board" => match self.current_room() {
                Ok(room) => Step {
                    lines: snapshot_lines(room, self.me),
                    ..Step::default()
                },
                Err(step) => step,
            },
            "play" | "move" => {
                let room = match self.current_room() {
                    Ok(room) => room,
                    Err(step) => return step,
                };
                if args.len() != 1 {
                    return Step::input_error(
                        "usage: play MOVE (e.g. play b2, or play d with gravity)",
                    );
                }
                match check_move(room, self.me, args[0]) {
                    Ok(mv) => {
                        let message = ClientMessage::Play {
                            room: room.id.clone(),
                            ply: room.ply,
                            mv,
                        };
                        self.send(message, Pending::Other)
                    }
                    Err(MoveRejection::NotYourTurn) => {
                        self.held = Some(line.to_owned());
                        Step::line("notice: waiting for your turn")
                    }
                    Err(why) => Step::input_error(why),
                }
            }
            "chat" | "say" => {
                let room = match self.current_room() {
                    Ok(room) => room.id.clone(),
                    Err(step) => return step,
                };
                if rest.is_empty() {
                    return Step::input_error("usage: chat TEXT");
                }
                // The server broadcasts the line back; it is not a reply to wait for.
                let mut step = Step::default();
                let text = rest.to_owned();
                self.request(&mut step, ClientMessage::Chat { room, text }, None);
                step
            }
            "rematch" | "resign" | "leave" => {
                let room = match self.current_room() {
                    Ok(room) => room.id.clone(),
                    Err(step) => return step,
                };
                let message = match word {
                    "rematch" => ClientMessage::Rematch { room },
                    "resign" => ClientMessage::Resign { room },
                    _ => ClientMessage::Leave { room },
                };
                self.send(message, Pending::Other)
            }
            "ai" => {
                let room = match self.current_room() {
                    Ok(room) => room.id.clone(),
                    Err(step) => return step,
                };
                let seat = match args.first().map(|s| parse_mark(s)) {
                    Some(Ok(seat)) => seat,
                    Some(Err(e)) => return Step::input_error(e),
                    None => return Step::input_error("usage: ai X|O [easy|medium|perfect|none]"),
                };
                let ai = match args.get(1).copied() {
                    None => Some(Level::Perfect),
                    Some("none") => None,
                    Some(level) => match parse_level(level) {
                        Ok(level) => Some(level),
                        Err(e) => return Step::input_error(e),
                    },
                };
                self.send(ClientMessage::SetSeat { room, seat, ai }, Pending::Other)
            }
            other => Step::input_error(format!("unknown command {other:?} (type help)")),
        }
    }

    /// Handles one event from the connection.
    pub fn on_net(&mut self, event: NetEvent) -> Step {
        match event {
            NetEvent::Down { reason, retry_in } => {
                self.online = false;
                self.pending.clear();
                if self.quit_after_rooms {
                    // `inarow rooms` is a one-shot question: do not retry forever.
                    return Step {
                        lines: vec![format!("fatal: {reason}")],
                        fatal: Some(reason),
                        ..Step::default()
                    };
                }
                Step::line(format!(
                    "disconnected: {reason}; reconnecting in {}ms",
                    retry_in.as_millis()
                ))
            }
            NetEvent::Fatal(message) => Step {
                lines: vec![format!("fatal: {message}")],
                fatal: Some(message),
                ..Step::default()
            },
            NetEvent::Frame(frame) => {
                let pending = match &frame.id {
                    Some(RequestId::Number(n)) => self.pending.remove(n).map(|(p, _)| p),
                    _ => None,
                };
                self.on_message(frame.message, pending)
            }
        }
    }

    fn on_message(&mut self, message: ServerMessage, pending: Option<Pending>) -> Step {
        match message {
            ServerMessage::Welcome {
                session, resumed, ..
            } => {
                self.me = Some(session);
                self.online = true;
                let mut step = Step::line(format!("connected session={session} resumed={resumed}"));
                if !resumed && !self.rooms.is_empty() {
                    self.rooms.clear();
                    self.current = None;
                    step.lines.push(
                        "notice: the server no longer held this session; rooms lost".to_owned(),
                    );
                }
                if let Some(startup) = self.startup.take() {
                    self.start(&mut step, startup);
                }
                step
            }
            ServerMessage::Rooms { rooms } => {
                let mut step = Step {
                    lines: rooms_lines(&rooms),
                    ..Step::default()
                };
                if self.quit_after_rooms {
                    step.quit = true;
                }
                step
            }
            ServerMessage::Room { room } => {
                let mut step = Step::default();
                let id = room.id.clone();
                match pending {
                    Some(Pending::Create) => {
                        step.lines.push(format!("created {id} invite={id}"));
                    }
                    Some(Pending::Enter | Pending::JoinOrWatch(_)) => {
                        let role = board::my_seat(&room, self.me)
                            .map_or_else(|| "spectator".to_owned(), |m| m.to_string());
                        step.lines.push(format!("joined {id} as {role}"));
                    }
                    _ => {}
                }
                if pending.is_some() || self.current.is_none() {
                    self.current = Some(id.clone());
                }
                step.lines.extend(snapshot_lines(&room, self.me));
                self.rooms.insert(id, *room);
                step
            }
            ServerMessage::Chat { from, text, .. } => Step::line(format!("chat {from}: {text}")),
            ServerMessage::Left { room } => {
                self.rooms.remove(&room);
                if self.current.as_ref() == Some(&room) {
                    self.current = None;
                }
                Step::line(format!("left {room}"))
            }
            ServerMessage::Error { code, message } => {
                if let (Some(Pending::JoinOrWatch(room)), ErrorCode::RoomFull) = (&pending, code) {
                    let mut step = Step::line("notice: both seats are taken: watching");
                    let room = room.clone();
                    self.request(
                        &mut step,
                        ClientMessage::Join { room, seat: None },
                        Some(Pending::Enter),
                    );
                    return step;
                }
                let mut step = Step::line(format!("error: {code}: {message}"));
                if self.quit_after_rooms && pending == Some(Pending::Rooms) {
                    step.quit = true;
                }
                step
            }
            ServerMessage::Bye { reason, message } => {
                Step::line(format!("bye {}: {message}", bye_word(reason)))
            }
        }
    }

    fn start(&mut self, step: &mut Step, startup: Startup) {
        match startup {
            Startup::Lobby => {}
            Startup::Rooms => self.request(step, ClientMessage::ListRooms {}, Some(Pending::Rooms)),
            Startup::Play { rules, seat, level } => {
                let (me, ai) = (SeatRequest::Me, SeatRequest::Ai { level });
                let seats = match seat {
                    Mark::X => SeatPlan { x: me, o: ai },
                    Mark::O => SeatPlan { x: ai, o: me },
                };
                let message = ClientMessage::CreateRoom {
                    name: None,
                    rules,
                    seats,
                    private: true,
                };
                self.request(step, message, Some(Pending::Create));
            }
            Startup::Join(room) => self.request(
                step,
                ClientMessage::Join {
                    room: room.clone(),
                    seat: Some(SeatChoice::Any),
                },
                Some(Pending::JoinOrWatch(room)),
            ),
            Startup::Watch(room) => self.request(
                step,
                ClientMessage::Join { room, seat: None },
                Some(Pending::Enter),
            ),
        }
    }
}

fn bye_word(reason: ByeReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{reason:?}"))
}

/// Parses the arguments of `create`.
///
/// # Errors
/// A message saying what is wrong.
pub fn parse_create(args: &[&str]) -> Result<ClientMessage, String> {
    let mut args = args.iter();
    let rules = parse_rules(
        args.next()
            .ok_or("usage: create RULES [--ai X|O] [--level L] [--as X|O] [--private]")?,
    )?;
    let (mut ai, mut me, mut level, mut private) = (None, None, Level::Perfect, false);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match *flag {
            "--ai" => ai = Some(parse_mark(value()?)?),
            "--as" => me = Some(parse_mark(value()?)?),
            "--level" => level = parse_level(value()?)?,
            "--private" => private = true,
            other => return Err(format!("unknown option {other:?} for create")),
        }
    }
    let me = me.unwrap_or_else(|| ai.map_or(Mark::X, Mark::other));
    if ai == Some(me) {
        return Err("--ai and --as name the same seat".to_owned());
    }
    let seat = |mark: Mark| {
        if mark == me {
            SeatRequest::Me
        } else if ai == Some(mark) {
            SeatRequest::Ai { level }
        } else {
            SeatRequest::Open
        }
    };
    Ok(ClientMessage::CreateRoom {
        name: None,
        rules,
        seats: SeatPlan {
            x: seat(Mark::X),
            o: seat(Mark::O),
        },
        private,
    })
}

fn occupant_text(occupant: &Occupant, mine: bool) -> String {
    match occupant {
        Occupant::Empty => "(empty)".to_owned(),
        Occupant::Human {
            name, connected, ..
        } => {
            let mut s = name.clone();
            if mine {
                s.push_str(" (you)");
            }
            if !connected {
                s.push_str(" (disconnected)");
            }
            s
        }
        Occupant::Ai { level, thinking } => {
            if *thinking {
                format!("AI {level} (thinking)")
            } else {
                format!("AI {level}")
            }
        }
    }
}

/// The `status: …` line of a snapshot.
pub fn status_text(room: &RoomSnapshot, me: Option<SessionId>) -> String {
    match &room.status {
        GameStatus::Waiting => "status: waiting".to_owned(),
        GameStatus::Playing { turn } => {
            if board::my_seat(room, me) == Some(*turn) {
                format!("status: turn {turn} (your move)")
            } else {
                format!("status: turn {turn}")
            }
        }
        GameStatus::Won { winner, line } => format!("status: won {winner} line {}", line.join(",")),
        GameStatus::Resigned { winner } => format!("status: won {winner} by resignation"),
        GameStatus::Drawn => "status: drawn".to_owned(),
    }
}

/// A room update as text: a header, the board with coordinates, seats, last move, status.
pub fn snapshot_lines(room: &RoomSnapshot, me: Option<SessionId>) -> Vec<String> {
    let mine = board::my_seat(room, me);
    let mut lines = vec![format!(
        "room {} game {} ply {} {}{}",
        room.id,
        room.game,
        room.ply,
        board::rules_label(&room.rules),
        if room.private { " private" } else { "" }
    )];
    let height = room.rules.height;
    for (i, row) in room.board.iter().enumerate() {
        let cells: Vec<String> = row.chars().map(|c| c.to_string()).collect();
        lines.push(format!("{:>2} {}", height - i as u32, cells.join(" ")));
    }
    let letters: Vec<String> = (0..room.rules.width)
        .map(|c| board::column_letter(c).to_string())
        .collect();
    lines.push(format!("   {}", letters.join(" ")));
    let seats: Vec<String> = room
        .seats
        .iter()
        .map(|s| {
            format!(
                "{}={}",
                s.mark,
                occupant_text(&s.occupant, mine == Some(s.mark))
            )
        })
        .collect();
    lines.push(format!("seats: {}", seats.join(" ")));
    if !room.spectators.is_empty() {
        lines.push(format!("watching: {}", room.spectators.join(", ")));
    }
    if let Some(last) = &room.last_move {
        lines.push(format!("last: {last}"));
    }
    lines.push(status_text(room, me));
    lines
}

/// A game status as one word: `waiting`, `turn-X`, `won-O`, `drawn`.
fn status_token(status: &GameStatus) -> String {
    match status {
        GameStatus::Waiting => "waiting".to_owned(),
        GameStatus::Playing { turn } => format!("turn-{turn}"),
        GameStatus::Won { winner, .. } | GameStatus::Resigned { winner } => format!("won-{winner}"),
        GameStatus::Drawn => "drawn".to_owned(),
    }
}

/// The answer to `rooms`: a count, then one line per room.
pub fn rooms_lines(rooms: &[RoomSummary]) -> Vec<String> {
    let mut lines = vec![format!("rooms: {}", rooms.len())];
    for room in rooms {
        let seat = |mark: Mark| {
            room.seats
                .iter()
                .find(|s| s.mark == mark)
                .map_or_else(
                    || "(empty)".to_owned(),
                    |s| occupant_text(&s.occupant, false),
                )
                .replace(' ', "_")
        };
        lines.push(format!(
            "  {} {} {} X={} O={} spectators={} {}",
            room.id,
            board::rules_label(&room.rules),
            status_token(&room.status),
            seat(Mark::X),
            seat(Mark::O),
            room.spectators,
            room.name
        ));
    }
    lines
}

/// Runs plain mode: commands from `input`, text to `output`, until `quit`, EOF or a fatal
/// connection error. Returns the fatal message, if any.
///
/// # Errors
/// [`ClientError::Io`] when `output` cannot be written.
pub async fn run<R, W>(
    server: String,
    name: String,
    startup: Startup,
    input: R,
    mut output: W,
) -> Result<Option<String>, ClientError>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut connection = net::connect(server, name);
    let mut plain = Plain::new(startup);
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
                plain.expire(Instant::now());
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
mod tests {
    use super::*;
    use crate::board::tests::{C4, TTT, session, snapshot};
    use inarow_protocol::{Rules, RulesSpec, ServerFrame};

    fn welcomed(startup: Startup) -> (Plain, Step) {
        let mut plain = Plain::new(startup);
        let step = plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Welcome {
            protocol: 1,
            session: session(1),
            token: "t".into(),
            server: "s".into(),
            resumed: false,
        })));
        (plain, step)
    }

    fn reply(plain: &mut Plain, step: &Step, message: ServerMessage) -> Step {
        let id = step.send.last().and_then(|f| f.id.clone());
        plain.on_net(NetEvent::Frame(ServerFrame { message, id }))
    }

    #[test]
    fn create_parses_seats_levels_and_rules() {
        assert_eq!(
            parse_create(&["tictactoe", "--ai", "O"]),
            Ok(ClientMessage::CreateRoom {
                name: None,
                rules: RulesSpec::Preset("tictactoe".into()),
                seats: SeatPlan {
                    x: SeatRequest::Me,
                    o: SeatRequest::Ai {
                        level: Level::Perfect
                    }
                },
                private: false
            })
        );
        assert_eq!(
            parse_create(&["8x7k4g", "--ai", "X", "--level", "easy", "--private"]),
            Ok(ClientMessage::CreateRoom {
                name: None,
                rules: RulesSpec::Custom(Rules {
                    width: 8,
                    height: 7,
                    k: 4,
                    gravity: true
                }),
                seats: SeatPlan {
                    x: SeatRequest::Ai { level: Level::Easy },
                    o: SeatRequest::Me
                },
                private: true
            })
        );
        assert_eq!(
            parse_create(&["connect4", "--as", "O"]),
            Ok(ClientMessage::CreateRoom {
                name: None,
                rules: RulesSpec::Preset("connect4".into()),
                seats: SeatPlan {
                    x: SeatRequest::Open,
                    o: SeatRequest::Me
                },
                private: false
            })
        );
        assert!(parse_create(&[]).is_err());
        assert!(parse_create(&["chess"]).is_err());
        assert!(parse_create(&["tictactoe", "--ai"]).is_err());
        assert!(parse_create(&["tictactoe", "--ai", "X", "--as", "X"]).is_err());
        assert!(parse_create(&["tictactoe", "--bogus"]).is_err());
    }

    #[test]
    fn a_room_update_prints_board_seats_and_status() {
        let mut snap = snapshot(
            TTT,
            &["...", ".O.", "X.."],
            GameStatus::Playing { turn: Mark::X },
        );
        snap.last_move = Some("b2".into());
        assert_eq!(
            snapshot_lines(&snap, Some(session(1))),
            vec![
                "room abcd2345 game 1 ply 2 tictactoe",
                " 3 . . .",
                " 2 . O .",
                " 1 X . .",
                "   a b c",
                "seats: X=alice (you) O=AI perfect",
                "last: b2",
                "status: turn X (your move)",
            ]
        );
        let won = snapshot(
            TTT,
            &["X..", ".X.", "..X"],
            GameStatus::Won {
                winner: Mark::X,
                line: vec!["a3".into(), "b2".into(), "c1".into()],
            },
        );
        assert_eq!(
            status_text(&won, Some(session(2))),
            "status: won X line a3,b2,c1"
        );
    }

    #[test]
    fn commands_become_messages_and_bad_ones_do_not() {
        let (mut plain, step) = welcomed(Startup::Lobby);
        assert_eq!(
            step.lines,
            vec![format!("connected session={} resumed=false", session(1))]
        );
        assert!(step.send.is_empty());
        let step = plain.on_line("play b2");
        assert!(step.send.is_empty());
        assert!(step.lines[0].starts_with("error: input: not in a room"));
        let step = plain.on_line("create tictactoe --ai O");
        assert_eq!(step.send.len(), 1);
        assert!(plain.awaiting_replies());
        let snap = snapshot(
            TTT,
            &["...", "...", "..."],
            GameStatus::Playing { turn: Mark::X },
        );
        let out = reply(
            &mut plain,
            &step,
            ServerMessage::Room {
                room: Box::new(snap),
            },
        );
        assert_eq!(out.lines[0], "created abcd2345 invite=abcd2345");
        assert!(!plain.awaiting_replies());
        let step = plain.on_line("play B2");
        assert_eq!(
            step.send
                .iter()
                .map(|f| f.message.clone())
                .collect::<Vec<_>>(),
            vec![ClientMessage::Play {
                room: RoomId::from("abcd2345"),
                ply: 0,
                mv: "b2".into()
            }]
        );
        for junk in ["play z9", "play", "play b2 c3", "dance", "join", "create"] {
            let step = plain.on_line(junk);
            assert!(step.send.is_empty(), "{junk}");
            assert!(step.lines[0].starts_with("error: input: "), "{junk}");
        }
        let step = plain.on_line("chat hello there");
        assert_eq!(
            step.send[0].message,
            ClientMessage::Chat {
                room: RoomId::from("abcd2345"),
                text: "hello there".into()
            }
        );
        let out = plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Error {
            code: ErrorCode::NotYourTurn,
            message: "wait".into(),
        })));
        assert_eq!(out.lines, vec!["error: not_your_turn: wait"]);
        let step = plain.on_line("quit");
        assert!(step.quit);
        assert_eq!(
            step.send
                .iter()
                .map(|f| f.message.clone())
                .collect::<Vec<_>>(),
            vec![ClientMessage::Leave {
                room: RoomId::from("abcd2345")
            }],
            "quitting leaves the room first"
        );
        assert!(plain.awaiting_replies(), "and waits for `left`");
    }

    #[test]
    fn play_out_of_turn_waits_for_the_turn() {
        let (mut plain, _) = welcomed(Startup::Lobby);
        let step = plain.on_line("join abcd2345");
        let theirs = snapshot(
            TTT,
            &["...", ".X.", "..."],
            GameStatus::Playing { turn: Mark::O },
        );
        reply(
            &mut plain,
            &step,
            ServerMessage::Room {
                room: Box::new(theirs),
            },
        );
        let step = plain.on_line("play a1");
        assert!(step.send.is_empty());
        assert_eq!(step.lines, vec!["notice: waiting for your turn"]);
        assert!(plain.awaiting_replies());
        assert_eq!(plain.release_held(), None);
        let mut ours = snapshot(
            TTT,
            &["...", ".X.", "O.."],
            GameStatus::Playing { turn: Mark::X },
        );
        ours.ply = 2;
        plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Room {
            room: Box::new(ours),
        })));
        // a1 was taken meanwhile: the held move is refused locally, not sent.
        let released = plain.release_held().expect("released on our turn");
        assert!(released.send.is_empty());
        assert_eq!(released.lines, vec!["error: input: a1 is already taken"]);
        assert!(!plain.awaiting_replies());
    }

    #[test]
    fn gravity_play_sends_the_column() {
        let (mut plain, _) = welcomed(Startup::Lobby);
        let step = plain.on_line("join abcd2345");
        let snap = snapshot(
            C4,
            &[
                ".......", ".......", ".......", ".......", ".......", ".......",
            ],
            GameStatus::Playing { turn: Mark::X },
        );
        let out = reply(
            &mut plain,
            &step,
            ServerMessage::Room {
                room: Box::new(snap),
            },
        );
        assert_eq!(out.lines[0], "joined abcd2345 as X");
        let step = plain.on_line("play 4");
        assert!(matches!(&step.send[0].message, ClientMessage::Play { mv, .. } if mv == "d"));
    }

    #[test]
    fn rooms_startup_lists_and_quits() {
        let (mut plain, step) = welcomed(Startup::Rooms);
        assert_eq!(step.send[0].message, ClientMessage::ListRooms {});
        let out = reply(&mut plain, &step, ServerMessage::Rooms { rooms: vec![] });
        assert_eq!(out.lines, vec!["rooms: 0"]);
        assert!(out.quit);
        assert!(!plain.awaiting_replies());
    }

    #[test]
    fn full_room_falls_back_to_watching() {
        let (mut plain, _) = welcomed(Startup::Lobby);
        let step = plain.on_line("join abcd2345");
        let out = reply(
            &mut plain,
            &step,
            ServerMessage::Error {
                code: ErrorCode::RoomFull,
                message: "full".into(),
            },
        );
        assert_eq!(out.lines, vec!["notice: both seats are taken: watching"]);
        assert_eq!(
            out.send[0].message,
            ClientMessage::Join {
                room: RoomId::from("abcd2345"),
                seat: None
            }
        );
    }
}
