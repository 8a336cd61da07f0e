//! Game records: the documented example, round trips of random legal games, and the
//! errors a bad record gets.

use proptest::prelude::*;

use super::*;
use crate::rules::Move;

/// The example of docs/protocol.md, "Game records".
const DOC_EXAMPLE: &str = "[Game \"42\"]
[Room \"k7m2q9xa\"]
[Board \"3x3\"]
[K \"3\"]
[Gravity \"no\"]
[X \"ann\"]
[O \"bob\"]
[Start \"2026-11-23T16:21:40Z\"]
[End \"2026-11-23T16:21:52Z\"]
[Result \"1-0\"]
[Termination \"line a1 b2 c3\"]

1. b2 {2.1s} a2 {3.4s} 2. a1 {1.8s} c1 {2.5s} 3. c3 {2.2s} 1-0
";

fn history(record: &Record) -> Vec<String> {
    record
        .position
        .history()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_documented_example_reads_and_writes_back_the_same() {
    let record = Record::parse(DOC_EXAMPLE).unwrap();
    assert_eq!(record.position.rules(), Rules::tictactoe());
    assert_eq!(history(&record), ["b2", "a2", "a1", "c1", "c3"]);
    assert_eq!(record.result, RecordResult::XWon);
    assert_eq!(record.tag("X"), Some("ann"));
    assert_eq!(record.tag("Termination"), Some("line a1 b2 c3"));
    assert_eq!(record.comments[0].as_deref(), Some("2.1s"));
    assert_eq!(record.comments.len(), 5);
    assert!(matches!(
        record.position.status(),
        GameStatus::Won {
            winner: Player::X,
            ..
        }
    ));
    assert_eq!(record.to_string(), DOC_EXAMPLE);
}

#[test]
fn numbers_are_optional_and_lines_may_wrap_anywhere_between_tokens() {
    let text = "[Board \"7x6\"]\n[K \"4\"]\n[Gravity \"yes\"]\n[Mystery \"kept\"]\n\nd\nd 2.e {a comment\nover two lines}\n3...4 1. 7\n*";
    let record = Record::parse(text).unwrap();
    assert_eq!(history(&record), ["d", "d", "e", "d", "g"]);
    assert_eq!(
        record.comments[2].as_deref(),
        Some("a comment over two lines")
    );
    assert_eq!(record.tag("Mystery"), Some("kept"));
    assert_eq!(record.result, RecordResult::Unfinished);
}

#[test]
fn escapes_in_values_round_trip() {
    let mut record = Record::new(Position::new(Rules::tictactoe()));
    record
        .tags
        .push(("X".into(), "the \"ace\" \\ of ]spades[".into()));
    let text = record.to_string();
    assert!(
        text.contains(r#"[X "the \"ace\" \\ of ]spades["]"#),
        "{text}"
    );
    assert_eq!(
        Record::parse(&text).unwrap().tag("X"),
        Some("the \"ace\" \\ of ]spades[")
    );
}

#[test]
fn a_missing_result_token_falls_back_to_the_result_tag() {
    let text = "[Board \"3x3\"]\n[K \"3\"]\n[Gravity \"no\"]\n[Result \"0-1\"]\n\n1. a1 b2\n";
    assert_eq!(Record::parse(text).unwrap().result, RecordResult::OWon);
}

#[test]
fn long_games_wrap_at_79_columns() {
    let rules = Rules::new(15, 15, 5, false).unwrap();
    let mut position = Position::new(rules);
    for mv in position.legal_moves().into_iter().take(60) {
        position.try_play(mv).unwrap();
        if position.is_over() {
            break;
        }
    }
    let mut record = Record::new(position);
    record.comments = vec![Some(seconds_comment(12_345)); record.position.ply()];
    let text = record.to_string();
    assert!(
        text.lines().all(|l| l.chars().count() <= LINE_WIDTH),
        "{text}"
    );
    let back = Record::parse(&text).unwrap();
    assert_eq!(history(&back), history(&record));
}

#[test]
fn seconds_are_tenths_rounded() {
    assert_eq!(seconds_comment(2_100), "2.1s");
    assert_eq!(seconds_comment(0), "0.0s");
    assert_eq!(seconds_comment(49), "0.0s");
    assert_eq!(seconds_comment(50), "0.1s");
    assert_eq!(seconds_comment(61_250), "61.3s");
}

fn error(text: &str) -> RecordError {
    Record::parse(text).unwrap_err()
}

const TTT: &str = "[Board \"3x3\"]\n[K \"3\"]\n[Gravity \"no\"]\n\n";

#[test]
fn bad_records_get_typed_errors() {
    assert_eq!(
        error("[K \"3\"]\n[Gravity \"no\"]\n\n1. a1"),
        RecordError::MissingTag("Board")
    );
    assert_eq!(
        error("[Board \"3by3\"]\n[K \"3\"]\n[Gravity \"no\"]\n"),
        RecordError::BadRulesTag {
            tag: "Board",
            value: "3by3".into()
        }
    );
    assert!(matches!(
        error("[Board \"3x3\"]\n[K \"9\"]\n[Gravity \"no\"]\n"),
        RecordError::Rules(_)
    ));
    assert!(matches!(
        error("[Board \"3x3\"]\n[K \"3\"\n"),
        RecordError::BadTag { line: 2, .. }
    ));
    assert!(matches!(
        error("[Board \"3\\x3\"]\n"),
        RecordError::BadTag { line: 1, .. }
    ));
    assert!(matches!(
        error(&format!("{TTT}1. a1 a1")),
        RecordError::IllegalMove {
            number: 2,
            error: MoveError::Occupied,
            ..
        }
    ));
    assert!(matches!(
        error(&format!("{TTT}1. a1 b1 2. a2 b2 3. a3 b3")),
        RecordError::IllegalMove {
            number: 6,
            error: MoveError::GameOver,
            ..
        }
    ));
    assert!(matches!(
        error(&format!("{TTT}1. a1 z9")),
        RecordError::UnreadableMove { number: 2, .. }
    ));
    assert_eq!(
        error(&format!("{TTT}1. a1 {{oops")),
        RecordError::UnclosedComment
    );
    assert_eq!(
        error(&format!("{TTT}1. a1 1-0 b2")),
        RecordError::AfterResult("b2".into())
    );
    let message = error(&format!("{TTT}1. a1 a1")).to_string();
    assert!(message.contains("move 2 (a1)"), "{message}");
}

/// A rule set among a few, and a game on it: each number picks among the legal moves.
fn game() -> impl Strategy<Value = (Rules, Vec<usize>)> {
    let rules = prop_oneof![
        Just(Rules::tictactoe()),
        Just(Rules::connect4()),
        Just(Rules::new(5, 4, 3, false).unwrap()),
        Just(Rules::new(19, 19, 5, false).unwrap()),
        Just(Rules::new(9, 9, 4, true).unwrap()),
    ];
    (rules, prop::collection::vec(any::<usize>(), 0..120))
}

proptest! {
    #[test]
    fn random_legal_games_round_trip(
        (rules, picks) in game(),
        comment_every in 1usize..4,
        name in "[ -~]{0,12}",
        resigned in any::<bool>(),
    ) {
        let mut position = Position::new(rules);
        for pick in picks {
            let legal: Vec<Move> = position.legal_moves();
            if position.is_over() || legal.is_empty() {
                break;
            }
            position.try_play(legal[pick % legal.len()]).unwrap();
        }
        let mut record = Record::new(position);
        record.tags.insert(0, ("X".into(), name.clone()));
        record.comments = (0..record.position.ply())
            .map(|i| (i % comment_every == 0).then(|| seconds_comment(i as u64 * 137)))
            .collect();
        while record.comments.last().is_some_and(Option::is_none) {
            record.comments.pop();
        }
        if resigned && record.result == RecordResult::Unfinished {
            record.result = RecordResult::OWon;
        }
        let text = record.to_string();
        let back = Record::parse(&text).unwrap();
        prop_assert_eq!(&back.tags, &record.tags);
        prop_assert_eq!(back.position.rules(), rules);
        prop_assert_eq!(back.position.history(), record.position.history());
        prop_assert_eq!(back.position.status(), record.position.status());
        prop_assert_eq!(&back.comments, &record.comments);
        prop_assert_eq!(back.result, record.result);
        prop_assert_eq!(back.to_string(), text);
    }
}

#[test]
fn timestamps_are_utc_dates() {
    assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
    assert_eq!(utc_timestamp(951_782_400_000), "2000-02-29T00:00:00Z");
    assert_eq!(utc_timestamp(951_868_799_999), "2000-02-29T23:59:59Z");
    assert_eq!(utc_timestamp(1_795_450_900_999), "2026-11-23T16:21:40Z");
    assert_eq!(utc_timestamp(4_102_444_799_000), "2099-12-31T23:59:59Z");
    assert_eq!(utc_timestamp(4_107_542_400_000), "2100-03-01T00:00:00Z");
}
