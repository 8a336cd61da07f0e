//! `inarow-pbrain`: inarow's gomoku AI speaking the Gomocup ("piskvork") protocol on stdin
//! and stdout, for Piskvork, Yixin Board, Gomocup's managers and the match runner.
//!
//! The loop over stdin is the library's `brain::serve`, which the end-to-end tests' copy of
//! this engine runs too.

use inarow_pbrain::brain;

fn main() -> anyhow::Result<()> {
    // A fixed seed: the same position and time give the same kind of play, as the
    // server's seats do for a given seat.
    brain::serve(
        0x1A_2B_3C,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )?;
    Ok(())
}
