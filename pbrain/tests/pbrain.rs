//! The `inarow-pbrain` binary over its stdin and stdout, as a Gomocup manager drives it.
//! Move times are tiny; no test asserts how long anything takes.

use std::path::Path;
use std::time::Duration;

use inarow_pbrain::command::Point;
use inarow_pbrain::engine::{Engine, EngineError};

/// Long enough for a debug build on a loaded machine; only a hung brain reaches it.
const WAIT: Duration = Duration::from_secs(60);

fn brain() -> Engine {
    let path = Path::new(env!("CARGO_BIN_EXE_inarow-pbrain"));
    let mut brain = Engine::spawn(path).expect("the built inarow-pbrain starts");
    for line in ["INFO timeout_turn 100", "INFO timeout_match 0"] {
        brain.send(line).expect("the brain reads its input");
    }
    brain
}

fn refused(result: Result<Point, EngineError>) -> String {
    match result {
        Err(EngineError::Refused(line)) => line,
        other => panic!("expected ERROR or UNKNOWN, got {other:?}"),
    }
}

#[test]
fn plays_a_game_over_stdin_and_stdout() {
    let mut brain = brain();
    let about = brain.about(WAIT).unwrap();
    assert!(about.starts_with("name=\"inarow\""), "{about}");

    brain.send("START 15").unwrap();
    brain.expect_ok(WAIT).unwrap();
    brain.send("BEGIN").unwrap();
    let first = brain.read_move(WAIT).unwrap();
    assert!(first.x < 15 && first.y < 15);
    let reply = Point {
        x: (first.x + 1) % 15,
        y: first.y,
    };
    brain.send(&format!("TURN {reply}")).unwrap();
    let second = brain.read_move(WAIT).unwrap();
    assert!(second != first && second != reply);

    // A new game from a given board: four of the brain's own in the top row win at 4,0.
    brain.send("RESTART").unwrap();
    brain.expect_ok(WAIT).unwrap();
    for line in [
        "BOARD", "0,0,1", "7,7,2", "1,0,1", "7,8,2", "2,0,1", "7,9,2", "3,0,1", "7,10,2", "DONE",
    ] {
        brain.send(line).unwrap();
    }
    assert_eq!(brain.read_move(WAIT).unwrap(), Point { x: 4, y: 0 });
    // It said what its search saw.
    assert!(!brain.take_messages().is_empty());
}

#[test]
fn bad_input_is_answered_and_the_brain_goes_on() {
    let mut brain = brain();
    brain.send("TURN 7,7").unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("ERROR"));
    brain.send("START 20").unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("ERROR"));
    brain.send("START 15").unwrap();
    brain.expect_ok(WAIT).unwrap();
    brain.send("FLY 1,1").unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("UNKNOWN"));
    brain.send("TURN 99,1").unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("ERROR"));
    brain.send("TURN seven").unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("ERROR"));
    brain.send(&"x".repeat(100_000)).unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("UNKNOWN"));
    brain.send("INFO rule 4").unwrap();
    brain.send("BEGIN").unwrap();
    assert!(refused(brain.read_move(WAIT)).starts_with("ERROR"));
    brain.send("INFO rule 0").unwrap();
    brain.send("TURN 7,7").unwrap();
    let reply = brain.read_move(WAIT).unwrap();
    assert_ne!(reply, Point { x: 7, y: 7 });
}

#[test]
fn end_stops_the_brain() {
    let mut brain = brain();
    brain.send("START 15").unwrap();
    brain.expect_ok(WAIT).unwrap();
    brain.send("END").unwrap();
    // Nothing follows END: its output closes.
    assert!(matches!(brain.read_move(WAIT), Err(EngineError::Exited)));
}
