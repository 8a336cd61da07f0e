//! The Connect Four opening book as the AI meets it: every line of the book's plies
//! played by the AI against every reply keeps the proven value, and a damaged book
//! is a typed error after which the AI searches instead, unproven.

use std::sync::Arc;

use inarow_engine::{Ai, Book, BookError, Level, Limits, Move, Player, Position, Rules, Value};

/// The committed book covers the AI's lines as X for positions of fewer stones than
/// this: X's book move and every O reply, from the empty board. Raise it with the book
/// (`--plies` of `examples/build-book.rs`).
const X_PLIES: usize = 17;
/// Likewise for the AI as O: its book move and every X move, from the empty board.
const O_PLIES: usize = 17;

/// The embedded book file, read again to damage a copy.
static BOOK_BYTES: &[u8] = include_bytes!("../data/c4-7x6.book");

/// A search that is cut off at once: only the book answers within it.
fn one_node() -> Limits {
    Limits {
        nodes: Some(1),
        ..Limits::default()
    }
}

/// Pons' score floor of a proven value for the mover at `ply` stones.
fn score(value: Value, ply: usize) -> i32 {
    Book::score_of(value, ply as u32).unwrap_or_else(|| panic!("unproven {value:?}"))
}

/// Walks every line below `plies` stones where `side` plays the AI's move and the
/// other side every move; the AI's move must come from the book, proven, and never
/// drop below the value proven for the position before it. Returns the AI positions seen.
fn walk(
    ai: &mut Ai,
    position: &mut Position,
    side: Player,
    plies: usize,
    floor: Option<i32>,
) -> usize {
    if position.ply() >= plies || position.is_over() {
        return 0;
    }
    if position.to_move() == side {
        let analysis = ai.think(position, &one_node());
        let line = format!("{position}after {:?}", position.history());
        assert!(analysis.proven, "{line}: {analysis:?}");
        assert_eq!(analysis.nodes, 0, "{line}: not from the book");
        let best = analysis.best.expect("a move");
        let value = analysis
            .moves
            .iter()
            .find(|m| m.mv == best)
            .expect("the best move is valued")
            .value;
        let s = score(value, position.ply());
        // Every other move is either unproven or no better.
        for m in &analysis.moves {
            if let Some(other) = Book::score_of(m.value, position.ply() as u32) {
                assert!(other <= s, "{line} {}", m.mv);
            }
        }
        if let Some(floor) = floor {
            assert!(s >= floor, "{line}: {value:?} below the proven {floor}");
        }
        // A win's floor carries down a proof tree (each entry's floor is its replies'
        // lowest), but an entry of every move's exact score (the old exact sample) is
        // above the tree's floors: below it, only the win must hold.
        let exact = Book::embedded().ok().and_then(|b| b.is_exact(position)) == Some(true);
        let next = if exact && s > 0 { 1 } else { s };
        position.try_play(best).expect("legal");
        let seen = 1 + walk(ai, position, side, plies, Some(next));
        position.undo();
        seen
    } else {
        let mut seen = 0;
        for col in 0..7 {
            if position.try_play(Move::Column(col)).is_ok() {
                seen += walk(ai, position, side, plies, floor);
                position.undo();
            }
        }
        seen
    }
}

#[test]
fn as_x_every_reply_keeps_the_proven_win() {
    let mut ai = Ai::new(Level::Perfect, 1);
    let mut position = Position::new(Rules::connect4());
    let first = ai.analyze(&position, &one_node());
    assert!(matches!(first.moves[0].value, Value::Win(_)), "{first:?}");
    let seen = walk(&mut ai, &mut position, Player::X, X_PLIES, Some(1));
    eprintln!("as X: {seen} book positions below {X_PLIES} plies");
    assert!(seen > 0);
}

#[test]
fn as_o_every_reply_keeps_the_proven_value() {
    let mut ai = Ai::new(Level::Perfect, 1);
    let mut position = Position::new(Rules::connect4());
    // X's score from the empty board is +1 (a win with X's last stone), so O's is at
    // least -1 after any first move: the AI as O loses no earlier than that, and holds
    // a draw or wins from the first X move that gives one away.
    let seen = walk(&mut ai, &mut position, Player::O, O_PLIES, Some(-1));
    eprintln!("as O: {seen} book positions below {O_PLIES} plies");
    assert!(seen > 0);
}

#[test]
fn as_o_the_book_says_how_each_first_move_ends() {
    // Known since Allis (1988): X's first move in the centre column wins, in the two
    // columns beside it draws, and elsewhere loses.
    let mut ai = Ai::new(Level::Perfect, 1);
    for (col, expected) in [(0, 1), (1, 1), (2, 0), (3, -1), (4, 0), (5, 1), (6, 1)] {
        let mut position = Position::new(Rules::connect4());
        position.try_play(Move::Column(col)).expect("legal");
        let analysis = ai.think(&position, &one_node());
        assert!(
            analysis.proven && analysis.nodes == 0,
            "{col}: {analysis:?}"
        );
        let best = analysis.best.expect("a move");
        let value = analysis
            .moves
            .iter()
            .find(|m| m.mv == best)
            .expect("valued");
        let class = score(value.value, 1).clamp(-1, 1);
        assert_eq!(class, expected, "after X's {col}: {value:?}");
    }
}

#[test]
fn a_damaged_book_is_an_error_and_the_ai_searches_unproven() {
    let good = Book::from_bytes(BOOK_BYTES).expect("the committed book reads");
    assert_eq!(Book::embedded().ok(), Some(&good));
    let mut damaged = BOOK_BYTES.to_vec();
    damaged[40] ^= 0x10;
    let error = Book::from_bytes(&damaged).expect_err("damaged");
    assert_eq!(error, BookError::BadChecksum);
    assert!(error.to_string().contains("damaged"), "{error}");
    assert!(matches!(
        Book::from_bytes(&BOOK_BYTES[..100]),
        Err(BookError::Truncated { len: 100 })
    ));

    let empty = Position::new(Rules::connect4());
    let limits = Limits {
        nodes: Some(200_000),
        ..Limits::default()
    };
    let without = Ai::new(Level::Perfect, 1)
        .with_book(None)
        .analyze(&empty, &limits);
    assert!(!without.proven, "{without:?}");
    assert!(without.best.is_some());
    let with = Ai::new(Level::Perfect, 1)
        .with_book(Some(Arc::new(good)))
        .think(&empty, &limits);
    assert!(with.proven && with.nodes == 0, "{with:?}");
}

#[test]
fn every_move_valued_at_a_book_position_keeps_what_the_book_proves() {
    // After X's winning first move O is lost: the book proves its move's exact score
    // and that no move does better; the search values the others within that.
    let mut position = Position::new(Rules::connect4());
    position.try_play(Move::Column(3)).expect("legal");
    let mut ai = Ai::new(Level::Perfect, 1);
    let played = ai.think(&position, &one_node());
    let best = played.best.expect("a move");
    let booked = played.moves.iter().find(|m| m.mv == best).expect("valued");
    assert!(matches!(booked.value, Value::Loss(_)), "{booked:?}");
    let limits = Limits {
        nodes: Some(100_000),
        ..Limits::default()
    };
    let hints = ai.analyze(&position, &limits);
    assert_eq!(hints.moves.len(), 7);
    assert_eq!(hints.moves[0], *booked, "{hints:?}");
    for m in &hints.moves[1..] {
        match m.value {
            Value::Loss(_) => assert!(score(m.value, 1) <= score(booked.value, 1)),
            // Unproven, but known to lose: an estimate below every draw.
            Value::Estimate(e) => assert!(e < 0, "{m:?}"),
            other => panic!("{}: {other:?} beats the book's loss", m.mv),
        }
    }
}
