//! Admission of new connections: the limits one peer address may take of the server
//! (connections at once, new connections per minute), on top of the server's own
//! connection limit, so that one host cannot crowd out everybody else.
//!
//! Addresses are grouped as a host is: an IPv4 address by itself, an IPv6 address by its
//! /64 (one host's privacy addresses share it), an IPv4-mapped IPv6 address as the IPv4
//! address. Loopback is an address like any other.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use inarow_protocol::{ByeReason, ErrorCode};
use tokio::sync::OwnedSemaphorePermit;

use crate::config::Config;
use crate::rate::TokenBucket;

/// The address a limit is kept for: see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct AddressKey(IpAddr);

impl AddressKey {
    /// The key of a peer at `ip`.
    pub(crate) fn of(ip: IpAddr) -> AddressKey {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                AddressKey(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => AddressKey(v4),
        }
    }
}

impl fmt::Display for AddressKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => v4.fmt(f),
        }
    }
}

/// Why a connection is turned away; it is told so (`error`, `bye`, close 1013).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turnaway {
    /// The server serves its limit of connections.
    ServerFull,
    /// The peer's address has its limit of connections open.
    AddressFull { limit: usize },
    /// The peer's address opened its limit of new connections in the last minute.
    AddressTooFast { per_minute: u32 },
}

impl Turnaway {
    /// The `error` code the peer gets.
    pub(crate) fn code(self) -> ErrorCode {
        match self {
            Turnaway::ServerFull => ErrorCode::ServerFull,
            Turnaway::AddressFull { .. } | Turnaway::AddressTooFast { .. } => {
                ErrorCode::TooManyConnections
            }
        }
    }

    /// The `bye` reason that follows.
    pub(crate) fn reason(self) -> ByeReason {
        match self {
            Turnaway::ServerFull => ByeReason::ServerFull,
            Turnaway::AddressFull { .. } | Turnaway::AddressTooFast { .. } => {
                ByeReason::TooManyConnections
            }
        }
    }
}

impl fmt::Display for Turnaway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Turnaway::ServerFull => {
                f.write_str("the server has no room for another connection; try again later")
            }
            Turnaway::AddressFull { limit } => write!(
                f,
                "your address has {limit} connections open, the limit; close one first"
            ),
            Turnaway::AddressTooFast { per_minute } => write!(
                f,
                "your address opened {per_minute} connections in the last minute, the limit; \
                 try again later"
            ),
        }
    }
}

/// Whether a new connection is served.
pub(crate) enum Admission {
    /// Served; the slots are given back when this is dropped, after the socket closed.
    Admitted {
        /// A slot of the server's connection limit.
        _permit: OwnedSemaphorePermit,
        /// A slot of the address's connection limit.
        _ticket: Ticket,
    },
    /// Told why not, then closed.
    Refused(Turnaway),
}

/// What one address holds.
#[derive(Debug)]
struct Holding {
    /// Connections open from it.
    open: usize,
    /// New connections it may still open in the current minute.
    arrivals: TokenBucket,
}

/// The per-address connection limits, shared by the accept loop and the connections.
#[derive(Debug)]
pub(crate) struct AddressLimits {
    max_per_address: usize,
    per_minute: u32,
    inner: Mutex<GateMap>,
}

#[derive(Debug)]
struct GateMap {
    by_address: HashMap<AddressKey, Holding>,
    /// The map's size beyond which idle entries are swept, so that a stream of
    /// one-off addresses does not grow it without bound.
    sweep_at: usize,
}

/// The smallest map worth sweeping.
const SWEEP_FLOOR: usize = 1024;

/// A connection's place in its address's count; given back on drop.
#[derive(Debug)]
pub(crate) struct Ticket {
    gate: Arc<AddressLimits>,
    key: AddressKey,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut map = self.gate.lock();
        if let Some(holding) = map.by_address.get_mut(&self.key) {
            holding.open = holding.open.saturating_sub(1);
        }
    }
}

impl AddressLimits {
    /// The gate of a server with `config`'s limits.
    pub(crate) fn new(config: &Config) -> AddressLimits {
        AddressLimits {
            max_per_address: config.max_connections_per_ip,
            per_minute: config.new_connections_per_ip_per_minute,
            inner: Mutex::new(GateMap {
                by_address: HashMap::new(),
                sweep_at: SWEEP_FLOOR,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateMap> {
        // Each critical section is a few map operations; a poisoned map is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Admits a new connection from `ip` arriving at `now`, or says why not. Every
    /// arrival counts against the address's rate, refused or not.
    pub(crate) fn admit(self: &Arc<Self>, ip: IpAddr, now: Instant) -> Result<Ticket, Turnaway> {
        let key = AddressKey::of(ip);
        let per_minute = f64::from(self.per_minute);
        let mut map = self.lock();
        if map.by_address.len() >= map.sweep_at {
            map.by_address
                .retain(|_, h| h.open > 0 || !h.arrivals.is_full(now));
            map.sweep_at = (map.by_address.len() * 2).max(SWEEP_FLOOR);
        }
        let holding = map.by_address.entry(key).or_insert_with(|| Holding {
            open: 0,
            arrivals: TokenBucket::new(per_minute / 60.0, per_minute, now),
        });
        if !holding.arrivals.try_take(now) {
            return Err(Turnaway::AddressTooFast {
                per_minute: self.per_minute,
            });
        }
        if holding.open >= self.max_per_address {
            return Err(Turnaway::AddressFull {
                limit: self.max_per_address,
            });
        }
        holding.open += 1;
        Ok(Ticket {
            gate: self.clone(),
            key,
        })
    }

    /// Addresses remembered (open connections or recent arrivals).
    #[cfg(test)]
    fn addresses(&self) -> usize {
        self.lock().by_address.len()
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;
    use std::time::Duration;

    use super::*;

    fn gate(max_per_address: usize, per_minute: u32) -> Arc<AddressLimits> {
        Arc::new(AddressLimits::new(&Config {
            max_connections_per_ip: max_per_address,
            new_connections_per_ip_per_minute: per_minute,
            ..Config::default()
        }))
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test addresses parse")
    }

    #[test]
    fn ipv6_hosts_are_grouped_by_their_64_and_mapped_ipv4_is_ipv4() {
        assert_eq!(
            AddressKey::of(ip("2001:db8:1:2:aaaa::1")),
            AddressKey::of(ip("2001:db8:1:2:bbbb::2"))
        );
        assert_ne!(
            AddressKey::of(ip("2001:db8:1:2::1")),
            AddressKey::of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(
            AddressKey::of(ip("::ffff:192.0.2.7")),
            AddressKey::of(ip("192.0.2.7"))
        );
        assert_eq!(
            AddressKey::of(ip("2001:db8::1")).to_string(),
            "2001:db8::/64"
        );
    }

    #[test]
    fn an_address_holds_at_most_its_limit_of_connections_at_once() {
        let gate = gate(2, 1000);
        let now = Instant::now();
        let a = gate.admit(ip("127.0.0.1"), now).expect("first");
        let _b = gate.admit(ip("127.0.0.1"), now).expect("second");
        assert_eq!(
            gate.admit(ip("127.0.0.1"), now).err(),
            Some(Turnaway::AddressFull { limit: 2 })
        );
        // Another address is not affected; a closed connection frees its slot.
        gate.admit(ip("127.0.0.2"), now).expect("another address");
        drop(a);
        gate.admit(ip("127.0.0.1"), now).expect("a slot was freed");
    }

    #[test]
    fn an_address_opens_at_most_its_rate_of_connections_per_minute() {
        let gate = gate(1000, 3);
        let t = Instant::now();
        for _ in 0..3 {
            drop(gate.admit(ip("10.0.0.1"), t).expect("within the rate"));
        }
        assert_eq!(
            gate.admit(ip("10.0.0.1"), t).err(),
            Some(Turnaway::AddressTooFast { per_minute: 3 })
        );
        // Three a minute is one every 20 s.
        assert!(
            gate.admit(ip("10.0.0.1"), t + Duration::from_secs(19))
                .is_err()
        );
        assert!(
            gate.admit(ip("10.0.0.1"), t + Duration::from_secs(41))
                .is_ok()
        );
    }

    #[test]
    fn idle_addresses_are_forgotten() {
        let gate = gate(10, 60);
        let t = Instant::now();
        for i in 0..=SWEEP_FLOOR {
            let n = u32::try_from(i).expect("small");
            drop(gate.admit(IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + n)), t));
        }
        let kept = gate.admit(ip("192.0.2.1"), t).expect("admitted");
        // A minute later every bucket is full again: the next sweep keeps only the
        // address with an open connection (and the newcomer).
        let later = t + Duration::from_secs(61);
        for i in 0..SWEEP_FLOOR {
            let n = u32::try_from(i).expect("small");
            drop(gate.admit(IpAddr::V4(Ipv4Addr::from(0x0b00_0000 + n)), later));
        }
        assert!(gate.addresses() < 2 * SWEEP_FLOOR, "{}", gate.addresses());
        drop(kept);
    }
}
