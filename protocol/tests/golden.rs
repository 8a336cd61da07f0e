//! Golden tests: every example in docs/protocol.md decodes into the protocol types, server
//! examples re-encode to exactly the same JSON, and every message type and error code is
//! documented — so the document third-party clients are written from cannot drift from the code.

use std::collections::BTreeSet;

use inarow_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameStatus, Level, Mark, MoveAnalysis, MoveValue,
    RequestId, RoomId, RulesSpec, SeatChoice, SeatPlan, SeatRequest, ServerFrame, ServerMessage,
    TimeControl, TimeControlSpec, decode_client, decode_server, encode,
};
use serde_json::Value;

const DOC: &str = include_str!("../../docs/protocol.md");

/// The direction a documented example travels in, from its code fence's info string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Client,
    Server,
}

/// Every ```json client / ```json server block of the document, in order.
fn examples() -> Vec<(Direction, String)> {
    let mut out = Vec::new();
    let mut current: Option<(Direction, String)> = None;
    for line in DOC.lines() {
        match current.as_mut() {
            None => {
                let fence = line.trim();
                if fence == "```json client" {
                    current = Some((Direction::Client, String::new()));
                } else if fence == "```json server" {
                    current = Some((Direction::Server, String::new()));
                } else {
                    assert!(
                        !fence.starts_with("```json"),
                        "a json block must say `client` or `server`: {fence}"
                    );
                }
            }
            Some((direction, text)) => {
                if line.trim() == "```" {
                    out.push((*direction, std::mem::take(text)));
                    current = None;
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    assert!(
        current.is_none(),
        "unterminated code block in docs/protocol.md"
    );
    out
}

fn type_of(text: &str) -> String {
    let value: Value = serde_json::from_str(text).expect("documented examples are JSON");
    value["type"]
        .as_str()
        .expect("examples have a type")
        .to_owned()
}

#[test]
fn client_examples_decode_and_round_trip() {
    let mut seen = 0;
    for (direction, text) in examples() {
        if direction != Direction::Client {
            continue;
        }
        seen += 1;
        let frame = decode_client(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let again = decode_client(&encode(&frame)).expect("re-encoded frame decodes");
        assert_eq!(frame, again, "round trip of {text}");
        // What a client writes and what the encoder writes mean the same: every field in the
        // example is present with the same value in the re-encoding (defaults may be added).
        let original: Value = serde_json::from_str(&text).expect("json");
        let encoded: Value = serde_json::to_value(&frame).expect("json");
        for (key, value) in original.as_object().expect("object") {
            assert_eq!(encoded.get(key), Some(value), "field {key} of {text}");
        }
    }
    assert!(seen >= 14, "only {seen} client examples");
}

#[test]
fn server_examples_decode_and_encode_identically() {
    let mut seen = 0;
    for (direction, text) in examples() {
        if direction != Direction::Server {
            continue;
        }
        seen += 1;
        let frame = decode_server(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let original: Value = serde_json::from_str(&text).expect("json");
        let encoded: Value = serde_json::from_str(&encode(&frame)).expect("json");
        assert_eq!(
            original, encoded,
            "the server would write {text} differently"
        );
        // A frame without an id is its message alone, byte for byte: the server encodes
        // the message directly, without the frame's flattening.
        let bare = ServerFrame::from(frame.message.clone());
        assert_eq!(encode(&frame.message), encode(&bare), "{text}");
    }
    assert!(seen >= 8, "only {seen} server examples");
}

#[test]
fn every_message_type_is_documented() {
    let mut documented = BTreeSet::new();
    for (direction, text) in examples() {
        documented.insert((direction == Direction::Client, type_of(&text)));
    }
    let client = [
        "hello",
        "list_rooms",
        "list_engines",
        "create_room",
        "join",
        "leave",
        "set_seat",
        "play",
        "resign",
        "rematch",
        "chat",
        "sync",
        "history",
        "game",
        "analyze",
        "rename",
        "takeback",
        "draw",
    ];
    let server = [
        "welcome", "rooms", "engines", "room", "moved", "analysis", "chat", "left", "error", "bye",
        "history", "game", "renamed",
    ];
    for t in client {
        assert!(documented.contains(&(true, t.to_owned())), "client {t}");
    }
    for t in server {
        assert!(documented.contains(&(false, t.to_owned())), "server {t}");
    }
    // The lists above are complete: these matches fail to compile when a variant is added,
    // pointing here, where its type must be added to the lists (and to the document).
    let _client_variant = |m: &ClientMessage| match m {
        ClientMessage::Hello { .. }
        | ClientMessage::ListRooms {}
        | ClientMessage::ListEngines {}
        | ClientMessage::CreateRoom { .. }
        | ClientMessage::Join { .. }
        | ClientMessage::Leave { .. }
        | ClientMessage::SetSeat { .. }
        | ClientMessage::Play { .. }
        | ClientMessage::Resign { .. }
        | ClientMessage::Takeback { .. }
        | ClientMessage::Draw { .. }
        | ClientMessage::Rematch { .. }
        | ClientMessage::Chat { .. }
        | ClientMessage::Sync { .. }
        | ClientMessage::History { .. }
        | ClientMessage::Game { .. }
        | ClientMessage::Analyze { .. }
        | ClientMessage::Rename { .. } => client.len(),
    };
    let _server_variant = |m: &ServerMessage| match m {
        ServerMessage::Welcome { .. }
        | ServerMessage::Rooms { .. }
        | ServerMessage::Engines { .. }
        | ServerMessage::Room { .. }
        | ServerMessage::Moved(_)
        | ServerMessage::Analysis { .. }
        | ServerMessage::Chat { .. }
        | ServerMessage::Left { .. }
        | ServerMessage::Error { .. }
        | ServerMessage::Bye { .. }
        | ServerMessage::History { .. }
        | ServerMessage::Game { .. }
        | ServerMessage::Renamed { .. } => server.len(),
    };
}

#[test]
fn every_error_code_is_in_the_table() {
    for code in ErrorCode::ALL {
        let row = format!("| `{}` |", code.as_str());
        assert!(DOC.contains(&row), "docs/protocol.md has no row for {code}");
    }
}

#[test]
fn examples_mean_what_the_document_says() {
    let join = decode_client(r#"{"type": "join", "id": 4, "room": "k7m2q9xa", "seat": "any"}"#)
        .expect("decodes");
    assert_eq!(join.id, Some(RequestId::Number(4)));
    assert_eq!(
        join.message,
        ClientMessage::Join {
            room: RoomId::from("k7m2q9xa"),
            seat: Some(SeatChoice::Any)
        }
    );
    let create = decode_client(r#"{"type": "create_room", "rules": "connect4"}"#).expect("ok");
    assert_eq!(
        create.message,
        ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("connect4".into()),
            seats: SeatPlan {
                x: SeatRequest::Me,
                o: SeatRequest::Open
            },
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        }
    );
    let ai = decode_client(r#"{"type": "create_room", "rules": "tictactoe", "seats": {"X": {"kind": "ai"}, "O": {"kind": "me"}}}"#)
        .expect("ok");
    let ClientMessage::CreateRoom { seats, .. } = ai.message else {
        panic!("create_room")
    };
    assert_eq!(
        seats.x,
        SeatRequest::Ai {
            level: Level::Perfect
        }
    );
    let free = decode_client(r#"{"type": "set_seat", "room": "r", "seat": "O"}"#).expect("ok");
    assert_eq!(
        free.message,
        ClientMessage::SetSeat {
            room: "r".into(),
            seat: Mark::O,
            ai: None
        }
    );
    let unknown_fields_ignored =
        decode_client(r#"{"type": "resign", "room": "r", "future": [1, 2]}"#).expect("ok");
    assert_eq!(
        unknown_fields_ignored.message,
        ClientMessage::Resign { room: "r".into() }
    );
    assert!(GameStatus::Drawn.is_over());
    let sync = decode_client(r#"{"type": "sync", "id": 9, "room": "k7m2q9xa"}"#).expect("ok");
    assert_eq!(
        sync.message,
        ClientMessage::Sync {
            room: "k7m2q9xa".into()
        }
    );
    let moved = decode_server(r#"{"type": "moved", "id": 7, "room": "c4c4c4c4", "seq": 12, "game": 1, "ply": 7, "move": "d", "cell": "d4", "by": "X", "status": {"state": "won", "winner": "X", "line": ["d1", "d2", "d3", "d4"]}}"#)
        .expect("ok");
    assert_eq!(moved.id, Some(RequestId::Number(7)));
    let ServerMessage::Moved(event) = moved.message else {
        panic!("moved")
    };
    assert_eq!(
        (event.mv.as_str(), event.cell.as_str(), event.by, event.ply),
        ("d", "d4", Mark::X, 7)
    );
}

#[test]
fn hints_examples_mean_what_the_document_says() {
    let create = decode_client(r#"{"type": "create_room", "id": 8, "rules": "tictactoe", "seats": {"X": {"kind": "me"}, "O": {"kind": "ai", "level": "easy"}}, "hints": true}"#)
        .expect("ok");
    assert!(matches!(
        create.message,
        ClientMessage::CreateRoom { hints: true, .. }
    ));
    let analyze =
        decode_client(r#"{"type": "analyze", "id": 10, "room": "k7m2q9xa"}"#).expect("ok");
    assert_eq!(analyze.id, Some(RequestId::Number(10)));
    assert_eq!(
        analyze.message,
        ClientMessage::Analyze {
            room: "k7m2q9xa".into()
        }
    );
    // A snapshot from a server that predates hints still decodes: no hints.
    let room = r#"{"type": "room", "room": {"id": "r", "name": "n", "rules": {"width": 3, "height": 3, "k": 3}, "private": false, "seq": 1, "game": 1, "seats": [], "board": ["...", "...", "..."], "moves": [], "ply": 0, "legal_moves": [], "status": {"state": "waiting"}, "spectators": []}}"#;
    let ServerMessage::Room { room } = decode_server(room).expect("ok").message else {
        panic!("room")
    };
    assert!(!room.hints);
    let entries = [
        (
            r#"{"move": "c", "cell": "c1", "value": "win", "in": 3, "proven": true}"#,
            MoveValue::Win { plies: 3 },
        ),
        (
            r#"{"move": "c", "cell": "c1", "value": "loss", "in": 6, "proven": true}"#,
            MoveValue::Loss { plies: 6 },
        ),
        (
            r#"{"move": "c", "cell": "c1", "value": "draw", "proven": true}"#,
            MoveValue::Draw,
        ),
        (
            r#"{"move": "c", "cell": "c1", "value": "estimate", "score": -7680, "proven": false}"#,
            MoveValue::Estimate { score: -7680 },
        ),
    ];
    for (text, value) in entries {
        let entry: MoveAnalysis = serde_json::from_str(text).expect(text);
        assert_eq!((entry.mv.as_str(), entry.cell.as_str()), ("c", "c1"));
        assert_eq!(entry.value, value);
        assert_eq!(entry.proven, !matches!(value, MoveValue::Estimate { .. }));
    }
    let analysis = decode_server(r#"{"type": "analysis", "id": "hint-3", "room": "c4c4c4c4", "game": 2, "ply": 4, "moves": []}"#)
        .expect("ok");
    assert_eq!(analysis.id, Some(RequestId::Text("hint-3".into())));
    assert!(matches!(
        analysis.message,
        ServerMessage::Analysis { game: 2, ply: 4, ref moves, .. } if moves.is_empty()
    ));
}

#[test]
fn bad_input_is_a_decode_error_with_the_id() {
    let cases = [
        (
            r#"{"type": "teleport", "id": 9}"#,
            Some(RequestId::Number(9)),
        ),
        (
            r#"{"type": "play", "id": "p", "room": "r", "move": "b2"}"#,
            Some(RequestId::Text("p".into())),
        ),
        (
            r#"{"type": "play", "id": 3, "room": "r", "ply": "zero", "move": "b2"}"#,
            Some(RequestId::Number(3)),
        ),
        (r#"{"type": "join", "room": "r", "seat": "Z"}"#, None),
        (r#"{"type": 5}"#, None),
        (r#"{"protocol": 1}"#, None),
        (r#"{"type": "hello", "protocol": 1, "name": "ann""#, None),
        ("[]", None),
        ("", None),
        (r#"{"type": "hello", "protocol": -1, "name": "ann"}"#, None),
        (r#"{"type": "chat", "room": "r", "text": null}"#, None),
    ];
    for (text, id) in cases {
        let err = decode_client(text).expect_err(text);
        assert_eq!(err.id, id, "{text}");
        assert!(!err.message.is_empty());
    }
}

#[test]
fn unreadable_rules_and_ids_get_the_documented_answers() {
    let missing_k =
        decode_client(r#"{"type": "create_room", "id": 3, "rules": {"width": 3, "height": 3}}"#)
            .expect_err("k is required");
    assert_eq!(missing_k.code, ErrorCode::InvalidRules);
    assert_eq!(missing_k.id, Some(RequestId::Number(3)));
    let example = "rules.k is missing: a whole number from 1 to max(width, height)";
    assert_eq!(missing_k.message, example);
    assert!(DOC.contains(example), "the doc quotes the decoder");
    let long_id = format!(r#"{{"type": "list_rooms", "id": "{}"}}"#, "i".repeat(65));
    let refused = decode_client(&long_id).expect_err("ids have at most 64 characters");
    assert_eq!((refused.code, refused.id), (ErrorCode::BadRequest, None));
    let longest = format!(r#"{{"type": "list_rooms", "id": "{}"}}"#, "i".repeat(64));
    assert!(decode_client(&longest).is_ok());
}

#[test]
fn every_message_round_trips() {
    let client = [
        ClientMessage::Hello {
            protocol: 1,
            name: "ann".into(),
            token: None,
        },
        ClientMessage::CreateRoom {
            name: Some("n".into()),
            rules: RulesSpec::Custom(inarow_protocol::Rules {
                width: 5,
                height: 4,
                k: 4,
                gravity: true,
            }),
            seats: SeatPlan {
                x: SeatRequest::Open,
                o: SeatRequest::Ai { level: Level::Easy },
            },
            private: true,
            hints: true,
            time_control: Some(TimeControlSpec::Custom(TimeControl::Fischer {
                base_ms: 60_000,
                increment_ms: 0,
            })),
            takebacks: Some(true),
        },
        ClientMessage::Takeback {
            room: "r".into(),
            accept: Some(false),
        },
        ClientMessage::Draw {
            room: "r".into(),
            accept: None,
        },
        ClientMessage::Analyze { room: "r".into() },
        ClientMessage::Join {
            room: "r".into(),
            seat: Some(SeatChoice::O),
        },
        ClientMessage::Play {
            room: "r".into(),
            ply: 4,
            mv: "c3".into(),
        },
        ClientMessage::Rematch { room: "r".into() },
        ClientMessage::Sync { room: "r".into() },
        ClientMessage::Chat {
            room: "r".into(),
            text: "hi \"there\" ✓".into(),
        },
    ];
    for message in client {
        let frame = ClientFrame {
            message,
            id: Some(RequestId::Text("x".into())),
        };
        assert_eq!(decode_client(&encode(&frame)).expect("decodes"), frame);
    }
    for code in ErrorCode::ALL {
        let frame = ServerFrame {
            message: ServerMessage::Error {
                code,
                message: "m".into(),
            },
            id: Some(RequestId::Number(1)),
        };
        assert_eq!(decode_server(&encode(&frame)).expect("decodes"), frame);
    }
}
