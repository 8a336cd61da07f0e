//! The protocol's room and lobby requests as [`Client`] methods that fail the test unless the
//! expected reply arrives, and the arguments tests pass to them most often.

use inarow_protocol::{
    ClientMessage, GameId, GameRecord, GameSummary, Level, Mark, PlayerRecord, RoomId,
    RoomSnapshot, RoomSummary, RulesSpec, SeatChoice, SeatPlan, SeatRequest, ServerMessage,
};

use crate::client::Client;

/// The tic-tac-toe preset.
pub fn tictactoe() -> RulesSpec {
    RulesSpec::Preset("tictactoe".to_owned())
}

/// A seat plan from two seat requests.
pub fn plan(x: SeatRequest, o: SeatRequest) -> SeatPlan {
    SeatPlan { x, o }
}

/// A perfect AI seat request.
pub fn perfect_ai() -> SeatRequest {
    SeatRequest::Ai {
        level: Level::Perfect,
    }
}

/// The answer to `history`.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryAnswer {
    /// The page, newest first.
    pub games: Vec<GameSummary>,
    /// Whether older games remain.
    pub more: bool,
    /// The record of the name asked for.
    pub record: Option<PlayerRecord>,
}

impl Client {
    /// Lists the public rooms.
    pub async fn list_rooms(&mut self) -> Vec<RoomSummary> {
        match self.call(ClientMessage::ListRooms {}).await {
            ServerMessage::Rooms { rooms } => rooms,
            other => panic!("{}: expected rooms, got {other:?}", self.label()),
        }
    }

    /// Creates a room and returns its first snapshot.
    pub async fn create_room(
        &mut self,
        rules: RulesSpec,
        seats: SeatPlan,
        private: bool,
    ) -> RoomSnapshot {
        self.call_room(ClientMessage::CreateRoom {
            name: None,
            rules,
            seats,
            private,
            hints: false,
            time_control: None,
            takebacks: None,
        })
        .await
    }

    /// Creates a public tic-tac-toe room with this client in X and O open; returns its id.
    pub async fn open_room(&mut self) -> RoomId {
        self.create_room(tictactoe(), plan(SeatRequest::Me, SeatRequest::Open), false)
            .await
            .id
    }

    /// Joins `room` in `seat` (or as a spectator with `None`); returns the reply snapshot.
    pub async fn join(&mut self, room: &RoomId, seat: Option<SeatChoice>) -> RoomSnapshot {
        self.call_room(ClientMessage::Join {
            room: room.clone(),
            seat,
        })
        .await
    }

    /// Plays `mv` at `ply`; returns the reply snapshot.
    pub async fn play(&mut self, room: &RoomId, ply: u32, mv: &str) -> RoomSnapshot {
        self.call_room(ClientMessage::Play {
            room: room.clone(),
            ply,
            mv: mv.to_owned(),
        })
        .await
    }

    /// Puts an AI of `level` in `seat` (or frees it with `None`); returns the reply snapshot.
    pub async fn set_seat(&mut self, room: &RoomId, seat: Mark, ai: Option<Level>) -> RoomSnapshot {
        self.call_room(ClientMessage::SetSeat {
            room: room.clone(),
            seat,
            ai,
        })
        .await
    }

    /// Chats `text` in `room` (waiting for each line's echo) until the room shows the
    /// player of `mark` disconnected, as when a reader too slow to take the lines is
    /// dropped; returns how many lines that took. Fails after `max` lines.
    pub async fn chat_until_dropped(
        &mut self,
        room: &RoomId,
        mark: Mark,
        text: &str,
        max: usize,
    ) -> usize {
        let mut chats = 0;
        while self
            .latest(room)
            .is_none_or(|s| crate::human_connected(&s, mark) != Some(false))
        {
            assert!(chats < max, "{mark} was never dropped after {chats} chats");
            self.call(ClientMessage::Chat {
                room: room.clone(),
                text: text.to_owned(),
            })
            .await;
            chats += 1;
        }
        chats
    }

    /// Asks for a page of finished games (`history`); returns the games, whether more
    /// remain, and the record of `name` if one was asked for.
    pub async fn list_games(
        &mut self,
        name: Option<&str>,
        limit: Option<u32>,
        before: Option<GameId>,
    ) -> HistoryAnswer {
        let message = ClientMessage::History {
            name: name.map(str::to_owned),
            limit,
            before,
        };
        match self.call(message).await {
            ServerMessage::History {
                games,
                more,
                record,
            } => HistoryAnswer {
                games,
                more,
                record: record.map(|r| *r),
            },
            other => panic!("{}: expected history, got {other:?}", self.label()),
        }
    }

    /// Asks for one finished game's record (`game`).
    pub async fn game_record(&mut self, game: GameId) -> GameRecord {
        match self.call(ClientMessage::Game { game }).await {
            ServerMessage::Game { game } => *game,
            other => panic!("{}: expected a game, got {other:?}", self.label()),
        }
    }

    /// Leaves `room`; fails unless `left` arrives.
    pub async fn leave(&mut self, room: &RoomId) {
        match self.call(ClientMessage::Leave { room: room.clone() }).await {
            ServerMessage::Left { room: left } => assert_eq!(&left, room),
            other => panic!("{}: expected left, got {other:?}", self.label()),
        }
    }
}
