//! A decision's suggested think time (`think_ms`): how long a person would take over it, so a
//! game can pace a bot like a human (lichess-bot's `fake_think_time`, KataGo's human profiles
//! with `delayMoveScale`). The bot only suggests; the client decides whether to wait, and the
//! server never sleeps on it.
//!
//! The model is the Hick–Hyman law — choice reaction time grows linearly with the information
//! in the choice — with a term for the stage of the game and a person's spread from decision to
//! decision (a log-normal factor, as human response times are right-skewed):
//!
//! ```text
//! think_ms = scale × (base + per_choice × log2(choices) + per_doubt × doubt + per_stage × stage)
//!                  × exp(σ·z − σ²/2),   z ~ N(0, 1) from the agent's own think stream
//! ```
//!
//! `doubt` is the entropy in bits of the bot's own strategy over its actions (0 when it is sure,
//! log2(k) when k actions look alike); `stage` is the game's weight at this point, 0 to 1, as
//! each game defines it. Each game picks the constants ([`Model`]) and says so in its README.

use rand::SeedableRng;
use yomi_protocol::{ErrorCode, ErrorInfo, OptionSpec, Options, Think, ThinkModel};

use crate::rng::{derive_seed, Rng as SeededRng};

/// The option every game bot with a think-time model takes.
pub const OPTION: &str = "think_scale";

/// Most a suggested think time can be, whatever the scale: a minute.
pub const MAX_MS: u64 = 60_000;

/// The stream of the agent's seed that think times draw from, apart from its decisions, so
/// turning think times on or off never changes a single move.
const STREAM: u64 = 0x0074_6869_6e6b; // "think"

/// The `think_scale` option: 1 is the game's model, 0 turns think times off.
pub fn option() -> OptionSpec {
    OptionSpec::float(
        OPTION,
        1.0,
        Some(0.0),
        Some(10.0),
        "scales the suggested think time (`think_ms`) of each decision: 1 a person's pace by the game's model, 0 none (lichess-bot's fake_think_time, KataGo's delayMoveScale)",
    )
}

/// A game's think-time constants, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// The time of an obvious decision (reading the position, moving the hand).
    pub base: f64,
    /// Per bit of the number of legal actions (Hick's law).
    pub per_choice: f64,
    /// Per bit of entropy of the bot's own strategy: the closer the call, the longer.
    pub per_doubt: f64,
    /// At the game's weightiest stage (stage 1).
    pub per_stage: f64,
    /// Spread σ of the log-normal factor.
    pub sigma: f64,
}

/// What makes one decision hard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effort {
    /// Legal actions.
    pub choices: usize,
    /// Entropy of the bot's strategy in bits (see [`entropy_bits`]).
    pub doubt: f64,
    /// The game's weight at this point, 0 to 1.
    pub stage: f64,
}

/// Entropy in bits of a mixed strategy (weights need not sum to 1; non-positive ones are skipped).
pub fn entropy_bits(probs: &[f64]) -> f64 {
    let total: f64 = probs.iter().filter(|p| **p > 0.0).sum();
    if total <= 0.0 {
        return 0.0;
    }
    probs.iter().filter(|p| **p > 0.0).map(|p| p / total).map(|p| -p * p.log2()).sum()
}

/// An agent's pace: its scale and its own seeded stream of spreads.
#[derive(Debug, Clone)]
pub struct Pace {
    scale: f64,
    rng: SeededRng,
}

impl Pace {
    /// The pace of an agent seeded `seed`, at the model's own speed until configured.
    pub fn new(seed: u64) -> Pace {
        Pace { scale: 1.0, rng: SeededRng::seed_from_u64(derive_seed(seed, STREAM)) }
    }

    /// Reads `think_scale` from a checked option set.
    pub fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.scale = crate::api::opt::f64(options, OPTION)?;
        if !(0.0..=10.0).contains(&self.scale) {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                format!("{OPTION} must be 0 to 10, got {}", self.scale),
            ));
        }
        Ok(())
    }

    /// The suggested think time of one decision and the log-normal it was drawn from (median
    /// scale × mean × e^(−σ²/2)); None when the scale is 0.
    pub fn think_ms(&mut self, model: &Model, effort: Effort) -> Option<Think> {
        if self.scale == 0.0 {
            return None;
        }
        let choice_bits = (effort.choices.max(1) as f64).log2();
        let mean = model.base
            + model.per_choice * choice_bits
            + model.per_doubt * effort.doubt.max(0.0)
            + model.per_stage * effort.stage.clamp(0.0, 1.0);
        let z = crate::rng::standard_normal(&mut self.rng);
        let spread = (model.sigma * z - model.sigma * model.sigma / 2.0).exp();
        let ms = ((self.scale * mean * spread).round().max(0.0) as u64).min(MAX_MS);
        let median_ms = self.scale * mean * (-model.sigma * model.sigma / 2.0).exp();
        Some(Think { ms, model: ThinkModel { median_ms, sigma: model.sigma } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: Model =
        Model { base: 500.0, per_choice: 300.0, per_doubt: 800.0, per_stage: 1000.0, sigma: 0.3 };

    fn options(scale: f64) -> Options {
        [(OPTION.to_string(), serde_json::json!(scale))].into_iter().collect()
    }

    fn mean_of(effort: Effort) -> f64 {
        let mut pace = Pace::new(7);
        (0..4000).map(|_| pace.think_ms(&MODEL, effort).unwrap().ms as f64).sum::<f64>() / 4000.0
    }

    #[test]
    fn harder_decisions_take_longer_and_the_mean_is_the_model() {
        let easy = Effort { choices: 1, doubt: 0.0, stage: 0.0 };
        let close = Effort { choices: 4, doubt: 2.0, stage: 0.0 };
        let late = Effort { choices: 4, doubt: 2.0, stage: 1.0 };
        let (e, c, l) = (mean_of(easy), mean_of(close), mean_of(late));
        assert!((e / 500.0 - 1.0).abs() < 0.03, "an obvious move averages the base: {e}");
        assert!((c / (500.0 + 600.0 + 1600.0) - 1.0).abs() < 0.03, "{c}");
        assert!(e < c && c < l, "{e} {c} {l}");
    }

    #[test]
    fn scale_zero_turns_it_off_and_the_same_seed_gives_the_same_times() {
        let effort = Effort { choices: 3, doubt: 1.0, stage: 0.5 };
        let mut off = Pace::new(1);
        off.configure(&options(0.0)).unwrap();
        assert_eq!(off.think_ms(&MODEL, effort), None);
        let times = |seed| {
            let mut pace = Pace::new(seed);
            pace.configure(&options(2.0)).unwrap();
            (0..5).map(|_| pace.think_ms(&MODEL, effort).unwrap().ms).collect::<Vec<_>>()
        };
        assert_eq!(times(3), times(3));
        assert_ne!(times(3), times(4));
        assert!(Pace::new(1).configure(&options(-1.0)).is_err());
    }

    /// The model a think time comes with is the distribution it was drawn from: the sample's
    /// median and the spread of its logarithm.
    #[test]
    fn the_reported_model_is_the_one_drawn_from() {
        let effort = Effort { choices: 5, doubt: 1.5, stage: 0.4 };
        let mut pace = Pace::new(11);
        pace.configure(&options(1.7)).unwrap();
        let draws: Vec<Think> = (0..4000).map(|_| pace.think_ms(&MODEL, effort).unwrap()).collect();
        let model = draws[0].model;
        assert!(draws.iter().all(|d| d.model == model));
        let mut logs: Vec<f64> = draws.iter().map(|d| (d.ms as f64).ln()).collect();
        logs.sort_by(f64::total_cmp);
        let median = logs[logs.len() / 2].exp();
        assert!((median / model.median_ms - 1.0).abs() < 0.03, "{median} vs {model:?}");
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / logs.len() as f64).sqrt();
        assert!((sd / model.sigma - 1.0).abs() < 0.05, "{sd} vs {model:?}");
    }

    #[test]
    fn entropy_of_strategies() {
        assert_eq!(entropy_bits(&[1.0, 0.0]), 0.0);
        assert!((entropy_bits(&[0.25; 4]) - 2.0).abs() < 1e-12);
        assert!((entropy_bits(&[2.0, 2.0]) - 1.0).abs() < 1e-12, "weights are normalised");
        assert_eq!(entropy_bits(&[]), 0.0);
    }
}
