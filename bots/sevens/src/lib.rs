//! Sevens (7並べ) for yomi, after paper 003 (Konuma and Endo, "a Sevens playing algorithm using
//! situation judgement by the D value").
//!
//! - [`payload`]: the game's observation, action and event types, written by the referee and read
//!   by every bot (through [`view`]);
//! - [`game`]: the referee, every house-rule variable a game option ([`rules`]);
//! - [`dvalue`]: the paper's D values and advantage judgement;
//! - [`bots`]: `dvalue` (the paper's section-3 player, with a temperature), `student` (the habits of
//!   the paper's 225 students), `random`, `greedy`;
//! - [`predictor`]: how readable a player is; [`repro`]: the experiments of `yomi repro sevens`.

pub mod bots;
pub mod card;
pub mod cli;
pub mod dvalue;
pub mod game;
pub mod openings;
pub mod payload;
pub mod predictor;
pub mod repro;
pub mod rules;
pub mod table;
pub mod view;

use yomi_plugin::declare::{BotEntry, Declaration, GameEntry};
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::typed::{self, Typed};
use yomi_plugin::{ErrorCode, ErrorInfo, Options, Plugin, Preset};

/// The plugin value the host talks to.
#[derive(Default)]
pub struct SevensPlugin;

yomi_plugin::declare_plugin!(SevensPlugin, declaration);

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

/// Everything the plugin offers.
fn declaration() -> Declaration {
    Declaration::new("sevens", env!("CARGO_PKG_VERSION"), "Sevens (7並べ) with the D-value player of Konuma and Endo (Tokyo Polytechnic University), students' habits and a readability measure")
        .view(include_str!("../web/view.js"))
        .game(
            typed::declared::<payload::Observation>(GameEntry::new("sevens", "Sevens: build the suits out from the 7s one card at a time; limited passes; first to empty their hand wins", 3..=6, |options, seed| {
                openings::start(options, seed)
            })
            .options(rules::game_options())
            .presets(vec![Preset::defaults("seed", "the paper's setting: 3 players, 3 passes")])),
        )
        .bots([
            BotEntry::new("dvalue", "The paper's D-value player (section 3); temperature > 0 adds fluctuation", |options, ctx| Ok(Typed(bots::dvalue::DValueBot::new(options, ctx.seed)?)))
                .options(bots::dvalue::options())
                .presets(vec![
                    Preset::defaults("seed", "the paper's deterministic player"),
                    Preset::one("fluctuating", "the same habits, sampled at temperature 1", "temperature", 1.0),
                ])
                .methods(vec![MethodInfo::new(
                    "assess",
                    "params {observation, legal?}: D value of each hand card, hand/board D totals, ahead, phase, rule scores",
                )]),
            BotEntry::new("student", "A rule-based player built from the students' habits of the paper's table 1", |options, ctx| Ok(Typed(bots::student::StudentBot::new(options, ctx.seed)?)))
                .options(bots::student::options())
                .presets(bots::student::presets()),
            BotEntry::new("random", "A uniformly random legal card", |options, ctx| Ok(Typed(bots::baseline::RandomBot::new(options, ctx.seed)?)))
                .options(bots::baseline::random_options()),
            BotEntry::new("greedy", "The first legal card; never passes while a card is playable", |_, _| Ok(Typed(bots::baseline::GreedyBot))),
        ].map(|bot| bot.games(&["sevens"])))
        // Every preset's Elo and the strength curves, measured by `yomi ladder` (README, "Strength").
        .ladder(include_str!("../ladder.json"))
        .cli(cli::run)
}
