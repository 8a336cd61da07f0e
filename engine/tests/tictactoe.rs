//! Tic-tac-toe, exhaustively: the published counts of positions, games and tree nodes,
//! and a perfect AI that never loses and always wins by the shortest route.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use inarow_engine::reference;
use inarow_engine::{Ai, Cell, GameStatus, Level, Limits, Move, Player, Position, Rules, Value};

/// The board as a base-3 number, cell (col, row) at digit `col * 3 + row`.
fn key(position: &Position) -> u32 {
    let mut key = 0;
    for col in 0..3u8 {
        for row in 0..3u8 {
            let digit = match position.get(Cell { col, row }) {
                None => 0,
                Some(Player::X) => 1,
                Some(Player::O) => 2,
            };
            key = key * 3 + digit;
        }
    }
    key
}

/// The smallest key over the 8 symmetries of the square.
fn canonical(position: &Position) -> u32 {
    let mut best = u32::MAX;
    for transform in 0..8u8 {
        let mut key = 0;
        for col in 0..3u8 {
            for row in 0..3u8 {
                let (mut c, mut r) = if transform & 4 != 0 {
                    (row, col)
                } else {
                    (col, row)
                };
                if transform & 1 != 0 {
                    c = 2 - c;
                }
                if transform & 2 != 0 {
                    r = 2 - r;
                }
                let digit = match position.get(Cell { col: c, row: r }) {
                    None => 0,
                    Some(Player::X) => 1,
                    Some(Player::O) => 2,
                };
                key = key * 3 + digit;
            }
        }
        best = best.min(key);
    }
    best
}

#[derive(Default)]
struct Counts {
    nodes_by_ply: [u64; 10],
    games: HashMap<(Option<Player>, usize), u64>,
    positions_by_ply: [HashSet<u32>; 10],
    classes_by_ply: [HashSet<u32>; 10],
    terminal: HashMap<u32, Option<Player>>,
}

fn walk(position: &mut Position, counts: &mut Counts) {
    let ply = position.ply();
    counts.nodes_by_ply[ply] += 1;
    counts.positions_by_ply[ply].insert(key(position));
    counts.classes_by_ply[ply].insert(canonical(position));
    let outcome = match position.status() {
        GameStatus::InProgress { .. } => None,
        GameStatus::Won { winner, line } => {
            assert_eq!(line.len(), 3);
            Some(Some(winner))
        }
        GameStatus::Drawn => Some(None),
    };
    if let Some(winner) = outcome {
        *counts.games.entry((winner, ply)).or_default() += 1;
        counts.terminal.insert(key(position), winner);
        return;
    }
    for mv in position.legal_moves() {
        position.try_play(mv).expect("legal");
        walk(position, counts);
        assert_eq!(position.undo(), Some(mv));
    }
}

#[test]
fn counts_match_the_reference() {
    let mut counts = Counts::default();
    walk(&mut Position::new(Rules::tictactoe()), &mut counts);

    assert_eq!(
        counts.nodes_by_ply,
        [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    );
    assert_eq!(counts.nodes_by_ply.iter().sum::<u64>(), 549_946);
    assert_eq!(
        reference::tree_nodes(&Position::new(Rules::tictactoe())),
        549_946
    );

    let games = |winner: Option<Player>| -> u64 {
        counts
            .games
            .iter()
            .filter(|((w, _), _)| *w == winner)
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!(games(Some(Player::X)), 131_184);
    assert_eq!(games(Some(Player::O)), 77_904);
    assert_eq!(games(None), 46_080);
    assert_eq!(counts.games.values().sum::<u64>(), 255_168);
    let by_length = |winner: Option<Player>, ply: usize| counts.games.get(&(winner, ply)).copied();
    assert_eq!(by_length(Some(Player::X), 5), Some(1440));
    assert_eq!(by_length(Some(Player::X), 7), Some(47_952));
    assert_eq!(by_length(Some(Player::X), 9), Some(81_792));
    assert_eq!(by_length(Some(Player::O), 6), Some(5328));
    assert_eq!(by_length(Some(Player::O), 8), Some(72_576));
    assert_eq!(by_length(None, 9), Some(46_080));

    let positions: Vec<usize> = counts.positions_by_ply.iter().map(HashSet::len).collect();
    assert_eq!(positions, [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]);
    assert_eq!(positions.iter().sum::<usize>(), 5478);

    let classes: Vec<usize> = counts.classes_by_ply.iter().map(HashSet::len).collect();
    assert_eq!(classes, [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]);
    assert_eq!(classes.iter().sum::<usize>(), 765);

    let terminal =
        |winner: Option<Player>| counts.terminal.values().filter(|&&w| w == winner).count();
    assert_eq!(counts.terminal.len(), 958);
    assert_eq!(terminal(Some(Player::X)), 626);
    assert_eq!(terminal(Some(Player::O)), 316);
    assert_eq!(terminal(None), 16);

    assert_eq!(
        reference::value(&Position::new(Rules::tictactoe())),
        Value::Draw
    );
}

fn limits() -> Limits {
    Limits::time(Duration::from_secs(600))
}

/// The rank of a value for the player making the move: bigger is better.
fn rank(value: Value) -> i64 {
    match value {
        Value::Win(plies) => 1000 - i64::from(plies),
        Value::Loss(plies) => -1000 + i64::from(plies),
        Value::Draw => 0,
        Value::Estimate(e) => panic!("estimate {e} on a board that can be solved"),
    }
}

/// Walks every opponent reply; at each AI turn checks the AI's analysis against plain
/// minimax for every move and that its choice is a best move (the quickest win, else a
/// draw, else the slowest loss). Returns the outcomes of all games, counted.
fn perfect_walk(
    position: &mut Position,
    ai_player: Player,
    ai: &mut Ai,
    outcomes: &mut HashMap<Option<Player>, u64>,
) {
    match position.status() {
        GameStatus::Won { winner, .. } => *outcomes.entry(Some(winner)).or_default() += 1,
        GameStatus::Drawn => *outcomes.entry(None).or_default() += 1,
        GameStatus::InProgress { to_move } if to_move == ai_player => {
            let analysis = ai.analyze(position, &limits());
            assert!(analysis.proven);
            let mut oracle = reference::move_values(position);
            let mut mine = analysis.moves.clone();
            oracle.sort_by_key(|m| m.mv);
            mine.sort_by_key(|m| m.mv);
            assert_eq!(mine, oracle, "\n{position}");
            let best = analysis.best.expect("game in progress");
            let best_rank = oracle.iter().map(|m| rank(m.value)).max().expect("moves");
            let chosen = oracle.iter().find(|m| m.mv == best).expect("legal choice");
            assert_eq!(rank(chosen.value), best_rank, "\n{position}chose {best}");
            position.try_play(best).expect("legal");
            perfect_walk(position, ai_player, ai, outcomes);
            position.undo();
        }
        GameStatus::InProgress { .. } => {
            for mv in position.legal_moves() {
                position.try_play(mv).expect("legal");
                perfect_walk(position, ai_player, ai, outcomes);
                position.undo();
            }
        }
    }
}

#[test]
fn perfect_ai_never_loses_and_wins_fastest() {
    for ai_player in [Player::X, Player::O] {
        let mut ai = Ai::new(Level::Perfect, 7);
        let mut outcomes = HashMap::new();
        perfect_walk(
            &mut Position::new(Rules::tictactoe()),
            ai_player,
            &mut ai,
            &mut outcomes,
        );
        assert_eq!(
            outcomes.get(&Some(ai_player.opponent())),
            None,
            "{outcomes:?}"
        );
        assert!(outcomes.get(&Some(ai_player)).copied().unwrap_or(0) > 0);
    }
}

/// Every position of tic-tac-toe, not just those the AI lets happen: the analysis of each
/// equals plain minimax move by move.
#[test]
fn every_position_agrees_with_minimax() {
    fn visit(position: &mut Position, ai: &mut Ai, seen: &mut HashSet<u32>) {
        if position.is_over() || !seen.insert(key(position)) {
            return;
        }
        let analysis = ai.analyze(position, &limits());
        assert!(analysis.proven);
        let mut oracle = reference::move_values(position);
        let mut mine = analysis.moves;
        oracle.sort_by_key(|m| m.mv);
        mine.sort_by_key(|m| m.mv);
        assert_eq!(mine, oracle, "\n{position}");
        for mv in position.legal_moves() {
            position.try_play(mv).expect("legal");
            visit(position, ai, seen);
            position.undo();
        }
    }
    let mut seen = HashSet::new();
    let mut ai = Ai::new(Level::Perfect, 3);
    visit(&mut Position::new(Rules::tictactoe()), &mut ai, &mut seen);
    assert_eq!(seen.len(), 5478 - 958);
}

#[test]
fn takes_the_quickest_win() {
    // X: a1 b1, O: a3 b3; X to move can win now on c1 (also c3 would only block).
    let rules = Rules::tictactoe();
    let moves: Vec<Move> = ["a1", "a3", "b1", "b3"]
        .iter()
        .map(|m| rules.parse_move(m).expect("notation"))
        .collect();
    let position = Position::from_moves(rules, &moves).expect("legal");
    let mut ai = Ai::new(Level::Perfect, 0);
    let analysis = ai.analyze(&position, &limits());
    assert_eq!(
        analysis.best,
        Some(rules.parse_move("c1").expect("notation"))
    );
    assert_eq!(analysis.moves[0].value, Value::Win(1));
}
