//! Questions with one answer each, for the commands that only read (`history`, `replay`,
//! `export`): connect, let the shared session send the startup request on the welcome,
//! wait for its answer, ask more if needed, close.
//!
//! Unlike the interactive faces, a question does not wait through a reconnection: a
//! dropped connection, a refused request or a server that does not answer ends it with an
//! error the command prints, so scripts get a non-zero exit status instead of a hang.

use std::time::Duration;

use inarow_protocol::{ClientMessage, ErrorCode, ServerMessage};

use crate::cli::Startup;
use crate::net::{self, Connection};
use crate::session::{Pending, Session, Update};

/// How long a question waits for the connection and then for its answer.
const ANSWER_WAIT: Duration = Duration::from_secs(30);

/// Why a question went unanswered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The server answered with an `error`.
    #[error("{code}: {message}")]
    Refused {
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
    },
    /// The connection failed, or ended, before the answer came.
    #[error("{0}")]
    Connection(String),
}

/// A connection that asks questions one at a time.
#[derive(Debug)]
pub struct Query {
    /// Request ids, the welcome and the startup request: the core the faces share.
    session: Session,
    /// The connection task.
    connection: Connection,
}

impl Query {
    /// Connects as `name` and returns the answer to `startup`'s request.
    ///
    /// # Errors
    /// [`QueryError`] when the server refuses it or the connection fails first.
    pub async fn start(
        server: net::Server,
        name: String,
        startup: Startup,
    ) -> Result<(Query, ServerMessage), QueryError> {
        let mut query = Query {
            session: Session::new(startup),
            connection: net::connect(server, name),
        };
        let answer = query.answer().await?;
        Ok((query, answer))
    }

    /// Asks `message` and returns its answer.
    ///
    /// # Errors
    /// [`QueryError`] when the server refuses it or the connection fails first.
    pub async fn ask(
        &mut self,
        message: ClientMessage,
        pending: Pending,
    ) -> Result<ServerMessage, QueryError> {
        let frame = self
            .session
            .request(message, pending)
            .map_err(|offline| QueryError::Connection(offline.to_string()))?;
        self.send(vec![frame]).await?;
        self.answer().await
    }

    /// Closes the connection politely.
    pub async fn close(self) {
        let Connection {
            outbound,
            events,
            task,
        } = self.connection;
        // As in the TUI: without a sender the task closes the socket; the events stay open
        // until it has.
        drop(outbound);
        let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        drop(events);
    }

    async fn send(&mut self, frames: Vec<inarow_protocol::ClientFrame>) -> Result<(), QueryError> {
        for frame in frames {
            self.connection
                .outbound
                .send(frame)
                .await
                .map_err(|_| QueryError::Connection("the connection task ended".to_owned()))?;
        }
        Ok(())
    }

    /// Waits for the answer to the one request in flight.
    async fn answer(&mut self) -> Result<ServerMessage, QueryError> {
        let silent = || {
            QueryError::Connection(format!(
                "no answer from the server within {} s",
                ANSWER_WAIT.as_secs()
            ))
        };
        let deadline = tokio::time::Instant::now() + ANSWER_WAIT;
        loop {
            let event = tokio::time::timeout_at(deadline, self.connection.events.recv())
                .await
                .map_err(|_| silent())?
                .ok_or_else(|| QueryError::Connection("the connection task ended".to_owned()))?;
            match self.session.on_net(event) {
                Update::Down { reason, .. } => return Err(QueryError::Connection(reason)),
                Update::Fatal(message) => return Err(QueryError::Connection(message)),
                Update::Welcome { send, .. } | Update::Watching { send } => self.send(send).await?,
                Update::Message {
                    message,
                    answers: Some(Pending::History | Pending::Game),
                    ..
                } => {
                    return match message {
                        ServerMessage::Error { code, message } => {
                            Err(QueryError::Refused { code, message })
                        }
                        answer => Ok(answer),
                    };
                }
                // Nothing else was asked; a `bye` is followed by the drop that ends this.
                Update::Message { .. } => {}
            }
        }
    }
}
