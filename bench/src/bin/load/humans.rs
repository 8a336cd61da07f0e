//! The human games' table: each row's games played on every server compared, with moves,
//! bytes, CPU, system calls and round trips a move.

use std::time::Duration;

use anyhow::anyhow;

use crate::players::{Kind, Tally, human_pair, run_players};
use crate::server::{Counting, Server, Syscalls};
use crate::{figure, ms, percentile};

/// One row of the human games' table.
#[derive(Clone, Copy)]
pub(crate) struct Row {
    pub(crate) games: u64,
    pub(crate) kind: Kind,
    pub(crate) protocol: u32,
}

impl Row {
    /// The rows played unless `--row` picks some.
    pub(crate) const ALL: [Row; 6] = [
        Row::new(50, Kind::TicTacToe, 1),
        Row::new(50, Kind::TicTacToe, 2),
        Row::new(50, Kind::Gomoku, 1),
        Row::new(50, Kind::Gomoku, 2),
        Row::new(500, Kind::TicTacToe, 2),
        Row::new(500, Kind::Gomoku, 2),
    ];

    pub(crate) const fn new(games: u64, kind: Kind, protocol: u32) -> Row {
        Row {
            games,
            kind,
            protocol,
        }
    }
}

impl std::str::FromStr for Row {
    type Err = anyhow::Error;

    /// `GAMES:RULES:PROTOCOL`, such as `50:tictactoe:2`.
    fn from_str(text: &str) -> anyhow::Result<Row> {
        let parts: Vec<&str> = text.split(':').collect();
        let [games, rules, protocol] = parts[..] else {
            return Err(anyhow!("a row is GAMES:RULES:PROTOCOL, not {text:?}"));
        };
        let kind = match rules {
            "tictactoe" => Kind::TicTacToe,
            "gomoku" => Kind::Gomoku,
            _ => return Err(anyhow!("rules are tictactoe or gomoku, not {rules:?}")),
        };
        Ok(Row::new(games.parse()?, kind, protocol.parse()?))
    }
}

/// How the human games are played.
pub(crate) struct Plan<'a> {
    pub(crate) phase: Duration,
    pub(crate) rows: &'a [Row],
    /// Runs of each row on each server.
    pub(crate) repeat: usize,
    pub(crate) counting: Counting,
}

/// One run of a row on one server, per move.
pub(crate) struct Measured {
    pub(crate) cpu_us: f64,
    /// The user-space part of `cpu_us`.
    pub(crate) user_us: f64,
    /// The load clients' CPU, which competes with the server's for the same cores.
    pub(crate) clients_us: f64,
    pub(crate) switches: f64,
    pub(crate) syscalls: Option<Syscalls>,
    /// User-space instructions (`--callgrind`).
    pub(crate) instructions: Option<f64>,
    /// Last-level data misses (`--cache-sim`).
    pub(crate) misses: Option<f64>,
}

/// Human games as fast as the server answers: throughput, bytes, CPU and round trips, on
/// each of `servers` in turn (the order alternating from run to run).
pub(crate) async fn humans(servers: &[(&str, &Server)], plan: &Plan<'_>) -> anyhow::Result<()> {
    let phase = plan.phase;
    println!();
    println!("## human games: one move event per player per move");
    println!();
    println!(
        "| server | games | rules | protocol | moves/s | moves/game | bytes/move | frames/move | all bytes/move | CPU µs/move | user µs/move | clients CPU µs/move | switches/move | syscalls/move | sends/move | reads/move | instructions/move | LL misses/move | RTT p50 | RTT p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut results: Vec<Vec<Vec<Measured>>> = plan
        .rows
        .iter()
        .map(|_| servers.iter().map(|_| Vec::new()).collect())
        .collect();
    let mut seed = 0;
    for (r, row) in plan.rows.iter().enumerate() {
        for run in 0..plan.repeat {
            for i in 0..servers.len() {
                let s = if (r + run) % 2 == 0 {
                    i
                } else {
                    servers.len() - 1 - i
                };
                let (name, server) = servers[s];
                let mut players = Vec::new();
                for g in 0..row.games {
                    players.extend(
                        human_pair(server.addr, row.kind, row.protocol, seed + 2 * g).await?,
                    );
                }
                seed += 2 * row.games;
                let (tallies, window) =
                    run_players(players, server.cpu(), phase, plan.counting).await?;
                let mut total = Tally::default();
                tallies.into_iter().for_each(|t| total.add(t));
                let moves = total.moves.max(1) as f64;
                let cpu = window.cpu.total();
                let measured = Measured {
                    cpu_us: cpu.as_secs_f64() * 1e6 / moves,
                    user_us: window.cpu.user.as_secs_f64() * 1e6 / moves,
                    clients_us: window.clients.total().as_secs_f64() * 1e6 / moves,
                    switches: window.switches as f64 / moves,
                    syscalls: window.syscalls.map(|n| n.per(moves)),
                    instructions: window.counted.map(|n| n.instructions as f64 / moves),
                    misses: window
                        .counted
                        .and_then(|n| n.misses)
                        .map(|n| n as f64 / moves),
                };
                // Both players ask for a rematch at the end of every game.
                let games = total.rematches as f64 / 2.0;
                let count = |f: fn(Syscalls) -> f64| {
                    measured
                        .syscalls
                        .map_or("-".to_owned(), |n| format!("{:.2}", f(n)))
                };
                let recipients = 2.0 * moves;
                let p50 = percentile(&mut total.round_trips, 0.5);
                let p99 = percentile(&mut total.round_trips, 0.99);
                println!(
                    "| {name} | {} | {:?} | {} | {:.0} | {:.1} | {:.0} | {:.2} | {:.0} | {:.1} | {:.1} | {:.1} | {:.2} | {} | {} | {} | {} | {} | {} | {} |",
                    row.games,
                    row.kind,
                    row.protocol,
                    moves / phase.as_secs_f64(),
                    moves / games.max(1.0),
                    total.move_bytes as f64 / recipients,
                    total.move_frames as f64 / recipients,
                    total.bytes as f64 / recipients,
                    measured.cpu_us,
                    measured.user_us,
                    measured.clients_us,
                    measured.switches,
                    count(|n| n.all),
                    count(|n| n.sends),
                    count(|n| n.reads),
                    measured
                        .instructions
                        .map_or("-".to_owned(), |n| format!("{n:.0}")),
                    measured
                        .misses
                        .map_or("-".to_owned(), |n| format!("{n:.1}")),
                    ms(p50),
                    ms(p99),
                );
                results[r][s].push(measured);
            }
        }
    }
    if let [(base_name, _), (name, _)] = servers {
        println!();
        println!(
            "## medians over {} runs: {name} against {base_name}",
            plan.repeat
        );
        println!();
        println!(
            "| games | rules | protocol | CPU µs/move {base_name} | CPU µs/move {name} | ratio | least CPU µs/move | user µs/move | switches/move | syscalls/move | sends/move | reads/move | instructions/move | LL misses/move |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (row, result) in plan.rows.iter().zip(&results) {
            let median = |runs: &[Measured], f: &dyn Fn(&Measured) -> Option<f64>| {
                let mut v: Vec<f64> = runs.iter().filter_map(f).collect();
                v.sort_by(f64::total_cmp);
                v.get(v.len() / 2).copied()
            };
            let pair = |f: &dyn Fn(&Measured) -> Option<f64>| {
                let (a, b) = (median(&result[0], f), median(&result[1], f));
                match (a, b) {
                    (Some(a), Some(b)) => format!("{} → {}", figure(a), figure(b)),
                    _ => "-".to_owned(),
                }
            };
            let (base, new) = (
                median(&result[0], &|m| Some(m.cpu_us)).unwrap_or(0.0),
                median(&result[1], &|m| Some(m.cpu_us)).unwrap_or(0.0),
            );
            // The other jobs on a shared machine only ever add time: the least of the runs
            // is the closest to what the server itself costs.
            let least = |runs: &[Measured]| runs.iter().map(|m| m.cpu_us).min_by(f64::total_cmp);
            let fewest = match (least(&result[0]), least(&result[1])) {
                (Some(a), Some(b)) => format!("{a:.1} → {b:.1}"),
                _ => "-".to_owned(),
            };
            println!(
                "| {} | {:?} | {} | {base:.1} | {new:.1} | {:.2} | {fewest} | {} | {} | {} | {} | {} | {} | {} |",
                row.games,
                row.kind,
                row.protocol,
                new / base.max(1e-9),
                pair(&|m| Some(m.user_us)),
                pair(&|m| Some(m.switches)),
                pair(&|m| m.syscalls.map(|n| n.all)),
                pair(&|m| m.syscalls.map(|n| n.sends)),
                pair(&|m| m.syscalls.map(|n| n.reads)),
                pair(&|m| m.instructions),
                pair(&|m| m.misses),
            );
        }
    }
    Ok(())
}
