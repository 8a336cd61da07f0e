//! Tests of the TUI's state machine: keys, mouse, ticks and server events in, commands out.

use std::time::Duration;

use inarow_protocol::{ErrorCode, GameStatus, RulesSpec, SeatPlan, SeatRequest, ServerFrame};

use super::*;
use crate::board::tests::{C4, TTT, session, snapshot};
use crate::net::NetEvent;
use crate::session::Link;

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(k: KeyCode) -> Event {
    Event::Key(KeyEvent::new(k, KeyModifiers::NONE))
}

fn frame(message: ServerMessage) -> Event {
    Event::Net(NetEvent::Frame(ServerFrame { message, id: None }))
}

fn welcomed() -> App {
    let mut app = App::new("alice".into(), Startup::Lobby);
    app.update(frame(ServerMessage::Welcome {
        protocol: 1,
        session: session(1),
        token: "t".into(),
        server: "inarow-server test".into(),
        resumed: false,
    }));
    app
}

fn in_game(snap: RoomSnapshot) -> App {
    let mut app = welcomed();
    app.update(frame(ServerMessage::Room {
        room: Box::new(snap),
    }));
    assert_eq!(app.screen, Screen::Game);
    app
}

fn sent(commands: &[Command]) -> Vec<ClientMessage> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::Send(f) => Some(f.message.clone()),
            Command::Quit => None,
        })
        .collect()
}

fn play(ply: u32, mv: &str) -> ClientMessage {
    ClientMessage::Play {
        room: RoomId::from("abcd2345"),
        ply,
        mv: mv.into(),
    }
}

#[test]
fn arrows_and_enter_play_the_cursor_cell() {
    let mut app = in_game(snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    ));
    assert_eq!(app.cursor, (1, 1));
    assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(0, "b2")]);
    app.update(code(KeyCode::Left));
    app.update(code(KeyCode::Up));
    assert_eq!(sent(&app.update(key(' '))), vec![play(0, "a3")]);
    // hjkl, and the cursor stops at the edge.
    for _ in 0..5 {
        app.update(key('l'));
        app.update(key('j'));
    }
    assert_eq!(app.cursor, (2, 2));
    assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(0, "c1")]);
}

#[test]
fn typed_coordinates_play_after_a_colon() {
    let mut app = in_game(snapshot(
        TTT,
        &["...", ".O.", "X.."],
        GameStatus::Playing { turn: Mark::X },
    ));
    app.update(key(':'));
    app.update(key('c'));
    app.update(key('3'));
    assert_eq!(app.input, Input::Move("c3".into()));
    assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(2, "c3")]);
    assert_eq!(app.input, Input::Keys);
}

#[test]
fn illegal_input_sends_nothing_and_says_why() {
    let mut app = in_game(snapshot(
        TTT,
        &["...", ".O.", "X.."],
        GameStatus::Playing { turn: Mark::X },
    ));
    // Occupied cell under the cursor (b2).
    assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
    assert_eq!(app.message.as_deref(), Some("b2 is already taken"));
    for text in ["a1", "d4", "zz", "b"] {
        app.update(key(':'));
        for c in text.chars() {
            app.update(key(c));
        }
        assert!(sent(&app.update(code(KeyCode::Enter))).is_empty(), "{text}");
        assert!(app.message.is_some(), "{text}");
    }
    // Not our turn.
    let mut app = in_game(snapshot(
        TTT,
        &["...", "...", "X.."],
        GameStatus::Playing { turn: Mark::O },
    ));
    assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
    assert_eq!(app.message.as_deref(), Some("it is not your turn"));
}

#[test]
fn gravity_plays_the_cursor_column() {
    let mut app = in_game(snapshot(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", "...X...",
        ],
        GameStatus::Playing { turn: Mark::X },
    ));
    // The column is what counts, wherever the cursor's row is.
    app.update(key('k'));
    assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(1, "d")]);
    app.update(key('l'));
    app.update(key('l'));
    assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(1, "f")]);
    app.update(key(':'));
    app.update(key('2'));
    assert_eq!(sent(&app.update(code(KeyCode::Enter))), vec![play(1, "b")]);
}

#[test]
fn a_bare_digit_drops_into_its_column_with_gravity() {
    let mut app = in_game(snapshot(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", "...X...",
        ],
        GameStatus::Playing { turn: Mark::X },
    ));
    assert_eq!(sent(&app.update(key('2'))), vec![play(1, "b")]);
    assert_eq!(app.cursor.0, 1, "the cursor follows the column");
    assert_eq!(sent(&app.update(key('7'))), vec![play(1, "g")]);
    // No eighth column, and 0 names none.
    assert!(sent(&app.update(key('8'))).is_empty());
    assert!(sent(&app.update(key('0'))).is_empty());
    // Without gravity a digit is no move (a cell needs its letter).
    let mut app = in_game(snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    ));
    assert!(sent(&app.update(key('2'))).is_empty());
}

#[test]
fn q_in_ones_own_game_asks_before_leaving() {
    let room = RoomId::from("abcd2345");
    let mut app = in_game(snapshot(
        TTT,
        &["...", ".X.", "..."],
        GameStatus::Playing { turn: Mark::O },
    ));
    assert!(sent(&app.update(key('q'))).is_empty());
    assert_eq!(
        app.message.as_deref(),
        Some("press q again to leave: your seat stays empty until someone takes it")
    );
    // Another key disarms it.
    app.update(key('h'));
    assert!(sent(&app.update(code(KeyCode::Esc))).is_empty());
    assert_eq!(
        sent(&app.update(key('q'))),
        vec![ClientMessage::Leave { room: room.clone() }]
    );
    assert_eq!(app.message, None, "the question goes once answered");
    // Watching, or once the game is over, q leaves at once.
    let mut snap = snapshot(
        TTT,
        &["...", ".X.", "..."],
        GameStatus::Playing { turn: Mark::O },
    );
    snap.seats[0].occupant = Occupant::Ai {
        level: Level::Easy,
        engine: None,
        thinking: false,
    };
    let mut app = in_game(snap);
    assert_eq!(
        sent(&app.update(key('q'))),
        vec![ClientMessage::Leave { room: room.clone() }]
    );
    let mut app = in_game(snapshot(TTT, &["...", ".X.", "..."], GameStatus::Drawn));
    assert_eq!(
        sent(&app.update(key('q'))),
        vec![ClientMessage::Leave { room }]
    );
}

#[test]
fn a_new_gravity_stone_drops_with_ticks() {
    let before = snapshot(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", ".......",
        ],
        GameStatus::Playing { turn: Mark::X },
    );
    let mut app = in_game(before.clone());
    let mut after = snapshot(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", "..X....",
        ],
        GameStatus::Playing { turn: Mark::O },
    );
    after.last_move = Some("c1".into());
    app.update(frame(ServerMessage::Room {
        room: Box::new(after),
    }));
    assert_eq!(
        app.drop,
        Some(Drop {
            col: 2,
            target: 5,
            row: 0,
            mark: Mark::X
        })
    );
    for _ in 0..5 {
        app.update(Event::Tick);
    }
    assert_eq!(app.drop.map(|d| d.row), Some(5));
    app.update(Event::Tick);
    assert_eq!(app.drop, None);
}

#[test]
fn mouse_click_plays_the_clicked_cell() {
    let mut app = in_game(snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    ));
    let rules = app.room.as_ref().expect("in a room").rules;
    let layout = crate::layout::game_layout(app.size, &rules);
    let (x, y) = crate::layout::cell_origin(&layout, &rules, 2, 0);
    let click = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    };
    assert_eq!(sent(&app.update(Event::Mouse(click))), vec![play(0, "c3")]);
}

#[test]
fn chat_rematch_and_leave_are_keys() {
    let mut app = in_game(snapshot(TTT, &["...", "...", "..."], GameStatus::Drawn));
    app.update(key('c'));
    for ch in "gg".chars() {
        app.update(key(ch));
    }
    let room = RoomId::from("abcd2345");
    assert_eq!(
        sent(&app.update(code(KeyCode::Enter))),
        vec![ClientMessage::Chat {
            room: room.clone(),
            text: "gg".into()
        }]
    );
    assert_eq!(
        sent(&app.update(key('r'))),
        vec![ClientMessage::Rematch { room: room.clone() }]
    );
    assert!(sent(&app.update(key('f'))).is_empty());
    assert_eq!(app.message.as_deref(), Some("press f again to resign"));
    assert_eq!(
        sent(&app.update(key('f'))),
        vec![ClientMessage::Resign { room: room.clone() }]
    );
    app.update(key('f'));
    app.update(key('h'));
    assert!(
        sent(&app.update(key('f'))).is_empty(),
        "another key disarms"
    );
    assert_eq!(
        sent(&app.update(key('q'))),
        vec![ClientMessage::Leave { room: room.clone() }]
    );
    app.update(frame(ServerMessage::Left { room }));
    assert_eq!(app.screen, Screen::Lobby);
    assert!(app.room.is_none());
}

#[test]
fn join_falls_back_to_watching_when_full() {
    let mut app = App::new("bob".into(), Startup::Join(RoomId::from("abcd2345")));
    let commands = app.update(frame(ServerMessage::Welcome {
        protocol: 1,
        session: session(2),
        token: "t".into(),
        server: "s".into(),
        resumed: false,
    }));
    let join = commands
        .iter()
        .find_map(|c| match c {
            Command::Send(f) if matches!(f.message, ClientMessage::Join { .. }) => Some(f.clone()),
            _ => None,
        })
        .expect("join sent");
    let commands = app.update(Event::Net(NetEvent::Frame(ServerFrame {
        message: ServerMessage::Error {
            code: ErrorCode::RoomFull,
            message: "full".into(),
        },
        id: join.id,
    })));
    assert_eq!(
        sent(&commands),
        vec![ClientMessage::Join {
            room: RoomId::from("abcd2345"),
            seat: None
        }]
    );
}

#[test]
fn nothing_is_sent_while_reconnecting_and_errors_keep_the_board() {
    let snap = snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    );
    let mut app = in_game(snap.clone());
    app.update(Event::Net(NetEvent::Down {
        reason: "connection lost".into(),
        retry_in: Duration::from_millis(200),
    }));
    assert!(matches!(app.session.link, Link::Reconnecting { .. }));
    assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
    assert!(app.message.is_some());
    app.update(frame(ServerMessage::Welcome {
        protocol: 1,
        session: session(1),
        token: "t".into(),
        server: "s".into(),
        resumed: true,
    }));
    assert_eq!(app.session.link, Link::Online);
    app.update(frame(ServerMessage::Error {
        code: ErrorCode::StalePly,
        message: "stale".into(),
    }));
    assert_eq!(app.message.as_deref(), Some("stale_ply: stale"));
    assert_eq!(app.room.as_ref(), Some(&snap));
}

#[test]
fn fatal_events_quit_with_a_message() {
    let mut app = App::new("a".into(), Startup::Lobby);
    let commands = app.update(Event::Net(NetEvent::Fatal("unsupported".into())));
    assert_eq!(commands, vec![Command::Quit]);
    assert_eq!(app.exit_message.as_deref(), Some("unsupported"));
}

#[test]
fn lobby_keys_join_watch_and_use_invite_codes() {
    let mut app = welcomed();
    let summary = |id: &str| RoomSummary {
        id: RoomId::from(id),
        name: "r".into(),
        rules: TTT,
        seats: Vec::new(),
        status: GameStatus::Waiting,
        spectators: 0,
        time_control: None,
    };
    app.update(frame(ServerMessage::Rooms {
        rooms: vec![summary("aaaa2222"), summary("bbbb3333")],
    }));
    app.update(code(KeyCode::Down));
    app.update(code(KeyCode::Down));
    assert_eq!(app.selected, 1);
    assert_eq!(
        sent(&app.update(code(KeyCode::Enter))),
        vec![ClientMessage::Join {
            room: RoomId::from("bbbb3333"),
            seat: Some(SeatChoice::Any)
        }]
    );
    app.update(key('k'));
    assert_eq!(
        sent(&app.update(key('w'))),
        vec![ClientMessage::Join {
            room: RoomId::from("aaaa2222"),
            seat: None
        }]
    );
    app.update(key('i'));
    for c in "zzzz9999".chars() {
        app.update(key(c));
    }
    assert_eq!(
        sent(&app.update(code(KeyCode::Enter))),
        vec![ClientMessage::Join {
            room: RoomId::from("zzzz9999"),
            seat: Some(SeatChoice::Any)
        }]
    );
    // The lobby refreshes itself every few seconds.
    let refreshes = (0..REFRESH_TICKS)
        .flat_map(|_| sent(&app.update(Event::Tick)))
        .filter(|m| *m == ClientMessage::ListRooms {})
        .count();
    assert_eq!(refreshes, 1);
    assert_eq!(app.update(key('q')), vec![Command::Quit]);
}

#[test]
fn quitting_leaves_the_room_first() {
    let snap = snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    );
    let room = snap.id.clone();
    let mut app = in_game(snap);
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    let commands = app.update(ctrl_c);
    assert_eq!(sent(&commands), vec![ClientMessage::Leave { room }]);
    assert_eq!(commands.last(), Some(&Command::Quit));
    // From the lobby with no room there is nothing to leave.
    let mut app = welcomed();
    assert_eq!(app.update(key('q')), vec![Command::Quit]);
}

#[test]
fn an_empty_seat_can_be_given_to_an_ai() {
    let mut snap = snapshot(TTT, &["...", "...", "..."], GameStatus::Waiting);
    snap.seats[1].occupant = Occupant::Empty;
    let mut app = in_game(snap);
    assert!(app.status_line().starts_with("Waiting for a player"));
    assert_eq!(
        sent(&app.update(key('a'))),
        vec![ClientMessage::SetSeat {
            room: RoomId::from("abcd2345"),
            seat: Mark::O,
            ai: Some(Level::Perfect)
        }]
    );
    // A move before the game starts is refused locally.
    assert!(sent(&app.update(code(KeyCode::Enter))).is_empty());
    assert_eq!(app.message.as_deref(), Some("the game has not started yet"));
}

#[test]
fn a_spectator_is_not_offered_the_seats() {
    // Someone else plays X: we only watch, so the empty seat is not ours to give an AI.
    let mut snap = snapshot(TTT, &["...", "...", "..."], GameStatus::Waiting);
    snap.seats[1].occupant = Occupant::Empty;
    snap.seats[0].occupant = Occupant::Human {
        name: "ann".into(),
        session: session(77),
        connected: true,
    };
    let mut app = in_game(snap);
    assert!(sent(&app.update(key('a'))).is_empty());
    assert_eq!(
        app.message.as_deref(),
        Some("only the room's players may change seats")
    );
}

#[test]
fn entering_a_room_shows_its_recent_chat() {
    let mut snap = snapshot(TTT, &["...", "...", "..."], GameStatus::Waiting);
    snap.chat = vec![inarow_protocol::ChatEntry {
        seq: 2,
        from: "bob".into(),
        seat: None,
        text: "hello".into(),
    }];
    let app = in_game(snap);
    assert_eq!(
        app.chat,
        vec![ChatLine {
            from: "bob".into(),
            seat: None,
            text: "hello".into(),
        }]
    );
}

#[test]
fn slash_name_in_the_chat_line_renames() {
    let snap = snapshot(TTT, &["...", "...", "..."], GameStatus::Waiting);
    let mut app = in_game(snap);
    app.update(key('c'));
    for c in "/name Al B".chars() {
        app.update(key(c));
    }
    assert_eq!(
        sent(&app.update(code(KeyCode::Enter))),
        vec![ClientMessage::Rename {
            name: "Al B".into()
        }]
    );
    app.update(frame(ServerMessage::Renamed {
        name: "Al B".into(),
    }));
    assert_eq!(app.name, "Al B");
    assert_eq!(app.message.as_deref(), Some("you are now Al B"));
}

#[test]
fn the_create_form_builds_create_room() {
    let mut app = welcomed();
    app.update(key('n'));
    app.update(code(KeyCode::Right)); // connect4
    for _ in 0..6 {
        app.update(code(KeyCode::Down)); // to O seat
    }
    app.update(code(KeyCode::Left)); // AI perfect -> AI medium
    app.update(code(KeyCode::Down));
    app.update(code(KeyCode::Right)); // private
    let commands = app.update(code(KeyCode::Enter));
    assert_eq!(
        sent(&commands),
        vec![ClientMessage::CreateRoom {
            name: None,
            rules: RulesSpec::Preset("connect4".into()),
            seats: SeatPlan {
                x: SeatRequest::Me,
                o: SeatRequest::Ai {
                    level: Level::Medium
                }
            },
            private: true,
            hints: false,
            time_control: None,
            takebacks: None,
        }]
    );
}

#[test]
fn a_waiting_room_shows_its_browser_link_when_the_web_address_is_known() {
    let mut snap = snapshot(TTT, &["...", "...", "..."], GameStatus::Waiting);
    snap.seats[1].occupant = Occupant::Empty;
    let mut app = in_game(snap);
    assert!(!app.status_line().contains("http"));
    app.session.web = Some("http://192.168.1.20:7878/".into());
    assert_eq!(
        app.status_line(),
        "Invite a player: http://192.168.1.20:7878/#/r/abcd2345 · or press a for an AI"
    );
}

#[test]
fn question_mark_asks_for_hints_once_and_a_new_position_clears_them() {
    let snap = snapshot(
        TTT,
        &["...", "...", "..."],
        GameStatus::Playing { turn: Mark::X },
    );
    let mut app = in_game(snap.clone());
    let commands = app.update(key('?'));
    assert_eq!(
        sent(&commands),
        vec![ClientMessage::Analyze {
            room: RoomId::from("abcd2345")
        }]
    );
    assert!(
        sent(&app.update(key('?'))).is_empty(),
        "one question at a time"
    );
    let Some(Command::Send(asked)) = commands.first() else {
        panic!("a frame")
    };
    let moves = snap
        .legal_moves
        .iter()
        .map(|mv| inarow_protocol::MoveAnalysis {
            mv: mv.clone(),
            cell: mv.clone(),
            value: inarow_protocol::MoveValue::Draw,
            proven: true,
        })
        .collect();
    app.update(Event::Net(NetEvent::Frame(ServerFrame {
        message: ServerMessage::Analysis {
            room: snap.id.clone(),
            game: snap.game,
            ply: snap.ply,
            moves,
        },
        id: asked.id.clone(),
    })));
    assert_eq!(
        app.current_hints().map(|h| h.moves.len()),
        Some(snap.legal_moves.len())
    );
    // Answered: `?` asks again.
    assert_eq!(sent(&app.update(key('?'))).len(), 1);
    let mut next = snap.clone();
    next.seq += 1;
    next.ply += 1;
    next.board[2] = "X..".into();
    app.update(frame(ServerMessage::Room {
        room: Box::new(next),
    }));
    assert!(app.current_hints().is_none(), "hints of an older position");
    assert!(app.hints.is_none());
}
