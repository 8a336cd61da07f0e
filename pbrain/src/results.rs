//! A match's games, one JSON object a line in the results file, and their summary: the
//! score, the Elo difference with its 95 % interval, results by colour and from the empty
//! board, and each side's time a move.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A colour, as the results file writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Colour {
    /// The first player (black in gomoku's terms).
    X,
    /// The second player.
    O,
}

/// How a game ended for inarow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// inarow won.
    Win,
    /// inarow lost.
    Loss,
    /// Neither won.
    Draw,
}

impl Outcome {
    /// Points for inarow: 1, ½ or 0.
    pub fn points(self) -> f64 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Draw => 0.5,
            Outcome::Loss => 0.0,
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// Five or more in a row.
    Five,
    /// The board filled up.
    Full,
    /// A side answered later than the time a move and the tolerance allow.
    Timeout,
    /// A side's process exited or could not be started.
    Crash,
    /// A side played outside the board or on a stone, or answered something not a move.
    Illegal,
    /// The engine answered ERROR or UNKNOWN.
    Refused,
}

/// One game of a match: a line of the results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The opening's moves as the openings file writes them; empty for the empty board.
    pub opening: String,
    /// inarow's colour.
    pub inarow: Colour,
    /// The time a move both sides were given, in milliseconds.
    pub time_ms: u64,
    /// Which pass over the openings this game belongs to, from 1: a match may play its
    /// openings more than once.
    #[serde(default = "first_round")]
    pub round: u32,
    /// The result for inarow.
    pub outcome: Outcome,
    /// Why the game ended.
    pub ending: Ending,
    /// More about a game that did not end on the board (the engine's error, the bad move).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// Every move of the game, the opening's included, in inarow's notation.
    pub moves: String,
    /// The opponent, as its ABOUT line names it (or its path).
    pub engine: String,
    /// inarow's side of the game.
    pub inarow_side: SideStats,
    /// The engine's side of the game.
    pub engine_side: SideStats,
}

/// What one side spent in a game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SideStats {
    /// Moves it chose (the opening's not counted).
    pub moves: u32,
    /// Time of all its moves, as measured by the runner, in milliseconds.
    pub total_ms: u64,
    /// Its longest move, in milliseconds.
    pub max_ms: u64,
    /// Nodes searched (inarow only; zero for the engine, which does not say).
    pub nodes: u64,
    /// Sum of the depths reached a move (inarow only).
    pub depth_sum: u64,
    /// Each move's time, in milliseconds, in the order played.
    #[serde(default)]
    pub times_ms: Vec<u64>,
}

impl SideStats {
    /// Counts one move of `ms` milliseconds.
    pub fn add(&mut self, ms: u64, nodes: u64, depth: u32) {
        self.moves += 1;
        self.total_ms += ms;
        self.max_ms = self.max_ms.max(ms);
        self.nodes += nodes;
        self.depth_sum += u64::from(depth);
        self.times_ms.push(ms);
    }

    fn merge(&mut self, other: &SideStats) {
        self.moves += other.moves;
        self.total_ms += other.total_ms;
        self.max_ms = self.max_ms.max(other.max_ms);
        self.nodes += other.nodes;
        self.depth_sum += other.depth_sum;
        self.times_ms.extend_from_slice(&other.times_ms);
    }
}

impl GameRecord {
    /// What identifies a game in a match: a results file holds each at most once.
    pub fn key(&self) -> (String, Colour, u64, u32) {
        (self.opening.clone(), self.inarow, self.time_ms, self.round)
    }
}

/// The round of a record written before rounds were counted.
fn first_round() -> u32 {
    1
}

/// Reads a results file's lines; lines that do not read (a line cut by a crash) are
/// skipped and counted.
pub fn parse(text: &str) -> (Vec<GameRecord>, usize) {
    let mut games = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(game) => games.push(game),
            Err(_) => skipped += 1,
        }
    }
    (games, skipped)
}

/// Wins, draws and losses of a set of games.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// inarow's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// inarow's losses.
    pub losses: u32,
}

impl Tally {
    /// Tallies `games`.
    pub fn of<'a>(games: impl IntoIterator<Item = &'a GameRecord>) -> Tally {
        let mut tally = Tally::default();
        for game in games {
            match game.outcome {
                Outcome::Win => tally.wins += 1,
                Outcome::Draw => tally.draws += 1,
                Outcome::Loss => tally.losses += 1,
            }
        }
        tally
    }

    /// Games tallied.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// inarow's points.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// inarow's score as a fraction of the games, with the half-width of its 95 %
    /// interval (normal approximation over the games' points); `None` without games.
    pub fn score(&self) -> Option<(f64, f64)> {
        let n = f64::from(self.games());
        if n == 0.0 {
            return None;
        }
        let mean = self.points() / n;
        let square = |x: f64| x * x;
        let variance = (f64::from(self.wins) * square(1.0 - mean)
            + f64::from(self.draws) * square(0.5 - mean)
            + f64::from(self.losses) * square(mean))
            / n;
        Some((mean, 1.96 * (variance / n).sqrt()))
    }

    /// The Elo difference (inarow minus the engine) and its 95 % interval, from
    /// [`Tally::score`]; infinite where the score or a bound is 0 or 1.
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        let (mean, half) = self.score()?;
        Some((elo(mean), elo(mean - half), elo(mean + half)))
    }
}

/// The Elo difference that expects `score` (a fraction of the points).
pub fn elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

impl fmt::Display for Tally {
    /// `+wins =draws -losses, points/games (score %)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "+{} ={} -{}, {}/{}",
            self.wins,
            self.draws,
            self.losses,
            self.points(),
            self.games()
        )?;
        if let Some((mean, half)) = self.score() {
            write!(f, " ({:.1} % ± {:.1})", 100.0 * mean, 100.0 * half)?;
        }
        Ok(())
    }
}

/// A match's figures, for people: see its `Display`.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Every game.
    pub all: Tally,
    /// Games where inarow was the first player (its stones the opening's first, third …).
    pub as_x: Tally,
    /// Games where inarow was the second player.
    pub as_o: Tally,
    /// Games from the empty board with inarow as the first player.
    pub empty_as_x: Tally,
    /// Games from the empty board with inarow as the second player.
    pub empty_as_o: Tally,
    /// Games that ended off the board, by how: (ending, loser is inarow, count).
    pub off_board: Vec<(Ending, bool, u32)>,
    /// inarow's moves over the match.
    pub inarow: SideStats,
    /// The engine's moves over the match.
    pub engine: SideStats,
    /// The time a move of the games, when they all had the same.
    pub time_ms: Option<u64>,
}

impl Summary {
    /// Sums up `games`.
    pub fn of(games: &[GameRecord]) -> Summary {
        let colour = |c: Colour| games.iter().filter(move |g| g.inarow == c);
        let empty = |c: Colour| colour(c).filter(|g| g.opening.is_empty());
        let mut off_board: Vec<(Ending, bool, u32)> = Vec::new();
        let (mut inarow, mut engine) = (SideStats::default(), SideStats::default());
        for game in games {
            inarow.merge(&game.inarow_side);
            engine.merge(&game.engine_side);
            if matches!(game.ending, Ending::Five | Ending::Full) {
                continue;
            }
            let lost = game.outcome == Outcome::Loss;
            match off_board
                .iter_mut()
                .find(|(e, l, _)| *e == game.ending && *l == lost)
            {
                Some(entry) => entry.2 += 1,
                None => off_board.push((game.ending, lost, 1)),
            }
        }
        Summary {
            all: Tally::of(games),
            as_x: Tally::of(colour(Colour::X)),
            as_o: Tally::of(colour(Colour::O)),
            empty_as_x: Tally::of(empty(Colour::X)),
            empty_as_o: Tally::of(empty(Colour::O)),
            off_board,
            inarow,
            engine,
            time_ms: games
                .first()
                .map(|g| g.time_ms)
                .filter(|&t| games.iter().all(|g| g.time_ms == t)),
        }
    }
}

/// An Elo figure: a signed whole number, or ±inf.
fn show_elo(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_owned()
    } else {
        // Adding zero turns -0 (an even score) into 0.
        format!("{:+.0}", elo + 0.0)
    }
}

/// Milliseconds a move on average, and at most; then the same over the moves that took at
/// least half of `time_ms` (forced replies and proven wins take far less, and would hide
/// whether a side uses its time).
fn per_move(side: &SideStats, time_ms: Option<u64>) -> String {
    if side.moves == 0 {
        return "no moves".to_owned();
    }
    let mut text = format!(
        "{} moves, {:.0} ms a move on average, {} ms at most",
        side.moves,
        side.total_ms as f64 / f64::from(side.moves),
        side.max_ms
    );
    if let Some(time_ms) = time_ms {
        let long: Vec<u64> = side
            .times_ms
            .iter()
            .copied()
            .filter(|&ms| ms * 2 >= time_ms)
            .collect();
        if !long.is_empty() {
            let mean = long.iter().sum::<u64>() as f64 / long.len() as f64;
            text.push_str(&format!(
                "; {} moves of at least half the time, {mean:.0} ms on average",
                long.len()
            ));
        }
    }
    text
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "games:              {}", self.all.games())?;
        writeln!(f, "inarow's score:     {}", self.all)?;
        if let Some((elo, low, high)) = self.all.elo() {
            writeln!(
                f,
                "Elo difference:     {} (95 %: {} to {})",
                show_elo(elo),
                show_elo(low),
                show_elo(high)
            )?;
        }
        writeln!(f, "inarow as X:        {}", self.as_x)?;
        writeln!(f, "inarow as O:        {}", self.as_o)?;
        writeln!(f, "empty board, as X:  {}", self.empty_as_x)?;
        writeln!(f, "empty board, as O:  {}", self.empty_as_o)?;
        for (ending, inarow_lost, count) in &self.off_board {
            let who = if *inarow_lost { "inarow" } else { "the engine" };
            writeln!(f, "lost by {ending:?}:     {count} by {who}")?;
        }
        writeln!(
            f,
            "inarow's time:      {}",
            per_move(&self.inarow, self.time_ms)
        )?;
        if self.inarow.moves > 0 && self.inarow.total_ms > 0 {
            writeln!(
                f,
                "inarow's search:    {:.0} nodes/s, depth {:.1} on average",
                self.inarow.nodes as f64 * 1000.0 / self.inarow.total_ms as f64,
                self.inarow.depth_sum as f64 / f64::from(self.inarow.moves)
            )?;
        }
        write!(
            f,
            "engine's time:      {}",
            per_move(&self.engine, self.time_ms)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(opening: &str, inarow: Colour, outcome: Outcome, ending: Ending) -> GameRecord {
        GameRecord {
            opening: opening.into(),
            inarow,
            time_ms: 1000,
            round: 1,
            outcome,
            ending,
            detail: String::new(),
            moves: "h8 i9".into(),
            engine: "test".into(),
            inarow_side: SideStats {
                moves: 10,
                total_ms: 10_000,
                max_ms: 1_005,
                nodes: 5_000_000,
                depth_sum: 80,
                times_ms: vec![1000; 10],
            },
            engine_side: SideStats {
                moves: 10,
                total_ms: 9_000,
                max_ms: 990,
                times_ms: vec![900; 10],
                ..SideStats::default()
            },
        }
    }

    #[test]
    fn records_read_back_and_cut_lines_are_skipped() {
        let record = game("h8 i9 g7", Colour::O, Outcome::Draw, Ending::Full);
        let line = serde_json::to_string(&record).unwrap();
        let text = format!("{line}\n{}\n\n{line}\n", &line[..line.len() / 2]);
        let (games, skipped) = parse(&text);
        assert_eq!(games, [record.clone(), record]);
        assert_eq!(skipped, 1);
        // A line written before rounds and move times were kept reads as round 1.
        let old = line
            .replace("\"round\":1,", "")
            .replace(",\"times_ms\":[]", "");
        assert!(!old.contains("round"), "{old}");
        let (games, _) = parse(&old);
        assert_eq!(games[0].round, 1);
    }

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(elo(0.5), 0.0);
        assert!((elo(0.75) - 190.85).abs() < 0.01);
        assert!((elo(0.25) + 190.85).abs() < 0.01);
        assert_eq!(elo(0.0), f64::NEG_INFINITY);
        assert_eq!(elo(1.0), f64::INFINITY);
    }

    #[test]
    fn tally_score_and_interval() {
        let even = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        let (mean, half) = even.score().unwrap();
        assert_eq!(mean, 0.5);
        // Every game is 0 or 1 away by ½: the deviation is ½, over √20.
        assert!((half - 1.96 * 0.5 / 20f64.sqrt()).abs() < 1e-9);
        let (elo, low, high) = even.elo().unwrap();
        assert_eq!(elo, 0.0);
        assert!(low < 0.0 && high > 0.0 && (low + high).abs() < 1e-9);
        let all_lost = Tally {
            wins: 0,
            draws: 0,
            losses: 4,
        };
        assert_eq!(all_lost.elo().unwrap().0, f64::NEG_INFINITY);
        assert_eq!(Tally::default().score(), None);
    }

    #[test]
    fn summary_by_colour_and_from_the_empty_board() {
        let games = [
            game("", Colour::X, Outcome::Win, Ending::Five),
            game("", Colour::O, Outcome::Loss, Ending::Five),
            game("h8 i9 g7", Colour::X, Outcome::Loss, Ending::Five),
            game("h8 i9 g7", Colour::O, Outcome::Win, Ending::Timeout),
        ];
        let summary = Summary::of(&games);
        assert_eq!(summary.all.games(), 4);
        assert_eq!(summary.all.points(), 2.0);
        assert_eq!(summary.as_x.wins, 1);
        assert_eq!(summary.as_o.wins, 1);
        assert_eq!(summary.empty_as_x.wins, 1);
        assert_eq!(summary.empty_as_o.losses, 1);
        assert_eq!(summary.off_board, [(Ending::Timeout, false, 1)]);
        assert_eq!(summary.inarow.moves, 40);
        let text = summary.to_string();
        assert!(text.contains("Elo difference:     +0"), "{text}");
        assert!(text.contains("500000 nodes/s"), "{text}");
        assert!(
            text.contains("lost by Timeout:     1 by the engine"),
            "{text}"
        );
    }
}
