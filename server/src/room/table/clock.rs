//! The two clocks of a timed game, as a plain value driven by the instants the room
//! passes in, so tests run them without tokio and without waiting.
//!
//! The server's clocks are the truth. The rule, as on lichess: each side's first move is
//! free (no clock runs before it, none is charged for it and it earns no increment), so a
//! game can be abandoned without a result before both sides have moved (an abort). From
//! the third ply on, the clock of the side to move runs from the moment the turn passed
//! until its move arrives; the elapsed time is charged, then the increment added (Fischer)
//! or the clock set back to the time per move (fixed per move, correspondence). A clock
//! that reaches zero loses the game on time; the room's task wakes at [`Clocks::deadline`]
//! to say so, and a request checks first, so a move that arrives after the flag fell is
//! too late.

use std::time::{Duration, Instant};

use inarow_protocol::{ClockState, Mark, TimeControl};

use super::Table;
use crate::snapshot::Ending;

/// The most an AI seat thinks over one move whatever its clock allows: nobody wants to
/// wait minutes for it, and the server's cores are shared by every room.
pub(crate) const MAX_CLOCKED_THINK: Duration = Duration::from_secs(10);

/// Milliseconds in a day, for correspondence.
const DAY_MS: u64 = 86_400_000;

/// Both clocks of the current game.
#[derive(Debug, Clone)]
pub(crate) struct Clocks {
    control: TimeControl,
    /// Each side's remaining time in ms, X then O, as of `running`'s instant for the side
    /// whose clock runs.
    remaining: [u64; 2],
    /// The side whose clock runs, and since when.
    running: Option<(Mark, Instant)>,
    /// Remaining times after each move, X then O, indexed by ply: for the record's `%clk`
    /// and to go back on a takeback.
    after: Vec<[u64; 2]>,
}

fn index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The time each side starts with, and has again after each move when unused time is not
/// kept, in ms; `None` without a clock.
pub(crate) fn start_ms(control: TimeControl) -> Option<u64> {
    match control {
        TimeControl::None => None,
        TimeControl::Fischer { base_ms, .. } => Some(base_ms),
        TimeControl::PerMove { ms } => Some(ms),
        TimeControl::Correspondence { days } => Some(days.saturating_mul(DAY_MS)),
    }
}

impl Clocks {
    /// Fresh clocks for a game under `control`; `None` without a clock.
    pub(crate) fn new(control: TimeControl) -> Option<Clocks> {
        let start = start_ms(control)?;
        Some(Clocks {
            control,
            remaining: [start; 2],
            running: None,
            after: Vec::new(),
        })
    }

    /// Clocks brought back after a restart: `after` holds the remaining times after each
    /// move played, `current` the remaining times when the room was saved (if saved at
    /// the same ply). The side to move's clock starts again from `now` when the room next
    /// syncs: the time the server was down is not charged.
    pub(crate) fn restored(
        control: TimeControl,
        after: Vec<[u64; 2]>,
        current: Option<[u64; 2]>,
    ) -> Option<Clocks> {
        let mut clocks = Clocks::new(control)?;
        if let Some(last) = after.last() {
            clocks.remaining = *last;
        }
        clocks.after = after;
        if let Some(current) = current {
            clocks.remaining = current;
        }
        Some(clocks)
    }

    /// Brings the clocks in line with the game at `now`: charges and credits every move
    /// played since the last sync (`ply` moves in all), then runs the clock of `turn` (the
    /// side to move while the game is played, `None` otherwise) once each side has moved.
    pub(crate) fn sync(&mut self, now: Instant, ply: usize, turn: Option<Mark>) {
        while self.after.len() < ply {
            let done = self.after.len();
            let mover = if done.is_multiple_of(2) {
                Mark::X
            } else {
                Mark::O
            };
            if done >= 2 {
                self.charge(mover, now);
                let i = index(mover);
                self.remaining[i] = match self.control {
                    TimeControl::Fischer { increment_ms, .. } => {
                        self.remaining[i].saturating_add(increment_ms)
                    }
                    other => start_ms(other).unwrap_or(0),
                };
            }
            self.after.push(self.remaining);
        }
        let wanted = turn.filter(|_| ply >= 2);
        match (self.running, wanted) {
            (Some((running, _)), Some(side)) if running == side => {}
            (_, wanted) => {
                if let Some((running, _)) = self.running {
                    self.charge(running, now);
                }
                self.running = wanted.map(|side| (side, now));
            }
        }
    }

    /// Takes the time `side` used since its clock started off its clock, and stops it.
    fn charge(&mut self, side: Mark, now: Instant) {
        if let Some((running, since)) = self.running
            && running == side
        {
            let used = ms(now.saturating_duration_since(since));
            let i = index(side);
            self.remaining[i] = self.remaining[i].saturating_sub(used);
            self.running = None;
        }
    }

    /// The side whose clock has run out at `now`, if one has.
    pub(crate) fn flagged(&self, now: Instant) -> Option<Mark> {
        let (side, since) = self.running?;
        (ms(now.saturating_duration_since(since)) >= self.remaining[index(side)]).then_some(side)
    }

    /// `side` lost on time: its clock shows zero and stops.
    pub(crate) fn flag(&mut self, side: Mark) {
        self.remaining[index(side)] = 0;
        self.running = None;
    }

    /// When the running clock reaches zero, if one runs.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        let (side, since) = self.running?;
        Some(since + Duration::from_millis(self.remaining[index(side)]))
    }

    /// Both clocks as members see them at `now`.
    pub(crate) fn state(&self, now: Instant) -> ClockState {
        let mut remaining = self.remaining;
        if let Some((side, since)) = self.running {
            let i = index(side);
            remaining[i] = remaining[i].saturating_sub(ms(now.saturating_duration_since(since)));
        }
        ClockState {
            x_ms: remaining[0],
            o_ms: remaining[1],
            running: self.running.map(|(side, _)| side),
        }
    }

    /// The remaining times (X, O) right after move `ply` (from 0), for the record.
    pub(crate) fn after_move(&self, ply: usize) -> Option<[u64; 2]> {
        self.after.get(ply).copied()
    }

    /// The remaining times (X, O) at `now`, for saving.
    pub(crate) fn current(&self, now: Instant) -> [u64; 2] {
        let state = self.state(now);
        [state.x_ms, state.o_ms]
    }

    /// The game went back to `ply` moves (a takeback): each clock shows what it showed
    /// then, and none runs until the next sync.
    pub(crate) fn take_back(&mut self, ply: usize) {
        self.after.truncate(ply);
        self.remaining = match self.after.last() {
            Some(last) => *last,
            None => [start_ms(self.control).unwrap_or(0); 2],
        };
        self.running = None;
    }

    /// How long an AI playing `side` may think at `now`, with about `moves_left` moves of
    /// its own still to play: an even share of its remaining time plus most of its
    /// increment (all of a fixed time per move would be taken to the last millisecond, so
    /// half of it), kept well inside what remains and never over [`MAX_CLOCKED_THINK`].
    /// `None` when its clock does not run (a free first move), which the caller times as
    /// an unclocked move.
    pub(crate) fn ai_budget(&self, side: Mark, now: Instant, moves_left: u32) -> Option<Duration> {
        let (running, _) = self.running?;
        if running != side {
            return None;
        }
        let remaining = self.state(now).remaining(side);
        let think = match self.control {
            TimeControl::Fischer { increment_ms, .. } => {
                remaining / u64::from(moves_left.max(1)) + increment_ms * 3 / 4
            }
            _ => remaining / 2,
        };
        // A margin for the answer's way back to the room: a fifth of what remains, at
        // most half a second.
        let margin = (remaining / 5).min(500);
        let think = think.min(remaining.saturating_sub(margin));
        Some(Duration::from_millis(think).min(MAX_CLOCKED_THINK))
    }
}

impl Table {
    /// Takes the instant `now` of the request or event being handled (clocks are charged
    /// and shown as of it), and ends the game on time if the running clock has run out:
    /// true if it just did (everybody must be told).
    pub(crate) fn tick(&mut self, now: Instant) -> bool {
        self.now = now;
        if self.turn().is_none() {
            return false;
        }
        let Some(clocks) = &mut self.clocks else {
            return false;
        };
        let Some(side) = clocks.flagged(now) else {
            return false;
        };
        clocks.flag(side);
        self.ending = Some(Ending::Timeout {
            winner: side.other(),
        });
        self.offer = None;
        true
    }

    /// Brings the clocks in line with the game after a change (as of [`Table::tick`]'s
    /// instant): the moves since charged, the clock of the side to move running.
    pub(crate) fn sync_clocks(&mut self) {
        let (turn, ply, now) = (self.turn(), self.position.ply(), self.now);
        if let Some(clocks) = &mut self.clocks {
            clocks.sync(now, ply, turn);
        }
    }

    /// When the running clock runs out, for the room's task to wake then.
    pub(crate) fn clock_deadline(&self) -> Option<Instant> {
        self.clocks.as_ref().and_then(Clocks::deadline)
    }

    /// Both clocks as members see them now; `None` without a clock.
    pub(crate) fn clock_state(&self) -> Option<ClockState> {
        self.clocks.as_ref().map(|c| c.state(self.now))
    }

    /// The time control, `None` without a clock (as snapshots show it).
    pub(crate) fn time_control(&self) -> Option<TimeControl> {
        self.time_control.is_clocked().then_some(self.time_control)
    }

    /// How long the AI seat `side` may think now, from its clock; `None` when its clock
    /// does not run (no time control, or its free first move).
    pub(crate) fn ai_budget(&self, side: Mark) -> Option<Duration> {
        let cells = usize::try_from(self.position.rules().cells()).unwrap_or(usize::MAX);
        let empty = cells.saturating_sub(self.position.ply());
        self.clocks
            .as_ref()?
            .ai_budget(side, self.now, moves_left(empty))
    }
}

/// Moves a side likely still has to play on a board with `empty` empty cells: half of
/// them, kept between 8 (endings go faster than the board says) and 30 (a long game
/// spends its time evenly rather than all at once).
pub(crate) fn moves_left(empty: usize) -> u32 {
    u32::try_from(empty / 2).unwrap_or(u32::MAX).clamp(8, 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fischer(base_ms: u64, increment_ms: u64) -> Clocks {
        Clocks::new(TimeControl::Fischer {
            base_ms,
            increment_ms,
        })
        .expect("clocked")
    }

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn no_clock_without_a_time_control() {
        assert!(Clocks::new(TimeControl::None).is_none());
    }

    #[test]
    fn each_sides_first_move_is_free_then_time_is_charged_and_increment_added() {
        let t0 = Instant::now();
        let mut c = fischer(10_000, 2_000);
        c.sync(t0, 0, Some(Mark::X));
        assert_eq!(c.state(at(t0, 5_000)).running, None);
        c.sync(at(t0, 5_000), 1, Some(Mark::O));
        c.sync(at(t0, 9_000), 2, Some(Mark::X));
        let s = c.state(at(t0, 9_000));
        assert_eq!((s.x_ms, s.o_ms, s.running), (10_000, 10_000, Some(Mark::X)));
        // X thinks 3 s: charged 3 s, credited 2 s.
        c.sync(at(t0, 12_000), 3, Some(Mark::O));
        let s = c.state(at(t0, 12_500));
        assert_eq!((s.x_ms, s.o_ms, s.running), (9_000, 9_500, Some(Mark::O)));
        assert_eq!(c.after_move(2), Some([9_000, 10_000]));
        assert_eq!(c.deadline(), Some(at(t0, 22_000)));
    }

    #[test]
    fn a_clock_that_reaches_zero_flags() {
        let t0 = Instant::now();
        let mut c = fischer(1_000, 0);
        c.sync(t0, 2, Some(Mark::X));
        assert_eq!(c.flagged(at(t0, 999)), None);
        assert_eq!(c.flagged(at(t0, 1_000)), Some(Mark::X));
        c.flag(Mark::X);
        assert_eq!(c.state(at(t0, 2_000)).x_ms, 0);
        assert_eq!(c.deadline(), None);
    }

    #[test]
    fn other_changes_leave_the_running_clock_alone_and_the_end_stops_it() {
        let t0 = Instant::now();
        let mut c = fischer(10_000, 0);
        c.sync(t0, 2, Some(Mark::X));
        c.sync(at(t0, 1_000), 2, Some(Mark::X));
        assert_eq!(c.deadline(), Some(at(t0, 10_000)));
        // The game ends (a resignation): X's clock stops with what it used.
        c.sync(at(t0, 4_000), 2, None);
        let s = c.state(at(t0, 9_000));
        assert_eq!((s.x_ms, s.running), (6_000, None));
    }

    #[test]
    fn a_fixed_time_per_move_is_set_back_after_each_move() {
        let t0 = Instant::now();
        let mut c = Clocks::new(TimeControl::PerMove { ms: 5_000 }).expect("clocked");
        c.sync(t0, 2, Some(Mark::X));
        c.sync(at(t0, 4_000), 3, Some(Mark::O));
        assert_eq!(c.state(at(t0, 4_000)).x_ms, 5_000);
        assert_eq!(c.state(at(t0, 5_000)).o_ms, 4_000);
    }

    #[test]
    fn a_takeback_restores_the_clocks_of_the_earlier_position() {
        let t0 = Instant::now();
        let mut c = fischer(10_000, 0);
        c.sync(t0, 2, Some(Mark::X));
        c.sync(at(t0, 1_000), 3, Some(Mark::O));
        c.sync(at(t0, 3_000), 4, Some(Mark::X));
        c.take_back(3);
        c.sync(at(t0, 3_000), 3, Some(Mark::O));
        let s = c.state(at(t0, 3_000));
        assert_eq!((s.x_ms, s.o_ms, s.running), (9_000, 10_000, Some(Mark::O)));
    }

    #[test]
    fn restored_clocks_start_again_without_charging_the_downtime() {
        let t0 = Instant::now();
        let c = Clocks::restored(
            TimeControl::Fischer {
                base_ms: 10_000,
                increment_ms: 0,
            },
            vec![[10_000; 2], [10_000; 2], [8_000, 10_000]],
            Some([8_000, 7_000]),
        );
        let mut c = c.expect("clocked");
        c.sync(at(t0, 60_000), 3, Some(Mark::O));
        let s = c.state(at(t0, 61_000));
        assert_eq!((s.x_ms, s.o_ms), (8_000, 6_000));
    }

    #[test]
    fn an_ai_budget_is_a_share_of_its_time_inside_a_margin() {
        let t0 = Instant::now();
        let mut c = fischer(5_000, 0);
        c.sync(t0, 2, Some(Mark::X));
        assert_eq!(c.ai_budget(Mark::O, t0, 20), None);
        assert_eq!(
            c.ai_budget(Mark::X, t0, 20),
            Some(Duration::from_millis(250))
        );
        // Nearly flagged: what is left keeps its margin.
        c.remaining = [100, 5_000];
        let budget = c.ai_budget(Mark::X, t0, 1).expect("running");
        assert_eq!(budget, Duration::from_millis(80));
        let mut long = fischer(3_600_000, 0);
        long.sync(t0, 2, Some(Mark::X));
        assert_eq!(long.ai_budget(Mark::X, t0, 8), Some(MAX_CLOCKED_THINK));
    }

    #[test]
    fn moves_left_is_kept_in_bounds() {
        assert_eq!(moves_left(225), 30);
        assert_eq!(moves_left(42), 21);
        assert_eq!(moves_left(3), 8);
    }
}
