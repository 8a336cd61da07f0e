//! The words and tables of kept games: the `history` listing (a table of games and a
//! player's record), how a player, a result, a date and a move's time are written. Pure
//! text, shared by `inarow history`, the replay screen and the plain replay.
//!
//! Dates are UTC, converted from the protocol's milliseconds with the civil-calendar
//! arithmetic below rather than a date crate: the client only ever prints them.

use inarow_protocol::{GameId, GameStatus, GameSummary, PlayerRecord, PlayerRef, Tally};

use crate::words;

/// A player of a kept game: a person's display name, or `AI` and its level (the words the
/// seats use).
pub fn player_label(player: &PlayerRef) -> String {
    match player.ai {
        Some(level) => format!("AI {level}"),
        None => player.name.clone(),
    }
}

/// How a kept game ended: `X won`, `O won (resigned)` (X resigned) or `draw`.
pub fn result_label(result: &GameStatus) -> String {
    match result {
        GameStatus::Won { winner, .. } => format!("{winner} won"),
        GameStatus::Resigned { winner } => format!("{winner} won (resigned)"),
        GameStatus::Drawn => "draw".to_owned(),
        // A kept game has ended; anything else is the server's mistake, shown as it is.
        other => words::status_phrase(other),
    }
}

/// A protocol timestamp (milliseconds since the Unix epoch) as `YYYY-MM-DD HH:MM`, UTC.
pub fn utc_minute(ms: u64) -> String {
    // The record's `YYYY-MM-DDTHH:MM:SSZ`, cut to the minute.
    let mut stamp = inarow_engine::record::utc_timestamp(ms);
    stamp.truncate("YYYY-MM-DDTHH:MM".len());
    stamp.replace('T', " ")
}

/// How long a move took, as the game record's comments write it (`2.1s`): the engine
/// owns that format, so a replay and an export agree.
pub fn move_time(ms: u64) -> String {
    inarow_engine::record::seconds_comment(ms)
}

/// Lays out rows of cells in columns two spaces apart; the columns whose index is in
/// `right` are aligned right (numbers). Trailing spaces are cut.
fn table(rows: &[Vec<String>], right: &[usize]) -> Vec<String> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|row| row.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|row| {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(c, (cell, &width))| {
                    if right.contains(&c) {
                        format!("{cell:>width$}")
                    } else {
                        format!("{cell:<width$}")
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_owned()
        })
        .collect()
}

/// A page of kept games as a table, newest first: id, when it ended (UTC), rules, who
/// played X and O, the result and the number of moves. One line saying so when there are
/// none.
pub fn games_table(games: &[GameSummary]) -> Vec<String> {
    if games.is_empty() {
        return vec!["no games".to_owned()];
    }
    let mut rows = vec![
        ["game", "ended (UTC)", "rules", "X", "O", "result", "moves"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for game in games {
        rows.push(vec![
            game.game.to_string(),
            utc_minute(game.ended_at),
            words::rules_label(&game.rules),
            player_label(&game.x),
            player_label(&game.o),
            result_label(&game.result),
            game.ply.to_string(),
        ]);
    }
    table(&rows, &[0, 6])
}

/// Wins, draws and losses in words: `5 won, 2 drawn, 4 lost`.
fn tally_words(tally: &Tally) -> String {
    format!(
        "{} won, {} drawn, {} lost",
        tally.wins, tally.draws, tally.losses
    )
}

/// A player's record: the total, then a table of the results against each opponent.
pub fn record_lines(record: &PlayerRecord) -> Vec<String> {
    let total = record.total;
    let games = total.wins + total.draws + total.losses;
    let mut lines = vec![format!(
        "{}: {} in {games} game{}",
        record.name,
        tally_words(&total),
        if games == 1 { "" } else { "s" }
    )];
    if record.opponents.is_empty() {
        return lines;
    }
    let mut rows = vec![
        ["against", "won", "drawn", "lost"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for opponent in &record.opponents {
        let t = opponent.tally;
        rows.push(vec![
            player_label(&opponent.opponent),
            t.wins.to_string(),
            t.draws.to_string(),
            t.losses.to_string(),
        ]);
    }
    lines.extend(
        table(&rows, &[1, 2, 3])
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    lines
}

/// The command that lists the page after one ending with game `last`, for the hint under
/// a page that has `more`.
pub fn next_page_command(name: Option<&str>, limit: u32, last: GameId) -> String {
    let mut command = "inarow history".to_owned();
    if let Some(name) = name {
        // Quoted when the shell would split it.
        if name.contains(|c: char| !(c.is_alphanumeric() || "-_.@".contains(c))) {
            command.push_str(&format!(" '{}'", name.replace('\'', r"'\''")));
        } else {
            command.push(' ');
            command.push_str(name);
        }
    }
    if limit != inarow_protocol::DEFAULT_HISTORY_LIMIT {
        command.push_str(&format!(" --limit {limit}"));
    }
    command.push_str(&format!(" --before {last}"));
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    use inarow_protocol::{Level, Mark, OpponentTally, RoomId, Rules};

    fn person(name: &str) -> PlayerRef {
        PlayerRef {
            name: name.to_owned(),
            ai: None,
        }
    }

    fn ai(level: Level) -> PlayerRef {
        PlayerRef {
            name: format!("AI ({level})"),
            ai: Some(level),
        }
    }

    /// The two games of the `history` example in docs/protocol.md.
    fn games() -> Vec<GameSummary> {
        vec![
            GameSummary {
                game: GameId(41),
                room: Some(RoomId::from("k7m2q9xa")),
                number: 2,
                rules: Rules {
                    width: 3,
                    height: 3,
                    k: 3,
                    gravity: false,
                },
                x: person("bob"),
                o: person("ann"),
                result: GameStatus::Won {
                    winner: Mark::O,
                    line: vec!["a1".into(), "b2".into(), "c3".into()],
                },
                ply: 6,
                started_at: 1_795_450_800_000,
                ended_at: 1_795_450_861_250,
                time_control: None,
            },
            GameSummary {
                game: GameId(37),
                room: None,
                number: 1,
                rules: Rules {
                    width: 7,
                    height: 6,
                    k: 4,
                    gravity: true,
                },
                x: person("ann"),
                o: ai(Level::Perfect),
                result: GameStatus::Resigned { winner: Mark::O },
                ply: 11,
                started_at: 1_795_449_000_000,
                ended_at: 1_795_449_190_000,
                time_control: None,
            },
        ]
    }

    #[test]
    fn dates_are_utc_civil_dates() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        // The Start tag of the record example in docs/protocol.md.
        assert_eq!(utc_minute(1_795_450_900_000), "2026-11-23 16:21");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(utc_minute(951_868_799_999), "2000-02-29 23:59");
        assert_eq!(utc_minute(4_107_542_400_000), "2100-03-01 00:00");
        assert_eq!(utc_minute(1_704_067_140_000), "2023-12-31 23:59");
    }

    #[test]
    fn move_times_read_like_the_record() {
        assert_eq!(move_time(2100), "2.1s");
        assert_eq!(move_time(0), "0.0s");
        assert_eq!(move_time(2149), "2.1s");
        assert_eq!(move_time(2150), "2.2s");
        assert_eq!(move_time(65_000), "65.0s");
    }

    #[test]
    fn players_and_results_in_words() {
        assert_eq!(player_label(&person("ann")), "ann");
        assert_eq!(player_label(&ai(Level::Easy)), "AI easy");
        assert_eq!(result_label(&games()[0].result), "O won");
        assert_eq!(result_label(&games()[1].result), "O won (resigned)");
        assert_eq!(result_label(&GameStatus::Drawn), "draw");
    }

    #[test]
    fn a_page_of_games_is_a_table() {
        assert_eq!(
            games_table(&games()),
            vec![
                "game  ended (UTC)       rules      X    O           result            moves",
                "  41  2026-11-23 16:21  tictactoe  bob  ann         O won                 6",
                "  37  2026-11-23 15:53  connect4   ann  AI perfect  O won (resigned)     11",
            ]
        );
        assert_eq!(games_table(&[]), vec!["no games"]);
    }

    #[test]
    fn a_record_gives_the_total_then_each_opponent() {
        let tally = |wins, draws, losses| Tally {
            wins,
            draws,
            losses,
        };
        let record = PlayerRecord {
            name: "ann".into(),
            total: tally(5, 2, 4),
            opponents: vec![
                OpponentTally {
                    opponent: person("bob"),
                    tally: tally(4, 1, 1),
                },
                OpponentTally {
                    opponent: ai(Level::Perfect),
                    tally: tally(0, 1, 3),
                },
            ],
        };
        assert_eq!(
            record_lines(&record),
            vec![
                "ann: 5 won, 2 drawn, 4 lost in 11 games",
                "  against     won  drawn  lost",
                "  bob           4      1     1",
                "  AI perfect    0      1     3",
            ]
        );
        let alone = PlayerRecord {
            name: "zed".into(),
            total: Tally::default(),
            opponents: Vec::new(),
        };
        assert_eq!(
            record_lines(&alone),
            vec!["zed: 0 won, 0 drawn, 0 lost in 0 games"]
        );
    }

    #[test]
    fn the_next_page_is_one_command_away() {
        assert_eq!(
            next_page_command(None, 20, GameId(37)),
            "inarow history --before 37"
        );
        assert_eq!(
            next_page_command(Some("ann"), 5, GameId(37)),
            "inarow history ann --limit 5 --before 37"
        );
        assert_eq!(
            next_page_command(Some("mary ann's"), 20, GameId(3)),
            r"inarow history 'mary ann'\''s' --before 3"
        );
    }
}
