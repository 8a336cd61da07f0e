//! How long a server takes to come back with many open rooms: opens `--rooms N` (1,000 by
//! default) public Connect Four rooms on a data file, each a person against an AI a few
//! moves in, shuts the server down (every room is saved), then starts a new server on
//! the same file and times it from the call of `run` until it answers a `hello`, and
//! until its lobby lists every room again. It prints figures; it asserts nothing.
//!
//! ```sh
//! cargo run --release -p inarow-bench --bin restart_time            # 1,000 rooms
//! cargo run --release -p inarow-bench --bin restart_time -- --rooms 200
//! ```

use std::time::{Duration, Instant};

use anyhow::Context;
use inarow_e2e::{Config, TestServer, fast_config, plan};
use inarow_protocol::{ClientMessage, Level, RulesSpec, SeatRequest, ServerMessage};
use inarow_server::DataLocation;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rooms: usize = match args.iter().position(|a| a == "--rooms") {
        Some(i) => args.get(i + 1).context("--rooms N")?.parse()?,
        None => 1_000,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(measure(rooms))
}

async fn measure(rooms: usize) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("inarow-restart-time-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("inarow.db");
    let config = || Config {
        data: DataLocation::File(file.clone()),
        max_rooms: rooms + 10,
        rate_per_second: 100_000,
        rate_burst: 100_000,
        // The AI answers at once: the rooms are the measure, not the searches.
        ai_move_time: Duration::from_millis(20),
        ..fast_config()
    };

    let first = TestServer::start(config()).await;
    let opened = Instant::now();
    // A few people, each holding some of the rooms (one session holds many).
    let mut people = Vec::new();
    for p in 0..10 {
        people.push(first.lobby(&format!("p{p}")).await);
    }
    for r in 0..rooms {
        let person = &mut people[r % 10];
        let room = person
            .create_room(
                RulesSpec::Preset("connect4".into()),
                plan(SeatRequest::Me, SeatRequest::Ai { level: Level::Easy }),
                false,
            )
            .await
            .id;
        person.play(&room, 0, "d").await;
        person.reach_room(&room, |s| s.ply == 2).await;
    }
    println!(
        "# restart time: {rooms} open rooms (Connect Four, a person against an AI at ply 2), opened in {:.1} s",
        opened.elapsed().as_secs_f64()
    );
    let stopping = Instant::now();
    first.shutdown().await;
    println!(
        "shutdown (save every room, bye restarting): {:.0} ms",
        stopping.elapsed().as_secs_f64() * 1e3
    );
    drop(people);
    let size = std::fs::metadata(&file).map_or(0, |m| m.len())
        + std::fs::metadata(dir.join("inarow.db-wal")).map_or(0, |m| m.len());
    println!("data file (with its WAL): {} KiB", size / 1024);

    let started = Instant::now();
    let second = TestServer::start(config()).await;
    let mut probe = second.lobby("probe").await;
    let welcomed = started.elapsed();
    loop {
        let listed = match probe.call(ClientMessage::ListRooms {}).await {
            ServerMessage::Rooms { rooms } => rooms.len(),
            other => anyhow::bail!("list_rooms answered {other:?}"),
        };
        if listed >= rooms {
            break;
        }
        tokio::task::yield_now().await;
    }
    let listed = started.elapsed();
    println!(
        "restart: run() to the first welcome {:.0} ms; to all {rooms} rooms listed {:.0} ms",
        welcomed.as_secs_f64() * 1e3,
        listed.as_secs_f64() * 1e3
    );
    drop(probe);
    second.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
