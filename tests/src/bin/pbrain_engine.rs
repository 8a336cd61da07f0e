//! `inarow-pbrain`, built in the end-to-end tests' crate so that cargo builds it for them:
//! the external engine of the tests of external AI seats and of the bot bridge.

fn main() -> std::io::Result<()> {
    inarow_pbrain::brain::serve(7, std::io::stdin().lock(), std::io::stdout().lock())
}
