//! The room driven through its handle, with in-memory connections: the order of
//! events, what each member receives, slow members, and a deserted room closing.

use std::sync::Arc;
use std::time::Duration;

use inarow_engine as engine;
use inarow_protocol::{
    ByeReason, ErrorCode, GameStatus, Level, Mark, MoveEvent, Occupant, RequestId, RoomSnapshot,
    SeatChoice, SeatPlan, SeatRequest, ServerFrame, ServerMessage, SessionId, decode_server,
};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::*;
use crate::ai::AiPool;
use crate::config::Config;
use crate::net::{Attachment, Kick, Peer};
use crate::room::lobby::Lobby;
use crate::store::{DataLocation, Store};

const WAIT: Duration = Duration::from_secs(10);

/// What a room needs of a server, and nothing else.
fn server(config: Config) -> Context {
    let tracker = TaskTracker::new();
    Context {
        lobby: Arc::new(Lobby::new(config.max_rooms, config.max_rooms_per_session)),
        ai: AiPool::new(config.ai_threads, tracker.clone()),
        store: Store::open(&DataLocation::Memory).expect("a memory store opens"),
        config: Arc::new(config),
        tracker,
        rooms: TaskTracker::new(),
        shutdown: CancellationToken::new(),
    }
}

/// A session with a connection whose queue the test reads.
struct Person {
    member: Member,
    queue: mpsc::Receiver<Utf8Bytes>,
    kick: Arc<Kick>,
}

impl Person {
    fn new(name: &str, attachment: u64, capacity: usize) -> Person {
        let (tx, queue) = mpsc::channel(capacity);
        let kick = Arc::new(Kick::default());
        Person {
            member: Member {
                session: SessionId(Uuid::new_v4()),
                name: name.into(),
                peer: Peer::new(Attachment(attachment), tx, kick.clone()),
            },
            queue,
            kick,
        }
    }

    /// The same person on a connection that said `hello` with protocol 2.
    fn lean(mut self) -> Person {
        self.member.peer = self.member.peer.reissued(self.member.peer.attachment, 2);
        self
    }

    fn session(&self) -> SessionId {
        self.member.session
    }

    async fn frame(&mut self) -> ServerFrame {
        let message = tokio::time::timeout(WAIT, self.queue.recv())
            .await
            .expect("a frame within the timeout");
        let text = message.expect("the queue stays open while the test holds a sender");
        decode_server(text.as_str()).expect("valid server frame")
    }

    async fn snapshot(&mut self) -> RoomSnapshot {
        match self.frame().await.message {
            ServerMessage::Room { room } => *room,
            other => panic!("expected a snapshot, got {other:?}"),
        }
    }

    /// The last snapshot queued (waiting for one if none is).
    async fn latest(&mut self) -> RoomSnapshot {
        let mut last = self.snapshot().await;
        while let Ok(t) = self.queue.try_recv() {
            if let ServerMessage::Room { room } = decode_server(t.as_str()).expect("valid").message
            {
                last = *room;
            }
        }
        last
    }

    fn nothing_queued(&mut self) -> bool {
        self.queue.try_recv().is_err()
    }
}

/// Opens a public tic-tac-toe room created by `creator` with seats `x` and `o`, and
/// returns its handle from the directory.
fn open_room(state: &Context, creator: &Person, x: SeatRequest, o: SeatRequest) -> RoomHandle {
    let spec = RoomSpec {
        name: "test".into(),
        rules: engine::Rules::tictactoe(),
        seats: SeatPlan { x, o },
        private: false,
        hints: false,
        time_control: inarow_protocol::TimeControl::None,
        takebacks: true,
    };
    let id = open(state, spec, creator.member.clone(), None).expect("room opens");
    state.lobby.get(&id).expect("room is listed")
}

fn code(result: Result<(), Refusal>) -> Option<ErrorCode> {
    result.err().map(|r| r.code)
}

async fn play(room: &RoomHandle, who: &Person, ply: u32, mv: &str) -> Result<(), Refusal> {
    let request = Request::Play {
        ply,
        mv: mv.to_owned(),
    };
    room.request(&who.member, None, request)
}

async fn join(room: &RoomHandle, who: &Person, seat: Option<SeatChoice>) -> Result<(), Refusal> {
    let request = Request::Join { seat };
    room.request(&who.member, None, request)
}

#[tokio::test]
async fn seats_are_taken_in_the_documented_order() {
    let state = server(Config::default());
    let mut ann = Person::new("ann", 1, 64);
    let mut bob = Person::new("bob", 2, 64);
    let mut cy = Person::new("cy", 3, 64);
    let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
    let first = ann.snapshot().await;
    assert_eq!((first.seq, first.status.clone()), (1, GameStatus::Waiting));

    assert_eq!(code(join(&room, &bob, Some(SeatChoice::O)).await), None);
    let s = ann.snapshot().await;
    assert_eq!(s.status, GameStatus::Playing { turn: Mark::X });
    assert_eq!(bob.snapshot().await, s);

    assert_eq!(
        code(join(&room, &cy, Some(SeatChoice::Any)).await),
        Some(ErrorCode::RoomFull)
    );
    assert_eq!(
        code(join(&room, &cy, Some(SeatChoice::X)).await),
        Some(ErrorCode::SeatTaken)
    );
    assert_eq!(
        code(join(&room, &ann, Some(SeatChoice::O)).await),
        Some(ErrorCode::SeatTaken)
    );
    assert!(ann.nothing_queued(), "refusals send no snapshot");

    assert_eq!(code(join(&room, &cy, None).await), None);
    let s = cy.snapshot().await;
    assert_eq!(s.spectators, vec!["cy"]);
    assert_eq!(s.seq, 3);
    assert_eq!(ann.snapshot().await, s);

    assert_eq!(code(room.request(&bob.member, None, Request::Leave)), None);
    let s = ann.snapshot().await;
    assert!(matches!(s.seats[1].occupant, Occupant::Empty));
    assert_eq!(s.status, GameStatus::Waiting);
    assert_eq!(
        code(join(&room, &ann, Some(SeatChoice::O)).await),
        Some(ErrorCode::AlreadySeated)
    );
    assert_eq!(
        code(room.request(&bob.member, None, Request::Leave)),
        Some(ErrorCode::NotInRoom)
    );

    // A spectator who takes a seat stops watching; "any" finds the free O seat.
    assert_eq!(code(join(&room, &cy, Some(SeatChoice::Any)).await), None);
    let s = cy.latest().await;
    assert!(s.spectators.is_empty());
    assert!(matches!(&s.seats[1].occupant, Occupant::Human { name, .. } if name == "cy"));
    // Asking again for the seat you hold only resends the snapshot, to you alone.
    assert_eq!(code(join(&room, &cy, Some(SeatChoice::O)).await), None);
    assert_eq!(cy.snapshot().await.seq, s.seq);
    assert_eq!(ann.latest().await.seq, s.seq);
    assert!(ann.nothing_queued());
}

#[tokio::test]
async fn play_checks_its_refusals_in_order_and_refusals_change_nothing() {
    let state = server(Config::default());
    let mut ann = Person::new("ann", 1, 64);
    let mut bob = Person::new("bob", 2, 64);
    let cy = Person::new("cy", 3, 64);
    let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
    ann.snapshot().await;
    assert_eq!(
        code(play(&room, &cy, 0, "a1").await),
        Some(ErrorCode::NotInRoom)
    );
    assert_eq!(
        code(play(&room, &ann, 0, "a1").await),
        Some(ErrorCode::GameNotInProgress)
    );
    join(&room, &bob, Some(SeatChoice::O))
        .await
        .expect("bob sits");
    join(&room, &cy, None).await.expect("cy watches");
    assert_eq!(
        code(play(&room, &cy, 0, "a1").await),
        Some(ErrorCode::NotAPlayer)
    );
    assert_eq!(
        code(play(&room, &bob, 0, "a1").await),
        Some(ErrorCode::NotYourTurn)
    );
    assert_eq!(
        code(play(&room, &ann, 1, "a1").await),
        Some(ErrorCode::StalePly)
    );
    assert_eq!(
        code(play(&room, &ann, 0, "z9").await),
        Some(ErrorCode::IllegalMove)
    );
    assert_eq!(
        code(play(&room, &ann, 0, "nonsense").await),
        Some(ErrorCode::IllegalMove)
    );
    // The ply is checked before the turn: bob with a wrong ply on ann's turn is stale.
    assert_eq!(
        code(play(&room, &bob, 1, "a1").await),
        Some(ErrorCode::StalePly)
    );
    let before = ann.latest().await;
    assert_eq!(before.spectators, vec!["cy"]);
    assert!(ann.nothing_queued(), "refusals send nothing");

    play(&room, &ann, 0, "b2").await.expect("legal");
    let after = ann.snapshot().await;
    assert_eq!(after.seq, before.seq + 1);
    assert_eq!(after.board, vec!["...", ".X.", "..."]);
    assert_eq!(
        code(play(&room, &bob, 1, "b2").await),
        Some(ErrorCode::IllegalMove)
    );
    // Bob saw the same events in the same order.
    let mut seen = Vec::new();
    while let Ok(t) = bob.queue.try_recv() {
        seen.push(decode_server(t.as_str()).expect("valid"));
    }
    let last = seen.last().expect("bob got snapshots");
    assert!(matches!(&last.message, ServerMessage::Room { room } if **room == after));
}

#[tokio::test]
async fn protocol_2_gets_moved_protocol_1_the_snapshot_with_the_same_seq() {
    let state = server(Config::default());
    let mut ann = Person::new("ann", 1, 64).lean();
    let mut bob = Person::new("bob", 2, 64);
    let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
    join(&room, &bob, Some(SeatChoice::O))
        .await
        .expect("bob sits");
    let before = ann.latest().await;
    assert_eq!(
        bob.snapshot().await,
        before,
        "a join is a snapshot for both"
    );

    let request = Request::Play {
        ply: 0,
        mv: "b2".into(),
    };
    let id = Some(RequestId::Number(5));
    room.request(&ann.member, id.clone(), request)
        .expect("legal");
    let moved = ann.frame().await;
    assert_eq!(moved.id, id, "the mover's copy answers its play");
    assert_eq!(
        moved.message,
        ServerMessage::Moved(MoveEvent {
            room: before.id.clone(),
            seq: before.seq + 1,
            game: 1,
            ply: 1,
            mv: "b2".into(),
            cell: "b2".into(),
            by: Mark::X,
            status: GameStatus::Playing { turn: Mark::O },
            clock: None,
        })
    );
    let full = bob.frame().await;
    assert_eq!(full.id, None);
    let ServerMessage::Room { room: after } = full.message else {
        panic!("protocol 1 gets a snapshot: {full:?}")
    };
    assert_eq!((after.seq, after.ply), (before.seq + 1, 1));

    // `sync` answers the requester alone with the current snapshot and seq.
    room.request(&ann.member, Some(RequestId::Number(6)), Request::Sync)
        .expect("a member may sync");
    let synced = ann.frame().await;
    assert_eq!(synced.id, Some(RequestId::Number(6)));
    assert!(matches!(&synced.message, ServerMessage::Room { room } if *room == after));
    assert!(bob.nothing_queued(), "a sync is no event");
    let cy = Person::new("cy", 3, 64);
    assert_eq!(
        code(room.request(&cy.member, None, Request::Sync)),
        Some(ErrorCode::NotInRoom)
    );
}

#[tokio::test]
async fn a_rematch_swaps_the_seats_once_both_players_ask() {
    let state = server(Config::default());
    let mut ann = Person::new("ann", 1, 64);
    let bob = Person::new("bob", 2, 64);
    let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
    join(&room, &bob, Some(SeatChoice::O))
        .await
        .expect("bob sits");
    assert_eq!(
        code(room.request(&ann.member, None, Request::Rematch)),
        Some(ErrorCode::GameInProgress)
    );
    for (ply, (who, mv)) in [
        (&ann, "a1"),
        (&bob, "a2"),
        (&ann, "b1"),
        (&bob, "b2"),
        (&ann, "c1"),
    ]
    .into_iter()
    .enumerate()
    {
        play(&room, who, u32::try_from(ply).expect("small"), mv)
            .await
            .expect("legal");
    }
    room.request(&ann.member, None, Request::Rematch)
        .expect("rematch");
    room.request(&bob.member, Some(RequestId::Number(5)), Request::Rematch)
        .expect("rematch");
    let last = ann.latest().await;
    assert_eq!(last.game, 2);
    assert_eq!(last.ply, 0);
    assert_eq!(last.status, GameStatus::Playing { turn: Mark::X });
    assert!(matches!(&last.seats[0].occupant, Occupant::Human { name, .. } if name == "bob"));
    assert!(matches!(&last.seats[1].occupant, Occupant::Human { name, .. } if name == "ann"));
    assert!(last.seats.iter().all(|s| !s.rematch));
}

#[tokio::test]
async fn a_member_whose_queue_is_full_is_kicked_and_its_seat_held() {
    let state = server(Config::default());
    let mut ann = Person::new("ann", 1, 64);
    // Room for one frame: bob's join snapshot fills it.
    let bob = Person::new("bob", 2, 1);
    let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
    join(&room, &bob, Some(SeatChoice::O))
        .await
        .expect("bob sits");
    ann.snapshot().await;
    ann.snapshot().await;
    assert!(bob.kick.reason().is_none());
    play(&room, &ann, 0, "b2").await.expect("legal");
    assert_eq!(bob.kick.reason(), Some(ByeReason::TooSlow));
    let moved = ann.snapshot().await;
    assert_eq!(moved.ply, 1);
    let dropped = ann.snapshot().await;
    assert_eq!(dropped.seq, moved.seq + 1);
    assert!(matches!(
        dropped.seats[1].occupant,
        Occupant::Human {
            connected: false,
            ..
        }
    ));
    assert_eq!(
        dropped.status,
        GameStatus::Playing { turn: Mark::O },
        "the seat is held"
    );
}

#[tokio::test]
async fn a_room_nobody_is_in_closes_and_leaves_the_lobby() {
    let state = server(Config {
        room_idle_timeout: Duration::from_millis(50),
        ..Config::default()
    });
    let mut ann = Person::new("ann", 7, 64);
    let room = open_room(
        &state,
        &ann,
        SeatRequest::Me,
        SeatRequest::Ai { level: Level::Easy },
    );
    ann.snapshot().await;
    // A detach from another connection of the session is ignored.
    room.detach(ann.session(), Attachment(8)).await;
    room.detach(ann.session(), Attachment(7)).await;
    // Her seat is held for her return: the room stays open past the idle timeout (time
    // passing is the subject here).
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(state.lobby.len(), 1);
    // Once her session expires nobody is in the room, and it closes.
    room.expire(ann.session()).await;
    state.tracker.close();
    tokio::time::timeout(WAIT, state.tracker.wait())
        .await
        .expect("the room's task ends by itself");
    assert_eq!(state.lobby.len(), 0);
    // A handle kept from before finds no room.
    assert_eq!(
        code(room.request(&ann.member, None, Request::Sync)),
        Some(ErrorCode::UnknownRoom)
    );
    assert!(!room.resume(ann.member.clone()));
}

#[tokio::test]
async fn an_analysis_goes_to_the_spectator_who_asked_and_nobody_else() {
    let state = server(Config::default());
    let mut ann = Person::new("ann", 1, 64);
    let mut cy = Person::new("cy", 3, 64);
    let room = open_room(&state, &ann, SeatRequest::Me, SeatRequest::Open);
    ann.snapshot().await;
    join(&room, &cy, None).await.expect("cy watches");
    ann.snapshot().await;
    cy.snapshot().await;
    // A player may not ask while the game is on in a room without hints.
    let refused = room.request(&ann.member, None, Request::Analyze);
    assert_eq!(code(refused), Some(ErrorCode::HintsOff));
    room.request(&cy.member, Some(RequestId::Number(4)), Request::Analyze)
        .expect("a spectator may ask");
    let answer = cy.frame().await;
    assert_eq!(answer.id, Some(RequestId::Number(4)));
    let ServerMessage::Analysis {
        game, ply, moves, ..
    } = answer.message
    else {
        panic!("an analysis: {answer:?}")
    };
    assert_eq!((game, ply, moves.len()), (1, 0, 9));
    assert!(
        moves
            .iter()
            .all(|m| m.value == inarow_protocol::MoveValue::Draw && m.proven),
        "{moves:?}"
    );
    // Only the requester gets it: sync with ann to be sure nothing came before.
    room.request(&ann.member, None, Request::Sync)
        .expect("sync");
    assert!(matches!(
        ann.frame().await.message,
        ServerMessage::Room { .. }
    ));
}

#[test]
fn the_requesters_copy_is_the_frame_with_its_id() {
    for message in [
        ServerMessage::Left { room: "abc".into() },
        ServerMessage::Rooms { rooms: Vec::new() },
    ] {
        let common = encode(&message);
        for id in [RequestId::Number(7), RequestId::Text("a\"b".into())] {
            let spliced = decode_server(&with_id(&common, &id)).expect("decodes");
            let expected = ServerFrame {
                message: message.clone(),
                id: Some(id),
            };
            assert_eq!(spliced, expected);
        }
    }
}
