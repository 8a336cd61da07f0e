//! Hints at the table, without tokio: who may ask, one job per position shared by everyone
//! who asks, one wait per member, and stale analyses answered `stale_ply` (by order of
//! events, never by time).

use inarow_engine::{Limits, Rules};
use inarow_protocol::{
    ErrorCode, MoveValue, RequestId, RoomId, SeatChoice, SeatPlan, SeatRequest, ServerMessage,
    SessionId,
};
use uuid::Uuid;

use super::super::{Arrival, Outcome, Request, Table};
use super::{AnalysisStart, Reply};
use crate::net::Attachment;
use crate::refusal::Refusal;
use crate::room::spec::RoomSpec;

fn person(name: &str, attachment: u64) -> Arrival {
    Arrival {
        session: SessionId(Uuid::new_v4()),
        name: name.into(),
        attachment: Attachment(attachment),
    }
}

/// Ann (X) and Bob (O) play tic-tac-toe, Cy watches; `hints` as the room was created.
fn game(hints: bool) -> (Table, Arrival, Arrival, Arrival) {
    let (ann, bob, cy) = (person("ann", 1), person("bob", 2), person("cy", 3));
    let spec = RoomSpec {
        name: "test".into(),
        rules: Rules::tictactoe(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        },
        private: false,
        hints,
        time_control: inarow_protocol::TimeControl::None,
        takebacks: true,
    };
    let mut t = Table::new(RoomId::from("room"), spec, ann.clone(), 500);
    t.request(
        bob.clone(),
        None,
        Request::Join {
            seat: Some(SeatChoice::O),
        },
    )
    .expect("bob sits");
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    (t, ann, bob, cy)
}

fn ask(t: &mut Table, who: &Arrival, id: u64) -> Result<Outcome, Refusal> {
    t.request(who.clone(), Some(RequestId::Number(id)), Request::Analyze)
}

fn code(result: Result<Outcome, Refusal>) -> Option<ErrorCode> {
    result.err().map(|r| r.code)
}

fn play(t: &mut Table, who: &Arrival, ply: u32, mv: &str) {
    let request = Request::Play {
        ply,
        mv: mv.to_owned(),
    };
    t.request(who.clone(), None, request).expect("a legal move");
}

/// Starts the job the table asks for, and runs the engine on it as the pool would.
fn run(t: &mut Table) -> (AnalysisStart, inarow_engine::Analysis) {
    let start = t.reconcile_analysis().start.expect("an analysis to start");
    let analysis = inarow_engine::analyze(&start.position, &Limits::default());
    (start, analysis)
}

/// Who each reply goes to, with its request id and what it is.
fn summary(replies: &[Reply]) -> Vec<(SessionId, Option<u64>, String)> {
    replies
        .iter()
        .map(|r| {
            let id = match &r.id {
                Some(RequestId::Number(n)) => Some(*n),
                _ => None,
            };
            let what = match &r.message {
                ServerMessage::Analysis { ply, .. } => format!("analysis at ply {ply}"),
                ServerMessage::Error { code, .. } => code.to_string(),
                other => format!("{other:?}"),
            };
            (r.session, id, what)
        })
        .collect()
}

#[test]
fn spectators_may_always_ask_and_players_only_with_hints_or_after_the_game() {
    let (mut t, ann, bob, cy) = game(false);
    assert_eq!(ask(&mut t, &cy, 1), Ok(Outcome::Analyzing));
    assert_eq!(code(ask(&mut t, &ann, 2)), Some(ErrorCode::HintsOff));
    assert_eq!(code(ask(&mut t, &bob, 3)), Some(ErrorCode::HintsOff));
    let stranger = person("dee", 4);
    assert_eq!(code(ask(&mut t, &stranger, 4)), Some(ErrorCode::NotInRoom));
    // X wins along the bottom row: now the players may look back.
    for (ply, (who, mv)) in [
        (&ann, "a1"),
        (&bob, "a2"),
        (&ann, "b1"),
        (&bob, "b2"),
        (&ann, "c1"),
    ]
    .into_iter()
    .enumerate()
    {
        play(&mut t, who, u32::try_from(ply).expect("small"), mv);
    }
    assert_eq!(ask(&mut t, &ann, 5), Ok(Outcome::Analyzing));
    assert_eq!(ask(&mut t, &bob, 6), Ok(Outcome::Analyzing));

    let (mut t, ann, bob, _) = game(true);
    assert_eq!(ask(&mut t, &ann, 1), Ok(Outcome::Analyzing));
    assert_eq!(ask(&mut t, &bob, 2), Ok(Outcome::Analyzing));
}

#[test]
fn one_job_answers_everyone_who_asked_about_the_position() {
    let (mut t, ann, _bob, cy) = game(true);
    ask(&mut t, &cy, 7).expect("cy asks");
    ask(&mut t, &ann, 8).expect("ann asks");
    assert_eq!(
        code(ask(&mut t, &cy, 9)),
        Some(ErrorCode::RateLimited),
        "one wait per member"
    );
    let (start, analysis) = run(&mut t);
    assert!(
        t.reconcile_analysis().start.is_none(),
        "the job is already running"
    );
    assert_eq!(t.pending_analysis(), Some(start.job));
    let replies = t
        .analysis_answered(start.job, Some(&analysis))
        .expect("the room waited for it");
    assert_eq!(
        summary(&replies),
        vec![
            (cy.session, Some(7), "analysis at ply 0".to_owned()),
            (ann.session, Some(8), "analysis at ply 0".to_owned()),
        ]
    );
    let ServerMessage::Analysis { moves, .. } = &replies[0].message else {
        panic!("an analysis");
    };
    assert_eq!(moves.len(), 9);
    assert!(moves.iter().all(|m| m.value == MoveValue::Draw && m.proven));
    assert_eq!(t.pending_analysis(), None);
    // Answered: the next question starts a new job.
    ask(&mut t, &cy, 10).expect("cy asks again");
    assert_ne!(run(&mut t).0.job, start.job);
}

#[test]
fn a_move_before_the_answer_makes_it_stale() {
    let (mut t, ann, bob, cy) = game(false);
    ask(&mut t, &cy, 1).expect("cy asks");
    let (start, analysis) = run(&mut t);
    play(&mut t, &ann, 0, "b2");
    // The room reconciles after the move's event: cy is told to ask again.
    let work = t.reconcile_analysis();
    assert!(work.start.is_none());
    assert_eq!(
        summary(&work.replies),
        vec![(cy.session, Some(1), "stale_ply".to_owned())]
    );
    assert_eq!(t.pending_analysis(), None);
    assert!(
        t.analysis_answered(start.job, Some(&analysis)).is_none(),
        "the old answer is dropped"
    );
    // Asking again analyses the new position.
    ask(&mut t, &cy, 2).expect("cy asks again");
    let (again, analysis) = run(&mut t);
    assert_eq!(again.position.ply(), 1);
    play(&mut t, &bob, 1, "a1");
    assert_eq!(
        summary(&t.reconcile_analysis().replies),
        vec![(cy.session, Some(2), "stale_ply".to_owned())]
    );
    assert!(t.analysis_answered(again.job, Some(&analysis)).is_none());
}

#[test]
fn leaving_ends_the_wait_and_sitting_down_loses_the_right_to_ask() {
    let (mut t, _ann, bob, cy) = game(false);
    ask(&mut t, &cy, 1).expect("cy asks");
    let (start, _) = run(&mut t);
    t.request(cy.clone(), None, Request::Leave)
        .expect("cy leaves");
    let work = t.reconcile_analysis();
    assert!(work.replies.is_empty(), "nobody to answer");
    assert_eq!(t.pending_analysis(), None, "the job is dropped: cancelled");
    assert_ne!(Some(start.job), t.pending_analysis());

    // A spectator who takes a seat in a game without hints may no longer ask.
    let dee = person("dee", 4);
    t.request(dee.clone(), None, Request::Join { seat: None })
        .expect("dee watches");
    ask(&mut t, &dee, 2).expect("dee asks");
    run(&mut t);
    t.request(bob.clone(), None, Request::Leave)
        .expect("bob leaves");
    t.request(
        dee.clone(),
        None,
        Request::Join {
            seat: Some(SeatChoice::O),
        },
    )
    .expect("dee sits");
    assert_eq!(
        summary(&t.reconcile_analysis().replies),
        vec![(dee.session, Some(2), "hints_off".to_owned())]
    );
    assert_eq!(t.pending_analysis(), None);
}
