//! What a new room is to be, and the validation that turns a `create_room` request into
//! one: rules, seat plan and name are checked here, before any room exists.

use inarow_engine::Rules;
use inarow_protocol::{ErrorCode, RulesSpec, SeatPlan, SeatRequest};

use crate::refusal::Refusal;
use crate::text;

/// How to set up a new room.
#[derive(Debug, Clone)]
pub(crate) struct RoomSpec {
    /// Display name.
    pub(crate) name: String,
    /// Validated rules.
    pub(crate) rules: Rules,
    /// Who sits where; `Me` in at most one seat.
    pub(crate) seats: SeatPlan,
    /// Hidden from the lobby.
    pub(crate) private: bool,
    /// Players may analyse while the game is on.
    pub(crate) hints: bool,
}

/// A `create_room` request as it arrived, before validation.
pub(crate) struct CreateRoom {
    /// The name asked for; `None` names the room after its creator.
    pub(crate) name: Option<String>,
    /// A preset name or custom rules.
    pub(crate) rules: RulesSpec,
    /// Who sits where.
    pub(crate) seats: SeatPlan,
    /// Hidden from the lobby.
    pub(crate) private: bool,
    /// Players may analyse while the game is on.
    pub(crate) hints: bool,
}

impl RoomSpec {
    /// Validates a request by `creator` (a valid display name), with people's names
    /// limited to `max_name_chars`.
    ///
    /// # Errors
    /// `invalid_rules` for an unknown preset or impossible rules, `bad_request` for a plan
    /// that seats the creator twice, `invalid_name` for a bad room name.
    pub(crate) fn try_from_request(
        request: CreateRoom,
        creator: &str,
        max_name_chars: usize,
    ) -> Result<RoomSpec, Refusal> {
        let CreateRoom {
            name,
            rules,
            seats,
            private,
            hints,
        } = request;
        let rules = match rules {
            RulesSpec::Preset(preset) => Rules::preset(&preset).ok_or_else(|| {
                Refusal::new(
                    ErrorCode::InvalidRules,
                    format!("unknown preset {preset:?}: use tictactoe, connect4 or gomoku"),
                )
            })?,
            RulesSpec::Custom(r) => Rules::new(r.width, r.height, r.k, r.gravity)
                .map_err(|e| Refusal::new(ErrorCode::InvalidRules, e.to_string()))?,
        };
        if seats.x == SeatRequest::Me && seats.o == SeatRequest::Me {
            return Err(Refusal::new(
                ErrorCode::BadRequest,
                "one person holds at most one seat of a room",
            ));
        }
        // Room names may be longer than people's names: "<name>'s room" must fit.
        let max_room_name = max_name_chars.saturating_mul(2);
        let name = match name {
            Some(name) => text::display_name(&name, max_room_name)
                .map_err(|m| Refusal::new(ErrorCode::InvalidName, format!("room name: {m}")))?,
            None => format!("{creator}'s room"),
        };
        Ok(RoomSpec {
            name,
            rules,
            seats,
            private,
            hints,
        })
    }
}

#[cfg(test)]
mod tests {
    use inarow_protocol as wire;

    use super::*;

    fn request(name: Option<&str>, rules: RulesSpec, x: SeatRequest) -> CreateRoom {
        CreateRoom {
            name: name.map(str::to_owned),
            rules,
            seats: SeatPlan {
                x,
                o: SeatRequest::Me,
            },
            private: false,
            hints: false,
        }
    }

    fn code(result: Result<RoomSpec, Refusal>) -> Option<ErrorCode> {
        result.err().map(|r| r.code)
    }

    #[test]
    fn the_protocol_names_the_engines_board_limit() {
        // The decoder's messages quote the range; the engine enforces it.
        assert_eq!(wire::MAX_BOARD_SIDE, Rules::MAX_SIDE);
    }

    #[test]
    fn a_room_is_named_after_its_creator_unless_named() {
        let preset = || RulesSpec::Preset("tictactoe".into());
        let spec =
            RoomSpec::try_from_request(request(None, preset(), SeatRequest::Open), "ann", 24)
                .expect("valid");
        assert_eq!(spec.name, "ann's room");
        let spec = RoomSpec::try_from_request(
            request(Some("  den "), preset(), SeatRequest::Open),
            "ann",
            24,
        )
        .expect("valid");
        assert_eq!(spec.name, "den");
    }

    #[test]
    fn bad_rules_plans_and_names_are_refused() {
        let preset = |p: &str| RulesSpec::Preset(p.into());
        let refused = |r| code(RoomSpec::try_from_request(r, "ann", 24));
        assert_eq!(
            refused(request(None, preset("chess"), SeatRequest::Open)),
            Some(ErrorCode::InvalidRules)
        );
        let huge = RulesSpec::Custom(wire::Rules {
            width: 1000,
            height: 3,
            k: 3,
            gravity: false,
        });
        assert_eq!(
            refused(request(None, huge, SeatRequest::Open)),
            Some(ErrorCode::InvalidRules)
        );
        assert_eq!(
            refused(request(None, preset("tictactoe"), SeatRequest::Me)),
            Some(ErrorCode::BadRequest)
        );
        assert_eq!(
            refused(request(Some(""), preset("tictactoe"), SeatRequest::Open)),
            Some(ErrorCode::InvalidName)
        );
    }
}
