//! Checks the decoder runs on a client message's JSON before serde sees it, so that bad
//! input is answered with the field's name, what it may hold and the right code, rather
//! than serde's "data did not match any variant".
//!
//! Only the shape is checked here (types, presence, known words); ranges that depend on
//! the rules of the game (a width of 20, a k larger than the board) are the server's.

use serde_json::{Map, Value};

use crate::{ErrorCode, MAX_BOARD_SIDE, MAX_ID_CHARS, RequestId};

/// A field that failed its check: the code to answer with and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

impl FieldError {
    fn bad_request(message: impl Into<String>) -> FieldError {
        FieldError {
            code: ErrorCode::BadRequest,
            message: message.into(),
        }
    }

    fn invalid_time_control(message: impl Into<String>) -> FieldError {
        FieldError {
            code: ErrorCode::InvalidTimeControl,
            message: message.into(),
        }
    }

    fn invalid_rules(message: impl Into<String>) -> FieldError {
        FieldError {
            code: ErrorCode::InvalidRules,
            message: message.into(),
        }
    }
}

/// The message's `id`: absent or `null` is no id; a whole number from 0 to 2^64 − 1 or a
/// string of at most [`MAX_ID_CHARS`] characters is echoed; anything else is refused.
pub(crate) fn id(object: &Map<String, Value>) -> Result<Option<RequestId>, FieldError> {
    let refused = || {
        FieldError::bad_request(format!(
            "id must be a whole number from 0 to 18446744073709551615 or a string of at most \
             {MAX_ID_CHARS} characters"
        ))
    };
    match object.get("id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(|n| Some(RequestId::Number(n)))
            .ok_or_else(refused),
        Some(Value::String(s)) if s.chars().count() <= MAX_ID_CHARS => {
            Ok(Some(RequestId::Text(s.clone())))
        }
        Some(_) => Err(refused()),
    }
}

/// Whether an id read straight into its type is one [`id`] accepts: a number is (its
/// type holds every one), a string only up to [`MAX_ID_CHARS`] characters.
pub(crate) fn id_fits(id: Option<&RequestId>) -> bool {
    match id {
        None | Some(RequestId::Number(_)) => true,
        Some(RequestId::Text(s)) => s.chars().count() <= MAX_ID_CHARS,
    }
}

/// Describes a JSON value briefly, for messages: its kind and, when short, itself.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(b) => return b.to_string(),
        Value::Number(_) => "the number",
        Value::String(_) => "the string",
        Value::Array(_) => return "a list".to_owned(),
        Value::Object(_) => return "an object".to_owned(),
    };
    let text = value.to_string();
    if text.chars().count() > 24 {
        let short: String = text.chars().take(21).collect();
        format!("{kind} {short}...")
    } else {
        format!("{kind} {text}")
    }
}

/// The fields of a `create_room` that serde would otherwise refuse vaguely.
pub(crate) fn create_room(object: &Map<String, Value>) -> Result<(), FieldError> {
    rules(object.get("rules"))?;
    seats(object.get("seats"))?;
    time_control(object.get("time_control"))?;
    for flag in ["private", "hints", "takebacks"] {
        match object.get(flag) {
            None | Some(Value::Bool(_)) => {}
            // `takebacks` may be null: the room's default.
            Some(Value::Null) if flag == "takebacks" => {}
            Some(other) => {
                return Err(FieldError::bad_request(format!(
                    "{flag} must be true or false (false when absent), not {}",
                    describe(other)
                )));
            }
        }
    }
    Ok(())
}

/// The `room` of a message that names one, which serde would refuse without naming it.
pub(crate) fn room(object: &Map<String, Value>) -> Result<(), FieldError> {
    match object.get("room") {
        Some(Value::String(_)) => Ok(()),
        None => Err(FieldError::bad_request(
            "room is missing: the room id or invite code, a string",
        )),
        Some(other) => Err(FieldError::bad_request(format!(
            "room must be the room id or invite code, a string, not {}",
            describe(other)
        ))),
    }
}

const TIME_CONTROL_SHAPE: &str = "\"none\", a preset (\"1+0\", \"3+2\", \"5+3\", \"10+5\", \
     \"15+10\") or an object {\"kind\": \"fischer\", \"base_ms\", \"increment_ms\"}, \
     {\"kind\": \"per_move\", \"ms\"} or {\"kind\": \"correspondence\", \"days\"}";

/// The shape of a `create_room`'s `time_control`; its ranges are the server's.
fn time_control(value: Option<&Value>) -> Result<(), FieldError> {
    let fields = match value {
        None | Some(Value::Null | Value::String(_)) => return Ok(()),
        Some(Value::Object(fields)) => fields,
        Some(other) => {
            return Err(FieldError::invalid_time_control(format!(
                "time_control must be {TIME_CONTROL_SHAPE}, not {}",
                describe(other)
            )));
        }
    };
    let numbers: &[&str] = match fields.get("kind").and_then(Value::as_str) {
        Some("none") => &[],
        Some("fischer") => &["base_ms", "increment_ms"],
        Some("per_move") => &["ms"],
        Some("correspondence") => &["days"],
        _ => {
            return Err(FieldError::invalid_time_control(format!(
                "time_control.kind must be \"none\", \"fischer\", \"per_move\" or \
                 \"correspondence\"; time_control is {TIME_CONTROL_SHAPE}"
            )));
        }
    };
    for field in numbers {
        match fields.get(*field) {
            Some(Value::Number(n)) if n.as_u64().is_some() => {}
            None => {
                return Err(FieldError::invalid_time_control(format!(
                    "time_control.{field} is missing: a whole number"
                )));
            }
            Some(other) => {
                return Err(FieldError::invalid_time_control(format!(
                    "time_control.{field} must be a whole number, not {}",
                    describe(other)
                )));
            }
        }
    }
    Ok(())
}

const RULES_SHAPE: &str = "a preset name (\"tictactoe\", \"connect4\", \"gomoku\") or an object \
                           {\"width\", \"height\", \"k\", \"gravity\"}";

fn rules(value: Option<&Value>) -> Result<(), FieldError> {
    let fields = match value {
        None => {
            return Err(FieldError::invalid_rules(format!(
                "rules is missing: {RULES_SHAPE}"
            )));
        }
        Some(Value::String(_)) => return Ok(()),
        Some(Value::Object(fields)) => fields,
        Some(other) => {
            return Err(FieldError::invalid_rules(format!(
                "rules must be {RULES_SHAPE}, not {}",
                describe(other)
            )));
        }
    };
    let side = format!("a whole number from 1 to {MAX_BOARD_SIDE}");
    for (field, range) in [
        ("width", side.as_str()),
        ("height", side.as_str()),
        ("k", "a whole number from 1 to max(width, height)"),
    ] {
        match fields.get(field) {
            None => {
                return Err(FieldError::invalid_rules(format!(
                    "rules.{field} is missing: {range}"
                )));
            }
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| u32::try_from(n).is_ok()) => {}
            Some(other) => {
                return Err(FieldError::invalid_rules(format!(
                    "rules.{field} must be {range}, not {}",
                    describe(other)
                )));
            }
        }
    }
    match fields.get("gravity") {
        None | Some(Value::Bool(_)) => Ok(()),
        Some(other) => Err(FieldError::invalid_rules(format!(
            "rules.gravity must be true or false (false when absent), not {}",
            describe(other)
        ))),
    }
}

const SEAT_SHAPE: &str = "{\"kind\": \"me\"}, {\"kind\": \"open\"}, {\"kind\": \"ai\", \"level\": \"easy\" | \"medium\" | \"perfect\"} or {\"kind\": \"engine\", \"name\": NAME}";

fn seats(value: Option<&Value>) -> Result<(), FieldError> {
    let plan = match value {
        None => return Ok(()),
        Some(Value::Object(plan)) => plan,
        Some(other) => {
            return Err(FieldError::bad_request(format!(
                "seats must be an object {{\"X\": seat, \"O\": seat}} where a seat is \
                 {SEAT_SHAPE}, not {}",
                describe(other)
            )));
        }
    };
    for mark in ["X", "O"] {
        let seat = match plan.get(mark) {
            None => {
                return Err(FieldError::bad_request(format!(
                    "seats.{mark} is missing: {SEAT_SHAPE}"
                )));
            }
            Some(Value::Object(seat)) => seat,
            Some(other) => {
                return Err(FieldError::bad_request(format!(
                    "seats.{mark} must be {SEAT_SHAPE}, not {}",
                    describe(other)
                )));
            }
        };
        match seat.get("kind") {
            Some(Value::String(kind)) if kind == "me" || kind == "open" => {}
            Some(Value::String(kind)) if kind == "ai" => match seat.get("level") {
                None => {}
                Some(Value::String(level))
                    if ["easy", "medium", "perfect"].contains(&level.as_str()) => {}
                Some(other) => {
                    return Err(FieldError::bad_request(format!(
                        "seats.{mark}.level must be \"easy\", \"medium\" or \"perfect\" \
                         (\"perfect\" when absent), not {}",
                        describe(other)
                    )));
                }
            },
            Some(Value::String(kind)) if kind == "engine" => match seat.get("name") {
                Some(Value::String(name)) if crate::EngineName::new(name).is_ok() => {}
                Some(other) => {
                    return Err(FieldError::bad_request(format!(
                        "seats.{mark}.name must be an engine's name (list_engines lists \
                         them), not {}",
                        describe(other)
                    )));
                }
                None => {
                    return Err(FieldError::bad_request(format!(
                        "seats.{mark}.name is missing: the engine's name"
                    )));
                }
            },
            None => {
                return Err(FieldError::bad_request(format!(
                    "seats.{mark}.kind is missing: \"me\", \"open\", \"ai\" or \"engine\""
                )));
            }
            Some(other) => {
                return Err(FieldError::bad_request(format!(
                    "seats.{mark}.kind must be \"me\", \"open\", \"ai\" or \"engine\", \
                     not {}",
                    describe(other)
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("tests pass objects"),
        }
    }

    #[test]
    fn ids_are_numbers_or_short_strings() {
        assert_eq!(id(&object(json!({}))), Ok(None));
        assert_eq!(id(&object(json!({"id": null}))), Ok(None));
        assert_eq!(
            id(&object(json!({"id": u64::MAX}))),
            Ok(Some(RequestId::Number(u64::MAX)))
        );
        let longest = "é".repeat(MAX_ID_CHARS);
        assert_eq!(
            id(&object(json!({ "id": longest }))),
            Ok(Some(RequestId::Text(longest.clone())))
        );
        for bad in [
            json!(-1),
            json!(1.5),
            json!(true),
            json!([1]),
            json!({"a": 1}),
            json!("x".repeat(MAX_ID_CHARS + 1)),
        ] {
            let err = id(&object(json!({ "id": bad }))).expect_err("refused");
            assert_eq!(err.code, ErrorCode::BadRequest);
            assert!(err.message.contains("64"), "{}", err.message);
        }
    }

    #[test]
    fn every_bad_rules_field_is_named_with_its_range() {
        let cases = [
            (json!({}), "rules is missing"),
            (json!(7), "rules must be a preset name"),
            (json!(null), "rules must be"),
            (
                json!({"width": "3", "height": 3, "k": 3}),
                "rules.width must be a whole number from 1 to 19, not the string \"3\"",
            ),
            (
                json!({"width": 3.5, "height": 3, "k": 3}),
                "rules.width must be a whole number from 1 to 19, not the number 3.5",
            ),
            (
                json!({"width": 3, "height": -3, "k": 3}),
                "rules.height must be a whole number from 1 to 19, not the number -3",
            ),
            (
                json!({"width": 3, "height": 3}),
                "rules.k is missing: a whole number from 1 to max(width, height)",
            ),
            (
                json!({"width": 3, "height": 3, "k": 4_294_967_296_u64}),
                "rules.k must be",
            ),
            (
                json!({"width": 3, "height": 3, "k": 3, "gravity": 1}),
                "rules.gravity must be true or false",
            ),
        ];
        for (rules, expected) in cases {
            let mut message = object(json!({}));
            if rules != json!({}) {
                message.insert("rules".into(), rules.clone());
            }
            let err = create_room(&message).expect_err("refused");
            assert_eq!(err.code, ErrorCode::InvalidRules, "{rules}");
            assert!(
                err.message.starts_with(expected),
                "{rules}: {}",
                err.message
            );
        }
        for good in [
            json!("chess"),
            json!({"width": 30, "height": 0, "k": 0, "gravity": true}),
        ] {
            // Unknown presets and out-of-range numbers are the server's to judge.
            assert_eq!(create_room(&object(json!({ "rules": good }))), Ok(()));
        }
    }

    #[test]
    fn every_bad_seat_is_named_with_the_allowed_values() {
        let cases = [
            (json!("me"), "seats must be an object"),
            (json!({"X": {"kind": "me"}}), "seats.O is missing"),
            (json!({"X": "me", "O": {"kind": "open"}}), "seats.X must be"),
            (
                json!({"X": {}, "O": {"kind": "open"}}),
                "seats.X.kind is missing",
            ),
            (
                json!({"X": {"kind": "robot"}, "O": {"kind": "open"}}),
                "seats.X.kind must be \"me\", \"open\", \"ai\" or \"engine\", not the string \"robot\"",
            ),
            (
                json!({"X": {"kind": "me"}, "O": {"kind": "ai", "level": 3}}),
                "seats.O.level must be",
            ),
            (
                json!({"X": {"kind": "me"}, "O": {"kind": "ai", "level": "god"}}),
                "seats.O.level must be",
            ),
            (
                json!({"X": {"kind": "me"}, "O": {"kind": "engine", "name": "a b"}}),
                "seats.O.name must be an engine's name",
            ),
            (
                json!({"X": {"kind": "me"}, "O": {"kind": "engine"}}),
                "seats.O.name is missing",
            ),
        ];
        for (seats, expected) in cases {
            let message = object(json!({"rules": "tictactoe", "seats": seats}));
            let err = create_room(&message).expect_err("refused");
            assert_eq!(err.code, ErrorCode::BadRequest, "{seats}");
            assert!(
                err.message.starts_with(expected),
                "{seats}: {}",
                err.message
            );
        }
        let fine = object(
            json!({"rules": "tictactoe", "seats": {"X": {"kind": "ai"}, "O": {"kind": "me"}}}),
        );
        assert_eq!(create_room(&fine), Ok(()));
    }

    #[test]
    fn flags_and_rooms_are_named_when_mistyped() {
        let hints = object(json!({"rules": "tictactoe", "hints": "yes"}));
        let err = create_room(&hints).expect_err("refused");
        assert_eq!(err.code, ErrorCode::BadRequest);
        assert_eq!(
            err.message,
            "hints must be true or false (false when absent), not the string \"yes\""
        );
        let private = object(json!({"rules": "tictactoe", "private": 1}));
        assert!(
            create_room(&private)
                .expect_err("refused")
                .message
                .starts_with("private must be")
        );
        assert_eq!(
            create_room(&object(json!({"rules": "tictactoe", "hints": true}))),
            Ok(())
        );
        assert_eq!(room(&object(json!({"room": "k7m2q9xa"}))), Ok(()));
        assert!(
            room(&object(json!({})))
                .expect_err("missing")
                .message
                .starts_with("room is missing")
        );
        assert!(
            room(&object(json!({"room": 5})))
                .expect_err("mistyped")
                .message
                .ends_with("not the number 5")
        );
    }
}
