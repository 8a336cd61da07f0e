//! The AI seats' side of the room's table: which AI move the game needs, the job that asks
//! for it (tagged with game and ply), and what to do with an answer, stale ones included.
//!
//! Running the job is the room's business (`room::state`); here it is only bookkeeping.

use inarow_engine::{Ai, Move, Position};
use inarow_protocol::{EngineName, Level, Mark};

use super::{AiPlayer, ChatLine, Seat, Table, seat_index};
use crate::ai::JobId;
use crate::snapshot;

/// The AI job the room waits for: which seat asked, in which game, at which ply.
pub(super) struct PendingAi {
    pub(super) job: JobId,
    pub(super) game: u32,
    pub(super) ply: usize,
    pub(super) mark: Mark,
}

/// A job to start: the AI player leaves its seat with a copy of the position.
pub(crate) struct AiStart {
    /// The job's tag; its answer carries it back.
    pub(crate) job: JobId,
    /// The player (with its search state); it comes back with the answer.
    pub(crate) ai: Box<Ai>,
    /// The position to move in.
    pub(crate) position: Position,
    /// Both seats are AI: the move is paced so that people can follow the game.
    pub(crate) paced: bool,
    /// The seat the AI plays (its clock gives its budget).
    pub(crate) mark: Mark,
    /// The external engine that plays the seat, if one does.
    pub(crate) engine: Option<EngineName>,
}

/// What became of an AI answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AiAnswer {
    /// The answer was for a job the room no longer waits for: ignored.
    Stale,
    /// The move was played.
    Played,
    /// The answer was not a legal move; the first legal move was played instead, so a
    /// broken search cannot stall the game.
    Substituted(Option<Move>),
    /// No move could be played (the game had no legal move).
    Stuck,
}

/// A new AI seat with a fresh player.
pub(super) fn seat(level: Level) -> Seat {
    Seat::Ai {
        level,
        engine: None,
        player: AiPlayer::Home(new_ai(level)),
    }
}

/// The level of inarow's AI that takes an external engine's seat over if the engine fails.
pub(super) const ENGINE_FALLBACK: Level = Level::Perfect;

/// A new seat for the external engine `name`, with inarow's player to fall back to.
pub(super) fn engine_seat(name: EngineName) -> Seat {
    Seat::Ai {
        level: ENGINE_FALLBACK,
        engine: Some(name),
        player: AiPlayer::Home(new_ai(ENGINE_FALLBACK)),
    }
}

fn new_ai(level: Level) -> Box<Ai> {
    // A v4 uuid is 122 random bits from the OS: a convenient seed source.
    let seed = uuid::Uuid::new_v4().as_u64_pair().0;
    Box::new(Ai::new(snapshot::engine_level(level), seed))
}

impl Table {
    /// The job the room waits for, if any. The room cancels any other job it runs.
    pub(crate) fn pending_ai(&self) -> Option<JobId> {
        self.pending_ai.as_ref().map(|j| j.job)
    }

    /// Brings AI work in line with the game after a change: keeps the pending job if it
    /// is still the one needed, drops it otherwise, and returns a job to start when an
    /// AI is to move and none is pending.
    pub(crate) fn reconcile_ai(&mut self) -> Option<AiStart> {
        let wanted = self
            .turn()
            .filter(|turn| matches!(self.seats[seat_index(*turn)], Seat::Ai { .. }));
        if let Some(job) = &self.pending_ai {
            if Some(job.mark) == wanted && job.game == self.game && job.ply == self.position.ply() {
                return None;
            }
            self.pending_ai = None;
        }
        let mark = wanted?;
        let job = JobId(self.next_job);
        let Seat::Ai {
            level,
            engine,
            player,
        } = &mut self.seats[seat_index(mark)]
        else {
            return None;
        };
        let engine = *engine;
        let ai = match std::mem::replace(player, AiPlayer::Away(job)) {
            AiPlayer::Home(ai) => ai,
            // Its player is still away on a cancelled job: start afresh.
            AiPlayer::Away(_) => new_ai(*level),
        };
        self.next_job += 1;
        let paced = self.seats.iter().all(|s| matches!(s, Seat::Ai { .. }));
        self.pending_ai = Some(PendingAi {
            job,
            game: self.game,
            ply: self.position.ply(),
            mark,
        });
        Some(AiStart {
            job,
            ai,
            position: self.position.clone(),
            paced,
            mark,
            engine,
        })
    }

    /// The external engine `name` failed on job `job`, for `reason`: its seat (if it is
    /// still the engine's) is inarow's AI from now on, and the room is told in a chat line
    /// from the seat, which `None` means nobody needs to be told.
    pub(crate) fn engine_failed(
        &mut self,
        job: JobId,
        name: EngineName,
        reason: &str,
    ) -> Option<ChatLine> {
        let (index, seat) = self.seats.iter_mut().enumerate().find(|(_, seat)| {
            matches!(seat, Seat::Ai { engine: Some(e), player, .. }
                if *e == name && matches!(player, AiPlayer::Away(away) if *away == job))
        })?;
        let Seat::Ai { engine, level, .. } = seat else {
            return None;
        };
        *engine = None;
        let level = *level;
        let mark = if index == 0 { Mark::X } else { Mark::O };
        let text = format!("{name} failed ({reason}); inarow's AI ({level}) plays {mark} now");
        Some(self.say(name.to_string(), Some(mark), text))
    }

    /// Takes the answer to `job`: the player `ai` goes home to its seat (if the seat
    /// still waits for it), and the move `mv` is played if the room still waits for
    /// this job. `draw_or_worse` says whether the search proved its move a draw or a
    /// loss for the AI (for a draw offer that follows).
    pub(crate) fn ai_answered(
        &mut self,
        job: JobId,
        ai: Option<Box<Ai>>,
        mv: Option<Move>,
        draw_or_worse: Option<bool>,
    ) -> AiAnswer {
        for seat in &mut self.seats {
            if let Seat::Ai { player, .. } = seat
                && matches!(player, AiPlayer::Away(away) if *away == job)
                && let Some(ai) = ai
            {
                *player = AiPlayer::Home(ai);
                break;
            }
        }
        if self.pending_ai() != Some(job) {
            return AiAnswer::Stale;
        }
        self.pending_ai = None;
        let legal = self.position.legal_moves();
        let (mv, answer) = match mv {
            Some(mv) if legal.contains(&mv) => (mv, AiAnswer::Played),
            other => match legal.first() {
                Some(mv) => (*mv, AiAnswer::Substituted(other)),
                None => return AiAnswer::Stuck,
            },
        };
        let mark = snapshot::mark(self.position.to_move());
        match self.position.try_play(mv) {
            Ok(_) => {
                self.offer = None;
                self.note_ai_verdict(
                    mark,
                    answer == AiAnswer::Played && draw_or_worse == Some(true),
                );
                answer
            }
            // Unreachable for a move from `legal_moves`; refusing it keeps the game sane.
            Err(_) => AiAnswer::Stuck,
        }
    }
}

#[cfg(test)]
mod tests {
    use inarow_engine::Rules;
    use inarow_protocol::{Occupant, RoomId, SeatPlan, SeatRequest, SessionId};

    use super::*;
    use crate::net::Attachment;
    use crate::room::spec::RoomSpec;
    use crate::room::table::Arrival;

    /// Ann (X) against the engine `pbrain` (O) on a 9×9 board of five in a row.
    fn against_engine() -> (Table, Arrival) {
        let ann = Arrival {
            session: SessionId(uuid::Uuid::new_v4()),
            name: "ann".into(),
            attachment: Attachment(1),
        };
        let name = EngineName::new("pbrain").expect("a name");
        let spec = RoomSpec {
            name: "test".into(),
            rules: Rules::new(9, 9, 5, false).expect("rules"),
            seats: SeatPlan {
                x: SeatRequest::Me,
                o: SeatRequest::Engine { name },
            },
            private: false,
            hints: false,
            time_control: inarow_protocol::TimeControl::None,
            takebacks: true,
        };
        (
            Table::new(RoomId::from("room"), spec, ann.clone(), 500),
            ann,
        )
    }

    fn play_e5(t: &mut Table, ann: &Arrival) {
        let request = super::super::Request::Play {
            ply: 0,
            mv: "e5".into(),
        };
        t.request(ann.clone(), None, request).expect("legal");
    }

    #[test]
    fn an_engine_seat_asks_its_engine_and_falls_back_for_good() {
        let (mut t, ann) = against_engine();
        let name = EngineName::new("pbrain").expect("a name");
        assert!(matches!(
            t.snapshot().seats[1].occupant,
            Occupant::Ai { level: ENGINE_FALLBACK, engine: Some(e), .. } if e == name
        ));
        play_e5(&mut t, &ann);
        let job = t.reconcile_ai().expect("the engine is to move");
        assert_eq!(job.engine, Some(name));

        // Another engine's failure, or one for another job, changes nothing.
        let other = EngineName::new("rapfi").expect("a name");
        assert!(t.engine_failed(job.job, other, "crashed").is_none());
        assert!(
            t.engine_failed(JobId(job.job.0 + 1), name, "crashed")
                .is_none()
        );

        let line = t
            .engine_failed(job.job, name, "the engine exited")
            .expect("the room is told");
        assert_eq!(line.from, "pbrain");
        assert_eq!(line.seat, Some(Mark::O));
        assert_eq!(
            line.text,
            "pbrain failed (the engine exited); inarow's AI (perfect) plays O now"
        );
        assert_eq!(
            line.seq,
            t.snapshot().seq,
            "the line is the room's latest event"
        );
        assert!(matches!(
            t.snapshot().seats[1].occupant,
            Occupant::Ai {
                level: ENGINE_FALLBACK,
                engine: None,
                ..
            }
        ));
        let mv = job.position.legal_moves()[0];
        assert_eq!(
            t.ai_answered(job.job, Some(job.ai), Some(mv), None),
            AiAnswer::Played
        );
        // A second failure report for the same job finds no engine left.
        assert!(t.engine_failed(job.job, name, "again").is_none());
    }
}
