//! The TUI's create-room form: its fields, how arrow keys change them, and the
//! `create_room` message it makes. Presets, board limits and rule checks are the engine's.

use inarow_engine::Rules as EngineRules;
use inarow_protocol::{
    ClientMessage, EngineName, Level, Rules, RulesSpec, SeatPlan, SeatRequest,
    TIME_CONTROL_PRESETS, TimeControlSpec,
};

/// Who sits in a seat of a room being created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatOption {
    /// The creator.
    Me,
    /// Open for someone to join.
    Open,
    /// A server AI.
    Ai(Level),
    /// An external engine the server offers.
    Engine(EngineName),
}

impl SeatOption {
    /// The order the options cycle through.
    const CYCLE: [SeatOption; 5] = [
        SeatOption::Me,
        SeatOption::Open,
        SeatOption::Ai(Level::Easy),
        SeatOption::Ai(Level::Medium),
        SeatOption::Ai(Level::Perfect),
    ];

    /// A label for the form.
    pub fn label(self) -> String {
        match self {
            SeatOption::Me => "me".to_owned(),
            SeatOption::Open => "open".to_owned(),
            SeatOption::Ai(level) => format!("AI {level}"),
            SeatOption::Engine(name) => format!("engine {name}"),
        }
    }

    fn request(self) -> SeatRequest {
        match self {
            SeatOption::Me => SeatRequest::Me,
            SeatOption::Open => SeatRequest::Open,
            SeatOption::Ai(level) => SeatRequest::Ai { level },
            SeatOption::Engine(name) => SeatRequest::Engine { name },
        }
    }
}

/// The engine's presets offered by the form, in its order; after them comes "custom".
const PRESETS: [EngineRules; 3] = [
    EngineRules::tictactoe(),
    EngineRules::connect4(),
    EngineRules::gomoku(),
];

/// The index of the "custom" choice, after the presets.
const CUSTOM: usize = PRESETS.len();

/// The name of rule choice `i`: a preset's name, or `custom`.
fn preset_label(i: usize) -> &'static str {
    PRESETS
        .get(i)
        .and_then(EngineRules::preset_name)
        .unwrap_or("custom")
}

/// The create-room form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateForm {
    /// The focused field, an index into [`CreateForm::FIELDS`].
    pub field: usize,
    /// The rule choice: an engine preset, or after them custom.
    pub preset: usize,
    /// Custom width.
    pub width: u32,
    /// Custom height.
    pub height: u32,
    /// Custom k.
    pub k: u32,
    /// Custom gravity.
    pub gravity: bool,
    /// The X seat.
    pub x: SeatOption,
    /// The O seat.
    pub o: SeatOption,
    /// Hidden from the lobby.
    pub private: bool,
    /// Players may ask for hints while the game is on.
    pub hints: bool,
    /// The clock: 0 for none, else one of the protocol's presets (index + 1).
    pub clock: usize,
    /// The server's external engines (`list_engines`), offered after the AI levels.
    pub engines: Vec<EngineName>,
}

impl Default for CreateForm {
    fn default() -> Self {
        CreateForm {
            field: 0,
            preset: 0,
            width: 5,
            height: 5,
            k: 4,
            gravity: false,
            x: SeatOption::Me,
            o: SeatOption::Ai(Level::Perfect),
            private: false,
            hints: false,
            clock: 0,
            engines: Vec::new(),
        }
    }
}

impl CreateForm {
    /// The field names, in order.
    pub const FIELDS: [&'static str; 10] = [
        "rules", "width", "height", "k", "gravity", "X seat", "O seat", "private", "hints", "clock",
    ];

    fn custom(&self) -> bool {
        self.preset == CUSTOM
    }

    /// The value shown for field `i`.
    pub fn value(&self, i: usize) -> String {
        let dim = |v: String| if self.custom() { v } else { "-".to_owned() };
        match i {
            0 => preset_label(self.preset).to_owned(),
            1 => dim(self.width.to_string()),
            2 => dim(self.height.to_string()),
            3 => dim(self.k.to_string()),
            4 => dim(if self.gravity { "yes" } else { "no" }.to_owned()),
            5 => self.x.label(),
            6 => self.o.label(),
            7 => if self.private { "yes" } else { "no" }.to_owned(),
            8 => if self.hints { "yes" } else { "no" }.to_owned(),
            _ => self.clock_preset().unwrap_or("none").to_owned(),
        }
    }

    /// Moves the focus to the previous (`up`) or next field.
    pub fn focus(&mut self, up: bool) {
        self.field = if up {
            self.field.saturating_sub(1)
        } else {
            (self.field + 1).min(Self::FIELDS.len() - 1)
        };
    }

    /// Changes the focused field one step up or down.
    pub fn change(&mut self, up: bool) {
        let step = |v: u32, lo: u32, hi: u32| {
            if up {
                (v + 1).min(hi)
            } else {
                v.saturating_sub(1).max(lo)
            }
        };
        let cycle = |i: usize, n: usize| if up { (i + 1) % n } else { (i + n - 1) % n };
        let custom = self.custom();
        let side = EngineRules::MAX_SIDE;
        match self.field {
            0 => self.preset = cycle(self.preset, CUSTOM + 1),
            1 if custom => self.width = step(self.width, 1, side),
            2 if custom => self.height = step(self.height, 1, side),
            3 if custom => self.k = step(self.k, 1, side),
            4 if custom => self.gravity = !self.gravity,
            5 | 6 => {
                let seat = if self.field == 5 {
                    &mut self.x
                } else {
                    &mut self.o
                };
                let options: Vec<SeatOption> = SeatOption::CYCLE
                    .into_iter()
                    .chain(self.engines.iter().map(|e| SeatOption::Engine(*e)))
                    .collect();
                let i = options.iter().position(|s| s == seat).unwrap_or(0);
                if let Some(next) = options.get(cycle(i, options.len())) {
                    *seat = *next;
                }
            }
            7 => self.private = !self.private,
            8 => self.hints = !self.hints,
            9 => self.clock = cycle(self.clock, TIME_CONTROL_PRESETS.len() + 1),
            _ => {}
        }
    }

    /// The clock preset chosen (`3+2`), `None` for no clock.
    fn clock_preset(&self) -> Option<&'static str> {
        self.clock
            .checked_sub(1)
            .and_then(|i| TIME_CONTROL_PRESETS.get(i).copied())
    }

    /// The `create_room` message, or why the form cannot be sent.
    ///
    /// # Errors
    /// A message when both seats are "me", or custom rules the engine refuses.
    pub fn message(&self) -> Result<ClientMessage, String> {
        if self.x == SeatOption::Me && self.o == SeatOption::Me {
            return Err("you can hold only one seat: make the other open or an AI".to_owned());
        }
        let rules = match PRESETS.get(self.preset).and_then(EngineRules::preset_name) {
            Some(name) => RulesSpec::Preset(name.to_owned()),
            None => {
                EngineRules::new(self.width, self.height, self.k, self.gravity)
                    .map_err(|e| e.to_string())?;
                RulesSpec::Custom(Rules {
                    width: self.width,
                    height: self.height,
                    k: self.k,
                    gravity: self.gravity,
                })
            }
        };
        Ok(ClientMessage::CreateRoom {
            name: None,
            rules,
            seats: SeatPlan {
                x: self.x.request(),
                o: self.o.request(),
            },
            private: self.private,
            hints: self.hints,
            time_control: self
                .clock_preset()
                .map(|p| TimeControlSpec::Preset(p.to_owned())),
            takebacks: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_come_from_the_engine_then_custom() {
        let mut form = CreateForm::default();
        let names: Vec<String> = (0..=CUSTOM)
            .map(|_| {
                let name = form.value(0);
                form.change(true);
                name
            })
            .collect();
        assert_eq!(names, ["tictactoe", "connect4", "gomoku", "custom"]);
        assert_eq!(form.preset, 0, "the choice wraps around");
        form.preset = CUSTOM;
        form.k = 9;
        assert_eq!(
            form.message(),
            Err("k must be between 1 and 5 (got 9)".to_owned())
        );
    }

    #[test]
    fn the_clock_field_cycles_through_the_presets() {
        let mut form = CreateForm {
            field: 9,
            ..CreateForm::default()
        };
        assert_eq!(form.value(9), "none");
        form.change(true);
        form.change(true);
        assert_eq!(form.value(9), "3+2");
        let Ok(ClientMessage::CreateRoom { time_control, .. }) = form.message() else {
            panic!("a create_room");
        };
        assert_eq!(time_control, Some(TimeControlSpec::Preset("3+2".into())));
        form.change(false);
        form.change(false);
        form.change(false);
        assert_eq!(form.value(9), "15+10", "it wraps around");
    }

    #[test]
    fn the_servers_engines_follow_the_ai_levels() {
        let rapfi = EngineName::new("rapfi").expect("a name");
        let mut form = CreateForm {
            field: 6,
            engines: vec![rapfi],
            ..CreateForm::default()
        };
        form.change(true);
        assert_eq!(form.value(6), "engine rapfi");
        let Ok(ClientMessage::CreateRoom { seats, .. }) = form.message() else {
            panic!("a create_room");
        };
        assert_eq!(seats.o, SeatRequest::Engine { name: rapfi });
        form.change(true);
        assert_eq!(form.value(6), "me", "the choice wraps around");
    }
}
