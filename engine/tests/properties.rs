//! Properties of rules and positions over random input: parsing never panics and
//! round-trips, play/undo restores the position, illegal moves change nothing.

use inarow_engine::{GameStatus, Move, MoveError, Position, Rules};
use proptest::prelude::*;

fn rules() -> impl Strategy<Value = Rules> {
    (1u32..=19, 1u32..=19, any::<bool>(), 1u32..=19).prop_map(|(w, h, gravity, k)| {
        let k = 1 + (k - 1) % w.max(h);
        Rules::new(w, h, k, gravity).expect("generated within range")
    })
}

proptest! {
    // No failure files: the package is not at the root of the repository, and a failure
    // is printed with its minimal input anyway.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn parse_never_panics(rules in rules(), text in ".{0,12}") {
        let _ = rules.parse_move(&text);
    }

    #[test]
    fn notation_round_trips(rules in rules(), col in 0u8..19, row in 0u8..19) {
        prop_assume!(u32::from(col) < rules.width() && u32::from(row) < rules.height());
        let mv = if rules.gravity() {
            Move::Column(col)
        } else {
            Move::Cell(inarow_engine::Cell { col, row })
        };
        prop_assert_eq!(rules.parse_move(&mv.to_string()), Ok(mv));
        prop_assert_eq!(rules.parse_move(&mv.to_string().to_uppercase()), Ok(mv));
    }

    #[test]
    fn play_undo_and_illegal_moves(rules in rules(), picks in prop::collection::vec(any::<u16>(), 0..60)) {
        let mut position = Position::new(rules);
        let mut snapshots = vec![(position.to_string(), position.status())];
        for pick in picks {
            let moves = position.legal_moves();
            if moves.is_empty() {
                prop_assert!(position.is_over());
                break;
            }
            // An occupied cell or full column is refused and changes nothing.
            if let Some(&last) = position.landed().last()
                && !rules.gravity()
            {
                let before = (position.to_string(), position.ply());
                prop_assert_eq!(
                    position.try_play(Move::Cell(last)),
                    Err(MoveError::Occupied)
                );
                prop_assert_eq!((position.to_string(), position.ply()), before);
            }
            let mv = moves[usize::from(pick) % moves.len()];
            let cell = position.try_play(mv).expect("listed as legal");
            prop_assert_eq!(position.last_cell(), Some(cell));
            prop_assert_eq!(position.history().last(), Some(&mv));
            if let GameStatus::Won { line, .. } = position.status() {
                prop_assert!(line.len() >= rules.k() as usize);
                prop_assert!(line.contains(&cell));
            }
            snapshots.push((position.to_string(), position.status()));
        }
        snapshots.pop();
        while let Some(snapshot) = snapshots.pop() {
            prop_assert!(position.undo().is_some());
            prop_assert_eq!((position.to_string(), position.status()), snapshot);
        }
        prop_assert_eq!(position.ply(), 0);
    }
}
