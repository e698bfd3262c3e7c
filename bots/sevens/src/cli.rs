//! The plugin's subcommands: `repro` (the reproduction rows, JSON or markdown) and `d` (D values of
//! cards on a given table).

use std::collections::BTreeMap;

use clap::{Parser, Subcommand};
use serde::Serialize;
use yomi_plugin::typed::to_json;
use yomi_plugin::{CommandContext, ErrorCode, ErrorInfo};

use crate::card::CardSet;
use crate::dvalue;
use crate::repro;
use crate::table::Table;

/// `yomi sevens ...`.
#[derive(Parser, Debug)]
#[command(
    name = "yomi sevens",
    about = "Sevens (7並べ) after Konuma and Endo (Tokyo Polytechnic University)"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The paper's experiments and ours: rows as a markdown table, or JSON with --json.
    Repro {
        #[command(flatten)]
        output: yomi_plugin::repro::Output,
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

/// What `d` prints: each card's D value (null for a card on the table), the cards' total, the
/// board's total and the cards playable now.
#[derive(Serialize)]
struct DValues {
    cards: BTreeMap<String, Option<u32>>,
    total: u32,
    board_total: u32,
    playable: Vec<String>,
}

/// Runs one `yomi sevens` command.
pub fn run(cli: Cli, _ctx: &CommandContext) -> Result<String, ErrorInfo> {
    match cli.command {
        Command::Repro { output, games, seed } => {
            let run = || {
                if games == 0 {
                    return Err(ErrorInfo::new(
                        ErrorCode::InvalidParams,
                        "--games must be at least 1",
                    ));
                }
                repro::rows(games, seed, &mut |msg| eprintln!("{msg}"))
            };
            output.print(run, yomi_plugin::repro::markdown)
        }
        Command::D { cards, table } => {
            let mut on_table = Table::default();
            on_table.place(CardSet::parse_list(
                table.split(',').map(str::trim).filter(|s| !s.is_empty()),
            )?);
            let hand = CardSet::parse_list(cards.iter().map(String::as_str))?;
            let out = DValues {
                cards: hand.iter().map(|c| (c.to_string(), dvalue::card_d(on_table, c))).collect(),
                total: dvalue::total(on_table, hand),
                board_total: dvalue::board_total(on_table),
                playable: on_table.playable().names(),
            };
            Ok(serde_json::to_string_pretty(&to_json(&out)).unwrap_or_default() + "\n")
        }
    }
}
