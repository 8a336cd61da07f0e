//! Known game values solved from the empty board, and exhaustive never-loses walks on
//! 4×4 boards where every opponent sequence is tried.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use inarow_engine::{
    Ai, Analysis, Cell, GameStatus, Level, Limits, Player, Position, Rules, Value,
};

fn limits() -> Limits {
    Limits::time(Duration::from_secs(3600))
}

fn solve(width: u32, height: u32, k: u32) -> Analysis {
    let rules = Rules::new(width, height, k, false).expect("valid");
    let start = Instant::now();
    let analysis = Ai::new(Level::Perfect, 0).analyze(&Position::new(rules), &limits());
    eprintln!(
        "{width},{height},{k}: {:?} in {:.2?}, {} nodes",
        analysis.moves[0].value,
        start.elapsed(),
        analysis.nodes
    );
    assert!(analysis.proven);
    analysis
}

fn is_draw(analysis: &Analysis) -> bool {
    analysis.moves[0].value == Value::Draw
}

fn is_win(analysis: &Analysis) -> bool {
    matches!(analysis.moves[0].value, Value::Win(_))
}

#[test]
fn small_known_values() {
    assert!(is_draw(&solve(3, 3, 3)));
    assert!(is_win(&solve(4, 3, 3)));
    assert!(is_win(&solve(4, 4, 3)));
    assert!(is_draw(&solve(4, 4, 4)));
}

#[test]
fn five_by_four_k4_is_a_draw() {
    assert!(is_draw(&solve(5, 4, 4)));
}

#[test]
fn five_by_five_k4_is_a_draw() {
    assert!(is_draw(&solve(5, 5, 4)));
}

/// The board as a base-3 number.
fn key(position: &Position) -> u64 {
    let rules = position.rules();
    let mut key = 0;
    for col in 0..rules.width() as u8 {
        for row in 0..rules.height() as u8 {
            key = key * 3
                + match position.get(Cell { col, row }) {
                    None => 0,
                    Some(Player::X) => 1,
                    Some(Player::O) => 2,
                };
        }
    }
    key
}

/// One exhaustive walk: the AI plays one side, the other side tries every move.
struct Walk {
    ai_player: Player,
    ai: Ai,
    /// Positions already expanded: a position is expanded once whatever the path to it.
    seen: HashSet<u64>,
    /// Games reached, by winner (`None` = draw).
    outcomes: HashMap<Option<Player>, u64>,
    ai_moves: u64,
    nodes: u64,
}

impl Walk {
    fn visit(&mut self, position: &mut Position) {
        if !self.seen.insert(key(position)) {
            return;
        }
        match position.status() {
            GameStatus::Won { winner, .. } => *self.outcomes.entry(Some(winner)).or_default() += 1,
            GameStatus::Drawn => *self.outcomes.entry(None).or_default() += 1,
            GameStatus::InProgress { to_move } if to_move == self.ai_player => {
                let analysis = self.ai.analyze(position, &limits());
                self.ai_moves += 1;
                self.nodes += analysis.nodes;
                let best = analysis.best.expect("in progress");
                position.try_play(best).expect("legal");
                self.visit(position);
                position.undo();
            }
            GameStatus::InProgress { .. } => {
                for mv in position.legal_moves() {
                    position.try_play(mv).expect("legal");
                    self.visit(position);
                    position.undo();
                }
            }
        }
    }
}

fn outcomes(rules: Rules, ai_player: Player) -> HashMap<Option<Player>, u64> {
    let mut walk = Walk {
        ai_player,
        ai: Ai::new(Level::Perfect, 11),
        seen: HashSet::new(),
        outcomes: HashMap::new(),
        ai_moves: 0,
        nodes: 0,
    };
    let start = Instant::now();
    walk.visit(&mut Position::new(rules));
    eprintln!(
        "{}x{} k{} as {ai_player:?}: {:?} in {:.2?}, {} AI moves, {} nodes",
        rules.width(),
        rules.height(),
        rules.k(),
        walk.outcomes,
        start.elapsed(),
        walk.ai_moves,
        walk.nodes,
    );
    walk.outcomes
}

#[test]
fn four_by_four_k3_first_player_always_wins() {
    let rules = Rules::new(4, 4, 3, false).expect("valid");
    let games = outcomes(rules, Player::X);
    assert!(games.get(&Some(Player::X)).copied().unwrap_or(0) > 0);
    assert_eq!(games.len(), 1, "X must win every game: {games:?}");
}

#[test]
fn four_by_four_k4_never_loses() {
    let rules = Rules::new(4, 4, 4, false).expect("valid");
    for ai_player in [Player::X, Player::O] {
        let games = outcomes(rules, ai_player);
        assert_eq!(games.get(&Some(ai_player.opponent())), None, "{games:?}");
        assert!(!games.is_empty());
    }
}
