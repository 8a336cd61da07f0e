//! Kept games in the web client, in headless Chromium against a real server on 127.0.0.1:0:
//! a finished room links to where its game is kept, the games page lists it and gives a
//! player's record, and the replay steps through it by keyboard, buttons and move list to
//! the winning line; axe-core finds no serious or critical violation on either page, and
//! both fit a phone. Screenshots go to `target/screenshots/`.
//! Skipped (`SKIPPED` on stdout) where Chromium or axe-core is not installed, unless
//! `INAROW_REQUIRE_BROWSER=1`.

use std::path::PathBuf;

use inarow_e2e::browser::{Browser, axe_source};
use inarow_e2e::{TestServer, fast_config, plan, tictactoe};
use inarow_protocol::{SeatChoice, SeatRequest};
use serde_json::{Value, json};

/// The replay's status line.
const STATUS: &str = "document.getElementById('game-status').textContent";
/// How many stones the replay's board shows.
const STONES: &str = "document.querySelectorAll('#replay-board .stone').length";

/// Where the screenshots go: `target/screenshots/`.
fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| PathBuf::from("screenshots"), |t| t.join("screenshots"));
    std::fs::create_dir_all(&dir).expect("create the screenshot directory");
    dir
}

/// The serious and critical violations axe-core finds, printing every violation.
async fn axe_serious(browser: &Browser, axe: &str, what: &str) -> Vec<String> {
    let violations = browser.axe(axe).await;
    let all = violations.as_array().cloned().unwrap_or_default();
    for v in &all {
        println!("axe on {what}: {} {} {}", v["impact"], v["id"], v["nodes"]);
    }
    println!("axe on {what}: {} violations", all.len());
    all.iter()
        .filter(|v| v["impact"] == "serious" || v["impact"] == "critical")
        .map(|v| format!("{what}: {} {}", v["impact"], v["id"]))
        .collect()
}

/// Waits for the replay to show `ply` of 5 moves with `ply` stones.
async fn at_ply(browser: &Browser, ply: u32) {
    browser
        .wait_for(
            &format!("the replay at move {ply}"),
            &format!("{STATUS}.startsWith('Move {ply} of 5') && {STONES} === {ply}"),
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_game_is_listed_and_replayed_to_its_winning_line() {
    let server = TestServer::start(fast_config()).await;
    let Some(browser) = Browser::start("browser games", 1366, 768).await else {
        return;
    };
    let axe = axe_source("browser games (axe-core)");
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    let room = ann
        .create_room(tictactoe(), plan(SeatRequest::Me, SeatRequest::Open), false)
        .await
        .id;
    bob.join(&room, Some(SeatChoice::O)).await;
    for (ply, mv) in ["a1", "b1", "b2", "c1", "c3"].iter().enumerate() {
        let player = if ply % 2 == 0 { &mut ann } else { &mut bob };
        player
            .play(&room, u32::try_from(ply).expect("short"), mv)
            .await;
    }
    let kept = ann
        .wait_room(|s| s.last_game.is_some())
        .await
        .last_game
        .expect("the game is kept");
    let shots = screenshot_dir();
    let base = format!("http://{}/", server.addr());
    browser.goto(&format!("{base}#/w/{}", room.0)).await;
    browser.type_into("#name-input", "Gus").await;
    browser.click("#name-form button").await;
    // The finished room says where its game is kept.
    browser
        .wait_for(
            "the link to the kept game",
            &format!(
                "document.getElementById('kept-link') && \
                 document.getElementById('kept-link').getAttribute('href') === '#/g/{}'",
                kept.0
            ),
        )
        .await;

    // The games page lists it; filtered by Ann, it gives her record.
    browser.click("a.games-link").await;
    browser
        .wait_for(
            "the game in the list",
            &format!(
                "document.querySelector('#games-list [data-game=\"{}\"]')",
                kept.0
            ),
        )
        .await;
    browser.type_into("#games-name", "Ann").await;
    browser.click("#games-form button").await;
    browser
        .wait_for(
            "Ann's record",
            "document.getElementById('games-record').textContent.includes('Ann: 1 won, 0 drawn, 0 lost')",
        )
        .await;
    let mut serious = Vec::new();
    if let Some(axe) = &axe {
        serious.extend(axe_serious(&browser, axe, "the games page").await);
    }
    browser
        .screenshot(&shots.join("games-laptop-1366x768.png"))
        .await;

    // The replay opens at the end, on the winning line.
    browser.click("#games-list a").await;
    at_ply(&browser, 5).await;
    let lit = browser
        .eval("return document.querySelectorAll('#replay-board .cell.win').length")
        .await;
    assert_eq!(lit, 3, "the winning line at the end of the replay");
    if let Some(axe) = &axe {
        serious.extend(axe_serious(&browser, axe, "the replay").await);
    }
    browser
        .screenshot(&shots.join("replay-laptop-1366x768.png"))
        .await;
    // Home, →, a move in the list, the buttons, End.
    browser.type_into("#replay-copy", "\u{E011}").await;
    at_ply(&browser, 0).await;
    browser.type_into("#replay-copy", "\u{E014}").await;
    at_ply(&browser, 1).await;
    browser.click("#replay-moves [data-ply='3']").await;
    at_ply(&browser, 3).await;
    browser.click("#replay-back").await;
    at_ply(&browser, 2).await;
    browser.type_into("#replay-copy", "\u{E010}").await;
    at_ply(&browser, 5).await;
    let text = browser
        .eval("return document.getElementById('replay-text').value")
        .await;
    assert!(
        text.as_str()
            .is_some_and(|t| t.contains("1. a1") && t.contains("1-0")),
        "the text record: {text}"
    );

    // Both pages fit a phone.
    browser.set_viewport(390, 844).await;
    let wide = browser
        .eval("return [document.documentElement.scrollWidth, window.innerWidth]")
        .await;
    assert!(
        wide[0].as_u64() <= wide[1].as_u64(),
        "the replay at 390 px: {wide}"
    );
    browser.eval("window.scrollTo(0, 0)").await;
    browser
        .screenshot(&shots.join("replay-phone-390x844.png"))
        .await;
    browser.eval("history.back()").await;
    browser
        .wait_for(
            "the games page again",
            "!document.getElementById('games-view').hidden",
        )
        .await;
    let wide: Value = browser
        .eval("return [document.documentElement.scrollWidth, window.innerWidth]")
        .await;
    assert!(
        wide[0].as_u64() <= wide[1].as_u64(),
        "the games page at 390 px: {wide}"
    );
    browser
        .screenshot(&shots.join("games-phone-390x844.png"))
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
