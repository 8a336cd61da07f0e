//! HTTP on the game port, served by hyper: the web client, `/healthz`, `/metrics`, and the
//! WebSocket upgrade that hands the socket to `connection`.
//!
//! Every accepted socket comes here first (through TLS when configured). The same limits
//! hold for plain HTTP as for WebSocket: one connection slot each, `handshake_timeout` for
//! the TLS handshake and for each request head, `max_request_head` bytes of head. A request
//! that is neither a known page nor an upgrade gets an HTTP answer with a one-line body.
//!
//! Over 600 lines with its tests: the web files' compression and ETags sit beside the
//! routing that serves them.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
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

/// One file of the web client, embedded in the binary, with its compressed forms made
/// the first time each is asked for.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
    /// Whether a browser may show it as a page of its own (HTML, SVG): it then carries the
    /// content security and referrer policies.
    document: bool,
    /// The file as served: scripts and styles without their comment lines and indentation
    /// (see [`without_comments`]), the rest as is.
    served: OnceLock<Bytes>,
    /// The file as served, uncompressed, with its ETag.
    identity: OnceLock<Encoded>,
    /// Made once, not per request: compressing costs far more than serving. `None` if
    /// the compressor failed, and the file is then served as is.
    gzip: OnceLock<Option<Encoded>>,
    brotli: OnceLock<Option<Encoded>>,
}

impl Asset {
    const fn new(
        path: &'static str,
        content_type: &'static str,
        document: bool,
        body: &'static [u8],
    ) -> Self {
        Asset {
            path,
            content_type,
            body,
            document,
            served: OnceLock::new(),
            identity: OnceLock::new(),
            gzip: OnceLock::new(),
            brotli: OnceLock::new(),
        }
    }

    /// Whether the file in `coding` is at hand (made, or needing no work).
    fn is_ready(&self, coding: Coding) -> bool {
        match coding {
            Coding::Identity => true,
            Coding::Gzip => self.gzip.get().is_some(),
            Coding::Brotli => self.brotli.get().is_some(),
        }
    }

    /// The file in `coding` if it can be had, compressed on first use, else as is; with
    /// the coding it is in. Compression runs once per file and coding for the life of the
    /// process (the server asks for it on a blocking thread first: see [`uncompressed`]).
    fn encoded(&self, coding: Coding) -> (Coding, &Encoded) {
        let compressed = match coding {
            Coding::Identity => None,
            Coding::Gzip => self
                .gzip
                .get_or_init(|| gzip(self.served()).map(|b| Encoded::new(b, coding)))
                .as_ref(),
            Coding::Brotli => self
                .brotli
                .get_or_init(|| brotli(self.served()).map(|b| Encoded::new(b, coding)))
                .as_ref(),
        };
        match compressed {
            Some(encoded) => (coding, encoded),
            None => (
                Coding::Identity,
                self.identity
                    .get_or_init(|| Encoded::new(self.served().clone(), Coding::Identity)),
            ),
        }
    }

    /// The file as served, made once.
    fn served(&self) -> &Bytes {
        self.served.get_or_init(|| {
            if self.content_type.starts_with("text/javascript")
                || self.content_type.starts_with("text/css")
            {
                Bytes::from(without_comments(self.body))
            } else {
                Bytes::from_static(self.body)
            }
        })
    }
}

/// A content coding the server can send the web client's files in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    Identity,
    Gzip,
    Brotli,
}

impl Coding {
    /// The `Content-Encoding` token, `None` for the file as is.
    fn token(self) -> Option<&'static str> {
        match self {
            Coding::Identity => None,
            Coding::Gzip => Some("gzip"),
            Coding::Brotli => Some("br"),
        }
    }
}

/// A file's bytes in one coding and the strong ETag that names exactly those bytes.
struct Encoded {
    body: Bytes,
    etag: HeaderValue,
}

impl Encoded {
    /// Tags `body` with a hash of its bytes: each coding of a file gets its own tag (a
    /// cache must not answer a gzip request with brotli bytes), and a new binary with
    /// changed files gets new tags, so `no-cache` revalidation picks them up.
    fn new(body: Bytes, coding: Coding) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, &body);
        let mut tag = String::with_capacity(40);
        tag.push('"');
        // 128 bits of the hash: collisions between versions of six files are out of reach.
        for byte in &digest.as_ref()[..16] {
            tag.push_str(&format!("{byte:02x}"));
        }
        if let Some(token) = coding.token() {
            tag.push('-');
            tag.push_str(token);
        }
        tag.push('"');
        let etag =
            HeaderValue::from_str(&tag).unwrap_or_else(|_| HeaderValue::from_static("\"unknown\""));
        Encoded { body, etag }
    }
}

/// A script or style sheet without its comments, indentation and blank lines: they are
/// for the people who read the source, and are a tenth of a first load's bytes. The web
/// files start every comment on a line of its own (`//`, or `/*` through a line that ends
/// with `*/`) and keep no string over two lines, which a test checks, so that nothing but
/// comments and layout changes.
fn without_comments(file: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(file.len());
    let mut in_comment = false;
    for line in file.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        in_comment |= line.starts_with(b"/*");
        if in_comment {
            in_comment = !line.ends_with(b"*/");
            continue;
        }
        if line.is_empty() || line.starts_with(b"//") {
            continue;
        }
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

/// `body` compressed with gzip at its best ratio.
fn gzip(body: &[u8]) -> Option<Bytes> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    match encoder.write_all(body).and_then(|()| encoder.finish()) {
        Ok(out) => Some(Bytes::from(out)),
        Err(e) => {
            tracing::warn!(error = %e, "gzip failed; serving the file as is");
            None
        }
    }
}

/// `body` compressed with brotli at its best ratio, with a window no larger than the file
/// needs (a smaller window is cheaper for the browser to decode).
fn brotli(body: &[u8]) -> Option<Bytes> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        size_hint: body.len(),
        ..Default::default()
    };
    let mut out = Vec::with_capacity(body.len() / 2);
    match brotli::BrotliCompress(&mut &body[..], &mut out, &params) {
        Ok(_) => Some(Bytes::from(out)),
        Err(e) => {
            tracing::warn!(error = %e, "brotli failed; serving the file as is");
            None
        }
    }
}

/// The web client. `/` is its page; the rest are what the page loads.
static ASSETS: [Asset; 7] = [
    Asset::new(
        "/",
        "text/html; charset=utf-8",
        true,
        include_bytes!("../../web/index.html"),
    ),
    Asset::new(
        "/style.css",
        "text/css; charset=utf-8",
        false,
        include_bytes!("../../web/style.css"),
    ),
    Asset::new(
        "/app.js",
        "text/javascript; charset=utf-8",
        false,
        include_bytes!("../../web/app.js"),
    ),
    Asset::new(
        "/net.js",
        "text/javascript; charset=utf-8",
        false,
        include_bytes!("../../web/net.js"),
    ),
    Asset::new(
        "/game.js",
        "text/javascript; charset=utf-8",
        false,
        include_bytes!("../../web/game.js"),
    ),
    Asset::new(
        "/games.js",
        "text/javascript; charset=utf-8",
        false,
        include_bytes!("../../web/games.js"),
    ),
    Asset::new(
        "/favicon.svg",
        "image/svg+xml",
        true,
        include_bytes!("../../web/favicon.svg"),
    ),
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
        service_fn(move |request: Request<Incoming>| {
            let (state, upgrade) = (state.clone(), upgrade.clone());
            async move {
                // The first request for a file in a coding compresses it, which takes a
                // while at the best ratios: on a blocking thread, not the runtime's.
                if let Some((asset, coding)) = uncompressed(&request).filter(|_| !full) {
                    let _ = tokio::task::spawn_blocking(move || asset.encoded(coding).0).await;
                }
                let response = answer(request, &state, &upgrade, full);
                metrics::http_request();
                Ok::<_, Infallible>(response)
            }
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
        _ => match asset_at(path) {
            Some(asset) => page(asset, request.headers()),
            None => text(StatusCode::NOT_FOUND, "not found"),
        },
    }
}

/// The web client's file at `path`, if any.
fn asset_at(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}

/// The file a page request asks for, with the coding it will be sent in, when that coding
/// has yet to be made.
fn uncompressed(request: &Request<Incoming>) -> Option<(&'static Asset, Coding)> {
    if !matches!(*request.method(), Method::GET | Method::HEAD) || wants_websocket(request) {
        return None;
    }
    let asset = asset_at(request.uri().path())?;
    let coding = choose_coding(request.headers());
    (!asset.is_ready(coding)).then_some((asset, coding))
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

/// A file of the web client, in the best coding the request accepts; `304 Not Modified`
/// with no body when the request already holds these bytes (`If-None-Match`).
fn page(asset: &Asset, request: &HeaderMap) -> Response<Full<Bytes>> {
    let (coding, encoded) = asset.encoded(choose_coding(request));
    let fresh = request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .any(|v| etag_matches(v.as_bytes(), encoded.etag.as_bytes()));
    let mut response = if fresh {
        let mut response = Response::new(Full::default());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        let mut response = Response::new(Full::new(encoded.body.clone()));
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        );
        if let Some(token) = coding.token() {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
        }
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        // The policies govern documents: the page, and the SVG, which a browser runs as
        // one when it is opened by itself. On a script or a style sheet they do nothing
        // but cost bytes on every first load.
        if asset.document {
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            );
            headers.insert(
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            );
        }
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, encoded.etag.clone());
    // The files change with the binary: revalidate (cheap, with the ETag) rather than run
    // a stale client.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    response
}

/// The coding to answer in: brotli or gzip, whichever the request gives the higher weight
/// (brotli on a tie: it is smaller), the file as is when it accepts neither. A coding
/// weighted `q=0` is refused; `*` stands for any coding not named.
fn choose_coding(request: &HeaderMap) -> Coding {
    let (mut br, mut gz, mut any) = (None, None, None);
    for item in request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or_default().trim();
        let weight = parts
            .filter_map(|p| {
                let (key, value) = p.split_once('=')?;
                key.trim()
                    .eq_ignore_ascii_case("q")
                    .then(|| value.trim().parse::<f32>().ok())?
            })
            .next()
            .unwrap_or(1.0);
        if name.eq_ignore_ascii_case("br") {
            br = Some(weight);
        } else if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
            gz = Some(weight);
        } else if name == "*" {
            any = Some(weight);
        }
    }
    let br = br.or(any).unwrap_or(0.0);
    let gz = gz.or(any).unwrap_or(0.0);
    if br > 0.0 && br >= gz {
        Coding::Brotli
    } else if gz > 0.0 {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

/// Whether an `If-None-Match` value names `etag`: `*`, or a list of tags compared weakly
/// (a `W/` prefix ignored), as RFC 9110 asks of `If-None-Match`.
fn etag_matches(if_none_match: &[u8], etag: &[u8]) -> bool {
    let Ok(list) = std::str::from_utf8(if_none_match) else {
        return false;
    };
    let Ok(etag) = std::str::from_utf8(etag) else {
        return false;
    };
    list.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`without_comments`] relies on, checked in every script and style sheet: each
    /// comment starts a line and a block comment ends one, and no line has an odd number
    /// of backticks (a template literal over two lines, whose indentation is its text).
    #[test]
    fn the_web_files_keep_comments_on_lines_of_their_own() {
        for asset in &ASSETS {
            if asset.content_type.starts_with("text/html") || asset.path.ends_with(".svg") {
                continue;
            }
            let text = std::str::from_utf8(asset.body).expect("the web files are UTF-8");
            for (n, line) in text.lines().enumerate() {
                let at = format!("{}:{}: {line}", asset.path, n + 1);
                let code = line.trim();
                if let Some(i) = code.find("/*") {
                    assert_eq!(i, 0, "a comment after code: {at}");
                }
                if let Some(i) = code.find("*/") {
                    assert_eq!(i + 2, code.len(), "code after a comment: {at}");
                }
                assert_eq!(
                    line.matches('`').count() % 2,
                    0,
                    "a string over lines: {at}"
                );
            }
        }
    }

    #[test]
    fn comments_indentation_and_blank_lines_are_left_out() {
        let file = b"/* a\n * b */\nbody {\n  color: red;\n\n}\n  // c\nlet s = \"x // y\";\n";
        assert_eq!(
            without_comments(file),
            b"body {\ncolor: red;\n}\nlet s = \"x // y\";\n"
        );
    }

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).expect("a header value"),
        );
        headers
    }

    #[test]
    fn the_coding_follows_accept_encoding_and_its_weights() {
        assert_eq!(choose_coding(&HeaderMap::new()), Coding::Identity);
        assert_eq!(choose_coding(&accept("gzip, deflate")), Coding::Gzip);
        assert_eq!(
            choose_coding(&accept("gzip, deflate, br, zstd")),
            Coding::Brotli
        );
        assert_eq!(choose_coding(&accept("br;q=0.5, gzip")), Coding::Gzip);
        assert_eq!(choose_coding(&accept("br;q=0, gzip;q=0")), Coding::Identity);
        assert_eq!(
            choose_coding(&accept("gzip;Q=0 , br;q=0")),
            Coding::Identity
        );
        assert_eq!(choose_coding(&accept("*")), Coding::Brotli);
        assert_eq!(choose_coding(&accept("*, br;q=0")), Coding::Gzip);
        assert_eq!(choose_coding(&accept("identity")), Coding::Identity);
        assert_eq!(choose_coding(&accept("gzip;q=nonsense")), Coding::Gzip);
    }

    #[test]
    fn if_none_match_compares_tags_weakly_and_accepts_a_star() {
        assert!(etag_matches(br#""a1""#, br#""a1""#));
        assert!(etag_matches(br#""zz", W/"a1""#, br#""a1""#));
        assert!(etag_matches(b"*", br#""a1""#));
        assert!(!etag_matches(br#""a1-gzip""#, br#""a1""#));
        assert!(!etag_matches(b"", br#""a1""#));
    }

    #[test]
    fn each_coding_has_its_own_tag_and_is_smaller() {
        let asset = &ASSETS[0];
        let [identity, gzip, brotli] =
            [Coding::Identity, Coding::Gzip, Coding::Brotli].map(|c| asset.encoded(c));
        assert_eq!(
            [identity.0, gzip.0, brotli.0],
            [Coding::Identity, Coding::Gzip, Coding::Brotli]
        );
        assert_ne!(identity.1.etag, gzip.1.etag);
        assert_ne!(gzip.1.etag, brotli.1.etag);
        assert_ne!(identity.1.etag, brotli.1.etag);
        assert!(gzip.1.body.len() < asset.body.len());
        assert!(brotli.1.body.len() < gzip.1.body.len());
    }
}
