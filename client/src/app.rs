//! The interactive client's state and its one `update(event) -> commands` function: keys,
//! mouse, ticks and server events change the state and say what to send; nothing here
//! touches the terminal or the network, so tests drive it directly.

use std::collections::HashMap;
use std::time::Duration;

use inarow_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameStatus, Level, Mark, Occupant, RequestId, RoomId,
    RoomSnapshot, RoomSummary, Rules, RulesSpec, SeatChoice, SeatPlan, SeatRequest, ServerMessage,
    SessionId,
};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::board::{self, check_move};
use crate::cli::Startup;
use crate::net::NetEvent;

/// Milliseconds between ticks (animation frames and timers).
pub const TICK: Duration = Duration::from_millis(50);
/// Ticks between lobby refreshes (3 s).
const REFRESH_TICKS: u64 = 60;
/// Ticks a flash message stays on screen (6 s).
const MESSAGE_TICKS: u64 = 120;
/// The largest board side the server accepts (protocol docs: 1 ≤ width, height ≤ 19).
const MAX_SIDE: u32 = 19;
/// Chat lines kept per room.
const CHAT_KEEP: usize = 200;

/// Everything that can happen to the app.
#[derive(Debug, Clone)]
pub enum Event {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event.
    Mouse(MouseEvent),
    /// The terminal was resized to (width, height).
    Resize(u16, u16),
    /// Time passed (one [`TICK`]).
    Tick,
    /// The connection said something.
    Net(NetEvent),
}

/// What the app asks its runner to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Send a frame to the server.
    Send(ClientFrame),
    /// End the program (after restoring the terminal); `exit_message` says why, if not a
    /// plain quit.
    Quit,
}

/// The state of the connection as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// The first connection is being made.
    Connecting,
    /// Welcomed by the server.
    Online,
    /// Down; the connection task retries.
    Reconnecting {
        /// Why it went down.
        reason: String,
    },
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

/// Who sits in a seat of a room being created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatOption {
    /// The creator.
    Me,
    /// Open for someone to join.
    Open,
    /// A server AI.
    Ai(Level),
}

impl SeatOption {
    const CYCLE: [SeatOption; 5] = [
        SeatOption::Me,
        SeatOption::Open,
        SeatOption::Ai(Level::Easy),
        SeatOption::Ai(Level::Medium),
        SeatOption::Ai(Level::Perfect),
    ];

    /// A label for the form.
    pub fn label(self) -> String {
        match self {
            SeatOption::Me => "me".to_owned(),
            SeatOption::Open => "open".to_owned(),
            SeatOption::Ai(level) => format!("AI {level}"),
        }
    }

    fn request(self) -> SeatRequest {
        match self {
            SeatOption::Me => SeatRequest::Me,
            SeatOption::Open => SeatRequest::Open,
            SeatOption::Ai(level) => SeatRequest::Ai { level },
        }
    }
}

/// The rule choices of the create form; the last is custom.
pub const PRESETS: [&str; 4] = ["tictactoe", "connect4", "gomoku", "custom"];

/// The create-room form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateForm {
    /// The focused field, an index into [`CreateForm::FIELDS`].
    pub field: usize,
    /// Index into [`PRESETS`].
    pub preset: usize,
    /// Custom width.
    pub width: u32,
    /// Custom height.
    pub height: u32,
    /// Custom k.
    pub k: u32,
    /// Custom gravity.
    pub gravity: bool,
    /// The X seat.
    pub x: SeatOption,
    /// The O seat.
    pub o: SeatOption,
    /// Hidden from the lobby.
    pub private: bool,
}

impl Default for CreateForm {
    fn default() -> Self {
        CreateForm {
            field: 0,
            preset: 0,
            width: 5,
            height: 5,
            k: 4,
            gravity: false,
            x: SeatOption::Me,
            o: SeatOption::Ai(Level::Perfect),
            private: false,
        }
    }
}

impl CreateForm {
    /// The field names, in order.
    pub const FIELDS: [&'static str; 8] = [
        "rules", "width", "height", "k", "gravity", "X seat", "O seat", "private",
    ];

    /// The value shown for field `i`.
    pub fn value(&self, i: usize) -> String {
        let custom = self.preset == PRESETS.len() - 1;
        let dim = |v: String| if custom { v } else { "-".to_owned() };
        match i {
            0 => PRESETS[self.preset].to_owned(),
            1 => dim(self.width.to_string()),
            2 => dim(self.height.to_string()),
            3 => dim(self.k.to_string()),
            4 => dim(if self.gravity { "yes" } else { "no" }.to_owned()),
            5 => self.x.label(),
            6 => self.o.label(),
            _ => if self.private { "yes" } else { "no" }.to_owned(),
        }
    }

    fn change(&mut self, up: bool) {
        let step = |v: u32, lo: u32, hi: u32| {
            if up {
                (v + 1).min(hi)
            } else {
                v.saturating_sub(1).max(lo)
            }
        };
        let cycle = |i: usize, n: usize| if up { (i + 1) % n } else { (i + n - 1) % n };
        let custom = self.preset == PRESETS.len() - 1;
        match self.field {
            0 => self.preset = cycle(self.preset, PRESETS.len()),
            1 if custom => self.width = step(self.width, 1, MAX_SIDE),
            2 if custom => self.height = step(self.height, 1, MAX_SIDE),
            3 if custom => self.k = step(self.k, 1, MAX_SIDE),
            4 if custom => self.gravity = !self.gravity,
            5 | 6 => {
                let seat = if self.field == 5 {
                    &mut self.x
                } else {
                    &mut self.o
                };
                let i = SeatOption::CYCLE
                    .iter()
                    .position(|s| s == seat)
                    .unwrap_or(0);
                *seat = SeatOption::CYCLE[cycle(i, SeatOption::CYCLE.len())];
            }
            7 => self.private = !self.private,
            _ => {}
        }
    }

    /// The `create_room` message, or why the form cannot be sent.
    ///
    /// # Errors
    /// A message when both seats are "me".
    pub fn message(&self) -> Result<ClientMessage, String> {
        if self.x == SeatOption::Me && self.o == SeatOption::Me {
            return Err("you can hold only one seat: make the other open or an AI".to_owned());
        }
        let rules = if self.preset == PRESETS.len() - 1 {
            RulesSpec::Custom(Rules {
                width: self.width,
                height: self.height,
                k: self.k,
                gravity: self.gravity,
            })
        } else {
            RulesSpec::Preset(PRESETS[self.preset].to_owned())
        };
        Ok(ClientMessage::CreateRoom {
            name: None,
            rules,
            seats: SeatPlan {
                x: self.x.request(),
                o: self.o.request(),
            },
            private: self.private,
        })
    }
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

/// Why a request was sent, so its reply or error can be handled.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    /// A join for any seat that falls back to watching when the room is full.
    JoinOrWatch(RoomId),
    /// A request whose snapshot reply should become the shown room.
    Enter,
    /// Anything else.
    Other,
}

/// The interactive client's whole state.
#[derive(Debug, Clone)]
pub struct App {
    /// Our display name.
    pub name: String,
    /// Our session, once welcomed.
    pub me: Option<SessionId>,
    /// The server's name and version.
    pub server: String,
    /// The connection state.
    pub link: Link,
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
    /// The terminal's size, for mouse hit-testing.
    pub size: Rect,
    /// Set when the program should end with a message (printed after the terminal is
    /// restored).
    pub exit_message: Option<String>,
    startup: Option<Startup>,
    next_id: u64,
    pending: HashMap<u64, Pending>,
    ticks: u64,
    message_until: u64,
    resign_armed: bool,
}

impl App {
    /// A fresh app for `name` that will do `startup` once welcomed.
    pub fn new(name: String, startup: Startup) -> App {
        App {
            name,
            me: None,
            server: String::new(),
            link: Link::Connecting,
            screen: Screen::Lobby,
            rooms: Vec::new(),
            selected: 0,
            room: None,
            chat: Vec::new(),
            cursor: (0, 0),
            input: Input::Keys,
            message: None,
            drop: None,
            size: Rect::new(0, 0, 80, 24),
            exit_message: None,
            startup: Some(startup),
            next_id: 1,
            pending: HashMap::new(),
            ticks: 0,
            message_until: 0,
            resign_armed: false,
        }
    }

    /// The seat we hold in the shown room.
    pub fn my_seat(&self) -> Option<Mark> {
        self.room.as_ref().and_then(|r| board::my_seat(r, self.me))
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

    fn request(&mut self, message: ClientMessage, pending: Pending) -> Vec<Command> {
        if self.link != Link::Online {
            self.flash("not connected: wait for the connection to come back");
            return Vec::new();
        }
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id, pending);
        vec![Command::Send(ClientFrame {
            message,
            id: Some(RequestId::Number(id)),
        })]
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
            && self.link == Link::Online
            && self.ticks.is_multiple_of(REFRESH_TICKS)
        {
            return self.request(ClientMessage::ListRooms {}, Pending::Other);
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
                match app.room_id() {
                    Some(room) if !text.is_empty() => {
                        app.request(ClientMessage::Chat { room, text }, Pending::Other)
                    }
                    _ => Vec::new(),
                }
            }),
            Input::Code(text) => self.line_key(key, text, Input::Code, |app, text| {
                let code = text.trim().to_owned();
                if code.is_empty() {
                    return Vec::new();
                }
                app.join_or_watch(RoomId(code))
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
            KeyCode::Enter => submit(self, text),
            KeyCode::Esc => Vec::new(),
            KeyCode::Backspace => {
                text.pop();
                self.input = keep(text);
                Vec::new()
            }
            KeyCode::Char(c) => {
                // Chat is bounded by the server (500 chars); stop typing a little past it.
                if text.chars().count() < 500 {
                    text.push(c);
                }
                self.input = keep(text);
                Vec::new()
            }
            _ => {
                self.input = keep(text);
                Vec::new()
            }
        }
    }

    fn join_or_watch(&mut self, room: RoomId) -> Vec<Command> {
        self.request(
            ClientMessage::Join {
                room: room.clone(),
                seat: Some(SeatChoice::Any),
            },
            Pending::JoinOrWatch(room),
        )
    }

    /// Quitting gives up the room the user is in: the session token is not kept across runs,
    /// so this client could never resume the seat, and holding it through the reconnection
    /// grace would only keep the others waiting.
    fn quit(&mut self) -> Vec<Command> {
        let mut commands = match &self.room {
            Some(room) => {
                let room = room.id.clone();
                self.request(ClientMessage::Leave { room }, Pending::Other)
            }
            None => Vec::new(),
        };
        commands.push(Command::Quit);
        commands
    }

    fn lobby_key(&mut self, key: KeyEvent) -> Vec<Command> {
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
            KeyCode::Enter => match self.rooms.get(self.selected) {
                Some(room) => self.join_or_watch(room.id.clone()),
                None => Vec::new(),
            },
            KeyCode::Char('w') => match self.rooms.get(self.selected) {
                Some(room) => {
                    let room = room.id.clone();
                    self.request(ClientMessage::Join { room, seat: None }, Pending::Enter)
                }
                None => Vec::new(),
            },
            KeyCode::Char('n') | KeyCode::Char('c') => {
                self.input = Input::Create(CreateForm::default());
                Vec::new()
            }
            KeyCode::Char('i') => {
                self.input = Input::Code(String::new());
                Vec::new()
            }
            KeyCode::Char('r') => self.request(ClientMessage::ListRooms {}, Pending::Other),
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
                Ok(message) => return self.request(message, Pending::Enter),
                Err(e) => self.flash(e),
            },
            KeyCode::Up | KeyCode::Char('k') => form.field = form.field.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => {
                form.field = (form.field + 1).min(CreateForm::FIELDS.len() - 1);
            }
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
        // Resigning takes two presses of f in a row, so a stray key does not end a game.
        let confirmed = std::mem::take(&mut self.resign_armed) && key.code == KeyCode::Char('f');
        match key.code {
            KeyCode::Left | KeyCode::Char('h') => self.cursor.0 = self.cursor.0.saturating_sub(1),
            KeyCode::Right | KeyCode::Char('l') => self.cursor.0 = (self.cursor.0 + 1).min(w - 1),
            KeyCode::Up | KeyCode::Char('k') => self.cursor.1 = self.cursor.1.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.cursor.1 = (self.cursor.1 + 1).min(h - 1),
            KeyCode::Enter | KeyCode::Char(' ') => return self.play_cursor(),
            KeyCode::Char(':') => self.input = Input::Move(String::new()),
            KeyCode::Char('c') | KeyCode::Char('t') => self.input = Input::Chat(String::new()),
            KeyCode::Char('r') => {
                return self.request(ClientMessage::Rematch { room: room_id }, Pending::Other);
            }
            KeyCode::Char('f') if confirmed => {
                return self.request(ClientMessage::Resign { room: room_id }, Pending::Other);
            }
            KeyCode::Char('f') => {
                self.resign_armed = true;
                self.flash("press f again to resign");
            }
            KeyCode::Char('s') => {
                return self.request(
                    ClientMessage::Join {
                        room: room_id,
                        seat: Some(SeatChoice::Any),
                    },
                    Pending::Other,
                );
            }
            KeyCode::Char('a') => {
                let empty = room
                    .seats
                    .iter()
                    .find(|s| s.occupant == Occupant::Empty)
                    .map(|s| s.mark);
                return match empty {
                    Some(seat) => self.request(
                        ClientMessage::SetSeat {
                            room: room_id,
                            seat,
                            ai: Some(Level::Perfect),
                        },
                        Pending::Other,
                    ),
                    None => {
                        self.flash("no empty seat for an AI");
                        Vec::new()
                    }
                };
            }
            KeyCode::Char('q') | KeyCode::Esc => {
                return self.request(ClientMessage::Leave { room: room_id }, Pending::Other);
            }
            KeyCode::Char('b') => self.screen = Screen::Lobby,
            _ => {}
        }
        Vec::new()
    }

    /// The move the cursor names: its cell, or with gravity its column.
    pub fn cursor_move(&self) -> Option<String> {
        let room = self.room.as_ref()?;
        let (col, top) = self.cursor;
        Some(if room.rules.gravity {
            board::column_letter(col).to_string()
        } else {
            board::cell_name(col, room.rules.height - top)
        })
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
        match check_move(room, self.me, text) {
            Ok(mv) => {
                let message = ClientMessage::Play {
                    room: room.id.clone(),
                    ply: room.ply,
                    mv,
                };
                self.request(message, Pending::Other)
            }
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
        let layout = crate::ui::game_layout(self.size, &room.rules);
        match crate::ui::cell_at(&layout, &room.rules, mouse.column, mouse.row) {
            Some(cell) => {
                self.cursor = cell;
                self.play_cursor()
            }
            None => Vec::new(),
        }
    }

    fn on_net(&mut self, event: NetEvent) -> Vec<Command> {
        match event {
            NetEvent::Down { reason, retry_in } => {
                self.link = Link::Reconnecting {
                    reason: format!("{reason}; retrying in {:.1}s", retry_in.as_secs_f32()),
                };
                // Replies to requests sent on the lost connection will never come.
                self.pending.clear();
                Vec::new()
            }
            NetEvent::Fatal(message) => {
                self.exit_message = Some(message);
                vec![Command::Quit]
            }
            NetEvent::Frame(frame) => {
                let pending = match &frame.id {
                    Some(RequestId::Number(n)) => self.pending.remove(n),
                    _ => None,
                };
                self.on_message(frame.message, pending)
            }
        }
    }

    fn on_message(&mut self, message: ServerMessage, pending: Option<Pending>) -> Vec<Command> {
        match message {
            ServerMessage::Welcome {
                session,
                server,
                resumed,
                ..
            } => {
                self.me = Some(session);
                self.server = server;
                let was_down = self.link != Link::Connecting;
                self.link = Link::Online;
                if was_down {
                    if resumed {
                        self.flash("reconnected");
                    } else if self.room.take().is_some() {
                        self.screen = Screen::Lobby;
                        self.chat.clear();
                        self.flash("reconnected, but the server no longer held your session");
                    } else {
                        self.flash("reconnected");
                    }
                }
                let mut commands = self.request(ClientMessage::ListRooms {}, Pending::Other);
                if let Some(startup) = self.startup.take() {
                    commands.extend(self.start(startup));
                }
                commands
            }
            ServerMessage::Rooms { rooms } => {
                self.rooms = rooms;
                self.selected = self.selected.min(self.rooms.len().saturating_sub(1));
                Vec::new()
            }
            ServerMessage::Room { room } => {
                self.on_snapshot(*room, pending.is_some());
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
                    self.chat.clear();
                    self.screen = Screen::Lobby;
                }
                self.request(ClientMessage::ListRooms {}, Pending::Other)
            }
            ServerMessage::Error { code, message } => {
                if let (Some(Pending::JoinOrWatch(room)), ErrorCode::RoomFull) = (&pending, code) {
                    self.flash("both seats are taken: watching");
                    let room = room.clone();
                    return self.request(ClientMessage::Join { room, seat: None }, Pending::Enter);
                }
                self.flash(format!("{code}: {message}"));
                Vec::new()
            }
            ServerMessage::Bye { reason, message } => {
                let reason = serde_json::to_value(reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                self.flash(format!("server said bye ({reason}): {message}"));
                Vec::new()
            }
        }
    }

    fn start(&mut self, startup: Startup) -> Vec<Command> {
        match startup {
            Startup::Lobby | Startup::Rooms => Vec::new(),
            Startup::Play { rules, seat, level } => {
                let (me, ai) = (SeatRequest::Me, SeatRequest::Ai { level });
                let seats = match seat {
                    Mark::X => SeatPlan { x: me, o: ai },
                    Mark::O => SeatPlan { x: ai, o: me },
                };
                self.request(
                    ClientMessage::CreateRoom {
                        name: None,
                        rules,
                        seats,
                        private: true,
                    },
                    Pending::Enter,
                )
            }
            Startup::Join(room) => self.join_or_watch(room),
            Startup::Watch(room) => {
                self.request(ClientMessage::Join { room, seat: None }, Pending::Enter)
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
        let w = snapshot.rules.width.max(1);
        let h = snapshot.rules.height.max(1);
        self.cursor = (self.cursor.0.min(w - 1), self.cursor.1.min(h - 1));
        self.room = Some(snapshot);
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
        let Some(room) = &self.room else {
            return String::new();
        };
        let mine = self.my_seat();
        match &room.status {
            GameStatus::Waiting => format!(
                "Waiting for a player: share the invite code {} (or press a to seat an AI)",
                room.id
            ),
            GameStatus::Playing { turn } => {
                let who = if mine == Some(*turn) {
                    format!("Your turn ({turn})")
                } else {
                    format!("{turn} to move")
                };
                let offline = matches!(
                    board::occupant(room, *turn),
                    Some(Occupant::Human {
                        connected: false,
                        ..
                    })
                );
                if board::ai_thinking(room) {
                    format!("{who}: AI is thinking…")
                } else if offline {
                    format!("{who}: waiting for {turn} to reconnect")
                } else if mine.is_some() && mine != Some(*turn) {
                    format!("{who}: waiting for the opponent")
                } else {
                    who
                }
            }
            GameStatus::Won { winner, .. } => outcome(*winner, mine, "wins"),
            GameStatus::Resigned { winner } => outcome(*winner, mine, "wins by resignation"),
            GameStatus::Drawn => "Draw. Press r for a rematch".to_owned(),
        }
    }
}

fn outcome(winner: Mark, mine: Option<Mark>, how: &str) -> String {
    let verdict = match mine {
        Some(m) if m == winner => " (you won!)",
        Some(_) => " (you lost)",
        None => "",
    };
    format!("{winner} {how}{verdict}. Press r for a rematch")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::{C4, TTT, session, snapshot};
    use inarow_protocol::ServerFrame;

    fn key(c: char) -> Event {
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    fn code(k: KeyCode) -> Event {
        Event::Key(KeyEvent::new(k, KeyModifiers::NONE))
    }

    fn frame(message: ServerMessage) -> Event {
        Event::Net(NetEvent::Frame(ServerFrame { message, id: None }))
    }

    fn welcomed() -> App {
        let mut app = App::new("alice".into(), Startup::Lobby);
        app.update(frame(ServerMessage::Welcome {
            protocol: 1,
            session: session(1),
            token: "t".into(),
            server: "inarow-server test".into(),
            resumed: false,
        }));
        app
    }

    fn in_game(snap: RoomSnapshot) -> App {
        let mut app = welcomed();
        app.update(frame(ServerMessage::Room {
            room: Box::new(snap),
        }));
        assert_eq!(app.screen, Screen::Game);
        app
    }

    fn sent(commands: &[Command]) -> Vec<ClientMessage> {
        commands
            .iter()
            .filter_map(|c| match c {
                Command::Send(f) => Some(f.message.clone()),
                Command::Quit => None,
            })
            .collect()
    }

    fn play(ply: u32, mv: &str) -> ClientMessage {
        ClientMessage::Play {
            room: RoomId::from("abcd2345"),
            ply,
            mv: mv.into(),
        }
    }

    #[test]
    fn arrows_and_enter_play_the_cursor_cell() {
        let mut app = in_game(snapshot(
            TTT,
            &["...", "...", "..."],
            GameStatus::Playing { turn: Mark::X },
        ));
        assert_eq!(app.cursor, (1, 1));
        assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(0, "b2")]);
        app.update(code(KeyCode::Left));
        app.update(code(KeyCode::Up));
        assert_eq!(sent(&app.update(key(' '))), vec![play(0, "a3")]);
        // hjkl, and the cursor stops at the edge.
        for _ in 0..5 {
            app.update(key('l'));
            app.update(key('j'));
        }
        assert_eq!(app.cursor, (2, 2));
        assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(0, "c1")]);
    }

    #[test]
    fn typed_coordinates_play_after_a_colon() {
        let mut app = in_game(snapshot(
            TTT,
            &["...", ".O.", "X.."],
            GameStatus::Playing { turn: Mark::X },
        ));
        app.update(key(':'));
        app.update(key('c'));
        app.update(key('3'));
        assert_eq!(app.input, Input::Move("c3".into()));
        assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(2, "c3")]);
        assert_eq!(app.input, Input::Keys);
    }

    #[test]
    fn illegal_input_sends_nothing_and_says_why() {
        let mut app = in_game(snapshot(
            TTT,
            &["...", ".O.", "X.."],
            GameStatus::Playing { turn: Mark::X },
        ));
        // Occupied cell under the cursor (b2).
        assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
        assert_eq!(app.message.as_deref(), Some("b2 is already taken"));
        for text in ["a1", "d4", "zz", "b"] {
            app.update(key(':'));
            for c in text.chars() {
                app.update(key(c));
            }
            assert!(sent(&app.update(code(KeyCode::Enter))).is_empty(), "{text}");
            assert!(app.message.is_some(), "{text}");
        }
        // Not our turn.
        let mut app = in_game(snapshot(
            TTT,
            &["...", "...", "X.."],
            GameStatus::Playing { turn: Mark::O },
        ));
        assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
        assert_eq!(app.message.as_deref(), Some("it is not your turn"));
    }

    #[test]
    fn gravity_plays_the_cursor_column() {
        let mut app = in_game(snapshot(
            C4,
            &[
                ".......", ".......", ".......", ".......", ".......", "...X...",
            ],
            GameStatus::Playing { turn: Mark::X },
        ));
        // The column is what counts, wherever the cursor's row is.
        app.update(key('k'));
        assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(1, "d")]);
        app.update(key('l'));
        app.update(key('l'));
        assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(1, "f")]);
        app.update(key(':'));
        app.update(key('2'));
        assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(1, "b")]);
    }

    #[test]
    fn a_new_gravity_stone_drops_with_ticks() {
        let before = snapshot(
            C4,
            &[
                ".......", ".......", ".......", ".......", ".......", ".......",
            ],
            GameStatus::Playing { turn: Mark::X },
        );
        let mut app = in_game(before.clone());
        let mut after = snapshot(
            C4,
            &[
                ".......", ".......", ".......", ".......", ".......", "..X....",
            ],
            GameStatus::Playing { turn: Mark::O },
        );
        after.last_move = Some("c1".into());
        app.update(frame(ServerMessage::Room {
            room: Box::new(after),
        }));
        assert_eq!(
            app.drop,
            Some(Drop {
                col: 2,
                target: 5,
                row: 0,
                mark: Mark::X
            })
        );
        for _ in 0..5 {
            app.update(Event::Tick);
        }
        assert_eq!(app.drop.map(|d| d.row), Some(5));
        app.update(Event::Tick);
        assert_eq!(app.drop, None);
    }

    #[test]
    fn mouse_click_plays_the_clicked_cell() {
        let mut app = in_game(snapshot(
            TTT,
            &["...", "...", "..."],
            GameStatus::Playing { turn: Mark::X },
        ));
        let rules = app.room.as_ref().expect("in a room").rules;
        let layout = crate::ui::game_layout(app.size, &rules);
        let (x, y) = crate::ui::cell_origin(&layout, &rules, 2, 0);
        let click = MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        };
        assert_eq!(sent(&app.update(Event::Mouse(click))), vec![play(0, "c3")]);
    }

    #[test]
    fn chat_rematch_and_leave_are_keys() {
        let mut app = in_game(snapshot(TTT, &["...", "...", "..."], GameStatus::Drawn));
        app.update(key('c'));
        for ch in "gg".chars() {
            app.update(key(ch));
        }
        let room = RoomId::from("abcd2345");
        assert_eq!(
            sent(&app.update(code(KeyCode::Enter))),
            vec![ClientMessage::Chat {
                room: room.clone(),
                text: "gg".into()
            }]
        );
        assert_eq!(
            sent(&app.update(key('r'))),
            vec![ClientMessage::Rematch { room: room.clone() }]
        );
        assert!(sent(&app.update(key('f'))).is_empty());
        assert_eq!(app.message.as_deref(), Some("press f again to resign"));
        assert_eq!(
            sent(&app.update(key('f'))),
            vec![ClientMessage::Resign { room: room.clone() }]
        );
        app.update(key('f'));
        app.update(key('h'));
        assert!(
            sent(&app.update(key('f'))).is_empty(),
            "another key disarms"
        );
        assert_eq!(
            sent(&app.update(key('q'))),
            vec![ClientMessage::Leave { room: room.clone() }]
        );
        app.update(frame(ServerMessage::Left { room }));
        assert_eq!(app.screen, Screen::Lobby);
        assert!(app.room.is_none());
    }

    #[test]
    fn join_falls_back_to_watching_when_full() {
        let mut app = App::new("bob".into(), Startup::Join(RoomId::from("abcd2345")));
        let commands = app.update(frame(ServerMessage::Welcome {
            protocol: 1,
            session: session(2),
            token: "t".into(),
            server: "s".into(),
            resumed: false,
        }));
        let join = commands
            .iter()
            .find_map(|c| match c {
                Command::Send(f) if matches!(f.message, ClientMessage::Join { .. }) => {
                    Some(f.clone())
                }
                _ => None,
            })
            .expect("join sent");
        let commands = app.update(Event::Net(NetEvent::Frame(ServerFrame {
            message: ServerMessage::Error {
                code: ErrorCode::RoomFull,
                message: "full".into(),
            },
            id: join.id,
        })));
        assert_eq!(
            sent(&commands),
            vec![ClientMessage::Join {
                room: RoomId::from("abcd2345"),
                seat: None
            }]
        );
    }

    #[test]
    fn nothing_is_sent_while_reconnecting_and_errors_keep_the_board() {
        let snap = snapshot(
            TTT,
            &["...", "...", "..."],
            GameStatus::Playing { turn: Mark::X },
        );
        let mut app = in_game(snap.clone());
        app.update(Event::Net(NetEvent::Down {
            reason: "connection lost".into(),
            retry_in: Duration::from_millis(200),
        }));
        assert!(matches!(app.link, Link::Reconnecting { .. }));
        assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
        assert!(app.message.is_some());
        app.update(frame(ServerMessage::Welcome {
            protocol: 1,
            session: session(1),
            token: "t".into(),
            server: "s".into(),
            resumed: true,
        }));
        assert_eq!(app.link, Link::Online);
        app.update(frame(ServerMessage::Error {
            code: ErrorCode::StalePly,
            message: "stale".into(),
        }));
        assert_eq!(app.message.as_deref(), Some("stale_ply: stale"));
        assert_eq!(app.room.as_ref(), Some(&snap));
    }

    #[test]
    fn fatal_events_quit_with_a_message() {
        let mut app = App::new("a".into(), Startup::Lobby);
        let commands = app.update(Event::Net(NetEvent::Fatal("unsupported".into())));
        assert_eq!(commands, vec![Command::Quit]);
        assert_eq!(app.exit_message.as_deref(), Some("unsupported"));
    }

    #[test]
    fn lobby_keys_join_watch_and_use_invite_codes() {
        let mut app = welcomed();
        let summary = |id: &str| RoomSummary {
            id: RoomId::from(id),
            name: "r".into(),
            rules: TTT,
            seats: Vec::new(),
            status: GameStatus::Waiting,
            spectators: 0,
        };
        app.update(frame(ServerMessage::Rooms {
            rooms: vec![summary("aaaa2222"), summary("bbbb3333")],
        }));
        app.update(code(KeyCode::Down));
        app.update(code(KeyCode::Down));
        assert_eq!(app.selected, 1);
        assert_eq!(
            sent(&app.update(code(KeyCode::Enter))),
            vec![ClientMessage::Join {
                room: RoomId::from("bbbb3333"),
                seat: Some(SeatChoice::Any)
            }]
        );
        app.update(key('k'));
        assert_eq!(
            sent(&app.update(key('w'))),
            vec![ClientMessage::Join {
                room: RoomId::from("aaaa2222"),
                seat: None
            }]
        );
        app.update(key('i'));
        for c in "zzzz9999".chars() {
            app.update(key(c));
        }
        assert_eq!(
            sent(&app.update(code(KeyCode::Enter))),
            vec![ClientMessage::Join {
                room: RoomId::from("zzzz9999"),
                seat: Some(SeatChoice::Any)
            }]
        );
        // The lobby refreshes itself every few seconds.
        let refreshes = (0..REFRESH_TICKS)
            .flat_map(|_| sent(&app.update(Event::Tick)))
            .filter(|m| *m == ClientMessage::ListRooms {})
            .count();
        assert_eq!(refreshes, 1);
        assert_eq!(app.update(key('q')), vec![Command::Quit]);
    }

    #[test]
    fn quitting_leaves_the_room_first() {
        let snap = snapshot(
            TTT,
            &["...", "...", "..."],
            GameStatus::Playing { turn: Mark::X },
        );
        let room = snap.id.clone();
        let mut app = in_game(snap);
        let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        let commands = app.update(ctrl_c);
        assert_eq!(sent(&commands), vec![ClientMessage::Leave { room }]);
        assert_eq!(commands.last(), Some(&Command::Quit));
        // From the lobby with no room there is nothing to leave.
        let mut app = welcomed();
        assert_eq!(app.update(key('q')), vec![Command::Quit]);
    }

    #[test]
    fn an_empty_seat_can_be_given_to_an_ai() {
        let mut snap = snapshot(TTT, &["...", "...", "..."], GameStatus::Waiting);
        snap.seats[1].occupant = Occupant::Empty;
        let mut app = in_game(snap);
        assert!(app.status_line().starts_with("Waiting for a player"));
        assert_eq!(
            sent(&app.update(key('a'))),
            vec![ClientMessage::SetSeat {
                room: RoomId::from("abcd2345"),
                seat: Mark::O,
                ai: Some(Level::Perfect)
            }]
        );
        // A move before the game starts is refused locally.
        assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
        assert_eq!(app.message.as_deref(), Some("the game has not started yet"));
    }

    #[test]
    fn the_create_form_builds_create_room() {
        let mut app = welcomed();
        app.update(key('n'));
        app.update(code(KeyCode::Right)); // connect4
        for _ in 0..6 {
            app.update(code(KeyCode::Down)); // to O seat
        }
        app.update(code(KeyCode::Left)); // AI perfect -> AI medium
        app.update(code(KeyCode::Down));
        app.update(code(KeyCode::Right)); // private
        let commands = app.update(code(KeyCode::Enter));
        assert_eq!(
            sent(&commands),
            vec![ClientMessage::CreateRoom {
                name: None,
                rules: RulesSpec::Preset("connect4".into()),
                seats: SeatPlan {
                    x: SeatRequest::Me,
                    o: SeatRequest::Ai {
                        level: Level::Medium
                    }
                },
                private: true,
            }]
        );
    }
}
