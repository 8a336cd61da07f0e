//! Finished games kept in a real SQLite file: played through the server (people and an
//! AI), listed by `history` (paged, by name, with a record), read whole by `game` with a
//! text record the engine reads back, named by `last_game`, and still there when a second
//! server opens the same file.

use inarow_e2e::{
    Client, TestServer, fast_config_with_data, perfect_ai, plan, take_turns, tictactoe,
};
use inarow_engine::record::{Record, RecordResult};
use inarow_protocol::{
    ClientMessage, ErrorCode, GameId, GameRecord, GameStatus, Level, Mark, PlayerRef, RoomId,
    RoomSnapshot, SeatChoice, SeatRequest, Tally,
};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// X wins with the a column.
const X_WINS: [&str; 5] = ["a1", "b1", "a2", "b2", "a3"];
/// Nine moves and no line.
const DRAW: [&str; 9] = ["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"];

fn person(name: &str) -> PlayerRef {
    PlayerRef {
        name: name.to_owned(),
        ai: None,
    }
}

/// Waits until `client` sees `room`'s game `game` over and kept; returns that snapshot.
/// `before` is the room's `last_game` while that game was played: after a rematch the
/// previous game stays named until the snapshot that follows the end of this one.
async fn kept(
    client: &mut Client,
    room: &RoomId,
    game: u32,
    before: Option<GameId>,
) -> RoomSnapshot {
    client
        .reach_room(room, |s| {
            s.game == game && s.status.is_over() && s.last_game.is_some() && s.last_game != before
        })
        .await
}

/// Checks that `record` is the game `snapshot` shows, and that its text reads back to it.
fn assert_record_matches(record: &GameRecord, snapshot: &RoomSnapshot) {
    let moves: Vec<&str> = record.moves.iter().map(|m| m.mv.as_str()).collect();
    assert_eq!(moves, snapshot.moves, "{record:?}");
    assert_eq!(record.summary.ply as usize, snapshot.moves.len());
    assert_eq!(record.summary.result, snapshot.status);
    assert_eq!(record.summary.rules, snapshot.rules);
    assert_eq!(record.summary.number, snapshot.game);
    assert!(record.summary.started_at <= record.summary.ended_at);
    for (ply, played) in record.moves.iter().enumerate() {
        let by = if ply % 2 == 0 { Mark::X } else { Mark::O };
        assert_eq!(played.by, by);
        assert_eq!(played.cell, played.mv, "no gravity: the cell is the move");
    }
    let total: u64 = record.moves.iter().map(|m| m.ms).sum();
    assert!(
        total <= record.summary.ended_at - record.summary.started_at + 1,
        "the moves took no longer than the game: {record:?}"
    );

    let text = Record::parse(&record.text).expect("the engine reads the server's record");
    let replayed: Vec<String> = text
        .position
        .history()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(replayed, snapshot.moves);
    // The replayed board is the one the room showed, row for row.
    let rules = text.position.rules();
    for (i, row) in snapshot.board.iter().enumerate() {
        let r = rules.height() as usize - 1 - i;
        let replayed_row: String = (0..rules.width() as u8)
            .map(|col| {
                let cell = inarow_engine::Cell { col, row: r as u8 };
                match text.position.get(cell) {
                    Some(inarow_engine::Player::X) => 'X',
                    Some(inarow_engine::Player::O) => 'O',
                    None => '.',
                }
            })
            .collect();
        assert_eq!(&replayed_row, row, "row {}", r + 1);
    }
    let result = match &snapshot.status {
        GameStatus::Won {
            winner: Mark::X, ..
        }
        | GameStatus::Resigned { winner: Mark::X } => RecordResult::XWon,
        GameStatus::Won {
            winner: Mark::O, ..
        }
        | GameStatus::Resigned { winner: Mark::O } => RecordResult::OWon,
        _ => RecordResult::Drawn,
    };
    assert_eq!(text.result, result);
    assert_eq!(
        text.tag("Game"),
        Some(record.summary.game.to_string().as_str())
    );
    assert_eq!(text.tag("X"), Some(record.summary.x.name.as_str()));
    assert_eq!(text.tag("O"), Some(record.summary.o.name.as_str()));
    assert_eq!(text.comments.len(), record.moves.len(), "a time per move");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_games_are_kept_listed_and_read_back_after_a_restart() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("games.db");
    let server = TestServer::start(fast_config_with_data(&data)).await;
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;

    // Nothing kept yet.
    let empty = ann.list_games(None, None, None).await;
    assert!(empty.games.is_empty() && !empty.more && empty.record.is_none());

    // Game 1 of a public room: Ann (X) beats Bob.
    let room = ann.open_room().await;
    bob.join(&room, Some(SeatChoice::O)).await;
    take_turns(&mut ann, &mut bob, &room, 0, &X_WINS).await;
    let won = kept(&mut ann, &room, 1, None).await;
    kept(&mut bob, &room, 1, None).await;
    let first = won.last_game.expect("kept");

    // Game 2, a rematch with the marks swapped: Bob (X) and Ann draw.
    ann.call_room(ClientMessage::Rematch { room: room.clone() })
        .await;
    bob.call_room(ClientMessage::Rematch { room: room.clone() })
        .await;
    take_turns(&mut bob, &mut ann, &room, 0, &DRAW).await;
    let drawn = kept(&mut ann, &room, 2, Some(first)).await;
    kept(&mut bob, &room, 2, Some(first)).await;
    let second = drawn.last_game.expect("kept");
    assert!(second > first);

    // Game 3, in a private room: Ann (X) against the perfect AI, which she cannot beat.
    let private = ann
        .create_room(tictactoe(), plan(SeatRequest::Me, perfect_ai()), true)
        .await;
    let mut rng = StdRng::seed_from_u64(12);
    let over = ann.play_randomly(private.clone(), Mark::X, &mut rng).await;
    assert!(over.status.is_over());
    let against_ai = kept(&mut ann, &private.id, 1, None).await;
    let third = against_ai.last_game.expect("kept");
    assert!(third > second);

    // Everything, newest first.
    let all = ann.list_games(None, None, None).await;
    let ids: Vec<GameId> = all.games.iter().map(|g| g.game).collect();
    assert_eq!(ids, [third, second, first]);
    assert!(!all.more);
    assert_eq!(all.games[2].room.as_ref(), Some(&room));
    assert_eq!(all.games[2].x, person("Ann"));
    assert_eq!(all.games[2].o, person("Bob"));
    assert_eq!(
        all.games[1].x,
        person("Bob"),
        "the rematch swapped the marks"
    );
    assert_eq!(all.games[1].number, 2);
    assert_eq!(all.games[1].result, GameStatus::Drawn);
    assert_eq!(
        all.games[0].room, None,
        "a private room's id is its invite code"
    );
    assert_eq!(all.games[0].o.ai, Some(Level::Perfect));

    // Paged with `before`.
    let page = ann.list_games(None, Some(2), None).await;
    assert_eq!(page.games.len(), 2);
    assert!(page.more);
    let rest = ann
        .list_games(None, Some(2), Some(page.games[1].game))
        .await;
    assert_eq!(
        rest.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [first]
    );
    assert!(!rest.more);

    // Bob's games and record: a loss and a draw against Ann.
    let bobs = ann.list_games(Some("Bob"), None, None).await;
    assert_eq!(
        bobs.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [second, first]
    );
    let record = bobs.record.expect("a name gets its record");
    assert_eq!(record.name, "Bob");
    assert_eq!(
        record.total,
        Tally {
            wins: 0,
            draws: 1,
            losses: 1
        }
    );
    assert_eq!(record.opponents.len(), 1);
    assert_eq!(record.opponents[0].opponent, person("Ann"));

    // Ann's record: against Bob first (two games), then the AI by level.
    let anns = bob.list_games(Some(" Ann "), None, None).await;
    assert_eq!(anns.games.len(), 3, "a name is trimmed like a display name");
    let record = anns.record.expect("a record");
    assert_eq!(record.opponents[0].opponent, person("Bob"));
    assert_eq!(
        record.opponents[0].tally,
        Tally {
            wins: 1,
            draws: 1,
            losses: 0
        }
    );
    assert_eq!(record.opponents[1].opponent.ai, Some(Level::Perfect));
    let ai_result = record.opponents[1].tally;
    assert_eq!(ai_result.wins, 0, "the perfect AI does not lose");
    assert_eq!(ai_result.draws + ai_result.losses, 1);

    // Each game whole, matching what was played, with a text the engine reads back.
    let one = ann.game_record(first).await;
    assert_eq!(one.summary, all.games[2]);
    assert_record_matches(&one, &won);
    assert!(one.text.contains("[Room \""), "{}", one.text);
    assert_record_matches(&bob.game_record(second).await, &drawn);
    let ai_game = ann.game_record(third).await;
    assert_record_matches(&ai_game, &against_ai);
    assert!(!ai_game.text.contains("[Room"), "{}", ai_game.text);
    assert!(
        ai_game.text.contains("[OAI \"perfect\"]"),
        "{}",
        ai_game.text
    );

    // Refusals, and the connection goes on.
    ann.expect_refused(
        ClientMessage::Game {
            game: GameId(third.0 + 1000),
        },
        ErrorCode::UnknownGame,
    )
    .await;
    ann.expect_refused(
        ClientMessage::History {
            name: None,
            limit: Some(0),
            before: None,
        },
        ErrorCode::BadRequest,
    )
    .await;
    ann.expect_refused(
        ClientMessage::History {
            name: Some("   ".into()),
            limit: None,
            before: None,
        },
        ErrorCode::InvalidName,
    )
    .await;
    assert_eq!(ann.list_games(None, Some(1_000), None).await.games.len(), 3);

    // A second server on the same file lists the same games and numbers on after them.
    server.shutdown().await;
    let again = TestServer::start(fast_config_with_data(&data)).await;
    let mut cy = again.lobby("Cy").await;
    assert_eq!(cy.list_games(None, None, None).await.games, all.games);
    assert_eq!(cy.game_record(first).await, one);
    let room = cy
        .create_room(
            tictactoe(),
            plan(SeatRequest::Me, SeatRequest::Ai { level: Level::Easy }),
            false,
        )
        .await;
    cy.call_room(ClientMessage::Resign {
        room: room.id.clone(),
    })
    .await;
    let resigned = kept(&mut cy, &room.id, 1, None).await;
    assert!(resigned.last_game.expect("kept") > third);
    assert_eq!(resigned.status, GameStatus::Resigned { winner: Mark::O });
    let latest = cy.list_games(Some("Cy"), None, None).await;
    assert_eq!(latest.games.len(), 1);
    assert_eq!(latest.games[0].ply, 0);
    again.shutdown().await;
}
