//! Render tests: the lobby and game screens drawn into a ratatui `TestBackend` buffer from
//! hand-built snapshots, compared line by line, with the styles of the cells that matter.

use inarow::app::App;
use inarow::cli::Startup;
use inarow::event::Event;
use inarow::net::NetEvent;
use inarow::ui;
use inarow_protocol::{
    GameStatus, Level, Mark, MoveAnalysis, MoveValue, Occupant, RoomId, RoomSnapshot, RoomSummary,
    Rules, SeatInfo, ServerFrame, ServerMessage, SessionId,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

const ME: SessionId = SessionId(uuid::Uuid::from_u128(1));

fn human(name: &str, session: u128, connected: bool) -> Occupant {
    Occupant::Human {
        name: name.to_owned(),
        session: SessionId(uuid::Uuid::from_u128(session)),
        connected,
    }
}

fn seats(x: Occupant, o: Occupant) -> Vec<SeatInfo> {
    vec![
        SeatInfo {
            mark: Mark::X,
            occupant: x,
            rematch: false,
        },
        SeatInfo {
            mark: Mark::O,
            occupant: o,
            rematch: false,
        },
    ]
}

fn room(rules: Rules, board: &[&str], moves: &[&str], status: GameStatus) -> RoomSnapshot {
    RoomSnapshot {
        id: RoomId::from("abcd2345"),
        name: "alice's room".to_owned(),
        rules,
        private: false,
        hints: false,
        seq: 1,
        game: 1,
        seats: seats(
            human("alice", 1, true),
            Occupant::Ai {
                level: Level::Perfect,
                engine: None,
                thinking: false,
            },
        ),
        board: board.iter().map(|s| (*s).to_owned()).collect(),
        moves: moves.iter().map(|s| (*s).to_owned()).collect(),
        ply: moves.len() as u32,
        legal_moves: Vec::new(),
        status,
        last_move: moves.last().map(|s| (*s).to_owned()),
        spectators: Vec::new(),
        last_game: None,
        chat: Vec::new(),
        time_control: None,
        takebacks: false,
        clock: None,
        offer: None,
    }
}

fn frame(message: ServerMessage) -> Event {
    Event::Net(NetEvent::Frame(ServerFrame::from(message)))
}

fn app_with(snapshot: Option<RoomSnapshot>) -> App {
    let mut app = App::new("alice".to_owned(), Startup::Lobby);
    app.update(frame(ServerMessage::Welcome {
        protocol: 1,
        session: ME,
        token: "t".into(),
        server: "inarow-server 0.1.0".into(),
        resumed: false,
    }));
    if let Some(s) = snapshot {
        app.update(frame(ServerMessage::Room { room: Box::new(s) }));
    }
    app
}

fn render(app: &App, w: u16, h: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    terminal
        .draw(|f| ui::draw(f, app))
        .expect("drawing into a test backend");
    terminal.backend().buffer().clone()
}

fn lines(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect()
}

fn summary(
    id: &str,
    name: &str,
    rules: Rules,
    x: Occupant,
    o: Occupant,
    status: GameStatus,
    spectators: u32,
) -> RoomSummary {
    RoomSummary {
        id: RoomId::from(id),
        name: name.to_owned(),
        rules,
        seats: seats(x, o),
        status,
        spectators,
        time_control: None,
    }
}

const TTT: Rules = Rules {
    width: 3,
    height: 3,
    k: 3,
    gravity: false,
};
const C4: Rules = Rules {
    width: 7,
    height: 6,
    k: 4,
    gravity: true,
};
const GOMOKU: Rules = Rules {
    width: 15,
    height: 15,
    k: 5,
    gravity: false,
};

fn assert_lines(buf: &Buffer, first: usize, expected: &[&str]) {
    let got = lines(buf);
    for (i, want) in expected.iter().enumerate() {
        assert_eq!(
            got[first + i],
            *want,
            "line {}\nscreen:\n{}",
            first + i,
            got.join("\n")
        );
    }
}

#[test]
fn lobby_lists_public_rooms() {
    let mut app = app_with(None);
    app.update(frame(ServerMessage::Rooms {
        rooms: vec![
            summary(
                "abcd2345",
                "alice's room",
                TTT,
                human("alice", 1, true),
                Occupant::Empty,
                GameStatus::Waiting,
                0,
            ),
            summary(
                "wxyz6789",
                "connect four night",
                C4,
                human("bob", 2, true),
                Occupant::Ai {
                    level: Level::Medium,
                    engine: None,
                    thinking: true,
                },
                GameStatus::Playing { turn: Mark::O },
                3,
            ),
        ],
    }));
    app.update(Event::Key(ratatui::crossterm::event::KeyEvent::from(
        ratatui::crossterm::event::KeyCode::Down,
    )));
    let buf = render(&app, 80, 24);
    assert_lines(
        &buf,
        0,
        &[
            " inarow lobby · alice on inarow-server 0.1.0                             online",
            "┌ Public rooms (refreshed every 3 s) ──────────────────────────────────────────┐",
            "│  room     name             rules     X          O          status     watch  │",
            "│  abcd2345 alice's room     tictactoe alice      -          waiting    0      │",
            "│▸ wxyz6789 connect four ni… connect4  bob        AI medium  O to move  3      │",
            "│                                                                              │",
        ],
    );
    assert_lines(
        &buf,
        22,
        &[
            "",
            "↑↓ select · Enter join · w watch · n new · i invite code · r reload · q quit",
        ],
    );
    // The selected row is highlighted.
    assert!(buf[(3, 4)].modifier.contains(Modifier::REVERSED));
    assert!(!buf[(3, 3)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn tictactoe_in_progress_fills_80x24() {
    let app = app_with(Some(room(
        TTT,
        &["..O", ".X.", "X.."],
        &["b2", "c3", "a1"],
        GameStatus::Playing { turn: Mark::O },
    )));
    let buf = render(&app, 80, 24);
    let expected = [
        " inarow · abcd2345 · tictactoe · game 1                                  online",
        "          ┌ Seats ─────────────────────────────────────────────────────────────┐",
        " 3 · · O  │X alice (you)                                                       │",
        " 2 · X ·  │O AI perfect                                                        │",
        " 1 X · ·  │watching: nobody                                                    │",
        "   a b c  └────────────────────────────────────────────────────────────────────┘",
        "          ┌ Moves (3) ─────────────────────────────────────────────────────────┐",
        "          │1.b2 c3 2.a1                                                        │",
        "          │                                                                    │",
        "          └────────────────────────────────────────────────────────────────────┘",
        "          ┌ Chat (c to talk) ──────────────────────────────────────────────────┐",
    ];
    assert_lines(&buf, 0, &expected);
    assert_lines(
        &buf,
        21,
        &[
            "O to move: waiting for the opponent",
            "",
            "hjkl · Enter play · :b2 · ? hints · c chat · u/d undo/draw · f resign · q leave",
        ],
    );
    // X and O in distinct colours; the last move (a1) marked.
    let (x_cell, o_cell, last) = (&buf[(5, 3)], &buf[(7, 2)], &buf[(3, 4)]);
    assert_eq!(x_cell.symbol(), "X");
    assert_eq!(o_cell.symbol(), "O");
    assert_eq!(
        x_cell.fg,
        ui::mark_style(Mark::X).fg.expect("X has a colour")
    );
    assert_eq!(
        o_cell.fg,
        ui::mark_style(Mark::O).fg.expect("O has a colour")
    );
    assert_ne!(x_cell.fg, o_cell.fg);
    assert_eq!(last.symbol(), "X");
    assert_eq!(last.bg, ui::LAST_MOVE_BG);
    assert_ne!(x_cell.bg, ui::LAST_MOVE_BG);
    // The cursor (b2) shows even on the opponent's turn, so the next move can be aimed;
    // it is the only highlighted cell.
    for y in 2..5 {
        for x in 3..8 {
            let cursor = (x, y) == (5, 3);
            assert_eq!(
                buf[(x, y)].modifier.contains(Modifier::REVERSED),
                cursor,
                "({x},{y})"
            );
        }
    }
}

#[test]
fn the_cursor_shows_on_our_turn_and_ai_thinking_is_announced() {
    let mut snap = room(
        TTT,
        &["...", "...", "..."],
        &[],
        GameStatus::Playing { turn: Mark::X },
    );
    let app = app_with(Some(snap.clone()));
    let buf = render(&app, 80, 24);
    // The cursor starts in the centre (b2).
    assert!(buf[(5, 3)].modifier.contains(Modifier::REVERSED));
    assert_eq!(lines(&buf)[21], "Your turn (X)");
    snap.status = GameStatus::Playing { turn: Mark::O };
    snap.seats[1].occupant = Occupant::Ai {
        level: Level::Perfect,
        engine: None,
        thinking: true,
    };
    snap.board = vec!["...".into(), ".X.".into(), "...".into()];
    let app = app_with(Some(snap));
    let buf = render(&app, 80, 24);
    assert_eq!(lines(&buf)[21], "O to move: AI is thinking…");
    assert!(lines(&buf)[3].contains("│O AI perfect thinking…"));
}

#[test]
fn a_won_game_highlights_the_line() {
    let mut snap = room(
        TTT,
        &["X.O", ".XO", "..X"],
        &["a3", "c3", "b2", "c2", "c1"],
        GameStatus::Won {
            winner: Mark::X,
            line: vec!["a3".into(), "b2".into(), "c1".into()],
        },
    );
    snap.seats[1].rematch = true;
    let app = app_with(Some(snap));
    let buf = render(&app, 80, 24);
    assert_lines(
        &buf,
        2,
        &[
            " 3 X · O  │X alice (you)                                                       │",
            " 2 · X O  │O AI perfect rematch✓                                               │",
            " 1 · · X  │watching: nobody                                                    │",
        ],
    );
    assert_eq!(lines(&buf)[21], "X wins (you won!). Press r for a rematch");
    let win = ui::winning_style();
    for (x, y) in [(3, 2), (5, 3), (7, 4)] {
        let cell = &buf[(x, y)];
        assert_eq!(cell.symbol(), "X");
        assert_eq!(
            cell.bg,
            win.bg.expect("the line has a background"),
            "({x},{y})"
        );
    }
    for (x, y) in [(7, 2), (7, 3)] {
        assert_ne!(buf[(x, y)].bg, win.bg.expect("bg"), "({x},{y})");
    }
    // No cursor once the game is over.
    assert!(!buf[(5, 3)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn a_drawn_game_says_so() {
    let app = app_with(Some(room(
        TTT,
        &["XOX", "XOO", "OXX"],
        &["a3", "b3", "c3", "b2", "a2", "c2", "b1", "a1", "c1"],
        GameStatus::Drawn,
    )));
    let buf = render(&app, 80, 24);
    assert_lines(
        &buf,
        2,
        &[" 3 X O X  │X alice (you)                                                       │"],
    );
    assert_eq!(lines(&buf)[21], "Draw. Press r for a rematch");
    assert!(lines(&buf)[7].starts_with("          │1.a3 b3 2.c3 b2 3.a2 c2 4.b1 a1 5.c1"));
}

#[test]
fn connect_four_marks_the_column_and_landing_cell() {
    let app = app_with(Some(room(
        C4,
        &[
            ".......", ".......", ".......", "...O...", "...X...", "..XXO..",
        ],
        &["d1", "e1", "d2", "d3", "c1", "b1"],
        GameStatus::Playing { turn: Mark::X },
    )));
    let buf = render(&app, 80, 24);
    assert_lines(
        &buf,
        0,
        &[
            " inarow · abcd2345 · connect4 · game 1                                   online",
            "                  ┌ Seats ─────────────────────────────────────────────────────┐",
            " 6 · · · · · · ·  │X alice (you)                                               │",
            " 5 · · · · · · ·  │O AI perfect                                                │",
            " 4 · · · · · · ·  │watching: nobody                                            │",
            " 3 · · · O · · ·  └────────────────────────────────────────────────────────────┘",
            " 2 · · · X · · ·  ┌ Moves (6) ─────────────────────────────────────────────────┐",
            " 1 · · X X O · ·  │1.d1 e1 2.d2 d3 3.c1 b1                                     │",
            "   a b c d e f g  │                                                            │",
        ],
    );
    // Cursor column d (centre): the letter and the cell a stone would land in (d4).
    assert!(
        buf[(9, 8)].modifier.contains(Modifier::REVERSED),
        "letter d"
    );
    assert!(
        buf[(9, 4)].modifier.contains(Modifier::REVERSED),
        "landing cell d4"
    );
    assert!(
        !buf[(9, 5)].modifier.contains(Modifier::REVERSED),
        "d3 holds a stone"
    );
}

#[test]
fn connect_four_says_a_digit_drops_a_stone() {
    let app = app_with(Some(room(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", "...X...",
        ],
        &["d1"],
        GameStatus::Playing { turn: Mark::X },
    )));
    let got = lines(&render(&app, 80, 24));
    assert_eq!(
        got[23],
        "←→ · 1-7 or Enter drop · ? hints · c chat · u/d undo/draw · f resign · q leave"
    );
}

#[test]
fn the_invite_link_is_whole_at_80x24() {
    let mut waiting = room(C4, &["......."; 6], &[], GameStatus::Waiting);
    waiting.seats[1].occupant = Occupant::Empty;
    let mut app = app_with(Some(waiting));
    // A LAN address, as a friend across the room would be given.
    app.session.web = Some("http://192.168.100.200:7878/".into());
    let buf = render(&app, 80, 24);
    let got = lines(&buf);
    assert_eq!(
        got[21],
        "Invite a player: http://192.168.100.200:7878/#/r/abcd2345 · or press a for an AI"
    );
    // A longer host name loses the words at the end, never the link.
    app.session.web = Some("https://inarow.games.example.org/".into());
    let got = lines(&render(&app, 80, 24));
    assert!(
        got[21].starts_with("Invite a player: https://inarow.games.example.org/#/r/abcd2345"),
        "{}",
        got[21]
    );
}

#[test]
fn a_dropping_stone_falls_through_the_column() {
    let before = room(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", ".......",
        ],
        &[],
        GameStatus::Playing { turn: Mark::X },
    );
    let mut app = app_with(Some(before));
    let after = room(
        C4,
        &[
            ".......", ".......", ".......", ".......", ".......", "...X...",
        ],
        &["d1"],
        GameStatus::Playing { turn: Mark::O },
    );
    app.update(frame(ServerMessage::Room {
        room: Box::new(after),
    }));
    // Frame 0: the stone is at the top, its landing cell still empty.
    let buf = render(&app, 80, 24);
    assert_eq!(buf[(9, 2)].symbol(), "X");
    assert_eq!(buf[(9, 7)].symbol(), "·");
    app.update(Event::Tick);
    app.update(Event::Tick);
    let buf = render(&app, 80, 24);
    assert_eq!(buf[(9, 2)].symbol(), "·");
    assert_eq!(buf[(9, 4)].symbol(), "X");
    for _ in 0..10 {
        app.update(Event::Tick);
    }
    let buf = render(&app, 80, 24);
    assert_eq!(buf[(9, 7)].symbol(), "X");
    assert_eq!(buf[(9, 7)].bg, ui::LAST_MOVE_BG);
    for y in 2..7 {
        assert_eq!(buf[(9, y)].symbol(), "·");
    }
}

#[test]
fn gomoku_fits_80x24() {
    let mut board = vec!["..............."; 15];
    board[7] = ".......X.......";
    board[6] = "......O........";
    let app = app_with(Some(room(
        GOMOKU,
        &board,
        &["h8", "g9"],
        GameStatus::Playing { turn: Mark::X },
    )));
    let buf = render(&app, 80, 24);
    assert_lines(
        &buf,
        1,
        &[
            "                                  ┌ Seats ─────────────────────────────────────┐",
            "15 · · · · · · · · · · · · · · ·  │X alice (you)                               │",
        ],
    );
    assert_lines(
        &buf,
        8,
        &[
            " 9 · · · · · · O · · · · · · · ·  │                                            │",
            " 8 · · · · · · · X · · · · · · ·  └────────────────────────────────────────────┘",
        ],
    );
    assert_lines(
        &buf,
        16,
        &[
            " 1 · · · · · · · · · · · · · · ·  │                                            │",
            "   a b c d e f g h i j k l m n o  │                                            │",
        ],
    );
    assert_eq!(lines(&buf)[21], "Your turn (X)");
    // The centre (h8) holds the cursor.
    assert!(buf[(17, 9)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn the_largest_board_fits_80x24() {
    let rules = Rules {
        width: 19,
        height: 19,
        k: 5,
        gravity: false,
    };
    let app = app_with(Some(room(
        rules,
        &vec!["..................."; 19],
        &[],
        GameStatus::Waiting,
    )));
    let got = lines(&render(&app, 80, 24));
    assert!(got[1].starts_with("19 · · ·"));
    assert!(got[19].starts_with(" 1 · · ·"));
    assert!(got[20].starts_with("   a b c d e f g h i j k l m n o p q r s"));
    assert!(got[21].starts_with("Waiting for a player: share the invite code abcd2345"));
}

#[test]
fn reconnecting_and_errors_show_without_losing_the_board() {
    let mut app = app_with(Some(room(
        TTT,
        &["...", ".X.", "..."],
        &["b2"],
        GameStatus::Playing { turn: Mark::O },
    )));
    app.update(Event::Net(NetEvent::Down {
        reason: "connection lost".into(),
        retry_in: std::time::Duration::from_millis(400),
    }));
    let got = lines(&render(&app, 80, 24));
    assert!(got[0].ends_with("reconnecting…"), "{}", got[0]);
    assert_eq!(got[22], "reconnecting… (connection lost; retrying in 0.4s)");
    assert_eq!(
        got[3],
        " 2 · X ·  │O AI perfect                                                        │"
    );
    app.update(frame(ServerMessage::Welcome {
        protocol: 1,
        session: ME,
        token: "t".into(),
        server: "s".into(),
        resumed: true,
    }));
    app.update(frame(ServerMessage::Error {
        code: inarow_protocol::ErrorCode::NotYourTurn,
        message: "it is O's turn".into(),
    }));
    let got = lines(&render(&app, 80, 24));
    assert!(got[0].ends_with("online"));
    assert_eq!(got[22], "not_your_turn: it is O's turn");
    assert_eq!(
        got[3],
        " 2 · X ·  │O AI perfect                                                        │"
    );
}

#[test]
fn chat_and_the_create_form_render() {
    let mut app = app_with(Some(room(
        TTT,
        &["...", "...", "..."],
        &[],
        GameStatus::Playing { turn: Mark::X },
    )));
    app.update(frame(ServerMessage::Chat {
        room: RoomId::from("abcd2345"),
        seq: 2,
        from: "bob".into(),
        seat: None,
        text: "good luck".into(),
    }));
    app.update(Event::Key(ratatui::crossterm::event::KeyEvent::from(
        ratatui::crossterm::event::KeyCode::Char('c'),
    )));
    for c in "hi".chars() {
        app.update(Event::Key(ratatui::crossterm::event::KeyEvent::from(
            ratatui::crossterm::event::KeyCode::Char(c),
        )));
    }
    let got = lines(&render(&app, 80, 24));
    assert!(
        got[11].starts_with("          │bob: good luck"),
        "{}",
        got[11]
    );
    assert!(got[12].starts_with("          │> hi_"), "{}", got[12]);
    assert_eq!(
        got[23],
        "type a message (/name NEW renames you) · Enter send · Esc cancel"
    );

    let mut app = app_with(None);
    app.update(Event::Key(ratatui::crossterm::event::KeyEvent::from(
        ratatui::crossterm::event::KeyCode::Char('n'),
    )));
    let got = lines(&render(&app, 80, 24));
    let form: Vec<&String> = got.iter().filter(|l| l.contains('‹')).collect();
    assert_eq!(form.len(), 10, "{}", got.join("\n"));
    assert!(form[0].contains("▸ rules    ‹ tictactoe ›"));
    assert!(form[5].contains("  X seat   ‹ me ›"));
    assert!(form[6].contains("  O seat   ‹ AI perfect ›"));
    assert!(form[8].contains("  hints    ‹ no ›"));
    assert!(form[9].contains("  clock    ‹ none ›"));
}

#[test]
fn tiny_terminals_do_not_panic() {
    let mut board = vec!["..............."; 15];
    board[7] = ".......X.......";
    let screens = [
        app_with(None),
        app_with(Some(room(
            GOMOKU,
            &board,
            &["h8"],
            GameStatus::Playing { turn: Mark::O },
        ))),
        app_with(Some(room(
            C4,
            &[
                ".......", ".......", ".......", ".......", ".......", "...X...",
            ],
            &["d1"],
            GameStatus::Playing { turn: Mark::O },
        ))),
    ];
    for app in &screens {
        for (w, h) in [(1, 1), (10, 3), (20, 8), (33, 12), (60, 17), (79, 23)] {
            let buf = render(app, w, h);
            assert_eq!(buf.area.width, w);
        }
    }
}

/// One valued move, as the server sends it.
fn valued(mv: &str, cell: &str, value: MoveValue) -> MoveAnalysis {
    MoveAnalysis {
        mv: mv.to_owned(),
        cell: cell.to_owned(),
        value,
        proven: !matches!(value, MoveValue::Estimate { .. }),
    }
}

#[test]
fn hints_show_on_the_board_and_in_a_pane_until_the_position_changes() {
    let mut snap = room(
        TTT,
        &["...", ".X.", "..."],
        &["b2"],
        GameStatus::Playing { turn: Mark::O },
    );
    snap.hints = true;
    let mut app = app_with(Some(snap.clone()));
    let mut moves: Vec<MoveAnalysis> = ["a1", "a3", "c1", "c3"]
        .iter()
        .map(|c| valued(c, c, MoveValue::Draw))
        .collect();
    moves.extend(
        ["a2", "b1", "b3", "c2"]
            .iter()
            .map(|c| valued(c, c, MoveValue::Loss { plies: 6 })),
    );
    app.update(frame(ServerMessage::Analysis {
        room: snap.id.clone(),
        game: 1,
        ply: 1,
        moves,
    }));
    let buf = render(&app, 80, 24);
    assert!(
        lines(&buf)[0].starts_with(" inarow · abcd2345 · tictactoe · game 1 · hints "),
        "the title says the room allows hints: {}",
        lines(&buf)[0]
    );
    assert_lines(
        &buf,
        2,
        &[
            " 3 = L =  │X alice (you)                                                       │",
            " 2 L X L  │O AI perfect                                                        │",
            " 1 = L =  │watching: nobody                                                    │",
            "   a b c  └────────────────────────────────────────────────────────────────────┘",
            "          ┌ Hints: W win · = draw · L loss · ± guess ──────────────────────────┐",
            "          │a1:= a3:= c1:= c3:= a2:L6 b1:L6 b3:L6 c2:L6                         │",
        ],
    );
    assert_ne!(buf[(3, 2)].fg, buf[(5, 2)].fg, "draws and losses differ");
    assert_eq!(
        buf[(11, 7)].fg,
        buf[(3, 2)].fg,
        "the pane colours as the board"
    );

    // The next move clears them: they were about the position before it.
    let mut next = room(
        TTT,
        &["...", ".X.", "O.."],
        &["b2", "a1"],
        GameStatus::Playing { turn: Mark::X },
    );
    next.seq = 2;
    app.update(frame(ServerMessage::Room {
        room: Box::new(next),
    }));
    let buf = render(&app, 80, 24);
    assert_lines(
        &buf,
        2,
        &[
            " 3 · · ·  │X alice (you)                                                       │",
            " 2 · X ·  │O AI perfect                                                        │",
            " 1 O · ·  │watching: nobody                                                    │",
        ],
    );
    assert_eq!(
        lines(&buf)[6],
        "          ┌ Moves (2) ─────────────────────────────────────────────────────────┐"
    );
}

#[test]
fn connect_four_hints_sit_where_the_stones_would_land_and_few_guesses_show() {
    let snap = room(
        C4,
        &[
            ".......", ".......", ".......", ".......", "...O...", "...X...",
        ],
        &["d", "d"],
        GameStatus::Playing { turn: Mark::X },
    );
    let mut app = app_with(Some(snap.clone()));
    let estimate = |score| MoveValue::Estimate { score };
    app.update(frame(ServerMessage::Analysis {
        room: snap.id.clone(),
        game: 1,
        ply: 2,
        moves: vec![
            valued("c", "c1", MoveValue::Win { plies: 9 }),
            valued("d", "d3", estimate(120)),
            valued("e", "e1", estimate(40)),
            valued("b", "b1", estimate(-3)),
            valued("f", "f1", estimate(-50)),
            valued("a", "a1", MoveValue::Loss { plies: 8 }),
            valued("g", "g1", MoveValue::Loss { plies: 8 }),
        ],
    }));
    let buf = render(&app, 80, 24);
    let got = lines(&buf);
    let board: Vec<String> = got[2..8]
        .iter()
        .map(|l| l.chars().take(16).collect())
        .collect();
    assert_eq!(
        board,
        [
            " 6 · · · · · · ·",
            " 5 · · · · · · ·",
            " 4 · · · · · · ·",
            " 3 · · · + · · ·",
            " 2 · · · O · · ·",
            " 1 L - W X + · L",
        ],
        "only the best three guesses are drawn: f's is not"
    );
    assert!(
        got.iter()
            .any(|l| l.contains("│c:W9 d:+120 e:+40 b:-3 f:-50 a:L8 g:L8 ")),
        "{}",
        got.join("\n")
    );
}

#[test]
fn a_timed_game_shows_both_clocks_counting_down_and_an_offer() {
    let mut snap = room(
        C4,
        &[
            ".......", ".......", ".......", ".......", "...O...", "..XXO..",
        ],
        &["d", "d", "c", "e"],
        GameStatus::Playing { turn: Mark::X },
    );
    snap.seats = seats(human("alice", 1, true), human("bob", 2, true));
    snap.time_control = Some(inarow_protocol::TimeControl::Fischer {
        base_ms: 180_000,
        increment_ms: 2_000,
    });
    snap.clock = Some(inarow_protocol::ClockState {
        x_ms: 9_900,
        o_ms: 181_500,
        running: Some(Mark::X),
    });
    snap.offer = Some(inarow_protocol::Offer {
        kind: inarow_protocol::OfferKind::Draw,
        by: Mark::O,
    });
    let mut app = app_with(Some(snap));
    let buf = render(&app, 80, 24);
    let screen = lines(&buf).join("\n");
    assert!(screen.contains("X    9.9 alice (you)"), "{screen}");
    assert!(
        screen.contains("1-7 or Enter drop · ? hints · c chat · u/d undo/draw · f resign"),
        "{screen}"
    );
    assert!(screen.contains("O   3:01 bob"), "{screen}");
    assert!(
        screen.contains("offer: draw asked by O (d accepts, n declines)"),
        "{screen}"
    );
    // Twenty ticks (one second) later X's clock has run down, and shows in red (low);
    // O's has not moved.
    for _ in 0..20 {
        app.update(Event::Tick);
    }
    let buf = render(&app, 80, 24);
    let screen = lines(&buf).join("\n");
    assert!(screen.contains("X    8.9 alice (you)"), "{screen}");
    assert!(screen.contains("O   3:01 bob"), "{screen}");
    let (row, line) = lines(&buf)
        .into_iter()
        .enumerate()
        .find(|(_, l)| l.contains("8.9 alice"))
        .expect("X's seat line");
    let col = line.chars().take_while(|c| *c != '8').count() as u16;
    let cell = &buf[(col, row as u16)];
    assert!(cell.modifier.contains(Modifier::REVERSED), "{cell:?}");
    assert_eq!(cell.fg, ratatui::style::Color::Red);
}
