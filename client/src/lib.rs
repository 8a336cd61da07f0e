//! The inarow terminal client: a full-screen ratatui interface (lobby and game screens)
//! and a plain line mode for scripts, both over one reconnecting WebSocket connection.
//!
//! `main.rs` only parses flags and calls [`run`]; everything else lives here so tests can
//! drive the app state, the renderer and plain mode without a terminal.

pub mod app;
pub mod board;
pub mod cli;
pub mod event;
pub mod net;
pub mod plain;
pub mod terminal;
pub mod ui;

use std::io::IsTerminal;

/// What can stop the client.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The terminal or stdout could not be used.
    #[error("terminal i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the client as the command line asks: plain mode when asked, when stdin or stdout
/// is not a terminal, or for `rooms`; the full-screen interface otherwise. Returns the
/// message of a fatal end (unsupported protocol, refused name, server gone for good).
///
/// # Errors
/// [`ClientError`] when the terminal or stdout fails.
pub async fn run(cli: cli::Cli) -> Result<Option<String>, ClientError> {
    let startup = cli.startup();
    let name = cli.display_name();
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if cli.plain || !interactive || startup == cli::Startup::Rooms {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        plain::run(cli.server, name, startup, stdin, tokio::io::stdout()).await
    } else {
        terminal::run(cli.server, name, startup).await
    }
}
