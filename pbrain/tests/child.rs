//! An engine as a tokio child process (`child`): `inarow-pbrain` itself answers ABOUT,
//! START and a move and ends on END; scripts that stay silent or write an endless line
//! cost a deadline or a refusal, never a hang or the manager's memory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use inarow_engine::{Player, Position, Rules};
use inarow_pbrain::child::{Child, ChildError};

/// A shell script in `dir` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("the script is written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("the script is made executable");
    path
}

/// Spawns the script at `path`. A script written just now can meet "text file busy" while
/// another test's fork still holds the writer's descriptor for an instant: try again.
async fn spawn_script(path: &Path) -> Child {
    for _ in 0..50 {
        match Child::spawn(path) {
            Err(ChildError::Spawn { source, .. })
                if source.kind() == std::io::ErrorKind::ExecutableFileBusy =>
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            spawned => return spawned.expect("the script starts"),
        }
    }
    panic!("{} stayed busy", path.display());
}

#[tokio::test]
async fn pbrain_answers_about_start_and_a_move_and_ends() {
    let mut child = Child::spawn(Path::new(env!("CARGO_BIN_EXE_inarow-pbrain"))).unwrap();
    let about = child.about(Duration::from_secs(10)).await.unwrap();
    assert!(about.contains("name=\"inarow\""), "{about}");
    child.start(9, 9, Duration::from_secs(10)).await.unwrap();
    assert!(matches!(
        child.start(3, 3, Duration::from_secs(10)).await,
        Err(ChildError::Refused(_))
    ));
    child.start(9, 9, Duration::from_secs(10)).await.unwrap();
    child.send("INFO timeout_turn 100").await.unwrap();
    let rules = Rules::new(9, 9, 5, false).unwrap();
    let point = child
        .ask_move(&Position::new(rules), Player::X, Duration::from_secs(10))
        .await
        .unwrap();
    assert!(point.cell(rules).is_some(), "{point}");
    child.end(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_silent_engine_times_out_and_a_babbling_one_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let silent = script(dir.path(), "silent.sh", "exec sleep 30");
    let mut child = spawn_script(&silent).await;
    assert!(matches!(
        child.about(Duration::from_millis(200)).await,
        Err(ChildError::Timeout(_))
    ));
    child.kill().await;

    let babbling = script(
        dir.path(),
        "babble.sh",
        "read line; head -c 100000 /dev/zero | tr '\\0' x; echo",
    );
    let mut child = spawn_script(&babbling).await;
    assert!(matches!(
        child.about(Duration::from_secs(10)).await,
        Err(ChildError::LineTooLong)
    ));
    child.kill().await;

    let gone = script(dir.path(), "gone.sh", "exit 0");
    let mut child = spawn_script(&gone).await;
    assert!(matches!(
        child.about(Duration::from_secs(10)).await,
        Err(ChildError::Exited | ChildError::Io(_))
    ));
    assert!(matches!(
        Child::spawn(&dir.path().join("missing")),
        Err(ChildError::Spawn { .. })
    ));
}
