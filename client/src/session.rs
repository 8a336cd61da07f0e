//! The client core both faces share: the session the server welcomed, the state of the
//! link, request ids and the requests awaiting replies, the startup action run on the
//! first welcome, joining with a fall back to watching, and leaving on quit.
//!
//! The TUI (`app`) and plain mode (`plain`) hand every connection event to
//! [`Session::on_net`] and only decide how to show what it returns; every request they
//! send goes through [`Session::request`]. Nothing here does I/O or knows a terminal.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use inarow_protocol::{
    ClientFrame, ClientMessage, ErrorCode, Mark, RequestId, RoomId, RoomSnapshot, SeatChoice,
    SeatPlan, SeatRequest, ServerMessage, SessionId,
};

use crate::board::{MoveRejection, check_move};
use crate::cli::Startup;
use crate::net::NetEvent;

/// What both faces say when a full room is watched instead of joined.
pub const WATCHING_INSTEAD: &str = "both seats are taken: watching";

/// The state of the connection as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// The first connection is being made.
    Connecting,
    /// Welcomed by the server.
    Online,
    /// Down; the connection task retries.
    Reconnecting {
        /// Why it went down.
        reason: String,
        /// How long until the next attempt.
        retry_in: Duration,
    },
}

/// Why a request was sent, so its reply or error can be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// `create_room`: the snapshot that answers it is a room we made.
    Create,
    /// A join for any seat that falls back to watching when the room is full.
    JoinOrWatch(RoomId),
    /// A join for a seat or to watch: the snapshot that answers it is a room we entered.
    Enter,
    /// `list_rooms`.
    Rooms,
    /// Anything else: the reply only has to arrive.
    Other,
}

/// A request not sent because the connection is down; the faces show it as it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not connected: wait for the connection to come back")]
pub struct Offline;

/// Why a move was not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotPlayed {
    /// The local check refused it.
    #[error("{0}")]
    Move(MoveRejection),
    /// The connection is down.
    #[error(transparent)]
    Offline(#[from] Offline),
}

/// What a connection event comes to once the core has done its bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// The connection dropped (the link says so now, and replies awaited on it were
    /// forgotten); the connection task retries in `retry_in`.
    Down {
        /// Why, for people.
        reason: String,
        /// How long until the next attempt.
        retry_in: Duration,
    },
    /// The client must stop with this message.
    Fatal(String),
    /// The server welcomed us.
    Welcome {
        /// The welcome follows a drop (not the first connection).
        again: bool,
        /// The server still held our session (its rooms' snapshots follow).
        resumed: bool,
        /// The startup action's requests, on the first welcome.
        send: Vec<ClientFrame>,
    },
    /// A join for any seat found the room full; `send` asks to watch it instead.
    Watching {
        /// The `join` to watch.
        send: Vec<ClientFrame>,
    },
    /// Any other message, with the request it answers if it answers one of ours.
    Message {
        /// The message.
        message: ServerMessage,
        /// Why the request it answers was sent.
        answers: Option<Pending>,
    },
}

/// The session as both faces share it.
#[derive(Debug, Clone)]
pub struct Session {
    /// Our session id, once welcomed (it names us in room snapshots).
    pub me: Option<SessionId>,
    /// The server's name and version, once welcomed.
    pub server: String,
    /// The connection state.
    pub link: Link,
    /// What to do once first welcomed; taken when done.
    startup: Option<Startup>,
    /// The id of the next request.
    next_id: u64,
    /// Requests awaiting a reply, by id, with when they were sent.
    pending: HashMap<u64, (Pending, Instant)>,
}

impl Session {
    /// A session that will run `startup` once first welcomed.
    pub fn new(startup: Startup) -> Session {
        Session {
            me: None,
            server: String::new(),
            link: Link::Connecting,
            startup: Some(startup),
            next_id: 1,
            pending: HashMap::new(),
        }
    }

    /// Whether the server has welcomed us on the current connection.
    pub fn is_online(&self) -> bool {
        self.link == Link::Online
    }

    /// Whether a reply is still to come: the connection, its first welcome and the startup
    /// action, or a reply to a request sent.
    pub fn awaiting_replies(&self) -> bool {
        !self.is_online() || self.startup.is_some() || !self.pending.is_empty()
    }

    /// A frame for `message` with a fresh id, remembered as `pending` until its reply.
    ///
    /// # Errors
    /// [`Offline`] while the connection is down: the frame would wait in a queue and go
    /// out later against a position that has moved on.
    pub fn request(
        &mut self,
        message: ClientMessage,
        pending: Pending,
    ) -> Result<ClientFrame, Offline> {
        let frame = self.notify(message)?;
        if let Some(RequestId::Number(id)) = frame.id {
            self.pending.insert(id, (pending, Instant::now()));
        }
        Ok(frame)
    }

    /// A frame for `message` with a fresh id whose reply nobody waits for (a chat line:
    /// the server broadcasts it back to the whole room).
    ///
    /// # Errors
    /// [`Offline`] while the connection is down.
    pub fn notify(&mut self, message: ClientMessage) -> Result<ClientFrame, Offline> {
        if !self.is_online() {
            return Err(Offline);
        }
        let id = self.next_id;
        self.next_id += 1;
        Ok(ClientFrame {
            message,
            id: Some(RequestId::Number(id)),
        })
    }

    /// Forgets requests sent longer than `wait` before `now`, so nothing waits forever on
    /// a reply that will not come.
    pub fn expire(&mut self, now: Instant, wait: Duration) {
        self.pending
            .retain(|_, (_, sent)| now.duration_since(*sent) < wait);
    }

    /// The `play` of `text` in `room`, once the local check finds it legal for us now.
    ///
    /// # Errors
    /// [`NotPlayed`] saying why nothing is sent.
    pub fn play(&mut self, room: &RoomSnapshot, text: &str) -> Result<ClientFrame, NotPlayed> {
        let mv = check_move(room, self.me, text).map_err(NotPlayed::Move)?;
        let message = ClientMessage::Play {
            room: room.id.clone(),
            ply: room.ply,
            mv,
        };
        Ok(self.request(message, Pending::Other)?)
    }

    /// Joins `room` in the first free seat, falling back to watching when it is full.
    ///
    /// # Errors
    /// [`Offline`] while the connection is down.
    pub fn join_or_watch(&mut self, room: RoomId) -> Result<ClientFrame, Offline> {
        let message = ClientMessage::Join {
            room: room.clone(),
            seat: Some(SeatChoice::Any),
        };
        self.request(message, Pending::JoinOrWatch(room))
    }

    /// Watches `room`.
    ///
    /// # Errors
    /// [`Offline`] while the connection is down.
    pub fn watch(&mut self, room: RoomId) -> Result<ClientFrame, Offline> {
        self.request(ClientMessage::Join { room, seat: None }, Pending::Enter)
    }

    /// The `leave`s to send before quitting: the session token is not kept across runs, so
    /// this client could never resume a seat, and holding it through the reconnection
    /// grace would only keep the others waiting. Offline there is nothing to send: the
    /// server ends the session after its grace anyway.
    pub fn quit(&mut self, rooms: impl IntoIterator<Item = RoomId>) -> Vec<ClientFrame> {
        rooms
            .into_iter()
            .filter_map(|room| {
                self.request(ClientMessage::Leave { room }, Pending::Other)
                    .ok()
            })
            .collect()
    }

    /// Takes in one connection event.
    pub fn on_net(&mut self, event: NetEvent) -> Update {
        match event {
            NetEvent::Down { reason, retry_in } => {
                self.link = Link::Reconnecting {
                    reason: reason.clone(),
                    retry_in,
                };
                // Replies to requests sent on the lost connection will never come.
                self.pending.clear();
                Update::Down { reason, retry_in }
            }
            NetEvent::Fatal(message) => Update::Fatal(message),
            NetEvent::Frame(frame) => {
                let answers = match &frame.id {
                    Some(RequestId::Number(n)) => self.pending.remove(n).map(|(p, _)| p),
                    _ => None,
                };
                self.on_message(frame.message, answers)
            }
        }
    }

    fn on_message(&mut self, message: ServerMessage, answers: Option<Pending>) -> Update {
        match (message, answers) {
            (
                ServerMessage::Welcome {
                    session,
                    server,
                    resumed,
                    ..
                },
                _,
            ) => {
                self.me = Some(session);
                self.server = server;
                let again = self.link != Link::Connecting;
                self.link = Link::Online;
                let send = match self.startup.take() {
                    Some(startup) => self.start(startup),
                    None => Vec::new(),
                };
                Update::Welcome {
                    again,
                    resumed,
                    send,
                }
            }
            (
                ServerMessage::Error {
                    code: ErrorCode::RoomFull,
                    ..
                },
                Some(Pending::JoinOrWatch(room)),
            ) => Update::Watching {
                send: self.watch(room).into_iter().collect(),
            },
            (message, answers) => Update::Message { message, answers },
        }
    }

    /// The requests of the startup action.
    fn start(&mut self, startup: Startup) -> Vec<ClientFrame> {
        let frame = match startup {
            Startup::Lobby => return Vec::new(),
            Startup::Rooms => self.request(ClientMessage::ListRooms {}, Pending::Rooms),
            Startup::Play { rules, seat, level } => {
                let (me, ai) = (SeatRequest::Me, SeatRequest::Ai { level });
                let seats = match seat {
                    Mark::X => SeatPlan { x: me, o: ai },
                    Mark::O => SeatPlan { x: ai, o: me },
                };
                let message = ClientMessage::CreateRoom {
                    name: None,
                    rules,
                    seats,
                    private: true,
                };
                self.request(message, Pending::Create)
            }
            Startup::Join(room) => self.join_or_watch(room),
            Startup::Watch(room) => self.watch(room),
        };
        frame.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::session;
    use inarow_protocol::ServerFrame;

    fn welcome(session: &mut Session) -> Update {
        session.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Welcome {
            protocol: 1,
            session: self::session(1),
            token: "t".into(),
            server: "s".into(),
            resumed: false,
        })))
    }

    #[test]
    fn nothing_goes_out_before_the_welcome_and_replies_are_matched() {
        let mut s = Session::new(Startup::Lobby);
        assert_eq!(
            s.request(ClientMessage::ListRooms {}, Pending::Rooms),
            Err(Offline)
        );
        assert!(
            matches!(welcome(&mut s), Update::Welcome { again: false, ref send, .. } if send.is_empty())
        );
        let frame = s
            .request(ClientMessage::ListRooms {}, Pending::Rooms)
            .expect("online");
        assert!(s.awaiting_replies());
        let reply = s.on_net(NetEvent::Frame(ServerFrame {
            message: ServerMessage::Rooms { rooms: Vec::new() },
            id: frame.id,
        }));
        assert!(matches!(
            reply,
            Update::Message {
                answers: Some(Pending::Rooms),
                ..
            }
        ));
        assert!(!s.awaiting_replies());
    }

    #[test]
    fn startup_runs_once_and_a_full_room_is_watched() {
        let room = RoomId::from("abcd2345");
        let mut s = Session::new(Startup::Join(room.clone()));
        let Update::Welcome { send, .. } = welcome(&mut s) else {
            panic!("a welcome");
        };
        assert_eq!(send.len(), 1);
        let full = s.on_net(NetEvent::Frame(ServerFrame {
            message: ServerMessage::Error {
                code: ErrorCode::RoomFull,
                message: "full".into(),
            },
            id: send[0].id.clone(),
        }));
        let Update::Watching { send } = full else {
            panic!("watching instead");
        };
        assert_eq!(send[0].message, ClientMessage::Join { room, seat: None });
        s.on_net(NetEvent::Down {
            reason: "gone".into(),
            retry_in: Duration::from_millis(200),
        });
        assert!(!s.is_online());
        assert!(
            s.quit([RoomId::from("x")]).is_empty(),
            "offline: nothing to send"
        );
        assert!(
            matches!(welcome(&mut s), Update::Welcome { again: true, ref send, .. } if send.is_empty())
        );
    }
}
