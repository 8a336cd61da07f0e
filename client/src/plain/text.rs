//! Plain mode's stable text: the help, the lines of a room update and of the room list,
//! and the parsing of `create`'s arguments. Scripts read these lines, so their shape only
//! changes on purpose; the words in them come from `words`, shared with the TUI.

use inarow_protocol::{
    ClientMessage, Level, Mark, RoomSnapshot, RoomSummary, SeatPlan, SeatRequest, SessionId,
    TIME_CONTROL_PRESETS, TimeControl, TimeControlSpec,
};

use crate::board;
use crate::words::{self, SeatWords, parse_level, parse_mark, parse_rules};

/// The help text printed by `help`.
pub const HELP: &str = "\
commands:
  rooms                          list the public rooms
  create RULES [--ai X|O] [--level easy|medium|perfect] [--as X|O] [--private] [--hints]
         [--clock TC] [--takebacks on|off]
                                 create a room; RULES: tictactoe, connect4, gomoku, or WxHkK[g]
                                 (e.g. 5x5k4, 8x7k4g); without --ai the other seat is open;
                                 --hints lets the players use hint during the game;
                                 --clock times it: 1+0, 3+2, 5+3, 10+5, 15+10 or any M+S,
                                 30s (a move), 2d (correspondence), none (the default)
  join CODE [X|O|any]            take a seat (any: the first free one, else watch)
  watch ROOM                     watch a room
  play MOVE                      place a stone: a cell like b2, or a column like d (gravity)
  chat TEXT                      say something in the room
  ai X|O [LEVEL|none]            seat an AI in an empty seat (none empties an AI seat)
  rematch | resign | leave       the current room
  clock                          both clocks of a timed game, as of now (* runs)
  takeback [yes|no]              ask to take back your last move (against an AI, the last
                                 pair), or answer the other player's request
  draw [yes|no]                  offer a draw, or answer the other player's offer
  board                          print the current room again
  hint                           the value of every legal move here (win/loss in N plies,
                                 draw, or an estimate); players need a room created with
                                 --hints until the game is over, spectators may always ask
  quit                           exit (after replies to commands already sent)
  help                           this text";

/// Parses the arguments of `create`.
///
/// # Errors
/// A message saying what is wrong.
pub fn parse_create(args: &[&str]) -> Result<ClientMessage, String> {
    let mut args = args.iter();
    let rules = parse_rules(args.next().ok_or(
        "usage: create RULES [--ai X|O] [--level L] [--as X|O] [--private] [--hints] \
                 [--clock TC] [--takebacks on|off]",
    )?)?;
    let (mut ai, mut me, mut level, mut private) = (None, None, Level::Perfect, false);
    let mut hints = false;
    let (mut time_control, mut takebacks) = (None, None);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match *flag {
            "--ai" => ai = Some(parse_mark(value()?)?),
            "--as" => me = Some(parse_mark(value()?)?),
            "--level" => level = parse_level(value()?)?,
            "--private" => private = true,
            "--hints" => hints = true,
            "--clock" => time_control = Some(parse_time_control(value()?)?),
            "--takebacks" => {
                takebacks = Some(match *value()? {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("--takebacks is on or off, not {other:?}")),
                });
            }
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
        hints,
        time_control,
        takebacks,
    })
}

/// A time control as `--clock` takes it: `none`, a preset such as `3+2`, any
/// `MINUTES+SECONDS` pair, `30s` (a fixed time per move) or `2d` (correspondence days
/// per move). The server checks the ranges.
pub fn parse_time_control(text: &str) -> Result<TimeControlSpec, String> {
    let bad = || {
        format!(
            "unknown clock {text:?}: none, MINUTES+SECONDS (3+2), SECONDSs per move (30s) or \
             DAYSd per move (2d)"
        )
    };
    if text == "none" || TIME_CONTROL_PRESETS.contains(&text) {
        return Ok(TimeControlSpec::Preset(text.to_owned()));
    }
    if let Some((minutes, seconds)) = text.split_once('+') {
        let base: f64 = minutes.parse().map_err(|_| bad())?;
        let increment: f64 = seconds.parse().map_err(|_| bad())?;
        if !(base.is_finite() && increment.is_finite() && base >= 0.0 && increment >= 0.0) {
            return Err(bad());
        }
        return Ok(TimeControlSpec::Custom(TimeControl::Fischer {
            base_ms: (base * 60_000.0).round() as u64,
            increment_ms: (increment * 1_000.0).round() as u64,
        }));
    }
    if let Some(seconds) = text.strip_suffix('s') {
        let ms = seconds
            .parse::<u64>()
            .map_err(|_| bad())?
            .saturating_mul(1_000);
        return Ok(TimeControlSpec::Custom(TimeControl::PerMove { ms }));
    }
    if let Some(days) = text.strip_suffix('d') {
        let days = days.parse::<u64>().map_err(|_| bad())?;
        return Ok(TimeControlSpec::Custom(TimeControl::Correspondence {
            days,
        }));
    }
    Err(bad())
}

/// An analysis as text: a header, then one `hint MOVE: VALUE` line per legal move, best
/// first (`hint d: win in 7`, `hint a1: draw`, `hint g: estimate -35`).
pub fn analysis_lines(hints: &board::Hints) -> Vec<String> {
    let mut lines = vec![format!(
        "analysis {} game {} ply {}: {} moves",
        hints.room,
        hints.game,
        hints.ply,
        hints.moves.len()
    )];
    lines.extend(
        hints
            .moves
            .iter()
            .map(|m| format!("hint {}: {}", m.mv, words::value_words(m))),
    );
    lines
}

/// A room update as text: a header, the board with coordinates, seats, last move, status.
pub fn snapshot_lines(room: &RoomSnapshot, me: Option<SessionId>) -> Vec<String> {
    let mine = board::my_seat(room, me);
    let mut lines = vec![format!(
        "room {} game {} ply {} {}{}",
        room.id,
        room.game,
        room.ply,
        words::rules_label(&room.rules),
        if room.private { " private" } else { "" }
    )];
    lines.extend(board_lines(room));
    let seats: Vec<String> = room
        .seats
        .iter()
        .map(|s| {
            let words = SeatWords::of(Some(&s.occupant), mine == Some(s.mark));
            format!("{}={}", s.mark, words.plain())
        })
        .collect();
    lines.push(format!("seats: {}", seats.join(" ")));
    if !room.spectators.is_empty() {
        lines.push(format!("watching: {}", room.spectators.join(", ")));
    }
    if let Some(last) = &room.last_move {
        lines.push(format!("last: {last}"));
    }
    if let Some(kept) = words::kept_game(room) {
        lines.push(kept);
    }
    if let Some(clock) = words::clock_line(room, std::time::Duration::ZERO) {
        lines.push(clock);
    }
    if let Some(offer) = words::offer_text(room, mine, false) {
        lines.push(offer);
    }
    lines.push(words::status_text(room, mine));
    lines
}

/// A snapshot's board as text: one line per row, top first, each with its number, then the
/// column letters.
pub fn board_lines(room: &RoomSnapshot) -> Vec<String> {
    let mut lines = Vec::new();
    let height = room.rules.height;
    for (i, row) in room.board.iter().enumerate() {
        let cells: Vec<String> = row.chars().map(|c| c.to_string()).collect();
        // Row numbers count from the bottom; a snapshot with more rows than its rules say
        // is the server's mistake and gets no number rather than a panic.
        let number = height
            .checked_sub(i as u32)
            .map_or_else(|| "?".to_owned(), |n| n.to_string());
        lines.push(format!("{number:>2} {}", cells.join(" ")));
    }
    let letters: Vec<String> = (0..room.rules.width).map(board::column_name).collect();
    lines.push(format!("   {}", letters.join(" ")));
    lines
}

/// The answer to `rooms`: a count, then one line per room.
pub fn rooms_lines(rooms: &[RoomSummary]) -> Vec<String> {
    let mut lines = vec![format!("rooms: {}", rooms.len())];
    for room in rooms {
        let seat = |mark: Mark| {
            let seat = room.seats.iter().find(|s| s.mark == mark);
            // One token per seat: names with spaces would split the line's fields.
            SeatWords::of(seat.map(|s| &s.occupant), false)
                .plain()
                .replace(' ', "_")
        };
        lines.push(format!(
            "  {} {} {} X={} O={} spectators={} {}",
            room.id,
            words::rules_label(&room.rules),
            words::status_token(&room.status),
            seat(Mark::X),
            seat(Mark::O),
            room.spectators,
            room.name
        ));
    }
    lines
}
