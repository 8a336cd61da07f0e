//! The web client offers the host's external engines: in headless Chromium against a real
//! server running `inarow-pbrain` (built here as `pbrain_engine`) as an engine, the new-room
//! form lists it, a gomoku room against it starts, its seat shows its name and it answers
//! a move; a screenshot of the room is saved. Skipped (`SKIPPED` on stdout) where Chromium
//! is not installed, unless `INAROW_REQUIRE_BROWSER=1`.

use std::time::Duration;

use inarow_e2e::browser::Browser;
use inarow_e2e::{Config, TestServer, fast_config};
use inarow_protocol::EngineName;
use inarow_server::{EngineLimits, EngineSpec};

/// The room view's data attributes, which the web client keeps in step with the snapshot.
const VIEW: &str = "document.getElementById('room-view').dataset";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_room_form_offers_an_engine_that_then_plays() {
    let config = Config {
        engines: vec![EngineSpec {
            name: EngineName::new("pbrain").expect("a name"),
            path: env!("CARGO_BIN_EXE_pbrain_engine").into(),
        }],
        // An answer may come 2 s late on a loaded test machine.
        engine_limits: EngineLimits {
            margin: Duration::from_secs(2),
            ..EngineLimits::default()
        },
        ai_move_time: Duration::from_millis(300),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let Some(browser) = Browser::start("browser seats an engine", 1100, 800).await else {
        return;
    };
    browser.goto(&format!("http://{}/", server.addr())).await;
    browser.type_into("#name-input", "Web").await;
    browser.click("#name-form button").await;
    let offered = browser
        .wait_for(
            "the engine among the seat choices",
            "document.querySelector(\"#create-o option[value='engine:pbrain']\")?.textContent",
        )
        .await;
    println!("offered: {offered}");
    browser
        .eval(
            "{ for (const [id, v] of [['create-rules', 'gomoku'], ['create-o', 'engine:pbrain']]) {
                 const s = document.getElementById(id); s.value = v;
                 s.dispatchEvent(new Event('change', {bubbles: true})); } }",
        )
        .await;
    browser.click("#create-submit").await;
    browser
        .wait_for(
            "the game to start with the browser as X",
            &format!("{VIEW}.state === 'playing' && {VIEW}.mine === 'X'"),
        )
        .await;
    let shown = browser
        .wait_for(
            "the engine's name on its seat",
            "document.body.textContent.includes('engine pbrain') || null",
        )
        .await;
    assert_eq!(shown, true);
    browser.click(".cell[data-col='7'][data-row='7']").await;
    browser
        .wait_for("the engine's answer", &format!("{VIEW}.ply === '2'"))
        .await;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("inarow-engine-seat.png");
    browser.screenshot(&path).await;
    println!("screenshot: {}", path.display());
    browser.quit().await;
    server.shutdown().await;
}
