//! The server's log lines, captured in memory for a test to read: the process's global
//! subscriber, so a test that captures needs a file (a process) of its own.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Everything the subscriber [`capture`] installed has written.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// The lines written so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().expect("not poisoned").clone()).expect("logs are text")
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs the process's log subscriber: the server's filter at `level` and the
/// binary's format without colour, written to the returned capture. The test's clients
/// log through it too.
pub fn capture(level: &str) -> Captured {
    let captured = Captured::default();
    let writer = captured.clone();
    let filter = inarow_server::log_filter(level).expect("a valid filter");
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    captured
}
