//! The rule variants through the public API: which lines win under freestyle, standard
//! and renju, renju's refusals of X's forbidden moves, and the record's `Rule` tag.

use inarow_engine::record::Record;
use inarow_engine::renju::Foul;
use inarow_engine::{GameStatus, Move, MoveError, Player, Position, Rules, Variant};

fn gomoku(variant: Variant) -> Rules {
    Rules::gomoku()
        .with_variant(variant)
        .expect("gomoku takes every variant")
}

/// Plays `moves` (notation, X first) and returns the position.
fn play(rules: Rules, moves: &str) -> Position {
    let mut position = Position::new(rules);
    for text in moves.split_whitespace() {
        let mv = rules.parse_move(text).expect("a move");
        position
            .try_play(mv)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    position
}

fn cell(rules: Rules, text: &str) -> Move {
    rules.parse_move(text).expect("a cell")
}

/// X: a8 b8 c8 e8 f8 (O far away on row 1), then d8 joins them into six.
const SIX_FOR_X: &str = "a8 a1 b8 c1 c8 e1 e8 g1 f8 i1";

#[test]
fn freestyle_wins_with_six_and_standard_does_not() {
    let free = gomoku(Variant::Freestyle);
    let mut position = play(free, SIX_FOR_X);
    position.try_play(cell(free, "d8")).expect("legal");
    assert!(matches!(
        position.status(),
        GameStatus::Won { winner: Player::X, ref line } if line.len() == 6
    ));

    let standard = gomoku(Variant::Standard);
    let mut position = play(standard, SIX_FOR_X);
    position.try_play(cell(standard, "d8")).expect("legal");
    assert!(matches!(position.status(), GameStatus::InProgress { .. }));
    // Exactly five elsewhere still wins: X a8..e8 with d8 there needs a new line; build
    // one down the h file.
    let mut position = play(standard, "h2 a1 h3 c1 h4 e1 h5 g1");
    position.try_play(cell(standard, "h6")).expect("legal");
    assert!(matches!(
        position.status(),
        GameStatus::Won {
            winner: Player::X,
            ..
        }
    ));
}

#[test]
fn renju_refuses_x_an_overline_and_lets_o_win_with_six() {
    let renju = gomoku(Variant::Renju);
    let mut position = play(renju, SIX_FOR_X);
    let before = position.ply();
    assert_eq!(
        position.try_play(cell(renju, "d8")),
        Err(MoveError::Forbidden(Foul::Overline))
    );
    assert_eq!(position.ply(), before, "a refused move changes nothing");
    assert!(!position.legal_moves().contains(&cell(renju, "d8")));
    assert_eq!(
        MoveError::Forbidden(Foul::Overline).to_string(),
        "renju forbids X an overline (six or more in a row)"
    );

    // O: a8 b8 c8 e8 f8, then d8 makes six and wins.
    let mut position = play(renju, "o15 a8 m15 b8 k15 c8 o13 e8 o11 f8 m13");
    position
        .try_play(cell(renju, "d8"))
        .expect("O may make six");
    assert!(matches!(
        position.status(),
        GameStatus::Won { winner: Player::O, ref line } if line.len() == 6
    ));
}

#[test]
fn renju_refuses_x_a_double_three_but_not_o() {
    let renju = gomoku(Variant::Renju);
    // X h8 j8 g10 g9: g8 makes two open threes.
    let mut position = play(renju, "h8 a1 j8 a3 g10 a5 g9 a7");
    assert_eq!(
        position.try_play(cell(renju, "g8")),
        Err(MoveError::Forbidden(Foul::DoubleThree))
    );
    // The same shape for O is allowed.
    let mut position = play(renju, "a1 h8 a3 j8 a5 g10 a7 g9 o15");
    position
        .try_play(cell(renju, "g8"))
        .expect("O has no forbidden moves");
}

#[test]
fn renju_lets_x_win_with_exactly_five() {
    let renju = gomoku(Variant::Renju);
    let mut position = play(renju, "a8 a1 b8 c1 c8 e1 d8 g1");
    position
        .try_play(cell(renju, "e8"))
        .expect("five is never forbidden");
    assert!(matches!(
        position.status(),
        GameStatus::Won {
            winner: Player::X,
            ..
        }
    ));
}

#[test]
fn a_record_keeps_the_rule() {
    let renju = gomoku(Variant::Renju);
    let position = play(renju, "h8 h9 j8");
    let text = Record::new(position.clone()).to_string();
    assert!(text.contains("[Rule \"renju\"]"), "{text}");
    let back = Record::parse(&text).expect("reads back");
    assert_eq!(back.position.rules(), renju);
    assert_eq!(back.position.history(), position.history());
    // Freestyle records carry no Rule tag, as before the variants.
    let free = play(Rules::gomoku(), "h8");
    assert!(!Record::new(free).to_string().contains("Rule"));
}

#[test]
fn variants_are_checked_and_named() {
    assert!(Rules::connect4().with_variant(Variant::Renju).is_err());
    let seven = Rules::new(15, 15, 6, false).expect("rules");
    let error = seven.with_variant(Variant::Renju).unwrap_err();
    assert_eq!(
        error.to_string(),
        "renju is played without gravity, five in a row"
    );
    assert!(seven.with_variant(Variant::Standard).is_ok());
    assert_eq!(Variant::parse(" Renju "), Some(Variant::Renju));
    assert_eq!(Variant::parse("caro"), None);
}
