//! The δ-Nash battler (seed 001, Konishi 2023): a simultaneous-move, fully observable Pokémon-like
//! battle, solved exactly by backward induction, with players from random to human-like δ-Nash.
//!
//! - [`rules`], [`engine`]: the rules as data and the mechanics on a compact state;
//! - [`lp`], [`solver`], [`cache`], [`store`]: the matrix-game LP, the full backward induction,
//!   one shared table per rule set, kept on disk in the data directory; [`reference`] is the plain memoised baseline that checks it;
//! - [`game`], [`codec`]: the referee and the JSON a seat sees and sends;
//! - [`analysis`], [`service`], [`cli`]: any position's matrix and equilibrium, by call or CLI;
//! - the bots: [`random`]; [`player`] (`nash`, `delta-nash`, `mc`, `exploiter`) built on
//!   [`personality`] (noise and bias), [`mc`] and [`exploit`]; [`repro`] regenerates the seed's
//!   tables.

pub mod analysis;
pub mod cache;
pub mod cli;
pub mod codec;
pub mod engine;
pub mod exploit;
pub mod game;
pub mod lp;
pub mod mc;
pub mod personality;
pub mod player;
pub mod random;
pub mod reference;
pub mod repro;
pub mod rules;
pub mod service;
pub mod solver;
pub mod store;

use player::{Kind, Player};
use yomi_plugin::protocol::manifest::CommandInfo;
use yomi_plugin::{
    Agent, AgentContext, BotInfo, CommandContext, ErrorCode, ErrorInfo, Game, GameInfo, Options,
    Plugin, PluginManifest,
};

/// The plugin value the host talks to.
#[derive(Default)]
pub struct BattlePlugin;

yomi_plugin::export_plugin!(BattlePlugin);

/// Every bot of the plugin.
pub fn bots() -> Vec<BotInfo> {
    let bot = |name: &str, description: &str, kind: Option<Kind>| BotInfo {
        name: name.into(),
        description: description.into(),
        games: vec!["battle".into()],
        options: kind.map(Kind::options).unwrap_or_default(),
        presets: kind.map(Kind::presets).unwrap_or_default(),
        methods: service::methods(kind == Some(Kind::Exploiter)),
    };
    vec![
        bot("random", "Uniform over the legal actions (the seed's baseline)", None),
        bot("mc", "Primitive Monte Carlo (seed 5.1): random playouts per action pair, greedy or soft-max", Some(Kind::Mc)),
        bot("nash", "Samples the exact equilibrium of every position (seed 5.2)", Some(Kind::Nash)),
        bot("delta-nash", "Human-like: averages the equilibria of n noisy, optionally biased, win-rate matrices (seed 5.3-6.2)", Some(Kind::DeltaNash)),
        bot("exploiter", "δ-Nash that models its opponent as a biased δ-Nash player and best-responds when confident (seed ch. 7)", Some(Kind::Exploiter)),
    ]
}

impl Plugin for BattlePlugin {
    fn manifest(&self) -> PluginManifest {
        PluginManifest {
            name: "battle".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "The δ-Nash battler: a simultaneous-move Pokémon-like battle solved exactly, with human-like players".into(),
            games: vec![GameInfo {
                name: "battle".into(),
                description: "Three Pokémon a side, four types, both players choose at once; no hidden information".into(),
                min_seats: 2,
                max_seats: 2,
                simultaneous: true,
                options: game::options(),
                presets: game::presets(),
            }],
            bots: bots(),
            commands: vec![
                CommandInfo::new("analyze", "`yomi battle analyze --parties thesis --active A,D [--hp 5,5,5,5,4,4] [--turn N] [--json]`: a position's win-rate matrix, Nash strategies and value"),
                CommandInfo::new("solve", "`yomi battle solve --parties thesis [--json]`: solve every position; prints states solved and wall time"),
                CommandInfo::new("repro", "`yomi repro battle [--json]`: the seed's tables 5.1-6.2 and figures 6.1-6.2, ours beside the seed's"),
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
            "random" => Ok(Box::new(random::RandomBot::new(ctx))),
            _ if Kind::parse(bot).is_some() => {
                Ok(Box::new(Player::new(Kind::parse(bot).expect("checked"), options, ctx)?))
            }
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownBot,
                format!("no bot `{bot}` in plugin battle"),
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
            "battle" => Ok(Box::new(game::Battle::new(options, seed)?)),
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownGame,
                format!("no game `{game}` in plugin battle"),
            )),
        }
    }

    fn command(&self, args: &[String], ctx: &CommandContext) -> Result<String, ErrorInfo> {
        cli::run(args, ctx.data_dir.as_deref())
    }
}
