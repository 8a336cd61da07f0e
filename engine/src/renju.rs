//! Renju's forbidden moves: the first player (X, black in renju's own words) may not make
//! an overline, a double-four or a double-three; a move that makes exactly five wins
//! whatever else it makes.
//!
//! The definitions follow the rules of the Renju International Federation:
//!
//! - a *five* is exactly five stones in a row; six or more is an *overline*;
//! - a *four* is a line of stones that one more stone turns into a five. A *straight four*
//!   has two such points, five apart, and is still one four; two fours of one move count
//!   two even on one line (`X.XXX.X` with the middle stone played);
//! - a *three* is a line of stones that one more stone turns into a straight four, where
//!   that stone is not itself forbidden (so whether a three is real can depend on a
//!   further forbidden point, checked recursively). A three that cannot become a straight
//!   four (blocked, or only through an overline) is no three.
//!
//! Only fours and threes that contain the move count: a move is judged by what it makes.
//! [`foul`] is the rule; `tests` checks it against a plain second reading of the same
//! definitions on random positions.

use crate::position::Position;
use crate::rules::{Cell, Player};

/// Why renju forbids X a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Foul {
    /// Six or more in a row.
    Overline,
    /// Two fours at once.
    DoubleFour,
    /// Two threes at once.
    DoubleThree,
}

impl Foul {
    /// The foul in words, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Foul::Overline => "an overline (six or more in a row)",
            Foul::DoubleFour => "a double four",
            Foul::DoubleThree => "a double three",
        }
    }
}

/// The four directions of a line: across, up, and the two diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// What a cell of the grid holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stone {
    Empty,
    Black,
    White,
}

/// A copy of a position's stones that the checks may play on and take back.
#[derive(Debug, Clone)]
struct Grid {
    width: i32,
    height: i32,
    cells: Vec<Stone>,
}

impl Grid {
    fn of(position: &Position) -> Grid {
        let rules = position.rules();
        let (width, height) = (rules.width() as i32, rules.height() as i32);
        let mut cells = Vec::with_capacity((width * height) as usize);
        for col in 0..width {
            for row in 0..height {
                let cell = Cell {
                    col: col as u8,
                    row: row as u8,
                };
                cells.push(match position.get(cell) {
                    None => Stone::Empty,
                    Some(Player::X) => Stone::Black,
                    Some(Player::O) => Stone::White,
                });
            }
        }
        Grid {
            width,
            height,
            cells,
        }
    }

    /// The stone at (`col`, `row`); off the board reads as a white stone (it blocks).
    fn at(&self, col: i32, row: i32) -> Stone {
        if col < 0 || row < 0 || col >= self.width || row >= self.height {
            return Stone::White;
        }
        self.cells[(col * self.height + row) as usize]
    }

    fn set(&mut self, (col, row): (i32, i32), stone: Stone) {
        self.cells[(col * self.height + row) as usize] = stone;
    }

    /// The black run through `at` along `d`: how far it reaches back and forward.
    fn run(&self, (col, row): (i32, i32), (dc, dr): (i32, i32)) -> (i32, i32) {
        let reach = |sign: i32| {
            let mut n = 0;
            while self.at(col + sign * (n + 1) * dc, row + sign * (n + 1) * dr) == Stone::Black {
                n += 1;
            }
            n
        };
        (reach(-1), reach(1))
    }

    /// The points along `d`, as offsets from `at`, where one more black stone makes
    /// exactly five including every offset in `keep` (with black at `at` already).
    fn five_points(&mut self, at: (i32, i32), d: (i32, i32), keep: &[i32]) -> Vec<i32> {
        let mut points = Vec::new();
        for k in -4..=4 {
            let e = (at.0 + k * d.0, at.1 + k * d.1);
            if k == 0 || self.at(e.0, e.1) != Stone::Empty {
                continue;
            }
            self.set(e, Stone::Black);
            let (back, forward) = self.run(e, d);
            // The run as offsets from `at`.
            let (lo, hi) = (k - back, k + forward);
            if back + forward + 1 == 5 && keep.iter().all(|&x| lo <= x && x <= hi) {
                points.push(k);
            }
            self.set(e, Stone::Empty);
        }
        points
    }

    /// How many fours through `at` (black) lie along `d`: five-points, a straight four's
    /// two counted once.
    fn fours(&mut self, at: (i32, i32), d: (i32, i32)) -> usize {
        let points = self.five_points(at, d, &[0]);
        let straight = points
            .iter()
            .filter(|&&k| points.contains(&(k + 5)))
            .count();
        points.len() - straight
    }

    /// Whether a three through `at` (black) lies along `d`: a point where one more stone
    /// (not itself forbidden) makes a straight four holding `at`.
    fn three(&mut self, at: (i32, i32), d: (i32, i32)) -> bool {
        for k in -4..=4 {
            let e = (at.0 + k * d.0, at.1 + k * d.1);
            if k == 0 || self.at(e.0, e.1) != Stone::Empty {
                continue;
            }
            self.set(e, Stone::Black);
            let points = self.five_points(e, d, &[0, -k]);
            let straight = points.iter().any(|&p| points.contains(&(p + 5)));
            self.set(e, Stone::Empty);
            if straight && self.foul(e).is_none() {
                return true;
            }
        }
        false
    }

    /// Renju's verdict on black playing the empty point `at`.
    fn foul(&mut self, at: (i32, i32)) -> Option<Foul> {
        self.set(at, Stone::Black);
        let verdict = self.judge(at);
        self.set(at, Stone::Empty);
        verdict
    }

    /// [`Grid::foul`] with the stone already on `at`.
    fn judge(&mut self, at: (i32, i32)) -> Option<Foul> {
        let runs = DIRECTIONS.map(|d| {
            let (back, forward) = self.run(at, d);
            back + forward + 1
        });
        if runs.contains(&5) {
            return None;
        }
        if runs.iter().any(|&n| n > 5) {
            return Some(Foul::Overline);
        }
        let fours: usize = DIRECTIONS.iter().map(|&d| self.fours(at, d)).sum();
        if fours >= 2 {
            return Some(Foul::DoubleFour);
        }
        let threes = DIRECTIONS.iter().filter(|&&d| self.three(at, d)).count();
        (threes >= 2).then_some(Foul::DoubleThree)
    }
}

/// Whether renju forbids X (the first player) the empty cell `cell` in `position`, and
/// why. `None` for a cell that is allowed, taken, or off the board. Whose turn it is does
/// not matter: the question is always about X.
pub fn foul(position: &Position, cell: Cell) -> Option<Foul> {
    if position.get(cell).is_some() {
        return None;
    }
    let rules = position.rules();
    if u32::from(cell.col) >= rules.width() || u32::from(cell.row) >= rules.height() {
        return None;
    }
    Grid::of(position).foul((i32::from(cell.col), i32::from(cell.row)))
}

/// Every empty cell renju forbids X in `position`, with why, in column-then-row order.
pub fn fouls(position: &Position) -> Vec<(Cell, Foul)> {
    let mut grid = Grid::of(position);
    let mut out = Vec::new();
    for col in 0..grid.width {
        for row in 0..grid.height {
            if grid.at(col, row) != Stone::Empty {
                continue;
            }
            if let Some(foul) = grid.foul((col, row)) {
                let cell = Cell {
                    col: col as u8,
                    row: row as u8,
                };
                out.push((cell, foul));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
