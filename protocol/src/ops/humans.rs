//! `humanlike.run` and `fit.run`: how likely a bot finds a record set of people's decisions, and
//! the bot's options fitted to it (README, "How human-like is a bot" and "Fitting a bot to
//! records"). Both replies are the JSON `yomi humanlike --json` and `yomi fit --json` print.

use schemars::JsonSchema;
use serde::Deserialize;

/// `humanlike.run`'s parameters, as `yomi humanlike`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "HumanlikeRun")]
pub struct Humanlike {
    /// The bot: `bot[:option=value,...]` (`preset=NAME` as in `match.run`).
    pub bot: String,
    /// A record set of the server's data directory, by name (never a path).
    pub records: String,
    /// The least probability a decision counts with.
    #[serde(default = "default_floor")]
    pub floor: f64,
    /// Bootstrap resamples of the plays for the 95 % intervals.
    #[serde(default = "default_resamples")]
    #[schemars(range(min = 1, max = MAX_RESAMPLES))]
    pub resamples: usize,
    /// Seed of the agents and of the bootstrap.
    #[serde(default)]
    pub seed: u64,
}

/// `fit.run`'s parameters, as `yomi fit`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "FitRun")]
pub struct Fit {
    /// The bot: `bot[:option=value,...]`; the options it sets are the fit's starting point.
    pub bot: String,
    /// A record set of the server's data directory, by name (never a path).
    pub records: String,
    /// The options to fit (default: every bounded number, boolean and choice).
    #[serde(default)]
    pub fit: Vec<String>,
    /// The preset's name in the data directory (default: the record set's name).
    #[serde(default)]
    pub preset: Option<String>,
    /// The least probability a decision counts with.
    #[serde(default = "default_floor")]
    pub floor: f64,
    /// Most optimiser iterations per combination of discrete options.
    #[serde(default = "default_iterations")]
    pub iterations: u64,
    /// Seed of the agents.
    #[serde(default)]
    pub seed: u64,
}

/// The floor of `yomi humanlike` and `yomi fit`.
pub const DEFAULT_FLOOR: f64 = 1e-6;
/// The resamples of `yomi humanlike`.
pub const DEFAULT_RESAMPLES: usize = 1000;
/// Most bootstrap resamples a report may ask for: each resamples every play of every summary,
/// and a 95 % interval is steady long before this.
pub const MAX_RESAMPLES: usize = 10_000;
/// The iterations of `yomi fit`.
pub const DEFAULT_ITERATIONS: u64 = 100;

fn default_floor() -> f64 {
    DEFAULT_FLOOR
}

fn default_resamples() -> usize {
    DEFAULT_RESAMPLES
}

fn default_iterations() -> u64 {
    DEFAULT_ITERATIONS
}
