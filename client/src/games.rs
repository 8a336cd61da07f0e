//! The commands about kept games: `inarow history [NAME]` prints a player's record and a
//! table of games, `inarow export GAME` prints a game's text record exactly as the server
//! wrote it, and `inarow replay GAME` steps through a game on the board (or, in plain
//! mode, prints it move by move).
//!
//! Each asks the server through [`Query`] and ends: an `error` answer or a failed
//! connection comes back as the message `main` prints before exiting with status 1.

use inarow_protocol::{ClientMessage, GameSummary, ServerMessage};
use ratatui::crossterm::event::KeyEventKind;
use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::ClientError;
use crate::cli::{Cli, Command, Startup};
use crate::event::{Event, Events};
use crate::history::{games_table, next_page_command, record_lines};
use crate::net;
use crate::query::{Query, QueryError};
use crate::replay::{Control, Replay, view};
use crate::session::Pending;

/// The name these commands say `hello` with when `--name` is not given: they only read, so
/// who asks does not matter, and a fixed name cannot be refused like a login name could.
pub const GUEST: &str = "guest";

/// Runs `history`, `replay` or `export` as the command line asks; `screen` says whether
/// the replay may take over the terminal. Returns the message of a failure.
///
/// # Errors
/// [`ClientError::Io`] when stdout or the terminal fails.
pub async fn run(
    cli: &Cli,
    server: net::Server,
    screen: bool,
) -> Result<Option<String>, ClientError> {
    let name = cli.name.clone().unwrap_or_else(|| GUEST.to_owned());
    let mut stdout = tokio::io::stdout();
    let answer = match Query::start(server, name, cli.startup()).await {
        Ok(answer) => answer,
        Err(e) => return Ok(Some(failure(&cli.startup(), &e))),
    };
    match &cli.command {
        Some(Command::History {
            name, limit, all, ..
        }) => {
            let name = name.as_deref().map(str::trim);
            history(answer, name, *limit, *all, &mut stdout).await
        }
        Some(Command::Export { .. }) => {
            let (query, answer) = answer;
            query.close().await;
            let ServerMessage::Game { game } = answer else {
                return Ok(Some(unexpected(&answer)));
            };
            // Exactly the record, so `inarow export 42 > game.txt` is the server's text.
            stdout.write_all(game.text.as_bytes()).await?;
            stdout.flush().await?;
            Ok(None)
        }
        Some(Command::Replay { .. }) => {
            let (query, answer) = answer;
            query.close().await;
            let ServerMessage::Game { game } = answer else {
                return Ok(Some(unexpected(&answer)));
            };
            let mut replay = match Replay::new(*game) {
                Ok(replay) => replay,
                Err(e) => return Ok(Some(e.to_string())),
            };
            if cli.plain || !screen {
                write_lines(&mut stdout, &replay.plain_lines()).await?;
            } else {
                show(&mut replay).await?;
            }
            Ok(None)
        }
        _ => Ok(Some("not a command about kept games".to_owned())),
    }
}

/// What a refused question comes to for people.
fn failure(startup: &Startup, error: &QueryError) -> String {
    match (startup, error) {
        (Startup::Game(game), QueryError::Refused { code, message })
            if *code == inarow_protocol::ErrorCode::UnknownGame =>
        {
            format!(
                "no game {game} on this server ({code}: {message}); `inarow history` lists the kept games"
            )
        }
        (_, QueryError::Refused { code, message })
            if *code == inarow_protocol::ErrorCode::StoreUnavailable =>
        {
            format!(
                "the server cannot read its kept games now ({code}: {message}); try again later"
            )
        }
        (_, error) => error.to_string(),
    }
}

fn unexpected(answer: &ServerMessage) -> String {
    format!("the server answered with something else: {answer:?}")
}

async fn write_lines<W: AsyncWrite + Unpin>(out: &mut W, lines: &[String]) -> std::io::Result<()> {
    let mut text = lines.join("\n");
    text.push('\n');
    out.write_all(text.as_bytes()).await?;
    out.flush().await
}

/// `history`: the record (with a name), the table, and how to get the next page; with
/// `all`, the pages are followed to the oldest game first and shown as one table.
async fn history<W: AsyncWrite + Unpin>(
    (mut query, answer): (Query, ServerMessage),
    name: Option<&str>,
    limit: u32,
    all: bool,
    out: &mut W,
) -> Result<Option<String>, ClientError> {
    let ServerMessage::History {
        mut games,
        mut more,
        record,
    } = answer
    else {
        query.close().await;
        return Ok(Some(unexpected(&answer)));
    };
    while all && more {
        let Some(last) = games.last().map(|g| g.game) else {
            break;
        };
        let message = ClientMessage::History {
            name: name.map(str::to_owned),
            limit: Some(limit),
            before: Some(last),
        };
        match query.ask(message, Pending::History).await {
            Ok(ServerMessage::History {
                games: page,
                more: again,
                ..
            }) => {
                // A page that brings nothing older would be asked for again forever.
                let older: Vec<GameSummary> = page.into_iter().filter(|g| g.game < last).collect();
                more = again && !older.is_empty();
                games.extend(older);
            }
            Ok(other) => {
                query.close().await;
                return Ok(Some(unexpected(&other)));
            }
            Err(e) => {
                query.close().await;
                return Ok(Some(failure(&Startup::Lobby, &e)));
            }
        }
    }
    query.close().await;
    let mut lines = Vec::new();
    if let Some(record) = &record {
        lines.extend(record_lines(record));
        lines.push(String::new());
    }
    lines.extend(games_table(&games));
    if more && let Some(last) = games.last() {
        lines.push(String::new());
        lines.push(format!(
            "older games: {} (or --all for every one)",
            next_page_command(name, limit, last.game)
        ));
    }
    write_lines(out, &lines).await?;
    Ok(None)
}

/// The replay screen: draws the board of the ply shown and steps through the game by
/// keys until q or Esc. Always restores the terminal.
async fn show(replay: &mut Replay) -> Result<(), ClientError> {
    // No connection feeds this screen: its channel stays open, and silent, until the end.
    let (_net, net_events) = tokio::sync::mpsc::channel(1);
    let mut events = Events::new(net_events);
    let mut terminal = ratatui::try_init()?;
    let result = async {
        let mut redraw = true;
        loop {
            if redraw {
                terminal.draw(|frame| view::draw(frame, replay))?;
            }
            redraw = true;
            match events.next().await {
                None => break,
                Some(Event::Key(key)) if key.kind != KeyEventKind::Release => {
                    if replay.on_key(key) == Control::Quit {
                        break;
                    }
                }
                Some(Event::Resize(..)) => {}
                // Ticks change nothing on this screen.
                Some(_) => redraw = false,
            }
        }
        Ok::<(), ClientError>(())
    }
    .await;
    ratatui::restore();
    drop(events);
    result
}
