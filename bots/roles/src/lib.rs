//! Werewolf role assignment for yomi (paper 002): fair but unpredictable dealing for a group that
//! plays again and again.
//!
//! An assignment's energy counts, over players, how often each already had the role it gives
//! them; assignments are drawn from the Boltzmann distribution `exp(-beta * E) / Z`, so roles a
//! player has not had become likelier without becoming certain.
//!
//! - [`model`]: roles, history counts, energy; all input checks.
//! - Samplers: [`enumerate`] (the paper's reference), [`mh`] (the paper's Metropolis–Hastings),
//!   [`exact`] (dynamic programming over remaining role counts: exact at any size); [`sampler`]
//!   picks one by name.
//! - [`analysis`]: per-player probabilities, guessability, P(someone never gets a role in k games);
//!   [`convergence`] and [`stats`] measure how close the samplers come to the exact answer.
//! - [`store`]: groups and their history in SQLite; [`service`]: the `agent.call` methods;
//!   [`request`]: its parameters and replies as types; [`settings`]: the bot's options; [`cli`] and [`render`]: `yomi roles ...`;
//!   [`repro`]: `yomi repro roles`; [`examples`]: the paper's worked games.

pub mod analysis;
pub mod cli;
pub mod convergence;
pub mod enumerate;
pub mod exact;
pub mod examples;
pub mod mh;
pub mod model;
pub mod render;
pub mod repro;
pub mod request;
pub mod sampler;
pub mod service;
pub mod settings;
pub mod stats;
pub mod store;

use serde_json::Value;
use yomi_plugin::declare::{BotEntry, Declaration};
use yomi_plugin::{AgentContext, ErrorInfo, Options, Preset};

use crate::settings::Settings;
use crate::store::Store;

/// The plugin value the host talks to.
#[derive(Default)]
pub struct RolesPlugin;

yomi_plugin::declare_plugin!(RolesPlugin, declaration);

/// The `roles` bot: a service over one data directory.
pub struct RolesBot {
    service: service::Service,
}

impl RolesBot {
    pub fn new(options: &Options, ctx: &AgentContext) -> Result<RolesBot, ErrorInfo> {
        let store = Store::open(ctx.data_dir.as_deref())?;
        Ok(RolesBot {
            service: service::Service::new(
                store,
                Settings::from_options(options)?,
                ctx.seed,
                service::Access::Keyed,
            ),
        })
    }
}

impl yomi_plugin::Service for RolesBot {
    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.service.settings = Settings::from_options(options)?;
        Ok(())
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        self.service.call(method, params)
    }
}

/// Everything the plugin offers.
fn declaration() -> Declaration {
    Declaration::new("roles", env!("CARGO_PKG_VERSION"), "Werewolf role assignment: random, but leaning towards roles a player has not had (the role-assignment blog post)")
        .view(include_str!("../web/view.js"))
        .bot(
            BotEntry::service("roles", "Deals werewolf roles for persistent groups from a Boltzmann distribution over assignments", RolesBot::new)
                .options(settings::option_specs())
                .presets(vec![
                    Preset::one("uniform", "plain random dealing (beta = 0)", "beta", 0.0),
                    Preset::one("gentle", "a light lean towards unplayed roles (beta = 0.5)", "beta", 0.5),
                    Preset::one("firm", "a strong lean towards unplayed roles (beta = 2)", "beta", 2.0),
                ])
                .methods(service::methods()),
        )
        .cli(cli::run)
}
