//! The plugin's subcommands: `repro` (the reproduction rows, JSON or markdown) and `d` (D values of
//! cards on a given table).

use clap::{Parser, Subcommand};
use serde_json::json;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::card::CardSet;
use crate::dvalue;
use crate::repro;
use crate::table::Table;

#[derive(Parser, Debug)]
#[command(
    name = "yomi sevens",
    about = "Sevens (7並べ) after Konuma and Endo (Tokyo Polytechnic University)"
)]
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

/// Runs `yomi sevens <args>`.
pub fn run(args: &[String]) -> Result<String, ErrorInfo> {
    yomi_plugin::cli::run("sevens", args, |cli: Cli| match cli.command {
        Command::Repro { json, games, seed } => {
            if games == 0 {
                return Err(ErrorInfo::new(ErrorCode::InvalidParams, "--games must be at least 1"));
            }
            let rows = repro::rows(games, seed, &mut |msg| eprintln!("{msg}"))?;
            Ok(yomi_plugin::repro::output(&rows, json))
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
    })
}
