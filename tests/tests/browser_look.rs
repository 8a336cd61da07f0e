//! What a person sees of the web client, in headless Chromium against a real server on
//! 127.0.0.1:0, at five screen sizes (two phones, a tablet, a laptop, a desktop): every
//! board draws square cells of one size and round stones, the board is wholly on screen with
//! its coordinates, no page scrolls sideways, the lobby and its form fit a phone, and
//! axe-core finds no serious or critical violation. Invariants, not pixels; a screenshot of
//! each page at each size goes to `target/screenshots/` (the path is printed) for a person
//! to look at. One server and one browser (resized) serve the whole file, to keep it short.
//! Skipped (`SKIPPED` on stdout) where Chromium or axe-core is not installed, unless
//! `INAROW_REQUIRE_BROWSER=1`.

use std::path::PathBuf;
use std::time::Instant;

use inarow_e2e::browser::{Browser, axe_source};
use inarow_e2e::client::Client;
use inarow_e2e::requests::plan;
use inarow_e2e::{TestServer, fast_config};
use inarow_protocol::{RoomId, Rules, RulesSpec, SeatChoice, SeatRequest};
use serde_json::Value;

/// The room view's data attributes, which the web client keeps in step with the snapshot.
const VIEW: &str = "document.getElementById('room-view').dataset";

/// The screen sizes of issue 37, in CSS pixels, with the name the screenshots carry.
const SIZES: [(u32, u32, &str); 5] = [
    (360, 640, "phone-360x640"),
    (390, 844, "phone-390x844"),
    (768, 1024, "tablet-768x1024"),
    (1366, 768, "laptop-1366x768"),
    (1920, 1080, "desktop-1920x1080"),
];

/// The board's invariants, checked in the page (once its animations have finished): returns
/// `{problems: [..], cell, stones}`.
/// The board is scrolled into view first (as a player scrolls to it), then must be wholly
/// inside the viewport with its coordinates.
const BOARD_CHECK: &str = r"
for (const a of document.getAnimations()) a.finish(); // the picture at rest
const problems = [];
const vw = window.innerWidth, vh = window.innerHeight;
const root = document.documentElement;
if (root.scrollWidth > vw) problems.push(`the page is ${root.scrollWidth}px wide in a ${vw}px viewport`);
const wrap = document.getElementById('board-wrap');
wrap.scrollIntoView({block: 'nearest', inline: 'nearest'});
const b = wrap.getBoundingClientRect();
if (b.left < -0.5 || b.top < -0.5 || b.right > vw + 0.5 || b.bottom > vh + 0.5)
  problems.push(`the board ${Math.round(b.left)},${Math.round(b.top)}-${Math.round(b.right)},${Math.round(b.bottom)} is not wholly inside the ${vw}x${vh} viewport`);
const w = Number(wrap.style.getPropertyValue('--w')), h = Number(wrap.style.getPropertyValue('--h'));
const cells = [...document.querySelectorAll('#board .cell')];
if (cells.length !== w * h) problems.push(`${cells.length} cells for a ${w}x${h} board`);
const first = cells[0].getBoundingClientRect();
const size = first.width;
if (size < 12) problems.push(`cells of ${size}px are too small to hit`);
const tops = new Map(), lefts = new Map();
for (const cell of cells) {
  const r = cell.getBoundingClientRect();
  const name = cell.dataset.cell;
  if (Math.abs(r.width - r.height) > 1) problems.push(`${name} is ${r.width}x${r.height}, not square`);
  if (Math.abs(r.width - size) > 1 || Math.abs(r.height - size) > 1) problems.push(`${name} is ${r.width}x${r.height}, others ${size}`);
  const row = cell.dataset.row, col = cell.dataset.col;
  if (tops.has(row) && Math.abs(tops.get(row) - r.top) > 1) problems.push(`${name} is out of its row`);
  if (lefts.has(col) && Math.abs(lefts.get(col) - r.left) > 1) problems.push(`${name} is out of its column`);
  tops.set(row, r.top); lefts.set(col, r.left);
}
const stones = [...document.querySelectorAll('#board .stone')];
let stoneSize = null;
for (const stone of stones) {
  const r = stone.getBoundingClientRect();
  const name = stone.parentElement.dataset.cell;
  if (Math.abs(r.width - r.height) > 1) problems.push(`the stone on ${name} is ${r.width}x${r.height}, an oval`);
  const radius = getComputedStyle(stone).borderTopLeftRadius;
  if (radius !== '50%' && parseFloat(radius) < r.width / 2 - 0.5) problems.push(`the stone on ${name} has corners (${radius})`);
  if (stoneSize === null) stoneSize = r.width;
  else if (Math.abs(r.width - stoneSize) > 1) problems.push(`the stone on ${name} is ${r.width}px wide, others ${stoneSize}px`);
}
const ranks = [...document.querySelectorAll('#ranks span')].map((s) => s.textContent);
const files = [...document.querySelectorAll('#files span')].map((s) => s.textContent);
const wantFiles = [...Array(w).keys()].map((i) => String.fromCharCode(97 + i));
const wantRanks = [...Array(h).keys()].map((i) => String(h - i));
if (files.join() !== wantFiles.join()) problems.push(`columns labelled ${files.join()}`);
if (ranks.join() !== wantRanks.join()) problems.push(`rows labelled ${ranks.join()}`);
for (const label of document.querySelectorAll('#ranks span, #files span')) {
  const r = label.getBoundingClientRect();
  if (r.left < 0 || r.right > vw || r.top < 0 || r.bottom > vh) problems.push(`coordinate ${label.textContent} is off screen`);
  if (r.height > size + 1 || r.width > 2 * size + 30) problems.push(`coordinate ${label.textContent} is ${r.width}x${r.height}: wrapped or too big`);
}
return {problems, cell: size, stones: stones.length};
";

/// The lobby's invariants: nothing wider than the viewport, every control on screen
/// horizontally, the custom rules hidden until "Custom" is chosen, then shown and fitting.
const LOBBY_CHECK: &str = r"
const problems = [];
const vw = window.innerWidth;
const fits = (what) => {
  if (document.documentElement.scrollWidth > vw) problems.push(`${what}: the page is ${document.documentElement.scrollWidth}px wide in a ${vw}px viewport`);
  for (const el of document.querySelectorAll('#lobby-view input, #lobby-view select, #lobby-view button, #lobby-view label, #lobby-view a')) {
    if (!el.offsetParent) continue;
    const r = el.getBoundingClientRect();
    if (r.left < -0.5 || r.right > vw + 0.5) problems.push(`${what}: ${el.id || el.textContent.trim()} spans ${Math.round(r.left)}-${Math.round(r.right)}`);
  }
};
const custom = document.getElementById('custom-rules');
const rules = document.getElementById('create-rules');
if (custom.offsetParent) problems.push('the custom fields show with a preset chosen');
fits('with a preset');
rules.value = 'custom';
rules.dispatchEvent(new Event('change', {bubbles: true}));
if (!custom.offsetParent) problems.push('the custom fields stay hidden with Custom chosen');
fits('with Custom chosen');
for (const label of document.querySelectorAll('#lobby-view label')) {
  if (!label.offsetParent) continue;
  for (const node of label.childNodes) {
    if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
    const words = document.createRange();
    words.selectNodeContents(node);
    const lines = new Set([...words.getClientRects()].map((r) => Math.round(r.top)));
    const single = node.textContent.trim().split(/\s+/).length === 1;
    // A one-word label broken across lines is broken inside the word.
    if (single && lines.size > 1) problems.push(`the label ${node.textContent.trim()} is broken across ${lines.size} lines`);
  }
}
for (const box of document.querySelectorAll('#lobby-view input[type=checkbox]')) {
  const label = box.closest('label');
  if (!label) { problems.push(`${box.id} has no label around it`); continue; }
  const a = box.getBoundingClientRect(), t = label.getBoundingClientRect();
  if (Math.abs((a.top + a.bottom) / 2 - (t.top + t.bottom) / 2) > 4 || t.height > 3 * a.height) problems.push(`${box.id} is not beside its words`);
}
rules.value = 'tictactoe';
rules.dispatchEvent(new Event('change', {bubbles: true}));
return problems;
";

/// Where the screenshots go: `target/screenshots/`.
fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| PathBuf::from("screenshots"), |t| t.join("screenshots"));
    std::fs::create_dir_all(&dir).expect("create the screenshot directory");
    dir
}

/// Custom rules.
fn rules(width: u32, height: u32, k: u32, gravity: bool) -> RulesSpec {
    RulesSpec::Custom(Rules {
        width,
        height,
        k,
        gravity,
    })
}

/// A room Ann (X) and Bob (O) play `moves` in, alternately from X.
async fn game(ann: &mut Client, bob: &mut Client, rules: RulesSpec, moves: &[&str]) -> RoomId {
    let room = ann
        .create_room(rules, plan(SeatRequest::Me, SeatRequest::Open), false)
        .await
        .id;
    bob.join(&room, Some(SeatChoice::O)).await;
    for (ply, mv) in moves.iter().enumerate() {
        let player = if ply % 2 == 0 { &mut *ann } else { &mut *bob };
        player
            .play(&room, u32::try_from(ply).expect("a short game"), mv)
            .await;
    }
    room
}

/// Shows `room` in the browser (as a spectator) and waits for `ply` moves on its board.
async fn show(browser: &Browser, room: &RoomId, ply: usize) {
    browser
        .eval(&format!("location.hash = '#/w/{}'", room.0))
        .await;
    browser
        .wait_for(
            &format!("room {} at ply {ply}", room.0),
            &format!(
                "{VIEW}.room === '{}' && {VIEW}.ply === '{ply}' && \
                 document.querySelectorAll('#board .cell').length > 0 && \
                 !document.getElementById('room-view').hidden",
                room.0
            ),
        )
        .await;
}

/// Checks the board on screen; fails the test with every problem found.
async fn check_board(browser: &Browser, what: &str, stones: usize) -> f64 {
    let found = browser.eval(BOARD_CHECK).await;
    let problems: Vec<&str> = found["problems"]
        .as_array()
        .expect("a list of problems")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(problems.is_empty(), "{what}: {}", problems.join("; "));
    assert_eq!(
        found["stones"].as_u64(),
        u64::try_from(stones).ok(),
        "{what}: a stone for every move"
    );
    found["cell"].as_f64().unwrap_or_default()
}

/// The serious and critical violations axe-core finds on the page, printing all it finds.
async fn axe_serious(browser: &Browser, axe: &str, what: &str) -> Vec<String> {
    let violations = browser.axe(axe).await;
    let all = violations.as_array().cloned().unwrap_or_default();
    let mut serious = Vec::new();
    for v in &all {
        let impact = v["impact"].as_str().unwrap_or("?");
        println!(
            "axe on {what}: {impact} {}: {} ({} nodes) {}",
            v["id"].as_str().unwrap_or("?"),
            v["help"].as_str().unwrap_or(""),
            v["nodes"].as_array().map_or(0, Vec::len),
            v["nodes"]
        );
        if impact == "serious" || impact == "critical" {
            serious.push(format!("{} {}", impact, v["id"]));
        }
    }
    println!(
        "axe on {what}: {} violations, {} serious or critical",
        all.len(),
        serious.len()
    );
    serious
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_board_is_square_round_and_on_screen_at_five_sizes() {
    let started = Instant::now();
    let server = TestServer::start(fast_config()).await;
    let Some(browser) = Browser::start("board looks", 1920, 1080).await else {
        return;
    };
    let axe = axe_source("board looks (axe-core)");
    let mut ann = server.lobby("Ann").await;
    let mut bob = server.lobby("Bob").await;
    // Stones of both colours on a gomoku board; a Connect Four game; a won tic-tac-toe game.
    let gomoku_moves = ["h8", "h9", "i8", "g9", "j8", "i9", "g8", "j7"];
    let gomoku = game(&mut ann, &mut bob, rules(15, 15, 5, false), &gomoku_moves).await;
    let c4_moves = ["d", "d", "e", "c", "d", "e", "f"];
    let connect4 = game(
        &mut ann,
        &mut bob,
        RulesSpec::Preset("connect4".into()),
        &c4_moves,
    )
    .await;
    let ttt_moves = ["a1", "b1", "a2", "b2", "a3"];
    let ttt = game(
        &mut ann,
        &mut bob,
        RulesSpec::Preset("tictactoe".into()),
        &ttt_moves,
    )
    .await;
    // The extremes: the largest board, a tall and a wide one, with and without gravity.
    let extra = [
        (
            "19x19",
            game(&mut ann, &mut bob, rules(19, 19, 5, false), &["j10", "k10"]).await,
            2,
        ),
        (
            "4x12 gravity",
            game(&mut ann, &mut bob, rules(4, 12, 4, true), &["a", "a", "b"]).await,
            3,
        ),
        (
            "19x3",
            game(&mut ann, &mut bob, rules(19, 3, 3, false), &["a1", "s3"]).await,
            2,
        ),
        (
            "5x5 k4",
            game(&mut ann, &mut bob, rules(5, 5, 4, false), &["c3", "b2"]).await,
            2,
        ),
    ];
    let shots = screenshot_dir();
    browser.goto(&format!("http://{}/", server.addr())).await;
    browser.type_into("#name-input", "Eve").await;
    browser.click("#name-form button").await;
    browser
        .wait_for("welcome", "document.body.dataset.protocol")
        .await;
    let mut serious = Vec::new();
    for (width, height, size) in SIZES {
        browser.set_viewport(width, height).await;
        browser.eval("location.hash = '#/'").await;
        browser
            .wait_for(
                "the lobby",
                "!document.getElementById('lobby-view').hidden && \
                 document.querySelectorAll('#room-list li').length >= 7",
            )
            .await;
        let problems = browser.eval(LOBBY_CHECK).await;
        assert_eq!(problems, serde_json::json!([]), "the lobby at {size}");
        browser.eval("window.scrollTo(0, 0)").await;
        browser
            .screenshot(&shots.join(format!("lobby-{size}.png")))
            .await;
        if let (Some(axe), "laptop-1366x768") = (&axe, size) {
            serious.extend(axe_serious(&browser, axe, "the lobby").await);
        }
        if width < 400 {
            // The new-room form with its custom fields open, as a phone shows it.
            browser
                .eval(
                    "const rules = document.getElementById('create-rules'); rules.value = 'custom';
                     rules.dispatchEvent(new Event('change', {bubbles: true}));
                     document.getElementById('create-title').scrollIntoView();",
                )
                .await;
            browser
                .screenshot(&shots.join(format!("new-room-custom-{size}.png")))
                .await;
            browser
                .eval(
                    "const rules = document.getElementById('create-rules'); rules.value = 'tictactoe';
                     rules.dispatchEvent(new Event('change', {bubbles: true}));",
                )
                .await;
        }
        for (name, room, stones) in [
            ("gomoku", &gomoku, gomoku_moves.len()),
            ("connect4", &connect4, c4_moves.len()),
            ("tictactoe-won", &ttt, ttt_moves.len()),
        ] {
            show(&browser, room, stones).await;
            let cell = check_board(&browser, &format!("{name} at {size}"), stones).await;
            browser.eval("window.scrollTo(0, 0)").await;
            browser
                .screenshot(&shots.join(format!("{name}-{size}.png")))
                .await;
            println!("{name} at {size}: cells of {cell:.1} px");
            if let (Some(axe), "laptop-1366x768", "gomoku" | "tictactoe-won") = (&axe, size, name) {
                serious.extend(axe_serious(&browser, axe, name).await);
            }
        }
        for (name, room, stones) in &extra {
            show(&browser, room, *stones).await;
            check_board(&browser, &format!("{name} at {size}"), *stones).await;
        }
    }
    // A spectator's hints on gomoku at phone size: a legend, and marks that fit their cells.
    browser.set_viewport(390, 844).await;
    show(&browser, &gomoku, gomoku_moves.len()).await;
    browser.click("[data-action='hint']").await;
    let marks = browser
        .wait_for(
            "hints on the gomoku board",
            "document.querySelector('#hint-info .legend') && \
             document.querySelectorAll('#board .cell.hint').length",
        )
        .await;
    let clipped = browser
        .eval(
            "return [...document.querySelectorAll('#board .cell.hint')]
               .filter((c) => c.scrollWidth > c.clientWidth + 1 || parseFloat(getComputedStyle(c).fontSize) < 9.5)
               .map((c) => c.dataset.cell + ' ' + c.textContent + ' ' + getComputedStyle(c).fontSize)",
        )
        .await;
    assert_eq!(
        clipped,
        serde_json::json!([]),
        "hint marks that do not fit or are too small"
    );
    browser.eval("window.scrollTo(0, 0)").await;
    let path = shots.join("gomoku-hints-phone-390x844.png");
    browser.screenshot(&path).await;
    println!("{marks} hint marks on gomoku");
    // The winning line and the last move are marked on the won game.
    show(&browser, &ttt, ttt_moves.len()).await;
    let lit = browser
        .eval("return [document.querySelectorAll('.cell.win').length, document.querySelectorAll('.cell.last').length]")
        .await;
    assert_eq!(
        lit,
        serde_json::json!([3, 1]),
        "the winning line and the last move"
    );
    println!("screenshots: {}", shots.display());
    println!(
        "board looks: {:.1} s for five sizes",
        started.elapsed().as_secs_f64()
    );
    assert!(
        serious.is_empty(),
        "axe-core found serious or critical violations: {serious:?}"
    );
    browser.quit().await;
    server.shutdown().await;
}
