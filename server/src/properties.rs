//! Random hostile input through the decoder, the router and a live room (its state, with
//! an AI pool): nothing panics, and every refusal carries a code the document lists for
//! that request. Three members act at random: ann (X), bob (O) and cy (watching).

use std::sync::Arc;
use std::time::Duration;

use inarow_protocol::{ErrorCode, SeatPlan, SeatRequest, SessionId, decode_client};
use proptest::prelude::*;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::net::{Attachment, Kick, Peer};
use crate::room::spec::{CreateRoom, RoomSpec};
use crate::room::{self, Member, Request};
use crate::session::Route;
use crate::state::ServerState;
use crate::store::{DataLocation, Store};
use crate::text;

/// The codes docs/protocol.md gives for a refused room request of this kind (an unknown
/// room is answered by the handler before the room is asked).
fn documented(request: &Request) -> &'static [ErrorCode] {
    use ErrorCode::*;
    match request {
        Request::Join { .. } => &[SeatTaken, AlreadySeated, RoomFull],
        Request::Leave => &[NotInRoom],
        Request::SetSeat { .. } => &[NotInRoom, NotAPlayer, SeatTaken],
        Request::Play { .. } => &[
            NotInRoom,
            NotAPlayer,
            GameNotInProgress,
            StalePly,
            NotYourTurn,
            IllegalMove,
        ],
        Request::Resign => &[NotInRoom, NotAPlayer, GameNotInProgress],
        Request::Takeback { .. } => &[
            NotInRoom,
            NotAPlayer,
            GameNotInProgress,
            TakebackRefused,
            NoOffer,
        ],
        Request::Draw { .. } => &[NotInRoom, NotAPlayer, GameNotInProgress, NoOffer],
        Request::Rematch => &[NotInRoom, NotAPlayer, GameInProgress],
        Request::Chat { .. } => &[NotInRoom, InvalidChat],
        Request::Sync => &[NotInRoom],
        Request::Analyze => &[NotInRoom, HintsOff, RateLimited],
        Request::Rename => &[NotInRoom],
    }
}

fn loose_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..20).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e3f64..1e3).prop_map(|f| json!(f)),
        "[a-cxXoO1-4 ]{0,4}".prop_map(Value::String),
        ".{0,6}".prop_map(Value::String),
        Just(json!("any")),
        Just(json!("easy")),
        Just(json!("\u{202E}gg\u{200B}")),
    ]
}

/// A client message as text: mostly message-shaped with plausible and implausible field
/// values, sometimes anything at all.
fn input() -> impl Strategy<Value = String> {
    let kinds = prop::sample::select(
        [
            "join",
            "leave",
            "set_seat",
            "play",
            "play",
            "play",
            "resign",
            "rematch",
            "chat",
            "sync",
            "analyze",
            "create_room",
            "hello",
            "list_rooms",
        ]
        .as_slice(),
    );
    let fields = prop::collection::vec(
        (
            prop::sample::select(
                [
                    "seat", "ai", "ply", "move", "text", "rules", "seats", "name", "id",
                    "protocol", "hints",
                ]
                .as_slice(),
            ),
            loose_value(),
        ),
        0..5,
    );
    prop_oneof![
        4 => (kinds, fields).prop_map(|(kind, fields)| {
            let mut object = serde_json::Map::new();
            for (k, v) in fields {
                object.insert(k.to_owned(), v);
            }
            object.insert("type".into(), json!(kind));
            object.insert("room".into(), json!("ROOM"));
            Value::Object(object).to_string()
        }),
        1 => ".{0,40}",
    ]
}

fn member(n: u128, name: &str) -> Member {
    // Queues big enough for every frame of a case: nobody reads them.
    let (tx, rx) = tokio::sync::mpsc::channel(4096);
    std::mem::forget(rx);
    Member {
        session: SessionId(uuid::Uuid::from_u128(n)),
        name: name.into(),
        peer: Peer::new(
            Attachment(u64::try_from(n).unwrap_or(0)),
            tx,
            Arc::new(Kick::default()),
        ),
    }
}

async fn run(inputs: Vec<(usize, String)>) -> Result<(), TestCaseError> {
    let config = Config {
        ai_threads: 1,
        ai_move_time: Duration::from_millis(5),
        ai_pace: Duration::ZERO,
        ..Config::default()
    };
    let store = Store::open(&DataLocation::Memory).expect("a memory store opens");
    let state = ServerState::new(config, store, Default::default(), CancellationToken::new());
    let people = [member(1, "ann"), member(2, "bob"), member(3, "cy")];
    let spec = RoomSpec {
        name: "r".into(),
        rules: inarow_engine::Rules::tictactoe(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        },
        private: false,
        hints: false,
        time_control: inarow_protocol::TimeControl::None,
        takebacks: true,
    };
    let id = room::open(&state.room_context(), spec, people[0].clone(), None)
        .map_err(|r| TestCaseError::fail(r.to_string()))?;
    let handle = state
        .lobby
        .get(&id)
        .ok_or_else(|| TestCaseError::fail("the room is listed"))?;
    let seat = |seat| Request::Join { seat };
    let _ = handle.request(&people[1], None, seat(Some(inarow_protocol::SeatChoice::O)));
    let _ = handle.request(&people[2], None, seat(None));
    for (who, text) in inputs {
        let text = text.replace("ROOM", &id.0);
        let frame = match decode_client(&text) {
            Ok(frame) => frame,
            Err(e) => {
                prop_assert!(
                    matches!(
                        e.code,
                        ErrorCode::BadRequest
                            | ErrorCode::InvalidRules
                            | ErrorCode::InvalidTimeControl
                    ),
                    "{} for {}",
                    e.code,
                    text
                );
                continue;
            }
        };
        match Route::of(frame.message) {
            Route::Hello { name, .. } | Route::Rename(name) => {
                let _ = text::display_name(&name, 24);
            }
            Route::ListRooms => {
                let _ = state.lobby.list();
            }
            Route::ListEngines => {
                let _ = state.ai.engines().infos();
            }
            Route::History { .. } | Route::Game(_) => {}
            Route::CreateRoom(CreateRoom {
                name,
                rules,
                seats,
                private,
                hints,
                time_control,
                takebacks,
            }) => {
                let request = CreateRoom {
                    name,
                    rules,
                    seats,
                    private,
                    hints,
                    time_control,
                    takebacks,
                };
                if let Err(refusal) = RoomSpec::try_from_request(request, "ann", 24) {
                    prop_assert!(
                        matches!(
                            refusal.code,
                            ErrorCode::InvalidRules
                                | ErrorCode::InvalidName
                                | ErrorCode::InvalidTimeControl
                                | ErrorCode::BadRequest
                        ),
                        "{} for {}",
                        refusal.code,
                        text
                    );
                }
            }
            Route::Room(_, request) => {
                let allowed = documented(&request);
                let person = &people[who % people.len()];
                if let Err(refusal) = handle.request(person, None, request) {
                    prop_assert!(
                        allowed.contains(&refusal.code),
                        "{} ({}) for {}",
                        refusal.code,
                        refusal.message,
                        text
                    );
                }
            }
        }
    }
    state.shutdown.cancel();
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_requests_to_a_live_room_get_documented_answers(
        inputs in prop::collection::vec((0usize..3, input()), 1..40)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        runtime.block_on(run(inputs))?;
    }
}
