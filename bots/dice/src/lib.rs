//! Natural dice for yomi (paper 000, Nomura, Temsiririkkul & Ikeda): die sequences that carry the
//! biases people expect of "random" dice, so that they look random to players, while each face
//! stays equally likely in the long run.
//!
//! - [`features`], [`ranges`], [`tracker`], [`search`]: the paper's features, Err, and generation;
//! - [`stream`]: endless natural streams; [`control`] and [`board`]: trap control (approach 3);
//! - [`profile`]: per-player ranges in SQLite (approach 4);
//! - [`service`]: the `dice` bot; [`game`] and [`walker`]: the `sugoroku` game and its player,
//!   on the game's [`payload`] types;
//! - [`cli`] and [`repro`]: `yomi dice ...` and `yomi repro dice`.

pub mod board;
pub mod cli;
pub mod control;
pub mod features;
pub mod game;
pub mod humans;
pub mod openings;
pub mod payload;
pub mod profile;
pub mod ranges;
pub mod repro;
pub mod request;
pub mod search;
pub mod service;
pub mod stream;
pub mod tracker;
pub mod walker;

use yomi_plugin::declare::{BotEntry, Declaration, GameEntry};
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::typed::{self, Typed};
use yomi_plugin::{OptionSpec, Preset};

/// Largest die the service rolls (a sanity limit: faces are bytes, counts are per face).
pub const MAX_SIDES: u8 = 100;

/// Most faces one `rolls` or `sequence` request of a client may ask for (the CLI may write up to
/// [`service::MAX_FACES`]): 10,000 faces take about 15 ms and a reply of 30 kB.
pub const MAX_REQUEST_FACES: i64 = 10_000;

/// The plugin value the host talks to.
#[derive(Default)]
pub struct DicePlugin;

yomi_plugin::declare_plugin!(DicePlugin, declaration);

/// Everything the plugin offers.
fn declaration() -> Declaration {
    Declaration::new("dice", env!("CARGO_PKG_VERSION"), "Natural dice: sequences that look random to players, trap control in sugoroku, player profiles")
        .view(include_str!("../web/view.js"))
        .game(
            typed::declared::<payload::Observation>(GameEntry::new("sugoroku", "Race over a board with forks and traps, several runs per seat, plain/natural/controlled dice", 1..=4, game::Sugoroku::new)
                .options(game::options())
                .presets(vec![
                    Preset::one("plain", "ordinary PRNG dice", "dice", "plain"),
                    Preset::one("natural", "natural dice without trap control", "dice", "natural"),
                ])),
        )
        .bot(
            BotEntry::service("dice", "The natural dice service: endless natural streams, sequences, scores, trap control, profiles", |options, ctx| {
                service::DiceBot::new(options, ctx.seed, ctx.data_dir.clone())
            })
            .options(service::options())
            .presets(vec![
                Preset::one("plain", "an ordinary seeded PRNG, for comparison", "mode", "plain"),
                Preset::one("seed", "the paper's local search only", "method", "local"),
                Preset::one("gentle", "half the way from plain to natural", "strength", 0.5),
            ])
            .methods(vec![
                MethodInfo::new("roll", "{player?, key?, board?, position?} -> {face} (with a board: {face, trap, p, verdict, window})")
                    .params(vec![OptionSpec::int("position", 0, Some(0), Some(board::MAX_SQUARES as i64 - 1), "the player's square on the board")]),
                MethodInfo::new("rolls", "{n, player?, key?} -> {faces}: the next n faces of the player's stream")
                    .params(vec![OptionSpec::int("n", 1, Some(1), Some(MAX_REQUEST_FACES), "faces to roll")]),
                MethodInfo::new("sequence", "{length?, seed?} -> {faces, err, steps}: one natural block")
                    .params(vec![OptionSpec::int("length", 50, Some(1), Some(MAX_REQUEST_FACES), "faces in the block")]),
                MethodInfo::new("score", "{faces} -> {features: {F1..F15}, err}"),
                MethodInfo::new("profile", "{player, sequence?, key?} -> {player, saved, persistent, ranges, key?}: learn or show a player's ranges; saving a new profile returns the key that reaches it"),
            ]),
        )
        .bot(
            BotEntry::new("walker", "A simulated sugoroku player that avoids traps it can", |options, _ctx| Ok(Typed(walker::Walker::new(options)?)))
                .games(&["sugoroku"])
                .options(walker::options())
                .presets(vec![Preset::one("short", "takes the route nearest the goal", "route", "short")]),
        )
        .cli(cli::run)
}
