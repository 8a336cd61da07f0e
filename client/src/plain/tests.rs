//! Tests of plain mode's state machine: lines and server events in, text and frames out.

use inarow_protocol::{
    ErrorCode, Mark, MoveValue, Rules, RulesSpec, SeatPlan, SeatRequest, ServerFrame,
};

use super::*;
use crate::board::tests::{C4, TTT, move_event, session, snapshot};
use crate::words::status_text;

fn welcomed(startup: Startup) -> (Plain, Step) {
    let mut plain = Plain::new(startup);
    let step = plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Welcome {
        protocol: 1,
        session: session(1),
        token: "t".into(),
        server: "s".into(),
        resumed: false,
    })));
    (plain, step)
}

fn reply(plain: &mut Plain, step: &Step, message: ServerMessage) -> Step {
    let id = step.send.last().and_then(|f| f.id.clone());
    plain.on_net(NetEvent::Frame(ServerFrame { message, id }))
}

#[test]
fn create_parses_seats_levels_and_rules() {
    assert_eq!(
        parse_create(&["tictactoe", "--ai", "O"]),
        Ok(ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("tictactoe".into()),
            seats: SeatPlan {
                x: SeatRequest::Me,
                o: SeatRequest::Ai {
                    level: Level::Perfect
                }
            },
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        })
    );
    assert_eq!(
        parse_create(&["8x7k4g", "--ai", "X", "--level", "easy", "--private"]),
        Ok(ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Custom(Rules {
                width: 8,
                height: 7,
                k: 4,
                gravity: true
            }),
            seats: SeatPlan {
                x: SeatRequest::Ai { level: Level::Easy },
                o: SeatRequest::Me
            },
            private: true,
            hints: false,
            time_control: None,
            takebacks: None,
        })
    );
    assert_eq!(
        parse_create(&["connect4", "--as", "O"]),
        Ok(ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("connect4".into()),
            seats: SeatPlan {
                x: SeatRequest::Open,
                o: SeatRequest::Me
            },
            private: false,
            hints: false,
            time_control: None,
            takebacks: None,
        })
    );
    assert!(parse_create(&[]).is_err());
    assert!(parse_create(&["chess"]).is_err());
    assert!(parse_create(&["tictactoe", "--ai"]).is_err());
    assert!(parse_create(&["tictactoe", "--ai", "X", "--as", "X"]).is_err());
    assert!(parse_create(&["tictactoe", "--bogus"]).is_err());
}

#[test]
fn a_room_update_prints_board_seats_and_status() {
    let mut snap = snapshot(
        TTT,
        &["...", ".O.", "X.."],
        GameStatus::Playing { turn: Mark::X },
    );
    snap.last_move = Some("b2".into());
    assert_eq!(
        snapshot_lines(&snap, Some(session(1))),
        vec![
            "room abcd2345 game 1 ply 2 tictactoe",
            " 3 . . .",
            " 2 . O .",
            " 1 X . .",
            "   a b c",
            "seats: X=alice (you) O=AI perfect",
            "last: b2",
            "status: turn X (your move)",
        ]
    );
    let won = snapshot(
        TTT,
        &["X..", ".X.", "..X"],
        GameStatus::Won {
            winner: Mark::X,
            line: vec!["a3".into(), "b2".into(), "c1".into()],
        },
    );
    assert_eq!(
        status_text(&won, board::my_seat(&won, Some(session(2)))),
        "status: won X line a3,b2,c1"
    );
}

#[test]
fn commands_become_messages_and_bad_ones_do_not() {
    let (mut plain, step) = welcomed(Startup::Lobby);
    assert_eq!(
        step.lines,
        vec![format!("connected session={} resumed=false", session(1))]
    );
    assert!(step.send.is_empty());
    let step = plain.on_line("play b2");
    assert!(step.send.is_empty());
    assert!(step.lines[0].starts_with("error: input: not in a room"));
    let step = plain.on_line("create tictactoe --ai O");
    assert_eq!(step.send.len(), 1);
    assert!(plain.awaiting_replies());
    let snap = snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    );
    let out = reply(
        &mut plain,
        &step,
        ServerMessage::Room {
            room: Box::new(snap),
        },
    );
    assert_eq!(out.lines[0], "created abcd2345 invite=abcd2345");
    assert!(!plain.awaiting_replies());
    let step = plain.on_line("play B2");
    assert_eq!(
        step.send
            .iter()
            .map(|f| f.message.clone())
            .collect::<Vec<_>>(),
        vec![ClientMessage::Play {
            room: RoomId::from("abcd2345"),
            ply: 0,
            mv: "b2".into()
        }]
    );
    for junk in ["play z9", "play", "play b2 c3", "dance", "join", "create"] {
        let step = plain.on_line(junk);
        assert!(step.send.is_empty(), "{junk}");
        assert!(step.lines[0].starts_with("error: input: "), "{junk}");
    }
    let step = plain.on_line("chat hello there");
    assert_eq!(
        step.send[0].message,
        ClientMessage::Chat {
            room: RoomId::from("abcd2345"),
            text: "hello there".into()
        }
    );
    let out = plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Error {
        code: ErrorCode::NotYourTurn,
        message: "wait".into(),
    })));
    assert_eq!(out.lines, vec!["error: not_your_turn: wait"]);
    let step = plain.on_line("quit");
    assert!(step.quit);
    assert_eq!(
        step.send
            .iter()
            .map(|f| f.message.clone())
            .collect::<Vec<_>>(),
        vec![ClientMessage::Leave {
            room: RoomId::from("abcd2345")
        }],
        "quitting leaves the room first"
    );
    assert!(plain.awaiting_replies(), "and waits for `left`");
}

#[test]
fn play_out_of_turn_waits_for_the_turn() {
    let (mut plain, _) = welcomed(Startup::Lobby);
    let step = plain.on_line("join abcd2345");
    let theirs = snapshot(
        TTT,
        &["...", ".X.", "..."],
        GameStatus::Playing { turn: Mark::O },
    );
    reply(
        &mut plain,
        &step,
        ServerMessage::Room {
            room: Box::new(theirs),
        },
    );
    let step = plain.on_line("play a1");
    assert!(step.send.is_empty());
    assert_eq!(step.lines, vec!["notice: waiting for your turn"]);
    assert!(plain.awaiting_replies());
    assert_eq!(plain.release_held(), None);
    let mut ours = snapshot(
        TTT,
        &["...", ".X.", "O.."],
        GameStatus::Playing { turn: Mark::X },
    );
    ours.ply = 2;
    plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Room {
        room: Box::new(ours),
    })));
    // a1 was taken meanwhile: the held move is refused locally, not sent.
    let released = plain.release_held().expect("released on our turn");
    assert!(released.send.is_empty());
    assert_eq!(released.lines, vec!["error: input: a1 is already taken"]);
    assert!(!plain.awaiting_replies());
}

#[test]
fn gravity_play_sends_the_column() {
    let (mut plain, _) = welcomed(Startup::Lobby);
    let step = plain.on_line("join abcd2345");
    let snap = snapshot(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", ".......",
        ],
        GameStatus::Playing { turn: Mark::X },
    );
    let out = reply(
        &mut plain,
        &step,
        ServerMessage::Room {
            room: Box::new(snap),
        },
    );
    assert_eq!(out.lines[0], "joined abcd2345 as X");
    let step = plain.on_line("play 4");
    assert!(matches!(&step.send[0].message, ClientMessage::Play { mv, .. } if mv == "d"));
}

#[test]
fn rooms_startup_lists_and_quits() {
    let (mut plain, step) = welcomed(Startup::Rooms);
    // Only the rooms go to stdout: no `connected` line.
    assert!(step.lines.is_empty(), "{:?}", step.lines);
    assert_eq!(step.send[0].message, ClientMessage::ListRooms {});
    let out = reply(&mut plain, &step, ServerMessage::Rooms { rooms: vec![] });
    assert_eq!(out.lines, vec!["rooms: 0"]);
    assert!(out.quit);
    assert!(!plain.awaiting_replies());
}

#[test]
fn a_refused_rooms_startup_fails_without_printing() {
    let (mut plain, step) = welcomed(Startup::Rooms);
    let out = reply(
        &mut plain,
        &step,
        ServerMessage::Error {
            code: ErrorCode::RateLimited,
            message: "slow down".into(),
        },
    );
    assert!(out.lines.is_empty(), "{:?}", out.lines);
    assert_eq!(out.fatal.as_deref(), Some("rate_limited: slow down"));
}

#[test]
fn full_room_falls_back_to_watching() {
    let (mut plain, _) = welcomed(Startup::Lobby);
    let step = plain.on_line("join abcd2345");
    let out = reply(
        &mut plain,
        &step,
        ServerMessage::Error {
            code: ErrorCode::RoomFull,
            message: "full".into(),
        },
    );
    assert_eq!(out.lines, vec!["notice: both seats are taken: watching"]);
    assert_eq!(
        out.send[0].message,
        ClientMessage::Join {
            room: RoomId::from("abcd2345"),
            seat: None
        }
    );
}

#[test]
fn a_move_is_printed_as_the_board_it_makes_and_a_gap_asks_for_the_room() {
    let (mut plain, _) = welcomed(Startup::Lobby);
    let step = plain.on_line("join abcd2345");
    let snap = snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    );
    let seq = snap.seq;
    reply(
        &mut plain,
        &step,
        ServerMessage::Room {
            room: Box::new(snap),
        },
    );
    let moved = |seq, ply, mv: &str, by, turn| {
        let event = move_event(seq, ply, mv, by, GameStatus::Playing { turn });
        NetEvent::Frame(ServerFrame::from(ServerMessage::Moved(event)))
    };
    let out = plain.on_net(moved(seq + 1, 1, "b2", Mark::X, Mark::O));
    assert!(out.lines.iter().any(|l| l == " 2 . X ."), "{out:?}");
    assert!(out.send.is_empty());
    // seq + 2 went missing: nothing printed, the room asked for.
    let out = plain.on_net(moved(seq + 3, 3, "c3", Mark::X, Mark::O));
    assert!(out.lines.is_empty(), "{out:?}");
    assert_eq!(
        out.send[0].message,
        ClientMessage::Sync {
            room: "abcd2345".into()
        }
    );
    let mut fresh = snapshot(
        TTT,
        &["..X", ".X.", "O.."],
        GameStatus::Playing { turn: Mark::O },
    );
    fresh.seq = seq + 3;
    let out = reply(
        &mut plain,
        &out,
        ServerMessage::Room {
            room: Box::new(fresh),
        },
    );
    assert!(out.lines.iter().any(|l| l == " 3 . . X"), "{out:?}");
    let step = plain.on_line("play a2");
    assert!(step.send.is_empty(), "O's turn now: the move waits");
}

#[test]
fn hint_asks_for_the_analysis_and_prints_one_move_a_line() {
    let (mut plain, _) = welcomed(Startup::Lobby);
    assert!(plain.on_line("hint").lines[0].starts_with("error: input: not in a room"));
    let step = plain.on_line("watch abcd2345");
    let snap = snapshot(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", ".......",
        ],
        GameStatus::Playing { turn: Mark::X },
    );
    reply(
        &mut plain,
        &step,
        ServerMessage::Room {
            room: Box::new(snap),
        },
    );
    let step = plain.on_line("hint");
    assert_eq!(
        step.send[0].message,
        ClientMessage::Analyze {
            room: RoomId::from("abcd2345")
        }
    );
    assert!(plain.awaiting_replies(), "the next command waits for it");
    let entry = |mv: &str, cell: &str, value, proven| inarow_protocol::MoveAnalysis {
        mv: mv.into(),
        cell: cell.into(),
        value,
        proven,
    };
    let out = reply(
        &mut plain,
        &step,
        ServerMessage::Analysis {
            room: RoomId::from("abcd2345"),
            game: 1,
            ply: 0,
            moves: vec![
                entry("d", "d1", MoveValue::Win { plies: 41 }, true),
                entry("c", "c1", MoveValue::Draw, true),
                entry("g", "g1", MoveValue::Estimate { score: -35 }, false),
                entry("a", "a1", MoveValue::Loss { plies: 12 }, true),
            ],
        },
    );
    assert_eq!(
        out.lines,
        vec![
            "analysis abcd2345 game 1 ply 0: 4 moves",
            "hint d: win in 41",
            "hint c: draw",
            "hint g: estimate -35",
            "hint a: loss in 12",
        ]
    );
    assert!(!plain.awaiting_replies());
    assert_eq!(
        parse_create(&["tictactoe", "--ai", "O", "--hints"])
            .map(|m| matches!(m, ClientMessage::CreateRoom { hints: true, .. })),
        Ok(true)
    );
}

#[test]
fn a_timed_room_prints_its_clocks_and_offers_and_takes_clock_takeback_and_draw() {
    assert_eq!(
        parse_create(&["connect4", "--clock", "3+2", "--takebacks", "on"]).map(|m| match m {
            ClientMessage::CreateRoom {
                time_control,
                takebacks,
                ..
            } => (time_control, takebacks),
            _ => (None, None),
        }),
        Ok((
            Some(inarow_protocol::TimeControlSpec::Preset("3+2".into())),
            Some(true)
        ))
    );
    assert_eq!(
        text::parse_time_control("0.5+1"),
        Ok(inarow_protocol::TimeControlSpec::Custom(
            inarow_protocol::TimeControl::Fischer {
                base_ms: 30_000,
                increment_ms: 1_000
            }
        ))
    );
    assert!(text::parse_time_control("soon").is_err());
    let (mut plain, _) = welcomed(Startup::Lobby);
    assert!(plain.on_line("clock").lines[0].starts_with("error: input: not in a room"));
    let step = plain.on_line("join abcd2345");
    let mut snap = snapshot(
        TTT,
        &["...", ".X.", "O.."],
        GameStatus::Playing { turn: Mark::X },
    );
    snap.time_control = Some(inarow_protocol::TimeControl::Fischer {
        base_ms: 180_000,
        increment_ms: 2_000,
    });
    snap.clock = Some(inarow_protocol::ClockState {
        x_ms: 178_200,
        o_ms: 9_500,
        running: Some(Mark::X),
    });
    snap.offer = Some(inarow_protocol::Offer {
        kind: inarow_protocol::OfferKind::Takeback,
        by: Mark::O,
    });
    let out = reply(
        &mut plain,
        &step,
        ServerMessage::Room {
            room: Box::new(snap),
        },
    );
    assert!(
        out.lines
            .contains(&"clock: X 2:58 * O 9.5 (3+2)".to_owned()),
        "{:?}",
        out.lines
    );
    assert!(
        out.lines.contains(
            &"offer: takeback asked by O (takeback yes to accept, takeback no to decline)"
                .to_owned()
        ),
        "{:?}",
        out.lines
    );
    let clock = plain.on_line("clock");
    assert!(
        clock.lines[0].starts_with("clock: X 2:5"),
        "{:?}",
        clock.lines
    );
    let room = RoomId::from("abcd2345");
    let sent = |step: Step| step.send.into_iter().map(|f| f.message).collect::<Vec<_>>();
    assert_eq!(
        sent(plain.on_line("takeback yes")),
        vec![ClientMessage::Takeback {
            room: room.clone(),
            accept: Some(true)
        }]
    );
    plain.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Error {
        code: ErrorCode::NoOffer,
        message: "m".into(),
    })));
    assert_eq!(
        sent(plain.on_line("draw")),
        vec![ClientMessage::Draw { room, accept: None }]
    );
    assert!(plain.on_line("draw maybe").lines[0].contains("usage: draw [yes|no]"));
}
