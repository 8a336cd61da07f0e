//! The table driven directly, without tokio: turn rules, taking and leaving seats,
//! resigning, rematches, held seats, and the AI seats' jobs and answers.
//! (Over 600 lines: one test file for the table, a test a rule.)

use inarow_engine::Rules;
use inarow_protocol::{
    ErrorCode, GameId, GameStatus, Level, Mark, Occupant, RoomId, SeatChoice, SeatPlan,
    SeatRequest, SessionId,
};
use uuid::Uuid;

use super::*;
use crate::ai::JobId;
use crate::store::saved::SavedMove;

/// A person at the table: a session connected under `attachment`.
fn person(name: &str, attachment: u64) -> Arrival {
    Arrival {
        session: SessionId(Uuid::new_v4()),
        name: name.into(),
        attachment: Attachment(attachment),
    }
}

fn table(creator: &Arrival, x: SeatRequest, o: SeatRequest) -> Table {
    let spec = RoomSpec {
        name: "test".into(),
        rules: Rules::tictactoe(),
        seats: SeatPlan { x, o },
        private: false,
        hints: false,
        time_control: inarow_protocol::TimeControl::None,
        takebacks: true,
    };
    Table::new(RoomId::from("room"), spec, creator.clone(), 500)
}

fn code(result: Result<Outcome, Refusal>) -> Option<ErrorCode> {
    result.err().map(|r| r.code)
}

fn play(t: &mut Table, who: &Arrival, ply: u32, mv: &str) -> Result<Outcome, Refusal> {
    let request = Request::Play {
        ply,
        mv: mv.to_owned(),
    };
    t.request(who.clone(), None, request)
}

fn sit(t: &mut Table, who: &Arrival, seat: SeatChoice) -> Result<Outcome, Refusal> {
    t.request(who.clone(), None, Request::Join { seat: Some(seat) })
}

fn status(t: &Table) -> GameStatus {
    t.snapshot().status
}

/// Ann (X) and Bob (O) at a tic-tac-toe table.
fn game() -> (Table, Arrival, Arrival) {
    let ann = person("ann", 1);
    let bob = person("bob", 2);
    let mut t = table(&ann, SeatRequest::Me, SeatRequest::Open);
    sit(&mut t, &bob, SeatChoice::O).expect("bob sits");
    (t, ann, bob)
}

#[test]
fn turns_alternate_and_refusals_come_in_order() {
    let (mut t, ann, bob) = game();
    let cy = person("cy", 3);
    assert_eq!(code(play(&mut t, &cy, 0, "a1")), Some(ErrorCode::NotInRoom));
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    assert_eq!(
        code(play(&mut t, &cy, 0, "a1")),
        Some(ErrorCode::NotAPlayer)
    );
    assert_eq!(
        code(play(&mut t, &bob, 0, "a1")),
        Some(ErrorCode::NotYourTurn)
    );
    assert_eq!(code(play(&mut t, &ann, 1, "a1")), Some(ErrorCode::StalePly));
    assert_eq!(
        code(play(&mut t, &ann, 0, "z9")),
        Some(ErrorCode::IllegalMove)
    );
    assert_eq!(play(&mut t, &ann, 0, "b2"), Ok(Outcome::Moved));
    assert_eq!(status(&t), GameStatus::Playing { turn: Mark::O });
    assert_eq!(
        code(play(&mut t, &bob, 1, "b2")),
        Some(ErrorCode::IllegalMove)
    );
    assert_eq!(play(&mut t, &bob, 1, "a1"), Ok(Outcome::Moved));
    assert_eq!(t.snapshot().moves, vec!["b2", "a1"]);
}

#[test]
fn a_game_with_an_empty_seat_waits() {
    let ann = person("ann", 1);
    let mut t = table(&ann, SeatRequest::Me, SeatRequest::Open);
    assert_eq!(status(&t), GameStatus::Waiting);
    assert_eq!(
        code(play(&mut t, &ann, 0, "a1")),
        Some(ErrorCode::GameNotInProgress)
    );
    assert_eq!(
        code(t.request(ann.clone(), None, Request::Resign)),
        Some(ErrorCode::GameNotInProgress)
    );
}

#[test]
fn seats_are_taken_and_left() {
    let (mut t, ann, bob) = game();
    let cy = person("cy", 3);
    assert_eq!(
        code(sit(&mut t, &cy, SeatChoice::Any)),
        Some(ErrorCode::RoomFull)
    );
    assert_eq!(
        code(sit(&mut t, &cy, SeatChoice::X)),
        Some(ErrorCode::SeatTaken)
    );
    assert_eq!(
        code(sit(&mut t, &ann, SeatChoice::O)),
        Some(ErrorCode::SeatTaken)
    );
    // Asking for the seat you hold changes nothing.
    assert_eq!(sit(&mut t, &ann, SeatChoice::X), Ok(Outcome::Unchanged));

    assert_eq!(
        t.request(bob.clone(), None, Request::Leave),
        Ok(Outcome::Left)
    );
    assert_eq!(t.attachment_of(bob.session), None);
    assert_eq!(status(&t), GameStatus::Waiting);
    assert_eq!(
        code(sit(&mut t, &ann, SeatChoice::O)),
        Some(ErrorCode::AlreadySeated)
    );

    // Freeing your own seat keeps you in the room, watching.
    let free = Request::SetSeat {
        seat: Mark::X,
        ai: None,
    };
    assert_eq!(t.request(ann.clone(), None, free), Ok(Outcome::Changed));
    let s = t.snapshot();
    assert!(matches!(s.seats[0].occupant, Occupant::Empty));
    assert_eq!(s.spectators, vec!["ann"]);
    // A spectator who takes a seat stops watching.
    assert_eq!(sit(&mut t, &ann, SeatChoice::Any), Ok(Outcome::Changed));
    assert!(t.snapshot().spectators.is_empty());
}

#[test]
fn a_seat_held_by_another_player_cannot_be_changed() {
    let (mut t, ann, bob) = game();
    let give_away = Request::SetSeat {
        seat: Mark::O,
        ai: Some(Level::Easy),
    };
    assert_eq!(
        code(t.request(ann.clone(), None, give_away)),
        Some(ErrorCode::SeatTaken)
    );
    assert!(t.attachment_of(bob.session).is_some());
}

#[test]
fn only_players_change_seats_once_a_person_sits() {
    let ann = person("ann", 1);
    let mut t = table(
        &ann,
        SeatRequest::Me,
        SeatRequest::Ai { level: Level::Easy },
    );
    let cy = person("cy", 3);
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    let free_o = Request::SetSeat {
        seat: Mark::O,
        ai: None,
    };
    // A spectator may not remove ann's opponent (and then sit down mid-game)...
    let refused = t.request(cy.clone(), None, free_o.clone());
    assert_eq!(code(refused), Some(ErrorCode::NotAPlayer));
    assert!(matches!(
        t.snapshot().seats[1].occupant,
        Occupant::Ai { .. }
    ));
    // ...nor fill an empty seat.
    assert_eq!(t.request(ann.clone(), None, free_o), Ok(Outcome::Changed));
    let easy_o = Request::SetSeat {
        seat: Mark::O,
        ai: Some(Level::Easy),
    };
    assert_eq!(
        code(t.request(cy.clone(), None, easy_o.clone())),
        Some(ErrorCode::NotAPlayer)
    );
    // A player whose seat is held while the connection is down still holds it.
    t.disconnect(ann.session);
    assert_eq!(
        code(t.request(cy.clone(), None, easy_o.clone())),
        Some(ErrorCode::NotAPlayer)
    );
    let back = Arrival {
        attachment: Attachment(7),
        ..ann.clone()
    };
    assert_eq!(t.resume(back.clone()), Some(Outcome::Changed));
    // Ann hands her own seat to an AI: nobody sits now, so anyone may set the seats up.
    let ai_x = Request::SetSeat {
        seat: Mark::X,
        ai: Some(Level::Medium),
    };
    assert_eq!(t.request(back, None, ai_x), Ok(Outcome::Changed));
    assert_eq!(t.request(cy, None, easy_o), Ok(Outcome::Changed));
}

#[test]
fn a_rename_shows_in_the_seat_and_among_the_spectators() {
    let (mut t, ann, _bob) = game();
    let cy = person("cy", 3);
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    let renamed = |who: &Arrival, name: &str| Arrival {
        name: name.into(),
        ..who.clone()
    };
    assert_eq!(
        t.request(renamed(&ann, "ann b"), None, Request::Rename),
        Ok(Outcome::Changed)
    );
    assert_eq!(
        t.request(renamed(&cy, "cyrus"), None, Request::Rename),
        Ok(Outcome::Changed)
    );
    // The same name again changes nothing.
    assert_eq!(
        t.request(renamed(&cy, "cyrus"), None, Request::Rename),
        Ok(Outcome::Unchanged)
    );
    let s = t.snapshot();
    assert!(matches!(&s.seats[0].occupant, Occupant::Human { name, .. } if name == "ann b"));
    assert_eq!(s.spectators, vec!["cyrus"]);
    let dan = person("dan", 4);
    assert_eq!(
        code(t.request(dan, None, Request::Rename)),
        Some(ErrorCode::NotInRoom)
    );
}

#[test]
fn a_dropped_player_keeps_the_seat_until_it_expires() {
    let (mut t, ann, bob) = game();
    // A detach from a connection the session no longer uses is ignored.
    assert!(!t.detach(bob.session, Attachment(9)));
    assert!(t.detach(bob.session, bob.attachment));
    let s = t.snapshot();
    assert!(matches!(
        s.seats[1].occupant,
        Occupant::Human {
            connected: false,
            ..
        }
    ));
    assert_eq!(s.status, GameStatus::Playing { turn: Mark::X });
    assert!(t.anyone_in());

    // Bob resumes on a newer connection: he is back.
    let back = Arrival {
        attachment: Attachment(5),
        ..bob.clone()
    };
    assert_eq!(t.resume(back), Some(Outcome::Changed));
    assert_eq!(t.attachment_of(bob.session), Some(Attachment(5)));
    // A request sent by his old connection does not take the seat back from the new one.
    assert_eq!(sit(&mut t, &bob, SeatChoice::O), Ok(Outcome::Unchanged));
    assert_eq!(t.attachment_of(bob.session), Some(Attachment(5)));

    t.disconnect(bob.session);
    assert!(
        !t.expire(ann.session),
        "ann is connected: nothing to expire"
    );
    assert!(t.expire(bob.session));
    assert!(matches!(t.snapshot().seats[1].occupant, Occupant::Empty));
    t.disconnect(ann.session);
    assert!(t.anyone_in(), "ann's seat is held for her");
    assert!(t.expire(ann.session));
    assert!(!t.anyone_in(), "nobody left: the room may close");
    assert_eq!(t.resume(bob), None, "an expired session has no place left");
}

#[test]
fn a_spectator_whose_connection_drops_leaves() {
    let (mut t, _ann, _bob) = game();
    let cy = person("cy", 3);
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    assert!(t.detach(cy.session, cy.attachment));
    assert!(t.snapshot().spectators.is_empty());
    assert_eq!(t.resume(cy), None);
}

#[test]
fn resigning_ends_the_game_for_the_other_player() {
    let (mut t, ann, bob) = game();
    let cy = person("cy", 3);
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    assert_eq!(
        code(t.request(cy, None, Request::Resign)),
        Some(ErrorCode::NotAPlayer)
    );
    assert_eq!(
        t.request(bob.clone(), None, Request::Resign),
        Ok(Outcome::Changed)
    );
    assert_eq!(status(&t), GameStatus::Resigned { winner: Mark::X });
    assert!(t.game_over().is_some());
    assert_eq!(t.game_over(), None, "a game ends once");
    assert_eq!(
        code(t.request(ann, None, Request::Resign)),
        Some(ErrorCode::GameNotInProgress)
    );
}

#[test]
fn a_rematch_needs_both_players_and_swaps_the_seats() {
    let (mut t, ann, bob) = game();
    assert_eq!(
        code(t.request(ann.clone(), None, Request::Rematch)),
        Some(ErrorCode::GameInProgress)
    );
    // X takes row 1 while O plays row 2.
    for (ply, mv) in (0..).zip(["a1", "a2", "b1", "b2", "c1"]) {
        let who = if ply % 2 == 0 { &ann } else { &bob };
        play(&mut t, who, ply, mv).expect("legal");
    }
    assert!(matches!(
        status(&t),
        GameStatus::Won {
            winner: Mark::X,
            ..
        }
    ));
    assert_eq!(
        t.request(ann.clone(), None, Request::Rematch),
        Ok(Outcome::Changed)
    );
    assert!(t.snapshot().seats[0].rematch);
    assert_eq!(
        t.request(ann.clone(), None, Request::Rematch),
        Ok(Outcome::Unchanged)
    );
    assert_eq!(t.game(), 1);
    assert_eq!(
        t.request(bob.clone(), None, Request::Rematch),
        Ok(Outcome::Changed)
    );
    let s = t.snapshot();
    assert_eq!((s.game, s.ply), (2, 0));
    assert!(matches!(&s.seats[0].occupant, Occupant::Human { name, .. } if name == "bob"));
    assert!(s.seats.iter().all(|seat| !seat.rematch));
    assert_eq!(status(&t), GameStatus::Playing { turn: Mark::X });
    assert_eq!(play(&mut t, &bob, 0, "b2"), Ok(Outcome::Moved));
}

#[test]
fn chat_lines_carry_the_next_sequence_number_and_the_speakers_seat() {
    let (mut t, ann, _bob) = game();
    t.next_room();
    let seq = t.snapshot().seq;
    let line = t.request(
        ann.clone(),
        None,
        Request::Chat {
            text: "hello".into(),
        },
    );
    assert_eq!(
        line,
        Ok(Outcome::Chat(ChatLine {
            seq: seq + 1,
            from: "ann".into(),
            seat: Some(Mark::X),
            text: "hello".into(),
        }))
    );
    assert_eq!(
        code(t.request(ann, None, Request::Chat { text: " ".into() })),
        Some(ErrorCode::InvalidChat)
    );
    assert_eq!(t.snapshot().seq, seq + 1, "a refused line is no event");
}

/// Ann (X) against an AI (O).
fn against_ai() -> (Table, Arrival) {
    let ann = person("ann", 1);
    let t = table(
        &ann,
        SeatRequest::Me,
        SeatRequest::Ai { level: Level::Easy },
    );
    (t, ann)
}

#[test]
fn an_ai_seat_asks_for_a_move_on_its_turn_only() {
    let (mut t, ann) = against_ai();
    assert!(t.reconcile_ai().is_none(), "X, a person, is to move");
    play(&mut t, &ann, 0, "b2").expect("legal");
    let job = t.reconcile_ai().expect("the AI is to move");
    assert_eq!(job.position.ply(), 1);
    assert!(!job.paced, "a person is playing: no pace");
    assert_eq!(t.pending_ai(), Some(job.job));
    assert!(matches!(
        t.snapshot().seats[1].occupant,
        Occupant::Ai { thinking: true, .. }
    ));
    assert!(
        t.reconcile_ai().is_none(),
        "the pending job is still the one needed"
    );

    let mv = job.position.legal_moves()[0];
    assert_eq!(
        t.ai_answered(job.job, Some(job.ai), Some(mv), None),
        AiAnswer::Played
    );
    assert_eq!(t.pending_ai(), None);
    assert_eq!(status(&t), GameStatus::Playing { turn: Mark::X });
    assert!(t.reconcile_ai().is_none());
}

#[test]
fn a_stale_ai_answer_is_ignored_but_its_player_comes_home() {
    let (mut t, ann) = against_ai();
    play(&mut t, &ann, 0, "b2").expect("legal");
    let first = t.reconcile_ai().expect("the AI is to move");
    // Ann resigns while the AI thinks: the job is no longer needed.
    t.request(ann.clone(), None, Request::Resign)
        .expect("resign");
    assert!(t.reconcile_ai().is_none());
    assert_eq!(t.pending_ai(), None);
    let mv = first.position.legal_moves()[0];
    assert_eq!(
        t.ai_answered(first.job, Some(first.ai), Some(mv), None),
        AiAnswer::Stale
    );
    assert_eq!(t.snapshot().ply, 1, "the stale move was not played");

    // A rematch: the AI moves first in game 2 with a new job.
    t.request(ann, None, Request::Rematch).expect("rematch");
    let second = t.reconcile_ai().expect("the AI opens game 2");
    assert_ne!(second.job, first.job);
    assert_eq!(second.position.ply(), 0);
}

#[test]
fn an_illegal_ai_answer_is_replaced_by_a_legal_move() {
    let (mut t, ann) = against_ai();
    play(&mut t, &ann, 0, "b2").expect("legal");
    let job = t.reconcile_ai().expect("the AI is to move");
    let taken = Rules::tictactoe().parse_move("b2").expect("parses");
    assert_eq!(
        t.ai_answered(job.job, None, Some(taken), None),
        AiAnswer::Substituted(Some(taken))
    );
    assert_eq!(t.snapshot().ply, 2);
    // The player was lost with the failed search: the next job brings a new one.
    let next = t.snapshot().legal_moves[0].clone();
    play(&mut t, &ann, 2, &next).expect("legal");
    assert!(t.reconcile_ai().is_some());
}

#[test]
fn replacing_an_ai_seat_abandons_its_job() {
    let ann = person("ann", 1);
    let mut t = table(
        &ann,
        SeatRequest::Ai { level: Level::Easy },
        SeatRequest::Ai { level: Level::Easy },
    );
    let job = t.reconcile_ai().expect("X, an AI, opens");
    assert!(job.paced, "AI against AI is paced");
    let replace = Request::SetSeat {
        seat: Mark::X,
        ai: Some(Level::Medium),
    };
    assert_eq!(t.request(ann.clone(), None, replace), Ok(Outcome::Changed));
    assert_eq!(t.pending_ai(), None);
    let again = t.reconcile_ai().expect("the new AI opens");
    assert_ne!(again.job, job.job);
    assert_eq!(
        t.ai_answered(JobId(job.job.0), None, None, None),
        AiAnswer::Stale
    );
    assert_eq!(t.pending_ai(), Some(again.job));
}

#[test]
fn the_clock_starts_when_both_seats_are_filled_and_times_each_move() {
    let ann = person("ann", 1);
    let bob = person("bob", 2);
    let mut t = table(&ann, SeatRequest::Me, SeatRequest::Open);
    t.note_time(500);
    sit(&mut t, &bob, SeatChoice::O).expect("bob sits");
    t.note_time(1_000);
    for (ply, (who, mv, at)) in [
        (&ann, "b2", 3_100),
        (&bob, "a2", 6_500),
        (&ann, "a1", 8_300),
        (&bob, "c1", 10_800),
        (&ann, "c3", 13_000),
    ]
    .into_iter()
    .enumerate()
    {
        play(&mut t, who, ply as u32, mv).expect("legal");
        t.note_time(at);
    }
    assert!(t.game_over().is_some());
    let kept = t.finished_game(GameId(42), 13_000);
    let s = &kept.summary;
    assert_eq!((s.game, s.number, s.ply), (GameId(42), 1, 5));
    assert_eq!((s.started_at, s.ended_at), (1_000, 13_000));
    assert_eq!(s.room, Some(RoomId::from("room")));
    assert_eq!((s.x.name.as_str(), s.o.name.as_str()), ("ann", "bob"));
    assert_eq!((s.x.ai, s.o.ai), (None, None));
    assert!(matches!(
        s.result,
        GameStatus::Won {
            winner: Mark::X,
            ..
        }
    ));
    let times: Vec<u64> = kept.played().iter().map(|m| m.ms).collect();
    assert_eq!(times, [2_100, 3_400, 1_800, 2_500, 2_200]);
    let by: Vec<Mark> = kept.played().iter().map(|m| m.by).collect();
    assert_eq!(by, [Mark::X, Mark::O, Mark::X, Mark::O, Mark::X]);

    // The snapshot names the kept game once the room says where it is kept.
    assert_eq!(t.snapshot().last_game, None);
    t.set_last_game(GameId(42));
    assert_eq!(t.snapshot().last_game, Some(GameId(42)));

    // A rematch starts a new clock; the last game stays named until the next one ends.
    t.request(ann.clone(), None, Request::Rematch)
        .expect("ann asks");
    t.request(bob.clone(), None, Request::Rematch)
        .expect("bob asks");
    t.note_time(20_000);
    play(&mut t, &bob, 0, "a1").expect("bob is X now");
    t.note_time(19_000);
    t.request(ann.clone(), None, Request::Resign)
        .expect("ann resigns");
    t.note_time(25_000);
    assert!(t.game_over().is_some());
    let kept = t.finished_game(GameId(43), 25_000);
    assert_eq!(kept.summary.started_at, 20_000);
    assert_eq!(kept.summary.number, 2);
    assert_eq!(kept.summary.x.name, "bob");
    assert_eq!(
        kept.summary.result,
        GameStatus::Resigned { winner: Mark::X }
    );
    assert_eq!(kept.played().len(), 1);
    assert_eq!(
        kept.played()[0].ms,
        0,
        "a clock that went back counts no time"
    );
    assert_eq!(t.snapshot().last_game, Some(GameId(42)));
}

#[test]
fn an_ai_seat_is_recorded_by_level_and_a_private_room_without_its_id() {
    let ann = person("ann", 1);
    let spec = RoomSpec {
        name: "secret".into(),
        rules: Rules::tictactoe(),
        seats: SeatPlan {
            x: SeatRequest::Ai {
                level: Level::Perfect,
            },
            o: SeatRequest::Me,
        },
        private: true,
        hints: false,
        time_control: inarow_protocol::TimeControl::None,
        takebacks: true,
    };
    let mut t = Table::new(RoomId::from("code"), spec, ann.clone(), 500);
    t.note_time(7);
    t.request(ann, None, Request::Resign)
        .expect("ann resigns at once");
    t.note_time(9);
    let kept = t.finished_game(GameId(1), 9);
    assert_eq!(kept.summary.room, None);
    assert_eq!(kept.summary.started_at, 7);
    assert_eq!(kept.summary.x.name, "AI (perfect)");
    assert_eq!(kept.summary.x.ai, Some(Level::Perfect));
}

/// Saves `t` through its JSON record (as the store keeps it) and restores it.
fn restart(t: &Table) -> Table {
    let mut saved = t.save();
    let json = serde_json::to_string(&saved.table).expect("a record serialises");
    saved.table = serde_json::from_str(&json).expect("and reads back");
    Table::restore(saved, 500, 0).expect("a saved table restores")
}

#[test]
fn a_saved_game_restores_at_the_same_ply_with_seats_held() {
    let (mut t, ann, bob) = game();
    let cy = person("cy", 3);
    t.request(cy.clone(), None, Request::Join { seat: None })
        .expect("cy watches");
    play(&mut t, &ann, 0, "b2").expect("ann opens");
    t.next_moved();
    play(&mut t, &bob, 1, "a1").expect("bob answers");
    t.next_moved();
    let said = t
        .request(
            bob.clone(),
            None,
            Request::Chat {
                text: "hm".to_owned(),
            },
        )
        .expect("bob speaks");
    assert_eq!(t.last_chat().map(|c| c.text), Some("hm".to_owned()));
    let before = t.snapshot();

    let mut r = restart(&t);
    let after = r.snapshot();
    assert_eq!(after.seq, before.seq + persist::RESTORE_SEQ_GAP);
    assert_eq!(
        (&after.board, &after.moves, after.ply, &after.status),
        (&before.board, &before.moves, before.ply, &before.status)
    );
    assert_eq!(
        (after.game, &after.name, after.private),
        (1, &before.name, false)
    );
    assert!(after.spectators.is_empty(), "spectators do not come back");
    for mark in [Mark::X, Mark::O] {
        let occupant = &after.seats[seat_index(mark)].occupant;
        assert!(
            matches!(
                occupant,
                Occupant::Human {
                    connected: false,
                    ..
                }
            ),
            "{mark}: {occupant:?}"
        );
    }
    let Outcome::Chat(said) = said else {
        panic!("chat gave {said:?}")
    };
    let kept = r.save().chat;
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].seq, kept[0].text.as_str()), (said.seq, "hm"));
    assert!(r.anyone_in(), "held seats keep the room");
    assert_eq!(r.creator(), ann.session);

    // Players come back on new connections and the game goes on from ply 2.
    let ann2 = Arrival {
        attachment: Attachment(10),
        ..ann.clone()
    };
    assert_eq!(r.resume(ann2.clone()), Some(Outcome::Changed));
    assert_eq!(
        r.resume(cy),
        None,
        "a spectator has no place to come back to"
    );
    assert_eq!(
        code(play(&mut r, &ann2, 1, "c3")),
        Some(ErrorCode::StalePly)
    );
    play(&mut r, &ann2, 2, "c3").expect("ann plays on");
    assert_eq!(
        r.last_move().map(|m| (m.game, m.ply, m.mv)),
        Some((1, 2, "c3".to_owned()))
    );
    // Bob never returns: his seat empties like any held seat.
    assert!(r.expire(bob.session));
    assert_eq!(status(&r), GameStatus::Waiting);
}

#[test]
fn a_finished_game_and_rematch_flags_restore_without_reporting_the_end_again() {
    let (mut t, ann, bob) = game();
    for (ply, (who, mv)) in [
        (&ann, "a1"),
        (&bob, "b1"),
        (&ann, "a2"),
        (&bob, "b2"),
        (&ann, "a3"),
    ]
    .into_iter()
    .enumerate()
    {
        play(&mut t, who, u32::try_from(ply).expect("small"), mv).expect("a legal move");
    }
    assert!(t.game_over().is_some());
    t.request(bob.clone(), None, Request::Rematch)
        .expect("bob asks");
    let mut r = restart(&t);
    assert!(
        r.game_over().is_none(),
        "the end was reported before the restart"
    );
    assert!(!r.game_unfinished());
    let seats = r.snapshot().seats;
    assert!(seats[seat_index(Mark::O)].rematch);
    assert!(!seats[seat_index(Mark::X)].rematch);
    // Ann's yes starts game 2 with the colours swapped.
    r.resume(ann.clone());
    r.request(ann.clone(), None, Request::Rematch)
        .expect("ann agrees");
    assert_eq!(r.game(), 2);
    assert_eq!(r.snapshot().ply, 0);
}

#[test]
fn a_restored_ai_seat_thinks_again() {
    let (mut t, ann) = against_ai();
    play(&mut t, &ann, 0, "b2").expect("ann opens");
    let job = t.reconcile_ai().expect("the AI is to move");
    // The server stops while the AI thinks: the job is not saved.
    let mut r = restart(&t);
    assert!(r.pending_ai().is_none());
    let again = r.reconcile_ai().expect("the restored AI is to move");
    assert_eq!(again.position.ply(), 1);
    let mv = again.position.legal_moves()[0];
    assert_eq!(
        r.ai_answered(again.job, Some(again.ai), Some(mv), None),
        AiAnswer::Played
    );
    // The old server's job means nothing here.
    drop(job);
    assert_eq!(r.snapshot().ply, 2);
}

#[test]
fn corrupt_saved_rooms_are_refused_not_played() {
    let (mut t, ann, _bob) = game();
    play(&mut t, &ann, 0, "b2").expect("ann opens");
    let good = t.save();

    let mut taken = good.clone();
    taken.moves.push(SavedMove {
        ply: 1,
        ..taken.moves[0].clone()
    });
    assert!(matches!(
        Table::restore(taken, 500, 0).err(),
        Some(RestoreError::Move { ply: 1, .. })
    ));
    let mut gap = good.clone();
    gap.moves[0].ply = 3;
    assert!(Table::restore(gap, 500, 0).is_err());
    let mut other_game = good.clone();
    other_game.moves[0].game = 7;
    assert!(Table::restore(other_game, 500, 0).is_err());
    let mut rules = good.clone();
    rules.table.rules.k = 0;
    assert!(matches!(
        Table::restore(rules, 500, 0).err(),
        Some(RestoreError::Rules(_))
    ));
    let mut garbage = good;
    garbage.moves[0].mv = "é!".to_owned();
    assert!(Table::restore(garbage, 500, 0).is_err());
}

#[test]
fn a_game_spanning_a_restart_keeps_its_start_and_move_times() {
    let (mut t, ann, bob) = game();
    t.note_time(1_000);
    play(&mut t, &ann, 0, "b2").expect("ann opens");
    t.note_time(3_000);
    play(&mut t, &bob, 1, "a1").expect("bob answers");
    t.note_time(4_500);
    t.set_last_game(GameId(7));
    let saved = t.save();
    assert_eq!(saved.table.started_at, Some(1_000));
    let times: Vec<u64> = saved.moves.iter().map(|m| m.ms).collect();
    assert_eq!(times, [2_000, 1_500]);

    // The server is down from 4,500 to 60,000: nobody could move meanwhile.
    let mut r = Table::restore(saved, 500, 60_000).expect("it restores");
    assert_eq!(r.snapshot().last_game, Some(GameId(7)));
    r.resume(ann.clone());
    r.resume(bob.clone());
    for (ply, (who, mv, at)) in [
        (&ann, "b1", 61_000),
        (&bob, "c3", 62_000),
        (&ann, "b3", 63_000),
    ]
    .into_iter()
    .enumerate()
    {
        play(&mut r, who, ply as u32 + 2, mv).expect("legal");
        r.note_time(at);
    }
    assert!(r.game_over().is_some());
    let kept = r.finished_game(GameId(8), 63_000);
    assert_eq!(kept.summary.started_at, 1_000);
    let times: Vec<u64> = kept.played().iter().map(|m| m.ms).collect();
    assert_eq!(times, [2_000, 1_500, 1_000, 1_000, 1_000]);
}

#[test]
fn a_room_with_hints_keeps_them_across_a_restart() {
    let ann = person("ann", 1);
    let spec = RoomSpec {
        name: "hinted".into(),
        rules: Rules::tictactoe(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        },
        private: false,
        hints: true,
        time_control: inarow_protocol::TimeControl::None,
        takebacks: true,
    };
    let t = Table::new(RoomId::from("room"), spec, ann, 500);
    assert!(restart(&t).hints(), "hints survive the restart");
    // A record saved before rooms had hints reads as a room without them.
    let mut saved = t.save();
    let mut json: serde_json::Value = serde_json::to_value(&saved.table).expect("serialises");
    json.as_object_mut().expect("an object").remove("hints");
    saved.table = serde_json::from_value(json).expect("reads without the field");
    assert!(!Table::restore(saved, 500, 0).expect("restores").hints());
}

/// One step of [`the_written_snapshot_is_the_encoded_snapshot`]: who does what.
#[derive(Debug, Clone)]
enum Step {
    /// A legal move by whoever is to move, the `n`th legal move modulo their number.
    Move(usize),
    /// A request by member `who` (ann, bob or cy).
    Request(usize, Request),
    /// Member `who`'s connection drops.
    Drop(usize),
    /// Member `who` comes back.
    Resume(usize),
}

fn step() -> impl proptest::strategy::Strategy<Value = Step> {
    use proptest::prelude::*;
    let who = 0usize..3;
    let seat = prop_oneof![Just(Mark::X), Just(Mark::O)];
    prop_oneof![
        6 => any::<usize>().prop_map(Step::Move),
        1 => (who.clone(), prop_oneof![Just(None), Just(Some(SeatChoice::X)), Just(Some(SeatChoice::O))])
            .prop_map(|(w, seat)| Step::Request(w, Request::Join { seat })),
        1 => who.clone().prop_map(|w| Step::Request(w, Request::Leave)),
        1 => (who.clone(), seat, prop_oneof![Just(None), Just(Some(Level::Easy))])
            .prop_map(|(w, seat, ai)| Step::Request(w, Request::SetSeat { seat, ai })),
        1 => who.clone().prop_map(|w| Step::Request(w, Request::Resign)),
        2 => who.clone().prop_map(|w| Step::Request(w, Request::Rematch)),
        1 => who.clone().prop_map(Step::Drop),
        1 => who.prop_map(Step::Resume),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// The snapshot text the room sends, written straight from the table, is byte for
    /// byte the encoding of the table's snapshot as a value, through joins, moves, AI
    /// seats, resignations, rematches and dropped connections, on boards with and
    /// without gravity; so is each move's `moved` text the encoding of its event; and the
    /// table's own `over`/`turn` agree with the status shown.
    #[test]
    fn random_steps_keep_the_snapshot_consistent(
        rules in proptest::sample::select(vec![
            Rules::tictactoe(),
            Rules::connect4(),
            Rules::new(5, 4, 3, false).expect("valid rules"),
        ]),
        steps in proptest::collection::vec(step(), 1..60),
    ) {
        use inarow_protocol::{ServerMessage, decode_server, encode};
        let people = [person("ann", 1), person("bob \"2\"", 2), person("cy\\", 3)];
        let spec = RoomSpec {
            name: "a \"quoted\" room".into(),
            rules,
            seats: SeatPlan { x: SeatRequest::Me, o: SeatRequest::Open },
            private: false,
            hints: false,
            time_control: inarow_protocol::TimeControl::None,
            takebacks: true,
        };
        let mut t = Table::new(RoomId::from("room"), spec, people[0].clone(), 500);
        sit(&mut t, &people[1], SeatChoice::O).expect("bob sits");
        t.request(people[2].clone(), None, Request::Join { seat: None }).expect("cy watches");
        let mut attachment = 10;
        for step in steps {
            match step {
                Step::Move(n) => {
                    let snapshot = t.snapshot();
                    let mover = people.iter().find(|p| {
                        snapshot.seats.iter().any(|s| {
                            matches!(&s.occupant, Occupant::Human { session, .. } if *session == p.session)
                                && snapshot.status == GameStatus::Playing { turn: s.mark }
                        })
                    });
                    if let (Some(mover), false) = (mover, snapshot.legal_moves.is_empty()) {
                        let mv = snapshot.legal_moves[n % snapshot.legal_moves.len()].clone();
                        proptest::prop_assert_eq!(
                            play(&mut t, mover, snapshot.ply, &mv),
                            Ok(Outcome::Moved)
                        );
                        let seq = t.snapshot().seq;
                        let Some(ServerMessage::Moved(event)) = t.next_moved() else {
                            return Err(proptest::test_runner::TestCaseError::fail("no moved event"));
                        };
                        proptest::prop_assert_eq!(event.seq, seq + 1);
                        proptest::prop_assert_eq!(event.mv, mv);
                        proptest::prop_assert_eq!(t.snapshot().seq, seq + 1);
                    }
                }
                Step::Request(who, request) => {
                    let _ = t.request(people[who].clone(), None, request);
                }
                Step::Drop(who) => {
                    let person = &people[who];
                    if let Some(a) = t.attachment_of(person.session) {
                        t.detach(person.session, a);
                    }
                }
                Step::Resume(who) => {
                    attachment += 1;
                    let mut person = people[who].clone();
                    person.attachment = Attachment(attachment);
                    t.resume(person);
                }
            }
            t.reconcile_ai();
            // What members are sent reads back as the table's snapshot.
            let sent = decode_server(&encode(&t.room())).map(|frame| frame.message);
            let expected = ServerMessage::Room { room: Box::new(t.snapshot()) };
            proptest::prop_assert_eq!(sent.ok(), Some(expected));
            let status = status(&t);
            proptest::prop_assert_eq!(t.over(), status.is_over());
            let turn = match status {
                GameStatus::Playing { turn } => Some(turn),
                _ => None,
            };
            proptest::prop_assert_eq!(t.turn(), turn);
            t.next_room();
        }
    }
}

/// Ann (X) and Bob (O) at a tic-tac-toe table timed by `control`.
fn timed(control: inarow_protocol::TimeControl) -> (Table, Arrival, Arrival) {
    let ann = person("ann", 1);
    let bob = person("bob", 2);
    let spec = RoomSpec {
        name: "timed".into(),
        rules: Rules::tictactoe(),
        seats: SeatPlan {
            x: SeatRequest::Me,
            o: SeatRequest::Open,
        },
        private: false,
        hints: false,
        time_control: control,
        takebacks: false,
    };
    let mut t = Table::new(RoomId::from("timed"), spec, ann.clone(), 500);
    sit(&mut t, &bob, SeatChoice::O).expect("bob sits");
    (t, ann, bob)
}

/// Plays `mv` at `at` (the room's instant for the request) and syncs the clocks, as the
/// room does after a change.
fn play_at(t: &mut Table, who: &Arrival, at: std::time::Instant, ply: u32, mv: &str) {
    assert!(!t.tick(at), "no flag before the move");
    play(t, who, ply, mv).expect("legal");
    t.note_time(0);
}

#[test]
fn a_clock_that_runs_out_ends_the_game_on_time_and_the_move_after_is_refused() {
    let (mut t, ann, bob) = timed(inarow_protocol::TimeControl::Fischer {
        base_ms: 2_000,
        increment_ms: 500,
    });
    let t0 = std::time::Instant::now();
    let at = |ms| t0 + std::time::Duration::from_millis(ms);
    t.tick(t0);
    t.note_time(0);
    play_at(&mut t, &ann, at(10_000), 0, "b2");
    play_at(&mut t, &bob, at(20_000), 1, "a1");
    assert_eq!(t.clock_deadline(), Some(at(22_000)), "free first moves");
    play_at(&mut t, &ann, at(21_000), 2, "c3");
    let clock = t.snapshot().clock.expect("clocks");
    assert_eq!(
        (clock.x_ms, clock.o_ms),
        (1_500, 2_000),
        "charged 1 s, +0.5 s"
    );
    assert!(!t.tick(at(22_999)));
    assert!(t.tick(at(23_000)), "O's two seconds are up");
    assert_eq!(status(&t), GameStatus::Timeout { winner: Mark::X });
    assert_eq!(
        code(play(&mut t, &bob, 3, "a3")),
        Some(ErrorCode::GameNotInProgress)
    );
    assert!(t.game_over().is_some());
    let kept = t.finished_game(GameId(1), 0);
    assert_eq!(
        kept.played().iter().map(|m| m.clock_ms).collect::<Vec<_>>(),
        [Some(2_000), Some(2_000), Some(1_500)]
    );
}

#[test]
fn a_seat_given_up_aborts_before_the_reply_and_loses_on_time_later() {
    let (mut t, ann, bob) = game();
    play(&mut t, &ann, 0, "b2").expect("legal");
    t.request(bob.clone(), None, Request::Leave)
        .expect("leaves");
    assert_eq!(status(&t), GameStatus::Aborted);
    assert_eq!(t.game_over(), Some(StatusView::Aborted));

    // Untimed, after each side moved: the game waits for the seat, as ever.
    let (mut t, ann, bob) = game();
    play(&mut t, &ann, 0, "b2").expect("legal");
    play(&mut t, &bob, 1, "a1").expect("legal");
    t.request(bob.clone(), None, Request::Leave)
        .expect("leaves");
    assert_eq!(status(&t), GameStatus::Waiting);

    // Timed: the seat given up loses on time.
    let (mut t, ann, bob) = timed(inarow_protocol::TimeControl::PerMove { ms: 30_000 });
    play(&mut t, &ann, 0, "b2").expect("legal");
    play(&mut t, &bob, 1, "a1").expect("legal");
    // Handing one's seat to an AI is not giving it up: the game goes on.
    let to_ai = Request::SetSeat {
        seat: Mark::X,
        ai: Some(Level::Easy),
    };
    t.request(ann.clone(), None, to_ai)
        .expect("an AI takes over");
    assert_eq!(status(&t), GameStatus::Playing { turn: Mark::X });
    // Freeing the other side's AI does not win the game: it waits.
    let free = Request::SetSeat {
        seat: Mark::X,
        ai: None,
    };
    t.request(bob.clone(), None, free).expect("freed");
    assert_eq!(status(&t), GameStatus::Waiting);
    let (mut t, ann, bob) = timed(inarow_protocol::TimeControl::PerMove { ms: 30_000 });
    play(&mut t, &ann, 0, "b2").expect("legal");
    play(&mut t, &bob, 1, "a1").expect("legal");
    t.request(ann.clone(), None, Request::Leave)
        .expect("leaves");
    assert_eq!(status(&t), GameStatus::Timeout { winner: Mark::O });
}

#[test]
fn takebacks_go_back_to_before_the_askers_move_and_the_ai_grants_them() {
    let (mut t, ann, bob) = game();
    let ask = |accept| Request::Takeback { accept };
    play(&mut t, &ann, 0, "b2").expect("legal");
    play(&mut t, &bob, 1, "a1").expect("legal");
    t.request(ann.clone(), None, ask(None)).expect("asked");
    assert!(t.snapshot().offer.is_some());
    assert_eq!(
        code(t.request(ann.clone(), None, ask(Some(true)))),
        Some(ErrorCode::NoOffer)
    );
    t.request(bob.clone(), None, ask(Some(true)))
        .expect("granted");
    assert_eq!((t.snapshot().ply, t.snapshot().offer), (0, None));
    assert!(t.take_rewound());

    let ann = person("ann", 1);
    let mut t = table(
        &ann,
        SeatRequest::Me,
        SeatRequest::Ai {
            level: Level::Perfect,
        },
    );
    play(&mut t, &ann, 0, "b2").expect("legal");
    let job = t.reconcile_ai().expect("the AI is to move");
    // Asked while the AI thinks: only Ann's move goes, and the AI's job with it.
    t.request(ann.clone(), None, ask(None)).expect("granted");
    assert_eq!(t.snapshot().ply, 0);
    assert!(t.reconcile_ai().is_none(), "Ann is to move again");
    assert_eq!(
        t.ai_answered(
            job.job,
            Some(job.ai),
            Some(job.position.legal_moves()[0]),
            None
        ),
        AiAnswer::Stale
    );
}

#[test]
fn the_ai_accepts_a_draw_only_after_proving_its_move_a_draw_or_worse() {
    let ann = person("ann", 1);
    let mut t = table(
        &ann,
        SeatRequest::Me,
        SeatRequest::Ai {
            level: Level::Perfect,
        },
    );
    let offer = Request::Draw { accept: None };
    play(&mut t, &ann, 0, "b2").expect("legal");
    let job = t.reconcile_ai().expect("the AI is to move");
    let mv = job.position.legal_moves()[0];
    // Not proven: it declines, in a chat line.
    t.ai_answered(job.job, Some(job.ai), Some(mv), Some(false));
    assert!(matches!(
        t.request(ann.clone(), None, offer.clone()),
        Ok(Outcome::Chat(_))
    ));
    play(&mut t, &ann, 2, "c3").expect("legal");
    let job = t.reconcile_ai().expect("the AI is to move");
    let mv = job.position.legal_moves()[0];
    t.ai_answered(job.job, Some(job.ai), Some(mv), Some(true));
    assert_eq!(t.request(ann.clone(), None, offer), Ok(Outcome::Changed));
    assert_eq!(status(&t), GameStatus::Agreed);
}
