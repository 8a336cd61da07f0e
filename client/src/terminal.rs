//! The interactive screen's loop: sets up and always restores the terminal, feeds events
//! to the app, draws, and carries out the app's commands.

use std::io::stdout;
use std::time::Duration;

use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;

use crate::ClientError;
use crate::app::{App, Command};
use crate::cli::Startup;
use crate::event::{Event, Events};
use crate::net;

/// Runs the full-screen client until the user quits or the connection fails for good.
/// Returns the message to print after the terminal is restored, if any.
///
/// # Errors
/// [`ClientError::Io`] when the terminal cannot be set up or drawn.
pub async fn run(
    server: net::Server,
    name: String,
    startup: Startup,
) -> Result<Option<String>, ClientError> {
    let mut app = App::new(name.clone(), startup);
    app.session.web = server.web_address();
    let connection = net::connect(server, name);
    let outbound = connection.outbound;
    let mut events = Events::new(connection.events);

    // ratatui::try_init installs a panic hook that restores the terminal; ours runs first
    // and also turns mouse reporting off, which ratatui does not know we turned on.
    let mut terminal = ratatui::try_init()?;
    let ratatui_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(stdout(), DisableMouseCapture);
        ratatui_hook(info);
    }));
    let result = async {
        execute!(stdout(), EnableMouseCapture)?;
        let size = terminal.size()?;
        app.update(Event::Resize(size.width, size.height));
        loop {
            terminal.draw(|frame| crate::ui::draw(frame, &app))?;
            let Some(event) = events.next().await else {
                break;
            };
            let mut quit = false;
            for command in app.update(event) {
                match command {
                    Command::Send(frame) => {
                        if outbound.try_send(frame).is_err() {
                            app.flash("the connection is not keeping up: not sent");
                        }
                    }
                    Command::Quit => quit = true,
                }
            }
            if quit {
                break;
            }
        }
        Ok::<(), ClientError>(())
    }
    .await;
    let _ = execute!(stdout(), DisableMouseCapture);
    ratatui::restore();
    // Dropping the sender tells the connection task to send what is queued (such as the
    // `leave` of a quit) and then close the socket politely; the events stay open until it
    // has, since their closing makes the task stop at once.
    drop(outbound);
    let _ = tokio::time::timeout(Duration::from_secs(1), connection.task).await;
    drop(events);
    result.map(|()| app.exit_message)
}
