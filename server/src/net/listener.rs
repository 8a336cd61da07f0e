//! The accept loop: admits connections under the server's and each address's connection
//! limits (`admission`) and, on shutdown,
//! waits (boundedly) for every task of the server to finish.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::admission::{Admission, Turnaway};
use super::http;
use crate::ServerError;
use crate::ai::external::Engines;
use crate::config::Config;
use crate::state::ServerState;
use crate::store::Store;

/// How long shutdown waits for connections and AI jobs to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How long shutdown waits for the rooms to stop (and save themselves) before telling
/// clients `bye`; a room stops as soon as it sees the shutdown, so this is only a bound.
const ROOMS_GRACE: Duration = Duration::from_secs(2);
/// How long shutdown waits for the store to write what the rooms queued (a failing disk
/// is retried for ever otherwise).
const STORE_FLUSH_GRACE: Duration = Duration::from_secs(5);
/// Connections being turned away (`server_full`, `too_many_connections`) at once; beyond it a socket is simply
/// dropped, so a flood cannot make the server spend unbounded work on refusals.
const REFUSALS_IN_FLIGHT: usize = 64;
/// Pause after a failed accept (such as running out of file descriptors), so the loop
/// does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The accept loop (see [`crate::run`]).
pub(crate) async fn run(
    listener: TcpListener,
    config: Config,
    store: Store,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    let addr = listener.local_addr()?;
    let connections = Arc::new(Semaphore::new(config.max_connections));
    let refusals = Arc::new(Semaphore::new(REFUSALS_IN_FLIGHT));
    // Before the first accept, so that every client sees the same engines.
    let engines = Arc::new(Engines::probe(&config.engines, &config.engine_limits).await);
    let state = Arc::new(ServerState::new(config, store, engines, shutdown.clone()));
    // Before the first accept: a returning client must find its rooms.
    crate::restart::restore(&state).await?;
    tracing::info!(%addr, "serving");
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (socket, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                }
            }
        };
        let _ = socket.set_nodelay(true);
        // The address's limits first, so a host at its limit is told so even when the
        // server is full too.
        let admission = state
            .address_limits
            .admit(peer.ip(), std::time::Instant::now())
            .and_then(|ticket| match connections.clone().try_acquire_owned() {
                Ok(permit) => Ok(Admission::Admitted {
                    _permit: permit,
                    _ticket: ticket,
                }),
                Err(_) => Err(Turnaway::ServerFull),
            })
            .unwrap_or_else(Admission::Refused);
        match admission {
            admitted @ Admission::Admitted { .. } => {
                state
                    .tracker
                    .spawn(http::serve(socket, peer, state.clone(), admitted));
            }
            Admission::Refused(turnaway) => {
                let Ok(refusal) = refusals.clone().try_acquire_owned() else {
                    tracing::debug!(%peer, %turnaway, "connection dropped");
                    continue;
                };
                let state_for_task = state.clone();
                state.tracker.spawn(async move {
                    let refused = Admission::Refused(turnaway);
                    http::serve(socket, peer, state_for_task, refused).await;
                    drop(refusal);
                });
            }
        }
    }
    drop(listener);
    tracing::info!("shutting down");
    // Rooms first: each stops taking moves and (when the store keeps rooms) saves itself;
    // only then are clients told `bye`, so none is told to come back before its game is
    // safe.
    state.rooms.close();
    if tokio::time::timeout(ROOMS_GRACE, state.rooms.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            rooms = state.rooms.len(),
            "gave up waiting for rooms to stop"
        );
    }
    if state.store.keeps_live() {
        // The saved rooms are on disk before anyone is told to come back for them.
        match tokio::time::timeout(STORE_FLUSH_GRACE, state.store.flush()).await {
            Ok(Ok(())) => tracing::info!("rooms and sessions saved"),
            Ok(Err(e)) => tracing::warn!(error = %e, "could not save rooms and sessions"),
            Err(_) => tracing::warn!("gave up waiting for rooms and sessions to be saved"),
        }
    }
    state.farewell.cancel();
    state.tracker.close();
    if tokio::time::timeout(SHUTDOWN_GRACE, state.tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            tasks = state.tracker.len(),
            "gave up waiting for tasks to finish"
        );
    }
    match tokio::time::timeout(STORE_FLUSH_GRACE, state.store.flush()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "could not flush the store"),
        Err(_) => tracing::warn!("gave up waiting for the store to write"),
    }
    tracing::info!(
        rooms = state.lobby.len(),
        sessions = state.sessions.len(),
        "stopped"
    );
    Ok(())
}
