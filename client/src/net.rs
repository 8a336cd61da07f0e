//! The connection task: one WebSocket to the server (`ws://`, or `wss://` checked against
//! the webpki roots and an optional extra CA), `hello` on every (re)connection with the
//! session token, frames in and out through bounded channels, and reconnection with
//! back-off when the connection drops.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use inarow_protocol::{
    ByeReason, ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, RequestId, ServerFrame,
    ServerMessage, decode_server, encode,
};
use rustls::ClientConfig;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, timeout};
use tokio_tungstenite::Connector;
use tokio_tungstenite::tungstenite::Message;

/// The first wait before reconnecting; it doubles on every failed attempt.
pub const FIRST_RETRY: Duration = Duration::from_millis(200);
/// The longest wait between reconnection attempts.
pub const MAX_RETRY: Duration = Duration::from_secs(5);
/// How long a TCP + WebSocket handshake may take before the attempt counts as failed.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The server pings every 15 s, so this much silence means the connection is dead even
/// if the socket has not noticed.
const SILENCE_LIMIT: Duration = Duration::from_secs(60);
/// Capacity of the app → connection queue: enough for a burst of keystrokes.
pub const OUTBOUND_CAPACITY: usize = 64;
/// Capacity of the connection → app queue.
pub const EVENT_CAPACITY: usize = 256;
/// The request id of `hello`, so its error can be told apart.
const HELLO_ID: &str = "hello";

/// What the connection task tells the app.
#[derive(Debug, Clone, PartialEq)]
pub enum NetEvent {
    /// A frame from the server (including `welcome`, sent after each successful `hello`).
    Frame(ServerFrame),
    /// The connection is down; the next attempt is in `retry_in`.
    Down {
        /// Why it went down, for people.
        reason: String,
        /// How long until the next attempt.
        retry_in: Duration,
    },
    /// The connection cannot go on (unsupported protocol, refused name, replaced by another
    /// connection, server shut down or full). The program should end with this message.
    Fatal(String),
}

/// The app's handle on the connection task.
#[derive(Debug)]
pub struct Connection {
    /// Frames to send; dropping it closes the connection and ends the task.
    pub outbound: mpsc::Sender<ClientFrame>,
    /// Events from the connection.
    pub events: mpsc::Receiver<NetEvent>,
    /// The task, to await a clean close.
    pub task: tokio::task::JoinHandle<()>,
}

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    /// The CA file could not be read or held no certificate.
    #[error("cannot use the CA file {file}: {reason}")]
    CaFile {
        /// The file, as given.
        file: String,
        /// What went wrong.
        reason: String,
    },
    /// rustls refused the setup.
    #[error("TLS setup failed: {0}")]
    Rustls(#[from] rustls::Error),
}

/// A server to connect to: its WebSocket address and how `wss://` certificates are checked.
#[derive(Clone)]
pub struct Server {
    /// `ws://HOST:PORT/` or `wss://HOST:PORT/`.
    pub url: String,
    /// Certificate checking for `wss://` (unused for `ws://`).
    pub tls: Arc<ClientConfig>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("url", &self.url).finish()
    }
}

impl Server {
    /// `url`, trusting the webpki roots (the public web's CAs) and, when given, the CA
    /// certificates in the PEM file `ca_file` as well (for a self-signed server). There is
    /// no way to skip the check.
    ///
    /// # Errors
    /// [`TlsSetupError`] if `ca_file` cannot be read or holds no certificate.
    pub fn new(url: String, ca_file: Option<&Path>) -> Result<Server, TlsSetupError> {
        let mut roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        if let Some(file) = ca_file {
            let fail = |reason: String| TlsSetupError::CaFile {
                file: file.display().to_string(),
                reason,
            };
            let certs = CertificateDer::pem_file_iter(file)
                .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                .map_err(|e| fail(e.to_string()))?;
            if certs.is_empty() {
                return Err(fail("no certificate in it".to_owned()));
            }
            for cert in certs {
                roots.add(cert).map_err(|e| fail(e.to_string()))?;
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Server {
            url,
            tls: Arc::new(tls),
        })
    }

    /// The address of this server's web client (`http://HOST:PORT/`, `https://` for
    /// `wss://`), if the address has a `ws` or `wss` scheme. A room's invite link is this
    /// followed by `#/r/CODE`.
    pub fn web_address(&self) -> Option<String> {
        let (scheme, rest) = self.url.split_once("://")?;
        let web = match scheme.to_ascii_lowercase().as_str() {
            "ws" => "http",
            "wss" => "https",
            _ => return None,
        };
        let host = rest
            .split(['/', '?', '#'])
            .next()
            .filter(|h| !h.is_empty())?;
        Some(format!("{web}://{host}/"))
    }
}

/// Starts the connection task for `server` with the display name `name`.
pub fn connect(server: Server, name: String) -> Connection {
    let (out_tx, out_rx) = mpsc::channel(OUTBOUND_CAPACITY);
    let (ev_tx, ev_rx) = mpsc::channel(EVENT_CAPACITY);
    let task = tokio::spawn(run(server, name, out_rx, ev_tx));
    Connection {
        outbound: out_tx,
        events: ev_rx,
        task,
    }
}

/// How one connection ended.
enum Ended {
    /// It dropped; try again.
    Dropped(String),
    /// Stop for good (the app is gone or the server said so).
    Stop,
}

/// The connection loop: connect, serve, and on a drop wait and reconnect, until the app
/// drops its outbound sender or a fatal answer arrives.
async fn run(
    server: Server,
    mut name: String,
    mut outbound: mpsc::Receiver<ClientFrame>,
    events: mpsc::Sender<NetEvent>,
) {
    let mut token: Option<String> = None;
    let mut retry = FIRST_RETRY;
    let url = server.url.as_str();
    loop {
        let attempt = timeout(
            CONNECT_TIMEOUT,
            tokio_tungstenite::connect_async_tls_with_config(
                url,
                None,
                false,
                Some(Connector::Rustls(server.tls.clone())),
            ),
        );
        let reason = match attempt.await {
            Err(_) => "connection attempt timed out".to_owned(),
            Ok(Err(e)) => format!("cannot connect to {url}: {e}"),
            Ok(Ok((ws, _response))) => {
                match serve(
                    ws,
                    &mut name,
                    &mut token,
                    &mut retry,
                    &mut outbound,
                    &events,
                )
                .await
                {
                    Ended::Dropped(reason) => reason,
                    Ended::Stop => return,
                }
            }
        };
        let down = NetEvent::Down {
            reason,
            retry_in: retry,
        };
        if events.send(down).await.is_err() {
            return;
        }
        tokio::select! {
            () = sleep(retry) => {}
            () = events.closed() => return,
        }
        retry = (retry * 2).min(MAX_RETRY);
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Serves one established connection until it drops or must stop.
async fn serve(
    mut ws: Socket,
    name: &mut String,
    token: &mut Option<String>,
    retry: &mut Duration,
    outbound: &mut mpsc::Receiver<ClientFrame>,
    events: &mpsc::Sender<NetEvent>,
) -> Ended {
    let hello = ClientFrame {
        message: ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.clone(),
            token: token.clone(),
        },
        id: Some(RequestId::Text(HELLO_ID.to_owned())),
    };
    if let Err(e) = ws.send(Message::text(encode(&hello))).await {
        return Ended::Dropped(format!("connection lost: {e}"));
    }
    // Frames queued by the app are only taken once the server has welcomed us, so that
    // nothing is sent before `hello` is accepted and nothing is lost on a failed attempt.
    let mut welcomed = false;
    let mut deadline = Instant::now() + SILENCE_LIMIT;
    loop {
        tokio::select! {
            incoming = ws.next() => {
                deadline = Instant::now() + SILENCE_LIMIT;
                let text = match incoming {
                    None => return Ended::Dropped("connection closed".to_owned()),
                    Some(Err(e)) => return Ended::Dropped(format!("connection lost: {e}")),
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(frame))) => {
                        let why = frame
                            .map(|f| f.reason.to_string())
                            .filter(|r| !r.is_empty())
                            .unwrap_or_else(|| "closed by the server".to_owned());
                        return Ended::Dropped(why);
                    }
                    // Pings are answered by tungstenite itself; nothing else is expected.
                    Some(Ok(_)) => continue,
                };
                // A frame this client cannot read is skipped: a newer server may send
                // messages an older client does not know.
                let Ok(frame) = decode_server(text.as_str()) else { continue };
                let fatal = fatal_reason(&frame);
                if let ServerMessage::Welcome { token: t, .. } = &frame.message {
                    *token = Some(t.clone());
                    *retry = FIRST_RETRY;
                    welcomed = true;
                }
                // A reconnection's `hello` says the name the server last took.
                if let ServerMessage::Renamed { name: new } = &frame.message {
                    new.clone_into(name);
                }
                if events.send(NetEvent::Frame(frame)).await.is_err() {
                    let _ = ws.close(None).await;
                    return Ended::Stop;
                }
                if let Some(message) = fatal {
                    let _ = events.send(NetEvent::Fatal(message)).await;
                    let _ = ws.close(None).await;
                    return Ended::Stop;
                }
            }
            next = outbound.recv(), if welcomed => {
                let Some(frame) = next else {
                    // The app is done: close politely and stop.
                    let _ = ws.close(None).await;
                    return Ended::Stop;
                };
                if let Err(e) = ws.send(Message::text(encode(&frame))).await {
                    return Ended::Dropped(format!("connection lost: {e}"));
                }
            }
            () = events.closed() => {
                let _ = ws.close(None).await;
                return Ended::Stop;
            }
            () = tokio::time::sleep_until(deadline) => {
                return Ended::Dropped("the server went silent".to_owned());
            }
        }
    }
}

/// Whether a frame means this client must stop, and the message to end with.
pub fn fatal_reason(frame: &ServerFrame) -> Option<String> {
    match &frame.message {
        ServerMessage::Error {
            code: ErrorCode::UnsupportedProtocol,
            message,
        } => Some(format!(
            "the server does not speak protocol version {PROTOCOL_VERSION}: {message}"
        )),
        ServerMessage::Error {
            code: ErrorCode::InvalidName,
            message,
        } if frame.id == Some(RequestId::Text(HELLO_ID.to_owned())) => Some(format!(
            "the server refused the name: {message} (use --name)"
        )),
        ServerMessage::Bye { reason, message } => match reason {
            ByeReason::UnsupportedProtocol => Some(format!(
                "the server does not speak protocol version {PROTOCOL_VERSION}: {message}"
            )),
            ByeReason::Replaced => Some(format!(
                "this session was taken over by another connection: {message}"
            )),
            ByeReason::Shutdown => Some(format!("the server shut down: {message}")),
            ByeReason::ServerFull => Some(format!("the server is full: {message}")),
            // Retrying would only spend this address's allowance of new connections.
            ByeReason::TooManyConnections | ByeReason::TooManySessions => Some(format!(
                "the server refused this address more connections: {message}"
            )),
            // The others (idle, too slow, rate limited, too large, handshake timeout) are
            // about this connection only: reconnect and resume.
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_address_follows_the_websocket_address() {
        let web = |url: &str| {
            Server::new(url.to_owned(), None)
                .expect("no CA file to read")
                .web_address()
        };
        assert_eq!(
            web("ws://127.0.0.1:7878").as_deref(),
            Some("http://127.0.0.1:7878/")
        );
        assert_eq!(
            web("WSS://games.example/ws?x=1").as_deref(),
            Some("https://games.example/")
        );
        assert_eq!(web("http://h:1/"), None);
        assert_eq!(web("ws:///"), None);
    }

    #[test]
    fn a_missing_ca_file_is_an_error() {
        let error = Server::new("wss://h".to_owned(), Some(Path::new("/nonexistent/ca.pem")))
            .expect_err("no such file");
        assert!(error.to_string().contains("/nonexistent/ca.pem"), "{error}");
    }

    #[test]
    fn an_address_turned_away_does_not_retry() {
        for reason in [ByeReason::TooManyConnections, ByeReason::TooManySessions] {
            let frame = ServerFrame {
                message: ServerMessage::Bye {
                    reason,
                    message: "limit".into(),
                },
                id: None,
            };
            assert!(fatal_reason(&frame).is_some(), "{reason}");
        }
    }
}
