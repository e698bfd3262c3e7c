//! Rock-paper-scissors for yomi: the template a new bot author copies.
//!
//! Three parts, as in every yomi plugin (see `README.md` for the crate layout):
//! - [`payload`]: the game's observation, action and event types, written by the referee and read
//!   by every bot of the game;
//! - [`game`]: the rules (the referee) — observations, legal actions, resolution, outcome;
//! - [`bot`]: the `rps` bot with a personality (a favourite hand, how hard it reads you), written
//!   against typed observations and actions;
//! - this file: the declaration (each game and bot named once, with its options and constructor),
//!   the CLI and the one-line export.
//!
//! The rlib half of the crate lets tests and benchmarks play without a host:
//!
//! ```
//! use yomi_example::ExamplePlugin;
//! use yomi_plugin::protocol::options::resolve;
//! use yomi_plugin::{referee, AgentContext, Options, Plugin};
//!
//! let manifest = ExamplePlugin.manifest();
//! let (game, bot) = (&manifest.games[0], &manifest.bots[0]);
//! let game_options = resolve(&game.options, &game.presets, None, &Options::new()).unwrap();
//! let reader = resolve(&bot.options, &bot.presets, Some("reader"), &Options::new()).unwrap();
//! let mut rules = ExamplePlugin.new_game("rps", &game_options, 1).unwrap();
//! let mut a = ExamplePlugin.new_agent("rps", &reader, &AgentContext::default()).unwrap();
//! let mut b = ExamplePlugin
//!     .new_agent("rps", &reader, &AgentContext { seed: 2, ..AgentContext::default() })
//!     .unwrap();
//! let played = referee::play(rules.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
//! assert_eq!(played.steps.len(), 3, "three throws by default");
//! assert_eq!(played.outcome.scores.iter().sum::<f64>(), 1.0);
//! ```

pub mod bot;
pub mod game;
pub mod payload;

use clap::{Parser, Subcommand};
use yomi_plugin::declare::{BotEntry, Declaration, GameEntry};
use yomi_plugin::typed::{self, Typed};
use yomi_plugin::{CommandContext, ErrorInfo, OptionSpec, Preset};

/// The plugin value the host talks to.
#[derive(Default)]
pub struct ExamplePlugin;

yomi_plugin::declare_plugin!(ExamplePlugin, declaration);

/// Everything the plugin offers.
fn declaration() -> Declaration {
    Declaration::new(
        "example",
        env!("CARGO_PKG_VERSION"),
        "Rock-paper-scissors, the template plugin",
    )
    // The playground's page for rps: an ES module the host serves at /plugins/example/view.js.
    .view(include_str!("../web/view.js"))
    .game(typed::declared::<payload::Observation>(
        GameEntry::new(
            "rps",
            "Rock-paper-scissors over a number of throws, both hands at once",
            2..=2,
            |options, _seed| game::Rps::new(options),
        )
        .simultaneous()
        .options(game_options()),
    ))
    .bot(
        BotEntry::new(
            "rps",
            "A rock-paper-scissors player with a favourite hand and a reading level",
            |options, ctx| Ok(Typed(bot::RpsBot::new(options, ctx.seed)?)),
        )
        .games(&["rps"])
        .options(bot_options())
        .presets(vec![
            Preset::defaults("uniform", "plays uniformly at random"),
            Preset::one("rock-lover", "throws rock four times in five", "bias", 0.8),
            Preset::one("reader", "always beats your last hand", "reading", 1),
        ]),
    )
    // Every preset's Elo and the strength curves, measured by `yomi ladder` (README, "Strength").
    .ladder(include_str!("../ladder.json"))
    .cli(run)
}

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
        yomi_plugin::think::option(),
    ]
}

/// `yomi example ...`
#[derive(Parser)]
#[command(about = "Rock-paper-scissors, the template plugin")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Prints the hand that beats HAND.
    Beats {
        /// rock, paper or scissors.
        hand: String,
    },
}

fn run(cli: Cli, _ctx: &CommandContext) -> Result<String, ErrorInfo> {
    match cli.command {
        Command::Beats { hand } => {
            Ok(format!("{}\n", payload::Hand::parse(&hand)?.beaten_by().name()))
        }
    }
}
