//! The `match` runner with `inarow-pbrain` itself as the opponent engine: every game is
//! recorded, a second run skips them, and the summary reads them back. Tiny move times; no
//! test asserts how long anything takes.

use std::process::Command;

use inarow_pbrain::results::{self, Colour};

#[test]
fn plays_each_opening_with_both_colours_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    std::fs::write(&openings, "# one opening\nh8 i9 g7\nh8 h9 i8 j7\n").unwrap();
    let results_path = dir.path().join("results.jsonl");
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_match"))
            .arg("--engine")
            .arg(env!("CARGO_BIN_EXE_inarow-pbrain"))
            .arg("--openings")
            .arg(&openings)
            .args(["--limit", "1", "--time-ms", "20"])
            .arg("--results")
            .arg(&results_path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let first = run();
    let text = std::fs::read_to_string(&results_path).unwrap();
    let (games, skipped) = results::parse(&text);
    assert_eq!(skipped, 0);
    // The empty board and the first opening, inarow once with each colour.
    let mut keys: Vec<_> = games
        .iter()
        .map(|g| (g.opening.clone(), g.inarow))
        .collect();
    keys.sort_by_key(|(o, c)| (o.clone(), *c == Colour::O));
    assert_eq!(
        keys,
        [
            (String::new(), Colour::X),
            (String::new(), Colour::O),
            ("h8 i9 g7".to_owned(), Colour::X),
            ("h8 i9 g7".to_owned(), Colour::O),
        ]
    );
    for game in &games {
        assert!(game.moves.starts_with(&game.opening), "{game:?}");
        assert_eq!(game.engine, "inarow");
        assert!(game.inarow_side.moves > 0, "{game:?}");
    }
    assert!(first.contains("games:              4"), "{first}");
    assert!(first.contains("Elo difference"), "{first}");

    // A second run finds every game played and plays none.
    let second = run();
    assert_eq!(std::fs::read_to_string(&results_path).unwrap(), text);
    assert!(!second.contains("game "), "{second}");
    assert!(second.contains("games:              4"), "{second}");
}
