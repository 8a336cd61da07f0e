//! HTTP on the game port, served by hyper: the web client, `/healthz`, `/metrics`, and the
//! WebSocket upgrade that hands the socket to `connection`.
//!
//! Every accepted socket comes here first (through TLS when configured). The same limits
//! hold for plain HTTP as for WebSocket: one connection slot each, `handshake_timeout` for
//! the TLS handshake and for each request head, `max_request_head` bytes of head. A request
//! that is neither a known page nor an upgrade gets an HTTP answer with a one-line body.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::upgrade::OnUpgrade;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tracing::Instrument;

use super::admission::Admission;
use super::connection;
use crate::metrics;
use crate::state::ServerState;

/// Time allowed to finish answering once shutdown starts.
const SHUTDOWN_TIME: Duration = Duration::from_secs(1);
/// The smallest request head limit hyper accepts.
const MIN_REQUEST_HEAD: usize = 8192;

/// One file of the web client, embedded in the binary.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

/// The web client. `/` is its page; the rest are what the page loads.
const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../web/index.html"),
    },
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../web/style.css"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../web/app.js"),
    },
    Asset {
        path: "/net.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../web/net.js"),
    },
    Asset {
        path: "/game.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../web/game.js"),
    },
    Asset {
        path: "/favicon.svg",
        content_type: "image/svg+xml",
        body: include_bytes!("../../web/favicon.svg"),
    },
];

/// Pages may load only what this server serves and talk only to it: no CDN, no inline
/// script.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; connect-src 'self'; \
     img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// Serves one accepted socket: TLS if configured, then HTTP until it closes or upgrades to
/// a WebSocket. A refused `admission` (the server or this address at its limit): pages
/// are answered 503, a WebSocket is told why.
pub(crate) async fn serve(
    socket: TcpStream,
    addr: SocketAddr,
    state: Arc<ServerState>,
    admission: Admission,
) {
    let span = tracing::info_span!(
        "conn",
        id = state.next_conn_id(),
        peer = %addr,
        session = tracing::field::Empty,
    );
    let open = metrics::connection_opened();
    // Each branch's future is boxed: this task is spawned for every socket and holds the
    // largest of its states inline, and the TLS one (handshake, then HTTP over TLS) is
    // much larger than the plain one.
    async move {
        let Some(tls) = state.config.tls.clone() else {
            return Box::pin(serve_http(socket, addr, state, admission, open)).await;
        };
        let acceptor = tokio_rustls::TlsAcceptor::from(tls.config);
        let shutdown = state.shutdown.clone();
        let handshake = tokio::select! {
            h = tokio::time::timeout(state.config.handshake_timeout, Box::pin(acceptor.accept(socket))) => h,
            () = shutdown.cancelled() => return,
        };
        match handshake {
            Ok(Ok(stream)) => Box::pin(serve_http(stream, addr, state, admission, open)).await,
            Ok(Err(e)) => tracing::debug!(error = %e, "TLS handshake failed"),
            Err(_) => tracing::debug!("TLS handshake timed out"),
        }
    }
    .instrument(span)
    .await;
}

/// Serves HTTP on `io`; on a WebSocket upgrade, passes the socket to `connection`. `open`
/// counts the connection open until it closes.
async fn serve_http<IO>(
    io: IO,
    addr: SocketAddr,
    state: Arc<ServerState>,
    admission: Admission,
    open: metrics::Open,
) where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // A separate future, finished before the WebSocket's begins: the HTTP connection's
    // state is not kept beside the WebSocket's for the connection's whole life.
    let full = matches!(admission, Admission::Refused(_));
    let Some(pending) = http_until_upgrade(io, &state, full).await else {
        return;
    };
    match tokio::time::timeout(state.config.handshake_timeout, pending).await {
        // The socket itself rather than hyper's `Upgraded` (a boxed trait object with a
        // rewind buffer); the bytes hyper read past the request go to the WebSocket
        // first.
        Ok(Ok(upgraded)) => match upgraded.downcast::<TokioIo<IO>>() {
            Ok(parts) => {
                // Copied out and dropped here: the bytes share hyper's whole read buffer,
                // which would otherwise stay allocated for the connection's life.
                let read = parts.read_buf.to_vec();
                drop(parts.read_buf);
                let socket = parts.io.into_inner();
                websocket(socket, read, addr, state, admission, open).await;
            }
            Err(upgraded) => {
                let io = TokioIo::new(upgraded);
                websocket(io, Vec::new(), addr, state, admission, open).await;
            }
        },
        Ok(Err(e)) => tracing::debug!(error = %e, "WebSocket upgrade failed"),
        Err(_) => tracing::debug!("WebSocket upgrade timed out"),
    }
}

/// Serves the upgraded `socket` ([`connection::serve`]) in the connection's span: an
/// admitted one as a task of its own, so that this task's HTTP state does not stay
/// beside it for the connection's life; a refused one is told why from here, within
/// the refusals' own limit.
async fn websocket<S>(
    socket: S,
    read: Vec<u8>,
    addr: SocketAddr,
    state: Arc<ServerState>,
    admission: Admission,
    open: metrics::Open,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let admitted = matches!(admission, Admission::Admitted { .. });
    let tracker = state.tracker.clone();
    let span = tracing::Span::current();
    let connection = connection::serve(socket, read, addr, state, admission, span, open);
    if admitted {
        tracker.spawn(connection);
    } else {
        connection.await;
    }
}

/// Serves HTTP requests on `io` until it closes or a WebSocket upgrade is answered; returns
/// the pending upgrade, if any.
async fn http_until_upgrade<IO>(io: IO, state: &Arc<ServerState>, full: bool) -> Option<OnUpgrade>
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let config = &state.config;
    let upgrade: Arc<Mutex<Option<OnUpgrade>>> = Arc::default();
    let service = {
        let (state, upgrade) = (state.clone(), upgrade.clone());
        service_fn(move |request| {
            let response = answer(request, &state, &upgrade, full);
            metrics::http_request();
            async move { Ok::<_, Infallible>(response) }
        })
    };
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(config.handshake_timeout)
        .max_buf_size(config.max_request_head.max(MIN_REQUEST_HEAD));
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    let served = tokio::select! {
        served = conn.as_mut() => served,
        () = state.shutdown.cancelled() => {
            conn.as_mut().graceful_shutdown();
            match tokio::time::timeout(SHUTDOWN_TIME, conn.as_mut()).await {
                Ok(served) => served,
                Err(_) => return None,
            }
        }
    };
    if let Err(e) = served {
        // Timeouts, oversize heads and malformed requests land here (hyper has answered
        // what it could); they end only this connection.
        tracing::debug!(error = %e, "HTTP connection ended");
        return None;
    }
    upgrade
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

/// The answer to one request. An upgrade leaves its pending socket in `upgrade`.
fn answer(
    mut request: Request<Incoming>,
    state: &ServerState,
    upgrade: &Mutex<Option<OnUpgrade>>,
    full: bool,
) -> Response<Full<Bytes>> {
    if wants_websocket(&request) {
        let headers = request.headers();
        let version_ok = headers
            .get(header::SEC_WEBSOCKET_VERSION)
            .is_some_and(|v| v.as_bytes() == b"13");
        let Some(key) = headers.get(header::SEC_WEBSOCKET_KEY) else {
            return text(StatusCode::BAD_REQUEST, "WebSocket upgrade without a key");
        };
        if request.method() != Method::GET {
            return text(StatusCode::BAD_REQUEST, "a WebSocket upgrade must be a GET");
        }
        if !version_ok {
            let mut response = text(
                StatusCode::UPGRADE_REQUIRED,
                "this server speaks WebSocket version 13",
            );
            response.headers_mut().insert(
                header::SEC_WEBSOCKET_VERSION,
                HeaderValue::from_static("13"),
            );
            return response;
        }
        let accept = derive_accept_key(key.as_bytes());
        *upgrade
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(hyper::upgrade::on(&mut request));
        let mut response = Response::new(Full::default());
        *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        let headers = response.headers_mut();
        headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
        if let Ok(accept) = HeaderValue::from_str(&accept) {
            headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
        }
        return response;
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD");
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    if full {
        let mut response = text(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is full; try again later",
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("10"));
        return response;
    }
    let path = request.uri().path();
    match path {
        "/healthz" => text(StatusCode::OK, "ok"),
        "/metrics" => {
            let store = state.store.stats();
            let read =
                |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
            let body = metrics::render(&metrics::Gauges {
                sessions: state.sessions.len(),
                rooms: state.lobby.len(),
                store_written: read(&store.committed),
                store_retries: read(&store.retries),
                store_dropped: read(&store.dropped),
                store_queued: read(&store.queued).saturating_sub(read(&store.settled)),
            });
            let mut response = Response::new(Full::new(Bytes::from(body)));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            response
        }
        _ => {
            let path = if path == "/index.html" { "/" } else { path };
            match ASSETS.iter().find(|a| a.path == path) {
                Some(asset) => page(asset),
                None => text(StatusCode::NOT_FOUND, "not found"),
            }
        }
    }
}

/// Whether the request asks for a WebSocket (`Upgrade: websocket`), well formed or not.
fn wants_websocket(request: &Request<Incoming>) -> bool {
    request
        .headers()
        .get_all(header::UPGRADE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|token| token.trim().eq_ignore_ascii_case("websocket"))
}

/// A one-line plain text answer. A refusal also closes the connection, so a client that
/// sent something wrong does not keep its slot.
fn text(status: StatusCode, line: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{line}\n"))));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if status.is_client_error() || status.is_server_error() {
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A file of the web client.
fn page(asset: &Asset) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(asset.body)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    // The files change with the binary: revalidate rather than run a stale client.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}
