//! What players propose to each other during a game: a takeback, a draw; and what ends a
//! game off the board when a seat is given up (an abort before each side has moved, a
//! loss on time in a timed game).
//!
//! An AI seat answers at once: it grants a takeback whenever the room allows them, and
//! accepts a draw only when its last search proved the position a draw or worse for it
//! (and nothing was played since).

use inarow_protocol::{ErrorCode, Mark, Offer, OfferKind};

use super::{ChatLine, Outcome, Seat, Table, player, seat_index};
use crate::refusal::Refusal;
use crate::snapshot::{self, Ending};
use crate::store::saved::CHAT_TAIL;

/// What an AI seat's last search proved about the position after its move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AiVerdict {
    /// The game it was in.
    pub(crate) game: u32,
    /// The ply after its move.
    pub(crate) ply: usize,
    /// The seat it plays.
    pub(crate) mark: Mark,
    /// Its move was proven to draw or lose against best play.
    pub(crate) draw_or_worse: bool,
}

impl Table {
    /// A seat at `mark` was just given up (left, freed, its grace ended) while the game
    /// was `playing`: after the first move but before the reply the game is aborted (no
    /// result, not kept); later, in a timed game, the seat loses on time. Otherwise the
    /// game waits for the seat to be filled, as ever.
    pub(super) fn seat_given_up(&mut self, mark: Mark, playing: bool) {
        if !playing || self.over() {
            return;
        }
        match self.position.ply() {
            1 => self.ending = Some(Ending::Aborted),
            ply if ply >= 2 && self.clocks.is_some() => {
                self.ending = Some(Ending::Timeout {
                    winner: mark.other(),
                });
            }
            _ => return,
        }
        self.offer = None;
    }

    /// Notes what the AI seat `mark` proved with the move it just played.
    pub(crate) fn note_ai_verdict(&mut self, mark: Mark, draw_or_worse: bool) {
        self.ai_verdict = Some(AiVerdict {
            game: self.game,
            ply: self.position.ply(),
            mark,
            draw_or_worse,
        });
    }

    /// Whether the game went back (a takeback) since the last call: the room then saves
    /// it whole, since the moves taken back were already appended.
    pub(crate) fn take_rewound(&mut self) -> bool {
        std::mem::take(&mut self.rewound)
    }

    fn opponent_is_ai(&self, mark: Mark) -> bool {
        matches!(self.seats[seat_index(mark.other())], Seat::Ai { .. })
    }

    /// The plies `mark` must take back to undo its last move (and the reply after it).
    fn takeback_plies(&self, mark: Mark) -> Option<usize> {
        let ply = self.position.ply();
        let last_mover = if ply % 2 == 1 { Mark::X } else { Mark::O };
        let plies = if last_mover == mark { 1 } else { 2 };
        (ply >= plies).then_some(plies)
    }

    fn undo(&mut self, plies: usize) {
        for _ in 0..plies {
            self.position.undo();
        }
        let ply = self.position.ply();
        if let Some(clocks) = &mut self.clocks {
            clocks.take_back(ply);
        }
        self.clock.truncate(ply);
        // What the AI proved was about a position that is gone.
        self.ai_verdict = None;
        self.rewound = true;
    }

    /// `takeback`: ask (an AI grants it at once), or answer the other player's request.
    pub(super) fn takeback(
        &mut self,
        seat: Option<Mark>,
        accept: Option<bool>,
    ) -> Result<Outcome, Refusal> {
        let mark = player(seat)?;
        self.in_progress()?;
        let Some(accept) = accept else {
            if !self.takebacks {
                return Err(Refusal::new(
                    ErrorCode::TakebackRefused,
                    "this room does not allow takebacks",
                ));
            }
            let plies = self.takeback_plies(mark).ok_or_else(|| {
                Refusal::new(ErrorCode::TakebackRefused, "you have no move to take back")
            })?;
            if self.offer.is_some() {
                return Err(Refusal::new(
                    ErrorCode::NoOffer,
                    "an offer is waiting for its answer",
                ));
            }
            if self.opponent_is_ai(mark) {
                self.undo(plies);
            } else {
                self.offer = Some(Offer {
                    kind: OfferKind::Takeback,
                    by: mark,
                });
            }
            return Ok(Outcome::Changed);
        };
        self.answer(mark, OfferKind::Takeback)?;
        if accept && let Some(plies) = self.takeback_plies(mark.other()) {
            self.undo(plies);
        }
        Ok(Outcome::Changed)
    }

    /// `draw`: offer (an AI answers at once), or answer the other player's offer.
    pub(super) fn draw(
        &mut self,
        seat: Option<Mark>,
        accept: Option<bool>,
    ) -> Result<Outcome, Refusal> {
        let mark = player(seat)?;
        self.in_progress()?;
        let Some(accept) = accept else {
            if self.offer.is_some() {
                return Err(Refusal::new(
                    ErrorCode::NoOffer,
                    "an offer is waiting for its answer",
                ));
            }
            if self.opponent_is_ai(mark) {
                let ai = mark.other();
                let proven = self.ai_verdict.is_some_and(|v| {
                    v.game == self.game
                        && v.ply == self.position.ply()
                        && v.mark == ai
                        && v.draw_or_worse
                });
                if proven {
                    self.ending = Some(Ending::Agreed);
                    return Ok(Outcome::Changed);
                }
                return Ok(self.ai_says(ai, "No draw, thank you: let's play on."));
            }
            self.offer = Some(Offer {
                kind: OfferKind::Draw,
                by: mark,
            });
            return Ok(Outcome::Changed);
        };
        self.answer(mark, OfferKind::Draw)?;
        if accept {
            self.ending = Some(Ending::Agreed);
        }
        Ok(Outcome::Changed)
    }

    /// `mark` answers an offer of `kind`: it must be the other player's, and is gone.
    fn answer(&mut self, mark: Mark, kind: OfferKind) -> Result<(), Refusal> {
        match self.offer {
            Some(offer) if offer.kind == kind && offer.by == mark.other() => {
                self.offer = None;
                Ok(())
            }
            _ => Err(Refusal::new(
                ErrorCode::NoOffer,
                match kind {
                    OfferKind::Takeback => "no takeback was asked of you",
                    OfferKind::Draw => "no draw was offered to you",
                },
            )),
        }
    }

    /// A chat line from the AI seat `mark`: how it declines.
    fn ai_says(&mut self, mark: Mark, text: &str) -> Outcome {
        self.seq += 1;
        let level = match &self.seats[seat_index(mark)] {
            Seat::Ai { level, .. } => *level,
            _ => inarow_protocol::Level::Perfect,
        };
        let line = ChatLine {
            seq: self.seq,
            from: snapshot::ai_name(level),
            seat: Some(mark),
            text: text.to_owned(),
        };
        if self.chat.len() == CHAT_TAIL {
            self.chat.pop_front();
        }
        self.chat.push_back(line.clone());
        Outcome::Chat(line)
    }
}
