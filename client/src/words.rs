//! The client's words, shared by both faces: reading what a person types (rules, seats,
//! levels) and describing what the server says (rules, seats, game statuses, byes).
//!
//! Each description starts from one reading here, so the TUI and plain mode cannot drift
//! apart on what a seat or a status means. Their wordings differ on purpose: plain mode
//! prints stable tokens for scripts (`turn-X`, `status: won X line a1,b2,c3`), the TUI
//! prints sentences; both live side by side below.

use std::time::Duration;

use inarow_protocol::{
    ClockState, GameStatus, Level, Mark, MoveAnalysis, MoveValue, Occupant, OfferKind,
    RoomSnapshot, Rules, RulesSpec,
};

use crate::board;

/// Short preset names people type on the command line; the engine knows the full ones.
const ALIASES: [(&str, &str); 2] = [("ttt", "tictactoe"), ("c4", "connect4")];

/// Parses rules as given on the command line: a preset (`tictactoe`, `connect4`, `gomoku`)
/// or `WxHkK` with an optional `g` for gravity (`5x5k4`, `8x7k4g`), checked by the engine.
///
/// # Errors
/// A message saying what the accepted forms are, or why the engine refuses the rules.
pub fn parse_rules(text: &str) -> Result<RulesSpec, String> {
    let text = text.trim().to_ascii_lowercase();
    let name = ALIASES
        .iter()
        .find(|(alias, _)| *alias == text)
        .map_or(text.as_str(), |(_, name)| name);
    if let Some(name) = inarow_engine::Rules::preset(name).and_then(|r| r.preset_name()) {
        return Ok(RulesSpec::Preset(name.to_owned()));
    }
    let bad = || {
        format!(
            "unknown rules {text:?}: use tictactoe, connect4, gomoku, or WxHkK with an optional g for gravity (e.g. 5x5k4, 8x7k4g)"
        )
    };
    let (body, gravity) = match text.strip_suffix('g') {
        Some(body) => (body, true),
        None => (text.as_str(), false),
    };
    let (w, rest) = body.split_once('x').ok_or_else(bad)?;
    let (h, k) = rest.split_once('k').ok_or_else(bad)?;
    let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
    let (width, height, k) = (num(w)?, num(h)?, num(k)?);
    inarow_engine::Rules::new(width, height, k, gravity)
        .map_err(|e| format!("invalid rules {text:?}: {e}"))?;
    Ok(RulesSpec::Custom(Rules {
        width,
        height,
        k,
        gravity,
    }))
}

/// Time on a clock as people read it: `2:58` (minutes and seconds), `1:02:05` past an
/// hour, `9.4` under ten seconds (tenths: the seconds that matter), `3d 4h` for days.
pub fn clock_text(ms: u64) -> String {
    let secs = ms / 1000;
    if secs >= 86_400 {
        return format!("{}d {}h", secs / 86_400, secs % 86_400 / 3600);
    }
    if secs >= 3600 {
        return format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    }
    if ms < 10_000 {
        return format!("{}.{}", secs, ms % 1000 / 100);
    }
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// Both clocks `elapsed` after the event that carried `clock`: the running one counted
/// down (never below zero), the other as it was.
pub fn clock_now(clock: &ClockState, elapsed: Duration) -> ClockState {
    let mut now = *clock;
    let spent = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    match clock.running {
        Some(Mark::X) => now.x_ms = now.x_ms.saturating_sub(spent),
        Some(Mark::O) => now.o_ms = now.o_ms.saturating_sub(spent),
        None => {}
    }
    now
}

/// A clock is low under this much time: shown in warning colours, and the web client
/// ticks aloud.
pub const LOW_TIME_MS: u64 = 10_000;

/// Plain mode's `clock: …` line: both clocks, the running one marked, `elapsed` after the
/// event that carried them (`clock: X 2:58 * O 3:00`); `None` for a room without a clock.
pub fn clock_line(room: &RoomSnapshot, elapsed: Duration) -> Option<String> {
    let clock = clock_now(room.clock.as_ref()?, elapsed);
    let side = |mark: Mark| {
        let running = if clock.running == Some(mark) {
            " *"
        } else {
            ""
        };
        let low = if clock.remaining(mark) < LOW_TIME_MS && clock.running == Some(mark) {
            " low"
        } else {
            ""
        };
        format!("{mark} {}{running}{low}", clock_text(clock.remaining(mark)))
    };
    let control = room
        .time_control
        .map_or_else(String::new, |c| format!(" ({c})"));
    Some(format!(
        "clock: {} {}{control}",
        side(Mark::X),
        side(Mark::O)
    ))
}

/// The waiting offer in words, for the player holding `mine`, with how to answer it when
/// it is theirs to answer: plain mode's commands (`offer: draw asked by O (draw yes to
/// accept, draw no to decline)`) or, with `keys`, the TUI's (`d accepts, n declines`);
/// `None` without one.
pub fn offer_text(room: &RoomSnapshot, mine: Option<Mark>, keys: bool) -> Option<String> {
    let offer = room.offer?;
    let (what, key) = match offer.kind {
        OfferKind::Takeback => ("takeback", 'u'),
        OfferKind::Draw => ("draw", 'd'),
    };
    let answer = match (mine == Some(offer.by.other()), keys) {
        (false, _) => String::new(),
        (true, false) => format!(" ({what} yes to accept, {what} no to decline)"),
        (true, true) => format!(" ({key} accepts, n declines)"),
    };
    Some(format!("offer: {what} asked by {}{answer}", offer.by))
}

/// A short label for rules: the engine's preset name, or `WxHkK` with a trailing `g` for
/// gravity.
pub fn rules_label(rules: &Rules) -> String {
    match board::engine_rules(rules).and_then(|r| r.preset_name()) {
        Some(name) => name.to_owned(),
        None => format!(
            "{}x{}k{}{}",
            rules.width,
            rules.height,
            rules.k,
            if rules.gravity { "g" } else { "" }
        ),
    }
}

/// Parses a seat name: `X` or `O` (case-insensitive).
///
/// # Errors
/// A message naming the accepted values.
pub fn parse_mark(text: &str) -> Result<Mark, String> {
    match text.trim() {
        "X" | "x" => Ok(Mark::X),
        "O" | "o" | "0" => Ok(Mark::O),
        other => Err(format!("unknown seat {other:?}: use X or O")),
    }
}

/// Parses an AI level: `easy`, `medium` or `perfect`.
///
/// # Errors
/// A message naming the accepted values.
pub fn parse_level(text: &str) -> Result<Level, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "easy" => Ok(Level::Easy),
        "medium" => Ok(Level::Medium),
        "perfect" | "hard" => Ok(Level::Perfect),
        other => Err(format!(
            "unknown level {other:?}: use easy, medium or perfect"
        )),
    }
}

/// How an empty seat is written.
pub const EMPTY_SEAT: &str = "(empty)";

/// One seat as both faces describe it: who sits there and what is worth saying about them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatWords {
    /// `alice`, `AI perfect`, or `None` for an empty seat.
    pub who: Option<String>,
    /// The seat is ours.
    pub you: bool,
    /// A person whose connection is down; the seat is held for them.
    pub offline: bool,
    /// An AI computing its move.
    pub thinking: bool,
}

impl SeatWords {
    /// Reads the occupant of a seat (`None`: no such seat, as good as empty); `you` when
    /// the seat is ours.
    pub fn of(occupant: Option<&Occupant>, you: bool) -> SeatWords {
        let mut words = SeatWords {
            who: None,
            you: false,
            offline: false,
            thinking: false,
        };
        match occupant {
            None | Some(Occupant::Empty) => {}
            Some(Occupant::Human {
                name, connected, ..
            }) => {
                words.who = Some(name.clone());
                words.you = you;
                words.offline = !connected;
            }
            Some(Occupant::Ai {
                level,
                engine,
                thinking,
            }) => {
                words.who = Some(match engine {
                    Some(engine) => format!("engine {engine}"),
                    None => format!("AI {level}"),
                });
                words.thinking = *thinking;
            }
        }
        words
    }

    /// The seat in plain mode's words: `alice (you)`, `bob (disconnected)`,
    /// `AI perfect (thinking)`, `(empty)`.
    pub fn plain(&self) -> String {
        let mut text = self.who.clone().unwrap_or_else(|| EMPTY_SEAT.to_owned());
        for (on, note) in [
            (self.you, " (you)"),
            (self.offline, " (disconnected)"),
            (self.thinking, " (thinking)"),
        ] {
            if on {
                text.push_str(note);
            }
        }
        text
    }
}

/// A move's value in words, the same in both faces: `win in 3`, `loss in 6`, `draw`,
/// `estimate +35`; a value the server did not prove says so.
pub fn value_words(entry: &MoveAnalysis) -> String {
    let words = match entry.value {
        MoveValue::Win { plies } => format!("win in {plies}"),
        MoveValue::Loss { plies } => format!("loss in {plies}"),
        MoveValue::Draw => "draw".to_owned(),
        MoveValue::Estimate { score } => format!("estimate {score:+}"),
    };
    match (entry.proven, entry.value) {
        (false, MoveValue::Win { .. } | MoveValue::Loss { .. } | MoveValue::Draw) => {
            format!("{words} (unproven)")
        }
        _ => words,
    }
}

/// A move's value in the one character a board cell has room for: `W` win, `L` loss,
/// `=` draw, `+` or `-` an estimate for or against the mover.
pub fn value_glyph(value: MoveValue) -> char {
    match value {
        MoveValue::Win { .. } => 'W',
        MoveValue::Loss { .. } => 'L',
        MoveValue::Draw => '=',
        MoveValue::Estimate { score } if score >= 0 => '+',
        MoveValue::Estimate { .. } => '-',
    }
}

/// A game status as a short phrase for the TUI's room list: `waiting`, `O to move`,
/// `X won`, `drawn`.
pub fn status_phrase(status: &GameStatus) -> String {
    match status {
        GameStatus::Waiting => "waiting".to_owned(),
        GameStatus::Playing { turn } => format!("{turn} to move"),
        GameStatus::Won { winner, .. }
        | GameStatus::Resigned { winner }
        | GameStatus::Timeout { winner } => {
            format!("{winner} won")
        }
        GameStatus::Drawn | GameStatus::Agreed => "drawn".to_owned(),
        GameStatus::Aborted => "aborted".to_owned(),
    }
}

/// A game status as one token for plain mode's room list: `waiting`, `turn-X`, `won-O`,
/// `drawn`.
pub fn status_token(status: &GameStatus) -> String {
    match status {
        GameStatus::Waiting => "waiting".to_owned(),
        GameStatus::Playing { turn } => format!("turn-{turn}"),
        GameStatus::Won { winner, .. }
        | GameStatus::Resigned { winner }
        | GameStatus::Timeout { winner } => format!("won-{winner}"),
        GameStatus::Drawn | GameStatus::Agreed => "drawn".to_owned(),
        GameStatus::Aborted => "aborted".to_owned(),
    }
}

/// Plain mode's `status: …` line of a room, for the player holding `mine` (if any).
pub fn status_text(room: &RoomSnapshot, mine: Option<Mark>) -> String {
    match &room.status {
        GameStatus::Waiting => "status: waiting".to_owned(),
        GameStatus::Playing { turn } if mine == Some(*turn) => {
            format!("status: turn {turn} (your move)")
        }
        GameStatus::Playing { turn } => format!("status: turn {turn}"),
        GameStatus::Won { winner, line } => format!("status: won {winner} line {}", line.join(",")),
        GameStatus::Resigned { winner } => format!("status: won {winner} by resignation"),
        GameStatus::Timeout { winner } => format!("status: won {winner} on time"),
        GameStatus::Drawn => "status: drawn".to_owned(),
        GameStatus::Agreed => "status: drawn by agreement".to_owned(),
        GameStatus::Aborted => "status: aborted".to_owned(),
    }
}

/// The TUI's status sentence for a room: whose turn, whether it is ours, the AI thinking,
/// a player gone, or how the game ended.
pub fn status_sentence(room: &RoomSnapshot, mine: Option<Mark>) -> String {
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
            let to_move = SeatWords::of(board::occupant(room, *turn), false);
            if board::ai_thinking(room) {
                format!("{who}: AI is thinking…")
            } else if to_move.offline {
                format!("{who}: waiting for {turn} to reconnect")
            } else if mine.is_some() && mine != Some(*turn) {
                format!("{who}: waiting for the opponent")
            } else {
                who
            }
        }
        GameStatus::Won { winner, .. } => outcome(*winner, mine, "wins"),
        GameStatus::Resigned { winner } => outcome(*winner, mine, "wins by resignation"),
        GameStatus::Timeout { winner } => outcome(*winner, mine, "wins on time"),
        GameStatus::Drawn => "Draw. Press r for a rematch".to_owned(),
        GameStatus::Agreed => "Draw agreed. Press r for a rematch".to_owned(),
        GameStatus::Aborted => "Game aborted: no result. Press r for a new game".to_owned(),
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

/// Where the server keeps the game that has just ended, and how to see it again: shown
/// while the ended game is on the board (`last_game` names it from the snapshot after
/// its last move until the next game ends).
pub fn kept_game(room: &RoomSnapshot) -> Option<String> {
    let id = room.last_game.filter(|_| room.status.is_over())?;
    Some(format!("kept as game {id}: inarow replay {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::{C4, TTT, session, snapshot};

    #[test]
    fn an_ended_game_says_where_it_is_kept() {
        let won = GameStatus::Won {
            winner: Mark::X,
            line: vec!["a1".into(), "b2".into(), "c3".into()],
        };
        let mut room = snapshot(TTT, &["X..", ".X.", "..X"], won);
        assert_eq!(kept_game(&room), None, "not kept (yet)");
        room.last_game = Some(inarow_protocol::GameId(42));
        assert_eq!(
            kept_game(&room).as_deref(),
            Some("kept as game 42: inarow replay 42")
        );
        // During the next game `last_game` still names the previous one: not shown.
        room.status = GameStatus::Playing { turn: Mark::X };
        assert_eq!(kept_game(&room), None);
    }

    #[test]
    fn rules_parse_and_label() {
        assert_eq!(
            parse_rules("connect4"),
            Ok(RulesSpec::Preset("connect4".into()))
        );
        assert_eq!(parse_rules("C4"), Ok(RulesSpec::Preset("connect4".into())));
        assert_eq!(
            parse_rules("5x5k4"),
            Ok(RulesSpec::Custom(Rules {
                width: 5,
                height: 5,
                k: 4,
                gravity: false
            }))
        );
        assert_eq!(
            parse_rules("8x7k4g"),
            Ok(RulesSpec::Custom(Rules {
                width: 8,
                height: 7,
                k: 4,
                gravity: true
            }))
        );
        assert!(parse_rules("chess").is_err());
        assert!(parse_rules("5x5").is_err());
        assert_eq!(
            parse_rules("20x5k4"),
            Err("invalid rules \"20x5k4\": width must be between 1 and 19 (got 20)".to_owned())
        );
        assert_eq!(rules_label(&C4), "connect4");
        assert_eq!(rules_label(&TTT), "tictactoe");
        assert_eq!(
            rules_label(&Rules {
                width: 8,
                height: 7,
                k: 4,
                gravity: true
            }),
            "8x7k4g"
        );
    }

    #[test]
    fn seats_and_statuses_read_once_worded_twice() {
        let snap = snapshot(
            TTT,
            &["...", "...", "X.."],
            GameStatus::Playing { turn: Mark::O },
        );
        let x = SeatWords::of(board::occupant(&snap, Mark::X), true);
        assert_eq!(x.plain(), "alice (you)");
        assert_eq!(SeatWords::of(None, false).plain(), "(empty)");
        let mine = board::my_seat(&snap, Some(session(1)));
        assert_eq!(status_text(&snap, mine), "status: turn O");
        assert_eq!(
            status_sentence(&snap, mine),
            "O to move: waiting for the opponent"
        );
        assert_eq!(status_token(&snap.status), "turn-O");
        assert_eq!(status_phrase(&snap.status), "O to move");
    }
}
