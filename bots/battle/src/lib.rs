//! The δ-Nash battler (paper 001, Konishi 2023): a simultaneous-move, fully observable Pokémon-like
//! battle, solved exactly by backward induction, with players from random to human-like δ-Nash.
//!
//! - [`rules`], [`engine`]: the rules as data and the mechanics on a compact state;
//! - [`lp`], [`solver`], [`cache`], [`store`]: the matrix-game LP, the full backward induction,
//!   one shared table per rule set, kept on disk in the data directory; [`reference`] is the plain memoised baseline that checks it;
//!   inside [`solver`], `block` solves one HP vector's nine positions and `changes` names the ones
//!   a layer must solve again (the rest equal the next turn's);
//! - [`game`], [`payload`], [`codec`]: the referee, the typed observation, action and event a seat
//!   sees and sends, and their conversion to the engine's compact state and actions;
//! - [`analysis`], [`service`], [`cli`]: any position's matrix and equilibrium, by call or CLI;
//!   [`first_move`] times the first decision after new parties; [`usage`] reads the process's
//!   CPU time and peak memory for both;
//! - the bots: [`random`]; [`player`] (`nash`, `delta-nash`, `mc`, `exploiter`) built on
//!   [`personality`] (noise and bias), [`expectation`] (δ-Nash's policy, estimated over the
//!   noise) and [`memo`] (those estimates, kept with their table), [`mc`] and [`exploit`];
//!   [`repro`] regenerates the paper's tables.

pub mod analysis;
pub mod cache;
pub mod cli;
pub mod codec;
pub mod engine;
pub mod expectation;
pub mod explain;
pub mod exploit;
pub mod first_move;
pub mod game;
pub mod lp;
pub mod mc;
pub mod memo;
pub mod openings;
pub mod payload;
pub mod personality;
pub mod player;
pub mod random;
pub mod reference;
pub mod repro;
pub mod rules;
pub mod service;
pub mod solver;
pub mod store;
pub mod usage;

use player::{Kind, Player};
use yomi_plugin::declare::{BotEntry, Declaration, GameEntry};
use yomi_plugin::typed::{self, Typed};

/// The plugin value the host talks to.
#[derive(Default)]
pub struct BattlePlugin;

yomi_plugin::declare_plugin!(BattlePlugin, declaration);

/// A player bot of one kind, with that kind's personality options and presets.
fn player(kind: Kind, name: &str, description: &str) -> BotEntry {
    BotEntry::new(name, description, move |options, ctx| {
        Ok(Typed(Player::new(kind, options, ctx)?))
    })
    .games(&["battle"])
    .options(kind.options())
    .presets(kind.presets())
    .methods(service::methods(kind == Kind::Exploiter))
}

/// Everything the plugin offers.
fn declaration() -> Declaration {
    Declaration::new("battle", env!("CARGO_PKG_VERSION"), "The δ-Nash battler: a simultaneous-move Pokémon-like battle solved exactly, with human-like players")
        .view(include_str!("../web/view.js"))
        .game(
            typed::declared::<payload::Observation>(GameEntry::new("battle", "Three Pokémon a side, four types, both players choose at once; no hidden information", 2..=2, game::Battle::new))
                .simultaneous()
                .options(game::options())
                .presets(game::presets()),
        )
        .bot(
            BotEntry::new("random", "Uniform over the legal actions (the paper's baseline)", |_, ctx| Ok(Typed(random::RandomBot::new(ctx))))
                .games(&["battle"])
                .methods(service::methods(false)),
        )
        .bots([
            player(Kind::Mc, "mc", "Primitive Monte Carlo (paper §5.1): random playouts per action pair, greedy or soft-max"),
            player(Kind::Nash, "nash", "Samples the exact equilibrium of every position (paper §5.2)"),
            player(Kind::DeltaNash, "delta-nash", "Human-like: averages the equilibria of n noisy, optionally biased, win-rate matrices (paper §5.3-6.2)"),
            player(Kind::Exploiter, "exploiter", "δ-Nash that models its opponent as a biased δ-Nash player and best-responds when confident (the paper, ch. 7)"),
        ])
        // Every preset's Elo and the strength curves, measured by `yomi ladder` (README, "Strength").
        .ladder(include_str!("../ladder.json"))
        .cli(cli::run)
}
