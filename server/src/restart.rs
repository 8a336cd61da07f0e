//! Restarting without losing games: bringing back, at start, the rooms and sessions the
//! store kept (`store::live`), so that players who return with their tokens within the
//! grace period find their seats at the same ply and AI seats move on.
//!
//! The saving side is spread over the tasks that own the state: a room writes its
//! record, moves and chat as they happen and saves itself whole when the server shuts
//! down (`room::state`); the session registry's changes are written by the session handler; the
//! listener waits for the rooms and the store before telling clients `bye restarting`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use inarow_protocol::SessionId;

use crate::room;
use crate::session;
use crate::state::ServerState;
use crate::store::{LiveWrite, StoreError};

/// What a start restored.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Restored {
    /// Rooms reopened.
    pub(crate) rooms: usize,
    /// Sessions held for their players' return.
    pub(crate) sessions: usize,
}

/// Brings back what the store kept of the server that ran before on the same data:
/// sessions detached, each with a grace period from now; rooms reopened with their
/// players' seats held. Saved rooms that cannot be read are logged and forgotten.
/// Nothing to do when the store keeps nothing (`:memory:`).
///
/// # Errors
/// [`StoreError`] if the store cannot be read at all.
pub(crate) async fn restore(state: &Arc<ServerState>) -> Result<Restored, StoreError> {
    if !state.store.keeps_live() {
        return Ok(Restored::default());
    }
    let started = Instant::now();
    let saved = state.store.load_live().await?;
    for room in saved.unreadable_rooms {
        state.store.checkpoint(LiveWrite::RoomClosed(room));
    }
    let held = state
        .sessions
        .restore(saved.sessions.into_iter().map(|(record, _)| record));
    let known: HashSet<SessionId> = held.iter().map(|(session, _)| *session).collect();
    let context = state.room_context();
    let mut rooms = 0;
    for room in saved.rooms {
        let id = room.table.id.clone();
        match room::restore(&context, room, |s| known.contains(&s)) {
            Ok(seated) => {
                rooms += 1;
                for session in seated {
                    state.sessions.enter(session, &id);
                }
            }
            Err(error) => {
                tracing::warn!(room = %id, %error, "saved room not restored; forgotten");
                if matches!(error, room::NotRestored::Corrupt(_)) {
                    state.store.checkpoint(LiveWrite::RoomClosed(id));
                }
            }
        }
    }
    let sessions = held.len();
    for (session, grace) in held {
        session::expire_after_grace(state, session, grace, tracing::Span::none());
    }
    tracing::info!(
        rooms,
        sessions,
        ms = started.elapsed().as_millis() as u64,
        "restored rooms and sessions"
    );
    Ok(Restored { rooms, sessions })
}
