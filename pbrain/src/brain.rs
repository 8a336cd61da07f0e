//! The brain: the protocol's state (board, rule, time limits) and its answer to each line.
//!
//! [`Brain::handle`] takes one line from the manager and returns the lines to write back,
//! so the binary is only a loop over stdin ([`serve`]) and the protocol is tested without a
//! process.

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use inarow_engine::{Cell, GameStatus, Move, Player as Colour, Position, Rules};

use crate::command::{self, BoardLine, Command, CommandError, Point};
use crate::player::Player;

/// The longest line kept; the rest of a longer one is dropped, as the protocol allows (no
/// command of the protocol comes near it).
const MAX_LINE: usize = 4096;

/// Runs a brain seeded `seed` over `input` and `output`, the binary's stdin and stdout
/// (and a test engine's): every line read goes to a [`Brain`], its answers are written and
/// flushed at once, since the manager waits for them. End of input ends the brain as END
/// does.
///
/// # Errors
/// Reading or writing failed.
pub fn serve(seed: u64, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut brain = Brain::new(seed);
    let mut bytes = Vec::new();
    while read_line(&mut input, &mut bytes)? {
        let received = Instant::now();
        // Lines come from whatever runs the brain: read them lossily, never failing on
        // bad UTF-8.
        let line = String::from_utf8_lossy(&bytes);
        for answer in brain.handle(&line, received) {
            writeln!(output, "{answer}")?;
        }
        output.flush()?;
        if brain.ended() {
            break;
        }
    }
    Ok(())
}

/// Reads one line into `line` (without its end), keeping at most [`MAX_LINE`] bytes of it;
/// `false` at the end of input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut read_any = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(read_any);
        }
        read_any = true;
        let room = MAX_LINE.saturating_sub(line.len());
        match buf.iter().position(|&b| b == b'\n') {
            Some(end) => {
                line.extend_from_slice(&buf[..end.min(room)]);
                input.consume(end + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                line.extend_from_slice(&buf[..n.min(room)]);
                input.consume(n);
            }
        }
    }
}

/// Stones in a row that win: five or more (the protocol's rule 0, freestyle gomoku).
pub const K: u32 = 5;

/// The move time when the manager sends no `timeout_turn`: the server's default for AI seats.
pub const DEFAULT_TURN: Duration = Duration::from_secs(1);

/// Remaining match time is shared as if this many moves were still to come, so a brain
/// with little time left plays faster instead of running out.
const MOVES_TO_GO: u32 = 20;

/// Kept back from every turn for what the search's deadline does not cover: reading the
/// command, starting and stopping the search, writing the answer, a busy machine.
const MARGIN_FIXED: Duration = Duration::from_millis(20);

/// Kept back from every turn as a share of it (1/MARGIN_SHARE): the search stops at its
/// deadline only at its next poll, which is later on a loaded machine.
const MARGIN_SHARE: u32 = 20;

/// The protocol's `time_left` when the match has no time limit.
const UNLIMITED: i64 = 2_147_483_647;

/// The time limits the manager sent, and the search time they leave for a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// `timeout_turn`: the limit for one move; zero means "as fast as possible".
    pub turn: Duration,
    /// `timeout_match`: the limit for the whole match; `None` when unlimited.
    pub whole_match: Option<Duration>,
    /// `time_left`: what remains of the match; `None` when unknown or unlimited (it may be
    /// negative in the protocol: then zero).
    pub left: Option<Duration>,
}

impl Default for TimeControl {
    fn default() -> TimeControl {
        TimeControl {
            turn: DEFAULT_TURN,
            whole_match: None,
            left: None,
        }
    }
}

impl TimeControl {
    /// The search time for the next move: the turn limit, or a share of the match time
    /// left if that is less, minus a margin so that the answer arrives within the limit.
    pub fn search_time(&self) -> Duration {
        let mut budget = self.turn;
        let left = match (self.left, self.whole_match) {
            (Some(left), _) => Some(left),
            (None, Some(whole)) => Some(whole),
            (None, None) => None,
        };
        if let Some(left) = left {
            budget = budget.min(left / MOVES_TO_GO);
        }
        budget.saturating_sub(MARGIN_FIXED + budget / MARGIN_SHARE)
    }

    /// Applies one `INFO` setting; other keys and unreadable values are ignored, as the
    /// protocol asks (the manager reads no answer to INFO).
    fn set(&mut self, key: &str, value: &str) {
        let Ok(value) = value.trim().parse::<i64>() else {
            return;
        };
        let ms = |v: i64| Duration::from_millis(v.max(0).unsigned_abs());
        match key {
            "timeout_turn" => self.turn = ms(value),
            "timeout_match" => self.whole_match = (value > 0).then(|| ms(value)),
            "time_left" => self.left = (value < UNLIMITED).then(|| ms(value)),
            _ => {}
        }
    }
}

/// The `ABOUT` line: name, version, author and country, as the protocol recommends.
pub fn about() -> String {
    format!(
        "name=\"inarow\", version=\"{}\", author=\"the inarow contributors\", country=\"unknown\"",
        env!("CARGO_PKG_VERSION")
    )
}

/// A board's stones by colour, in the order they came: X moved first.
#[derive(Debug, Clone, Default)]
struct Stones {
    x: Vec<Cell>,
    o: Vec<Cell>,
}

impl Stones {
    /// The position these stones make, X and O alternating in the order given.
    ///
    /// # Errors
    /// A message when the counts do not alternate (O may have as many stones as X, or one
    /// fewer) or the stones hold a finished game before the last one.
    fn position(&self, rules: Rules) -> Result<Position, String> {
        if !(self.x.len() == self.o.len() || self.x.len() == self.o.len() + 1) {
            return Err(format!(
                "the board does not alternate: {} stones of the first player, {} of the second",
                self.x.len(),
                self.o.len()
            ));
        }
        let mut position = Position::new(rules);
        let mut os = self.o.iter();
        for &x in &self.x {
            position
                .try_play(Move::Cell(x))
                .map_err(|e| format!("the board cannot be played: {e}"))?;
            if let Some(&o) = os.next() {
                position
                    .try_play(Move::Cell(o))
                    .map_err(|e| format!("the board cannot be played: {e}"))?;
            }
        }
        Ok(position)
    }
}

/// The brain's state between lines.
#[derive(Debug)]
pub struct Brain {
    /// The board's rules since START or RECTSTART; `None` before.
    rules: Option<Rules>,
    /// The stones on the board.
    stones: Stones,
    /// The limits sent by INFO.
    time: TimeControl,
    /// The protocol's `rule` (0 = five or more wins, the only one inarow plays for now).
    rule: u32,
    /// Stones read since BOARD, until DONE; `None` outside a BOARD block.
    board: Option<Vec<(Point, u8)>>,
    /// A BOARD line that could not be read: reported at DONE, since the manager reads
    /// no answer before then.
    board_error: Option<String>,
    /// The AI.
    player: Player,
    /// Whether END came.
    ended: bool,
}

impl Brain {
    /// A brain with no board yet, whose AI's random choices follow `seed`.
    pub fn new(seed: u64) -> Brain {
        Brain {
            rules: None,
            stones: Stones::default(),
            time: TimeControl::default(),
            rule: 0,
            board: None,
            board_error: None,
            player: Player::new(seed),
            ended: false,
        }
    }

    /// Whether END came: the caller stops reading and exits.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The time limits in force.
    pub fn time_control(&self) -> TimeControl {
        self.time
    }

    /// Answers one line from the manager, read at `received` (a move's time counts from
    /// there). Returns the lines to write, in order: nothing, `OK`, a move (after a
    /// `MESSAGE` line saying what the search saw), `ERROR …`, `UNKNOWN …` or the ABOUT line.
    pub fn handle(&mut self, line: &str, received: Instant) -> Vec<String> {
        if self.board.is_some() {
            return self.board_line(line, received);
        }
        match command::parse(line) {
            Ok(None) => Vec::new(),
            Ok(Some(command)) => self.command(command, received),
            Err(e) => vec![e.to_string()],
        }
    }

    fn command(&mut self, command: Command, received: Instant) -> Vec<String> {
        match command {
            Command::Start { size } => self.start(size, size),
            Command::RectStart { width, height } => self.start(width, height),
            Command::Restart => match self.rules {
                Some(_) => {
                    self.stones = Stones::default();
                    vec!["OK".into()]
                }
                None => vec![error("RESTART before START")],
            },
            Command::Begin => match self.rules {
                Some(_) => {
                    self.stones = Stones::default();
                    self.play(received)
                }
                None => vec![error("BEGIN before START")],
            },
            Command::Turn(at) => match self.cell(at) {
                Ok(cell) => self.turn(cell, received),
                Err(message) => vec![error(&message)],
            },
            Command::Board => {
                if self.rules.is_none() {
                    // Still read the block, so that its lines are not taken for commands.
                    self.board_error = Some("BOARD before START".into());
                }
                self.board = Some(Vec::new());
                Vec::new()
            }
            Command::Info { key, value } => {
                if key == "rule" {
                    // Reported at the next move: the manager reads no answer to INFO.
                    self.rule = value.trim().parse().unwrap_or(u32::MAX);
                } else {
                    self.time.set(&key, &value);
                }
                Vec::new()
            }
            Command::Takeback(at) => match self.takeback(at) {
                Ok(()) => vec!["OK".into()],
                Err(message) => vec![error(&message)],
            },
            Command::About => vec![about()],
            Command::End => {
                self.ended = true;
                Vec::new()
            }
        }
    }

    fn start(&mut self, width: u32, height: u32) -> Vec<String> {
        match Rules::new(width, height, K, false) {
            Ok(rules) if width.max(height) >= K => {
                self.rules = Some(rules);
                self.stones = Stones::default();
                vec!["OK".into()]
            }
            _ => vec![error(&format!(
                "unsupported board {width}x{height}: inarow plays boards from {K} to {} on a side",
                Rules::MAX_SIDE
            ))],
        }
    }

    /// The cell of protocol coordinates `at` on the current board.
    fn cell(&self, at: Point) -> Result<Cell, String> {
        let rules = self.rules.ok_or("no board: START first")?;
        at.cell(rules).ok_or_else(|| {
            format!(
                "{at} is outside the {}x{} board",
                rules.width(),
                rules.height()
            )
        })
    }

    fn turn(&mut self, cell: Cell, received: Instant) -> Vec<String> {
        let Some(rules) = self.rules else {
            return vec![error("TURN before START")];
        };
        let mut position = match self.stones.position(rules) {
            Ok(position) => position,
            Err(message) => return vec![error(&message)],
        };
        let mover = position.to_move();
        if let Err(e) = position.try_play(Move::Cell(cell)) {
            return vec![error(&format!("the opponent's move cannot be played: {e}"))];
        }
        match mover {
            Colour::X => self.stones.x.push(cell),
            Colour::O => self.stones.o.push(cell),
        }
        self.play(received)
    }

    fn board_line(&mut self, line: &str, received: Instant) -> Vec<String> {
        if line.trim().is_empty() {
            return Vec::new();
        }
        match command::parse_board_line(line) {
            Ok(BoardLine::Stone { at, field }) => {
                if let Some(stones) = self.board.as_mut() {
                    stones.push((at, field));
                }
                Vec::new()
            }
            Ok(BoardLine::Done) => {
                let stones = self.board.take().unwrap_or_default();
                if let Some(message) = self.board_error.take() {
                    return vec![error(&message)];
                }
                match self.set_board(&stones) {
                    Ok(()) => self.play(received),
                    Err(message) => vec![error(&message)],
                }
            }
            Err(CommandError::Malformed(message) | CommandError::Unknown(message)) => {
                self.board_error.get_or_insert(message);
                Vec::new()
            }
        }
    }

    /// Sets the board from a BOARD block: the brain's stones (field 1) are those of the
    /// player to move.
    fn set_board(&mut self, stones: &[(Point, u8)]) -> Result<(), String> {
        let mut own = Vec::new();
        let mut theirs = Vec::new();
        for &(at, field) in stones {
            let cell = self.cell(at)?;
            match field {
                1 => own.push(cell),
                2 => theirs.push(cell),
                _ => {
                    return Err(format!(
                        "field {field} at {at}: only 1 (own) and 2 (opponent) are played"
                    ));
                }
            }
        }
        // The brain moves next, so it moved first exactly when both have as many stones.
        let stones = if own.len() == theirs.len() {
            Stones { x: own, o: theirs }
        } else {
            Stones { x: theirs, o: own }
        };
        let rules = self.rules.ok_or("no board: START first")?;
        stones.position(rules)?;
        self.stones = stones;
        Ok(())
    }

    fn takeback(&mut self, at: Point) -> Result<(), String> {
        let cell = self.cell(at)?;
        let mut stones = self.stones.clone();
        let found = [&mut stones.x, &mut stones.o].into_iter().any(|list| {
            let index = list.iter().position(|&c| c == cell);
            index.map(|i| list.remove(i)).is_some()
        });
        if !found {
            return Err(format!("no stone at {at}"));
        }
        let rules = self.rules.ok_or("no board: START first")?;
        stones.position(rules)?;
        self.stones = stones;
        Ok(())
    }

    /// Searches the current board and plays the brain's move.
    fn play(&mut self, received: Instant) -> Vec<String> {
        if self.rule != 0 {
            return vec![error(&format!(
                "rule {} is not supported: inarow plays rule 0 (five or more in a row wins)",
                self.rule
            ))];
        }
        let Some(rules) = self.rules else {
            return vec![error("no board: START first")];
        };
        let position = match self.stones.position(rules) {
            Ok(position) => position,
            Err(message) => return vec![error(&message)],
        };
        match position.status() {
            GameStatus::Won { .. } => return vec![error("the game is over: five in a row")],
            GameStatus::Drawn => return vec![error("the game is over: the board is full")],
            GameStatus::InProgress { .. } => {}
        }
        let time = self.time.search_time().saturating_sub(received.elapsed());
        let thought = self.player.think(&position, time);
        let analysis = thought.analysis;
        let Some(Move::Cell(cell)) = analysis.best else {
            return vec![error("the search found no move")];
        };
        match position.to_move() {
            Colour::X => self.stones.x.push(cell),
            Colour::O => self.stones.o.push(cell),
        }
        let at = Point::of(cell, rules);
        vec![
            format!(
                "MESSAGE depth {} nodes {} time {} ms",
                analysis.depth,
                analysis.nodes,
                thought.elapsed.as_millis()
            ),
            at.to_string(),
        ]
    }
}

fn error(message: &str) -> String {
    format!("ERROR {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `lines` to a fresh brain with a short move time and returns every answer.
    fn run(lines: &[&str]) -> Vec<String> {
        let mut brain = Brain::new(7);
        let mut out = Vec::new();
        for line in ["INFO timeout_turn 60"].iter().chain(lines) {
            out.extend(brain.handle(line, Instant::now()));
        }
        out.retain(|l| !l.starts_with("MESSAGE"));
        out
    }

    fn is_move(line: &str) -> bool {
        command::point(line).is_some()
    }

    #[test]
    fn start_answers_ok_and_unsupported_sizes_error() {
        assert_eq!(run(&["START 15"]), ["OK"]);
        assert_eq!(run(&["START 19"]), ["OK"]);
        assert_eq!(run(&["RECTSTART 19,9"]), ["OK"]);
        for line in ["START 20", "START 0", "START 4", "RECTSTART 20,15"] {
            let out = run(&[line]);
            assert!(out[0].starts_with("ERROR "), "{line}: {out:?}");
        }
    }

    #[test]
    fn begin_opens_near_the_centre() {
        let out = run(&["START 15", "BEGIN"]);
        assert_eq!(out[0], "OK");
        let at = command::point(&out[1]).unwrap();
        assert!((5..=9).contains(&at.x) && (5..=9).contains(&at.y), "{at}");
    }

    #[test]
    fn turn_answers_a_move_on_an_empty_cell() {
        let out = run(&["START 15", "TURN 7,7"]);
        assert!(is_move(&out[1]), "{out:?}");
        assert_ne!(out[1], "7,7");
    }

    #[test]
    fn rows_count_from_the_top() {
        // Four of ours in row 0 from the top (x 0..=3): the brain completes five at 4,0.
        let out = run(&[
            "START 15", "BOARD", "0,0,1", "7,7,2", "1,0,1", "7,8,2", "2,0,1", "7,9,2", "3,0,1",
            "7,10,2", "DONE",
        ]);
        assert_eq!(out, ["OK", "4,0"]);
    }

    #[test]
    fn board_tells_the_colours_by_count() {
        // The opponent has one stone more: it moved first, and the brain, second, must
        // block its four at 7,11 or 7,6.
        let out = run(&[
            "START 15", "BOARD", "7,7,2", "0,0,1", "7,8,2", "0,2,1", "7,9,2", "0,4,1", "7,10,2",
            "DONE",
        ]);
        assert!(out[1] == "7,11" || out[1] == "7,6", "{out:?}");
    }

    #[test]
    fn a_bad_board_is_an_error_and_the_brain_stays_usable() {
        for board in [
            &["BOARD", "7,7,1", "7,8,1", "DONE"][..],
            &["BOARD", "7,7,3", "DONE"],
            &["BOARD", "7,7", "DONE"],
            &["BOARD", "7,7,1", "7,7,2", "DONE"],
            &["BOARD", "15,2,1", "DONE"],
        ] {
            let mut lines = vec!["START 15"];
            lines.extend_from_slice(board);
            lines.push("TURN 3,3");
            let out = run(&lines);
            assert_eq!(out.len(), 3, "{board:?}: {out:?}");
            assert!(out[1].starts_with("ERROR "), "{board:?}: {out:?}");
            assert!(is_move(&out[2]), "{board:?}: {out:?}");
        }
    }

    #[test]
    fn bad_turns_are_errors() {
        let out = run(&[
            "TURN 7,7",
            "START 15",
            "TURN 15,0",
            "TURN 7,x",
            "TURN 7,7",
            "TURN 7,7",
        ]);
        assert!(out[0].starts_with("ERROR "), "{out:?}");
        assert_eq!(out[1], "OK");
        assert!(out[2].starts_with("ERROR "), "{out:?}");
        assert!(out[3].starts_with("ERROR "), "{out:?}");
        assert!(is_move(&out[4]), "{out:?}");
        assert!(out[5].starts_with("ERROR "), "{out:?}");
    }

    #[test]
    fn unknown_commands_are_unknown() {
        assert!(run(&["SWAP2BOARD"])[0].starts_with("UNKNOWN "));
        assert!(run(&["PLAY 1,1"])[0].starts_with("UNKNOWN "));
    }

    #[test]
    fn other_rules_are_refused_at_the_move() {
        let out = run(&["START 15", "INFO rule 1", "BEGIN"]);
        assert_eq!(out.len(), 2, "INFO is never answered: {out:?}");
        assert!(out[1].starts_with("ERROR rule 1"), "{out:?}");
        let out = run(&["START 15", "INFO rule 1", "INFO rule 0", "BEGIN"]);
        assert!(is_move(&out[1]), "{out:?}");
    }

    #[test]
    fn restart_and_takeback() {
        let mut brain = Brain::new(7);
        let mut say = |line: &str| {
            let mut out = brain.handle(line, Instant::now());
            out.retain(|l| !l.starts_with("MESSAGE"));
            out
        };
        say("INFO timeout_turn 60");
        assert_eq!(say("START 15"), ["OK"]);
        let reply = say("TURN 7,7");
        assert!(is_move(&reply[0]), "{reply:?}");
        // The first stone cannot go while the second stays: the board would not alternate.
        assert!(say("TAKEBACK 7,7")[0].starts_with("ERROR "));
        assert_eq!(say(&format!("TAKEBACK {}", reply[0])), ["OK"]);
        assert_eq!(say("TAKEBACK 7,7"), ["OK"]);
        assert!(say("TAKEBACK 7,7")[0].starts_with("ERROR "));
        assert_eq!(say("RESTART"), ["OK"]);
        assert!(is_move(&say("BEGIN")[0]));
    }

    #[test]
    fn about_names_inarow_and_end_ends() {
        let mut brain = Brain::new(1);
        let out = brain.handle("ABOUT", Instant::now());
        assert!(out[0].starts_with("name=\"inarow\", version=\""), "{out:?}");
        assert!(!brain.ended());
        assert!(brain.handle("END", Instant::now()).is_empty());
        assert!(brain.ended());
    }

    #[test]
    fn info_sets_the_time_and_ignores_what_it_does_not_know() {
        let mut brain = Brain::new(1);
        for line in [
            "INFO timeout_turn 5000",
            "INFO timeout_match 180000",
            "INFO max_memory 83886080",
            "INFO thread_num 1",
            "INFO game_type 1",
            "INFO folder /tmp",
            "INFO evaluate 3,4",
            "INFO timeout_turn soon",
            "INFO",
        ] {
            assert!(brain.handle(line, Instant::now()).is_empty(), "{line}");
        }
        let time = brain.time_control();
        assert_eq!(time.turn, Duration::from_secs(5));
        assert_eq!(time.whole_match, Some(Duration::from_secs(180)));
        assert_eq!(time.left, None);
    }

    #[test]
    fn the_search_time_keeps_a_margin_and_shares_the_match_time() {
        let turn = |ms| TimeControl {
            turn: Duration::from_millis(ms),
            ..TimeControl::default()
        };
        let one = turn(1000).search_time();
        assert!(one < Duration::from_millis(1000) && one > Duration::from_millis(800));
        assert_eq!(turn(0).search_time(), Duration::ZERO);
        let mut time = turn(5000);
        time.set("time_left", "10000");
        assert!(time.search_time() < Duration::from_millis(500));
        time.set("time_left", "-30");
        assert_eq!(time.search_time(), Duration::ZERO);
        time.set("time_left", "2147483647");
        assert!(time.search_time() > Duration::from_secs(4));
    }
}
