//! What the web client tells a player, in headless Chromium against a real server on
//! 127.0.0.1:0: a spectator is offered no control over a player's seats, a wrong invite
//! code says so, a pasted invite link works, the opponent's
//! move is announced and retitles a hidden tab, the board plays by keyboard, a click after
//! the game says it is over, a rematch says which mark you now play, a second tab resumes
//! the seat (the first can take it back), and a lost server disables the board.
//! Skipped (`SKIPPED` on stdout) where Chromium is not installed, unless
//! `INAROW_REQUIRE_BROWSER=1`.

use inarow_e2e::browser::Browser;
use inarow_e2e::{TestServer, fast_config, plan};
use inarow_protocol::{ClientMessage, SeatRequest};

/// The room view's data attributes, which the web client keeps in step with the snapshot.
const VIEW: &str = "document.getElementById('room-view').dataset";
/// The notice line's text.
const NOTICE: &str = "document.getElementById('notice').textContent";

/// Types `text` into the invite field and submits it.
async fn join_with(browser: &Browser, text: &str) {
    browser
        .eval("document.getElementById('join-code').value = ''")
        .await;
    browser.type_into("#join-code", text).await;
    browser.click("#join-form button").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_client_tells_the_player_what_happens() {
    let server = TestServer::start(fast_config()).await;
    let Some(browser) = Browser::start("browser feedback", 390, 844).await else {
        return;
    };
    let mut ann = server.lobby("Ann").await;
    let room = ann
        .create_room(
            inarow_e2e::tictactoe(),
            plan(SeatRequest::Me, SeatRequest::Open),
            false,
        )
        .await
        .id;
    let base = format!("http://{}/", server.addr());
    browser.goto(&base).await;
    browser.type_into("#name-input", "Flo").await;
    browser.click("#name-form button").await;
    browser
        .wait_for("welcome", "document.body.dataset.protocol")
        .await;

    // A spectator of Ann's game against the AI is offered no control over its seats.
    let versus_ai = ann
        .create_room(
            inarow_e2e::tictactoe(),
            plan(SeatRequest::Me, inarow_e2e::perfect_ai()),
            false,
        )
        .await
        .id;
    browser
        .eval(&format!("location.hash = '#/w/{}'", versus_ai.0))
        .await;
    browser
        .wait_for(
            "the seats of Ann's game against the AI",
            &format!(
                "{VIEW}.room === '{}' && document.querySelectorAll('.seat').length === 2",
                versus_ai.0
            ),
        )
        .await;
    let controls = browser
        .eval(
            "return document.querySelectorAll('[data-action^=\"ai-\"], [data-action^=\"free-\"], \
             [data-action^=\"sit-\"]').length",
        )
        .await;
    assert_eq!(controls, 0, "a spectator may not change a player's seats");
    browser.eval("location.hash = '#/'").await;

    // Not a code at all, then a code of no room: both say so.
    join_with(&browser, "not a code!").await;
    browser
        .wait_for(
            "the refusal of a malformed code",
            &format!("{NOTICE}.includes('is not an invite code')"),
        )
        .await;
    join_with(&browser, "zzzzzzzz").await;
    browser
        .wait_for(
            "the refusal of an unknown code",
            &format!(
                "{NOTICE}.includes('no room with the code') && location.hash === '#/' && \
                 !document.getElementById('notice').hidden"
            ),
        )
        .await;

    // The whole invite link pasted: Flo takes the open seat.
    join_with(&browser, &format!("{base}#/r/{}", room.0)).await;
    browser
        .wait_for(
            "Flo seated as O",
            &format!("{VIEW}.room === '{}' && {VIEW}.mine === 'O'", room.0),
        )
        .await;

    // With the tab hidden, Ann's move is announced and the title calls Flo back.
    browser
        .eval("Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});")
        .await;
    ann.play(&room, 0, "b2").await;
    browser
        .wait_for(
            "Ann's move announced and the title changed",
            "document.getElementById('announce').textContent.startsWith('Ann played b2') && \
             document.title.startsWith('● Your move')",
        )
        .await;
    browser
        .eval("delete document.hidden; document.dispatchEvent(new Event('visibilitychange'));")
        .await;
    browser
        .wait_for("the title back", "!document.title.startsWith('●')")
        .await;

    // The keyboard: the cursor starts on a1; up once, then Enter plays a2.
    browser.type_into("[data-cell='a1']", "\u{E013}").await;
    browser
        .wait_for(
            "the cursor on a2",
            "document.activeElement && document.activeElement.dataset.cell === 'a2'",
        )
        .await;
    browser.type_into("[data-cell='a2']", "\u{E007}").await;
    browser
        .wait_for("O on a2", &format!("{VIEW}.ply === '2'"))
        .await;
    ann.play(&room, 2, "a1").await;
    browser
        .wait_for("Ann's a1", &format!("{VIEW}.ply === '3'"))
        .await;
    browser.click("[data-cell='c3']").await;
    browser
        .wait_for("O on c3", &format!("{VIEW}.ply === '4'"))
        .await;
    ann.play(&room, 4, "c1").await;
    // X: b2 a1 c1 — no line yet; O: a2 c3.
    browser
        .wait_for("Ann's c1", &format!("{VIEW}.ply === '5'"))
        .await;
    browser.click("[data-cell='b1']").await;
    browser
        .wait_for("O on b1", &format!("{VIEW}.ply === '6'"))
        .await;
    ann.play(&room, 6, "c2").await;
    // X: b2 a1 c1 c2 — still no line (c1 c2 needs c3, which O holds); O: a2 c3 b1.
    browser
        .wait_for("Ann's c2", &format!("{VIEW}.ply === '7'"))
        .await;
    browser.click("[data-cell='a3']").await;
    browser
        .wait_for("O on a3", &format!("{VIEW}.ply === '8'"))
        .await;
    ann.play(&room, 8, "b3").await;
    browser
        .wait_for(
            "the game over",
            &format!("['won', 'drawn'].includes({VIEW}.state)"),
        )
        .await;
    // A click on the finished board says the game is over.
    browser.click("[data-cell='b2']").await;
    browser
        .wait_for(
            "the game-over notice",
            &format!("{NOTICE}.includes('The game is over')"),
        )
        .await;

    // A rematch swaps the marks, and the page says so.
    browser.click("[data-action='rematch']").await;
    ann.request(ClientMessage::Rematch { room: room.clone() })
        .await;
    browser
        .wait_for(
            "the rematch notice",
            &format!(
                "{VIEW}.game === '2' && {VIEW}.mine === 'X' && \
                 {NOTICE}.includes('you now play X')"
            ),
        )
        .await;

    // A second tab with the invite link resumes the seat (the session is per browser)...
    let first = browser.tab().await;
    let second = browser.new_tab().await;
    browser.switch_to(&second).await;
    browser.goto(&format!("{base}#/r/{}", room.0)).await;
    browser
        .wait_for(
            "the seat in the second tab",
            &format!("{VIEW}.room === '{}' && {VIEW}.mine === 'X'", room.0),
        )
        .await;
    // ... the first says the game is open elsewhere and takes it back on request.
    browser.switch_to(&first).await;
    browser
        .wait_for(
            "the first tab told",
            &format!("{NOTICE}.includes('open in another tab')"),
        )
        .await;
    browser.click("#take-back").await;
    browser
        .wait_for(
            "the seat back in the first tab",
            &format!(
                "{VIEW}.mine === 'X' && !document.getElementById('board').classList.contains('offline')"
            ),
        )
        .await;

    // The server goes away: the board is disabled and says it is reconnecting.
    server.shutdown().await;
    browser
        .wait_for(
            "the offline board",
            "document.getElementById('board').classList.contains('offline') && \
             document.getElementById('room-status').textContent.startsWith('Offline')",
        )
        .await;
    browser.quit().await;
}
