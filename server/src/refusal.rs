//! A refused request: the stable error code and the readable message its sender gets.
//!
//! Rooms refuse requests and the session handler refuses malformed ones; both answer with
//! this type, which the handler turns into an `error` frame carrying the request id.

use inarow_protocol::{ErrorCode, RoomId};

/// A request refused, with the error code and message the requester gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub(crate) struct Refusal {
    /// Stable code, for programs.
    pub(crate) code: ErrorCode,
    /// For people.
    pub(crate) message: String,
}

impl Refusal {
    /// A refusal with `code` and `message`.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    /// The room `id` is not open (or stopped answering).
    pub(crate) fn unknown_room(id: &RoomId) -> Refusal {
        Refusal::new(ErrorCode::UnknownRoom, format!("no room {id}"))
    }
}
