//! Test support shared by the engine's integration tests: the reference data location
//! and Pons' Connect Four score convention.

#![allow(dead_code)]

use std::path::PathBuf;

use inarow_engine::{Position, Value};

/// `$INAROW_DATA_DIR`, else `<workspace root>/../shared/data`.
pub fn data_dir() -> PathBuf {
    match std::env::var_os("INAROW_DATA_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    }
}

/// The text of a data file, or `None` (with a message) when the data is absent and not
/// required. With `INAROW_REQUIRE_DATA=1` an absent file fails the test.
pub fn read_data(relative: &str) -> Option<String> {
    let path = data_dir().join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(error) => {
            if std::env::var("INAROW_REQUIRE_DATA").as_deref() == Ok("1") {
                panic!(
                    "INAROW_REQUIRE_DATA=1 but {} is unreadable: {error}",
                    path.display()
                );
            }
            eprintln!(
                "SKIPPED: reference data {} not found ({error}); set INAROW_DATA_DIR",
                path.display()
            );
            None
        }
    }
}

/// A value for the player to move converted to Pons' score: `+(22 - k)` when the side to
/// move wins with its k-th own stone, `-(22 - k)` when the opponent wins with its k-th.
pub fn pons_score(position: &Position, value: Value) -> i32 {
    let n = position.ply() as u32;
    let own = n / 2;
    let theirs = n - own;
    match value {
        Value::Win(plies) => 22 - (own + plies.div_ceil(2)) as i32,
        Value::Loss(plies) => -(22 - (theirs + plies / 2) as i32),
        Value::Draw => 0,
        Value::Estimate(e) => panic!("unproven value {e} in a solved position"),
    }
}
