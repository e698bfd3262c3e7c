//! The plugin's subcommands: `repro` (the reproduction rows, JSON or markdown) and `d` (D values of
//! cards on a given table).

use clap::{Parser, Subcommand};
use serde_json::json;
use yomi_plugin::repro::markdown;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::card::CardSet;
use crate::dvalue;
use crate::repro;
use crate::table::Table;
use crate::SevensPlugin;

#[derive(Parser, Debug)]
#[command(name = "yomi sevens", about = "Sevens (7並べ) after seed 003")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The seed's experiments and ours: rows as a markdown table, or JSON with --json.
    Repro {
        #[arg(long)]
        json: bool,
        /// Games per series (each of 31 series).
        #[arg(long, default_value_t = 1500)]
        games: u64,
        #[arg(long, default_value_t = 3)]
        seed: u64,
    },
    /// D values of cards (not on the table) given the cards on the table; the 7s are always on it.
    D {
        /// Cards, e.g. 6S KS 10H.
        cards: Vec<String>,
        /// Cards on the table besides the 7s, comma-separated, e.g. 8S,9S,6S.
        #[arg(long, default_value = "")]
        table: String,
    },
}

pub fn run(_plugin: &SevensPlugin, args: &[String]) -> Result<String, ErrorInfo> {
    let argv = std::iter::once("yomi sevens".to_string()).chain(args.iter().cloned());
    let cli = Cli::try_parse_from(argv)
        .map_err(|e| ErrorInfo::new(ErrorCode::InvalidParams, e.to_string()))?;
    match cli.command {
        Command::Repro { json, games, seed } => {
            if games == 0 {
                return Err(ErrorInfo::new(ErrorCode::InvalidParams, "--games must be at least 1"));
            }
            let rows = repro::rows(games, seed, &mut |msg| eprintln!("{msg}"))?;
            Ok(if json {
                serde_json::to_string_pretty(&rows)
                    .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?
                    + "\n"
            } else {
                markdown(&rows)
            })
        }
        Command::D { cards, table } => {
            let mut on_table = Table::default();
            on_table.place(CardSet::parse_list(
                table.split(',').map(str::trim).filter(|s| !s.is_empty()),
            )?);
            let hand = CardSet::parse_list(cards.iter().map(String::as_str))?;
            let per_card: serde_json::Map<String, serde_json::Value> =
                hand.iter().map(|c| (c.to_string(), json!(dvalue::card_d(on_table, c)))).collect();
            let out = json!({
                "cards": per_card,
                "total": dvalue::total(on_table, hand),
                "board_total": dvalue::board_total(on_table),
                "playable": on_table.playable().names(),
            });
            Ok(serde_json::to_string_pretty(&out).unwrap_or_default() + "\n")
        }
    }
}
