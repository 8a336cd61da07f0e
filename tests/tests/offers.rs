//! Takebacks, draw offers and aborts end to end: between people (asked, declined,
//! accepted) and against the AI (which grants takebacks where the room allows them, and
//! accepts a draw only when its search proved one), and a game left before each side moved.

use inarow_e2e::{Client, TestServer, fast_config, perfect_ai, plan, take_turns};
use inarow_protocol::{
    ClientMessage, ErrorCode, GameStatus, Mark, Offer, OfferKind, RoomId, RulesSpec, SeatChoice,
    SeatRequest, ServerMessage, TimeControlSpec,
};

fn takeback(room: &RoomId, accept: Option<bool>) -> ClientMessage {
    ClientMessage::Takeback {
        room: room.clone(),
        accept,
    }
}

fn draw(room: &RoomId, accept: Option<bool>) -> ClientMessage {
    ClientMessage::Draw {
        room: room.clone(),
        accept,
    }
}

fn create(
    rules: &str,
    o: SeatRequest,
    clock: Option<&str>,
    takebacks: Option<bool>,
) -> ClientMessage {
    ClientMessage::CreateRoom {
        name: None,
        rules: RulesSpec::Preset(rules.into()),
        seats: plan(SeatRequest::Me, o),
        private: false,
        hints: false,
        time_control: clock.map(|c| TimeControlSpec::Preset(c.into())),
        takebacks,
    }
}

/// Ann (X) and Bob (O) in an untimed tic-tac-toe room after `moves`.
async fn pair_after(server: &TestServer, moves: &[&str]) -> (Client, Client, RoomId) {
    let (mut ann, mut bob, room) = server.seated_pair().await;
    take_turns(&mut ann, &mut bob, &room, 0, moves).await;
    let ply = u32::try_from(moves.len()).expect("short");
    ann.reach_room(&room, |s| s.ply == ply).await;
    bob.reach_room(&room, |s| s.ply == ply).await;
    (ann, bob, room)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_between_people_is_declined_then_accepted() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = pair_after(&server, &["b2", "a1"]).await;
    // Ann (to move) asks to take back her b2: her move and Bob's reply go.
    let asked = ann.call_room(takeback(&room, None)).await;
    assert_eq!(
        asked.offer,
        Some(Offer {
            kind: OfferKind::Takeback,
            by: Mark::X
        })
    );
    // Only the other player answers, and only an offer that was made.
    ann.expect_refused(takeback(&room, Some(true)), ErrorCode::NoOffer)
        .await;
    bob.expect_refused(draw(&room, Some(true)), ErrorCode::NoOffer)
        .await;
    let declined = bob.call_room(takeback(&room, Some(false))).await;
    assert_eq!((declined.offer, declined.ply), (None, 2));
    ann.call_room(takeback(&room, None)).await;
    let accepted = bob.call_room(takeback(&room, Some(true))).await;
    assert_eq!((accepted.offer, accepted.ply), (None, 0));
    assert!(accepted.moves.is_empty());
    assert_eq!(accepted.status, GameStatus::Playing { turn: Mark::X });
    // The game goes on from there and its record is the game as finally played.
    let last = take_turns(
        &mut ann,
        &mut bob,
        &room,
        0,
        &["a1", "b1", "a2", "b2", "a3"],
    )
    .await;
    assert!(matches!(
        last.status,
        GameStatus::Won {
            winner: Mark::X,
            ..
        }
    ));
    let kept = ann
        .reach_room(&room, |s| s.last_game.is_some())
        .await
        .last_game
        .expect("kept");
    let record = ann.game_record(kept).await;
    let moves: Vec<&str> = record.moves.iter().map(|m| m.mv.as_str()).collect();
    assert_eq!(moves, ["a1", "b1", "a2", "b2", "a3"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_declines_an_offer_and_a_player_takes_back_only_their_own() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = pair_after(&server, &["b2"]).await;
    // Bob has no move to take back yet.
    bob.expect_refused(takeback(&room, None), ErrorCode::TakebackRefused)
        .await;
    let offered = ann.call_room(draw(&room, None)).await;
    assert_eq!(offered.offer.map(|o| o.kind), Some(OfferKind::Draw));
    // A second offer while one waits is refused.
    ann.expect_refused(takeback(&room, None), ErrorCode::NoOffer)
        .await;
    ann.expect_refused(draw(&room, None), ErrorCode::NoOffer)
        .await;
    let played = bob.play(&room, 1, "a1").await;
    assert_eq!(played.offer, None, "playing on declines");
    ann.reach_room(&room, |s| s.ply == 2 && s.offer.is_none())
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_is_agreed_and_kept() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = pair_after(&server, &["b2", "a1"]).await;
    bob.call_room(draw(&room, None)).await;
    let declined = ann.call_room(draw(&room, Some(false))).await;
    assert_eq!(declined.offer, None);
    bob.call_room(draw(&room, None)).await;
    let agreed = ann.call_room(draw(&room, Some(true))).await;
    assert_eq!(agreed.status, GameStatus::Agreed);
    let kept = bob
        .reach_room(&room, |s| {
            s.status == GameStatus::Agreed && s.last_game.is_some()
        })
        .await
        .last_game
        .expect("kept");
    let record = bob.game_record(kept).await;
    assert_eq!(record.summary.result, GameStatus::Agreed);
    assert!(
        record.text.contains("[Termination \"agreement\"]"),
        "{}",
        record.text
    );
    assert!(record.text.contains("1/2-1/2"), "{}", record.text);
    let page = ann.list_games(Some("Ann"), None, None).await;
    assert_eq!(page.record.expect("a record").total.draws, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_before_each_side_has_moved_aborts_the_game() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = pair_after(&server, &["b2"]).await;
    bob.leave(&room).await;
    let aborted = ann.reach_room(&room, |s| s.status.is_over()).await;
    assert_eq!(aborted.status, GameStatus::Aborted);
    assert_eq!(aborted.last_game, None, "an aborted game is not kept");
    let page = ann.list_games(None, None, None).await;
    assert!(page.games.is_empty(), "{:?}", page.games);
    // A new game can start: Ann asks for one, someone sits down.
    ann.call_room(ClientMessage::Rematch { room: room.clone() })
        .await;
    let mut cy = server.lobby("Cy").await;
    let fresh = cy.join(&room, Some(SeatChoice::Any)).await;
    assert_eq!((fresh.game, fresh.ply), (2, 0));
    assert!(
        matches!(fresh.status, GameStatus::Playing { .. }),
        "{fresh:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_grants_takebacks_where_the_room_allows_them() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let room = ann
        .call_room(create("tictactoe", perfect_ai(), None, None))
        .await
        .id;
    ann.play(&room, 0, "a1").await;
    ann.reach_room(&room, |s| s.ply == 2).await;
    // Against the AI the last pair goes, at once.
    let back = ann.call_room(takeback(&room, None)).await;
    assert_eq!((back.ply, back.offer), (0, None));
    assert_eq!(back.status, GameStatus::Playing { turn: Mark::X });
    ann.play(&room, 0, "b2").await;
    ann.reach_room(&room, |s| s.ply == 2).await;

    // A timed room against the AI allows none unless chosen.
    let timed = ann
        .call_room(create("connect4", perfect_ai(), Some("5+3"), None))
        .await
        .id;
    ann.play(&timed, 0, "d").await;
    ann.reach_room(&timed, |s| s.ply == 2).await;
    ann.expect_refused(takeback(&timed, None), ErrorCode::TakebackRefused)
        .await;
    let chosen = ann
        .call_room(create("connect4", perfect_ai(), Some("5+3"), Some(true)))
        .await
        .id;
    ann.play(&chosen, 0, "d").await;
    ann.reach_room(&chosen, |s| s.ply == 2).await;
    let back = ann.call_room(takeback(&chosen, None)).await;
    assert_eq!(back.ply, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_accepts_a_draw_only_when_proven() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    // Tic-tac-toe is a proven draw from the first moves: the AI agrees.
    let room = ann
        .call_room(create("tictactoe", perfect_ai(), None, None))
        .await
        .id;
    ann.play(&room, 0, "b2").await;
    ann.reach_room(&room, |s| s.ply == 2).await;
    let agreed = ann.call_room(draw(&room, None)).await;
    assert_eq!(agreed.status, GameStatus::Agreed);

    // Gomoku's opening proves nothing: the AI says no and plays on.
    let open = ann
        .call_room(create("gomoku", perfect_ai(), None, None))
        .await
        .id;
    ann.play(&open, 0, "h8").await;
    ann.reach_room(&open, |s| s.ply == 2).await;
    match ann.call(draw(&open, None)).await {
        ServerMessage::Chat { seat, text, .. } => {
            assert_eq!(seat, Some(Mark::O));
            assert!(text.contains("No draw"), "{text}");
        }
        other => panic!("expected the AI's answer, got {other:?}"),
    }
    let still = ann.latest(&open).expect("a snapshot");
    assert_eq!(still.status, GameStatus::Playing { turn: Mark::X });
    assert_eq!(still.offer, None);
}
