//! Opening rules that balance gomoku: who places the first stones and who then chooses a
//! side. The stones still alternate X, O, X … on the board; an opening rule only says
//! which of the two players places each of them, and when one of them picks a colour.
//!
//! - [`OpeningRule::Swap`]: the first player places X's first stone; the second then
//!   either takes X (the first player becomes O and answers) or stays O and answers.
//! - [`OpeningRule::Swap2`] (the world championships' and Gomocup's opening): the first
//!   player places three stones (X, O, X); the second takes O and plays on, takes X (the
//!   first player, now O, plays on), or places two more (O, X) and lets the first player
//!   choose a side, after which O plays on.
//!
//! [`Opening`] is the state machine: pure, no clock, no I/O; the room asks it who acts.

use std::fmt;

use crate::rules::Player;

/// How a game's opening is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OpeningRule {
    /// No opening rule: X moves first, and the players alternate.
    #[default]
    Free,
    /// Swap after the first stone.
    Swap,
    /// Swap2.
    Swap2,
}

impl OpeningRule {
    /// Every rule, in the order they are listed to people.
    pub const ALL: [OpeningRule; 3] = [OpeningRule::Free, OpeningRule::Swap, OpeningRule::Swap2];

    /// The rule's name in records and on the wire: `free`, `swap`, `swap2`.
    pub fn as_str(self) -> &'static str {
        match self {
            OpeningRule::Free => "free",
            OpeningRule::Swap => "swap",
            OpeningRule::Swap2 => "swap2",
        }
    }

    /// The rule named `name` (any case, surrounding spaces ignored).
    pub fn parse(name: &str) -> Option<OpeningRule> {
        let name = name.trim();
        OpeningRule::ALL
            .into_iter()
            .find(|rule| rule.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for OpeningRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of the two players, by the order they were seated in, not by colour: the first
/// player is the one who starts the opening (X until a swap says otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Person {
    /// The player who starts the opening.
    First,
    /// The other player.
    Second,
}

impl Person {
    /// The other player.
    pub fn other(self) -> Person {
        match self {
            Person::First => Person::Second,
            Person::Second => Person::First,
        }
    }
}

/// A choice an opening rule offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Choice {
    /// Play X from here on.
    TakeX,
    /// Play O from here on.
    TakeO,
    /// (Swap2, the second player) place two more stones, O then X, and let the first
    /// player choose a side.
    PlaceTwo,
}

impl Choice {
    /// The choice's name on the wire: `take_x`, `take_o`, `place_two`.
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::TakeX => "take_x",
            Choice::TakeO => "take_o",
            Choice::PlaceTwo => "place_two",
        }
    }
}

/// What the opening waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// `by` places the next stone (its colour is the board's: X, O, X … alternating).
    Place {
        /// Who places it.
        by: Person,
    },
    /// `by` must choose among `options`.
    Choose {
        /// Who chooses.
        by: Person,
        /// What they may choose.
        options: &'static [Choice],
    },
}

/// Why the opening refused an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpeningError {
    /// It is not this player's turn to act, or the opening waits for the other kind of
    /// action (a stone while a choice is due, or the reverse).
    NotYours,
    /// A choice the opening does not offer now.
    NotOffered,
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpeningError::NotYours => "the opening does not wait for that from you",
            OpeningError::NotOffered => "the opening does not offer that choice now",
        })
    }
}

impl std::error::Error for OpeningError {}

/// Where the opening stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The opening is over (or there was none): the players alternate by colour.
    Over,
    /// `by` places every stone until the board holds `until`.
    Placing { by: Person, until: usize },
    /// `by` chooses among `options`.
    Choosing {
        by: Person,
        options: &'static [Choice],
    },
}

const SWAP: &[Choice] = &[Choice::TakeX, Choice::TakeO];
const SWAP2: &[Choice] = &[Choice::TakeX, Choice::TakeO, Choice::PlaceTwo];

/// An opening under way: who places the next stone or must choose, and which colour each
/// player has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opening {
    rule: OpeningRule,
    stage: Stage,
    /// Who plays X (changes with a choice).
    x: Person,
}

impl Opening {
    /// The opening of a new game under `rule`: the first player holds X.
    pub fn new(rule: OpeningRule) -> Opening {
        let stage = match rule {
            OpeningRule::Free => Stage::Over,
            OpeningRule::Swap => Stage::Placing {
                by: Person::First,
                until: 1,
            },
            OpeningRule::Swap2 => Stage::Placing {
                by: Person::First,
                until: 3,
            },
        };
        Opening {
            rule,
            stage,
            x: Person::First,
        }
    }

    /// The rule.
    pub fn rule(&self) -> OpeningRule {
        self.rule
    }

    /// Whether the opening is over: from here the player of the colour to move moves.
    pub fn is_over(&self) -> bool {
        self.stage == Stage::Over
    }

    /// The colour `person` plays now.
    pub fn mark_of(&self, person: Person) -> Player {
        if person == self.x {
            Player::X
        } else {
            Player::O
        }
    }

    /// Who acts next, with `ply` stones on the board and `to_move` the colour of the next
    /// stone.
    pub fn turn(&self, ply: usize, to_move: Player) -> Turn {
        match self.stage {
            Stage::Placing { by, until } if ply < until => Turn::Place { by },
            Stage::Choosing { by, options, .. } => Turn::Choose { by, options },
            _ => Turn::Place {
                by: if to_move == Player::X {
                    self.x
                } else {
                    self.x.other()
                },
            },
        }
    }

    /// Checks that `person` may place the next stone, on a board of `ply` stones with
    /// `to_move` the colour of that stone, and takes it: the opening moves on (to a
    /// choice, once the stones it asks for are placed).
    ///
    /// # Errors
    /// [`OpeningError::NotYours`] when the opening waits for a choice, or for the other
    /// player's stone; nothing changes, and the position must not take the stone.
    pub fn place(
        &mut self,
        person: Person,
        ply: usize,
        to_move: Player,
    ) -> Result<(), OpeningError> {
        if self.turn(ply, to_move) != (Turn::Place { by: person }) {
            return Err(OpeningError::NotYours);
        }
        if let Stage::Placing { until, .. } = self.stage
            && ply + 1 == until
        {
            // Swap2's three stones offer three choices to the second player; its two
            // further stones, and swap's one, offer the other player a side.
            self.stage = match (self.rule, until) {
                (OpeningRule::Swap2, 3) => Stage::Choosing {
                    by: Person::Second,
                    options: SWAP2,
                },
                (_, 5) => Stage::Choosing {
                    by: Person::First,
                    options: SWAP,
                },
                _ => Stage::Choosing {
                    by: Person::Second,
                    options: SWAP,
                },
            };
        }
        Ok(())
    }

    /// `person` chose `choice`.
    ///
    /// # Errors
    /// [`OpeningError::NotYours`] when no choice is due from `person`;
    /// [`OpeningError::NotOffered`] for a choice not among the options.
    pub fn choose(&mut self, person: Person, choice: Choice) -> Result<(), OpeningError> {
        let Stage::Choosing { by, options } = self.stage else {
            return Err(OpeningError::NotYours);
        };
        if by != person {
            return Err(OpeningError::NotYours);
        }
        if !options.contains(&choice) {
            return Err(OpeningError::NotOffered);
        }
        match choice {
            Choice::TakeX => self.x = person,
            Choice::TakeO => self.x = person.other(),
            Choice::PlaceTwo => {
                self.stage = Stage::Placing {
                    by: person,
                    until: 5,
                };
                return Ok(());
            }
        }
        self.stage = Stage::Over;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
