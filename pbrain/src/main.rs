//! `inarow-pbrain`: inarow's gomoku AI speaking the Gomocup ("piskvork") protocol on stdin
//! and stdout, for Piskvork, Yixin Board, Gomocup's managers and the match runner.
//!
//! Every line read goes to a [`Brain`]; its answers are written and flushed at once, since
//! the manager waits for them. End of input ends the brain as END does.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use inarow_pbrain::brain::Brain;

/// The longest line kept; the rest of a longer one is dropped, as the protocol allows (no
/// command of the protocol comes near it).
const MAX_LINE: usize = 4096;

fn main() -> anyhow::Result<()> {
    // A fixed seed: the same position and time give the same kind of play, as the
    // server's seats do for a given seat.
    let mut brain = Brain::new(0x1A_2B_3C);
    let mut input = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    let mut bytes = Vec::new();
    while read_line(&mut input, &mut bytes)? {
        let received = Instant::now();
        // Lines come from whatever runs the brain: read them lossily, never failing on
        // bad UTF-8.
        let line = String::from_utf8_lossy(&bytes);
        for answer in brain.handle(&line, received) {
            writeln!(stdout, "{answer}")?;
        }
        stdout.flush()?;
        if brain.ended() {
            break;
        }
    }
    Ok(())
}

/// Reads one line into `line` (without its end), keeping at most [`MAX_LINE`] bytes of it;
/// `false` at the end of input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut read_any = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(read_any);
        }
        read_any = true;
        let room = MAX_LINE.saturating_sub(line.len());
        match buf.iter().position(|&b| b == b'\n') {
            Some(end) => {
                line.extend_from_slice(&buf[..end.min(room)]);
                input.consume(end + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                line.extend_from_slice(&buf[..n.min(room)]);
                input.consume(n);
            }
        }
    }
}
