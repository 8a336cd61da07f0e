//! `inarow bot` end to end: the bot bridge, with `inarow-pbrain` (built here as
//! `pbrain_engine`) as its engine, plays through a real server by the public protocol only:
//! joined by invite code against the server's AI, with a rematch; and sitting in a public
//! room that a scripted client opened. A failing engine makes it resign and, failing on,
//! give up; a room it cannot join ends it with the reason.

use std::time::Duration;

use inarow::bot::{self, BotError, BotOptions, Played};
use inarow::net::Server;
use inarow_e2e::{TestServer, fast_config, plan};
use inarow_protocol::{GameStatus, Level, Mark, Rules, RulesSpec, SeatRequest};
use rand::SeedableRng;
use rand::rngs::SmallRng;

const PBRAIN: &str = env!("CARGO_BIN_EXE_pbrain_engine");

/// How long the bot may take for its games: 200 ms moves, a few dozen a game.
const BOT_TIME: Duration = Duration::from_secs(180);

fn small_gomoku() -> RulesSpec {
    RulesSpec::Custom(Rules {
        width: 9,
        height: 9,
        k: 5,
        gravity: false,
    })
}

fn options(room: Option<String>, open: bool, games: u32) -> BotOptions {
    BotOptions {
        engine: PBRAIN.into(),
        room: room.map(inarow_protocol::RoomId),
        open,
        games: Some(games),
        move_time: Duration::from_millis(200),
    }
}

fn try_bot(
    server: &TestServer,
    options: BotOptions,
) -> tokio::task::JoinHandle<Result<Vec<Played>, BotError>> {
    let url = format!("ws://{}", server.addr());
    let server = Server::new(url, None).expect("a ws:// address");
    tokio::spawn(bot::run(
        server,
        "pbrain-bot".into(),
        options,
        tokio::io::sink(),
    ))
}

async fn run_bot(server: &TestServer, options: BotOptions) -> tokio::task::JoinHandle<Vec<Played>> {
    let bot = try_bot(server, options);
    tokio::spawn(async move {
        bot.await
            .expect("the bot's task")
            .expect("the bot plays its games")
    })
}

#[tokio::test]
async fn the_bot_joins_by_code_plays_the_servers_ai_and_rematches() {
    let server = TestServer::start(fast_config()).await;
    let mut host = server.lobby("host").await;
    // A private room: its id is the invite code. The host only watches.
    let start = host
        .create_room(
            small_gomoku(),
            plan(SeatRequest::Ai { level: Level::Easy }, SeatRequest::Open),
            true,
        )
        .await;
    let bot = run_bot(&server, options(Some(start.id.0.clone()), false, 2)).await;
    let played = tokio::time::timeout(BOT_TIME, bot).await.unwrap().unwrap();
    assert_eq!(played.len(), 2, "{played:?}");
    assert_eq!(played[0].room, start.id);
    assert_eq!((played[0].game, played[0].mark), (1, Mark::O));
    // The rematch swaps the marks.
    assert_eq!((played[1].game, played[1].mark), (2, Mark::X));
    for game in &played {
        // Played out: neither side resigned.
        assert!(
            matches!(game.status, GameStatus::Won { .. } | GameStatus::Drawn),
            "{game:?}"
        );
    }
    // The host saw the second game end too.
    let end = host
        .reach_room(&start.id, |s| s.game == 2 && s.status.is_over())
        .await;
    assert_eq!(end.game, 2);
    server.shutdown().await;
}

#[tokio::test]
async fn the_bot_sits_in_an_open_public_room_and_plays_a_person() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("ann").await;
    let start = ann
        .create_room(
            small_gomoku(),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await;
    let bot = run_bot(&server, options(None, true, 1)).await;
    let seated = ann
        .reach_room(&start.id, |s| {
            matches!(s.status, GameStatus::Playing { .. })
        })
        .await;
    let mut rng = SmallRng::seed_from_u64(40);
    let end = ann.play_randomly(seated, Mark::X, &mut rng).await;
    assert!(end.status.is_over(), "{end:?}");
    let played = tokio::time::timeout(BOT_TIME, bot).await.unwrap().unwrap();
    assert_eq!(played.len(), 1, "{played:?}");
    assert_eq!(
        (played[0].room.clone(), played[0].mark),
        (start.id, Mark::O)
    );
    assert_eq!(played[0].status, end.status);
    server.shutdown().await;
}

#[tokio::test]
async fn a_crashing_engine_makes_the_bot_resign_then_give_up() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = dir.path().join("crash.sh");
    let fake = env!("CARGO_BIN_EXE_fake_engine");
    std::fs::write(&script, format!("#!/bin/sh\nexec '{fake}' crash\n")).expect("written");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("executable");

    let server = TestServer::start(fast_config()).await;
    let mut host = server.lobby("host").await;
    let start = host
        .create_room(
            small_gomoku(),
            plan(SeatRequest::Ai { level: Level::Easy }, SeatRequest::Open),
            true,
        )
        .await;
    let mut options = options(Some(start.id.0.clone()), false, 10);
    options.engine = script;
    let ended = tokio::time::timeout(BOT_TIME, try_bot(&server, options))
        .await
        .expect("the bot ends")
        .expect("the bot's task");
    assert!(matches!(ended, Err(BotError::Engine(_))), "{ended:?}");
    // Each failure resigned a game: the host saw at least the first end.
    let end = host.reach_room(&start.id, |s| s.status.is_over()).await;
    assert!(end.status.is_over());
    server.shutdown().await;
}

#[tokio::test]
async fn an_unknown_room_code_ends_the_bot_with_the_reason() {
    let server = TestServer::start(fast_config()).await;
    let ended = tokio::time::timeout(
        BOT_TIME,
        try_bot(&server, options(Some("nosuchroom".into()), false, 1)),
    )
    .await
    .expect("the bot ends")
    .expect("the bot's task");
    assert!(
        matches!(&ended, Err(BotError::Join(why)) if why.contains("unknown_room")),
        "{ended:?}"
    );
    server.shutdown().await;
}
