//! Hand-written JSON for the messages the server sends most: `moved` (every move) and the
//! `room` snapshot (joins, seat changes, every game's end and rematch). Each is the same
//! text, byte for byte, as [`crate::encode`] gives through serde (property tests in
//! `tests/properties.rs` check it on random values); serde_json escapes every key and
//! scans every string on the way, which made these two the largest part of a move's cost.
//!
//! A snapshot is written from a [`RoomSource`]: a [`RoomSnapshot`], or a server's own
//! record of the room, which then never builds the snapshot's strings (every cell name of
//! the moves played and the legal moves, every board row) only to copy them out again.
//! [`encode_moved`] does the same for a `moved` event.
//!
//! The field order is the struct's declaration order, as serde writes it: a field added to
//! [`RoomSnapshot`] or [`MoveEvent`] must be added here too, which the property tests
//! catch (their values would no longer decode the same).

use crate::{
    GameId, GameStatus, Level, Mark, MoveEvent, Occupant, RoomId, RoomSnapshot, Rules, SeatInfo,
    ServerMessage, SessionId, encode, encode_with_capacity,
};

/// A server message as [`encode`] spells it, byte for byte, with `moved` and `room` written
/// by hand. Other messages go through serde, into a buffer of `capacity` bytes to begin
/// with (see [`encode_with_capacity`]).
pub fn encode_message(message: &ServerMessage, capacity: usize) -> String {
    match message {
        ServerMessage::Moved(event) => {
            let mut out = String::with_capacity(capacity);
            moved(&mut out, event);
            out
        }
        ServerMessage::Room { room } => encode_room(room.as_ref(), capacity),
        other => encode_with_capacity(other, capacity),
    }
}

/// The `room` message of the snapshot `room` gives, as [`encode_message`] spells
/// `ServerMessage::Room` of the same snapshot, into a buffer of `capacity` bytes to begin
/// with.
pub fn encode_room(room: &impl RoomSource, capacity: usize) -> String {
    let mut out = String::with_capacity(capacity);
    out.push_str("{\"type\":\"room\",\"room\":");
    snapshot(&mut out, room);
    out.push('}');
    out
}

/// A room snapshot as [`encode_room`] reads it: a [`RoomSnapshot`], or whatever a server
/// keeps a room as. The lists are pushed into a [`Strs`], so their strings need not exist
/// beforehand; each method is called once per snapshot written.
pub trait RoomSource {
    /// The snapshot's single values.
    fn fields(&self) -> RoomFields<'_>;
    /// The seats, X first, each pushed into `seats` (a server's own record of a seat
    /// lends its name rather than cloning it into a [`SeatInfo`]).
    fn seats(&self, seats: &mut Seats<'_>);
    /// The board's rows, top row first.
    fn board(&self, rows: &mut Strs<'_>);
    /// The moves played, oldest first.
    fn moves(&self, moves: &mut Strs<'_>);
    /// The legal moves; none when nobody may move.
    fn legal_moves(&self, moves: &mut Strs<'_>);
    /// The game's status, a won game's line aside: [`RoomSource::line`] writes it.
    fn status(&self) -> StatusView;
    /// The cells of the line that won the game, when [`RoomSource::status`] is
    /// [`StatusView::Won`]: never called otherwise.
    fn line(&self, cells: &mut Strs<'_>);
    /// The cell of the last stone placed: at most one push, none before the first move.
    fn last_move(&self, cell: &mut Strs<'_>);
    /// Names of the spectators.
    fn spectators(&self, names: &mut Strs<'_>);
}

/// The single values of a room snapshot, as in [`RoomSnapshot`].
#[derive(Debug, Clone, Copy)]
pub struct RoomFields<'a> {
    /// The room id.
    pub id: &'a RoomId,
    /// Display name.
    pub name: &'a str,
    /// The rules played.
    pub rules: Rules,
    /// Hidden from the lobby.
    pub private: bool,
    /// Players may analyse while the game is on.
    pub hints: bool,
    /// The room's event sequence number.
    pub seq: u64,
    /// Which game of the room this is.
    pub game: u32,
    /// Number of moves played.
    pub ply: u32,
    /// The id of the room's last finished game, once one has ended.
    pub last_game: Option<GameId>,
}

/// A seat as a snapshot writes it: a [`SeatInfo`] whose name is borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatView<'a> {
    /// The seat's mark.
    pub mark: Mark,
    /// Who sits there.
    pub occupant: OccupantView<'a>,
    /// Whether the seat has asked for a rematch.
    pub rematch: bool,
}

/// Who sits in a seat, as [`Occupant`] with the name borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OccupantView<'a> {
    /// Nobody.
    Empty,
    /// A person.
    Human {
        /// Display name.
        name: &'a str,
        /// Their session id (public: it names the player, it does not resume anything).
        session: SessionId,
        /// Whether they are connected right now.
        connected: bool,
    },
    /// A server-side AI.
    Ai {
        /// How well it plays.
        level: Level,
        /// Whether it is computing its move right now.
        thinking: bool,
    },
}

impl<'a> From<&'a SeatInfo> for SeatView<'a> {
    fn from(seat: &'a SeatInfo) -> SeatView<'a> {
        SeatView {
            mark: seat.mark,
            occupant: match &seat.occupant {
                Occupant::Empty => OccupantView::Empty,
                Occupant::Human {
                    name,
                    session,
                    connected,
                } => OccupantView::Human {
                    name,
                    session: *session,
                    connected: *connected,
                },
                Occupant::Ai { level, thinking } => OccupantView::Ai {
                    level: *level,
                    thinking: *thinking,
                },
            },
            rematch: seat.rematch,
        }
    }
}

impl From<SeatView<'_>> for SeatInfo {
    fn from(seat: SeatView<'_>) -> SeatInfo {
        SeatInfo {
            mark: seat.mark,
            occupant: match seat.occupant {
                OccupantView::Empty => Occupant::Empty,
                OccupantView::Human {
                    name,
                    session,
                    connected,
                } => Occupant::Human {
                    name: name.to_owned(),
                    session,
                    connected,
                },
                OccupantView::Ai { level, thinking } => Occupant::Ai { level, thinking },
            },
            rematch: seat.rematch,
        }
    }
}

/// A game's status as a snapshot writes it: [`GameStatus`] without a won game's line,
/// which the source writes in place ([`RoomSource::line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusView {
    /// A seat is empty.
    Waiting,
    /// `turn` is to move.
    Playing {
        /// Whose turn it is.
        turn: Mark,
    },
    /// `winner` made a line.
    Won {
        /// Who won.
        winner: Mark,
    },
    /// The board is full.
    Drawn,
    /// The loser resigned.
    Resigned {
        /// Who won.
        winner: Mark,
    },
}

impl From<&GameStatus> for StatusView {
    fn from(status: &GameStatus) -> StatusView {
        match status {
            GameStatus::Waiting => StatusView::Waiting,
            GameStatus::Playing { turn } => StatusView::Playing { turn: *turn },
            GameStatus::Won { winner, .. } => StatusView::Won { winner: *winner },
            GameStatus::Drawn => StatusView::Drawn,
            GameStatus::Resigned { winner } => StatusView::Resigned { winner: *winner },
        }
    }
}

/// Seats written as JSON objects, one after another with commas between.
pub struct Seats<'a> {
    out: &'a mut String,
    empty: bool,
}

impl Seats<'_> {
    /// Writes `seat` as the next seat.
    pub fn push(&mut self, seat: SeatView<'_>) {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        write_seat(self.out, seat);
    }
}

impl RoomSource for RoomSnapshot {
    fn fields(&self) -> RoomFields<'_> {
        RoomFields {
            id: &self.id,
            name: &self.name,
            rules: self.rules,
            private: self.private,
            hints: self.hints,
            seq: self.seq,
            game: self.game,
            ply: self.ply,
            last_game: self.last_game,
        }
    }
    fn seats(&self, seats: &mut Seats<'_>) {
        for seat in &self.seats {
            seats.push(SeatView::from(seat));
        }
    }
    fn board(&self, rows: &mut Strs<'_>) {
        rows.extend(&self.board);
    }
    fn moves(&self, moves: &mut Strs<'_>) {
        moves.extend(&self.moves);
    }
    fn legal_moves(&self, moves: &mut Strs<'_>) {
        moves.extend(&self.legal_moves);
    }
    fn status(&self) -> StatusView {
        StatusView::from(&self.status)
    }
    fn line(&self, cells: &mut Strs<'_>) {
        if let GameStatus::Won { line, .. } = &self.status {
            cells.extend(line);
        }
    }
    fn last_move(&self, cell: &mut Strs<'_>) {
        cell.extend(&self.last_move);
    }
    fn spectators(&self, names: &mut Strs<'_>) {
        names.extend(&self.spectators);
    }
}

/// Strings written as JSON, one after another with commas between, into the text being
/// encoded: the items of an array, or the value of an optional field.
pub struct Strs<'a> {
    out: &'a mut String,
    empty: bool,
}

impl Strs<'_> {
    /// Writes `text` as the next string.
    pub fn push(&mut self, text: &str) {
        self.separate();
        push_json_str(self.out, text);
    }

    /// Writes every item of `items`.
    pub fn extend<S: AsRef<str>>(&mut self, items: impl IntoIterator<Item = S>) {
        for item in items {
            self.push(item.as_ref());
        }
    }

    /// Writes the next string as `write` appends it to the buffer it is given, without
    /// building it first. Escaped as [`Strs::push`] would if it needs to be.
    pub fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        self.separate();
        self.out.push('"');
        let start = self.out.len();
        write(self.out);
        if self.out[start..].bytes().all(plain) {
            self.out.push('"');
        } else {
            let text = self.out.split_off(start);
            self.out.truncate(start - 1);
            push_json_str(self.out, &text);
        }
    }

    fn separate(&mut self) {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
    }
}

/// Writes a JSON array of the strings `fill` pushes.
fn push_array(out: &mut String, fill: impl FnOnce(&mut Strs<'_>)) {
    out.push('[');
    fill(&mut Strs { out, empty: true });
    out.push(']');
}

fn moved(out: &mut String, event: &MoveEvent) {
    let fields = MovedFields {
        room: &event.room,
        seq: event.seq,
        game: event.game,
        ply: event.ply,
        by: event.by,
        status: &event.status,
    };
    moved_with(
        out,
        fields,
        |out| out.push_str(&event.mv),
        |out| out.push_str(&event.cell),
    );
}

/// The single values of a `moved` event, as in [`MoveEvent`].
#[derive(Debug, Clone, Copy)]
pub struct MovedFields<'a> {
    /// The room.
    pub room: &'a RoomId,
    /// The room's event sequence number.
    pub seq: u64,
    /// Which game of the room the move was played in.
    pub game: u32,
    /// Moves played after this one.
    pub ply: u32,
    /// The mark that moved.
    pub by: Mark,
    /// The game's status after the move.
    pub status: &'a GameStatus,
}

/// The `moved` message of `fields`, the move that `mv` appends in notation and the cell
/// that `cell` appends, as [`encode_message`] spells `ServerMessage::Moved` of the same
/// event: a server writes it from its own record of the game, without making the event's
/// strings first. Into a buffer of `capacity` bytes to begin with.
pub fn encode_moved(
    fields: MovedFields<'_>,
    mv: impl FnOnce(&mut String),
    cell: impl FnOnce(&mut String),
    capacity: usize,
) -> String {
    let mut out = String::with_capacity(capacity);
    moved_with(&mut out, fields, mv, cell);
    out
}

fn moved_with(
    out: &mut String,
    fields: MovedFields<'_>,
    mv: impl FnOnce(&mut String),
    cell: impl FnOnce(&mut String),
) {
    out.push_str("{\"type\":\"moved\",\"room\":");
    push_json_str(out, &fields.room.0);
    push_number(out, ",\"seq\":", fields.seq);
    push_number(out, ",\"game\":", u64::from(fields.game));
    push_number(out, ",\"ply\":", u64::from(fields.ply));
    out.push_str(",\"move\":");
    Strs { out, empty: true }.push_with(mv);
    out.push_str(",\"cell\":");
    Strs { out, empty: true }.push_with(cell);
    out.push_str(",\"by\":");
    out.push_str(mark(fields.by));
    out.push_str(",\"status\":");
    status(out, fields.status);
    out.push('}');
}

fn snapshot(out: &mut String, room: &impl RoomSource) {
    let fields = room.fields();
    out.push_str("{\"id\":");
    push_json_str(out, &fields.id.0);
    out.push_str(",\"name\":");
    push_json_str(out, fields.name);
    out.push_str(",\"rules\":");
    rules(out, fields.rules);
    push_bool(out, ",\"private\":", fields.private);
    push_bool(out, ",\"hints\":", fields.hints);
    push_number(out, ",\"seq\":", fields.seq);
    push_number(out, ",\"game\":", u64::from(fields.game));
    out.push_str(",\"seats\":[");
    room.seats(&mut Seats { out, empty: true });
    out.push_str("],\"board\":");
    push_array(out, |rows| room.board(rows));
    out.push_str(",\"moves\":");
    push_array(out, |moves| room.moves(moves));
    push_number(out, ",\"ply\":", u64::from(fields.ply));
    out.push_str(",\"legal_moves\":");
    push_array(out, |moves| room.legal_moves(moves));
    out.push_str(",\"status\":");
    status_with(out, room.status(), |out| {
        push_array(out, |cells| room.line(cells))
    });
    // Written only if the source gives a cell: the key is taken back otherwise.
    let key = out.len();
    out.push_str(",\"last_move\":");
    let mut last = Strs { out, empty: true };
    room.last_move(&mut last);
    if last.empty {
        out.truncate(key);
    }
    out.push_str(",\"spectators\":");
    push_array(out, |names| room.spectators(names));
    if let Some(GameId(id)) = fields.last_game {
        push_number(out, ",\"last_game\":", id);
    }
    out.push('}');
}

fn rules(out: &mut String, rules: Rules) {
    push_number(out, "{\"width\":", u64::from(rules.width));
    push_number(out, ",\"height\":", u64::from(rules.height));
    push_number(out, ",\"k\":", u64::from(rules.k));
    push_bool(out, ",\"gravity\":", rules.gravity);
    out.push('}');
}

fn write_seat(out: &mut String, seat: SeatView<'_>) {
    out.push_str("{\"mark\":");
    out.push_str(mark(seat.mark));
    out.push_str(",\"occupant\":");
    match seat.occupant {
        OccupantView::Empty => out.push_str("{\"kind\":\"empty\"}"),
        OccupantView::Human {
            name,
            session,
            connected,
        } => {
            out.push_str("{\"kind\":\"human\",\"name\":");
            push_json_str(out, name);
            out.push_str(",\"session\":\"");
            out.push_str(
                session
                    .0
                    .hyphenated()
                    .encode_lower(&mut uuid::Uuid::encode_buffer()),
            );
            out.push('"');
            push_bool(out, ",\"connected\":", connected);
            out.push('}');
        }
        OccupantView::Ai { level, thinking } => {
            out.push_str("{\"kind\":\"ai\",\"level\":");
            out.push_str(match level {
                Level::Easy => "\"easy\"",
                Level::Medium => "\"medium\"",
                Level::Perfect => "\"perfect\"",
            });
            push_bool(out, ",\"thinking\":", thinking);
            out.push('}');
        }
    }
    push_bool(out, ",\"rematch\":", seat.rematch);
    out.push('}');
}

fn status(out: &mut String, status: &GameStatus) {
    status_with(out, StatusView::from(status), |out| {
        if let GameStatus::Won { line, .. } = status {
            push_strs(out, line);
        }
    });
}

/// Writes `status`, a won game's line (a JSON array) by `line`.
fn status_with(out: &mut String, status: StatusView, line: impl FnOnce(&mut String)) {
    match status {
        StatusView::Waiting => out.push_str("{\"state\":\"waiting\"}"),
        StatusView::Playing { turn } => {
            out.push_str("{\"state\":\"playing\",\"turn\":");
            out.push_str(mark(turn));
            out.push('}');
        }
        StatusView::Won { winner } => {
            out.push_str("{\"state\":\"won\",\"winner\":");
            out.push_str(mark(winner));
            out.push_str(",\"line\":");
            line(out);
            out.push('}');
        }
        StatusView::Drawn => out.push_str("{\"state\":\"drawn\"}"),
        StatusView::Resigned { winner } => {
            out.push_str("{\"state\":\"resigned\",\"winner\":");
            out.push_str(mark(winner));
            out.push('}');
        }
    }
}

/// A mark as JSON.
fn mark(mark: Mark) -> &'static str {
    match mark {
        Mark::X => "\"X\"",
        Mark::O => "\"O\"",
    }
}

/// `key` (with its leading comma and colon) and the number.
fn push_number(out: &mut String, key: &str, n: u64) {
    out.push_str(key);
    out.push_str(itoa::Buffer::new().format(n));
}

/// `key` (with its leading comma and colon) and the boolean.
fn push_bool(out: &mut String, key: &str, b: bool) {
    out.push_str(key);
    out.push_str(if b { "true" } else { "false" });
}

/// An array of strings.
fn push_strs(out: &mut String, items: &[String]) {
    push_array(out, |strs| strs.extend(items));
}

/// Whether serde_json writes the byte `b` of a string as it is.
fn plain(b: u8) -> bool {
    b >= 0x20 && b != b'"' && b != b'\\'
}

/// Appends `text` as a JSON string, exactly as serde_json (and so [`encode`]) writes it: as
/// it is between quotes when nothing in it needs escaping (room ids, notation and board
/// rows never do, most names do not), else through serde_json. serde_json escapes control
/// characters, quotes and backslashes, nothing else: other characters, DEL and non-ASCII
/// included, are written as they are.
pub fn push_json_str(out: &mut String, text: &str) {
    if text.bytes().all(plain) {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&encode(&text));
    }
}
