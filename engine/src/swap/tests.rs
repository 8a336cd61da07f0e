//! The opening rules walked through every branch, with the colours each player ends with
//! and who places each stone.

use super::*;
use Person::{First, Second};

/// The colour of the stone after `ply` stones: X on even plies.
fn colour(ply: usize) -> Player {
    if ply.is_multiple_of(2) {
        Player::X
    } else {
        Player::O
    }
}

/// Places a stone for `person` on a board of `ply` stones.
fn place(opening: &mut Opening, person: Person, ply: usize) -> Result<(), OpeningError> {
    opening.place(person, ply, colour(ply))
}

fn turn(opening: &Opening, ply: usize) -> Turn {
    opening.turn(ply, colour(ply))
}

#[test]
fn without_a_rule_the_colours_alternate_from_the_first_stone() {
    let mut opening = Opening::new(OpeningRule::Free);
    assert!(opening.is_over());
    assert_eq!(turn(&opening, 0), Turn::Place { by: First });
    assert_eq!(turn(&opening, 1), Turn::Place { by: Second });
    assert_eq!(place(&mut opening, Second, 0), Err(OpeningError::NotYours));
    assert_eq!(place(&mut opening, First, 0), Ok(()));
    assert_eq!(
        opening.choose(Second, Choice::TakeX),
        Err(OpeningError::NotYours)
    );
}

#[test]
fn swap_offers_the_second_player_x_after_the_first_stone() {
    for (choice, second_plays) in [(Choice::TakeX, Player::X), (Choice::TakeO, Player::O)] {
        let mut opening = Opening::new(OpeningRule::Swap);
        assert!(!opening.is_over());
        assert_eq!(place(&mut opening, First, 0), Ok(()));
        assert_eq!(
            turn(&opening, 1),
            Turn::Choose {
                by: Second,
                options: &[Choice::TakeX, Choice::TakeO]
            }
        );
        assert_eq!(place(&mut opening, Second, 1), Err(OpeningError::NotYours));
        assert_eq!(opening.choose(First, choice), Err(OpeningError::NotYours));
        assert_eq!(
            opening.choose(Second, Choice::PlaceTwo),
            Err(OpeningError::NotOffered)
        );
        assert_eq!(opening.choose(Second, choice), Ok(()));
        assert!(opening.is_over());
        assert_eq!(opening.mark_of(Second), second_plays);
        assert_eq!(opening.mark_of(First), second_plays.opponent());
        // O answers the first stone: whoever now holds O.
        let o = if second_plays == Player::O {
            Second
        } else {
            First
        };
        assert_eq!(turn(&opening, 1), Turn::Place { by: o });
    }
}

#[test]
fn swap2_the_second_player_takes_a_side_after_three_stones() {
    for (choice, second_plays) in [(Choice::TakeX, Player::X), (Choice::TakeO, Player::O)] {
        let mut opening = Opening::new(OpeningRule::Swap2);
        for ply in 0..3 {
            assert_eq!(
                turn(&opening, ply),
                Turn::Place { by: First },
                "stone {ply}"
            );
            assert_eq!(
                place(&mut opening, Second, ply),
                Err(OpeningError::NotYours)
            );
            assert_eq!(place(&mut opening, First, ply), Ok(()));
        }
        assert_eq!(
            turn(&opening, 3),
            Turn::Choose {
                by: Second,
                options: &[Choice::TakeX, Choice::TakeO, Choice::PlaceTwo]
            }
        );
        assert_eq!(opening.choose(Second, choice), Ok(()));
        assert!(opening.is_over());
        assert_eq!(opening.mark_of(Second), second_plays);
        let o = if second_plays == Player::O {
            Second
        } else {
            First
        };
        assert_eq!(
            turn(&opening, 3),
            Turn::Place { by: o },
            "O plays the fourth stone"
        );
    }
}

#[test]
fn swap2_two_more_stones_hand_the_choice_back() {
    for (choice, first_plays) in [(Choice::TakeX, Player::X), (Choice::TakeO, Player::O)] {
        let mut opening = Opening::new(OpeningRule::Swap2);
        for ply in 0..3 {
            place(&mut opening, First, ply).expect("the first player's stones");
        }
        assert_eq!(opening.choose(Second, Choice::PlaceTwo), Ok(()));
        assert!(!opening.is_over());
        for ply in 3..5 {
            assert_eq!(
                turn(&opening, ply),
                Turn::Place { by: Second },
                "stone {ply}"
            );
            assert_eq!(place(&mut opening, First, ply), Err(OpeningError::NotYours));
            assert_eq!(place(&mut opening, Second, ply), Ok(()));
        }
        assert_eq!(
            turn(&opening, 5),
            Turn::Choose {
                by: First,
                options: &[Choice::TakeX, Choice::TakeO]
            }
        );
        assert_eq!(
            opening.choose(First, Choice::PlaceTwo),
            Err(OpeningError::NotOffered)
        );
        assert_eq!(opening.choose(First, choice), Ok(()));
        assert!(opening.is_over());
        assert_eq!(opening.mark_of(First), first_plays);
        let o = if first_plays == Player::O {
            First
        } else {
            Second
        };
        assert_eq!(
            turn(&opening, 5),
            Turn::Place { by: o },
            "O plays the sixth stone"
        );
        assert_eq!(turn(&opening, 6), Turn::Place { by: o.other() });
    }
}

#[test]
fn rules_are_named() {
    for rule in OpeningRule::ALL {
        assert_eq!(OpeningRule::parse(rule.as_str()), Some(rule));
    }
    assert_eq!(OpeningRule::parse(" SWAP2 "), Some(OpeningRule::Swap2));
    assert_eq!(OpeningRule::parse("soosorv"), None);
    assert_eq!(Choice::PlaceTwo.as_str(), "place_two");
}
