//! Clocks, draw offers and takebacks in the web client, in headless Chromium against a
//! real server on 127.0.0.1:0: a room created with a clock from the form shows both clocks,
//! the running one counting down between the server's events; an offer shows the buttons
//! that answer it; a clock under ten seconds turns red, and a game lost on time says so.
//! axe-core finds no serious or critical violation; the page fits a phone. Screenshots go
//! to `target/screenshots/` (clocks-*.png).
//! Skipped (`SKIPPED` on stdout) where Chromium or axe-core is not installed, unless
//! `INAROW_REQUIRE_BROWSER=1`.

use std::path::PathBuf;

use inarow_e2e::browser::{Browser, axe_source};
use inarow_e2e::{TestServer, fast_config, plan};
use inarow_protocol::{
    ClientMessage, Mark, Offer, OfferKind, RoomId, RulesSpec, SeatChoice, SeatRequest, TimeControl,
    TimeControlSpec,
};
use serde_json::json;

/// The room view's data attributes.
const VIEW: &str = "document.getElementById('room-view').dataset";

fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| PathBuf::from("screenshots"), |t| t.join("screenshots"));
    std::fs::create_dir_all(&dir).expect("create the screenshot directory");
    dir
}

/// A seat's clock as the page shows it.
fn clock_of(mark: Mark) -> String {
    format!("document.querySelector('#seats [data-clock=\"{mark}\"]')")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_count_down_offers_are_answered_and_low_time_shows() {
    let server = TestServer::start(fast_config()).await;
    let Some(browser) = Browser::start("browser clocks", 1366, 768).await else {
        return;
    };
    let axe = axe_source("browser clocks (axe-core)");
    let shots = screenshot_dir();
    let base = format!("http://{}/", server.addr());
    browser.goto(&base).await;
    browser.type_into("#name-input", "Gus").await;
    browser.click("#name-form button").await;
    browser
        .wait_for("the lobby", "!document.getElementById('lobby-view').hidden")
        .await;
    // A Connect Four room on 3 + 2, X for Gus, O open: takebacks go off with the clock.
    browser
        .eval(
            "const set = (id, v) => { const s = document.getElementById(id); s.value = v; \
             s.dispatchEvent(new Event('change', {bubbles: true})); }; \
             set('create-rules', 'connect4'); set('create-o', 'open'); set('create-clock', '3+2');",
        )
        .await;
    let takebacks = browser
        .eval("return document.getElementById('create-takebacks').checked")
        .await;
    assert_eq!(
        takebacks,
        json!(false),
        "no takebacks in a timed game by default"
    );
    browser.click("#create-submit").await;
    let id = browser
        .wait_for(
            "the new room",
            &format!("{VIEW}.room && {VIEW}.mine === 'X' ? {VIEW}.room : null"),
        )
        .await;
    let room = RoomId(id.as_str().expect("a room id").to_owned());
    let mut bob = server.lobby("Bob").await;
    let joined = bob.join(&room, Some(SeatChoice::O)).await;
    assert_eq!(
        joined.time_control,
        Some(TimeControl::Fischer {
            base_ms: 180_000,
            increment_ms: 2_000
        })
    );
    browser
        .wait_for(
            "both clocks at 3:00",
            &format!(
                "{VIEW}.state === 'playing' && {x} && {x}.textContent === '3:00' && \
                 {o}.textContent === '3:00'",
                x = clock_of(Mark::X),
                o = clock_of(Mark::O)
            ),
        )
        .await;
    // Each side's free move; then X's clock runs, and counts down on the page.
    browser.click("[data-cell='d1']").await;
    bob.reach_room(&room, |s| s.ply == 1).await;
    bob.play(&room, 1, "d").await;
    browser
        .wait_for(
            "X's clock running",
            &format!(
                "{VIEW}.ply === '2' && {}.classList.contains('running')",
                clock_of(Mark::X)
            ),
        )
        .await;
    browser
        .wait_for(
            "X's clock below 2:59 without a new event",
            &format!(
                "{VIEW}.ply === '2' && ['2:58', '2:57', '2:56'].includes({}.textContent)",
                clock_of(Mark::X)
            ),
        )
        .await;
    // Bob offers a draw: Gus sees it and declines it.
    bob.call_room(ClientMessage::Draw {
        room: room.clone(),
        accept: None,
    })
    .await;
    browser
        .wait_for(
            "the draw offer's buttons",
            "document.querySelector(\"[data-action='accept-draw']\") && \
             document.getElementById('room-status').textContent.includes('asks for a draw')",
        )
        .await;
    browser
        .screenshot(&shots.join("clocks-offer-laptop-1366x768.png"))
        .await;
    browser.click("[data-action='decline-draw']").await;
    bob.wait_room(|s| s.id == room && s.offer.is_none()).await;
    // Gus offers one; Bob sees it.
    browser
        .wait_for(
            "the offer-draw button",
            "document.querySelector(\"[data-action='draw']\")",
        )
        .await;
    browser.click("[data-action='draw']").await;
    let offered = bob.wait_room(|s| s.id == room && s.offer.is_some()).await;
    assert_eq!(
        offered.offer,
        Some(Offer {
            kind: OfferKind::Draw,
            by: Mark::X
        })
    );
    let mut serious = Vec::new();
    if let Some(axe) = &axe {
        let violations = browser.axe(axe).await;
        for v in violations.as_array().cloned().unwrap_or_default() {
            println!(
                "axe on the timed room: {} {} {}",
                v["impact"], v["id"], v["nodes"]
            );
            if v["impact"] == "serious" || v["impact"] == "critical" {
                serious.push(format!("{} {}", v["impact"], v["id"]));
            }
        }
    }
    browser
        .screenshot(&shots.join("clocks-laptop-1366x768.png"))
        .await;
    browser.set_viewport(390, 844).await;
    let wide = browser
        .eval("return [document.documentElement.scrollWidth, window.innerWidth]")
        .await;
    assert!(
        wide[0].as_u64() <= wide[1].as_u64(),
        "the room at 390 px: {wide}"
    );
    // On a phone the seats go below the board; the clocks are repeated above it.
    let bar = browser
        .eval(
            "const bar = document.getElementById('clock-bar'); \
             return [getComputedStyle(bar).display, bar.querySelectorAll('.clock').length, \
                     bar.getBoundingClientRect().top < document.getElementById('board').getBoundingClientRect().top]",
        )
        .await;
    assert_eq!(
        bar,
        json!(["flex", 2, true]),
        "the clock bar above the board on a phone"
    );
    browser
        .screenshot(&shots.join("clocks-phone-390x844.png"))
        .await;

    // A short clock for Bob in X: under ten seconds it shows red, then runs out.
    let short = bob
        .call_room(ClientMessage::CreateRoom {
            name: Some("blitz".into()),
            rules: RulesSpec::Preset("tictactoe".into()),
            seats: plan(SeatRequest::Me, SeatRequest::Open),
            private: false,
            hints: false,
            time_control: Some(TimeControlSpec::Custom(TimeControl::Fischer {
                base_ms: 11_000,
                increment_ms: 0,
            })),
            takebacks: None,
        })
        .await
        .id;
    browser.goto(&format!("{base}#/r/{}", short.0)).await;
    browser
        .wait_for(
            "Gus in O",
            &format!("{VIEW}.room === '{}' && {VIEW}.mine === 'O'", short.0),
        )
        .await;
    bob.reach_room(&short, |s| {
        s.status == inarow_protocol::GameStatus::Playing { turn: Mark::X }
    })
    .await;
    bob.play(&short, 0, "b2").await;
    browser
        .wait_for("Gus's turn", &format!("{VIEW}.ply === '1'"))
        .await;
    browser.click("[data-cell='a1']").await;
    browser
        .wait_for(
            "X's clock low",
            &format!(
                "{VIEW}.ply === '2' && {x}.classList.contains('low') && \
                 {x}.classList.contains('running')",
                x = clock_of(Mark::X)
            ),
        )
        .await;
    browser
        .screenshot(&shots.join("clocks-low-phone-390x844.png"))
        .await;
    let status = browser
        .wait_for(
            "the game lost on time",
            &format!(
                "{VIEW}.state === 'timeout' ? document.getElementById('room-status').textContent : null"
            ),
        )
        .await;
    assert_eq!(
        status,
        json!("Your opponent ran out of time: you won."),
        "{status}"
    );
    browser.set_viewport(1366, 768).await;
    browser
        .wait_for(
            "the kept game's link",
            "document.getElementById('kept-link')",
        )
        .await;
    browser
        .screenshot(&shots.join("clocks-timeout-laptop-1366x768.png"))
        .await;
    // Its replay shows the clocks the record kept.
    browser.click("#kept-link").await;
    browser
        .wait_for(
            "the replay's clocks",
            "document.getElementById('game-status').textContent.includes('Clocks: X 0:11, O 0:11') && \
             document.getElementById('game-rules').textContent.includes('clock 11s+0') && \
             document.querySelector('#replay-moves [data-ply=\"1\"]').textContent === '1. X b2 (0:11)'",
        )
        .await;
    assert_eq!(
        json!(serious),
        json!([]),
        "axe-core: serious or critical violations"
    );
    println!("screenshots: {}", shots.display());
    browser.quit().await;
    server.shutdown().await;
}
