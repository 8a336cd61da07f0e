//! The `inarow` binary: parses the command line and runs the client.

use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> anyhow::Result<ExitCode> {
    let cli = inarow::cli::Cli::parse();
    match inarow::run(cli).await? {
        None => Ok(ExitCode::SUCCESS),
        Some(message) => {
            eprintln!("inarow: {message}");
            Ok(ExitCode::FAILURE)
        }
    }
}
