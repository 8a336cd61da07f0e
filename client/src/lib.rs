//! The inarow terminal client: a full-screen ratatui interface (lobby and game screens)
//! and a plain line mode for scripts, both over one reconnecting WebSocket connection.
//!
//! `main.rs` only parses flags and calls [`run`]; everything else lives here so tests can
//! drive the app state, the renderer and plain mode without a terminal.
//!
//! One core, two faces. [`session`] is the core both faces share: the welcome, request ids
//! and replies awaited, the startup action, join-or-watch and quitting. [`board`] reads a
//! snapshot with the engine's notation and [`words`] holds the words for rules, seats and
//! statuses. The faces only read input and show things: the TUI is [`event`] → [`app`] →
//! [`ui`] (imports run that way only; [`layout`] and [`form`] serve app and ui, and
//! [`terminal`] runs the loop), plain mode is [`plain`]. [`net`] is the connection task
//! under both.
//!
//! The commands about the games the server keeps are [`games`]: they ask through [`query`]
//! (one answer per question, over the same session core), print with [`history`]'s words
//! and tables, and replay a game with [`replay`], whose screen reuses the board drawing.
//!
//! [`bot`] (`inarow bot`) puts a Gomocup engine on the server as a player, over the same
//! connection and session core.

pub mod app;
pub mod board;
pub mod bot;
pub mod cli;
pub mod event;
pub mod form;
pub mod games;
pub mod history;
pub mod layout;
pub mod net;
pub mod plain;
pub mod query;
pub mod replay;
pub mod session;
pub mod terminal;
pub mod ui;
pub mod words;

use std::io::IsTerminal;

/// What can stop the client.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The terminal or stdout could not be used.
    #[error("terminal i/o: {0}")]
    Io(#[from] std::io::Error),
    /// `--ca-file` could not be used.
    #[error(transparent)]
    Tls(#[from] net::TlsSetupError),
    /// `inarow bot` stopped.
    #[error(transparent)]
    Bot(#[from] bot::BotError),
}

/// Runs the client as the command line asks: plain mode when asked, when stdin or stdout
/// is not a terminal, or for `rooms`; the full-screen interface otherwise; the commands
/// about kept games (`history`, `replay`, `export`) in [`games`]. Returns the message of a
/// fatal end (unsupported protocol, refused name, server gone for good, a refused question).
///
/// # Errors
/// [`ClientError`] when the terminal or stdout fails, or `--ca-file` cannot be used.
pub async fn run(cli: cli::Cli) -> Result<Option<String>, ClientError> {
    let startup = cli.startup();
    let name = cli.display_name();
    let server = net::Server::new(cli.server.clone(), cli.ca_file.as_deref())?;
    if let Some(cli::Command::Bot {
        engine,
        room,
        open,
        games,
        move_ms,
    }) = &cli.command
    {
        let options = bot::BotOptions {
            engine: engine.clone(),
            room: room
                .as_ref()
                .map(|r| inarow_protocol::RoomId(r.trim().to_owned())),
            open: *open,
            games: *games,
            move_time: std::time::Duration::from_millis(*move_ms),
        };
        bot::run(server, name, options, tokio::io::stdout()).await?;
        return Ok(None);
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if matches!(
        startup,
        cli::Startup::History { .. } | cli::Startup::Game(_)
    ) {
        return games::run(&cli, server, interactive).await;
    }
    if cli.plain || !interactive || startup == cli::Startup::Rooms {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        plain::run(server, name, startup, stdin, tokio::io::stdout()).await
    } else {
        terminal::run(server, name, startup).await
    }
}
