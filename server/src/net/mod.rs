//! The network side: accepting sockets under the connection limits, TLS, HTTP (the web
//! client, `/healthz`, `/metrics`) and the WebSocket connections upgraded from it.
//!
//! - `listener`: the accept loop, and the start and end of a server's life;
//! - `admission`: the connection limits (the server's, and each address's at once and
//!   per minute);
//! - `tls`: the certificate and rustls' configuration;
//! - `http`: one accepted socket served by hyper until it closes or upgrades;
//! - `connection`: one WebSocket connection's loop, and the [`Peer`] handle rooms hold.

pub(crate) mod admission;
pub(crate) mod connection;
mod http;
pub(crate) mod listener;
pub(crate) mod tls;

pub(crate) use self::connection::{Attachment, Kick, Peer};
