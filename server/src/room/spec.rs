//! What a new room is to be, and the validation that turns a `create_room` request into
//! one: rules, seat plan, time control and name are checked here, before any room exists.

use inarow_engine::Rules;
use inarow_protocol::{
    ErrorCode, RulesSpec, SeatPlan, SeatRequest, TIME_CONTROL_PRESETS, TimeControl, TimeControlSpec,
};

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
    /// How the games are timed (validated).
    pub(crate) time_control: TimeControl,
    /// Whether takebacks may be granted.
    pub(crate) takebacks: bool,
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
    /// The time control asked for; none when absent.
    pub(crate) time_control: Option<TimeControlSpec>,
    /// Whether takebacks may be granted; by default only without a clock.
    pub(crate) takebacks: Option<bool>,
}

/// The time control `spec` asks for, validated.
///
/// # Errors
/// `invalid_time_control`, naming the preset or the field out of range.
fn time_control(spec: Option<TimeControlSpec>) -> Result<TimeControl, Refusal> {
    let refuse = |m: String| Refusal::new(ErrorCode::InvalidTimeControl, m);
    let control = match spec {
        None => TimeControl::None,
        Some(TimeControlSpec::Preset(name)) => TimeControl::preset(&name).ok_or_else(|| {
            refuse(format!(
                "time_control: unknown preset {name:?}: use \"none\", {} or an object",
                TIME_CONTROL_PRESETS.map(|p| format!("\"{p}\"")).join(", ")
            ))
        })?,
        Some(TimeControlSpec::Custom(control)) => control,
    };
    control.validate().map_err(refuse)?;
    Ok(control)
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
            time_control: asked_time_control,
            takebacks,
        } = request;
        let time_control = time_control(asked_time_control)?;
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
            time_control,
            // Off for timed games unless chosen: taking a move back stops the game's
            // clocks meaning what they say.
            takebacks: takebacks.unwrap_or(!time_control.is_clocked()),
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
            time_control: None,
            takebacks: None,
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

    #[test]
    fn time_controls_are_checked_and_takebacks_default_to_untimed_games() {
        let timed = |tc: Option<TimeControlSpec>| {
            let mut r = request(None, RulesSpec::Preset("gomoku".into()), SeatRequest::Open);
            r.time_control = tc;
            RoomSpec::try_from_request(r, "ann", 24)
        };
        let spec = timed(Some(TimeControlSpec::Preset("3+2".into()))).expect("preset");
        assert_eq!(
            spec.time_control,
            TimeControl::Fischer {
                base_ms: 180_000,
                increment_ms: 2_000
            }
        );
        assert!(!spec.takebacks);
        let spec = timed(None).expect("untimed");
        assert!(spec.takebacks && !spec.time_control.is_clocked());
        for bad in [
            TimeControlSpec::Preset("2+1".into()),
            TimeControlSpec::Custom(TimeControl::Fischer {
                base_ms: 0,
                increment_ms: 0,
            }),
            TimeControlSpec::Custom(TimeControl::PerMove { ms: 500 }),
            TimeControlSpec::Custom(TimeControl::Correspondence { days: 15 }),
        ] {
            assert_eq!(code(timed(Some(bad))), Some(ErrorCode::InvalidTimeControl));
        }
    }
}
