//! The time at the head of each log line: what `tracing-subscriber`'s default clock
//! writes (RFC 3339, UTC, to the microsecond), with the date and time of day written once
//! a second instead of on every line.
//!
//! Its clock breaks every timestamp down into a calendar date and formats six numbers
//! through `core::fmt`: about 2,300 instructions, a quarter of the line a finished game
//! logs (`load --humans --callgrind`), where the second's text changes once a second.

use std::cell::RefCell;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{self as clock, FormatTime};

/// The log lines' clock: `2026-11-26T23:25:01.123456Z`, as
/// [`tracing_subscriber::fmt::time::SystemTime`] writes it.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogTime;

/// A second's text up to its fraction (`2026-11-26T23:25:01.`), per thread: logging
/// threads never wait on each other for it.
struct Second {
    /// Seconds since the epoch that `text` shows.
    at: u64,
    text: String,
}

thread_local! {
    static SECOND: RefCell<Option<Second>> = const { RefCell::new(None) };
}

impl FormatTime for LogTime {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        let Ok(now) = SystemTime::now().duration_since(UNIX_EPOCH) else {
            // A clock before 1970: the default clock knows how to write that.
            return clock::SystemTime.format_time(w);
        };
        let at = now.as_secs();
        SECOND.with(|second| {
            let mut second = second.borrow_mut();
            let second = match &mut *second {
                Some(kept) if kept.at == at => kept,
                slot => match second_text(at) {
                    Some(text) => slot.insert(Second { at, text }),
                    // The second turned while it was being written: this line takes the
                    // default clock's text whole.
                    None => return clock::SystemTime.format_time(w),
                },
            };
            w.write_str(&second.text)?;
            write_micros(w, now)?;
            w.write_char('Z')
        })
    }
}

/// The default clock's text for second `at` up to and including the `.` before the
/// fraction, or `None` if the second changed while the clock was read (its text is then
/// another second's).
fn second_text(at: u64) -> Option<String> {
    let mut text = String::with_capacity(32);
    clock::SystemTime
        .format_time(&mut Writer::new(&mut text))
        .ok()?;
    let after = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    if after.as_secs() != at {
        return None;
    }
    let dot = text.rfind('.')?;
    text.truncate(dot + 1);
    Some(text)
}

/// The microseconds of `now`'s second, six digits.
fn write_micros(w: &mut Writer<'_>, now: Duration) -> fmt::Result {
    let mut micros = now.subsec_micros();
    let mut digits = [b'0'; 6];
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (micros % 10) as u8;
        micros /= 10;
    }
    // Six ASCII digits are UTF-8.
    w.write_str(std::str::from_utf8(&digits).map_err(|_| fmt::Error)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(time: impl FormatTime) -> String {
        let mut text = String::new();
        time.format_time(&mut Writer::new(&mut text))
            .expect("formatting into a String does not fail");
        text
    }

    /// Both clocks read within one test; the lines are the same shape and, but for the
    /// microseconds and a second that turned between the two reads, the same text.
    #[test]
    fn writes_what_the_default_clock_writes() {
        for _ in 0..1_000 {
            let default = written(clock::SystemTime);
            let ours = written(LogTime);
            assert_eq!(ours.len(), default.len(), "{ours} against {default}");
            assert!(ours.ends_with('Z'));
            let (ours_second, ours_micros) = ours.split_at(ours.len() - 7);
            let (default_second, _) = default.split_at(default.len() - 7);
            assert!(
                ours_micros[..6].bytes().all(|b| b.is_ascii_digit()),
                "{ours}"
            );
            if ours_second != default_second {
                // Only a second turning between the reads may part them.
                let again = written(clock::SystemTime);
                assert!(
                    again.starts_with(ours_second) || default.starts_with(ours_second),
                    "{ours} against {default} and {again}"
                );
            }
        }
    }

    #[test]
    fn the_micros_are_zero_padded() {
        let mut text = String::new();
        write_micros(
            &mut Writer::new(&mut text),
            Duration::from_micros(1_000_042),
        )
        .expect("formatting into a String does not fail");
        assert_eq!(text, "000042");
    }
}
