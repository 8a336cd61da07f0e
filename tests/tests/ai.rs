//! The perfect AI through the server: it never loses to random play at 3×3, whichever mark it
//! holds, and two perfect AIs always draw.

use std::time::Duration;

use inarow_e2e::{
    Client, Config, TestServer, assert_same_story, check_result, fast_config, perfect_ai, plan,
    seat_of, take_turns, tictactoe,
};
use inarow_protocol::{GameStatus, Level, Mark, Occupant, SeatRequest};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Connections playing at once, and games each plays (alternating marks).
const WORKERS: u64 = 8;
const GAMES_PER_WORKER: u64 = 26;

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    games: u32,
    ai_wins: u32,
    draws: u32,
    human_wins: u32,
    ai_as_x: u32,
    ai_as_o: u32,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.games += other.games;
        self.ai_wins += other.ai_wins;
        self.draws += other.draws;
        self.human_wins += other.human_wins;
        self.ai_as_x += other.ai_as_x;
        self.ai_as_o += other.ai_as_o;
    }
}

async fn random_player(mut client: Client, seed: u64) -> Tally {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tally = Tally::default();
    for game in 0..GAMES_PER_WORKER {
        let me = if (seed + game).is_multiple_of(2) {
            Mark::X
        } else {
            Mark::O
        };
        let seats = match me {
            Mark::X => plan(SeatRequest::Me, perfect_ai()),
            Mark::O => plan(perfect_ai(), SeatRequest::Me),
        };
        let start = client.create_room(tictactoe(), seats, false).await;
        assert_eq!(seat_of(&start, client.session()), Some(me), "{start:?}");
        assert!(
            matches!(
                inarow_e2e::occupant(&start, me.other()),
                Occupant::Ai {
                    level: Level::Perfect,
                    ..
                }
            ),
            "{start:?}"
        );
        let room = start.id.clone();
        let last = client.play_randomly(start, me, &mut rng).await;
        check_result(&last);
        tally.games += 1;
        match me {
            Mark::X => tally.ai_as_o += 1,
            Mark::O => tally.ai_as_x += 1,
        }
        match &last.status {
            GameStatus::Won { winner, .. } if *winner == me => {
                tally.human_wins += 1;
                eprintln!(
                    "{}: the perfect AI lost as {}: moves {:?}",
                    client.label(),
                    me.other(),
                    last.moves
                );
            }
            GameStatus::Won { .. } => tally.ai_wins += 1,
            GameStatus::Drawn => tally.draws += 1,
            other => panic!("unexpected end {other:?}: {last:?}"),
        }
        client.leave(&room).await;
    }
    tally
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perfect_ai_never_loses_to_random_play() {
    // Each connection plays ~150 messages' worth of games in well under a second.
    let config = Config {
        rate_per_second: 10_000,
        rate_burst: 10_000,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut workers = Vec::new();
    for w in 0..WORKERS {
        let client = server.lobby(&format!("rand{w}")).await;
        workers.push(tokio::spawn(random_player(client, 0xA11CE + w)));
    }
    let mut total = Tally::default();
    for worker in workers {
        total.add(worker.await.expect("a random player panicked"));
    }
    eprintln!(
        "ai: {} games vs perfect AI at 3x3 (AI as X {}, as O {}): AI won {}, drawn {}, AI lost {}",
        total.games, total.ai_as_x, total.ai_as_o, total.ai_wins, total.draws, total.human_wins
    );
    assert!(total.games >= 200);
    assert_eq!(total.human_wins, 0);
    // Random play loses most games against a perfect player; if the AI never won, it is
    // not playing to win.
    assert!(total.ai_wins > total.games / 2, "{total:?}");
    assert!(total.ai_as_x >= 100 && total.ai_as_o >= 100, "{total:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_perfect_ais_draw_while_a_spectator_watches() {
    const GAMES: usize = 4;
    let server = TestServer::start(fast_config()).await;
    let mut watcher = server.lobby("Watcher").await;
    let mut draws = 0;
    for _ in 0..GAMES {
        let created = watcher
            .create_room(
                tictactoe(),
                plan(SeatRequest::Open, SeatRequest::Open),
                false,
            )
            .await;
        let room = created.id.clone();
        assert_eq!(created.status, GameStatus::Waiting);
        let watching = watcher.join(&room, None).await;
        assert!(
            watching.spectators.iter().any(|n| n == "Watcher"),
            "{watching:?}"
        );
        watcher.set_seat(&room, Mark::X, Some(Level::Perfect)).await;
        watcher.set_seat(&room, Mark::O, Some(Level::Perfect)).await;
        let last = watcher.reach_room(&room, |s| s.status.is_over()).await;
        check_result(&last);
        assert_eq!(last.status, GameStatus::Drawn, "moves {:?}", last.moves);
        assert_eq!(last.ply, 9);
        // The spectator saw every position, in order, with no gap in the room's events.
        let seen = watcher.snapshots(&room);
        for ply in 0..=9 {
            assert!(seen.iter().any(|s| s.ply == ply), "missed ply {ply}");
        }
        assert_same_story(&room, &[&watcher]);
        // While an AI thinks the snapshot says so.
        assert!(
            seen.iter().any(|s| s
                .seats
                .iter()
                .any(|seat| matches!(seat.occupant, Occupant::Ai { thinking: true, .. }))),
            "no snapshot showed an AI thinking"
        );
        draws += 1;
        watcher.leave(&room).await;
    }
    eprintln!("ai: perfect vs perfect at 3x3: {draws}/{GAMES} drawn");
}

/// Every stone rests on the bottom row or on another stone.
fn assert_stones_rest(snapshot: &inarow_protocol::RoomSnapshot) {
    let rows: Vec<&[u8]> = snapshot.board.iter().map(|r| r.as_bytes()).collect();
    for (r, pair) in rows.windows(2).enumerate() {
        for (c, (&here, &below)) in pair[0].iter().zip(pair[1]).enumerate() {
            assert!(
                here == b'.' || below != b'.',
                "a floating stone at row {r} column {c}: {:?}",
                snapshot.board
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_four_against_the_ai_obeys_gravity() {
    let server = TestServer::start(fast_config()).await;
    let mut human = server.lobby("Dropper").await;
    let start = human
        .create_room(
            inarow_protocol::RulesSpec::Preset("connect4".into()),
            plan(SeatRequest::Me, perfect_ai()),
            false,
        )
        .await;
    assert_eq!(
        (start.rules.width, start.rules.height, start.rules.k),
        (7, 6, 4)
    );
    assert!(start.rules.gravity);
    // With gravity a move is a column.
    assert_eq!(start.legal_moves.len(), 7, "{start:?}");
    assert!(
        start.legal_moves.iter().all(|m| m.len() == 1),
        "{:?}",
        start.legal_moves
    );
    let room = start.id.clone();
    // A column may also be given as its 1-based digit; the stone lands at the bottom.
    let first = human.play(&room, 0, "4").await;
    assert_eq!(first.last_move.as_deref(), Some("d1"), "{first:?}");
    assert_eq!(first.board[5], "...X...", "{first:?}");
    assert!(first.moves[0].starts_with('d'), "{first:?}");
    let start = human.reach_room(&room, |s| s.ply == 2).await;
    let mut rng = SmallRng::seed_from_u64(44);
    let last = human.play_randomly(start, Mark::X, &mut rng).await;
    check_result(&last);
    for snapshot in human.snapshots(&room) {
        assert_stones_rest(&snapshot);
        if let Some(cell) = &snapshot.last_move {
            // The last move is reported as the cell where the stone landed.
            assert!(cell.len() >= 2, "{cell}");
            assert!(
                inarow_e2e::mark_at(&snapshot.board, cell).is_some(),
                "last_move {cell} is empty on {:?}",
                snapshot.board
            );
        }
    }
    eprintln!(
        "ai: connect4 random human vs perfect AI: {:?} after {} moves",
        last.status, last.ply
    );
    assert!(
        !matches!(
            last.status,
            GameStatus::Won {
                winner: Mark::X,
                ..
            }
        ),
        "random play beat the perfect AI at Connect Four: {:?}",
        last.moves
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn easy_and_medium_ais_play_legal_games() {
    let server = TestServer::start(fast_config()).await;
    let mut human = server.lobby("Kid").await;
    let mut rng = SmallRng::seed_from_u64(99);
    let mut results = Vec::new();
    for level in [Level::Easy, Level::Medium] {
        for me in [Mark::X, Mark::O] {
            let ai = SeatRequest::Ai { level };
            let seats = match me {
                Mark::X => plan(SeatRequest::Me, ai),
                Mark::O => plan(ai, SeatRequest::Me),
            };
            let start = human.create_room(tictactoe(), seats, false).await;
            let last = human.play_randomly(start, me, &mut rng).await;
            check_result(&last);
            results.push((level, me, last.status));
        }
    }
    eprintln!("ai: easy/medium vs random: {results:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_can_be_given_to_an_ai_and_taken_back() {
    let server = TestServer::start(fast_config()).await;
    let mut host = server.lobby("Host").await;
    let room = host.open_room().await;
    let seated = host.set_seat(&room, Mark::O, Some(Level::Easy)).await;
    assert!(
        matches!(
            inarow_e2e::occupant(&seated, Mark::O),
            Occupant::Ai {
                level: Level::Easy,
                ..
            }
        ),
        "{seated:?}"
    );
    assert_eq!(seated.status, GameStatus::Playing { turn: Mark::X });
    host.play(&room, 0, "b2").await;
    let answered = host.reach_room(&room, |s| s.ply == 2).await;
    assert_eq!(answered.status, GameStatus::Playing { turn: Mark::X });
    // The AI's seat can be emptied, then given to a stronger AI.
    let emptied = host.set_seat(&room, Mark::O, None).await;
    assert_eq!(inarow_e2e::occupant(&emptied, Mark::O), &Occupant::Empty);
    assert_eq!(emptied.ply, 2);
    // With a seat empty the game waits for someone to take it: no moves meanwhile.
    eprintln!(
        "ai: status with an empty seat mid-game: {:?}",
        emptied.status
    );
    host.expect_refused(
        inarow_protocol::ClientMessage::Play {
            room: room.clone(),
            ply: 2,
            mv: emptied
                .legal_moves
                .first()
                .cloned()
                .unwrap_or_else(|| "a1".into()),
        },
        inarow_protocol::ErrorCode::GameNotInProgress,
    )
    .await;
    let medium = host.set_seat(&room, Mark::O, Some(Level::Medium)).await;
    assert_eq!(medium.ply, 2);
    assert_eq!(medium.status, GameStatus::Playing { turn: Mark::X });
    let mine = medium.legal_moves[0].clone();
    host.play(&room, 2, &mine).await;
    let moved = host.reach_room(&room, |s| s.ply == 4).await;
    assert_eq!(moved.moves[0], "b2");
    assert_eq!(moved.moves[2], mine);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_against_the_ai_starts_at_once_with_marks_swapped() {
    let server = TestServer::start(fast_config()).await;
    let mut human = server.lobby("Again").await;
    let start = human
        .create_room(tictactoe(), plan(SeatRequest::Me, perfect_ai()), false)
        .await;
    let room = start.id.clone();
    let mut rng = SmallRng::seed_from_u64(5);
    let first = human.play_randomly(start, Mark::X, &mut rng).await;
    check_result(&first);
    // The AI always agrees, so one request starts game 2, where the AI plays X.
    let second = human
        .call_room(inarow_protocol::ClientMessage::Rematch { room: room.clone() })
        .await;
    assert_eq!(second.game, 2, "{second:?}");
    assert_eq!(seat_of(&second, human.session()), Some(Mark::O));
    assert!(matches!(
        inarow_e2e::occupant(&second, Mark::X),
        Occupant::Ai { .. }
    ));
    let last = human.play_randomly(second, Mark::O, &mut rng).await;
    check_result(&last);
    assert_eq!(last.game, 2);
    assert!(
        !matches!(
            last.status,
            GameStatus::Won {
                winner: Mark::O,
                ..
            }
        ),
        "{last:?}"
    );
}

/// A 15×15 board: too big for the AI to finish searching within the long budget below.
fn big_board() -> inarow_protocol::RulesSpec {
    inarow_protocol::RulesSpec::Custom(inarow_protocol::Rules {
        width: 15,
        height: 15,
        k: 5,
        gravity: false,
    })
}

fn ai_thinking(snapshot: &inarow_protocol::RoomSnapshot) -> bool {
    snapshot
        .seats
        .iter()
        .any(|seat| matches!(seat.occupant, Occupant::Ai { thinking: true, .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_or_emptying_the_seat_stops_a_thinking_ai() {
    let config = Config {
        ai_move_time: Duration::from_secs(20),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut human = server.lobby("Quitter").await;

    // Resign while the AI thinks: the game ends and the AI stops thinking.
    let room = human
        .create_room(big_board(), plan(SeatRequest::Me, perfect_ai()), false)
        .await
        .id;
    human.play(&room, 0, "h8").await;
    let thinking = human
        .reach_room(&room, |s| s.ply > 1 || ai_thinking(s))
        .await;
    if thinking.ply == 1 {
        let resigned = human
            .call_room(inarow_protocol::ClientMessage::Resign { room: room.clone() })
            .await;
        assert_eq!(
            resigned.status,
            GameStatus::Resigned { winner: Mark::O },
            "{resigned:?}"
        );
        assert!(
            !ai_thinking(&resigned),
            "still thinking after resign: {resigned:?}"
        );
        assert_eq!(resigned.ply, 1);
    } else {
        eprintln!("ai: the AI answered on 15x15 before it could be interrupted");
    }

    // Empty the thinking AI's seat: the search is dropped; a new AI starts afresh.
    let room = human
        .create_room(big_board(), plan(SeatRequest::Me, perfect_ai()), false)
        .await
        .id;
    human.play(&room, 0, "h8").await;
    let thinking = human
        .reach_room(&room, |s| s.ply > 1 || ai_thinking(s))
        .await;
    if thinking.ply == 1 {
        let emptied = human.set_seat(&room, Mark::O, None).await;
        assert_eq!(inarow_e2e::occupant(&emptied, Mark::O), &Occupant::Empty);
        assert_eq!(emptied.ply, 1);
        let easy = human.set_seat(&room, Mark::O, Some(Level::Easy)).await;
        assert_eq!(easy.ply, 1);
        let answered = human.reach_room(&room, |s| s.ply == 2).await;
        assert!(
            matches!(
                inarow_e2e::occupant(&answered, Mark::O),
                Occupant::Ai {
                    level: Level::Easy,
                    ..
                }
            ),
            "{answered:?}"
        );
    }
    let took = server.shutdown().await;
    assert!(took <= Duration::from_secs(5), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_ais_are_paced_for_spectators() {
    // A lower bound, not a speed test: with both seats AI, each move waits ai_pace.
    let pace = Duration::from_millis(40);
    let config = Config {
        ai_pace: pace,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut watcher = server.lobby("Watcher").await;
    let room = watcher
        .create_room(tictactoe(), plan(SeatRequest::Open, perfect_ai()), false)
        .await
        .id;
    let started = std::time::Instant::now();
    watcher.set_seat(&room, Mark::X, Some(Level::Perfect)).await;
    let last = watcher.reach_room(&room, |s| s.status.is_over()).await;
    let took = started.elapsed();
    eprintln!(
        "ai: a paced AI-vs-AI game took {took:?} ({} moves, pace {pace:?})",
        last.ply
    );
    assert_eq!(last.status, GameStatus::Drawn);
    assert!(
        took >= pace * (last.ply - 1),
        "{} moves in {took:?} with a pace of {pace:?}",
        last.ply
    );
}

/// While AIs think in as many rooms as there are AI threads, two people in another room play
/// a whole game: searches run off the async runtime. Checked by order, not by time: with a
/// 60 s budget on 15×15, both AIs are still on their first move when the human game ends. If
/// the searches blocked the runtime's two workers, the AI moves would come first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn human_games_go_on_while_ais_think_in_other_rooms() {
    let config = Config {
        ai_move_time: Duration::from_secs(60),
        ai_threads: 2,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut host = server.lobby("Host").await;
    let mut ai_rooms = Vec::new();
    for _ in 0..2 {
        let room = host
            .create_room(big_board(), plan(SeatRequest::Me, perfect_ai()), false)
            .await
            .id;
        let after = host.play(&room, 0, "h8").await;
        assert!(ai_thinking(&after), "{after:?}");
        ai_rooms.push(room);
    }

    let (mut ann, mut bob, room) = server.seated_pair().await;
    let won = take_turns(
        &mut ann,
        &mut bob,
        &room,
        0,
        &["a1", "b1", "a2", "b2", "a3"],
    )
    .await;
    assert_eq!(
        won.status,
        GameStatus::Won {
            winner: Mark::X,
            line: vec!["a1".into(), "a2".into(), "a3".into()]
        }
    );

    // A reply to the host comes after any snapshot already queued for it, so an AI move
    // made before the human game ended would be in its history now.
    host.list_rooms().await;
    for room in &ai_rooms {
        let latest = host.latest(room).expect("snapshots of the AI room");
        assert_eq!(latest.ply, 1, "an AI moved before the human game ended");
        assert!(ai_thinking(&latest), "{latest:?}");
    }
    server.shutdown().await;
}

/// Issue 8: with one search slot, two gomoku AI seats thinking for a long time, and a
/// tic-tac-toe AI seat asked after them, the tic-tac-toe reply comes first. Judged by the
/// order of events on one connection, never by time: the gomoku budget is far beyond the
/// receive timeout, so first-come-first-served would fail by timing out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cheap_ai_move_does_not_wait_for_long_searches_in_other_rooms() {
    let server = TestServer::start(Config {
        ai_threads: 1,
        ai_move_time: Duration::from_secs(120),
        ..fast_config()
    })
    .await;
    let mut ann = server.lobby("Ann").await;
    let gomoku = inarow_protocol::RulesSpec::Preset("gomoku".into());
    let mut long = Vec::new();
    for _ in 0..2 {
        let room = ann
            .create_room(gomoku.clone(), plan(SeatRequest::Me, perfect_ai()), true)
            .await;
        let after = ann.play(&room.id, 0, "h8").await;
        assert!(ai_thinking(&after), "{after:?}");
        long.push(room.id);
    }
    let quick = ann
        .create_room(tictactoe(), plan(SeatRequest::Me, perfect_ai()), true)
        .await;
    ann.play(&quick.id, 0, "b2").await;
    let reply = ann.reach_room(&quick.id, |s| s.ply == 2).await;
    assert_eq!(reply.status, GameStatus::Playing { turn: Mark::X });
    for room in &long {
        let latest = ann.latest(room).expect("seen");
        assert_eq!(latest.ply, 1, "the gomoku AI answered first: {latest:?}");
    }
    server.shutdown().await;
}
