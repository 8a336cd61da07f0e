//! Hints: who may ask for an analysis of the room's position, the one analysis job a room
//! runs at a time (tagged with game and ply, like an AI seat's job) and the members
//! waiting for it, and what each of them gets when it answers or goes stale.
//!
//! One job serves everybody who asks about the same position, so a room full of
//! spectators pressing the hint key costs one search; each member waits for at most one
//! answer per room, so a client cannot queue up work either. Running the job is the
//! room's business (`room::state`); here it is only bookkeeping.

use inarow_engine::{Ai, Analysis, Level, Position};
use inarow_protocol::{ErrorCode, RequestId, ServerMessage, SessionId};

use super::{Outcome, Table};
use crate::ai::JobId;
use crate::refusal::Refusal;
use crate::snapshot;

/// The analysis the room is computing: for which position, and who waits for it.
pub(super) struct PendingAnalysis {
    job: JobId,
    game: u32,
    ply: usize,
    /// Whether the room has been given the job to start.
    started: bool,
    /// The members waiting, with the ids of their requests, in the order they asked.
    waiters: Vec<(SessionId, Option<RequestId>)>,
}

/// An analysis job to start.
pub(crate) struct AnalysisStart {
    /// The job's tag; its answer carries it back.
    pub(crate) job: JobId,
    /// A full-strength player with a fresh table: analyses are asked for rarely, and a
    /// fresh one needs no memory until it searches.
    pub(crate) ai: Box<Ai>,
    /// The position to analyse.
    pub(crate) position: Position,
}

/// One member's answer: the message for it (an `analysis`, or an `error`) and the id of
/// the request it answers.
pub(crate) struct Reply {
    /// Who gets it.
    pub(crate) session: SessionId,
    /// The id of their `analyze`.
    pub(crate) id: Option<RequestId>,
    /// The `analysis` or the `error`.
    pub(crate) message: ServerMessage,
}

impl Reply {
    fn refused(session: SessionId, id: Option<RequestId>, refusal: Refusal) -> Reply {
        Reply {
            session,
            id,
            message: ServerMessage::Error {
                code: refusal.code,
                message: refusal.message,
            },
        }
    }
}

/// What the room must do about analyses after a change.
#[derive(Default)]
pub(crate) struct AnalysisWork {
    /// A job to start, if one is needed and none runs.
    pub(crate) start: Option<AnalysisStart>,
    /// Errors for members whose wait ended without an analysis.
    pub(crate) replies: Vec<Reply>,
}

impl Table {
    /// The analysis job the room waits for, if any. The room cancels any other it runs.
    pub(crate) fn pending_analysis(&self) -> Option<JobId> {
        self.pending_analysis
            .as_ref()
            .filter(|p| p.started)
            .map(|p| p.job)
    }

    /// Whether `session` (a member) may analyse the position now: spectators always,
    /// players when the room allows hints or once the game is over.
    pub(super) fn may_analyze(&self, session: SessionId) -> Result<(), Refusal> {
        if self.hints || self.seat_of(session).is_none() || self.over() {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::HintsOff,
            "this room was created without hints: players may analyse once the game is over",
        ))
    }

    /// `analyze` from `session`, a member: it waits for the room's analysis of the
    /// current position, which [`Table::reconcile_analysis`] then starts if none runs.
    pub(super) fn analyze(
        &mut self,
        session: SessionId,
        id: Option<RequestId>,
    ) -> Result<Outcome, Refusal> {
        self.may_analyze(session)?;
        // A stale job's waiters get their answer at the next reconcile; this request
        // must not join them.
        self.drop_stale_analysis();
        let (game, ply) = (self.game, self.position.ply());
        let pending = match &mut self.pending_analysis {
            Some(pending) => pending,
            None => {
                let job = JobId(self.next_job);
                self.next_job += 1;
                self.pending_analysis.insert(PendingAnalysis {
                    job,
                    game,
                    ply,
                    started: false,
                    waiters: Vec::new(),
                })
            }
        };
        if pending.waiters.iter().any(|(s, _)| *s == session) {
            return Err(Refusal::new(
                ErrorCode::RateLimited,
                "your previous analyze in this room is still unanswered: one at a time",
            ));
        }
        pending.waiters.push((session, id));
        Ok(Outcome::Analyzing)
    }

    /// Brings analyses in line with the room after a change: a position that moved on
    /// answers its waiters `stale_ply`; members who left or lost their connection stop
    /// waiting (nobody to answer), those who may no longer analyse get `hints_off`; a job
    /// nobody waits for is dropped (the room cancels it), and a needed one is started.
    pub(crate) fn reconcile_analysis(&mut self) -> AnalysisWork {
        self.drop_stale_analysis();
        let mut work = AnalysisWork {
            replies: std::mem::take(&mut self.analysis_replies),
            start: None,
        };
        let Some(mut pending) = self.pending_analysis.take() else {
            return work;
        };
        let waiters = std::mem::take(&mut pending.waiters);
        for (session, id) in waiters {
            if self.attachment_of(session).is_none() {
                continue;
            }
            match self.may_analyze(session) {
                Ok(()) => pending.waiters.push((session, id)),
                Err(refusal) => work.replies.push(Reply::refused(session, id, refusal)),
            }
        }
        if pending.waiters.is_empty() {
            return work;
        }
        if !pending.started {
            pending.started = true;
            work.start = Some(AnalysisStart {
                job: pending.job,
                ai: Box::new(Ai::new(Level::Perfect, 0)),
                position: self.position.clone(),
            });
        }
        self.pending_analysis = Some(pending);
        work
    }

    /// Takes the answer to analysis job `job`: the replies to everybody waiting for it,
    /// or `None` if the room does not wait for that job (a stale analysis, or not an
    /// analysis at all).
    pub(crate) fn analysis_answered(
        &mut self,
        job: JobId,
        analysis: Option<&Analysis>,
    ) -> Option<Vec<Reply>> {
        if self.pending_analysis() != Some(job) {
            return None;
        }
        let pending = self.pending_analysis.take()?;
        let Some(analysis) = analysis else {
            // The search failed (it panicked): say so rather than leave them waiting.
            let refusal = Refusal::new(
                ErrorCode::StalePly,
                "the analysis failed; ask again to retry",
            );
            return Some(
                pending
                    .waiters
                    .into_iter()
                    .map(|(session, id)| Reply::refused(session, id, refusal.clone()))
                    .collect(),
            );
        };
        let message = snapshot::analysis(&self.id, self.game, &self.position, analysis);
        Some(
            pending
                .waiters
                .into_iter()
                .map(|(session, id)| Reply {
                    session,
                    id,
                    message: message.clone(),
                })
                .collect(),
        )
    }

    /// Forgets an analysis whose position has moved on; its waiters' `stale_ply` errors
    /// wait in `analysis_replies` for the next reconcile.
    fn drop_stale_analysis(&mut self) {
        let current = (self.game, self.position.ply());
        let stale = self
            .pending_analysis
            .as_ref()
            .is_some_and(|p| (p.game, p.ply) != current);
        if !stale {
            return;
        }
        let Some(pending) = self.pending_analysis.take() else {
            return;
        };
        let refusal = Refusal::new(
            ErrorCode::StalePly,
            format!(
                "the position changed (game {}, ply {}) before the analysis was ready; ask again",
                current.0, current.1
            ),
        );
        self.analysis_replies.extend(
            pending
                .waiters
                .into_iter()
                .map(|(session, id)| Reply::refused(session, id, refusal.clone())),
        );
    }
}

#[cfg(test)]
mod tests;
