//! The command line: flags, subcommands, and what the client should do once connected.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use inarow_protocol::{GameId, Level, Mark, RoomId, RulesSpec};

use crate::words::{parse_level, parse_mark, parse_rules};

/// Play k-in-a-row games (tic-tac-toe, Connect Four, gomoku, m×n×k) on an inarow server.
///
/// Without a subcommand the lobby screen opens. With --plain, or when stdin or stdout is
/// not a terminal, the client reads one command per line and prints events as text (type
/// `help` for the commands). `history`, `replay` and `export` read the finished games the
/// server keeps.
#[derive(Debug, Parser)]
#[command(name = "inarow", version)]
pub struct Cli {
    /// The server's WebSocket address: ws://HOST:PORT, or wss://HOST:PORT for a server
    /// behind TLS (its certificate is checked against the usual public CAs).
    #[arg(
        long,
        global = true,
        env = "INAROW_SERVER",
        default_value = "ws://127.0.0.1:7878"
    )]
    pub server: String,
    /// Also trust the CA certificates in this PEM file for wss:// (for a server with a
    /// self-signed certificate: pass that certificate).
    #[arg(long, global = true, env = "INAROW_CA_FILE")]
    pub ca_file: Option<PathBuf>,
    /// Your display name (1 to 24 characters); defaults to your login name.
    #[arg(long, global = true, env = "INAROW_NAME")]
    pub name: Option<String>,
    /// Line mode for scripts: one command per line on stdin, events as text on stdout.
    #[arg(long, global = true)]
    pub plain: bool,
    /// What to do once connected.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a room against the server's AI and start playing at once.
    Play {
        /// A preset (tictactoe, connect4, gomoku) or WxHkK with an optional g for gravity,
        /// e.g. 5x5k4 or 8x7k4g.
        #[arg(long, default_value = "tictactoe", value_parser = parse_rules)]
        rules: RulesSpec,
        /// The seat you play: X moves first.
        #[arg(long = "as", default_value = "X", value_parser = parse_mark)]
        seat: Mark,
        /// The AI's strength: easy, medium or perfect.
        #[arg(long, default_value = "perfect", value_parser = parse_level)]
        level: Level,
        /// Let the players ask for hints (`?` in the game) while the game is on.
        #[arg(long)]
        hints: bool,
    },
    /// Join a room by its id or invite code: take a free seat, or watch if both are taken.
    Join {
        /// The room id / invite code.
        code: String,
    },
    /// Watch a room without playing.
    Watch {
        /// The room id / invite code.
        room: String,
    },
    /// Print the public rooms and exit.
    Rooms,
    /// List the finished games the server keeps, newest first; with NAME, only that
    /// player's games, after their wins, draws and losses.
    History {
        /// A display name, exactly as it showed in the seats.
        name: Option<String>,
        /// How many games to list (1 to 100).
        #[arg(long, default_value_t = inarow_protocol::DEFAULT_HISTORY_LIMIT,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(inarow_protocol::MAX_HISTORY_LIMIT)))]
        limit: u32,
        /// Only games older than this game id: the next page after a listing that ended
        /// with that game.
        #[arg(long, value_parser = parse_game_id, conflicts_with = "all")]
        before: Option<GameId>,
        /// Every kept game, page after page.
        #[arg(long)]
        all: bool,
    },
    /// Step through a finished game on the board (←/→, Home/End, q); with --plain, print
    /// it move by move.
    Replay {
        /// The game's id, from `history`.
        #[arg(value_parser = parse_game_id)]
        game: GameId,
    },
    /// Put a Gomocup engine (such as pbrain-rapfi or inarow-pbrain) on the server as a
    /// player: join a room by its code and/or sit in public rooms with a free seat, play,
    /// ask for rematches; what happens is printed a line at a time. Five in a row without
    /// gravity only (the engine's game).
    Bot {
        /// The engine's executable.
        #[arg(long)]
        engine: PathBuf,
        /// Join this room (its id or invite code) and play there.
        #[arg(long)]
        room: Option<String>,
        /// Sit in public rooms that wait for a player, one after another.
        #[arg(long)]
        open: bool,
        /// Stop after this many games [default: never].
        #[arg(long)]
        games: Option<u32>,
        /// The engine's time a move, in ms.
        #[arg(long, default_value_t = 1_000)]
        move_ms: u64,
    },
    /// Print a finished game's record (tags, then the moves), e.g. `inarow export 42 >
    /// game.txt`.
    Export {
        /// The game's id, from `history`.
        #[arg(value_parser = parse_game_id)]
        game: GameId,
    },
}

/// Parses a game id: a whole number, with an optional leading `#` as `history` may be read.
///
/// # Errors
/// A message saying what a game id looks like.
pub fn parse_game_id(text: &str) -> Result<GameId, String> {
    let digits = text.trim().trim_start_matches('#');
    digits.parse::<u64>().map(GameId).map_err(|_| {
        format!("{text:?} is not a game id: a whole number, as `inarow history` lists")
    })
}

/// What the client does after its first `welcome`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Startup {
    /// Stay in the lobby.
    Lobby,
    /// Create a room: you in `seat`, an AI of `level` in the other.
    Play {
        /// The rules.
        rules: RulesSpec,
        /// Your seat.
        seat: Mark,
        /// The AI's level.
        level: Level,
        /// Players may ask for hints while the game is on.
        hints: bool,
    },
    /// Join a room, any free seat, watching if it is full.
    Join(RoomId),
    /// Watch a room.
    Watch(RoomId),
    /// List the public rooms, print them and exit.
    Rooms,
    /// `history`: list kept games (the first page; `games` asks for the next ones).
    History {
        /// Only this player's games, and their record.
        name: Option<String>,
        /// The page size.
        limit: u32,
        /// Only games older than this one.
        before: Option<GameId>,
    },
    /// `replay` or `export`: fetch one kept game.
    Game(GameId),
}

impl Cli {
    /// The startup action the subcommand asks for.
    pub fn startup(&self) -> Startup {
        match &self.command {
            None => Startup::Lobby,
            Some(Command::Play {
                rules,
                seat,
                level,
                hints,
            }) => Startup::Play {
                rules: rules.clone(),
                seat: *seat,
                level: *level,
                hints: *hints,
            },
            Some(Command::Join { code }) => Startup::Join(RoomId(code.trim().to_owned())),
            Some(Command::Watch { room }) => Startup::Watch(RoomId(room.trim().to_owned())),
            Some(Command::Rooms) => Startup::Rooms,
            Some(Command::History {
                name,
                limit,
                before,
                ..
            }) => Startup::History {
                name: name.as_ref().map(|n| n.trim().to_owned()),
                limit: *limit,
                before: *before,
            },
            Some(Command::Replay { game } | Command::Export { game }) => Startup::Game(*game),
            // The bot has its own loop (`bot::run`).
            Some(Command::Bot { .. }) => Startup::Lobby,
        }
    }

    /// The display name: `--name`, else the login name from `$USER` / `$USERNAME`, else
    /// `player`.
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .or_else(|| std::env::var("USER").ok())
            .or_else(|| std::env::var("USERNAME").ok())
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "player".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_parser_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn play_parses_rules_seat_and_level() {
        let cli = Cli::try_parse_from([
            "inarow", "play", "--rules", "connect4", "--as", "O", "--level", "easy", "--hints",
        ])
        .expect("valid command line");
        assert_eq!(
            cli.startup(),
            Startup::Play {
                rules: RulesSpec::Preset("connect4".into()),
                seat: Mark::O,
                level: Level::Easy,
                hints: true
            }
        );
        let cli = Cli::try_parse_from(["inarow", "play"]).expect("defaults");
        assert_eq!(
            cli.startup(),
            Startup::Play {
                rules: RulesSpec::Preset("tictactoe".into()),
                seat: Mark::X,
                level: Level::Perfect,
                hints: false
            }
        );
        assert!(Cli::try_parse_from(["inarow", "play", "--rules", "chess"]).is_err());
        assert!(Cli::try_parse_from(["inarow", "play", "--as", "Z"]).is_err());
    }

    #[test]
    fn other_subcommands() {
        let cli = Cli::try_parse_from([
            "inarow", "--server", "ws://h:1", "--name", "bob", "--plain", "join", "abc",
        ])
        .expect("valid");
        assert_eq!(cli.server, "ws://h:1");
        assert_eq!(cli.display_name(), "bob");
        assert!(cli.plain);
        assert_eq!(cli.startup(), Startup::Join(RoomId::from("abc")));
        let cli = Cli::try_parse_from(["inarow", "watch", "xyz"]).expect("valid");
        assert_eq!(cli.startup(), Startup::Watch(RoomId::from("xyz")));
        let cli = Cli::try_parse_from(["inarow", "rooms"]).expect("valid");
        assert_eq!(cli.startup(), Startup::Rooms);
    }

    #[test]
    fn the_commands_about_kept_games() {
        let cli = Cli::try_parse_from(["inarow", "history"]).expect("valid");
        assert_eq!(
            cli.startup(),
            Startup::History {
                name: None,
                limit: inarow_protocol::DEFAULT_HISTORY_LIMIT,
                before: None
            }
        );
        let cli =
            Cli::try_parse_from(["inarow", "history", "ann", "--limit", "5", "--before", "42"])
                .expect("valid");
        assert_eq!(
            cli.startup(),
            Startup::History {
                name: Some("ann".into()),
                limit: 5,
                before: Some(GameId(42))
            }
        );
        assert!(Cli::try_parse_from(["inarow", "history", "--limit", "0"]).is_err());
        assert!(Cli::try_parse_from(["inarow", "history", "--limit", "101"]).is_err());
        assert!(
            Cli::try_parse_from(["inarow", "history", "--all", "--before", "3"]).is_err(),
            "--all starts from the newest"
        );
        // The connection flags and --plain may also follow the subcommand.
        let cli =
            Cli::try_parse_from(["inarow", "replay", "#42", "--plain", "--server", "ws://h:1"])
                .expect("valid");
        assert!(cli.plain);
        assert_eq!(cli.server, "ws://h:1");
        assert_eq!(cli.startup(), Startup::Game(GameId(42)));
        let cli = Cli::try_parse_from(["inarow", "export", "7"]).expect("valid");
        assert_eq!(cli.startup(), Startup::Game(GameId(7)));
        assert!(Cli::try_parse_from(["inarow", "export", "seven"]).is_err());
        assert!(Cli::try_parse_from(["inarow", "replay"]).is_err());
    }
}
