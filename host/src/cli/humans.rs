//! `yomi records import NAME FILE`: human records into the data directory (README, "Human
//! records").

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::cli::common::Common;
use crate::humans::store;

#[derive(Debug, Args)]
pub struct RecordsArgs {
    #[command(subcommand)]
    pub command: RecordsCommand,
}

#[derive(Debug, Subcommand)]
pub enum RecordsCommand {
    /// Check every line of FILE (a yomi transcript, or JSON lines of decisions) and add them to
    /// record set NAME in the data directory; a bad line is named and nothing is added.
    Import {
        /// The set's name: letters, digits, `-` and `_`.
        name: String,
        /// The file to read.
        file: PathBuf,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

pub fn records(common: &Common, args: RecordsArgs) -> anyhow::Result<ExitCode> {
    let RecordsCommand::Import { name, file, json } = args.command;
    let fail = |e: yomi_protocol::ErrorInfo| anyhow::anyhow!("{}: {}", file.display(), e.message);
    store::check_name(&name).map_err(|e| anyhow::anyhow!(e.message))?;
    let text =
        std::fs::read_to_string(&file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let registry = common.registry()?;
    let records = store::read(&text, |game| registry.resolve_game(game).is_ok()).map_err(fail)?;
    let done = store::import(&common.data_dir(), &name, records).map_err(fail)?;
    if json {
        outln!("{}", serde_json::to_value(&done)?)?;
    } else {
        outln!(
            "{} decisions in {} plays of {} added to `{}` ({} decisions in all)",
            done.decisions,
            done.plays,
            done.game,
            done.records,
            done.total
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
