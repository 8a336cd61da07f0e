//! The pool's order of service, checked by the order of answers (never by time): a cheap
//! move overtakes long searches, AI seats go before analyses, rooms take turns; and the
//! share of the budget a search gets under load.

use super::*;
use inarow_engine::{Level, Rules};

const WAIT: Duration = Duration::from_secs(10);
/// A budget no search in these tests reaches: only cancellation ends them.
const LONG: Duration = Duration::from_secs(600);

fn position(rules: Rules, moves: &[&str]) -> Position {
    let mut position = Position::new(rules);
    for m in moves {
        let mv = rules.parse_move(m).expect("test moves parse");
        position.try_play(mv).expect("test moves are legal");
    }
    position
}

/// A gomoku position no probe settles: the search deepens until stopped.
fn long_search() -> Position {
    position(Rules::gomoku(), &["h8"])
}

/// A job tagged `id` for `room`, and the flag that cancels it.
fn job(id: u64, room: &str, priority: Priority, position: Position) -> (AiJob, Arc<AtomicBool>) {
    let cancel = Arc::new(AtomicBool::new(false));
    let job = AiJob {
        job_id: JobId(id),
        room: RoomId::from(room),
        priority,
        ai: Box::new(Ai::new(Level::Perfect, id)),
        position,
        move_time: LONG,
        deadline: None,
        pace: Duration::ZERO,
        cancel: cancel.clone(),
        engine: None,
    };
    (job, cancel)
}

async fn answer(done: &mut mpsc::Receiver<AiDone>) -> AiDone {
    tokio::time::timeout(WAIT, done.recv())
        .await
        .expect("an answer within the timeout")
        .expect("the pool keeps the channel open")
}

#[tokio::test]
async fn a_cheap_move_is_answered_before_long_searches_of_other_rooms() {
    let pool = AiPool::new(1, TaskTracker::new());
    let (tx, mut done) = mpsc::channel(8);
    let stop = CancellationToken::new();
    let mut flags = Vec::new();
    // Two rooms start long searches on the only worker, then a tic-tac-toe seat asks.
    for (id, room) in [(1, "gomoku-a"), (2, "gomoku-b")] {
        let (job, cancel) = job(id, room, Priority::Seat, long_search());
        pool.spawn(job, stop.clone(), tx.clone());
        flags.push(cancel);
    }
    let (cheap, _) = job(
        3,
        "tictactoe",
        Priority::Seat,
        Position::new(Rules::tictactoe()),
    );
    pool.spawn(cheap, stop.clone(), tx.clone());

    let first = answer(&mut done).await;
    assert_eq!(first.job_id, JobId(3), "the cheap move comes first");
    assert!(first.mv.is_some() && first.ai.is_some());
    for flag in &flags {
        flag.store(true, Ordering::Relaxed);
    }
    let mut rest = vec![
        answer(&mut done).await.job_id,
        answer(&mut done).await.job_id,
    ];
    rest.sort_by_key(|j| j.0);
    assert_eq!(
        rest,
        vec![JobId(1), JobId(2)],
        "cancelled searches still answer"
    );
}

#[tokio::test]
async fn seats_go_before_analyses_and_rooms_take_turns() {
    let pool = AiPool::new(1, TaskTracker::new());
    let (tx, mut done) = mpsc::channel(8);
    let stop = CancellationToken::new();
    let mut load = pool.shared.searches.load();
    // Job 1 takes the only worker; the others queue in this order: an analysis, two
    // jobs of room r1, then one of room r3.
    let queued = [
        (1, "r1", Priority::Seat),
        (2, "r2", Priority::Analysis),
        (3, "r1", Priority::Seat),
        (4, "r1", Priority::Seat),
        (5, "r3", Priority::Seat),
    ];
    let mut flags = Vec::new();
    for (id, room, priority) in queued {
        let (job, cancel) = job(id, room, priority, long_search());
        pool.spawn(job, stop.clone(), tx.clone());
        flags.push(cancel);
    }
    // One search running and three seats waiting. (The analysis is not counted, and its
    // probe waits behind the seats' probes, so it may not have queued yet.)
    tokio::time::timeout(WAIT, load.wait_for(|l| *l == 4))
        .await
        .expect("every seat queued within the timeout")
        .expect("the pool is alive");
    // Cancelled jobs answer as soon as they get the worker: answers come in turn order.
    // The analysis is left running: had it taken the worker before a seat, that seat
    // would never answer.
    for (flag, (_, _, priority)) in flags.iter().zip(queued) {
        if priority == Priority::Seat {
            flag.store(true, Ordering::Relaxed);
        }
    }
    let mut order = Vec::new();
    for _ in 0..4 {
        order.push(answer(&mut done).await.job_id.0);
    }
    assert_eq!(order, vec![1, 3, 5, 4]);
    flags[1].store(true, Ordering::Relaxed);
    assert_eq!(answer(&mut done).await.job_id, JobId(2));
    assert_eq!(*load.borrow(), 0, "every slot and place given back");
}

#[tokio::test]
async fn a_job_dropped_while_waiting_gives_its_place_back() {
    let pool = AiPool::new(1, TaskTracker::new());
    let (tx, mut done) = mpsc::channel(8);
    let mut load = pool.shared.searches.load();
    let room_gone = CancellationToken::new();
    let (first, cancel_first) = job(1, "a", Priority::Seat, long_search());
    pool.spawn(first, CancellationToken::new(), tx.clone());
    let (second, _) = job(2, "b", Priority::Seat, long_search());
    pool.spawn(second, room_gone.clone(), tx.clone());
    tokio::time::timeout(WAIT, load.wait_for(|l| *l == 2))
        .await
        .expect("both jobs in within the timeout")
        .expect("the pool is alive");
    room_gone.cancel();
    tokio::time::timeout(WAIT, load.wait_for(|l| *l == 1))
        .await
        .expect("the place is given back")
        .expect("the pool is alive");
    cancel_first.store(true, Ordering::Relaxed);
    assert_eq!(answer(&mut done).await.job_id, JobId(1));
    tokio::time::timeout(WAIT, load.wait_for(|l| *l == 0))
        .await
        .expect("the slot is given back")
        .expect("the pool is alive");
}

#[test]
fn the_budget_is_shared_once_more_seats_wait_than_there_are_workers() {
    let pool = AiPool::new(2, TaskTracker::new());
    let second = Duration::from_secs(1);
    let share = |budget, load| pool.shared.share(budget, load);
    assert_eq!(share(second, 0), second);
    assert_eq!(share(second, 2), second, "a worker for every seat");
    assert_eq!(share(second, 4), second / 2);
    assert_eq!(share(second, 40), Duration::from_millis(50));
    assert_eq!(share(second, 100_000), MIN_SHARE, "never below the floor");
    let tiny = Duration::from_millis(3);
    assert_eq!(share(tiny, 100), tiny, "nor above the budget");
}

/// The scheduling policy of the calling thread, from procfs.
#[cfg(target_os = "linux")]
fn policy() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("procfs");
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("stat format")
        .1
        .split_whitespace()
        .collect();
    // After the name: the policy is field 41 of stat (1-based, name = 2).
    fields[38].parse().expect("policy")
}

#[cfg(target_os = "linux")]
#[test]
fn ai_work_runs_idle() {
    std::thread::spawn(|| {
        const SCHED_OTHER: u64 = 0;
        const SCHED_IDLE: u64 = 5;
        assert_eq!(policy(), SCHED_OTHER, "a new thread starts normal");
        run_idle();
        assert_eq!(policy(), SCHED_IDLE);
        run_idle();
        assert_eq!(policy(), SCHED_IDLE, "and stays idle");
    })
    .join()
    .expect("the thread checks pass");
}

#[test]
fn probes_serve_seats_before_analyses_then_the_smallest_board() {
    use super::slots::{Line, Smallest};
    let mut line = Smallest::default();
    let mut woken = Vec::new();
    for (ticket, key) in [
        (Priority::Analysis, 9),
        (Priority::Seat, 225),
        (Priority::Seat, 9),
        (Priority::Analysis, 42),
    ]
    .into_iter()
    .enumerate()
    {
        let (wake, receiver) = tokio::sync::oneshot::channel();
        line.push(&key, ticket as u64, wake);
        woken.push(receiver);
    }
    let mut order = Vec::new();
    while let Some(wake) = line.pop() {
        wake.send(()).expect("the receiver is alive");
        let ticket = woken
            .iter_mut()
            .position(|r| r.try_recv().is_ok())
            .expect("one job woken");
        order.push(ticket);
    }
    assert_eq!(order, vec![2, 1, 0, 3]);
}

#[tokio::test]
async fn a_seat_stops_at_the_first_move_proven_best_where_a_hint_values_them_all() {
    let pool = AiPool::new(1, TaskTracker::new());
    let (tx, mut done) = mpsc::channel(8);
    let stop = CancellationToken::new();
    // Past the opening book (23 moves in, a win for the player to move, Pons' Test_L2_R1),
    // small enough for the solver in a debug build.
    let position = Position::from_column_digits(Rules::connect4(), "52753311433677442422121")
        .expect("a legal position");
    let (seat, _) = job(1, "seat", Priority::Seat, position.clone());
    pool.spawn(seat, stop.clone(), tx.clone());
    let seat = answer(&mut done).await;
    let (hint, _) = job(2, "hint", Priority::Analysis, position);
    pool.spawn(hint, stop.clone(), tx.clone());
    let hint = answer(&mut done).await;
    let (seat, hint) = (
        seat.analysis.expect("the seat searched"),
        hint.analysis.expect("the hint searched"),
    );
    assert!(seat.proven && hint.proven, "both proven: {seat:?} {hint:?}");
    let value = |a: &Analysis| {
        let best = a.best.expect("a move");
        a.moves.iter().find(|m| m.mv == best).map(|m| m.value)
    };
    assert_eq!(value(&seat), value(&hint), "the same best value");
    assert!(
        hint.moves
            .iter()
            .all(|m| !matches!(m.value, inarow_engine::Value::Estimate(_))),
        "a hint values every move exactly: {hint:?}"
    );
    assert!(
        seat.nodes < hint.nodes,
        "the seat searched less ({} nodes) than the hint ({})",
        seat.nodes,
        hint.nodes
    );
}
