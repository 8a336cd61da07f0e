//! Headless Chromium for the browser tests, driven through chromedriver's WebDriver HTTP
//! API (a few JSON requests over hyper; no WebDriver crate needed for the dozen calls used).
//!
//! [`Browser::start`] returns `None` (the test prints `SKIPPED` and passes) where Chromium
//! or chromedriver is missing, unless `INAROW_REQUIRE_BROWSER=1` (set by `.ci/run`), which
//! makes that a failure. Waiting is done inside the page: [`Browser::wait_for`] runs a
//! script that resolves when a condition on the DOM holds (checked on every DOM change),
//! under WebDriver's script timeout, so the test never sleeps.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use base64::Engine as _;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

/// Longest wait for one condition in the page, and for a page load.
pub const BROWSER_WAIT: Duration = Duration::from_secs(20);
/// The key WebDriver names an element reference with.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The Chromium binary and its driver, from `INAROW_CHROMIUM` / `INAROW_CHROMEDRIVER` or
/// Debian's paths.
fn binaries() -> Option<(PathBuf, PathBuf)> {
    let pick = |var: &str, default: &str| {
        let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
        path.exists().then_some(path)
    };
    Some((
        pick("INAROW_CHROMIUM", "/usr/bin/chromium")?,
        pick("INAROW_CHROMEDRIVER", "/usr/bin/chromedriver")?,
    ))
}

/// Whether a missing browser must fail the test rather than skip it.
fn browser_required() -> bool {
    std::env::var("INAROW_REQUIRE_BROWSER").is_ok_and(|v| v == "1")
}

/// axe-core's script, from `INAROW_AXE` or `tests/axe/node_modules/axe-core/axe.min.js`
/// (`npm ci --prefix tests/axe`, which `.ci/run` does). `None` (after printing `SKIPPED`)
/// where it is not installed, unless `INAROW_REQUIRE_BROWSER=1`, which makes that a failure.
pub fn axe_source(test: &str) -> Option<String> {
    let path = std::env::var_os("INAROW_AXE").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("axe")
                .join("node_modules/axe-core/axe.min.js")
        },
        PathBuf::from,
    );
    match std::fs::read_to_string(&path) {
        Ok(source) => Some(source),
        Err(error) => {
            assert!(
                !browser_required(),
                "INAROW_REQUIRE_BROWSER=1 but axe-core is missing at {} ({error}): \
                 npm ci --prefix tests/axe",
                path.display()
            );
            println!(
                "SKIPPED: {test}: axe-core not installed at {}",
                path.display()
            );
            None
        }
    }
}

/// One headless Chromium with its own fresh profile, driven by its own chromedriver.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    profile: PathBuf,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium (a window of `width` × `height` CSS
    /// pixels), or returns `None` after printing `SKIPPED: <test>` when they are not
    /// installed and not required.
    pub async fn start(test: &str, width: u32, height: u32) -> Option<Browser> {
        let Some((chromium, chromedriver)) = binaries() else {
            assert!(
                !browser_required(),
                "INAROW_REQUIRE_BROWSER=1 but chromium or chromedriver is missing \
                 (apt-get install chromium chromium-driver)"
            );
            println!("SKIPPED: {test}: chromium or chromedriver not installed");
            return None;
        };
        static PROFILES: AtomicU32 = AtomicU32::new(0);
        let profile = std::env::temp_dir().join(format!(
            "inarow-chromium-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&profile);
        let mut driver = Command::new(&chromedriver)
            .arg("--port=0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let port = driver_port(&mut driver);
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
            profile,
        };
        let args = json!([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            format!("--user-data-dir={}", browser.profile.display()),
            format!("--window-size={width},{height}"),
        ]);
        let wait_ms = u64::try_from(BROWSER_WAIT.as_millis()).unwrap_or(u64::MAX);
        let created = browser
            .call(
                Method::POST,
                "/session",
                Some(json!({"capabilities": {"alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {"binary": chromium, "args": args},
                    "timeouts": {"script": wait_ms, "pageLoad": wait_ms, "implicit": 0},
                }}})),
            )
            .await;
        browser.session = created["sessionId"]
            .as_str()
            .expect("new session has an id")
            .to_owned();
        Some(browser)
    }

    /// Sends one WebDriver command; fails the test on a WebDriver error.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let answer = tokio::time::timeout(
            BROWSER_WAIT + Duration::from_secs(10),
            self.call_quiet(method.clone(), path, body),
        )
        .await
        .unwrap_or_else(|_| panic!("chromedriver did not answer {method} {path}"));
        answer.unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
    }

    fn at(&self, path: &str) -> String {
        format!("/session/{}{path}", self.session)
    }

    /// Opens `url` and waits for the page to load.
    pub async fn goto(&self, url: &str) {
        self.call(Method::POST, &self.at("/url"), Some(json!({"url": url})))
            .await;
    }

    /// Opens a new tab of the same browser (sharing its localStorage) and returns its
    /// handle; the commands that follow still go to the current tab until [`Browser::switch_to`].
    pub async fn new_tab(&self) -> String {
        let made = self
            .call(
                Method::POST,
                &self.at("/window/new"),
                Some(json!({"type": "tab"})),
            )
            .await;
        made["handle"]
            .as_str()
            .expect("a new tab has a handle")
            .to_owned()
    }

    /// The handle of the current tab.
    pub async fn tab(&self) -> String {
        let handle = self.call(Method::GET, &self.at("/window"), None).await;
        handle.as_str().expect("a tab handle").to_owned()
    }

    /// Sends the commands that follow to the tab `handle`.
    pub async fn switch_to(&self, handle: &str) {
        self.call(
            Method::POST,
            &self.at("/window"),
            Some(json!({"handle": handle})),
        )
        .await;
    }

    /// Reloads the page.
    pub async fn reload(&self) {
        self.call(Method::POST, &self.at("/refresh"), Some(json!({})))
            .await;
    }

    async fn element(&self, css: &str) -> String {
        let found = self
            .call(
                Method::POST,
                &self.at("/element"),
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        found[ELEMENT_KEY]
            .as_str()
            .unwrap_or_else(|| panic!("no element id for {css}"))
            .to_owned()
    }

    /// Clicks the element `css` selects, as a mouse would.
    pub async fn click(&self, css: &str) {
        let id = self.element(css).await;
        self.call(
            Method::POST,
            &self.at(&format!("/element/{id}/click")),
            Some(json!({})),
        )
        .await;
    }

    /// Types `text` into the element `css` selects (focusing it first), as a keyboard would.
    pub async fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css).await;
        self.call(
            Method::POST,
            &self.at(&format!("/element/{id}/value")),
            Some(json!({"text": text})),
        )
        .await;
    }

    /// Makes the page's viewport `width` × `height` CSS pixels (`innerWidth`,
    /// `innerHeight`), whatever the window's own frame takes: one browser serves every
    /// screen size of a test.
    pub async fn set_viewport(&self, width: u32, height: u32) {
        let (mut outer_w, mut outer_h) = (width, height);
        let mut seen = (0, 0);
        for _ in 0..5 {
            self.call(
                Method::POST,
                &self.at("/window/rect"),
                Some(json!({"width": outer_w, "height": outer_h})),
            )
            .await;
            // The page learns its new size by the next frames, not at once.
            let inner = self
                .call(
                    Method::POST,
                    &self.at("/execute/async"),
                    Some(
                        json!({"script": "const done = arguments[arguments.length - 1];
                        requestAnimationFrame(() => requestAnimationFrame(
                          () => done([window.innerWidth, window.innerHeight])));",
                        "args": []}),
                    ),
                )
                .await;
            let got = |i: usize| {
                inner[i]
                    .as_u64()
                    .and_then(|v| u32::try_from(v).ok())
                    .unwrap_or(0)
            };
            let (w, h) = (got(0), got(1));
            if (w, h) == (width, height) {
                return;
            }
            seen = (w, h);
            outer_w = (outer_w + width).saturating_sub(w);
            outer_h = (outer_h + height).saturating_sub(h);
        }
        panic!(
            "the viewport could not be made {width}x{height}: it stays {}x{}",
            seen.0, seen.1
        );
    }

    /// Runs axe-core (its `axe.min.js` as `source`) on the page and returns its violations
    /// as `[{id, impact, help, nodes: [target…]}]`.
    pub async fn axe(&self, source: &str) -> Value {
        let script = format!(
            r"const done = arguments[arguments.length - 1];
            if (!window.axe) {{ {source}
            }}
            window.axe.run(document, {{resultTypes: ['violations']}}).then(
              (r) => done(r.violations.map((v) => ({{id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => n.target.join(' ') + ' — ' + n.failureSummary)}}))),
              (e) => done({{error: String(e)}}));"
        );
        let found = self
            .call(
                Method::POST,
                &self.at("/execute/async"),
                Some(json!({"script": script, "args": []})),
            )
            .await;
        assert!(found.get("error").is_none(), "axe-core failed: {found}");
        found
    }

    /// Runs `body` (a function body that may `return` a value) in the page.
    pub async fn eval(&self, body: &str) -> Value {
        self.call(
            Method::POST,
            &self.at("/execute/sync"),
            Some(json!({"script": body, "args": []})),
        )
        .await
    }

    /// Waits until the JavaScript expression `condition` is truthy in the page and returns
    /// its value; fails the test after [`BROWSER_WAIT`] naming the condition and `what`.
    pub async fn wait_for(&self, what: &str, condition: &str) -> Value {
        let script = format!(
            r"const done = arguments[arguments.length - 1];
            const test = () => {{ try {{ return ({condition}); }} catch (e) {{ return null; }} }};
            const first = test();
            if (first) return done(first);
            const watch = new MutationObserver(() => {{
              const value = test();
              if (value) {{ watch.disconnect(); done(value); }}
            }});
            watch.observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});"
        );
        let answer = tokio::time::timeout(
            BROWSER_WAIT + Duration::from_secs(5),
            self.call_quiet(
                Method::POST,
                &self.at("/execute/async"),
                Some(json!({"script": script, "args": []})),
            ),
        )
        .await;
        match answer {
            Ok(Ok(value)) => value,
            Ok(Err(error)) => {
                let page = self.eval("return document.body.innerText").await;
                panic!("browser waited for {what} ({condition}): {error}\npage text: {page}")
            }
            Err(_) => panic!("browser waited for {what} ({condition}): no answer"),
        }
    }

    /// Like [`Browser::call`], but a WebDriver error is returned rather than failing.
    async fn call_quiet(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let stream = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .map_err(|e| e.to_string())?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", format!("127.0.0.1:{}", self.port))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(
                body.map_or_else(String::new, |b| b.to_string()),
            )))
            .map_err(|e| e.to_string())?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
        match value["value"]["error"].as_str() {
            Some(error) => Err(format!("{error}: {}", value["value"]["message"])),
            None => Ok(value["value"].clone()),
        }
    }

    /// Saves a PNG of the window to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let encoded = self.call(Method::GET, &self.at("/screenshot"), None).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().expect("a screenshot is base64 text"))
            .expect("the screenshot decodes");
        std::fs::write(path, png).expect("write the screenshot");
    }

    /// Closes the browser (also done, less politely, on drop).
    pub async fn quit(mut self) {
        let _ = self.call_quiet(Method::DELETE, &self.at(""), None).await;
        self.session.clear();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Killing chromedriver alone would leave Chromium running: end the session first
        // when a test failed midway (best effort, blocking, bounded by chromedriver).
        if !self.session.is_empty()
            && let Ok(mut stream) = std::net::TcpStream::connect_timeout(
                &([127, 0, 0, 1], self.port).into(),
                Duration::from_secs(2),
            )
        {
            use std::io::{Read, Write};
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let request = format!(
                "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                self.session
            );
            let _ = stream.write_all(request.as_bytes());
            let _ = stream.read(&mut [0u8; 512]);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Reads chromedriver's stdout until it says which port it listens on.
fn driver_port(driver: &mut Child) -> u16 {
    let stdout = driver
        .stdout
        .take()
        .expect("chromedriver's stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.split("started successfully on port ").nth(1) {
                let port = rest.trim_end_matches('.').trim().parse::<u16>();
                let _ = tx.send(port.ok());
            }
            // Keep draining so chromedriver never blocks on a full pipe.
        }
    });
    rx.recv_timeout(BROWSER_WAIT)
        .ok()
        .flatten()
        .expect("chromedriver did not say its port")
}
