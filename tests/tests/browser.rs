//! The web client in headless Chromium against a real server on 127.0.0.1:0: a whole
//! Connect Four game against the AI (played by click and by keyboard, with a screenshot of
//! the end), an invite link opened to watch a game, a spectator's hints, and a reload that
//! resumes the session.
//! Skipped (`SKIPPED` on stdout) where Chromium is not installed, unless
//! `INAROW_REQUIRE_BROWSER=1`.

use std::time::Duration;

use inarow_e2e::browser::Browser;
use inarow_e2e::{TestServer, fast_config};
use inarow_engine::{Ai, Level, Limits, Move, Position, Rules};

/// The room view's data attributes, which the web client keeps in step with the snapshot.
const VIEW: &str = "document.getElementById('room-view').dataset";

/// Says the name on the welcome form and waits for the server's `welcome`.
async fn enter_name(browser: &Browser, name: &str) {
    browser.type_into("#name-input", name).await;
    browser.click("#name-form button").await;
    let protocol = browser
        .wait_for("welcome", "document.body.dataset.protocol")
        .await;
    println!("{name}: welcomed with protocol {protocol}");
}

/// Sets a `<select>` of the new-room form as a person choosing from it would.
fn choose(select: &str, value: &str) -> String {
    format!(
        "{{ const s = document.getElementById('{select}'); s.value = '{value}';
         s.dispatchEvent(new Event('change', {{bubbles: true}})); }}"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_plays_connect_four_against_the_ai_to_the_end() {
    let server = TestServer::start(fast_config()).await;
    let Some(browser) = Browser::start("browser plays Connect Four", 1100, 800).await else {
        return;
    };
    browser.goto(&format!("http://{}/", server.addr())).await;
    enter_name(&browser, "Web").await;
    browser
        .eval(&format!(
            "{} {}",
            choose("create-rules", "connect4"),
            choose("create-o", "easy")
        ))
        .await;
    browser.click("#create-submit").await;
    browser
        .wait_for(
            "the game to start with the browser as X",
            &format!("{VIEW}.state === 'playing' && {VIEW}.mine === 'X'"),
        )
        .await;
    let rules = Rules::preset("connect4").expect("a preset");
    let mut ai = Ai::new(Level::Perfect, 11);
    let mut by_keyboard = false;
    let end = loop {
        let seen = browser
            .wait_for(
                "the browser's turn or the end",
                &format!(
                    "({VIEW}.state === 'playing' && {VIEW}.turn === 'X') || \
                     ['won', 'drawn', 'resigned'].includes({VIEW}.state) \
                     ? {VIEW}.state + '|' + {VIEW}.ply + '|' + {VIEW}.moves : null"
                ),
            )
            .await;
        let seen = seen.as_str().expect("a string").to_owned();
        let mut parts = seen.splitn(3, '|');
        let (state, ply, moves) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default().to_owned(),
            parts.next().unwrap_or_default(),
        );
        if state != "playing" {
            break state.to_owned();
        }
        if ply != "0" {
            // The AI's move was announced to screen readers.
            let said = browser
                .eval("return document.getElementById('announce').textContent")
                .await;
            assert!(
                said.as_str().is_some_and(|s| s.starts_with("AI played ")),
                "the AI's move is announced: {said}"
            );
        }
        let moves: Vec<Move> = moves
            .split_whitespace()
            .map(|m| {
                rules
                    .parse_move(m)
                    .expect("the page shows moves in notation")
            })
            .collect();
        let position = Position::from_moves(rules, &moves).expect("legal moves");
        let Some(Move::Column(col)) =
            ai.choose(&position, &Limits::time(Duration::from_millis(150)))
        else {
            panic!("no move for a game in progress");
        };
        let cell = format!(".cell[data-col='{col}'][data-row='0']");
        if by_keyboard {
            // The digit keys play a column on a gravity board.
            browser
                .type_into(&cell, &(u32::from(col) + 1).to_string())
                .await;
        } else {
            browser.click(&cell).await;
        }
        by_keyboard = !by_keyboard;
        browser
            .wait_for("the move to land", &format!("{VIEW}.ply !== '{ply}'"))
            .await;
    };
    let said = browser
        .eval("return document.getElementById('announce').textContent")
        .await;
    assert!(
        said.as_str()
            .is_some_and(|s| s.starts_with("You played ") || s.starts_with("AI played ")),
        "the last move is announced: {said}"
    );
    let winner = browser.eval(&format!("return {VIEW}.winner")).await;
    assert!(
        end == "drawn" || (end == "won" && winner == "X"),
        "the browser (X, perfect engine) must not lose to the easy AI: {end} {winner}"
    );
    if end == "won" {
        let lit = browser
            .eval("return document.querySelectorAll('.cell.win').length")
            .await;
        assert!(lit.as_u64() >= Some(4), "the winning line is shown: {lit}");
        let status = browser
            .eval("return document.getElementById('room-status').textContent")
            .await;
        assert_eq!(status, "You won!");
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("inarow-connect4.png");
    browser.screenshot(&path).await;
    println!(
        "screenshot of the finished game ({end}): {}",
        path.display()
    );
    browser.quit().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_opens_an_invite_link_and_watches() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, _bob, room) = server.seated_pair().await;
    let Some(browser) = Browser::start("browser watches by invite", 420, 860).await else {
        return;
    };
    // A phone-sized window: the layout is one column.
    browser
        .goto(&format!("http://{}/#/r/{}", server.addr(), room.0))
        .await;
    enter_name(&browser, "Carol").await;
    // Both seats are taken, so the invite makes Carol a spectator.
    browser
        .wait_for(
            "Carol watching the room",
            &format!(
                "{VIEW}.room === '{}' && {VIEW}.mine === '' && \
                 document.getElementById('room-rules').textContent.includes('watching: Carol')",
                room.0
            ),
        )
        .await;
    ann.wait_room(|s| s.spectators.iter().any(|n| n == "Carol"))
        .await;
    ann.play(&room, 0, "b2").await;
    browser
        .wait_for(
            "Ann's move on the board",
            &format!(
                "{VIEW}.ply === '1' && \
                 document.querySelector('[data-cell=\"b2\"]').textContent === 'X'"
            ),
        )
        .await;
    // A spectator cannot play: clicking says so and sends nothing.
    browser.click("[data-cell='a1']").await;
    browser
        .wait_for(
            "the spectator notice",
            "document.getElementById('notice').textContent.includes('watching')",
        )
        .await;
    browser.quit().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_spectator_asks_for_hints_and_a_move_clears_them() {
    let server = TestServer::start(fast_config()).await;
    let (mut ann, _bob, room) = server.seated_pair().await;
    let Some(browser) = Browser::start("browser hints", 1000, 800).await else {
        return;
    };
    browser
        .goto(&format!("http://{}/#/r/{}", server.addr(), room.0))
        .await;
    enter_name(&browser, "Carol").await;
    browser
        .wait_for(
            "Carol watching the room",
            &format!("{VIEW}.room === '{}' && {VIEW}.mine === ''", room.0),
        )
        .await;
    browser.click("[data-action='hint']").await;
    // The empty tic-tac-toe board: every move draws, each cell says so.
    browser
        .wait_for(
            "a draw on every cell",
            "document.querySelectorAll('.cell.hint-draw').length === 9 && \
             document.querySelector('[data-cell=\"b2\"]').getAttribute('aria-label') \
               === 'b2, empty, hint: draw'",
        )
        .await;
    ann.wait_room(|s| s.spectators.iter().any(|n| n == "Carol"))
        .await;
    ann.play(&room, 0, "b2").await;
    browser
        .wait_for(
            "the hints gone with the move",
            &format!("{VIEW}.ply === '1' && document.querySelectorAll('.cell.hint').length === 0"),
        )
        .await;
    browser.quit().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_reload_resumes_the_session_and_its_seat() {
    let server = TestServer::start(fast_config()).await;
    let Some(browser) = Browser::start("browser reload resumes", 1000, 800).await else {
        return;
    };
    browser.goto(&format!("http://{}/", server.addr())).await;
    enter_name(&browser, "Dee").await;
    // The form's defaults: tic-tac-toe, me as X, the perfect AI as O.
    browser.click("#create-submit").await;
    let room = browser
        .wait_for(
            "the game to start",
            &format!("{VIEW}.state === 'playing' && {VIEW}.mine === 'X' && {VIEW}.room"),
        )
        .await;
    browser.click("[data-cell='b2']").await;
    browser
        .wait_for(
            "the AI's answer",
            &format!("{VIEW}.ply === '2' && {VIEW}.turn === 'X'"),
        )
        .await;
    // Issue 37: a line said before the reload is still there after it, once.
    browser.type_into("#chat-input", "still here?").await;
    browser.click("#chat-form button[type='submit']").await;
    let said = "[...document.querySelectorAll('#chat-log li')].filter((li) => li.textContent.includes('still here?')).length";
    browser
        .wait_for("the chat line", &format!("{said} === 1"))
        .await;
    browser.reload().await;
    // The token in sessionStorage resumes the session: same room, same seat, same game.
    browser
        .wait_for(
            "the room again after the reload",
            &format!(
                "{VIEW}.room === {room} && {VIEW}.mine === 'X' && {VIEW}.ply === '2' \
                 && {VIEW}.turn === 'X'"
            ),
        )
        .await;
    browser
        .wait_for("the chat line after the reload", &format!("{said} === 1"))
        .await;
    browser.click(".cell.playable").await;
    browser
        .wait_for(
            "the game to go on after the reload",
            &format!("{VIEW}.ply === '4' || ['won', 'drawn'].includes({VIEW}.state)"),
        )
        .await;
    // Issue 37: rename from the header; the header and the next hello say the new name.
    browser.click("#rename").await;
    browser
        .eval("document.getElementById('rename-input').value = ''; return true;")
        .await;
    browser.type_into("#rename-input", "Dee Two").await;
    browser.click("#rename-form button[type='submit']").await;
    browser
        .wait_for(
            "the new name in the header",
            "document.getElementById('who').textContent.includes('Dee Two') \
             && localStorage.getItem('inarow.name') === 'Dee Two' \
             && !document.getElementById('who').hidden",
        )
        .await;
    browser.quit().await;
    server.shutdown().await;
}
