//! The client core both faces share: the session the server welcomed, the state of the
//! link, request ids and the requests awaiting replies, the startup action run on the
//! first welcome, joining with a fall back to watching, leaving on quit, and each room's
//! latest snapshot, which `moved` events (protocol 2) bring up to date: the faces only
//! ever see snapshots, and a gap in a room's `seq` is answered with `sync`.
//!
//! The TUI (`app`) and plain mode (`plain`) hand every connection event to
//! [`Session::on_net`] and only decide how to show what it returns; every request they
//! send goes through [`Session::request`]. Nothing here does I/O or knows a terminal.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use inarow_protocol::{
    ClientFrame, ClientMessage, ErrorCode, Mark, MoveEvent, RequestId, RoomId, RoomSnapshot,
    SeatChoice, SeatPlan, SeatRequest, ServerMessage, SessionId,
};

use crate::board::{MoveRejection, apply_moved, check_move};
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
    /// `sync` after a gap: the snapshot that answers it only catches up, it is no room
    /// we entered.
    Sync,
    /// `history`: a page of kept games.
    History,
    /// `game`: one kept game.
    Game,
    /// `analyze` of a room: an `analysis` (or an error) answers it, unless we leave the
    /// room first.
    Analyze(RoomId),
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
    /// Any other message, with the request it answers if it answers one of ours. A
    /// `moved` that follows the room's last snapshot comes as the `room` snapshot it makes;
    /// one that does not (a repeat, or after a gap) comes as it is, to be ignored.
    Message {
        /// The message.
        message: ServerMessage,
        /// Why the request it answers was sent.
        answers: Option<Pending>,
        /// Requests to send: a `sync` when this message showed a gap in its room's events.
        send: Vec<ClientFrame>,
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
    /// The web client's address (`http://HOST:PORT/`), for invite links.
    pub web: Option<String>,
    /// What to do once first welcomed; taken when done.
    startup: Option<Startup>,
    /// The id of the next request.
    next_id: u64,
    /// Requests awaiting a reply, by id, with when they were sent.
    pending: HashMap<u64, (Pending, Instant)>,
    /// The latest snapshot of each room we are in, its `seq` moved on by chat lines, so
    /// that `moved` events can be applied and gaps seen.
    rooms: HashMap<RoomId, RoomSnapshot>,
}

impl Session {
    /// A session that will run `startup` once first welcomed.
    pub fn new(startup: Startup) -> Session {
        Session {
            me: None,
            server: String::new(),
            link: Link::Connecting,
            web: None,
            startup: Some(startup),
            next_id: 1,
            pending: HashMap::new(),
            rooms: HashMap::new(),
        }
    }

    /// The link that opens `room` in a browser (joining a free seat, else watching),
    /// when the web client's address is known.
    pub fn invite_link(&self, room: &RoomId) -> Option<String> {
        self.web.as_ref().map(|web| format!("{web}#/r/{room}"))
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

    /// Asks for the value of every legal move in `room`'s position (a hint); the answer is
    /// an `analysis`, or an error such as `hints_off` or `stale_ply`.
    ///
    /// # Errors
    /// [`Offline`] while the connection is down.
    pub fn analyze(&mut self, room: RoomId) -> Result<ClientFrame, Offline> {
        let pending = Pending::Analyze(room.clone());
        self.request(ClientMessage::Analyze { room }, pending)
    }

    /// Whether an `analyze` of `room` awaits its answer (one at a time: the server refuses
    /// another for the same room until then).
    pub fn analyzing(&self, room: &RoomId) -> bool {
        self.pending
            .values()
            .any(|(p, _)| matches!(p, Pending::Analyze(r) if r == room))
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
                // Replies to requests sent on the lost connection will never come; rooms
                // are brought up to date by the snapshots that follow a resume.
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
                if !resumed {
                    self.rooms.clear();
                }
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
            (ServerMessage::Room { room }, answers) => {
                // The chat that came with it is for the faces to show once; the kept
                // snapshot, to which moves are applied, does not repeat it.
                let mut kept = (*room).clone();
                kept.chat.clear();
                self.rooms.insert(room.id.clone(), kept);
                Update::Message {
                    message: ServerMessage::Room { room },
                    answers,
                    send: Vec::new(),
                }
            }
            (ServerMessage::Moved(event), answers) => self.on_moved(event, answers),
            (message, answers) => {
                let send = match &message {
                    ServerMessage::Chat { room, seq, .. } => self.on_event(room, *seq),
                    ServerMessage::Left { room } => {
                        self.rooms.remove(room);
                        // Leaving ends the wait for an analysis: no answer comes.
                        self.pending
                            .retain(|_, (p, _)| !matches!(p, Pending::Analyze(r) if r == room));
                        Vec::new()
                    }
                    _ => Vec::new(),
                };
                Update::Message {
                    message,
                    answers,
                    send,
                }
            }
        }
    }

    /// A move in a room: the next snapshot if it follows the last one; else the event as
    /// it came, and a `sync` unless it is a repeat (or a `sync` is already on its way).
    fn on_moved(&mut self, event: MoveEvent, answers: Option<Pending>) -> Update {
        let mut send = Vec::new();
        if let Some(room) = self.rooms.get(&event.room)
            && event.seq > room.seq
        {
            if let Some(next) = apply_moved(room, &event) {
                self.rooms.insert(next.id.clone(), next.clone());
                return Update::Message {
                    message: ServerMessage::Room {
                        room: Box::new(next),
                    },
                    answers,
                    send,
                };
            }
            send = self.resync(&event.room);
        }
        Update::Message {
            message: ServerMessage::Moved(event),
            answers,
            send,
        }
    }

    /// Notes event `seq` (a chat line) of `room`: the next one moves the room's `seq` on,
    /// a repeat changes nothing, one after a gap asks for the room's snapshot.
    fn on_event(&mut self, room: &RoomId, seq: u64) -> Vec<ClientFrame> {
        match self.rooms.get_mut(room) {
            Some(snapshot) if seq > snapshot.seq + 1 => self.resync(room),
            Some(snapshot) => {
                snapshot.seq = snapshot.seq.max(seq);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// Asks for `room`'s snapshot after a gap. The stale snapshot is forgotten until the
    /// answer comes, so the events in between are neither applied to it nor each taken
    /// for another gap.
    fn resync(&mut self, room: &RoomId) -> Vec<ClientFrame> {
        self.rooms.remove(room);
        let sync = ClientMessage::Sync { room: room.clone() };
        self.request(sync, Pending::Sync).into_iter().collect()
    }

    /// The requests of the startup action.
    fn start(&mut self, startup: Startup) -> Vec<ClientFrame> {
        let frame = match startup {
            Startup::Lobby => return Vec::new(),
            Startup::Rooms => self.request(ClientMessage::ListRooms {}, Pending::Rooms),
            Startup::Play {
                rules,
                seat,
                level,
                hints,
            } => {
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
                    hints,
                    time_control: None,
                    takebacks: None,
                };
                self.request(message, Pending::Create)
            }
            Startup::Join(room) => self.join_or_watch(room),
            Startup::Watch(room) => self.watch(room),
            Startup::History {
                name,
                limit,
                before,
            } => {
                let message = ClientMessage::History {
                    name,
                    limit: Some(limit),
                    before,
                };
                self.request(message, Pending::History)
            }
            Startup::Game(game) => self.request(ClientMessage::Game { game }, Pending::Game),
        };
        frame.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::{TTT, move_event, session, snapshot};
    use inarow_protocol::{GameStatus, ServerFrame};

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
    fn an_analysis_is_awaited_per_room_until_answered_or_the_room_is_left() {
        let mut s = Session::new(Startup::Lobby);
        welcome(&mut s);
        let (a, b) = (RoomId::from("aaaa2345"), RoomId::from("bbbb2345"));
        let asked = s.analyze(a.clone()).expect("online");
        assert!(s.analyzing(&a) && !s.analyzing(&b));
        s.analyze(b.clone()).expect("online");
        let answer = s.on_net(NetEvent::Frame(ServerFrame {
            message: ServerMessage::Analysis {
                room: a.clone(),
                game: 1,
                ply: 0,
                moves: Vec::new(),
            },
            id: asked.id,
        }));
        assert!(matches!(
            answer,
            Update::Message {
                answers: Some(Pending::Analyze(_)),
                ..
            }
        ));
        assert!(!s.analyzing(&a));
        // Leaving b: its analysis will never come, and must not block the next one.
        s.on_net(NetEvent::Frame(ServerFrame::from(ServerMessage::Left {
            room: b.clone(),
        })));
        assert!(!s.analyzing(&b));
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

    #[test]
    fn the_kept_games_commands_ask_on_the_welcome() {
        let mut s = Session::new(Startup::Game(inarow_protocol::GameId(42)));
        let Update::Welcome { send, .. } = welcome(&mut s) else {
            panic!("a welcome");
        };
        assert_eq!(
            send[0].message,
            ClientMessage::Game {
                game: inarow_protocol::GameId(42)
            }
        );
        let refused = s.on_net(NetEvent::Frame(ServerFrame {
            message: ServerMessage::Error {
                code: ErrorCode::UnknownGame,
                message: "no such game".into(),
            },
            id: send[0].id.clone(),
        }));
        assert!(matches!(
            refused,
            Update::Message {
                answers: Some(Pending::Game),
                ..
            }
        ));
        let mut s = Session::new(Startup::History {
            name: Some("ann".into()),
            limit: 5,
            before: None,
        });
        let Update::Welcome { send, .. } = welcome(&mut s) else {
            panic!("a welcome");
        };
        assert_eq!(
            send[0].message,
            ClientMessage::History {
                name: Some("ann".into()),
                limit: Some(5),
                before: None
            }
        );
    }

    fn event(s: &mut Session, message: ServerMessage) -> Update {
        s.on_net(NetEvent::Frame(ServerFrame::from(message)))
    }

    fn moved(seq: u64, ply: u32, mv: &str, by: Mark, turn: Mark) -> ServerMessage {
        ServerMessage::Moved(move_event(seq, ply, mv, by, GameStatus::Playing { turn }))
    }

    #[test]
    fn moves_become_snapshots_and_a_gap_asks_for_one() {
        let mut s = Session::new(Startup::Lobby);
        welcome(&mut s);
        let first = snapshot(
            TTT,
            &["...", "...", "..."],
            GameStatus::Playing { turn: Mark::X },
        );
        let seq = first.seq;
        event(
            &mut s,
            ServerMessage::Room {
                room: Box::new(first),
            },
        );
        let Update::Message {
            message: ServerMessage::Room { room },
            send,
            ..
        } = event(&mut s, moved(seq + 1, 1, "b2", Mark::X, Mark::O))
        else {
            panic!("the next move is applied");
        };
        assert!(send.is_empty());
        assert_eq!(
            (room.seq, room.ply, room.board[1].as_str()),
            (seq + 1, 1, ".X.")
        );
        // A repeat is ignored; a chat line is an event too.
        let repeat = event(&mut s, moved(seq + 1, 1, "b2", Mark::X, Mark::O));
        assert!(
            matches!(repeat, Update::Message { message: ServerMessage::Moved(_), ref send, .. } if send.is_empty())
        );
        let chat = ServerMessage::Chat {
            room: room.id.clone(),
            seq: seq + 2,
            from: "bob".into(),
            seat: None,
            text: "hi".into(),
        };
        assert!(matches!(event(&mut s, chat), Update::Message { ref send, .. } if send.is_empty()));
        let Update::Message {
            message: ServerMessage::Room { room },
            ..
        } = event(&mut s, moved(seq + 3, 2, "a1", Mark::O, Mark::X))
        else {
            panic!("applies after the chat line");
        };
        // A gap: one sync, and nothing is applied until its snapshot comes.
        let Update::Message {
            message: ServerMessage::Moved(_),
            send,
            ..
        } = event(&mut s, moved(room.seq + 2, 4, "c1", Mark::O, Mark::X))
        else {
            panic!("a move after a gap is not applied");
        };
        assert_eq!(send.len(), 1);
        assert_eq!(
            send[0].message,
            ClientMessage::Sync {
                room: room.id.clone()
            }
        );
        let later = event(&mut s, moved(room.seq + 3, 5, "c2", Mark::X, Mark::O));
        assert!(
            matches!(later, Update::Message { message: ServerMessage::Moved(_), ref send, .. } if send.is_empty())
        );
        let mut fresh = (*room).clone();
        fresh.seq += 3;
        let answer = s.on_net(NetEvent::Frame(ServerFrame {
            message: ServerMessage::Room {
                room: Box::new(fresh.clone()),
            },
            id: send[0].id.clone(),
        }));
        assert!(matches!(
            answer,
            Update::Message {
                answers: Some(Pending::Sync),
                ..
            }
        ));
        assert!(matches!(
            event(
                &mut s,
                moved(fresh.seq + 1, fresh.ply + 1, "b3", Mark::X, Mark::O)
            ),
            Update::Message {
                message: ServerMessage::Room { .. },
                ..
            }
        ));
    }
}
