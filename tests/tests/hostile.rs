//! Hostile input, as a table: every kind of bad input a third-party client sent the server
//! (malformed frames and JSON, wrong types, out-of-range numbers, hostile text, out-of-turn
//! and stale moves, floods, slow readers, silent sockets, half-open handshakes, token
//! misuse, WebSocket protocol violations). Each row asserts the exact reply the document
//! gives and that the connection is still usable where the document says so (or how it is
//! closed where it says that); meanwhile a game in another room goes on and finishes.
//!
//! Rows of [`message_rows`] send one text frame from a connection in a given [`Stage`];
//! [`CLOSING_ROWS`] and [`SPECIAL_ROWS`] are the kinds that need more than one frame, a raw
//! socket or a server of their own (short timeouts, small queues).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use inarow_e2e::{
    Client, Config, RawEnd, RawFrame, RawSocket, TestServer, assert_won, fast_config, raw::opcode,
    take_turns,
};
use inarow_protocol::{
    ByeReason, ClientMessage, ErrorCode, GameStatus, Mark, PROTOCOL_VERSION, RequestId, RoomId,
    SeatChoice,
};

/// Where the row's connection stands when it sends its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// WebSocket open, no `hello` yet.
    Connected,
    /// After `hello`, in no room.
    Lobby,
    /// Seated as X in its own room, O empty (the game waits).
    Waiting,
    /// X in its own room, the game started: X to move at ply 0.
    PlayingX,
    /// O in that room: X to move.
    PlayingO,
    /// Watching a room whose game is on.
    Watching,
}

/// The id an answer must echo.
#[derive(Debug, Clone, Copy)]
enum Echo {
    None,
    Number(u64),
    Text(&'static str),
}

impl Echo {
    fn id(self) -> Option<RequestId> {
        match self {
            Echo::None => None,
            Echo::Number(n) => Some(RequestId::Number(n)),
            Echo::Text(t) => Some(RequestId::Text(t.to_owned())),
        }
    }
}

/// One row: from `stage`, send `text` (with `{room}` the row's own room, `{game}` the
/// room of the game next door); expect `error` `code` echoing `echo` whose message
/// contains `says`, then a successful request on the same connection.
struct Row {
    kind: &'static str,
    stage: Stage,
    text: String,
    code: ErrorCode,
    echo: Echo,
    says: &'static str,
}

fn row(
    kind: &'static str,
    stage: Stage,
    text: impl Into<String>,
    code: ErrorCode,
    echo: Echo,
    says: &'static str,
) -> Row {
    Row {
        kind,
        stage,
        text: text.into(),
        code,
        echo,
        says,
    }
}

fn bad(kind: &'static str, text: impl Into<String>, echo: Echo) -> Row {
    row(kind, Stage::Lobby, text, ErrorCode::BadRequest, echo, "")
}

fn rules(kind: &'static str, rules: &str, says: &'static str) -> Row {
    let text = format!(r#"{{"type":"create_room","id":"r","rules":{rules}}}"#);
    row(
        kind,
        Stage::Lobby,
        text,
        ErrorCode::InvalidRules,
        Echo::Text("r"),
        says,
    )
}

fn seats(kind: &'static str, seats: &str, says: &'static str) -> Row {
    let text = format!(r#"{{"type":"create_room","id":"s","rules":"tictactoe","seats":{seats}}}"#);
    row(
        kind,
        Stage::Lobby,
        text,
        ErrorCode::BadRequest,
        Echo::Text("s"),
        says,
    )
}

fn name(kind: &'static str, name: &str, says: &'static str) -> Row {
    let text =
        serde_json::json!({"type": "hello", "id": "n", "protocol": 1, "name": name}).to_string();
    row(
        kind,
        Stage::Connected,
        text,
        ErrorCode::InvalidName,
        Echo::Text("n"),
        says,
    )
}

fn chat(kind: &'static str, text: &str, says: &'static str) -> Row {
    let text =
        serde_json::json!({"type": "chat", "id": "c", "room": "{room}", "text": text}).to_string();
    row(
        kind,
        Stage::Waiting,
        text,
        ErrorCode::InvalidChat,
        Echo::Text("c"),
        says,
    )
}

fn play(kind: &'static str, stage: Stage, ply: &str, mv: &str, code: ErrorCode) -> Row {
    let text = format!(r#"{{"type":"play","id":"p","room":"{{room}}","ply":{ply},"move":{mv}}}"#);
    row(kind, stage, text, code, Echo::Text("p"), "")
}

/// The rows that send one message and get one `error`, one row a line.
#[rustfmt::skip]
fn message_rows() -> Vec<Row> {
    use ErrorCode::*;
    use Stage::*;
    let long_id = "i".repeat(65);
    vec![
        // Malformed JSON and frames.
        bad("not JSON", "this is not json", Echo::None),
        bad("empty text frame", "", Echo::None),
        bad("truncated object", r#"{"type":"list_rooms","#, Echo::None),
        bad("trailing garbage", r#"{"type":"list_rooms"}}"#, Echo::None),
        bad("a JSON array", "[1,2,3]", Echo::None),
        bad("a JSON number", "42", Echo::None),
        bad("a JSON string", r#""list_rooms""#, Echo::None),
        bad("JSON null", "null", Echo::None),
        bad("nesting beyond the parser's depth", "[".repeat(5000), Echo::None),
        bad("a lone surrogate escape", r#"{"type":"list_rooms","x":"\ud800"}"#, Echo::None),
        bad("a number beyond f64", r#"{"type":"list_rooms","x":1e400}"#, Echo::None),
        bad("no type", r#"{"id":"t1"}"#, Echo::Text("t1")),
        bad("type null", r#"{"type":null,"id":2}"#, Echo::Number(2)),
        bad("type a number", r#"{"type":7,"id":8}"#, Echo::Number(8)),
        bad("unknown type", r#"{"type":"dance","id":"u1"}"#, Echo::Text("u1")),
        bad("type in the wrong case", r#"{"type":"LIST_ROOMS","id":3}"#, Echo::Number(3)),
        bad("duplicate type keys (the last wins)", r#"{"type":"list_rooms","type":"join","id":4}"#, Echo::Number(4)),
        // Ids.
        bad("negative id", r#"{"type":"list_rooms","id":-1}"#, Echo::None),
        bad("fractional id", r#"{"type":"list_rooms","id":1.5}"#, Echo::None),
        bad("id 2^64", r#"{"type":"list_rooms","id":18446744073709551616}"#, Echo::None),
        bad("boolean id", r#"{"type":"list_rooms","id":true}"#, Echo::None),
        bad("list id", r#"{"type":"list_rooms","id":[1]}"#, Echo::None),
        bad("object id", r#"{"type":"list_rooms","id":{"a":1}}"#, Echo::None),
        bad("65-character id", format!(r#"{{"type":"list_rooms","id":"{long_id}"}}"#), Echo::None),
        // Missing and mistyped fields.
        bad("join without room", r#"{"type":"join","id":5}"#, Echo::Number(5)),
        bad("room id a number", r#"{"type":"join","id":5,"room":5}"#, Echo::Number(5)),
        bad("unknown seat", r#"{"type":"join","id":5,"room":"abc","seat":"Z"}"#, Echo::Number(5)),
        bad("ply a string", r#"{"type":"play","id":6,"room":"abc","ply":"zero","move":"a1"}"#, Echo::Number(6)),
        bad("ply negative", r#"{"type":"play","id":6,"room":"abc","ply":-1,"move":"a1"}"#, Echo::Number(6)),
        bad("ply fractional", r#"{"type":"play","id":6,"room":"abc","ply":0.5,"move":"a1"}"#, Echo::Number(6)),
        bad("ply beyond u32", r#"{"type":"play","id":6,"room":"abc","ply":4294967296,"move":"a1"}"#, Echo::Number(6)),
        bad("play without move", r#"{"type":"play","id":6,"room":"abc","ply":0}"#, Echo::Number(6)),
        bad("move a number", r#"{"type":"play","id":6,"room":"abc","ply":0,"move":11}"#, Echo::Number(6)),
        bad("chat text null", r#"{"type":"chat","id":7,"room":"abc","text":null}"#, Echo::Number(7)),
        bad("set_seat to an unknown seat", r#"{"type":"set_seat","id":7,"room":"abc","seat":"Q"}"#, Echo::Number(7)),
        bad("set_seat an unknown level", r#"{"type":"set_seat","id":7,"room":"abc","seat":"O","ai":"god"}"#, Echo::Number(7)),
        bad("private not a boolean", r#"{"type":"create_room","id":7,"rules":"tictactoe","private":"yes"}"#, Echo::Number(7)),
        row("hints not a boolean", Stage::Lobby, r#"{"type":"create_room","id":7,"rules":"tictactoe","hints":1}"#, BadRequest, Echo::Number(7), "hints must be true or false"),
        row("analyze a room that is a number", Stage::Lobby, r#"{"type":"analyze","id":8,"room":5}"#, BadRequest, Echo::Number(8), "room must be"),
        bad("analyze without a room", r#"{"type":"analyze","id":8}"#, Echo::Number(8)),
        bad("a second hello", r#"{"type":"hello","id":9,"protocol":1,"name":"again"}"#, Echo::Number(9)),
        row("a request before hello", Connected, r#"{"type":"list_rooms","id":41}"#, BadRequest, Echo::Number(41), "hello"),
        row("hello with protocol a string", Connected, r#"{"type":"hello","id":1,"protocol":"1","name":"x"}"#, BadRequest, Echo::Number(1), ""),
        row("hello with token a number", Connected, r#"{"type":"hello","id":1,"protocol":1,"name":"x","token":5}"#, BadRequest, Echo::Number(1), ""),
        row("hello with name a number", Connected, r#"{"type":"hello","id":1,"protocol":1,"name":5}"#, BadRequest, Echo::Number(1), ""),
        // Rules: every unreadable or out-of-range value names the field and the range.
        row("rules missing", Lobby, r#"{"type":"create_room","id":"r"}"#, InvalidRules, Echo::Text("r"), "rules is missing"),
        rules("rules null", "null", "rules must be a preset name"),
        rules("rules a number", "7", "rules must be a preset name"),
        rules("rules a list", "[3,3,3]", "rules must be a preset name"),
        rules("rules an empty object", "{}", "rules.width is missing: a whole number from 1 to 19"),
        rules("width a string", r#"{"width":"3","height":3,"k":3}"#, "rules.width must be a whole number from 1 to 19, not the string \"3\""),
        rules("width a float", r#"{"width":3.5,"height":3,"k":3}"#, "rules.width must be a whole number from 1 to 19, not the number 3.5"),
        rules("height negative", r#"{"width":3,"height":-3,"k":3}"#, "rules.height must be a whole number from 1 to 19, not the number -3"),
        rules("k missing", r#"{"width":3,"height":3}"#, "rules.k is missing: a whole number from 1 to max(width, height)"),
        rules("k in exponent notation", r#"{"width":3,"height":3,"k":1e1}"#, "rules.k must be a whole number from 1 to max(width, height)"),
        rules("width beyond u32", r#"{"width":4294967296,"height":3,"k":3}"#, "rules.width must be a whole number from 1 to 19"),
        rules("gravity a number", r#"{"width":7,"height":6,"k":4,"gravity":1}"#, "rules.gravity must be true or false"),
        rules("unknown preset", r#""chess""#, "tictactoe"),
        rules("width zero", r#"{"width":0,"height":3,"k":3}"#, "width"),
        rules("width 20", r#"{"width":20,"height":3,"k":3}"#, "width"),
        rules("width u32::MAX", r#"{"width":4294967295,"height":3,"k":3}"#, "width"),
        rules("k larger than the board", r#"{"width":3,"height":3,"k":4}"#, "k"),
        rules("k zero", r#"{"width":3,"height":3,"k":0}"#, "k"),
        // Seats: named field, allowed values.
        seats("seats a string", r#""me""#, "seats must be an object"),
        seats("seats without O", r#"{"X":{"kind":"me"}}"#, "seats.O is missing"),
        seats("a seat a string", r#"{"X":"me","O":{"kind":"open"}}"#, "seats.X must be"),
        seats("a seat without kind", r#"{"X":{},"O":{"kind":"open"}}"#, "seats.X.kind is missing"),
        seats("an unknown seat kind", r#"{"X":{"kind":"robot"},"O":{"kind":"open"}}"#, "seats.X.kind must be \"me\", \"open\", \"ai\" or \"engine\""),
        seats("an engine without a name", r#"{"X":{"kind":"me"},"O":{"kind":"engine"}}"#, "seats.O.name is missing"),
        seats("an engine name with a space", r#"{"X":{"kind":"me"},"O":{"kind":"engine","name":"a b"}}"#, "seats.O.name must be"),
        seats("an unknown AI level", r#"{"X":{"kind":"me"},"O":{"kind":"ai","level":"god"}}"#, "seats.O.level must be"),
        seats("both seats for yourself", r#"{"X":{"kind":"me"},"O":{"kind":"me"}}"#, "one seat"),
        // Hostile names (the connection then says hello properly).
        name("empty name", "", "empty"),
        name("blank name", " \u{3000} ", "empty"),
        name("25 characters", &"n".repeat(25), "at most 24"),
        name("25 characters as e + combining accent", &"e\u{301}".repeat(25), "at most 24"),
        name("right-to-left override", "ann\u{202E}gpj", "U+202E"),
        name("zero-width space", "a\u{200B}b", "U+200B"),
        name("bidi isolate", "a\u{2067}b\u{2069}", "U+2067"),
        name("byte order mark", "\u{FEFF}ann", "U+FEFF"),
        name("private-use character", "ann\u{E000}", "U+E000"),
        name("Hangul filler as a blank name", "\u{3164}", "U+3164"),
        name("newline in a name", "a\nb", "U+000A"),
        name("terminal escape in a name", "a\u{1b}[31m", "U+001B"),
        name("a lone joiner", "\u{200D}", "joiner"),
        row("room name with an override", Lobby, r#"{"type":"create_room","id":"rn","rules":"tictactoe","name":"x\u202ey"}"#, InvalidName, Echo::Text("rn"), "room name"),
        // Hostile chat.
        chat("empty chat", "", "empty"),
        chat("blank chat", " \u{A0} ", "empty"),
        chat("501 characters", &"x".repeat(501), "at most 500"),
        chat("terminal escape in chat", "\u{1b}[2J", "control"),
        chat("bidi override in chat", "gg \u{202E}lol", "U+202E"),
        chat("stacked combining marks", &format!("a{}", "\u{301}".repeat(40)), "stacked"),
        chat("tag characters in chat", "hi\u{E0041}\u{E0042}", "U+E0041"),
        // Rooms one is not in, or that do not exist.
        row("join an unknown room", Lobby, r#"{"type":"join","id":1,"room":"zzzzzzzz"}"#, UnknownRoom, Echo::Number(1), ""),
        row("a 2000-character room id", Lobby, format!(r#"{{"type":"join","id":1,"room":"{}"}}"#, "z".repeat(2000)), UnknownRoom, Echo::Number(1), ""),
        row("chat in a room not joined", Lobby, r#"{"type":"chat","id":1,"room":"{game}","text":"hi"}"#, NotInRoom, Echo::Number(1), ""),
        row("play in a room not joined", Lobby, r#"{"type":"play","id":1,"room":"{game}","ply":0,"move":"a1"}"#, NotInRoom, Echo::Number(1), ""),
        row("resign in a room not joined", Lobby, r#"{"type":"resign","id":1,"room":"{game}"}"#, NotInRoom, Echo::Number(1), ""),
        row("set_seat in a room not joined", Lobby, r#"{"type":"set_seat","id":1,"room":"{game}","seat":"X","ai":"easy"}"#, NotInRoom, Echo::Number(1), ""),
        // Moves: out of turn, stale, illegal, by a spectator, before the game.
        play("a move on the other seat's turn", PlayingO, "0", r#""a1""#, NotYourTurn),
        play("a move for a future ply", PlayingX, "3", r#""a1""#, StalePly),
        play("a move for another ply on the other's turn", PlayingO, "5", r#""a1""#, StalePly),
        play("a move off the board", PlayingX, "0", r#""z9""#, IllegalMove),
        play("an empty move", PlayingX, "0", r#""""#, IllegalMove),
        play("a move of two cells", PlayingX, "0", r#""a1a1""#, IllegalMove),
        play("a column move without gravity", PlayingX, "0", r#""b""#, IllegalMove),
        play("a 1000-character move", PlayingX, "0", &format!("\"{}\"", "a".repeat(1000)), IllegalMove),
        play("a move by a spectator", Watching, "0", r#""a1""#, NotAPlayer),
        play("a move while the game waits", Waiting, "0", r#""a1""#, GameNotInProgress),
        row("a rematch while the game is on", PlayingX, r#"{"type":"rematch","id":"m","room":"{room}"}"#, GameInProgress, Echo::Text("m"), ""),
        row("a seat taken by the other player", Watching, r#"{"type":"join","id":"j","room":"{room}","seat":"X"}"#, SeatTaken, Echo::Text("j"), ""),
        row("any seat when both are taken", Watching, r#"{"type":"join","id":"j","room":"{room}","seat":"any"}"#, RoomFull, Echo::Text("j"), ""),
        row("an AI over another's seat", PlayingX, r#"{"type":"set_seat","id":"j","room":"{room}","seat":"O","ai":"easy"}"#, SeatTaken, Echo::Text("j"), ""),
        row("a spectator's seat change", Watching, r#"{"type":"set_seat","id":"j","room":"{room}","seat":"O","ai":null}"#, NotAPlayer, Echo::Text("j"), "only the room's players"),
        row("the other seat of a room one plays", PlayingX, r#"{"type":"join","id":"j","room":"{room}","seat":"O"}"#, SeatTaken, Echo::Text("j"), ""),
    ]
}

/// A client in `stage`; returns it and the room it is in (if any), with a partner that
/// must stay alive as long as the row runs.
async fn staged(
    server: &TestServer,
    stage: Stage,
    label: &str,
) -> (Client, Option<RoomId>, Vec<Client>) {
    if stage == Stage::Connected {
        return (server.connect(label).await, None, Vec::new());
    }
    // Labels name the row in failure messages; names are short.
    let mut me = server.connect(label).await;
    me.hello("row").await;
    match stage {
        Stage::Connected | Stage::Lobby => (me, None, Vec::new()),
        Stage::Waiting => {
            let room = me.open_room().await;
            (me, Some(room), Vec::new())
        }
        Stage::PlayingX | Stage::PlayingO | Stage::Watching => {
            let room = me.open_room().await;
            let mut partner = server.connect(&format!("{label} partner")).await;
            partner.hello("partner").await;
            partner.join(&room, Some(SeatChoice::O)).await;
            me.reach_room(&room, |s| s.status == GameStatus::Playing { turn: Mark::X })
                .await;
            match stage {
                Stage::PlayingX => (me, Some(room), vec![partner]),
                Stage::PlayingO => (partner, Some(room), vec![me]),
                _ => {
                    let mut watcher = server.connect(&format!("{label} watcher")).await;
                    watcher.hello("watcher").await;
                    watcher.join(&room, None).await;
                    (watcher, Some(room), vec![me, partner])
                }
            }
        }
    }
}

async fn run_row(server: &TestServer, game: RoomId, row: Row) {
    let label = row.kind;
    let (mut client, room, _others) = staged(server, row.stage, label).await;
    let mut text = row.text.replace("{game}", &game.0);
    if let Some(room) = &room {
        text = text.replace("{room}", &room.0);
    }
    client.send_raw(text).await;
    let reply = client.expect_error(row.code).await;
    assert_eq!(reply.id, row.echo.id(), "{label}: id echo: {reply:?}");
    assert!(
        reply.message.contains(row.says),
        "{label}: the message {:?} should say {:?}",
        reply.message,
        row.says
    );
    // The connection is still usable.
    if row.stage == Stage::Connected {
        client.hello("after").await;
    }
    client.list_rooms().await;
    if let Some(room) = room
        && matches!(row.stage, Stage::PlayingX | Stage::PlayingO)
    {
        // And nothing changed in the room.
        let again = client.join(&room, Some(SeatChoice::Any)).await;
        assert_eq!(again.ply, 0, "{label}: the refused move changed the game");
    }
}

/// A row's run, borrowing the shared server for as long as it runs.
type RowRun<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
/// A row that runs on the shared server.
type Special = fn(&TestServer) -> RowRun<'_>;
/// A row that starts a server of its own.
type Standalone = fn() -> RowRun<'static>;

/// Rows on the shared server that close the connection, use a raw socket or need several
/// frames.
const CLOSING_ROWS: &[(&str, Special)] = &[
    ("unsupported protocol version", |s| {
        Box::pin(unsupported_protocol(s))
    }),
    ("binary frame", |s| Box::pin(binary_frame(s))),
    ("a flood of messages without reading", |s| {
        Box::pin(flood(s))
    }),
    ("an oversize frame", |s| Box::pin(oversize(s))),
    ("an oversize message in small fragments", |s| {
        Box::pin(oversize_fragments(s))
    }),
    ("a play sent twice", |s| Box::pin(resent_play(s))),
    ("a play after resigning", |s| Box::pin(play_after_resign(s))),
    ("the per-session room cap", |s| {
        Box::pin(session_room_cap(s))
    }),
    ("an unknown token", |s| Box::pin(unknown_token(s))),
    ("a 10 kB token", |s| Box::pin(huge_token(s))),
    (
        "a token with the right selector and a wrong verifier",
        |s| Box::pin(forged_token(s)),
    ),
    ("a stolen token used twice", |s| Box::pin(stolen_token(s))),
    ("invalid UTF-8 in a text frame", |s| {
        Box::pin(violation(s, invalid_utf8(), 1007))
    }),
    ("an unmasked client frame", |s| {
        Box::pin(violation(s, unmasked(), 1002))
    }),
    ("RSV1 set without an extension", |s| {
        Box::pin(violation(s, rsv1(), 1002))
    }),
    ("a reserved data opcode", |s| {
        Box::pin(violation(s, reserved(0x3), 1002))
    }),
    ("a reserved control opcode", |s| {
        Box::pin(violation(s, reserved(0xB), 1002))
    }),
    ("a 126-byte ping", |s| {
        Box::pin(violation(s, big_ping(), 1002))
    }),
    ("a fragmented ping", |s| {
        Box::pin(violation(s, fragmented_ping(), 1002))
    }),
    ("a continuation with nothing to continue", |s| {
        Box::pin(violation(s, stray_continuation(), 1002))
    }),
    ("a new message inside a fragmented one", |s| {
        Box::pin(interleaved(s))
    }),
];

/// Rows that need a server of their own (short timeouts, small limits).
const SPECIAL_ROWS: &[(&str, Standalone)] = &[
    ("a silent TCP socket", || Box::pin(silent_socket())),
    ("a half-open HTTP handshake", || {
        Box::pin(half_open_handshake())
    }),
    ("a WebSocket that never says hello", || Box::pin(no_hello())),
    ("a peer that never answers pings", || Box::pin(no_pongs())),
    ("a slow reader", || Box::pin(slow_reader())),
    ("too many connections from one address", || {
        Box::pin(address_cap())
    }),
    ("too many sessions from one address", || {
        Box::pin(session_cap())
    }),
];

async fn unsupported_protocol(server: &TestServer) {
    let mut c = server.connect("future").await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION + 1,
        name: "future".into(),
        token: None,
    };
    c.expect_refused(hello, ErrorCode::UnsupportedProtocol)
        .await;
    let closed = c.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::UnsupportedProtocol), Some(1002))
    );
}

async fn binary_frame(server: &TestServer) {
    let mut c = server.lobby("binary").await;
    c.send_binary(vec![0xff, 0x00, 0x7b]).await;
    let reply = c.expect_error(ErrorCode::BadRequest).await;
    assert!(reply.message.contains("binary"), "{reply:?}");
    c.list_rooms().await;
}

async fn flood(server: &TestServer) {
    let mut c = server.lobby("flood").await;
    for _ in 0..2_000 {
        if c.try_send_raw(r#"{"type":"list_rooms","id":1}"#)
            .await
            .is_err()
        {
            break;
        }
    }
    let closed = c.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::RateLimited), Some(1008)),
        "{closed:?}"
    );
}

async fn oversize(server: &TestServer) {
    let mut c = server.lobby("oversize").await;
    let _ = c
        .try_send_raw(format!(
            r#"{{"type":"list_rooms","pad":"{}"}}"#,
            "p".repeat(20_000)
        ))
        .await;
    let closed = c.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::TooLarge), Some(1009)),
        "{closed:?}"
    );
}

async fn oversize_fragments(server: &TestServer) {
    let mut c = server.lobby("fragments").await;
    let pad = "p".repeat(6_000);
    let _ = c
        .try_send_fragments(&[r#"{"type":"list_rooms","pad":""#, &pad, &pad, &pad, r#""}"#])
        .await;
    let closed = c.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::TooLarge), Some(1009)),
        "{closed:?}"
    );
}

async fn resent_play(server: &TestServer) {
    let (mut ann, mut bob, room) = server.seated_pair().await;
    ann.play(&room, 0, "b2").await;
    let again = ClientMessage::Play {
        room: room.clone(),
        ply: 0,
        mv: "b2".into(),
    };
    ann.expect_refused(again, ErrorCode::StalePly).await;
    let seen = bob.reach_room(&room, |s| s.ply == 1).await;
    assert_eq!(seen.moves, vec!["b2"], "the move landed once");
    ann.list_rooms().await;
}

async fn play_after_resign(server: &TestServer) {
    let (mut ann, mut bob, room) = server.seated_pair().await;
    let over = bob
        .call_room(ClientMessage::Resign { room: room.clone() })
        .await;
    assert_eq!(over.status, GameStatus::Resigned { winner: Mark::X });
    ann.reach_room(&room, |s| s.status.is_over()).await;
    let play = ClientMessage::Play {
        room: room.clone(),
        ply: 0,
        mv: "a1".into(),
    };
    ann.expect_refused(play, ErrorCode::GameNotInProgress).await;
    ann.list_rooms().await;
}

async fn session_room_cap(server: &TestServer) {
    let mut c = server.lobby("builder").await;
    for _ in 0..8 {
        c.open_room().await;
    }
    let create = ClientMessage::CreateRoom {
        name: None,
        rules: inarow_e2e::tictactoe(),
        seats: Default::default(),
        private: true,
        hints: false,
        time_control: None,
        takebacks: None,
    };
    let refused = c.expect_refused(create, ErrorCode::TooManyRooms).await;
    assert!(refused.message.contains("8 open rooms"), "{refused:?}");
    c.list_rooms().await;
}

async fn unknown_token(server: &TestServer) {
    let mut c = server.connect("stranger").await;
    let welcome = c.hello_with("stranger", Some("f".repeat(48))).await;
    assert!(!welcome.resumed);
    c.list_rooms().await;
}

async fn huge_token(server: &TestServer) {
    let mut c = server.connect("huge token").await;
    let welcome = c.hello_with("huge", Some("t".repeat(10_000))).await;
    assert!(!welcome.resumed);
    c.list_rooms().await;
}

async fn forged_token(server: &TestServer) {
    let mut victim = server.lobby("victim").await;
    let token = victim.token();
    let forged = format!("{}{}", &token[..16], "0".repeat(32));
    let mut thief = server.connect("forger").await;
    let welcome = thief.hello_with("forger", Some(forged)).await;
    assert!(!welcome.resumed);
    assert_ne!(welcome.session, victim.session());
    victim.list_rooms().await;
}

async fn stolen_token(server: &TestServer) {
    let mut victim = server.lobby("owner").await;
    let stolen = victim.token();
    let mut thief = server.connect("thief").await;
    assert!(
        thief
            .hello_with("thief", Some(stolen.clone()))
            .await
            .resumed
    );
    let closed = victim.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::Replaced), "the owner notices");
    let mut again = server.connect("thief again").await;
    assert!(
        !again.hello_with("thief", Some(stolen)).await.resumed,
        "once at most"
    );
    thief.list_rooms().await;
}

fn invalid_utf8() -> Vec<RawFrame> {
    vec![RawFrame::new(opcode::TEXT, vec![b'{', 0xC3, 0x28, b'}'])]
}

fn unmasked() -> Vec<RawFrame> {
    let mut frame = RawFrame::new(opcode::TEXT, br#"{"type":"list_rooms"}"#.to_vec());
    frame.masked = false;
    vec![frame]
}

fn rsv1() -> Vec<RawFrame> {
    let mut frame = RawFrame::new(opcode::TEXT, br#"{"type":"list_rooms"}"#.to_vec());
    frame.rsv = 0b100;
    vec![frame]
}

fn reserved(op: u8) -> Vec<RawFrame> {
    vec![RawFrame::new(op, b"x".to_vec())]
}

fn big_ping() -> Vec<RawFrame> {
    vec![RawFrame::new(opcode::PING, vec![b'p'; 126])]
}

fn fragmented_ping() -> Vec<RawFrame> {
    let mut frame = RawFrame::new(opcode::PING, b"p".to_vec());
    frame.fin = false;
    vec![frame]
}

fn stray_continuation() -> Vec<RawFrame> {
    vec![RawFrame::new(opcode::CONTINUATION, b"x".to_vec())]
}

/// Sends `frames` after `hello` on a raw socket; expects a close frame with `code` and no
/// `bye` (the document: a protocol violation fails the connection as RFC 6455 asks).
async fn violation(server: &TestServer, frames: Vec<RawFrame>, code: u16) {
    let mut raw = RawSocket::websocket(server.addr()).await;
    raw.send_text(r#"{"type":"hello","id":1,"protocol":1,"name":"raw"}"#)
        .await;
    let welcome = raw.read_frame().await.expect("welcome");
    assert!(String::from_utf8_lossy(&welcome.1).contains("welcome"));
    for frame in &frames {
        raw.send(frame).await;
    }
    let (end, texts) = raw.expect_end().await;
    assert_eq!(end, RawEnd::Close(Some(code)), "texts before: {texts:?}");
    assert!(texts.iter().all(|t| !t.contains("bye")), "{texts:?}");
}

async fn interleaved(server: &TestServer) {
    let mut first = RawFrame::new(opcode::TEXT, br#"{"type":"#.to_vec());
    first.fin = false;
    let second = RawFrame::new(opcode::TEXT, br#"{"type":"list_rooms"}"#.to_vec());
    violation(server, vec![first, second], 1002).await;
}

/// Deadlines short enough to wait out in a test, long enough that a well-behaved client
/// on a loaded machine (the check that the server still serves) meets them.
fn short_timeouts() -> Config {
    Config {
        handshake_timeout: Duration::from_millis(1_000),
        ping_interval: Duration::from_millis(250),
        idle_timeout: Duration::from_millis(1_500),
        ..fast_config()
    }
}

async fn silent_socket() {
    let server = TestServer::start(short_timeouts()).await;
    let mut raw = RawSocket::connect(server.addr()).await;
    raw.expect_eof().await;
    server.lobby("next").await.list_rooms().await;
}

async fn half_open_handshake() {
    let server = TestServer::start(short_timeouts()).await;
    let mut raw = RawSocket::connect(server.addr()).await;
    raw.write(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n")
        .await;
    raw.expect_eof().await;
    server.lobby("next").await.list_rooms().await;
}

async fn no_hello() {
    let server = TestServer::start(short_timeouts()).await;
    let mut c = server.connect("mute").await;
    let closed = c.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::HandshakeTimeout), "{closed:?}");
    assert_eq!(closed.code, Some(1000));
}

async fn no_pongs() {
    let server = TestServer::start(short_timeouts()).await;
    let mut raw = RawSocket::websocket(server.addr()).await;
    raw.send_text(r#"{"type":"hello","protocol":1,"name":"deaf"}"#)
        .await;
    // Reads (and ignores) the pings without answering them.
    let (end, texts) = raw.expect_end().await;
    assert_eq!(end, RawEnd::Close(Some(1000)));
    assert!(
        texts.last().is_some_and(|t| t.contains("idle_timeout")),
        "{texts:?}"
    );
}

async fn slow_reader() {
    let config = Config {
        outbound_queue: 8,
        max_chat_chars: 4_000,
        rate_per_second: 100_000,
        rate_burst: 100_000,
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let mut slow = Client::connect_with_small_buffer(server.addr(), "slow").await;
    slow.hello("slow").await;
    let mut talker = server.lobby("talker").await;
    let room = slow.open_room().await;
    talker.join(&room, Some(SeatChoice::O)).await;
    talker
        .chat_until_dropped(&room, Mark::X, &"w".repeat(4_000), 20_000)
        .await;
    talker.list_rooms().await;
    let closed = slow.expect_closed().await;
    assert_eq!(closed.bye, Some(ByeReason::TooSlow), "{closed:?}");
}

async fn address_cap() {
    let server = TestServer::start(Config {
        max_connections_per_ip: 2,
        ..fast_config()
    })
    .await;
    let mut a = server.lobby("a").await;
    let _b = server.lobby("b").await;
    let mut c = server.connect("c").await;
    c.expect_error(ErrorCode::TooManyConnections).await;
    let closed = c.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::TooManyConnections), Some(1013))
    );
    a.list_rooms().await;
}

async fn session_cap() {
    let server = TestServer::start(Config {
        max_sessions_per_ip: 2,
        ..fast_config()
    })
    .await;
    let mut a = server.lobby("a").await;
    let _b = server.lobby("b").await;
    let mut c = server.connect("c").await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "c".into(),
        token: None,
    };
    c.expect_refused(hello, ErrorCode::TooManySessions).await;
    let closed = c.expect_closed().await;
    assert_eq!(
        (closed.bye, closed.code),
        (Some(ByeReason::TooManySessions), Some(1013))
    );
    a.list_rooms().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_bad_input_gets_its_documented_answer_while_a_game_goes_on() {
    let server = TestServer::start(Config {
        max_rooms_per_session: 8,
        ..fast_config()
    })
    .await;
    // The game next door: started before the hostile input, finished after it.
    let (mut ann, mut bob, game) = server.seated_pair().await;
    take_turns(&mut ann, &mut bob, &game, 0, &["a1", "b1"]).await;

    let rows = message_rows();
    let kinds = rows.len() + CLOSING_ROWS.len() + SPECIAL_ROWS.len();
    let server_ref = &server;
    let mut tasks: Vec<(&str, RowRun<'_>)> = Vec::new();
    for row in rows {
        let game = game.clone();
        let kind = row.kind;
        tasks.push((kind, Box::pin(run_row(server_ref, game, row))));
    }
    for (kind, special) in CLOSING_ROWS {
        tasks.push((kind, special(server_ref)));
    }
    for (kind, special) in SPECIAL_ROWS {
        tasks.push((kind, special()));
    }
    // All rows at once, on one task: a failing row is reported by name.
    let results =
        futures_util::future::join_all(tasks.into_iter().map(|(kind, task)| async move {
            let outcome = tokio::time::timeout(Duration::from_secs(60), task).await;
            (kind, outcome.is_ok())
        }))
        .await;
    let late: Vec<&str> = results
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(k, _)| *k)
        .collect();
    assert!(late.is_empty(), "rows that did not finish: {late:?}");

    let last = take_turns(&mut ann, &mut bob, &game, 2, &["a2", "b2", "a3"]).await;
    assert_won(&last, Mark::X);
    assert_eq!(bob.reach_room(&game, |s| s.status.is_over()).await, last);
    eprintln!(
        "hostile: {kinds} kinds of bad input answered as documented; the game next door finished"
    );
    assert!(kinds >= 60, "only {kinds} kinds");
}
