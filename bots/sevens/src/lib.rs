//! Sevens (7並べ) for yomi, after seed 003 (Konuma and Endo, "a Sevens playing algorithm using
//! situation judgement by the D value").
//!
//! - [`game`]: the referee, every house-rule variable a game option ([`rules`]);
//! - [`dvalue`]: the seed's D values and advantage judgement;
//! - [`bots`]: `dvalue` (the seed's section-3 player, with a temperature), `student` (the habits of
//!   the seed's 225 students), `random`, `greedy`;
//! - [`predictor`]: how readable a player is; [`repro`]: the experiments of `yomi repro sevens`.

pub mod bots;
pub mod card;
pub mod cli;
pub mod dvalue;
pub mod game;
pub mod predictor;
pub mod repro;
pub mod rules;
pub mod table;
pub mod view;

use serde_json::json;
use yomi_plugin::protocol::manifest::{CommandInfo, MethodInfo};
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::{
    Agent, AgentContext, BotInfo, CommandContext, ErrorCode, ErrorInfo, Game, GameInfo, Options,
    Plugin, PluginManifest, Preset,
};

/// The plugin value the host talks to.
#[derive(Default)]
pub struct SevensPlugin;

yomi_plugin::export_plugin!(SevensPlugin);

fn bot(
    name: &str,
    description: &str,
    options: Vec<yomi_plugin::OptionSpec>,
    presets: Vec<Preset>,
    methods: Vec<MethodInfo>,
) -> BotInfo {
    BotInfo {
        name: name.into(),
        description: description.into(),
        games: vec!["sevens".into()],
        options,
        presets,
        methods,
    }
}

impl SevensPlugin {
    /// A complete option set for `bot` from its defaults, an optional preset and overrides.
    pub fn bot_options(
        &self,
        bot: &str,
        preset: Option<&str>,
        overrides: &Options,
    ) -> Result<Options, ErrorInfo> {
        let manifest = self.manifest();
        let info = manifest.bots.iter().find(|b| b.name == bot).ok_or_else(|| {
            ErrorInfo::new(ErrorCode::UnknownBot, format!("no bot `{bot}` in plugin sevens"))
        })?;
        resolve(&info.options, &info.presets, preset, overrides)
            .map_err(|e| ErrorInfo::new(ErrorCode::InvalidOption, e.to_string()))
    }

    /// A complete game option set from overrides.
    pub fn game_options(&self, overrides: &Options) -> Result<Options, ErrorInfo> {
        resolve(&rules::game_options(), &[], None, overrides)
            .map_err(|e| ErrorInfo::new(ErrorCode::InvalidOption, e.to_string()))
    }
}

impl Plugin for SevensPlugin {
    fn manifest(&self) -> PluginManifest {
        PluginManifest {
            name: "sevens".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Sevens (7並べ) with the D-value player of seed 003, students' habits and a readability measure".into(),
            games: vec![GameInfo {
                name: "sevens".into(),
                description: "Sevens: build the suits out from the 7s one card at a time; limited passes; first to empty their hand wins".into(),
                min_seats: 3,
                max_seats: 6,
                simultaneous: false,
                options: rules::game_options(),
                presets: vec![Preset::new("seed", "the seed's setting: 3 players, 3 passes", json!({}))],
            }],
            bots: vec![
                bot(
                    "dvalue",
                    "The seed's D-value player (section 3); temperature > 0 adds fluctuation",
                    bots::dvalue::options(),
                    vec![
                        Preset::new("seed", "the seed's deterministic player", json!({})),
                        Preset::new("fluctuating", "the same habits, sampled at temperature 1", json!({"temperature": 1.0})),
                    ],
                    vec![MethodInfo::new(
                        "assess",
                        "params {observation, legal?}: D value of each hand card, hand/board D totals, ahead, phase, rule scores",
                    )],
                ),
                bot("student", "A rule-based player built from the students' habits of seed table 1", bots::student::options(), bots::student::presets(), vec![]),
                bot("random", "A uniformly random legal card", bots::baseline::random_options(), vec![], vec![]),
                bot("greedy", "The first legal card; never passes while a card is playable", vec![], vec![], vec![]),
            ],
            commands: vec![
                CommandInfo::new("repro", "`yomi repro sevens [--json] [--games N] [--seed S]`: the seed's experiments and ours"),
                CommandInfo::new("d", "`yomi sevens d 6S KS --table 8S,9S`: D values of cards on a table (7s always on it)"),
            ],
        }
    }

    fn new_agent(
        &self,
        bot: &str,
        options: &Options,
        ctx: &AgentContext,
    ) -> Result<Box<dyn Agent>, ErrorInfo> {
        match bot {
            "dvalue" => Ok(Box::new(bots::dvalue::DValueBot::new(options, ctx.seed)?)),
            "student" => Ok(Box::new(bots::student::StudentBot::new(options)?)),
            "random" => Ok(Box::new(bots::baseline::RandomBot::new(options, ctx.seed)?)),
            "greedy" => Ok(Box::new(bots::baseline::GreedyBot)),
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownBot,
                format!("no bot `{bot}` in plugin sevens (dvalue, student, random, greedy)"),
            )),
        }
    }

    fn new_game(
        &self,
        game: &str,
        options: &Options,
        seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo> {
        match game {
            "sevens" => Ok(Box::new(game::Sevens::new(rules::Rules::from_options(options)?, seed))),
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownGame,
                format!("no game `{game}` in plugin sevens"),
            )),
        }
    }

    fn command(&self, args: &[String], _ctx: &CommandContext) -> Result<String, ErrorInfo> {
        cli::run(self, args)
    }
}
