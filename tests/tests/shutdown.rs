//! Shutdown: cancelling the token tells every client `bye shutdown`, closes with 1001, stops
//! AI searches and ends the server task within 5 s.

use std::time::Duration;

use inarow_e2e::{Client, Config, TestServer, fast_config, plan};
use inarow_protocol::{
    ByeReason, GameStatus, Level, Mark, Occupant, Rules, RulesSpec, SeatChoice, SeatRequest,
};

/// The bound the server promises between cancellation and `run` returning.
const SHUTDOWN_BOUND: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_says_bye_to_everyone_and_ends_in_time() {
    let config = Config {
        // A long budget: the AI below is still searching when the shutdown comes, so the
        // server must cancel the search rather than wait for it.
        ai_move_time: Duration::from_secs(20),
        ..fast_config()
    };
    let server = TestServer::start(config).await;

    // Two players mid-game and a spectator.
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let mut sam = server.lobby("Sam").await;
    let room = ann.open_room().await;
    bob.join(&room, Some(SeatChoice::O)).await;
    sam.join(&room, None).await;
    ann.reach_room(&room, |s| s.status == GameStatus::Playing { turn: Mark::X })
        .await;
    ann.play(&room, 0, "b2").await;
    bob.reach_room(&room, |s| s.ply == 1).await;
    sam.reach_room(&room, |s| s.ply == 1).await;

    // Idle in the lobby, and connected without hello.
    let lena = server.lobby("Lena").await;
    let shy = server.connect("shy").await;

    // A human against a perfect AI on a board too big to solve: the AI is thinking.
    let mut deep = server.lobby("Deep").await;
    let big = RulesSpec::Custom(Rules {
        width: 15,
        height: 15,
        k: 5,
        gravity: false,
    });
    let ai_room = deep
        .create_room(
            big,
            plan(
                SeatRequest::Me,
                SeatRequest::Ai {
                    level: Level::Perfect,
                },
            ),
            false,
        )
        .await
        .id;
    deep.play(&ai_room, 0, "h8").await;
    let thinking = deep
        .reach_room(&ai_room, |s| {
            s.ply > 1
                || s.seats
                    .iter()
                    .any(|seat| matches!(seat.occupant, Occupant::Ai { thinking: true, .. }))
        })
        .await;
    let ai_was_thinking = thinking.ply == 1;

    let clients: Vec<Client> = vec![ann, bob, sam, lena, shy, deep];
    let watchers: Vec<_> = clients
        .into_iter()
        .map(|mut c| {
            tokio::spawn(async move {
                let closed = c.expect_closed().await;
                (c.label().to_owned(), closed)
            })
        })
        .collect();

    let addr = server.addr();
    let took = server.shutdown().await;
    eprintln!(
        "shutdown: run() returned {took:?} after cancellation (AI was thinking: {ai_was_thinking})"
    );
    for watcher in watchers {
        let (label, closed) = watcher.await.expect("a watcher panicked");
        assert_eq!(closed.bye, Some(ByeReason::Shutdown), "{label}: {closed:?}");
        assert_eq!(closed.code, Some(1001), "{label}: {closed:?}");
    }
    assert!(
        took <= SHUTDOWN_BOUND,
        "run() took {took:?} to return after cancellation"
    );
    // Nobody is listening any more.
    assert!(Client::try_connect(addr, "late").await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_server_shuts_down_at_once() {
    let server = TestServer::start(fast_config()).await;
    let took = server.shutdown().await;
    eprintln!("shutdown: idle server returned in {took:?}");
    assert!(took <= SHUTDOWN_BOUND, "{took:?}");
}
