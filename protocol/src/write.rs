//! Hand-written JSON for the messages the server sends most: `moved` (every move) and the
//! `room` snapshot (joins, seat changes, every game's end and rematch). Each is the same
//! text, byte for byte, as [`crate::encode`] gives through serde (property tests in
//! `tests/properties.rs` check it on random values); serde_json escapes every key and
//! scans every string on the way, which made these two the largest part of a move's cost.
//!
//! The field order is the struct's declaration order, as serde writes it: a field added to
//! [`RoomSnapshot`] or [`MoveEvent`] must be added here too, which the property tests
//! catch (their values would no longer decode the same).

use crate::{
    GameId, GameStatus, Level, Mark, MoveEvent, Occupant, RoomSnapshot, Rules, SeatInfo,
    ServerMessage, encode, encode_with_capacity,
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
        ServerMessage::Room { room } => {
            let mut out = String::with_capacity(capacity);
            out.push_str("{\"type\":\"room\",\"room\":");
            snapshot(&mut out, room);
            out.push('}');
            out
        }
        other => encode_with_capacity(other, capacity),
    }
}

fn moved(out: &mut String, event: &MoveEvent) {
    out.push_str("{\"type\":\"moved\",\"room\":");
    push_json_str(out, &event.room.0);
    push_number(out, ",\"seq\":", event.seq);
    push_number(out, ",\"game\":", u64::from(event.game));
    push_number(out, ",\"ply\":", u64::from(event.ply));
    out.push_str(",\"move\":");
    push_json_str(out, &event.mv);
    out.push_str(",\"cell\":");
    push_json_str(out, &event.cell);
    out.push_str(",\"by\":");
    out.push_str(mark(event.by));
    out.push_str(",\"status\":");
    status(out, &event.status);
    out.push('}');
}

fn snapshot(out: &mut String, room: &RoomSnapshot) {
    out.push_str("{\"id\":");
    push_json_str(out, &room.id.0);
    out.push_str(",\"name\":");
    push_json_str(out, &room.name);
    out.push_str(",\"rules\":");
    rules(out, room.rules);
    push_bool(out, ",\"private\":", room.private);
    push_bool(out, ",\"hints\":", room.hints);
    push_number(out, ",\"seq\":", room.seq);
    push_number(out, ",\"game\":", u64::from(room.game));
    out.push_str(",\"seats\":[");
    for (i, s) in room.seats.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        seat(out, s);
    }
    out.push_str("],\"board\":");
    push_strs(out, &room.board);
    out.push_str(",\"moves\":");
    push_strs(out, &room.moves);
    push_number(out, ",\"ply\":", u64::from(room.ply));
    out.push_str(",\"legal_moves\":");
    push_strs(out, &room.legal_moves);
    out.push_str(",\"status\":");
    status(out, &room.status);
    if let Some(last) = &room.last_move {
        out.push_str(",\"last_move\":");
        push_json_str(out, last);
    }
    out.push_str(",\"spectators\":");
    push_strs(out, &room.spectators);
    if let Some(GameId(id)) = room.last_game {
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

fn seat(out: &mut String, seat: &SeatInfo) {
    out.push_str("{\"mark\":");
    out.push_str(mark(seat.mark));
    out.push_str(",\"occupant\":");
    match &seat.occupant {
        Occupant::Empty => out.push_str("{\"kind\":\"empty\"}"),
        Occupant::Human {
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
            push_bool(out, ",\"connected\":", *connected);
            out.push('}');
        }
        Occupant::Ai { level, thinking } => {
            out.push_str("{\"kind\":\"ai\",\"level\":");
            out.push_str(match level {
                Level::Easy => "\"easy\"",
                Level::Medium => "\"medium\"",
                Level::Perfect => "\"perfect\"",
            });
            push_bool(out, ",\"thinking\":", *thinking);
            out.push('}');
        }
    }
    push_bool(out, ",\"rematch\":", seat.rematch);
    out.push('}');
}

fn status(out: &mut String, status: &GameStatus) {
    match status {
        GameStatus::Waiting => out.push_str("{\"state\":\"waiting\"}"),
        GameStatus::Playing { turn } => {
            out.push_str("{\"state\":\"playing\",\"turn\":");
            out.push_str(mark(*turn));
            out.push('}');
        }
        GameStatus::Won { winner, line } => {
            out.push_str("{\"state\":\"won\",\"winner\":");
            out.push_str(mark(*winner));
            out.push_str(",\"line\":");
            push_strs(out, line);
            out.push('}');
        }
        GameStatus::Drawn => out.push_str("{\"state\":\"drawn\"}"),
        GameStatus::Resigned { winner } => {
            out.push_str("{\"state\":\"resigned\",\"winner\":");
            out.push_str(mark(*winner));
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
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_str(out, item);
    }
    out.push(']');
}

/// Appends `text` as a JSON string, exactly as serde_json (and so [`encode`]) writes it: as
/// it is between quotes when nothing in it needs escaping (room ids, notation and board
/// rows never do, most names do not), else through serde_json. serde_json escapes control
/// characters, quotes and backslashes, nothing else: other characters, DEL and non-ASCII
/// included, are written as they are.
pub fn push_json_str(out: &mut String, text: &str) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&encode(&text));
    }
}
