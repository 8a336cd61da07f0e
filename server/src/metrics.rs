//! Counters for `GET /metrics`, in the Prometheus text format.
//!
//! The counters are process-wide statics, like a Prometheus client's default registry, so
//! that any module can count without being handed a registry: one call such as
//! [`game_finished`] or [`ai_search`]. A process runs one server; tests that start several
//! servers in one process only assert that counts grow. The gauges that a server already
//! knows (sessions, rooms) are read from its state when scraped.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use inarow_protocol::ErrorCode;

/// Upper bounds of the AI move time histogram, in seconds: from a tic-tac-toe reply to a
/// search that ran out its whole budget (1 s by default).
const AI_BUCKETS: [f64; 9] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5];

/// Every counter of the process.
struct Metrics {
    /// Open TCP connections (HTTP and WebSocket, TLS or not).
    connections: AtomicI64,
    /// Open WebSocket connections.
    websockets: AtomicI64,
    /// HTTP requests answered (the WebSocket upgrade included).
    http_requests: AtomicU64,
    /// Messages (text or binary frames) received from clients.
    messages_in: AtomicU64,
    /// Messages (text frames) written to clients.
    messages_out: AtomicU64,
    /// `error` messages sent, by code, in the order of [`ErrorCode::ALL`].
    errors: [AtomicU64; ErrorCode::ALL.len()],
    /// Games that have had a first move.
    games_started: AtomicU64,
    /// Games that reached an end (won, drawn, resigned).
    games_finished: AtomicU64,
    /// Games whose room closed before they ended.
    games_abandoned: AtomicU64,
    /// AI jobs waiting for a search slot.
    ai_queue: AtomicI64,
    /// AI searches per bucket of [`AI_BUCKETS`] (not cumulative; the `+Inf` bucket last).
    ai_buckets: [AtomicU64; AI_BUCKETS.len() + 1],
    /// Total AI search time, in microseconds.
    ai_micros: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);

static METRICS: Metrics = Metrics {
    connections: AtomicI64::new(0),
    websockets: AtomicI64::new(0),
    http_requests: AtomicU64::new(0),
    messages_in: AtomicU64::new(0),
    messages_out: AtomicU64::new(0),
    errors: [ZERO; ErrorCode::ALL.len()],
    games_started: AtomicU64::new(0),
    games_finished: AtomicU64::new(0),
    games_abandoned: AtomicU64::new(0),
    ai_queue: AtomicI64::new(0),
    ai_buckets: [ZERO; AI_BUCKETS.len() + 1],
    ai_micros: AtomicU64::new(0),
};

/// Counts one open gauge (a connection, a WebSocket, a queued AI job) while it lives.
#[must_use = "the gauge goes down when this is dropped"]
pub(crate) struct Open(&'static AtomicI64);

impl Open {
    fn new(gauge: &'static AtomicI64) -> Open {
        gauge.fetch_add(1, Ordering::Relaxed);
        Open(gauge)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A TCP connection is open until the returned guard drops.
pub(crate) fn connection_opened() -> Open {
    Open::new(&METRICS.connections)
}

/// A WebSocket is open until the returned guard drops.
pub(crate) fn websocket_opened() -> Open {
    Open::new(&METRICS.websockets)
}

/// An AI job waits for a search slot until the returned guard drops.
pub(crate) fn ai_job_queued() -> Open {
    Open::new(&METRICS.ai_queue)
}

/// One HTTP request was answered.
pub(crate) fn http_request() {
    METRICS.http_requests.fetch_add(1, Ordering::Relaxed);
}

/// One message arrived from a client.
pub(crate) fn message_in() {
    METRICS.messages_in.fetch_add(1, Ordering::Relaxed);
}

/// One message was written to a client.
pub(crate) fn message_out() {
    METRICS.messages_out.fetch_add(1, Ordering::Relaxed);
}

/// An `error` with `code` was sent.
pub(crate) fn error_sent(code: ErrorCode) {
    if let Some(i) = ErrorCode::ALL.iter().position(|c| *c == code) {
        METRICS.errors[i].fetch_add(1, Ordering::Relaxed);
    }
}

/// A game had its first move.
pub(crate) fn game_started() {
    METRICS.games_started.fetch_add(1, Ordering::Relaxed);
}

/// A game reached its end.
pub(crate) fn game_finished() {
    METRICS.games_finished.fetch_add(1, Ordering::Relaxed);
}

/// A room closed during a game that had started.
pub(crate) fn game_abandoned() {
    METRICS.games_abandoned.fetch_add(1, Ordering::Relaxed);
}

/// An AI search took `took`.
pub(crate) fn ai_search(took: Duration) {
    let seconds = took.as_secs_f64();
    let bucket = AI_BUCKETS
        .iter()
        .position(|bound| seconds <= *bound)
        .unwrap_or(AI_BUCKETS.len());
    METRICS.ai_buckets[bucket].fetch_add(1, Ordering::Relaxed);
    let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
    METRICS.ai_micros.fetch_add(micros, Ordering::Relaxed);
}

/// What the server's state knows at scrape time.
pub(crate) struct Gauges {
    /// Live and held sessions.
    pub(crate) sessions: usize,
    /// Open rooms.
    pub(crate) rooms: usize,
    /// The store's writer: writes committed, failed commits retried, writes given up.
    pub(crate) store_written: u64,
    /// Failed commit attempts that were retried.
    pub(crate) store_retries: u64,
    /// Writes given up (refused by SQLite, or not queued because the queue was full).
    pub(crate) store_dropped: u64,
    /// Writes queued and not yet committed or given up.
    pub(crate) store_queued: u64,
}

/// The Prometheus text exposition of every metric.
pub(crate) fn render(gauges: &Gauges) -> String {
    let m = &METRICS;
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let gauge = |c: &AtomicI64| c.load(Ordering::Relaxed).max(0);
    let mut out = String::with_capacity(4096);
    let mut one = |name: &str, kind: &str, help: &str, value: String| {
        let _ = write!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"
        );
    };
    one(
        "inarow_connections",
        "gauge",
        "Open TCP connections (HTTP and WebSocket).",
        gauge(&m.connections).to_string(),
    );
    one(
        "inarow_websockets",
        "gauge",
        "Open WebSocket connections.",
        gauge(&m.websockets).to_string(),
    );
    one(
        "inarow_sessions",
        "gauge",
        "Sessions, live or held for reconnection.",
        gauges.sessions.to_string(),
    );
    one(
        "inarow_rooms",
        "gauge",
        "Open rooms.",
        gauges.rooms.to_string(),
    );
    let (started, finished) = (get(&m.games_started), get(&m.games_finished));
    let abandoned = get(&m.games_abandoned);
    one(
        "inarow_games_in_progress",
        "gauge",
        "Games with a first move, not ended and not abandoned.",
        started
            .saturating_sub(finished)
            .saturating_sub(abandoned)
            .to_string(),
    );
    one(
        "inarow_games_started_total",
        "counter",
        "Games that had a first move.",
        started.to_string(),
    );
    one(
        "inarow_games_finished_total",
        "counter",
        "Games won, drawn or resigned.",
        finished.to_string(),
    );
    one(
        "inarow_games_abandoned_total",
        "counter",
        "Games whose room closed before they ended.",
        abandoned.to_string(),
    );
    one(
        "inarow_http_requests_total",
        "counter",
        "HTTP requests answered, WebSocket upgrades included.",
        get(&m.http_requests).to_string(),
    );
    one(
        "inarow_messages_in_total",
        "counter",
        "Messages received from clients.",
        get(&m.messages_in).to_string(),
    );
    one(
        "inarow_messages_out_total",
        "counter",
        "Messages sent to clients.",
        get(&m.messages_out).to_string(),
    );
    // The store: a host sees a failing disk here before players miss their games.
    one(
        "inarow_store_writes_total",
        "counter",
        "Writes (finished games, room checkpoints, sessions) committed to the data file.",
        gauges.store_written.to_string(),
    );
    one(
        "inarow_store_retries_total",
        "counter",
        "Failed commits retried (a locked database, an I/O error, a full disk).",
        gauges.store_retries.to_string(),
    );
    one(
        "inarow_store_dropped_total",
        "counter",
        "Writes given up: refused by SQLite, or the queue full after a long outage.",
        gauges.store_dropped.to_string(),
    );
    one(
        "inarow_store_queue_length",
        "gauge",
        "Writes waiting for the store's writer.",
        gauges.store_queued.to_string(),
    );
    one(
        "inarow_ai_queue_length",
        "gauge",
        "AI moves waiting for a search slot.",
        gauge(&m.ai_queue).to_string(),
    );
    out.push_str(
        "# HELP inarow_errors_total Error messages sent to clients, by code.\n\
         # TYPE inarow_errors_total counter\n",
    );
    for (code, count) in ErrorCode::ALL.iter().zip(&m.errors) {
        let _ = writeln!(
            out,
            "inarow_errors_total{{code=\"{}\"}} {}",
            code.as_str(),
            get(count)
        );
    }
    out.push_str(
        "# HELP inarow_ai_move_seconds Time of one AI seat's search (hints not counted).\n\
         # TYPE inarow_ai_move_seconds histogram\n",
    );
    let mut cumulative = 0;
    for (i, count) in m.ai_buckets.iter().enumerate() {
        cumulative += get(count);
        let le = AI_BUCKETS
            .get(i)
            .map_or_else(|| "+Inf".to_owned(), ToString::to_string);
        let _ = writeln!(
            out,
            "inarow_ai_move_seconds_bucket{{le=\"{le}\"}} {cumulative}"
        );
    }
    let sum = get(&m.ai_micros) as f64 / 1e6;
    let _ = writeln!(out, "inarow_ai_move_seconds_sum {sum}");
    let _ = writeln!(out, "inarow_ai_move_seconds_count {cumulative}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_line_has_a_type() {
        let text = render(&Gauges {
            sessions: 3,
            rooms: 2,
            store_written: 7,
            store_retries: 1,
            store_dropped: 0,
            store_queued: 2,
        });
        assert!(text.contains("\ninarow_sessions 3\n"));
        assert!(text.contains("\ninarow_store_writes_total 7\n"));
        assert!(text.contains("\ninarow_store_queue_length 2\n"));
        assert!(text.contains("\ninarow_rooms 2\n"));
        assert!(text.contains("inarow_errors_total{code=\"stale_ply\"} "));
        assert!(text.contains("inarow_ai_move_seconds_bucket{le=\"+Inf\"} "));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let name = line.split(['{', ' ']).next().unwrap_or_default();
            let family = name
                .trim_end_matches("_bucket")
                .trim_end_matches("_sum")
                .trim_end_matches("_count");
            assert!(
                text.contains(&format!("# TYPE {family} ")),
                "{line} has no TYPE"
            );
        }
    }

    #[test]
    fn ai_times_fall_into_cumulative_buckets() {
        ai_search(Duration::from_millis(3));
        let text = render(&Gauges {
            sessions: 0,
            rooms: 0,
            store_written: 0,
            store_retries: 0,
            store_dropped: 0,
            store_queued: 0,
        });
        let count = |le: &str| -> u64 {
            let prefix = format!("inarow_ai_move_seconds_bucket{{le=\"{le}\"}} ");
            text.lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        assert!(count("0.005") >= 1);
        assert!(count("+Inf") >= count("0.005"));
        assert!(count("0.005") >= count("0.001"));
    }
}
