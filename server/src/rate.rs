//! Rate limits: a token bucket, and the per-connection message limit built on it (a
//! bucket plus a count of refusals, after lila-ws's `RateLimit`).

use std::time::Instant;

/// A token bucket: holds up to `capacity` tokens and refills `per_second` of them every
/// second; each event takes one.
#[derive(Debug, Clone)]
pub(crate) struct TokenBucket {
    per_second: f64,
    capacity: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub(crate) fn new(per_second: f64, capacity: f64, now: Instant) -> TokenBucket {
        TokenBucket {
            per_second,
            capacity,
            tokens: capacity,
            last: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.capacity);
    }

    /// Whether the bucket is full at `now`: nothing recent is remembered, so a holder may
    /// forget it.
    pub(crate) fn is_full(&mut self, now: Instant) -> bool {
        self.refill(now);
        self.tokens >= self.capacity
    }

    /// Takes a token at `now`, if there is one.
    pub(crate) fn try_take(&mut self, now: Instant) -> bool {
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What to do with one inbound message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RateVerdict {
    /// Within the limit: handle it.
    Pass,
    /// Over the limit: answer `rate_limited` and drop it.
    Limited,
    /// Over the limit for the last allowed time: answer `rate_limited`, then close.
    Exceeded,
}

/// A token bucket (refill `rate` per second up to `burst`) that also counts how many
/// messages it refused during the current flood. A flood ends when the bucket has filled
/// up again, which resets the count: a client that slows down is forgiven.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    bucket: TokenBucket,
    strikes: u32,
    max_strikes: u32,
}

impl RateLimiter {
    /// A full bucket.
    pub(crate) fn new(rate_per_second: u32, burst: u32, max_strikes: u32, now: Instant) -> Self {
        RateLimiter {
            bucket: TokenBucket::new(f64::from(rate_per_second), f64::from(burst), now),
            strikes: 0,
            max_strikes,
        }
    }

    /// Takes a token for one message arriving at `now`.
    pub(crate) fn check(&mut self, now: Instant) -> RateVerdict {
        if self.bucket.is_full(now) {
            self.strikes = 0;
        }
        if self.bucket.try_take(now) {
            return RateVerdict::Pass;
        }
        self.strikes = self.strikes.saturating_add(1);
        if self.strikes >= self.max_strikes {
            RateVerdict::Exceeded
        } else {
            RateVerdict::Limited
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_burst_passes_then_messages_are_limited_then_the_connection_is_closed() {
        let t = Instant::now();
        let mut r = RateLimiter::new(20, 40, 3, t);
        for _ in 0..40 {
            assert_eq!(r.check(t), RateVerdict::Pass);
        }
        assert_eq!(r.check(t), RateVerdict::Limited);
        assert_eq!(r.check(t), RateVerdict::Limited);
        assert_eq!(r.check(t), RateVerdict::Exceeded);
    }

    #[test]
    fn tokens_refill_at_the_rate() {
        let t = Instant::now();
        let mut r = RateLimiter::new(20, 40, 100, t);
        for _ in 0..40 {
            assert_eq!(r.check(t), RateVerdict::Pass);
        }
        assert_eq!(r.check(t), RateVerdict::Limited);
        // 100 ms at 20/s is two tokens.
        let later = t + Duration::from_millis(100);
        assert_eq!(r.check(later), RateVerdict::Pass);
        assert_eq!(r.check(later), RateVerdict::Pass);
        assert_eq!(r.check(later), RateVerdict::Limited);
    }

    #[test]
    fn a_steady_sender_at_the_rate_is_never_limited() {
        let t = Instant::now();
        let mut r = RateLimiter::new(20, 40, 1, t);
        for i in 0..1000u64 {
            let now = t + Duration::from_millis(50 * i);
            assert_eq!(r.check(now), RateVerdict::Pass, "message {i}");
        }
    }

    #[test]
    fn strikes_reset_once_the_bucket_is_full_again() {
        let t = Instant::now();
        let mut r = RateLimiter::new(10, 2, 2, t);
        assert_eq!(r.check(t), RateVerdict::Pass);
        assert_eq!(r.check(t), RateVerdict::Pass);
        assert_eq!(r.check(t), RateVerdict::Limited);
        // A full second later the bucket is full: the earlier strike is forgiven.
        let later = t + Duration::from_secs(1);
        assert_eq!(r.check(later), RateVerdict::Pass);
        assert_eq!(r.check(later), RateVerdict::Pass);
        assert_eq!(r.check(later), RateVerdict::Limited);
        assert_eq!(r.check(later), RateVerdict::Exceeded);
    }
}
