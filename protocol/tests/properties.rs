//! The decoder over random input: random bytes and random JSON values, including values
//! shaped like client messages. It never panics, and every refusal carries a documented
//! code (`bad_request`, or `invalid_rules` for a `create_room`) and echoes the id only
//! when the id is one the document accepts. Reading a frame straight into its type and
//! reading it through a JSON value first agree, and what the server encodes decodes back
//! to the same value.

use inarow_protocol::{
    ClientFrame, ClientMessage, EngineName, ErrorCode, GameId, GameStatus, Level, MAX_ID_CHARS,
    Mark, MoveEvent, Occupant, RequestId, RoomId, RoomSnapshot, Rules, SeatInfo, ServerFrame,
    ServerMessage, SessionId, decode_client, decode_server, encode,
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

/// A `play` frame, or one of the other messages the hand-written reader takes, written as
/// text: its fields (sometimes one missing, sometimes an unknown one beside them, `ply`
/// and `move` beside a message that has none) in any order, whitespace between any tokens, and values
/// JSON spells in more than one way (leading zeros, fractions, exponents, escapes, big
/// numbers, non-ASCII).
fn play_text() -> impl Strategy<Value = String> {
    let string = prop_oneof![
        4 => "[a-z0-9]{0,8}".prop_map(|s| format!("\"{s}\"")),
        1 => "\\PC{0,4}".prop_map(|s| Value::String(s).to_string()),
        1 => Just("\"a\\u0031\"".to_owned()),
        1 => Just("\"pl\\u0061y\"".to_owned()),
    ];
    let number = prop_oneof![
        4 => (0u64..300).prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => prop_oneof![
            Just("18446744073709551616".to_owned()),
            Just("4294967296".to_owned()),
            Just("007".to_owned()),
            Just("0".to_owned()),
            Just("-1".to_owned()),
            Just("1.0".to_owned()),
            Just("1e2".to_owned()),
            Just("null".to_owned()),
            Just("\"7\"".to_owned()),
            Just("true".to_owned()),
        ],
    ];
    let kind = prop_oneof![
        8 => Just("\"play\"".to_owned()),
        1 => Just("\"resign\"".to_owned()),
        1 => Just("\"rematch\"".to_owned()),
        1 => Just("\"sync\"".to_owned()),
        1 => Just("\"leave\"".to_owned()),
        1 => Just("\"Play\"".to_owned()),
    ];
    let space = prop_oneof![
        8 => Just(""),
        1 => Just(" "),
        1 => Just("\n\t "),
        1 => Just("\r"),
    ];
    (
        kind,
        string.clone(),
        number.clone(),
        string,
        prop::option::of(number),
        prop::option::of(prop_oneof![
            Just("\"x\""),
            Just("\"Type\""),
            Just("\"\\u0078\"")
        ]),
        prop::collection::vec(space, 24),
        any::<u64>(),
        prop::bool::weighted(0.05),
        prop::bool::weighted(0.5),
    )
        .prop_map(
            |(kind, room, ply, mv, id, extra, spaces, order, drop_one, bare)| {
                let mut fields = vec![
                    format!("\"type\":{kind}"),
                    format!("\"room\":{room}"),
                    format!("\"ply\":{ply}"),
                    format!("\"move\":{mv}"),
                ];
                // The messages without `ply` and `move`, mostly written without them.
                if bare && kind != "\"play\"" {
                    fields.truncate(2);
                }
                if let Some(id) = id {
                    fields.push(format!("\"id\":{id}"));
                }
                if let Some(key) = extra {
                    fields.push(format!("{key}:1"));
                }
                if drop_one {
                    fields.remove((order % fields.len() as u64) as usize);
                }
                // A permutation from the seed: each field goes to a position it picks.
                let mut rest = fields;
                let mut ordered = Vec::new();
                let mut seed = order;
                while !rest.is_empty() {
                    let i = (seed % rest.len() as u64) as usize;
                    seed /= rest.len() as u64;
                    ordered.push(rest.remove(i));
                }
                let mut spaces = spaces.into_iter().cycle();
                let mut text = String::new();
                text.push_str(spaces.next().unwrap_or(""));
                text.push('{');
                for (i, field) in ordered.iter().enumerate() {
                    if i > 0 {
                        text.push_str(spaces.next().unwrap_or(""));
                        text.push(',');
                    }
                    text.push_str(spaces.next().unwrap_or(""));
                    let spaced = field.replacen(
                        ':',
                        &format!(
                            "{}:{}",
                            spaces.next().unwrap_or(""),
                            spaces.next().unwrap_or("")
                        ),
                        1,
                    );
                    text.push_str(&spaced);
                }
                text.push_str(spaces.next().unwrap_or(""));
                text.push('}');
                text.push_str(spaces.next().unwrap_or(""));
                text
            },
        )
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

/// Strings as names and notation come: plain, hostile, any printable text, and the
/// characters JSON must escape (and DEL, which it must not).
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-o][0-9]{1,2}",
        text(),
        "\\PC{0,6}",
        Just("\"\\\u{1}\u{7f}\u{1f}\n".to_owned()),
    ]
}

/// Any seat.
fn seat() -> impl Strategy<Value = SeatInfo> {
    let occupant = prop_oneof![
        Just(Occupant::Empty),
        (any_text(), any::<u128>(), any::<bool>()).prop_map(|(name, id, connected)| {
            Occupant::Human {
                name,
                session: SessionId(uuid::Uuid::from_u128(id)),
                connected,
            }
        }),
        (
            prop_oneof![Just(Level::Easy), Just(Level::Medium), Just(Level::Perfect)],
            any::<bool>(),
            prop_oneof![Just(None), Just(EngineName::new("rapfi").ok())]
        )
            .prop_map(|(level, thinking, engine)| Occupant::Ai {
                level,
                engine,
                thinking
            }),
    ];
    (mark(), occupant, any::<bool>()).prop_map(|(mark, occupant, rematch)| SeatInfo {
        mark,
        occupant,
        rematch,
    })
}

/// Any snapshot, each field drawn on its own (they need not describe a real game).
fn snapshot() -> impl Strategy<Value = RoomSnapshot> {
    let strings = || prop::collection::vec(any_text(), 0..6);
    (
        (
            any_text(),
            any_text(),
            (any::<u32>(), any::<u32>(), any::<u32>(), any::<bool>()),
            any::<bool>(),
            any::<bool>(),
            any::<u64>(),
            any::<u32>(),
            prop::collection::vec(seat(), 0..3),
        ),
        (
            strings(),
            strings(),
            any::<u32>(),
            strings(),
            status(),
            prop::option::of(any_text()),
            strings(),
            prop::option::of(any::<u64>()),
        ),
    )
        .prop_map(
            |(
                (id, name, (width, height, k, gravity), private, hints, seq, game, seats),
                (board, moves, ply, legal_moves, status, last_move, spectators, last_game),
            )| RoomSnapshot {
                id: RoomId(id),
                name,
                rules: Rules {
                    width,
                    height,
                    k,
                    gravity,
                },
                private,
                hints,
                seq,
                game,
                seats,
                board,
                moves,
                ply,
                legal_moves,
                status,
                last_move,
                spectators,
                last_game: last_game.map(GameId),
                chat: Vec::new(),
                time_control: None,
                takebacks: false,
                clock: None,
                offer: None,
            },
        )
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

    /// `decode_client` reads a frame straight into its type when it can: whatever it
    /// reads, the general reading of a frame reads the same, and the other way round.
    #[test]
    fn play_frames_read_as_the_general_path_reads_them(
        text in prop_oneof![play_frame(), play_text()]
    ) {
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

    /// The same for `rematch`, `resign`, `sync` and `leave`.
    #[test]
    fn game_frames_read_as_the_general_path_reads_them(text in play_text()) {
        check(&text)?;
        let general = serde_json::from_str::<ClientFrame>(&text)
            .ok()
            .filter(|f| acceptable_id(&text) == f.id);
        prop_assert_eq!(decode_client(&text).ok(), general, "{}", text);
    }

    #[test]
    fn random_messages_decode_or_are_refused_with_a_documented_code(value in message()) {
        check(&value.to_string())?;
    }

    /// What the server sends, `moved` events with any strings in them, decodes back to
    /// the same value on the client's side.
    #[test]
    fn moved_events_decode_as_they_were_encoded(
        room in prop_oneof!["[a-z0-9]{8}", any_text()],
        seq in any::<u64>(),
        game in any::<u32>(),
        ply in any::<u32>(),
        mv in any_text(),
        cell in any_text(),
        by in mark(),
        status in status(),
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
            clock: None,
        });
        round_trip(message)?;
    }

    /// As above, for room snapshots.
    #[test]
    fn snapshots_decode_as_they_were_encoded(room in snapshot()) {
        round_trip(ServerMessage::Room { room: Box::new(room) })?;
    }
}

/// `message` encoded as the server does, then decoded as a client does, is `message`.
fn round_trip(message: ServerMessage) -> Result<(), TestCaseError> {
    let frame = ServerFrame::from(message);
    let text = encode(&frame);
    prop_assert_eq!(decode_server(&text).ok(), Some(frame), "{}", text);
    Ok(())
}
