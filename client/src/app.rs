//! The interactive client's state and its one `update(event) -> commands` function: keys,
//! mouse, ticks and server events change the state and say what to send; nothing here
//! touches the terminal or the network, so tests drive it directly.
//!
//! Requests, the session and the startup action are the shared core's ([`Session`]); this
//! module keeps what only the full-screen face needs: screens, cursor, typed input, the
//! create form, chat and the falling-stone animation. It is the TUI's one state machine
//! (one `match` over events, as in ratatui's template), hence a little over 600 lines; its
//! tests live beside it in `app/tests.rs`.

use inarow_protocol::{
    ClientFrame, ClientMessage, ClockState, GameStatus, Level, Mark, Occupant, OfferKind, RoomId,
    RoomSnapshot, RoomSummary, SeatChoice, ServerMessage,
};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::board;
use crate::cli::Startup;
use crate::event::Event;
use crate::form::CreateForm;
use crate::layout;
use crate::session::{Offline, Pending, Session, Update, WATCHING_INSTEAD};
use crate::words;

/// Ticks between lobby refreshes (3 s).
const REFRESH_TICKS: u64 = 60;
/// Ticks a flash message stays on screen (6 s).
const MESSAGE_TICKS: u64 = 120;
/// Chat lines kept per room.
const CHAT_KEEP: usize = 200;

/// What the app asks its runner to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Send a frame to the server.
    Send(ClientFrame),
    /// End the program (after restoring the terminal); `exit_message` says why, if not a
    /// plain quit.
    Quit,
}

/// Which screen is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The room list.
    Lobby,
    /// A room.
    Game,
}

/// What the keyboard is typing into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Keys are commands.
    Keys,
    /// A move typed after `:`.
    Move(String),
    /// A chat line.
    Chat(String),
    /// An invite code (lobby).
    Code(String),
    /// The create-room form (lobby).
    Create(CreateForm),
}

/// A chat line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatLine {
    /// The speaker.
    pub from: String,
    /// The speaker's seat, if a player.
    pub seat: Option<Mark>,
    /// What was said.
    pub text: String,
}

/// A stone falling down a column (gravity games).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drop {
    /// The column.
    pub col: u32,
    /// The top row where it lands.
    pub target: u32,
    /// The top row it is drawn at now.
    pub row: u32,
    /// The stone.
    pub mark: Mark,
}

/// The interactive client's whole state.
#[derive(Debug, Clone)]
pub struct App {
    /// Our display name.
    pub name: String,
    /// The session, the link and the requests in flight: the core shared with plain mode.
    pub session: Session,
    /// The screen shown.
    pub screen: Screen,
    /// Public rooms, as last listed.
    pub rooms: Vec<RoomSummary>,
    /// The selected row of the room list.
    pub selected: usize,
    /// The room shown on the game screen.
    pub room: Option<RoomSnapshot>,
    /// Chat of the shown room.
    pub chat: Vec<ChatLine>,
    /// The board cursor: (column, top row).
    pub cursor: (u32, u32),
    /// What the keyboard types into.
    pub input: Input,
    /// A short message for the user (errors, notices).
    pub message: Option<String>,
    /// The falling stone, while it falls.
    pub drop: Option<Drop>,
    /// The last analysis of the shown room (`?`), dropped when the position changes.
    pub hints: Option<board::Hints>,
    /// The terminal's size, for mouse hit-testing.
    pub size: Rect,
    /// Set when the program should end with a message (printed after the terminal is
    /// restored).
    pub exit_message: Option<String>,
    /// Ticks since start: the clock of flashes and lobby refreshes.
    ticks: u64,
    /// The tick at which the shown room's snapshot arrived: its running clock counts down
    /// from there.
    room_tick: u64,
    /// The tick at which the flash message goes.
    message_until: u64,
    /// `f` was pressed once; a second `f` resigns.
    resign_armed: bool,
    /// `q` (or Esc) was pressed once in a game we play; a second one leaves it.
    leave_armed: bool,
}

impl App {
    /// A fresh app for `name` that will do `startup` once welcomed.
    pub fn new(name: String, startup: Startup) -> App {
        App {
            name,
            session: Session::new(startup),
            screen: Screen::Lobby,
            rooms: Vec::new(),
            selected: 0,
            room: None,
            chat: Vec::new(),
            cursor: (0, 0),
            input: Input::Keys,
            message: None,
            drop: None,
            hints: None,
            size: Rect::new(0, 0, 80, 24),
            exit_message: None,
            ticks: 0,
            room_tick: 0,
            message_until: 0,
            resign_armed: false,
            leave_armed: false,
        }
    }

    /// The seat we hold in the shown room.
    pub fn my_seat(&self) -> Option<Mark> {
        self.room
            .as_ref()
            .and_then(|r| board::my_seat(r, self.session.me))
    }

    /// Both clocks of the shown room as of now: the server's figures, the running one
    /// counted down by the ticks since they came. `None` without a clock.
    pub fn clock_now(&self) -> Option<ClockState> {
        let clock = self.room.as_ref()?.clock.as_ref()?;
        let elapsed = crate::event::TICK * u32::try_from(self.ticks - self.room_tick).unwrap_or(0);
        Some(words::clock_now(clock, elapsed))
    }

    /// Applies one event; returns what to send or do.
    pub fn update(&mut self, event: Event) -> Vec<Command> {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Event::Key(_) => Vec::new(),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Resize(w, h) => {
                self.size = Rect::new(0, 0, w, h);
                Vec::new()
            }
            Event::Tick => self.on_tick(),
            Event::Net(net) => self.on_net(net),
        }
    }

    /// Shows a short message to the user for a few seconds.
    pub fn flash(&mut self, text: impl Into<String>) {
        self.message = Some(text.into());
        self.message_until = self.ticks + MESSAGE_TICKS;
    }

    /// The commands that send `frame`, or nothing (and a flash saying why) when offline.
    fn sent(&mut self, frame: Result<ClientFrame, Offline>) -> Vec<Command> {
        match frame {
            Ok(frame) => vec![Command::Send(frame)],
            Err(offline) => {
                self.flash(offline.to_string());
                Vec::new()
            }
        }
    }

    fn request(&mut self, message: ClientMessage, pending: Pending) -> Vec<Command> {
        let frame = self.session.request(message, pending);
        self.sent(frame)
    }

    fn room_id(&self) -> Option<RoomId> {
        self.room.as_ref().map(|r| r.id.clone())
    }

    fn on_tick(&mut self) -> Vec<Command> {
        self.ticks += 1;
        if self.message.is_some() && self.ticks >= self.message_until {
            self.message = None;
        }
        if let Some(drop) = &mut self.drop {
            if drop.row >= drop.target {
                self.drop = None;
            } else {
                drop.row += 1;
            }
        }
        if self.screen == Screen::Lobby
            && self.session.is_online()
            && self.ticks.is_multiple_of(REFRESH_TICKS)
        {
            return self.request(ClientMessage::ListRooms {}, Pending::Rooms);
        }
        Vec::new()
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
        {
            return self.quit();
        }
        match std::mem::replace(&mut self.input, Input::Keys) {
            Input::Keys => match self.screen {
                Screen::Lobby => self.lobby_key(key),
                Screen::Game => self.game_key(key),
            },
            Input::Move(text) => {
                self.line_key(key, text, Input::Move, |app, text| app.try_play(&text))
            }
            Input::Chat(text) => self.line_key(key, text, Input::Chat, |app, text| {
                let text = text.trim().to_owned();
                // `/name NEW` renames the session rather than say it.
                if let Some(name) = text.strip_prefix("/name ") {
                    let rename = ClientMessage::Rename {
                        name: name.to_owned(),
                    };
                    return app.request(rename, Pending::Other);
                }
                match app.room_id() {
                    Some(room) if !text.is_empty() => {
                        let frame = app.session.notify(ClientMessage::Chat { room, text });
                        app.sent(frame)
                    }
                    _ => Vec::new(),
                }
            }),
            Input::Code(text) => self.line_key(key, text, Input::Code, |app, text| {
                let code = text.trim().to_owned();
                if code.is_empty() {
                    return Vec::new();
                }
                let frame = app.session.join_or_watch(RoomId(code));
                app.sent(frame)
            }),
            Input::Create(form) => self.form_key(key, form),
        }
    }

    /// Editing a one-line input: characters append, Backspace deletes, Enter submits,
    /// Esc cancels.
    fn line_key(
        &mut self,
        key: KeyEvent,
        mut text: String,
        keep: fn(String) -> Input,
        submit: fn(&mut App, String) -> Vec<Command>,
    ) -> Vec<Command> {
        match key.code {
            KeyCode::Enter => return submit(self, text),
            KeyCode::Esc => return Vec::new(),
            KeyCode::Backspace => {
                text.pop();
            }
            // The server refuses longer chat; typing stops at its limit instead.
            KeyCode::Char(c) if text.chars().count() < inarow_protocol::MAX_CHAT_CHARS => {
                text.push(c);
            }
            _ => {}
        }
        self.input = keep(text);
        Vec::new()
    }

    /// Quitting leaves the shown room first (see [`Session::quit`]).
    fn quit(&mut self) -> Vec<Command> {
        let room = self.room_id();
        let mut commands: Vec<Command> = self
            .session
            .quit(room)
            .into_iter()
            .map(Command::Send)
            .collect();
        commands.push(Command::Quit);
        commands
    }

    fn lobby_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let selected = self.rooms.get(self.selected).map(|r| r.id.clone());
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit(),
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = self.selected.saturating_sub(1);
                Vec::new()
            }
            KeyCode::Down | KeyCode::Char('j') => {
                if self.selected + 1 < self.rooms.len() {
                    self.selected += 1;
                }
                Vec::new()
            }
            KeyCode::Enter => match selected {
                Some(room) => {
                    let frame = self.session.join_or_watch(room);
                    self.sent(frame)
                }
                None => Vec::new(),
            },
            KeyCode::Char('w') => match selected {
                Some(room) => {
                    let frame = self.session.watch(room);
                    self.sent(frame)
                }
                None => Vec::new(),
            },
            KeyCode::Char('n') | KeyCode::Char('c') => {
                self.input = Input::Create(CreateForm::default());
                // The server's external engines join the seat choices when they come.
                self.request(ClientMessage::ListEngines {}, Pending::Other)
            }
            KeyCode::Char('i') => {
                self.input = Input::Code(String::new());
                Vec::new()
            }
            KeyCode::Char('r') => self.request(ClientMessage::ListRooms {}, Pending::Rooms),
            KeyCode::Char('g') if self.room.is_some() => {
                self.screen = Screen::Game;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn form_key(&mut self, key: KeyEvent, mut form: CreateForm) -> Vec<Command> {
        match key.code {
            KeyCode::Esc => return Vec::new(),
            KeyCode::Enter => match form.message() {
                Ok(message) => return self.request(message, Pending::Create),
                Err(e) => self.flash(e),
            },
            KeyCode::Up | KeyCode::Char('k') => form.focus(true),
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => form.focus(false),
            KeyCode::Left | KeyCode::Char('h') => form.change(false),
            KeyCode::Right | KeyCode::Char('l') | KeyCode::Char(' ') => form.change(true),
            _ => {}
        }
        self.input = Input::Create(form);
        Vec::new()
    }

    fn game_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(room) = &self.room else {
            self.screen = Screen::Lobby;
            return Vec::new();
        };
        let (w, h) = (room.rules.width, room.rules.height);
        let room_id = room.id.clone();
        let empty_seat = room
            .seats
            .iter()
            .find(|s| s.occupant == Occupant::Empty)
            .map(|s| s.mark);
        let may_set_seats = board::may_set_seats(room, self.session.me);
        // Resigning takes two presses of f in a row, so a stray key does not end a game.
        let confirmed = std::mem::take(&mut self.resign_armed) && key.code == KeyCode::Char('f');
        // Leaving a game one plays empties one's seat mid-game: it takes two presses too.
        let leave_key = matches!(key.code, KeyCode::Char('q') | KeyCode::Esc);
        let leave_confirmed = std::mem::take(&mut self.leave_armed) && leave_key;
        let my_game = matches!(room.status, GameStatus::Playing { .. })
            && board::my_seat(room, self.session.me).is_some();
        let mine = board::my_seat(room, self.session.me);
        // Whether the other player offered `kind` to us.
        let offered = |kind: OfferKind| {
            room.offer
                .is_some_and(|o| o.kind == kind && Some(o.by.other()) == mine)
        };
        let message = match key.code {
            KeyCode::Left | KeyCode::Char('h') => {
                self.cursor.0 = self.cursor.0.saturating_sub(1);
                None
            }
            KeyCode::Right | KeyCode::Char('l') => {
                self.cursor.0 = (self.cursor.0 + 1).min(w.saturating_sub(1));
                None
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.cursor.1 = self.cursor.1.saturating_sub(1);
                None
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.cursor.1 = (self.cursor.1 + 1).min(h.saturating_sub(1));
                None
            }
            KeyCode::Enter | KeyCode::Char(' ') => return self.play_cursor(),
            // With gravity a digit names a column and drops a stone there at once, as in
            // the web client.
            KeyCode::Char(digit @ '1'..='9')
                if room.rules.gravity && u32::from(digit) - u32::from('0') <= w =>
            {
                self.cursor.0 = u32::from(digit) - u32::from('1');
                return self.try_play(&digit.to_string());
            }
            KeyCode::Char(':') => {
                self.input = Input::Move(String::new());
                None
            }
            KeyCode::Char('c') | KeyCode::Char('t') => {
                self.input = Input::Chat(String::new());
                None
            }
            KeyCode::Char('?') => return self.ask_hints(room_id),
            KeyCode::Char('r') => Some(ClientMessage::Rematch { room: room_id }),
            // u and d ask, or accept what the other player asked; n declines.
            KeyCode::Char('u') => Some(ClientMessage::Takeback {
                room: room_id,
                accept: offered(OfferKind::Takeback).then_some(true),
            }),
            KeyCode::Char('d') => Some(ClientMessage::Draw {
                room: room_id,
                accept: offered(OfferKind::Draw).then_some(true),
            }),
            KeyCode::Char('n') => match room.offer {
                Some(offer) if offered(offer.kind) => Some(match offer.kind {
                    OfferKind::Takeback => ClientMessage::Takeback {
                        room: room_id,
                        accept: Some(false),
                    },
                    OfferKind::Draw => ClientMessage::Draw {
                        room: room_id,
                        accept: Some(false),
                    },
                }),
                _ => None,
            },
            KeyCode::Char('f') if confirmed => Some(ClientMessage::Resign { room: room_id }),
            KeyCode::Char('f') => {
                self.resign_armed = true;
                self.flash("press f again to resign");
                None
            }
            KeyCode::Char('s') => Some(ClientMessage::Join {
                room: room_id,
                seat: Some(SeatChoice::Any),
            }),
            KeyCode::Char('a') if !may_set_seats => {
                self.flash("only the room's players may change seats");
                None
            }
            KeyCode::Char('a') => match empty_seat {
                Some(seat) => Some(ClientMessage::SetSeat {
                    room: room_id,
                    seat,
                    ai: Some(Level::Perfect),
                }),
                None => {
                    self.flash("no empty seat for an AI");
                    None
                }
            },
            KeyCode::Char('q') | KeyCode::Esc if my_game && !leave_confirmed => {
                self.leave_armed = true;
                self.flash("press q again to leave: your seat stays empty until someone takes it");
                None
            }
            KeyCode::Char('q') | KeyCode::Esc => {
                // The question asked before is answered: it must not linger in the lobby.
                self.message = None;
                Some(ClientMessage::Leave { room: room_id })
            }
            KeyCode::Char('b') => {
                self.screen = Screen::Lobby;
                None
            }
            _ => None,
        };
        match message {
            Some(message) => self.request(message, Pending::Other),
            None => Vec::new(),
        }
    }

    /// `?`: asks for the value of every legal move, unless an answer is on its way.
    fn ask_hints(&mut self, room: RoomId) -> Vec<Command> {
        if self.session.analyzing(&room) {
            self.flash("the analysis is on its way");
            return Vec::new();
        }
        let frame = self.session.analyze(room);
        let sent = self.sent(frame);
        if !sent.is_empty() {
            self.flash("analysing…");
        }
        sent
    }

    /// The hints to show: the last analysis, if it is about the shown position.
    pub fn current_hints(&self) -> Option<&board::Hints> {
        let room = self.room.as_ref()?;
        self.hints.as_ref().filter(|h| h.fits(room))
    }

    /// The move the cursor names: its cell, or with gravity its column.
    pub fn cursor_move(&self) -> Option<String> {
        let room = self.room.as_ref()?;
        board::move_at(&room.rules, self.cursor.0, self.cursor.1)
    }

    fn play_cursor(&mut self) -> Vec<Command> {
        match self.cursor_move() {
            Some(mv) => self.try_play(&mv),
            None => Vec::new(),
        }
    }

    /// Sends `text` as a move if it is legal for us now; otherwise shows why.
    pub fn try_play(&mut self, text: &str) -> Vec<Command> {
        let Some(room) = &self.room else {
            return Vec::new();
        };
        match self.session.play(room, text) {
            Ok(frame) => vec![Command::Send(frame)],
            Err(why) => {
                self.flash(why.to_string());
                Vec::new()
            }
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Command> {
        if !matches!(mouse.kind, MouseEventKind::Down(MouseButton::Left))
            || self.screen != Screen::Game
            || self.input != Input::Keys
        {
            return Vec::new();
        }
        let Some(room) = &self.room else {
            return Vec::new();
        };
        let game = layout::game_layout(self.size, &room.rules);
        match layout::cell_at(&game, &room.rules, mouse.column, mouse.row) {
            Some(cell) => {
                self.cursor = cell;
                self.play_cursor()
            }
            None => Vec::new(),
        }
    }

    fn on_net(&mut self, event: crate::net::NetEvent) -> Vec<Command> {
        match self.session.on_net(event) {
            Update::Down { .. } => Vec::new(),
            Update::Fatal(message) => {
                self.exit_message = Some(message);
                vec![Command::Quit]
            }
            Update::Welcome {
                again,
                resumed,
                send,
            } => {
                if again {
                    if !resumed && self.room.take().is_some() {
                        self.screen = Screen::Lobby;
                        self.chat.clear();
                        self.flash("reconnected, but the server no longer held your session");
                    } else {
                        self.flash("reconnected");
                    }
                }
                let mut commands = self.request(ClientMessage::ListRooms {}, Pending::Rooms);
                commands.extend(send.into_iter().map(Command::Send));
                commands
            }
            Update::Watching { send } => {
                self.flash(WATCHING_INSTEAD);
                send.into_iter().map(Command::Send).collect()
            }
            Update::Message {
                message,
                answers,
                send,
            } => {
                let mut commands = self.on_message(message, answers);
                commands.extend(send.into_iter().map(Command::Send));
                commands
            }
        }
    }

    fn on_message(&mut self, message: ServerMessage, answers: Option<Pending>) -> Vec<Command> {
        match message {
            // The core has taken the welcome; it never comes this far.
            ServerMessage::Welcome { .. } => Vec::new(),
            ServerMessage::Engines { engines } => {
                if let Input::Create(form) = &mut self.input {
                    form.engines = engines.iter().map(|e| e.name).collect();
                }
                Vec::new()
            }
            ServerMessage::Rooms { rooms } => {
                self.rooms = rooms;
                self.selected = self.selected.min(self.rooms.len().saturating_sub(1));
                Vec::new()
            }
            ServerMessage::Room { room } => {
                // The answer to a `sync` only catches up on a room we were already in.
                let entered = answers.is_some_and(|p| p != Pending::Sync);
                self.on_snapshot(*room, entered);
                Vec::new()
            }
            // One that the session could not apply: it has asked for a snapshot.
            ServerMessage::Moved(_) => Vec::new(),
            ServerMessage::Analysis {
                room,
                game,
                ply,
                moves,
            } => {
                let hints = board::Hints {
                    room,
                    game,
                    ply,
                    moves,
                };
                if self.room.as_ref().is_some_and(|r| hints.fits(r)) {
                    self.message = None;
                    self.hints = Some(hints);
                }
                Vec::new()
            }
            ServerMessage::Chat {
                room,
                from,
                seat,
                text,
                ..
            } => {
                if self.room_id() == Some(room) {
                    self.chat.push(ChatLine { from, seat, text });
                    if self.chat.len() > CHAT_KEEP {
                        self.chat.remove(0);
                    }
                }
                Vec::new()
            }
            ServerMessage::Left { room } => {
                if self.room_id() == Some(room) {
                    self.room = None;
                    self.hints = None;
                    self.chat.clear();
                    self.screen = Screen::Lobby;
                }
                self.request(ClientMessage::ListRooms {}, Pending::Rooms)
            }
            ServerMessage::Error { code, message } => {
                self.flash(format!("{code}: {message}"));
                Vec::new()
            }
            ServerMessage::Bye { reason, message } => {
                self.flash(format!("server said bye ({reason}): {message}"));
                Vec::new()
            }
            // Asked for only by the `history`, `replay` and `export` commands, not here.
            ServerMessage::History { .. } | ServerMessage::Game { .. } => Vec::new(),
            // Answers a `/name` typed in the chat line.
            ServerMessage::Renamed { name } => {
                self.flash(format!("you are now {name}"));
                self.name = name;
                Vec::new()
            }
        }
    }

    fn on_snapshot(&mut self, snapshot: RoomSnapshot, answered_us: bool) {
        let same_room = self.room.as_ref().map(|r| &r.id) == Some(&snapshot.id);
        if !same_room && !answered_us && self.room.is_some() {
            // A snapshot of another room we are in (after a resume): keep showing ours.
            return;
        }
        if same_room {
            if let Some(old) = &self.room {
                self.animate(old.clone(), &snapshot);
            }
        } else {
            self.chat.clear();
            self.drop = None;
            self.message = None;
            self.cursor = (snapshot.rules.width / 2, snapshot.rules.height / 2);
        }
        if !snapshot.chat.is_empty() {
            // Entering the room (resuming, a sync) brings what was said up to the
            // snapshot: it replaces what we showed rather than repeat it (the room keeps
            // its last 50 lines, so a longer scrollback is cut back to those).
            let skip = snapshot.chat.len().saturating_sub(CHAT_KEEP);
            self.chat = snapshot.chat[skip..]
                .iter()
                .map(|line| ChatLine {
                    from: line.from.clone(),
                    seat: line.seat,
                    text: line.text.clone(),
                })
                .collect();
        }
        // Hints are about one position: once it changes they would mislead.
        self.hints = self.hints.take().filter(|h| h.fits(&snapshot));
        let w = snapshot.rules.width.max(1);
        let h = snapshot.rules.height.max(1);
        self.cursor = (self.cursor.0.min(w - 1), self.cursor.1.min(h - 1));
        self.room = Some(snapshot);
        self.room_tick = self.ticks;
        self.screen = Screen::Game;
    }

    /// Starts the drop animation when a gravity game gained one stone.
    fn animate(&mut self, old: RoomSnapshot, new: &RoomSnapshot) {
        if !new.rules.gravity || new.game != old.game || new.ply != old.ply + 1 {
            return;
        }
        let Some((col, target)) = board::last_cell(new) else {
            return;
        };
        let Some(mark) = board::stone_at(new, col, target) else {
            return;
        };
        if target > 0 {
            self.drop = Some(Drop {
                col,
                target,
                row: 0,
                mark,
            });
        }
    }

    /// A status line for the shown room: whose turn, whether it is ours, the AI thinking.
    pub fn status_line(&self) -> String {
        match &self.room {
            Some(room) => {
                let sentence = words::status_sentence(room, self.my_seat());
                match (&room.status, self.session.invite_link(&room.id)) {
                    // A friend without the terminal client joins from this link. It comes
                    // first, after a few words, so that an 80-column line shows all of it
                    // (the link holds the invite code).
                    (GameStatus::Waiting, Some(link)) => {
                        format!("Invite a player: {link} · or press a for an AI")
                    }
                    _ => match words::kept_game(room) {
                        Some(kept) => format!("{sentence} · {kept}"),
                        None => sentence,
                    },
                }
            }
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests;
