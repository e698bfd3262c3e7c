//! Seven-card stud as seed 004 (Takahashi 2004) plays it, and its fuzzy bluffing player.
//!
//! - [`cards`], [`hand`]: cards, deals, deal files; the evaluator, tie rules and scores;
//! - [`engine`]: one game's betting rules; [`game`]: the referee (a session with chips);
//! - [`view`]: how bots read observations; [`baseline`]: the `random` and `calling-station` bots;
//! - [`cli`]: `yomi stud eval | compare | deals | repro`.

pub mod baseline;
pub mod cards;
pub mod cli;
pub mod engine;
pub mod game;
pub mod hand;
pub mod view;

use serde_json::json;
use yomi_plugin::protocol::manifest::CommandInfo;
use yomi_plugin::{
    Agent, AgentContext, BotInfo, CommandContext, ErrorCode, ErrorInfo, Game, GameInfo, OptionSpec, Options, Plugin, PluginManifest, Preset,
};

use crate::hand::TieRule;

/// The plugin value the host talks to.
#[derive(Default)]
pub struct StudPlugin;

yomi_plugin::export_plugin!(StudPlugin);

/// The `stud` game's options.
pub fn game_options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::int("games", 1, Some(1), Some(1_000_000), "games in the session"),
        OptionSpec::int("first_seat", 0, Some(0), Some(1), "the seat that acts first in every interval of every game"),
        OptionSpec::int("start_chips", game::START_CHIPS, Some(1), None, "chips each seat starts with"),
        OptionSpec::choice("mode", "simulation", &["simulation", "play"], "simulation: holdings may go negative; play: the session ends after a game that leaves a seat below zero"),
        OptionSpec::string("deals", "", "path of a deal file (one deal per line: 7 cards of the first actor | 7 of the second); empty: seeded deals"),
        OptionSpec::choice("tie_rule", "hand-cards-only", &TieRule::NAMES, "how equal categories are compared"),
        OptionSpec::bool("wheel", true, "A-2-3-4-5 is a five-high straight"),
        OptionSpec::bool("disclose", false, "show both hands after a game ended by a drop (the seed's simulated system learned from the true deal)"),
    ]
}

impl Plugin for StudPlugin {
    fn manifest(&self) -> PluginManifest {
        PluginManifest {
            name: "stud".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Seven-card stud, heads-up, pot limit, as seed 004 plays it; a fuzzy bluffing player and its model opponents".into(),
            games: vec![GameInfo {
                name: "stud".into(),
                description: "Heads-up seven-card stud: ante 5, pot-limit, one raise per interval, two simultaneous reveals, fixed first actor".into(),
                min_seats: 2,
                max_seats: 2,
                simultaneous: true,
                options: game_options(),
                presets: vec![
                    Preset::new("seed-simulation", "the seed's chapter-4 sessions: 500 games, no game over", json!({"games": 500})),
                    Preset::new("seed-human", "the seed's chapter-5 sessions: 100 games, bankruptcy ends the session", json!({"games": 100, "mode": "play"})),
                ],
            }],
            bots: vec![
                BotInfo { name: "random".into(), description: "uniform over the legal kinds of action; amounts skewed toward the minimum".into(), games: vec!["stud".into()], options: vec![], presets: vec![], methods: vec![] },
                BotInfo { name: "calling-station".into(), description: "never drops; opens and calls the minimum".into(), games: vec!["stud".into()], options: vec![], presets: vec![], methods: vec![] },
            ],
            commands: vec![
                CommandInfo::new("eval", "`yomi stud eval [--json] C1 .. C7`: category, score 0-9 and ranks of the best hand"),
                CommandInfo::new("compare", "`yomi stud compare [--tie-rule R] [--json] \"<cards>\" \"<cards>\"`: winner 1, 2 or 0"),
                CommandInfo::new("deals", "`yomi stud deals --seed S --count N`: a deal file of seeded deals"),
            ],
        }
    }

    fn new_agent(&self, bot: &str, _options: &Options, ctx: &AgentContext) -> Result<Box<dyn Agent>, ErrorInfo> {
        match bot {
            "random" => Ok(Box::new(baseline::Baseline::new(baseline::Kind::Random, ctx.seed))),
            "calling-station" => Ok(Box::new(baseline::Baseline::new(baseline::Kind::CallingStation, ctx.seed))),
            _ => Err(ErrorInfo::new(ErrorCode::UnknownBot, format!("no bot `{bot}` in plugin stud"))),
        }
    }

    fn new_game(&self, game: &str, options: &Options, seed: u64) -> Result<Box<dyn Game>, ErrorInfo> {
        match game {
            "stud" => Ok(Box::new(game::Session::from_options(options, seed)?)),
            _ => Err(ErrorInfo::new(ErrorCode::UnknownGame, format!("no game `{game}` in plugin stud"))),
        }
    }

    fn command(&self, args: &[String], ctx: &CommandContext) -> Result<String, ErrorInfo> {
        cli::run(args, ctx)
    }
}
