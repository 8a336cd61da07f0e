//! The decoder over random input: random bytes and random JSON values, including values
//! shaped like client messages. It never panics, and every refusal carries a documented
//! code (`bad_request`, or `invalid_rules` for a `create_room`) and echoes the id only
//! when the id is one the document accepts. The hand-written paths (reading `play`,
//! writing `moved`) agree with serde's on random input.

use inarow_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameStatus, MAX_ID_CHARS, Mark, MoveEvent, RequestId,
    RoomId, ServerMessage, decode_client, encode, encode_message,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Strings with the characters hostile input is made of.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 ]{0,12}",
        ".{0,8}",
        Just("\u{202E}\u{200B}\u{FEFF}".to_owned()),
        Just("tictactoe".to_owned()),
        "[xo]{70}",
    ]
}

/// Any JSON value, a few levels deep.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const TYPES: [&str; 12] = [
    "hello",
    "list_rooms",
    "create_room",
    "join",
    "leave",
    "set_seat",
    "play",
    "resign",
    "rematch",
    "chat",
    "sync",
    "dance",
];
const FIELDS: [&str; 14] = [
    "id", "protocol", "name", "token", "rules", "seats", "private", "room", "seat", "ai", "ply",
    "move", "text", "width",
];

/// An object with a known `type` and random values under the fields messages use.
fn message() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(TYPES.as_slice()),
        prop::collection::vec((prop::sample::select(FIELDS.as_slice()), value()), 0..6),
    )
        .prop_map(|(kind, fields)| {
            let mut object: Map<String, Value> =
                fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            object.insert("type".to_owned(), json!(kind));
            Value::Object(object)
        })
}

/// A `play` frame, well formed or nearly: plausible or random values under its fields, an
/// id of any kind, sometimes an unknown field, sometimes a `type` spelled with an escape.
fn play_frame() -> impl Strategy<Value = String> {
    let field = |plausible: BoxedStrategy<Value>| prop_oneof![4 => plausible, 1 => value()];
    (
        field("[a-z0-9]{1,6}".prop_map(Value::String).boxed()),
        field((0u64..300).prop_map(|n| json!(n)).boxed()),
        field(
            "[a-o][0-9]{1,2}|[a-g]|\\u0062\\u0032"
                .prop_map(Value::String)
                .boxed(),
        ),
        prop::option::of(field(any::<u64>().prop_map(|n| json!(n)).boxed())),
        prop::option::of((text(), value())),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(room, ply, mv, id, extra, escaped)| {
            let mut object = Map::new();
            object.insert("room".to_owned(), room);
            object.insert("ply".to_owned(), ply);
            object.insert("move".to_owned(), mv);
            if let Some(id) = id {
                object.insert("id".to_owned(), id);
            }
            if let Some((key, value)) = extra {
                object.insert(key, value);
            }
            object.insert("type".to_owned(), json!("play"));
            let text = Value::Object(object).to_string();
            if escaped {
                text.replacen("\"play\"", "\"pl\\u0061y\"", 1)
            } else {
                text
            }
        })
}

/// The id the document says is echoed, if `text` is an object with one.
fn acceptable_id(text: &str) -> Option<RequestId> {
    let value: Value = serde_json::from_str(text).ok()?;
    match value.get("id")? {
        Value::Number(n) => n.as_u64().map(RequestId::Number),
        Value::String(s) if s.chars().count() <= MAX_ID_CHARS => Some(RequestId::Text(s.clone())),
        _ => None,
    }
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match decode_client(text) {
        Ok(frame) => prop_assert_eq!(frame.id, acceptable_id(text)),
        Err(e) => {
            prop_assert!(
                matches!(e.code, ErrorCode::BadRequest | ErrorCode::InvalidRules),
                "undocumented code {} for {}",
                e.code,
                text
            );
            if e.code == ErrorCode::InvalidRules {
                prop_assert!(text.contains("create_room"), "{}", text);
            }
            prop_assert!(!e.message.is_empty());
            if let Some(id) = &e.id {
                prop_assert_eq!(Some(id.clone()), acceptable_id(text));
            }
        }
    }
    Ok(())
}

/// Any mark.
fn mark() -> impl Strategy<Value = Mark> {
    prop_oneof![Just(Mark::X), Just(Mark::O)]
}

/// Any game status.
fn status() -> impl Strategy<Value = GameStatus> {
    prop_oneof![
        Just(GameStatus::Waiting),
        mark().prop_map(|turn| GameStatus::Playing { turn }),
        (mark(), prop::collection::vec(text(), 0..5))
            .prop_map(|(winner, line)| GameStatus::Won { winner, line }),
        Just(GameStatus::Drawn),
        mark().prop_map(|winner| GameStatus::Resigned { winner }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_decode_or_are_refused_with_a_documented_code(
        bytes in prop::collection::vec(any::<u8>(), 0..200)
    ) {
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn random_json_decodes_or_is_refused_with_a_documented_code(value in value()) {
        check(&value.to_string())?;
    }

    /// `decode_client` reads `play` on a fast path of its own: whatever it reads, the
    /// general reading of a frame reads the same, and the other way round.
    #[test]
    fn play_frames_read_as_the_general_path_reads_them(text in play_frame()) {
        check(&text)?;
        let general = serde_json::from_str::<ClientFrame>(&text)
            .ok()
            .filter(|f| matches!(f.message, ClientMessage::Play { .. }))
            .filter(|f| acceptable_id(&text) == f.id);
        let fast = decode_client(&text)
            .ok()
            .filter(|f| matches!(f.message, ClientMessage::Play { .. }));
        prop_assert_eq!(fast, general, "{}", text);
    }

    #[test]
    fn random_messages_decode_or_are_refused_with_a_documented_code(value in message()) {
        check(&value.to_string())?;
    }

    /// `encode_message` writes `moved` by hand: byte for byte what serde writes, whatever
    /// the strings hold.
    #[test]
    fn moved_events_encode_as_serde_encodes_them(
        room in prop_oneof!["[a-z0-9]{8}", text(), "\\PC{0,6}", Just("\"\\\u{1}\u{7f}".to_owned())],
        seq in any::<u64>(),
        game in any::<u32>(),
        ply in any::<u32>(),
        mv in prop_oneof!["[a-o][0-9]{1,2}", text()],
        cell in prop_oneof!["[a-o][0-9]{1,2}", text()],
        by in mark(),
        status in status(),
        capacity in 0usize..400,
    ) {
        let message = ServerMessage::Moved(MoveEvent {
            room: RoomId(room),
            seq,
            game,
            ply,
            mv,
            cell,
            by,
            status,
        });
        prop_assert_eq!(encode_message(&message, capacity), encode(&message));
    }

    /// Every other message goes through serde.
    #[test]
    fn other_messages_encode_as_serde_encodes_them(room in text(), capacity in 0usize..400) {
        let message = ServerMessage::Left { room: RoomId(room) };
        prop_assert_eq!(encode_message(&message, capacity), encode(&message));
    }
}
