//! Every limit and timing of the server, in one place, with the defaults a host gets.

use std::time::Duration;

pub use crate::ai::external::{EngineLimits, EngineSpec};
use crate::net::tls::TlsIdentity;
use crate::store::DataLocation;

/// The server's limits and timings. `Config::default()` is what `inarow-server` runs with
/// when no flag is given; tests shorten the timings they exercise.
#[derive(Debug, Clone)]
pub struct Config {
    /// Connections served at once; one more is told `server_full` and closed, so a flood
    /// of sockets cannot exhaust memory or file descriptors.
    pub max_connections: usize,
    /// Connections open at once from one address (an IPv4 address, or an IPv6 /64);
    /// one more is told `too_many_connections` and closed (1013), so one host cannot
    /// take the slots of everybody else.
    pub max_connections_per_ip: usize,
    /// New connections one address may open per minute (a bucket of this many, refilled
    /// evenly over the minute); beyond it `too_many_connections`, close 1013. Stops a
    /// reconnect loop from churning sessions and handshakes.
    pub new_connections_per_ip_per_minute: u32,
    /// Sessions one address may hold, live or within their reconnection grace; a `hello`
    /// that would open one more is told `too_many_sessions` and closed (1013). A `hello`
    /// that resumes a session is always served. Bounds the tokens one host is issued.
    pub max_sessions_per_ip: usize,
    /// Rooms open at once; `create_room` beyond it is refused with `too_many_rooms`.
    pub max_rooms: usize,
    /// Rooms one session may have created that are still open; `create_room` beyond it
    /// is refused with `too_many_rooms`, so one client cannot fill the server's rooms.
    /// A room counts until it closes ([`Config::room_idle_timeout`] after it empties).
    pub max_rooms_per_session: usize,
    /// Largest WebSocket frame and message, in bytes; a bigger one closes the connection
    /// (`bye too_large`, close code 1009). Every legitimate message is far smaller.
    pub max_message_size: usize,
    /// Messages per second a connection may send on average (token bucket refill rate).
    pub rate_per_second: u32,
    /// Messages a connection may send in a burst above the average (bucket capacity).
    pub rate_burst: u32,
    /// `rate_limited` answers in one flood before the connection is closed (`bye
    /// rate_limited`, close code 1008); the count resets once the bucket is full again.
    pub rate_strikes: u32,
    /// Time allowed for the TLS handshake and each HTTP request head (the WebSocket
    /// handshake included; an idle keep-alive HTTP connection closes after it), and for
    /// `hello` after the WebSocket handshake, so idle sockets that never speak do not hold
    /// a connection slot.
    pub handshake_timeout: Duration,
    /// Interval between the server's pings, which keep NAT mappings alive and prove the
    /// peer still answers.
    pub ping_interval: Duration,
    /// Silence (no frame at all; pongs count) after which a connection is closed
    /// (`bye idle_timeout`); a few ping intervals.
    pub idle_timeout: Duration,
    /// Longest display name, in characters (names are trimmed, 1 to this many printable
    /// characters).
    pub max_name_chars: usize,
    /// Longest chat line, in characters.
    pub max_chat_chars: usize,
    /// The most time one AI move may take (with the pool idle). When more AI seats wait
    /// than there are `ai_threads`, each search gets a share of it (`ai_threads / waiting`,
    /// at least 10 ms), so no seat waits much more than twice this; a search the engine
    /// proves ends at once.
    pub ai_move_time: Duration,
    /// Minimum time before each move when both seats are AI, so spectators can follow.
    pub ai_pace: Duration,
    /// Full AI searches run at once (the search slots in front of the blocking pool);
    /// as many quick probes may run beside them. By default one fewer than the cores
    /// (at least one), so a core stays free for the connections: with a search on
    /// every core of a 2-core machine, people's move round trips beside 90 AI rooms
    /// had a p99 of 1.9–3.7× their value without them, with one core left 1.4–1.6×.
    pub ai_threads: usize,
    /// How long a dropped player's seats are held for them to reconnect.
    pub reconnect_grace: Duration,
    /// A room that nobody is in (no one connected, no seat held for a dropped player)
    /// for this long closes, and stops counting against its creator's rooms.
    pub room_idle_timeout: Duration,
    /// Frames waiting to be written to one connection; a peer that lets its queue fill is
    /// too slow and is dropped (`bye too_slow`), its seats held for reconnection.
    pub outbound_queue: usize,
    /// Largest HTTP request head (request line and headers), in bytes; a bigger one is
    /// answered 431 and the connection closed. Browsers send well under 4 KiB.
    pub max_request_head: usize,
    /// Serve TLS (`https://`, `wss://`) with this certificate instead of plain TCP; the TLS
    /// handshake counts against `handshake_timeout`.
    pub tls: Option<TlsIdentity>,
    /// External Gomocup engines the host offers as AI seats, probed at start-up
    /// (`--engine NAME=PATH`); see `docs/hosting.md`.
    pub engines: Vec<EngineSpec>,
    /// Settings of the external engines' processes.
    pub engine_limits: EngineLimits,
    /// Where finished games are kept: a SQLite file, or memory only. The library
    /// defaults to memory so that tests write nothing to disk; the binary defaults to a
    /// file in the user's data directory.
    pub data: DataLocation,
}

/// The runtime's worker threads (connections, rooms) by default: the cores the AI's
/// search slots leave, at least one. One thread serves tens of thousands of moves a
/// second, and fewer threads cost less CPU per move: with two workers on two cores, a
/// task woken from the other worker's side woke the sleeping worker to steal it
/// (docs/benchmarks.md).
pub fn default_worker_threads(ai_threads: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(ai_threads)
        .max(1)
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_connections: 10_000,
            max_connections_per_ip: 32,
            new_connections_per_ip_per_minute: 120,
            max_sessions_per_ip: 64,
            max_rooms: 5_000,
            max_rooms_per_session: 8,
            max_message_size: 16 * 1024,
            rate_per_second: 20,
            rate_burst: 40,
            rate_strikes: 40,
            handshake_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(45),
            max_name_chars: inarow_protocol::MAX_NAME_CHARS,
            max_chat_chars: inarow_protocol::MAX_CHAT_CHARS,
            ai_move_time: Duration::from_secs(1),
            ai_pace: Duration::from_millis(700),
            ai_threads: std::thread::available_parallelism().map_or(1, |n| n.get().max(2) - 1),
            reconnect_grace: Duration::from_secs(60),
            room_idle_timeout: Duration::from_secs(30),
            outbound_queue: 256,
            max_request_head: 16 * 1024,
            tls: None,
            engines: Vec::new(),
            engine_limits: EngineLimits::default(),
            data: DataLocation::Memory,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workers_get_the_cores_the_ai_leaves_and_at_least_one() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(default_worker_threads(0), cores);
        assert_eq!(default_worker_threads(cores), 1);
        assert_eq!(default_worker_threads(cores + 5), 1);
        if cores > 1 {
            assert_eq!(default_worker_threads(1), cores - 1);
        }
    }
}
