//! Renju's fouls on the classic cases of the rules (each drawn as a diagram), and against a
//! second, plain reading of the definitions on random positions.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::rules::Rules;

/// A 15×15 grid from a diagram (rows top down, `.` empty, `X` black, `O` white, `!` the
/// point asked about, empty), drawn from column c, row 12 down: off the edges.
fn diagram(rows: &[&str]) -> (Grid, (i32, i32)) {
    let mut grid = Grid {
        width: 15,
        height: 15,
        cells: vec![Stone::Empty; 225],
    };
    let mut asked = None;
    for (i, row) in rows.iter().enumerate() {
        for (j, c) in row.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let at = (2 + j as i32, 11 - i as i32);
            match c {
                'X' => grid.set(at, Stone::Black),
                'O' => grid.set(at, Stone::White),
                '!' => asked = Some(at),
                _ => {}
            }
        }
    }
    (grid, asked.expect("the diagram marks its point with !"))
}

fn verdict(rows: &[&str]) -> Option<Foul> {
    let (mut grid, at) = diagram(rows);
    let main = grid.foul(at);
    assert_eq!(
        main,
        reference::foul(&mut grid, at),
        "the two readings differ"
    );
    main
}

#[test]
fn two_open_threes_are_a_double_three() {
    assert_eq!(
        verdict(&[
            ". . . . . . .",
            ". . . X . . .",
            ". . . X . . .",
            ". X X ! . . .",
            ". . . . . . .",
        ]),
        Some(Foul::DoubleThree)
    );
}

#[test]
fn a_four_and_a_three_are_allowed() {
    assert_eq!(
        verdict(&[
            ". . . . . . . .",
            ". . . . X . . .",
            ". . . . X . . .",
            ". X X X ! . . .",
            ". . . . . . . .",
        ]),
        None
    );
}

#[test]
fn two_fours_are_a_double_four_even_on_one_line() {
    assert_eq!(
        verdict(&[
            ". . . . . . . .",
            ". . . . X . . .",
            ". . . . X . . .",
            ". . . . X . . .",
            ". X X X ! . . .",
            ". . . . . . . .",
        ]),
        Some(Foul::DoubleFour)
    );
    assert_eq!(
        verdict(&[". X . X X ! . X ."]),
        Some(Foul::DoubleFour),
        "X.XX!.X: five at either gap"
    );
}

#[test]
fn six_is_an_overline_but_five_wins_whatever_else_it_makes() {
    assert_eq!(verdict(&[". X X X ! X X ."]), Some(Foul::Overline));
    // Five across, and an overline would be made down: five wins.
    assert_eq!(
        verdict(&[
            ". . . . . . . . .",
            ". . . . X . . . .",
            ". . . . X . . . .",
            ". . . . X . . . .",
            "O X X X ! X . . .",
            ". . . . X . . . .",
            ". . . . X . . . .",
            ". . . . . . . . .",
        ]),
        None,
        "five across wins, though down would be six"
    );
    assert_eq!(
        verdict(&[
            ". . . . . . . .",
            ". . . . . X . .",
            ". . . . X . . .",
            ". . . X . . . .",
            ". . ! X X . . .",
            ". X . X . . . .",
            ". . . . . . . .",
            ". . . . . . . .",
        ]),
        None,
        "a five up the diagonal, whatever the threes"
    );
}

#[test]
fn a_three_that_cannot_become_a_straight_four_does_not_count() {
    // Across, O blocks one end: X X ! can only become a four with one point to five.
    assert_eq!(
        verdict(&[
            ". . . . . . .",
            ". . . X . . .",
            ". . . X . . .",
            "O X X ! . . .",
            ". . . . . . .",
        ]),
        None
    );
    // A split three `X.X!` blocked at its end: filling the gap makes a four with one
    // point to five.
    assert_eq!(
        verdict(&[
            ". . . . . . . .",
            ". . . . X . . .",
            ". . . . X . . .",
            ". X . X ! O . .",
            ". . . . . . . .",
        ]),
        None
    );
    // `O.XX!..X`: the four to the left has O at its end; the four to the right would
    // reach five only as six, through the far X.
    assert_eq!(
        verdict(&[
            ". . . . . . . .",
            ". . . . X . . .",
            ". . . . X . . .",
            "O . X X ! . . X",
            ". . . . . . . .",
        ]),
        None
    );
}

#[test]
fn a_three_whose_four_points_are_forbidden_does_not_count() {
    // Across, X X ! is a three only if one of its ends can be played; each end here
    // would make six down its column.
    let trapped = [
        ". . . . . . .",
        "X . . . X . .",
        "X . . X X . .",
        "X . . X X . .",
        ". X X ! . . .",
        "X . . . X . .",
        "X . . . X . .",
        ". . . . . . .",
    ];
    assert_eq!(verdict(&trapped), None);
    // The same without the traps below: two threes.
    let open = [
        ". . . . . . .",
        ". . . . . . .",
        ". . . X . . .",
        ". . . X . . .",
        ". X X ! . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
    ];
    assert_eq!(verdict(&open), Some(Foul::DoubleThree));
}

#[test]
fn fouls_through_a_position_name_cells() {
    let rules = Rules::preset("gomoku").expect("a preset");
    let mut position = Position::new(rules);
    // X: h8 j8 g10 g9 (two threes meet at g8); O far away.
    for text in ["h8", "a1", "j8", "a3", "g10", "a5", "g9", "a7"] {
        position
            .try_play(rules.parse_move(text).expect("a cell"))
            .expect("legal");
    }
    let g8 = Cell { col: 6, row: 7 };
    assert_eq!(foul(&position, g8), Some(Foul::DoubleThree));
    assert!(fouls(&position).contains(&(g8, Foul::DoubleThree)));
    assert_eq!(foul(&position, Cell { col: 7, row: 7 }), None, "taken");
}

#[test]
fn both_readings_agree_on_random_positions() {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let mut seen = std::collections::HashMap::new();
    for _ in 0..150 {
        let mut grid = Grid {
            width: 15,
            height: 15,
            cells: vec![Stone::Empty; 225],
        };
        // Dense stones in a 9×9 middle, black more often: many threes and fours.
        let density = rng.random_range(0.2..0.55);
        for col in 3..12 {
            for row in 3..12 {
                if rng.random_bool(density) {
                    let stone = if rng.random_bool(0.65) {
                        Stone::Black
                    } else {
                        Stone::White
                    };
                    grid.set((col, row), stone);
                }
            }
        }
        for col in 0..15 {
            for row in 0..15 {
                if grid.at(col, row) != Stone::Empty {
                    continue;
                }
                let main = grid.foul((col, row));
                let plain = reference::foul(&mut grid, (col, row));
                assert_eq!(main, plain, "at ({col}, {row}) in {grid:?}");
                *seen.entry(main).or_insert(0) += 1;
            }
        }
    }
    // Each verdict often enough that agreeing means something.
    for verdict in [
        None,
        Some(Foul::Overline),
        Some(Foul::DoubleFour),
        Some(Foul::DoubleThree),
    ] {
        let n = seen.get(&verdict).copied().unwrap_or(0);
        assert!(n >= 50, "{verdict:?} seen {n} times: {seen:?}");
    }
}

/// The definitions read plainly, as sets of stones in windows of the line, for the random
/// comparison: slow and independent of the grid's own arithmetic.
mod reference {
    use super::super::{DIRECTIONS, Foul, Grid, Stone};

    /// The line through `at` along `d` from offset -6 to 6.
    fn line(grid: &Grid, at: (i32, i32), d: (i32, i32)) -> Vec<Stone> {
        (-6..=6)
            .map(|k| grid.at(at.0 + k * d.0, at.1 + k * d.1))
            .collect()
    }

    /// Index of offset `k` in a line.
    fn ix(k: i32) -> usize {
        (k + 6) as usize
    }

    /// Whether offsets `s..s+5` are all black with no black on either side.
    fn exact_five(line: &[Stone], s: i32) -> bool {
        (s..s + 5).all(|k| line[ix(k)] == Stone::Black)
            && line[ix(s - 1)] != Stone::Black
            && line[ix(s + 5)] != Stone::Black
    }

    fn with(line: &[Stone], k: i32) -> Vec<Stone> {
        let mut line = line.to_vec();
        line[ix(k)] = Stone::Black;
        line
    }

    /// The distinct sets of four black offsets holding `must` that one more stone makes
    /// an exact five.
    fn fours(line: &[Stone], must: &[i32]) -> Vec<Vec<i32>> {
        let mut sets: Vec<Vec<i32>> = Vec::new();
        for s in -4..=0 {
            let window: Vec<i32> = (s..s + 5).collect();
            let empties: Vec<i32> = window
                .iter()
                .copied()
                .filter(|&k| line[ix(k)] == Stone::Empty)
                .collect();
            let blacks: Vec<i32> = window
                .iter()
                .copied()
                .filter(|&k| line[ix(k)] == Stone::Black)
                .collect();
            if blacks.len() != 4 || empties.len() != 1 || !must.iter().all(|m| blacks.contains(m)) {
                continue;
            }
            if exact_five(&with(line, empties[0]), s) && !sets.contains(&blacks) {
                sets.push(blacks);
            }
        }
        sets
    }

    pub(super) fn foul(grid: &mut Grid, at: (i32, i32)) -> Option<Foul> {
        grid.set(at, Stone::Black);
        let lines: Vec<Vec<Stone>> = DIRECTIONS.iter().map(|&d| line(grid, at, d)).collect();
        let verdict = if lines.iter().any(|l| (-4..=0).any(|s| exact_five(l, s))) {
            None
        } else if lines
            .iter()
            .any(|l| (-5..=0).any(|s| (s..s + 6).all(|k| l[ix(k)] == Stone::Black)))
        {
            Some(Foul::Overline)
        } else if lines.iter().map(|l| fours(l, &[0]).len()).sum::<usize>() >= 2 {
            Some(Foul::DoubleFour)
        } else {
            let threes = DIRECTIONS
                .iter()
                .zip(&lines)
                .filter(|(d, l)| three(grid, at, **d, l))
                .count();
            (threes >= 2).then_some(Foul::DoubleThree)
        };
        grid.set(at, Stone::Empty);
        verdict
    }

    /// A point `e` whose stone makes four contiguous blacks holding 0 and `e`, open at both
    /// ends where each end makes an exact five, and that is no foul itself.
    fn three(grid: &mut Grid, at: (i32, i32), d: (i32, i32), line: &[Stone]) -> bool {
        for e in -4..=4 {
            if e == 0 || line[ix(e)] != Stone::Empty {
                continue;
            }
            let after = with(line, e);
            let straight = (-3..=0).any(|s| {
                let four = s..s + 4;
                four.clone().all(|k| after[ix(k)] == Stone::Black)
                    && four.contains(&e)
                    && four.contains(&0)
                    && after[ix(s - 1)] == Stone::Empty
                    && after[ix(s + 4)] == Stone::Empty
                    && exact_five(&with(&after, s - 1), s - 1)
                    && exact_five(&with(&after, s + 4), s)
            });
            if straight && foul(grid, (at.0 + e * d.0, at.1 + e * d.1)).is_none() {
                return true;
            }
        }
        false
    }
}
