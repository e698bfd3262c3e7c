//! The `yomi stud ...` commands: hand evaluation and comparison for scripts, deal files, and the
//! reproduction.

use clap::{Parser, Subcommand};
use serde_json::json;
use yomi_plugin::{CommandContext, ErrorCode, ErrorInfo};

use crate::cards::{parse_cards, DealSet};
use crate::hand::{evaluate, winner, EvalRules, TieRule};

/// `yomi stud ...`.
#[derive(Parser)]
#[command(
    name = "yomi stud",
    about = "seven-card stud as Takahashi (University of Tsukuba, 2004) plays it"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluates the best hand of 1 to 7 cards.
    Eval {
        #[arg(long)]
        json: bool,
        /// Count A-2-3-4-5 as no straight.
        #[arg(long)]
        no_wheel: bool,
        #[arg(required = true, num_args = 1..=7)]
        cards: Vec<String>,
    },
    /// Compares two hands (each one quoted argument of cards): winner 1, 2, or 0 for a draw.
    Compare {
        #[arg(long, default_value = "hand-cards-only")]
        tie_rule: String,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        no_wheel: bool,
        first: String,
        second: String,
    },
    /// The paper's chapter-4 experiment (Tables 4.1-4.4, §4.3.3), classifier confusion matrix,
    /// adaptive bluffing (slow: minutes on two threads).
    Repro {
        #[command(flatten)]
        output: yomi_plugin::repro::Output,
        /// Deal sets: the one closest to Table 4.1, then the next closest.
        #[arg(long, default_value_t = 6)]
        sets: usize,
        #[arg(long, default_value_t = 500)]
        games: usize,
        #[arg(long, default_value_t = 2004)]
        seed: u64,
        /// Scale both players' fuzzy drop intention (a sensitivity check; 1 = the reproduction).
        #[arg(long, default_value_t = 1.0)]
        drop_scale: f64,
        /// A reading of the paper for both players, as a player option change `key=value`
        /// (repeatable), e.g. `--reading loose_late=table --reading potential_margin=1.5`.
        #[arg(long = "reading", value_name = "KEY=VALUE")]
        readings: Vec<String>,
    },
    /// Prints a deal file of seeded deals.
    Deals {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 500)]
        count: usize,
    },
}

fn hand(text: &str, rules: EvalRules) -> Result<crate::hand::HandValue, ErrorInfo> {
    let cards = parse_cards(text)?;
    if cards.is_empty() || cards.len() > 7 {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("a hand has 1 to 7 cards, not {}", cards.len()),
        ));
    }
    Ok(evaluate(&cards, rules))
}

/// Runs one `yomi stud` command.
pub fn run(cli: Cli, _ctx: &CommandContext) -> Result<String, ErrorInfo> {
    match cli.command {
        Command::Eval { json, no_wheel, cards } => {
            let v = hand(&cards.join(" "), EvalRules { wheel: !no_wheel })?;
            Ok(if json {
                format!(
                    "{}\n",
                    json!({"category": v.category.name(), "score": v.category.score(), "ranks": v.ranks()})
                )
            } else {
                format!(
                    "{} (score {}), ranks {:?}\n",
                    v.category.name(),
                    v.category.score(),
                    v.ranks()
                )
            })
        }
        Command::Compare { tie_rule, json, no_wheel, first, second } => {
            let rules = EvalRules { wheel: !no_wheel };
            let (a, b) = (hand(&first, rules)?, hand(&second, rules)?);
            let both = format!("{first} {second}");
            parse_cards(&both).map_err(|e| {
                ErrorInfo::new(e.code, format!("the two hands share a card: {}", e.message))
            })?;
            let w = winner(&a, &b, TieRule::parse(&tie_rule)?);
            Ok(if json {
                format!("{}\n", json!({"winner": w}))
            } else {
                format!("{}\n", ["draw", "first wins", "second wins"][w as usize])
            })
        }
        Command::Repro { output, sets, games, seed, drop_scale, readings } => {
            let run = || {
                if !(0.0..=1.0).contains(&drop_scale) {
                    return Err(ErrorInfo::new(
                        ErrorCode::InvalidParams,
                        "--drop-scale must be in [0, 1]",
                    ));
                }
                let mut reading = crate::repro::parse_reading(&readings)?;
                if drop_scale != 1.0 {
                    reading.insert("drop_scale".into(), json!(drop_scale));
                }
                crate::repro::rows(sets, games, seed, &reading)
            };
            output.print(run, yomi_plugin::repro::markdown)
        }
        Command::Deals { seed, count } => Ok(DealSet::seeded(seed, count).to_text()),
    }
}
