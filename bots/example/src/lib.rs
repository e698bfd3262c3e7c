//! Rock-paper-scissors for yomi: the template a new bot author copies.
//!
//! Three parts, as in every yomi plugin:
//! - [`game`]: the rules (the referee) — observations, legal actions, resolution, outcome;
//! - [`bot`]: the `rps` bot with a personality (a favourite hand, how hard it reads you);
//! - this file: the manifest (what the plugin offers) and the one-line export.

pub mod bot;
pub mod game;

use serde_json::json;
use yomi_plugin::protocol::manifest::CommandInfo;
use yomi_plugin::{
    Agent, AgentContext, BotInfo, CommandContext, ErrorCode, ErrorInfo, Game, GameInfo, OptionSpec,
    Options, Plugin, PluginManifest, Preset,
};

/// The plugin value the host talks to.
#[derive(Default)]
pub struct ExamplePlugin;

yomi_plugin::export_plugin!(ExamplePlugin);

/// The `rps` game's options.
pub fn game_options() -> Vec<OptionSpec> {
    vec![OptionSpec::int(
        "rounds",
        3,
        Some(1),
        Some(1000),
        "throws per game; the higher total wins",
    )]
}

/// The `rps` bot's options: its personality.
pub fn bot_options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::choice(
            "favourite",
            "rock",
            &["rock", "paper", "scissors"],
            "the hand it falls back on",
        ),
        OptionSpec::float(
            "bias",
            0.0,
            Some(0.0),
            Some(1.0),
            "probability of throwing the favourite regardless",
        ),
        OptionSpec::int(
            "reading",
            0,
            Some(0),
            Some(2),
            "0: ignores you; 1: beats your last hand; 2: expects you to read it and beats that",
        ),
    ]
}

impl Plugin for ExamplePlugin {
    fn manifest(&self) -> PluginManifest {
        PluginManifest {
            name: "example".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Rock-paper-scissors, the template plugin".into(),
            games: vec![GameInfo {
                name: "rps".into(),
                description: "Rock-paper-scissors over a number of throws, both hands at once"
                    .into(),
                min_seats: 2,
                max_seats: 2,
                simultaneous: true,
                options: game_options(),
                presets: vec![],
            }],
            bots: vec![BotInfo {
                name: "rps".into(),
                description:
                    "A rock-paper-scissors player with a favourite hand and a reading level".into(),
                games: vec!["rps".into()],
                options: bot_options(),
                presets: vec![
                    Preset::new("uniform", "plays uniformly at random", json!({})),
                    Preset::new(
                        "rock-lover",
                        "throws rock four times in five",
                        json!({"bias": 0.8}),
                    ),
                    Preset::new("reader", "always beats your last hand", json!({"reading": 1})),
                ],
                methods: vec![],
            }],
            commands: vec![CommandInfo::new(
                "beats",
                "`yomi example beats HAND` prints the hand that beats HAND",
            )],
        }
    }

    fn new_agent(
        &self,
        bot: &str,
        options: &Options,
        ctx: &AgentContext,
    ) -> Result<Box<dyn Agent>, ErrorInfo> {
        match bot {
            "rps" => Ok(Box::new(bot::RpsBot::new(options, ctx.seed)?)),
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownBot,
                format!("no bot `{bot}` in plugin example"),
            )),
        }
    }

    fn new_game(
        &self,
        game: &str,
        options: &Options,
        _seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo> {
        match game {
            "rps" => Ok(Box::new(game::Rps::new(options)?)),
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownGame,
                format!("no game `{game}` in plugin example"),
            )),
        }
    }

    fn command(&self, args: &[String], _ctx: &CommandContext) -> Result<String, ErrorInfo> {
        match args {
            [cmd, hand] if cmd == "beats" => {
                let hand = game::Hand::parse(hand)?;
                Ok(format!("{}\n", hand.beaten_by().name()))
            }
            _ => Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                "usage: yomi example beats rock|paper|scissors",
            )),
        }
    }
}
