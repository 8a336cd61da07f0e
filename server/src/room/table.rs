//! The functional core of a room, its table: one game, its two seats, its members and
//! spectators, as a plain state machine with no tokio and no sockets.
//!
//! Methods take requests and return what changed ([`Outcome`]); the room delivers it.
//! Members are known by session and [`Attachment`], never by connection, so tests drive
//! the table with plain values. The AI seats' bookkeeping lives in the `ai` submodule,
//! the snapshots members see in `view`, its saved form (for restarts) in `persist`.
//!
//! Over 600 lines: every room request is a method here, beside the rules they share.

mod ai;
mod analysis;
pub(crate) mod clock;
mod offers;
mod persist;
mod record;
#[cfg(test)]
mod tests;
mod view;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use foldhash::HashMap;

use inarow_engine::{Ai, Position};
use inarow_protocol::{
    EngineName, ErrorCode, GameId, GameStatus, Level, Mark, Offer, RequestId, RoomId, SeatChoice,
    SeatRequest, SessionId, TimeControl,
};

pub(crate) use self::ai::AiAnswer;
pub(crate) use self::analysis::{AnalysisStart, Reply};
use self::clock::Clocks;
pub(crate) use self::persist::RestoreError;
use crate::ai::JobId;
use crate::net::Attachment;
use crate::refusal::Refusal;
use crate::room::spec::RoomSpec;
use crate::snapshot::{self, Ending, StatusView};
use crate::store::saved::CHAT_TAIL;
use crate::text;

/// A session as it enters (or acts in) a room from one connection.
#[derive(Debug, Clone)]
pub(crate) struct Arrival {
    /// The session.
    pub(crate) session: SessionId,
    /// Its display name, which a join refreshes. Shared: every request carries it.
    pub(crate) name: Arc<str>,
    /// The connection's attachment to the session.
    pub(crate) attachment: Attachment,
}

/// What a session asks of a room.
#[derive(Debug, Clone)]
pub(crate) enum Request {
    /// Watch (`seat` None) or take a seat.
    Join {
        /// The seat asked for.
        seat: Option<SeatChoice>,
    },
    /// Leave the room and any seat in it.
    Leave,
    /// Seat an AI or free a seat.
    SetSeat {
        /// The seat.
        seat: Mark,
        /// The AI to seat; `None` frees the seat.
        ai: Option<Level>,
    },
    /// Place a stone.
    Play {
        /// The ply the move is meant for.
        ply: u32,
        /// The move in notation.
        mv: String,
    },
    /// Give up the game.
    Resign,
    /// Ask to take back a move (`accept` None), or answer the other player's request.
    Takeback {
        /// The answer; `None` asks.
        accept: Option<bool>,
    },
    /// Offer a draw (`accept` None), or answer the other player's offer.
    Draw {
        /// The answer; `None` offers.
        accept: Option<bool>,
    },
    /// Ask for another game.
    Rematch,
    /// Say something.
    Chat {
        /// The line.
        text: String,
    },
    /// Send me the current snapshot (I missed an event).
    Sync,
    /// Send me the value of every legal move when it is ready.
    Analyze,
    /// Show me under the name my request carries (the session was renamed).
    Rename,
}

/// How a request turned out: what the room must tell whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The room changed: everybody gets a new snapshot.
    Changed,
    /// A move was played: everybody gets the move (or, on protocol 1, a new snapshot).
    Moved,
    /// Nothing changed: the requester gets the current snapshot again.
    Unchanged,
    /// The requester left: everybody still there gets a new snapshot.
    Left,
    /// A chat line for everybody.
    Chat(ChatLine),
    /// The requester waits for an analysis: nothing to send until it is ready.
    Analyzing,
}

/// A chat line as everybody in the room receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChatLine {
    /// The room's sequence number for this event.
    pub(crate) seq: u64,
    /// The speaker's name.
    pub(crate) from: String,
    /// The speaker's seat, if a player.
    pub(crate) seat: Option<Mark>,
    /// What was said.
    pub(crate) text: String,
}

/// Who sits in a seat.
enum Seat {
    Empty,
    Human {
        session: SessionId,
        rematch: bool,
    },
    /// An AI: inarow's at `level`, or the external `engine` (with `level` to fall back to).
    Ai {
        level: Level,
        engine: Option<EngineName>,
        player: AiPlayer,
    },
}

/// An AI seat's player: at home between moves, or away with job `JobId` (which may have
/// been cancelled; the player comes home when its answer arrives).
enum AiPlayer {
    Home(Box<Ai>),
    Away(JobId),
}

/// A member of the room: a player (connected or holding a seat) or a spectator.
struct Member {
    name: Arc<str>,
    /// The member's connection, `None` while it is down (a held seat).
    attachment: Option<Attachment>,
}

/// The game, seats and members of one room.
pub(crate) struct Table {
    id: RoomId,
    name: String,
    private: bool,
    /// Players may analyse while the game is on.
    hints: bool,
    /// The session that created the room (it counts against that session's rooms).
    creator: SessionId,
    /// Longest chat line, in characters.
    max_chat_chars: usize,
    /// Sequence number of the last event sent; clients use it to order what they see.
    seq: u64,
    /// Game number, from 1; a rematch starts the next.
    game: u32,
    position: Position,
    /// How the game ended off the board (resigned, on time, agreed, aborted), if it did.
    ending: Option<Ending>,
    /// How the room's games are timed.
    time_control: TimeControl,
    /// Whether takebacks may be granted.
    takebacks: bool,
    /// The current game's clocks; `None` without a time control.
    clocks: Option<Clocks>,
    /// The instant of the request or event being handled, which the room passes in
    /// ([`Table::tick`]): clocks are charged and shown as of it.
    now: Instant,
    /// A takeback or draw offer waiting for its answer.
    offer: Option<Offer>,
    /// What an AI seat's last search proved, for a draw offer: the game and ply after its
    /// move, and whether the position is a draw or worse for it.
    ai_verdict: Option<offers::AiVerdict>,
    /// The game went back (a takeback) since the room last saved it whole.
    rewound: bool,
    /// The end of the current game was reported (by [`Table::game_over`]).
    over_reported: bool,
    /// The first move of the current game was reported (by [`Table::game_started`]).
    start_reported: bool,
    /// X then O.
    seats: [Seat; 2],
    members: HashMap<SessionId, Member>,
    /// Spectators in the order they came (for the snapshot's list of names).
    spectators: Vec<SessionId>,
    /// The AI job the room waits for, if any.
    pending_ai: Option<ai::PendingAi>,
    /// The analysis the room computes, and who waits for it.
    pending_analysis: Option<analysis::PendingAnalysis>,
    /// Errors for the waiters of an analysis gone stale, until the room sends them.
    analysis_replies: Vec<Reply>,
    /// The tag of the next AI job (seat or analysis: they share the numbering, so an
    /// answer's tag says which it is).
    next_job: u64,
    /// The last [`CHAT_TAIL`] chat lines, oldest first.
    chat: VecDeque<ChatLine>,
    /// When the current game started and how long each move took (for the store).
    clock: record::GameClock,
    /// The id under which the store keeps the room's last finished game.
    last_game: Option<GameId>,
}

/// The requester's mark, given its seat (looked up once per request); a spectator is
/// refused.
fn player(seat: Option<Mark>) -> Result<Mark, Refusal> {
    seat.ok_or_else(|| {
        Refusal::new(
            ErrorCode::NotAPlayer,
            "you watch this room; take a seat to play",
        )
    })
}

fn seat_index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

fn seat_from_plan(request: SeatRequest, creator: SessionId) -> Seat {
    match request {
        SeatRequest::Me => Seat::Human {
            session: creator,
            rematch: false,
        },
        SeatRequest::Open => Seat::Empty,
        SeatRequest::Ai { level } => ai::seat(level),
        // Checked against the server's engines before the room opens.
        SeatRequest::Engine { name } => ai::engine_seat(name),
    }
}

impl Table {
    /// A new room set up as `spec` says, with its creator seated where the plan says `Me`
    /// and watching otherwise.
    pub(crate) fn new(
        id: RoomId,
        spec: RoomSpec,
        creator: Arrival,
        max_chat_chars: usize,
    ) -> Table {
        let creator_id = creator.session;
        let seats = [
            seat_from_plan(spec.seats.x, creator_id),
            seat_from_plan(spec.seats.o, creator_id),
        ];
        let mut table = Table {
            id,
            name: spec.name,
            private: spec.private,
            hints: spec.hints,
            creator: creator_id,
            max_chat_chars,
            seq: 0,
            game: 1,
            position: Position::new(spec.rules),
            ending: None,
            time_control: spec.time_control,
            takebacks: spec.takebacks,
            clocks: Clocks::new(spec.time_control),
            now: Instant::now(),
            offer: None,
            ai_verdict: None,
            rewound: false,
            over_reported: false,
            start_reported: false,
            seats,
            members: HashMap::default(),
            spectators: Vec::new(),
            pending_ai: None,
            pending_analysis: None,
            analysis_replies: Vec::new(),
            next_job: 1,
            chat: VecDeque::new(),
            clock: record::GameClock::default(),
            last_game: None,
        };
        if table.seat_of(creator_id).is_none() {
            table.spectators.push(creator_id);
        }
        table.attach(creator);
        table
    }

    /// The room's id.
    pub(crate) fn id(&self) -> &RoomId {
        &self.id
    }

    /// The room's display name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Whether the room is hidden from the lobby.
    pub(crate) fn private(&self) -> bool {
        self.private
    }

    /// Whether the room's players may analyse while the game is on.
    pub(crate) fn hints(&self) -> bool {
        self.hints
    }

    /// The current game's number, from 1.
    pub(crate) fn game(&self) -> u32 {
        self.game
    }

    /// The session that created the room.
    pub(crate) fn creator(&self) -> SessionId {
        self.creator
    }

    /// The attachment through which `session` is connected, if it is.
    pub(crate) fn attachment_of(&self, session: SessionId) -> Option<Attachment> {
        self.members.get(&session).and_then(|m| m.attachment)
    }

    /// The sessions seated here (connected or held).
    pub(crate) fn held_sessions(&self) -> Vec<SessionId> {
        let mut sessions: Vec<SessionId> = self
            .seats
            .iter()
            .filter_map(|s| match s {
                Seat::Human { session, .. } => Some(*session),
                _ => None,
            })
            .collect();
        sessions.dedup();
        sessions
    }

    /// Whether anybody is in the room: connected, or holding a seat while dropped. A room
    /// nobody is in closes after a while; a held seat keeps it for its player's return.
    pub(crate) fn anyone_in(&self) -> bool {
        !self.members.is_empty()
    }

    /// Handles a request from `who`, whose id `id` an answer that comes later (an
    /// analysis) carries; the room answers the others at once.
    ///
    /// # Errors
    /// The refusal the requester gets; a refused request changes nothing.
    pub(crate) fn request(
        &mut self,
        who: Arrival,
        id: Option<RequestId>,
        request: Request,
    ) -> Result<Outcome, Refusal> {
        let session = who.session;
        // Joining is how one gets into a room; everything else needs to be in it.
        let joining = matches!(request, Request::Join { .. });
        // A seated player is always a member (a member leaves only once unseated), and
        // the seats are on the lines a move reads anyway: the members' map, a hash and
        // two more lines, is asked only for those without a seat.
        // The requester's own seat, named apart from the seat a join or a seat change asks for.
        let own_seat = self.seat_of(session);
        debug_assert!(
            own_seat.is_none() || self.members.contains_key(&session),
            "a seated session is a member"
        );
        if !joining && own_seat.is_none() && !self.members.contains_key(&session) {
            return Err(Refusal::new(
                ErrorCode::NotInRoom,
                format!("you are not in room {}", self.id),
            ));
        }
        match request {
            Request::Join { seat } => self.join(who, own_seat, seat),
            Request::Leave => {
                if let Some(mark) = own_seat {
                    let playing = self.turn().is_some();
                    self.set_seat(mark, Seat::Empty);
                    self.seat_given_up(mark, playing);
                }
                self.members.remove(&session);
                self.spectators.retain(|s| *s != session);
                Ok(Outcome::Left)
            }
            Request::SetSeat { seat, ai } => self.change_seat(session, own_seat, seat, ai),
            Request::Play { ply, mv } => self.play(own_seat, ply, &mv),
            Request::Resign => {
                let mark = player(own_seat)?;
                self.in_progress()?;
                self.ending = Some(Ending::Resigned {
                    winner: mark.other(),
                });
                self.offer = None;
                Ok(Outcome::Changed)
            }
            Request::Takeback { accept } => self.takeback(own_seat, accept),
            Request::Draw { accept } => self.draw(own_seat, accept),
            Request::Rematch => self.rematch(own_seat),
            Request::Sync => Ok(Outcome::Unchanged),
            Request::Analyze => self.analyze(session, id),
            Request::Rename => Ok(self.rename(&who)),
            Request::Chat { text } => {
                let text = text::chat_text(&text, self.max_chat_chars)
                    .map_err(|m| Refusal::new(ErrorCode::InvalidChat, m))?;
                let from = self
                    .members
                    .get(&session)
                    .map(|m| m.name.to_string())
                    .unwrap_or_default();
                Ok(Outcome::Chat(self.say(from, own_seat, text)))
            }
        }
    }

    /// Adds a chat line to the room's tail, under the next sequence number.
    fn say(&mut self, from: String, seat: Option<Mark>, text: String) -> ChatLine {
        self.seq += 1;
        let line = ChatLine {
            seq: self.seq,
            from,
            seat,
            text,
        };
        if self.chat.len() == CHAT_TAIL {
            self.chat.pop_front();
        }
        self.chat.push_back(line.clone());
        line
    }

    /// Re-attaches a session that resumed on a new connection: `None` if it no longer
    /// has a place in the room, else whether others see a change.
    pub(crate) fn resume(&mut self, who: Arrival) -> Option<Outcome> {
        self.members
            .contains_key(&who.session)
            .then(|| self.reattach(who))
    }

    /// Connection `attachment` of `session` has ended: true (a change) if it was the
    /// session's current one, whose seat is now held or spectator place dropped.
    pub(crate) fn detach(&mut self, session: SessionId, attachment: Attachment) -> bool {
        let current = self.attachment_of(session) == Some(attachment);
        if current {
            self.disconnect(session);
        }
        current
    }

    /// Marks a member's connection as gone: a seat is held, a spectator place dropped.
    pub(crate) fn disconnect(&mut self, session: SessionId) {
        if let Some(m) = self.members.get_mut(&session) {
            m.attachment = None;
        }
        if self.seat_of(session).is_none() {
            self.members.remove(&session);
            self.spectators.retain(|s| *s != session);
        }
    }

    /// `session` expired without reconnecting: true (a change) if it held a seat here,
    /// which is now empty.
    pub(crate) fn expire(&mut self, session: SessionId) -> bool {
        let held = self
            .members
            .get(&session)
            .is_some_and(|m| m.attachment.is_none());
        if held {
            let playing = self.turn().is_some();
            if self.seat_of(session).is_some() {
                self.offer = None;
            }
            for mark in [Mark::X, Mark::O] {
                let seat = &mut self.seats[seat_index(mark)];
                if matches!(seat, Seat::Human { session: s, .. } if *s == session) {
                    *seat = Seat::Empty;
                    self.seat_given_up(mark, playing);
                }
            }
            self.members.remove(&session);
            self.spectators.retain(|s| *s != session);
        }
        held
    }

    /// Reports the end of the current game, once: its final status (without the winning
    /// line, which the finished game and the snapshots write).
    pub(crate) fn game_over(&mut self) -> Option<StatusView> {
        if self.over() && !self.over_reported {
            self.over_reported = true;
            return Some(self.status_view());
        }
        None
    }

    /// Reports the first move of the current game, once (for the metrics).
    pub(crate) fn game_started(&mut self) -> bool {
        let first = self.position.ply() > 0 && !self.start_reported;
        self.start_reported |= first;
        first
    }

    /// Whether the current game has had its first move and not ended, so closing the
    /// room now abandons it.
    pub(crate) fn game_unfinished(&self) -> bool {
        self.start_reported && !self.over_reported
    }

    /// Sets a member's connection and name; true if that changes what others see.
    fn attach(&mut self, who: Arrival) -> bool {
        let seated = self.seat_of(who.session).is_some();
        match self.members.get_mut(&who.session) {
            Some(m) => {
                if m.attachment.is_some_and(|a| a > who.attachment) {
                    // A request that a replaced connection sent before it was closed:
                    // the session's newer connection keeps receiving.
                    return false;
                }
                let visible = seated && (m.attachment.is_none() || m.name != who.name);
                m.attachment = Some(who.attachment);
                m.name = who.name;
                visible
            }
            None => {
                self.members.insert(
                    who.session,
                    Member {
                        name: who.name,
                        attachment: Some(who.attachment),
                    },
                );
                true
            }
        }
    }

    /// A member's new name (from `who`, which the request carries): everybody sees it if
    /// it differs, the member gets the snapshot either way.
    fn rename(&mut self, who: &Arrival) -> Outcome {
        match self.members.get_mut(&who.session) {
            Some(m) if m.name != who.name => {
                m.name = who.name.clone();
                Outcome::Changed
            }
            _ => Outcome::Unchanged,
        }
    }

    /// A join that asks for what the member already has: refresh its connection.
    fn reattach(&mut self, who: Arrival) -> Outcome {
        if self.attach(who) {
            Outcome::Changed
        } else {
            Outcome::Unchanged
        }
    }

    fn seat_of(&self, session: SessionId) -> Option<Mark> {
        [Mark::X, Mark::O].into_iter().find(|m| {
            matches!(&self.seats[seat_index(*m)], Seat::Human { session: s, .. } if *s == session)
        })
    }

    fn seats_filled(&self) -> bool {
        self.seats.iter().all(|s| !matches!(s, Seat::Empty))
    }

    /// The game's status as members see it. It is built anew (a won game's line as
    /// strings), so the table's own decisions ask [`Table::over`] and [`Table::turn`].
    fn status(&self) -> GameStatus {
        snapshot::status(&self.position, self.ending, self.seats_filled())
    }

    /// [`Table::status`] without the winning line, so without building a string.
    fn status_view(&self) -> StatusView {
        snapshot::status_view(&self.position, self.ending, self.seats_filled())
    }

    /// Whether the game has ended: won, drawn, resigned, on time, agreed or aborted.
    fn over(&self) -> bool {
        self.ending.is_some() || self.position.is_over()
    }

    /// Whose turn it is while the game is played: `Some` exactly when [`Table::status`]
    /// is `playing`.
    fn turn(&self) -> Option<Mark> {
        (!self.over() && self.seats_filled()).then(|| snapshot::mark(self.position.to_move()))
    }

    fn in_progress(&self) -> Result<Mark, Refusal> {
        if let Some(turn) = self.turn() {
            return Ok(turn);
        }
        Err(Refusal::new(
            ErrorCode::GameNotInProgress,
            if self.over() {
                "the game is over"
            } else {
                "the game waits for a player to take the empty seat"
            },
        ))
    }

    /// `seated` is the arriving session's seat, which [`Table::request`] has looked up.
    fn join(
        &mut self,
        who: Arrival,
        seated: Option<Mark>,
        choice: Option<SeatChoice>,
    ) -> Result<Outcome, Refusal> {
        let session = who.session;
        let Some(choice) = choice else {
            if seated.is_some() || self.spectators.contains(&session) {
                return Ok(self.reattach(who));
            }
            self.attach(who);
            self.spectators.push(session);
            return Ok(Outcome::Changed);
        };
        let target = match choice {
            SeatChoice::X => Mark::X,
            SeatChoice::O => Mark::O,
            SeatChoice::Any => {
                if seated.is_some() {
                    return Ok(self.reattach(who));
                }
                [Mark::X, Mark::O]
                    .into_iter()
                    .find(|m| matches!(self.seats[seat_index(*m)], Seat::Empty))
                    .ok_or_else(|| Refusal::new(ErrorCode::RoomFull, "both seats are taken"))?
            }
        };
        if seated == Some(target) {
            return Ok(self.reattach(who));
        }
        if !matches!(self.seats[seat_index(target)], Seat::Empty) {
            return Err(Refusal::new(
                ErrorCode::SeatTaken,
                format!("seat {target} is taken"),
            ));
        }
        if let Some(mine) = seated {
            return Err(Refusal::new(
                ErrorCode::AlreadySeated,
                format!("you already play {mine} in this room"),
            ));
        }
        self.attach(who);
        self.spectators.retain(|s| *s != session);
        self.seats[seat_index(target)] = Seat::Human {
            session,
            rematch: false,
        };
        Ok(Outcome::Changed)
    }

    /// Replaces a seat's occupant, abandoning an AI job of that seat (whose answer, if
    /// it comes, is then stale).
    fn set_seat(&mut self, mark: Mark, seat: Seat) {
        if self.pending_ai.as_ref().is_some_and(|j| j.mark == mark) {
            self.pending_ai = None;
        }
        // An offer is between the two who sat there: a new occupant did not make it.
        self.offer = None;
        self.seats[seat_index(mark)] = seat;
    }

    /// Whether a person holds a seat here (connected or held for a dropped player).
    fn anyone_seated(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, Seat::Human { .. }))
    }

    /// `own_seat` is the requester's seat, which [`Table::request`] has looked up.
    ///
    /// Seats belong to the players: once a person holds a seat, a spectator could
    /// otherwise remove the AI their opponent plays and sit down mid-game. While nobody
    /// does (a fresh room, AI against AI), anyone in the room may set the seats up.
    fn change_seat(
        &mut self,
        session: SessionId,
        own_seat: Option<Mark>,
        mark: Mark,
        ai: Option<Level>,
    ) -> Result<Outcome, Refusal> {
        if own_seat.is_none() && self.anyone_seated() {
            return Err(Refusal::new(
                ErrorCode::NotAPlayer,
                "only the room's players may change seats",
            ));
        }
        match &self.seats[seat_index(mark)] {
            Seat::Human { session: s, .. } if *s != session => {
                return Err(Refusal::new(
                    ErrorCode::SeatTaken,
                    format!("seat {mark} is held by another player"),
                ));
            }
            Seat::Empty if ai.is_none() => return Ok(Outcome::Unchanged),
            _ => {}
        }
        let was_mine = own_seat == Some(mark);
        let seat = match ai {
            Some(level) => ai::seat(level),
            None => Seat::Empty,
        };
        let playing = self.turn().is_some();
        self.set_seat(mark, seat);
        // Only a player giving up their own seat ends the game (an abort, a loss on time);
        // freeing the opponent's AI must not win a timed game: that game waits, its
        // clocks stopped, for the seat to be filled.
        if ai.is_none() && was_mine {
            self.seat_given_up(mark, playing);
        }
        if was_mine {
            // Giving up your seat keeps you in the room, watching.
            self.spectators.push(session);
        }
        Ok(Outcome::Changed)
    }

    /// Checks in the documented order (docs/protocol.md, `play`): the ply before the
    /// turn, so that a move sent twice is answered `stale_ply` and never lands twice.
    fn play(&mut self, seat: Option<Mark>, ply: u32, text: &str) -> Result<Outcome, Refusal> {
        let mark = player(seat)?;
        let turn = self.in_progress()?;
        let current = self.position.ply();
        if usize::try_from(ply).ok() != Some(current) {
            return Err(Refusal::new(
                ErrorCode::StalePly,
                format!("the move was meant for ply {ply}; the game is at ply {current}"),
            ));
        }
        if turn != mark {
            return Err(Refusal::new(
                ErrorCode::NotYourTurn,
                format!("it is {turn}'s turn"),
            ));
        }
        let mv = self
            .position
            .rules()
            .parse_move(text)
            .map_err(|e| Refusal::new(ErrorCode::IllegalMove, e.message))?;
        self.position
            .try_play(mv)
            .map_err(|e| Refusal::new(ErrorCode::IllegalMove, format!("{text}: {e}")))?;
        // A move answers any offer: it is declined by playing on.
        self.offer = None;
        Ok(Outcome::Moved)
    }

    fn rematch(&mut self, seat: Option<Mark>) -> Result<Outcome, Refusal> {
        let mark = player(seat)?;
        if !self.over() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "a rematch can be asked once the game is over",
            ));
        }
        match &mut self.seats[seat_index(mark)] {
            Seat::Human { rematch: true, .. } => return Ok(Outcome::Unchanged),
            Seat::Human { rematch, .. } => *rematch = true,
            _ => {}
        }
        let everyone = self
            .seats
            .iter()
            .all(|s| !matches!(s, Seat::Human { rematch: false, .. }));
        if everyone {
            // Players swap colours, so the one who moved second moves first.
            self.seats.swap(0, 1);
            for seat in &mut self.seats {
                if let Seat::Human { rematch, .. } = seat {
                    *rematch = false;
                }
            }
            self.position = Position::new(self.position.rules());
            self.ending = None;
            self.clocks = Clocks::new(self.time_control);
            self.offer = None;
            self.ai_verdict = None;
            self.over_reported = false;
            self.start_reported = false;
            self.clock = record::GameClock::default();
            self.game = self.game.saturating_add(1);
        }
        Ok(Outcome::Changed)
    }
}
