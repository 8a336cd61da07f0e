//! One stream of app events: terminal input (read on its own thread), ticks, and the
//! connection's events, merged so the app handles them one at a time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::crossterm::event::{self as term, Event as TermEvent, KeyEvent, MouseEvent};
use tokio::sync::mpsc;

use crate::net::NetEvent;

/// Time between ticks (animation frames and timers).
pub const TICK: Duration = Duration::from_millis(50);

/// Everything that can happen to the app.
#[derive(Debug, Clone)]
pub enum Event {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event.
    Mouse(MouseEvent),
    /// The terminal was resized to (width, height).
    Resize(u16, u16),
    /// Time passed (one [`TICK`]).
    Tick,
    /// The connection said something.
    Net(NetEvent),
}

/// Capacity of the terminal → app queue; a terminal produces a few events per keystroke.
const INPUT_CAPACITY: usize = 128;
/// How often the input thread looks up from `poll` to see whether it should stop.
const POLL: Duration = Duration::from_millis(100);

/// The merged event stream.
#[derive(Debug)]
pub struct Events {
    input: mpsc::Receiver<Event>,
    net: mpsc::Receiver<NetEvent>,
    ticks: tokio::time::Interval,
    stop: Arc<AtomicBool>,
    net_open: bool,
}

impl Events {
    /// Starts reading the terminal on a thread and merges it with ticks and `net`.
    pub fn new(net: mpsc::Receiver<NetEvent>) -> Events {
        let (tx, rx) = mpsc::channel(INPUT_CAPACITY);
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = Arc::clone(&stop);
        // crossterm's reader blocks, so it lives on a plain thread that polls with a
        // timeout and checks the stop flag between polls.
        std::thread::spawn(move || {
            while !thread_stop.load(Ordering::Relaxed) {
                match term::poll(POLL) {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(_) => break,
                }
                let event = match term::read() {
                    Ok(TermEvent::Key(k)) => Event::Key(k),
                    Ok(TermEvent::Mouse(m)) => Event::Mouse(m),
                    Ok(TermEvent::Resize(w, h)) => Event::Resize(w, h),
                    Ok(_) => continue,
                    Err(_) => break,
                };
                if tx.blocking_send(event).is_err() {
                    break;
                }
            }
        });
        let mut ticks = tokio::time::interval(TICK);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        Events {
            input: rx,
            net,
            ticks,
            stop,
            net_open: true,
        }
    }

    /// The next event; `None` when the terminal can no longer be read.
    pub async fn next(&mut self) -> Option<Event> {
        tokio::select! {
            input = self.input.recv() => input,
            net = self.net.recv(), if self.net_open => match net {
                Some(ev) => Some(Event::Net(ev)),
                None => {
                    self.net_open = false;
                    Some(Event::Net(NetEvent::Fatal("the connection task ended".to_owned())))
                }
            },
            _ = self.ticks.tick() => Some(Event::Tick),
        }
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
