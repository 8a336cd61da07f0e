//! AI reply times among AI rooms and human games, and the human round trips beside them.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use crate::players::{Kind, Player, Tally, ai_room, human_pair, run_players};
use crate::server::{Counting, Server};
use crate::{THINK, ms, percentile};

/// AI replies alone and among many AI rooms and human games, and the human games' round
/// trips with and without the AI rooms. The two human phases alternate `repeat` times: a
/// p99 is the slowest 1% of some 5,000 round trips of about a millisecond, which one busy
/// moment of the shared machine moves by more than the AI rooms do, so each run's ratio is
/// printed and then the ratio of the runs' pooled round trips and the median ratio.
pub(crate) async fn ai(server: &Server, phase: Duration, repeat: usize) -> anyhow::Result<()> {
    println!();
    println!(
        "## AI replies (perfect AI; people play X at random, after thinking {} ms)",
        THINK.as_millis()
    );
    println!();
    let mut alone_replies = Vec::new();
    for kind in [Kind::TicTacToe, Kind::ConnectFour, Kind::Gomoku] {
        let players = vec![ai_room(server.addr, kind, 9_000).await?];
        let mut total = Tally::default();
        let (tallies, _) = run_players(players, server.cpu(), phase, Counting::NONE).await?;
        tallies.into_iter().for_each(|t| total.add(t));
        alone_replies.push((kind, total.ai_replies));
    }
    let mut beside: HashMap<Option<Kind>, Tally> = HashMap::new();
    let mut alone_trips = Vec::new();
    let mut runs = Vec::new();
    for run in 0..repeat as u64 {
        let mut humans_alone = Tally::default();
        let players = paced_humans(server.addr, 10_000 + 1_000 * run).await?;
        let (tallies, _) = run_players(players, server.cpu(), phase, Counting::NONE).await?;
        tallies.into_iter().for_each(|t| humans_alone.add(t));

        let mut players = paced_humans(server.addr, 20_000 + 1_000 * run).await?;
        let mut kinds = vec![None; players.len()];
        for (kind, rooms) in [
            (Kind::TicTacToe, 50),
            (Kind::ConnectFour, 20),
            (Kind::Gomoku, 20),
        ] {
            for r in 0..rooms {
                players.push(ai_room(server.addr, kind, 30_000 + 1_000 * run + r).await?);
                kinds.push(Some(kind));
            }
        }
        let (tallies, _) = run_players(players, server.cpu(), phase, Counting::NONE).await?;
        let mut by_kind: HashMap<Option<Kind>, Tally> = HashMap::new();
        for (kind, tally) in kinds.into_iter().zip(tallies) {
            by_kind.entry(kind).or_default().add(tally);
        }
        let mut humans = by_kind
            .get(&None)
            .map(|t| t.round_trips.clone())
            .unwrap_or_default();
        let mut alone = humans_alone.round_trips;
        runs.push([
            percentile(&mut alone, 0.5),
            percentile(&mut alone, 0.99),
            percentile(&mut humans, 0.5),
            percentile(&mut humans, 0.99),
        ]);
        alone_trips.extend(alone);
        for (kind, tally) in by_kind {
            beside.entry(kind).or_default().add(tally);
        }
    }
    println!("| load | kind | replies | p50 | p99 |");
    println!("|---|---|---|---|---|");
    for (kind, mut replies) in alone_replies {
        print_ai("alone", kind, &mut replies);
    }
    for kind in [Kind::TicTacToe, Kind::ConnectFour, Kind::Gomoku] {
        let mut t = beside.remove(&Some(kind)).unwrap_or_default();
        print_ai("50 human + 50/20/20 AI rooms", kind, &mut t.ai_replies);
    }
    println!();
    println!(
        "## 50 human tic-tac-toe games (same thinking time): move round trip alone, then beside the AI rooms"
    );
    println!();
    println!("| run | alone p50 | alone p99 | beside p50 | beside p99 | p99 ratio |");
    println!("|---|---|---|---|---|---|");
    let ratio =
        |alone: Duration, beside: Duration| beside.as_secs_f64() / alone.as_secs_f64().max(1e-9);
    let mut ratios = Vec::new();
    for (run, [a50, a99, b50, b99]) in runs.into_iter().enumerate() {
        ratios.push(ratio(a99, b99));
        println!(
            "| {} | {} | {} | {} | {} | {:.2} |",
            run + 1,
            ms(a50),
            ms(a99),
            ms(b50),
            ms(b99),
            ratio(a99, b99)
        );
    }
    ratios.sort_by(f64::total_cmp);
    let mut beside_trips = beside.remove(&None).unwrap_or_default().round_trips;
    let (a99, b99) = (
        percentile(&mut alone_trips, 0.99),
        percentile(&mut beside_trips, 0.99),
    );
    println!(
        "| all {repeat}, pooled | {} | {} | {} | {} | {:.2} (median of the runs {:.2}) |",
        ms(percentile(&mut alone_trips, 0.5)),
        ms(a99),
        ms(percentile(&mut beside_trips, 0.5)),
        ms(b99),
        ratio(a99, b99),
        ratios[ratios.len() / 2],
    );
    Ok(())
}

/// 50 human tic-tac-toe games whose players think [`THINK`] before each move.
pub(crate) async fn paced_humans(addr: SocketAddr, seed: u64) -> anyhow::Result<Vec<Player>> {
    let mut players = Vec::new();
    for g in 0..50 {
        for mut p in human_pair(addr, Kind::TicTacToe, 2, seed + 2 * g).await? {
            p.think = THINK;
            players.push(p);
        }
    }
    Ok(players)
}

pub(crate) fn print_ai(load: &str, kind: Kind, replies: &mut [Duration]) {
    println!(
        "| {load} | {kind:?} | {} | {} | {} |",
        replies.len(),
        ms(percentile(replies, 0.5)),
        ms(percentile(replies, 0.99)),
    );
}
