//! Hints end to end: `analyze` from spectators and players on a real server, the values
//! checked against the engine's, the permission rules, and no stale analysis after a move
//! (checked by the order of frames, never by time).

use inarow_e2e::{Client, TestServer, fast_config, perfect_ai, plan, tictactoe};
use inarow_engine::{Limits, Position, Rules, Value};
use inarow_protocol::{
    ClientMessage, ErrorCode, GameStatus, MoveAnalysis, MoveValue, RequestId, RoomId, RulesSpec,
    SeatChoice, SeatRequest, ServerMessage,
};

/// The engine's own values of every legal move after `moves`, as the wire spells them,
/// sorted by move: what a proven analysis from the server must say.
fn engine_values(rules: Rules, moves: &[&str]) -> Vec<(String, MoveValue)> {
    let mut position = Position::new(rules);
    for m in moves {
        let mv = rules.parse_move(m).expect("test moves parse");
        position.try_play(mv).expect("test moves are legal");
    }
    let analysis = inarow_engine::analyze(&position, &Limits::default());
    assert!(analysis.proven, "small positions are solved");
    let mut values: Vec<(String, MoveValue)> = analysis
        .moves
        .iter()
        .map(|m| {
            let value = match m.value {
                Value::Win(plies) => MoveValue::Win { plies },
                Value::Loss(plies) => MoveValue::Loss { plies },
                Value::Draw => MoveValue::Draw,
                Value::Estimate(score) => MoveValue::Estimate { score },
            };
            (m.mv.to_string(), value)
        })
        .collect();
    values.sort_by(|a, b| a.0.cmp(&b.0));
    values
}

/// The analysis's values sorted by move, each checked to be proven.
fn proven_values(moves: &[MoveAnalysis]) -> Vec<(String, MoveValue)> {
    let mut values: Vec<(String, MoveValue)> = moves
        .iter()
        .map(|m| {
            assert!(m.proven, "{m:?} is proven");
            assert_eq!(m.mv, m.cell, "without gravity a move is its cell");
            (m.mv.clone(), m.value)
        })
        .collect();
    values.sort_by(|a, b| a.0.cmp(&b.0));
    values
}

/// Asks for the analysis of `room` and returns it, checking it answers this request and
/// names the position `(game, ply)`.
async fn analyze(client: &mut Client, room: &RoomId, game: u32, ply: u32) -> Vec<MoveAnalysis> {
    match client
        .call(ClientMessage::Analyze { room: room.clone() })
        .await
    {
        ServerMessage::Analysis {
            room: got,
            game: g,
            ply: p,
            moves,
        } => {
            assert_eq!((&got, g, p), (room, game, ply));
            moves
        }
        other => panic!("expected an analysis, got {other:?}"),
    }
}

#[tokio::test]
async fn spectators_may_ask_players_once_the_game_is_over_and_values_match_the_engine() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, mut bob, room) = server.seated_pair().await;
    let mut cy = server.lobby("Cy").await;
    cy.join(&room, None).await;

    // A player in a room created without hints may not ask while the game is on.
    ann.expect_refused(
        ClientMessage::Analyze { room: room.clone() },
        ErrorCode::HintsOff,
    )
    .await;

    // The spectator may: on the empty board every move draws.
    let empty = analyze(&mut cy, &room, 1, 0).await;
    assert_eq!(
        proven_values(&empty),
        engine_values(Rules::tictactoe(), &[])
    );
    assert!(empty.iter().all(|m| m.value == MoveValue::Draw));

    // After X takes the centre: O's corners draw, its edges lose; best first.
    ann.play(&room, 0, "b2").await;
    cy.reach_room(&room, |s| s.ply == 1).await;
    let after = analyze(&mut cy, &room, 1, 1).await;
    assert_eq!(
        proven_values(&after),
        engine_values(Rules::tictactoe(), &["b2"])
    );
    assert!(
        after[..4].iter().all(|m| m.value == MoveValue::Draw),
        "draws before losses: {after:?}"
    );
    assert!(
        after[4..]
            .iter()
            .all(|m| matches!(m.value, MoveValue::Loss { .. })),
        "{after:?}"
    );

    // Once the game is over the players may ask: after a resignation the position still
    // has moves, valued for the player who was to move (O).
    bob.call_room(ClientMessage::Resign { room: room.clone() })
        .await;
    ann.reach_room(&room, |s| s.status.is_over()).await;
    let review = analyze(&mut ann, &room, 1, 1).await;
    assert_eq!(proven_values(&review), proven_values(&after));
}

#[tokio::test]
async fn players_of_a_hints_room_may_ask_during_the_game() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let snapshot = ann
        .call_room(ClientMessage::CreateRoom {
            name: None,
            rules: tictactoe(),
            seats: plan(SeatRequest::Me, perfect_ai()),
            private: false,
            hints: true,
            time_control: None,
            takebacks: None,
        })
        .await;
    assert!(snapshot.hints, "the snapshot shows the room allows hints");
    let room = snapshot.id;
    let hints = analyze(&mut ann, &room, 1, 0).await;
    assert_eq!(
        proven_values(&hints),
        engine_values(Rules::tictactoe(), &[])
    );
    // Rooms without hints say so.
    let other = ann.open_room().await;
    assert!(!ann.latest(&other).expect("a snapshot").hints);
}

#[tokio::test]
async fn connect_four_hints_name_columns_and_landing_cells() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let room = ann
        .create_room(
            RulesSpec::Preset("connect4".into()),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await
        .id;
    bob.join(&room, Some(SeatChoice::O)).await;
    let mut cy = server.lobby("Cy").await;
    cy.join(&room, None).await;
    for (ply, mv) in ["d", "d", "e", "e"].into_iter().enumerate() {
        let ply = u32::try_from(ply).expect("short");
        let mover = if ply % 2 == 0 { &mut ann } else { &mut bob };
        mover
            .reach_room(&room, |s| s.ply == ply && s.status != GameStatus::Waiting)
            .await;
        mover.play(&room, ply, mv).await;
    }
    cy.reach_room(&room, |s| s.ply == 4).await;
    // X to move: c or f make three on the bottom row with both ends open, a win in 3.
    let moves = analyze(&mut cy, &room, 1, 4).await;
    assert_eq!(moves.len(), 7);
    let wins: Vec<(&str, &str)> = moves
        .iter()
        .filter(|m| matches!(m.value, MoveValue::Win { .. }))
        .map(|m| (m.mv.as_str(), m.cell.as_str()))
        .collect();
    assert_eq!(wins, [("c", "c1"), ("f", "f1")], "{moves:?}");
    for m in &moves[..2] {
        assert_eq!((m.value, m.proven), (MoveValue::Win { plies: 3 }, true));
    }
    let d = moves.iter().find(|m| m.mv == "d").expect("d is legal");
    assert_eq!(d.cell, "d3", "a stone in d lands on the two there");
}

#[tokio::test]
async fn a_move_before_the_analysis_is_ready_is_answered_stale_ply_never_a_stale_analysis() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let room = ann
        .call_room(ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("gomoku".into()),
            seats: plan(SeatRequest::Me, perfect_ai()),
            private: false,
            hints: true,
            time_control: None,
            takebacks: None,
        })
        .await
        .id;
    // On one connection the room takes the two in order: the analysis of ply 0 is asked
    // for, then the move is played, most likely before the search ends.
    let asked = ann
        .request(ClientMessage::Analyze { room: room.clone() })
        .await;
    let played = ann
        .request(ClientMessage::Play {
            room: room.clone(),
            ply: 0,
            mv: "h8".into(),
        })
        .await;
    let mut moved = false;
    loop {
        let frame = ann.recv().await;
        match (&frame.id, frame.message) {
            // The harness hands a `moved` over as the snapshot it makes.
            (Some(id), ServerMessage::Room { room }) if *id == played => {
                assert_eq!(room.ply, 1);
                moved = true;
            }
            (Some(id), ServerMessage::Analysis { ply, .. }) if *id == asked => {
                assert!(!moved, "an analysis of ply {ply} after the move was played");
                assert_eq!(ply, 0);
                break;
            }
            (Some(id), ServerMessage::Error { code, message }) if *id == asked => {
                assert!(moved, "stale_ply comes after the event that made it so");
                assert_eq!(code, ErrorCode::StalePly, "{message}");
                break;
            }
            (_, ServerMessage::Error { code, message }) => panic!("{code}: {message}"),
            _ => {}
        }
    }
    // Either way the room goes on, and a second question is answered for the new position
    // or a later one (the AI replies meanwhile).
    let again = ann
        .request(ClientMessage::Analyze { room: room.clone() })
        .await;
    loop {
        let frame = ann.recv().await;
        if frame.id.as_ref() != Some(&again) {
            continue;
        }
        match frame.message {
            ServerMessage::Analysis { ply, moves, .. } => {
                assert!(ply >= 1);
                assert!(!moves.is_empty());
                break;
            }
            // The AI's reply may land before this analysis is ready too.
            ServerMessage::Error {
                code: ErrorCode::StalePly,
                ..
            } => {
                let id: RequestId = ann
                    .request(ClientMessage::Analyze { room: room.clone() })
                    .await;
                let ServerMessage::Analysis { ply, .. } = wait_for(&mut ann, &id).await else {
                    panic!("an analysis once the AI has moved");
                };
                assert_eq!(ply, 2);
                break;
            }
            other => panic!("expected an analysis, got {other:?}"),
        }
    }
}

/// The reply to request `id`, skipping everything else.
async fn wait_for(client: &mut Client, id: &RequestId) -> ServerMessage {
    loop {
        let frame = client.recv().await;
        if frame.id.as_ref() == Some(id) {
            return frame.message;
        }
    }
}

#[tokio::test]
async fn one_unanswered_analyze_per_member_and_room() {
    let server = TestServer::start(fast_config()).await;
    let mut ann = server.lobby("Ann").await;
    let room = ann
        .call_room(ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("gomoku".into()),
            seats: plan(SeatRequest::Me, perfect_ai()),
            private: false,
            hints: true,
            time_control: None,
            takebacks: None,
        })
        .await
        .id;
    // Two questions back to back: the second is refused while the first is on its way,
    // and the first is answered either way. (Should the first be answered before the room
    // reads the second, the second is simply answered too: judged by order, not time.)
    let first = ann
        .request(ClientMessage::Analyze { room: room.clone() })
        .await;
    let second = ann
        .request(ClientMessage::Analyze { room: room.clone() })
        .await;
    let (mut first_answered, mut second_answered) = (false, false);
    while !(first_answered && second_answered) {
        let frame = ann.recv().await;
        let Some(id) = frame.id else { continue };
        match frame.message {
            ServerMessage::Analysis { ply, moves, .. } => {
                assert_eq!(ply, 0);
                assert_eq!(moves.len(), 225, "every cell of the empty gomoku board");
                if id == first {
                    first_answered = true;
                } else {
                    assert_eq!(id, second);
                    assert!(first_answered, "the second waited for the first");
                    second_answered = true;
                }
            }
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                message,
            } => {
                assert_eq!(id, second, "{message}");
                assert!(
                    !first_answered,
                    "refused only while the first was unanswered"
                );
                second_answered = true;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
