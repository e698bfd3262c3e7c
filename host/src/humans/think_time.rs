//! How like a person's pace a bot's suggested think times are (README, "How human-like is a
//! bot"): for each recorded decision that carries the person's time (`think_ms`), the density
//! of that time under the log-normal the bot drew its own suggestion from (`think_model`, given
//! beside a policy), and the think-time scale that would fit the records best.
//!
//! With median m and spread σ, ln t ~ N(ln m, σ²), so a time t (in milliseconds, at least 1)
//! has log-density −ln t − ln σ − ½ ln 2π − (ln t − ln m)² / 2σ². Scaling every suggestion by
//! c moves ln m by ln c; the c that makes the records most likely is e^r̄, r̄ the mean of
//! ln t − ln m weighted by 1/σ². The baseline is one log-normal fitted to the records' own
//! times: what a model that knows the players' average pace, and nothing about the decision,
//! scores.

use rand::Rng;
use serde::Serialize;
use yomi_plugin::repro::percentile_ci;
use yomi_plugin::rng::seeded;
use yomi_protocol::ThinkModel;

/// A recorded time scored under the bot's think-time model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed {
    /// ln t.
    pub log_ms: f64,
    /// The log-density of the time, per millisecond.
    pub log_density: f64,
    /// ln t − ln m: how much slower (above 0) the person was than the bot's median.
    pub log_ratio: f64,
    /// The model's σ.
    pub sigma: f64,
}

/// Scores a person's `think_ms` under `model`.
pub fn timed(think_ms: u64, model: ThinkModel) -> Timed {
    let log_ms = (think_ms.max(1) as f64).ln();
    let sigma = model.sigma.max(1e-9);
    let log_ratio = log_ms - model.median_ms.max(1e-9).ln();
    let log_density =
        -log_ms - sigma.ln() - HALF_LN_TAU - log_ratio * log_ratio / (2.0 * sigma * sigma);
    Timed { log_ms, log_density, log_ratio, sigma }
}

/// ½ ln 2π.
const HALF_LN_TAU: f64 = 0.918_938_533_204_672_8;

/// The think-time part of a report.
#[derive(Debug, Clone, Serialize)]
pub struct ThinkReport {
    /// Decisions whose record carries a time and whose reply a think-time model.
    pub decisions: usize,
    /// Mean log-density of the recorded times under the bot's model (per millisecond).
    pub log_likelihood: f64,
    /// Its 95 % interval, a bootstrap over the seats' plays.
    pub log_likelihood_ci95: [f64; 2],
    /// The same for one log-normal fitted to the records' own times.
    pub baseline_log_likelihood: f64,
    /// What the bot's `think_scale` should be multiplied by to fit the records best.
    pub scale_factor: f64,
}

/// Summarises the timed decisions of `timed` (per seat's play), the interval from `resamples`
/// bootstrap draws seeded `seed`; None when there are none.
pub fn summarise(timed: &[Vec<Timed>], resamples: usize, seed: u64) -> Option<ThinkReport> {
    let all: Vec<&Timed> = timed.iter().flatten().collect();
    if all.is_empty() {
        return None;
    }
    let n = all.len() as f64;
    let mean_of = |f: &dyn Fn(&Timed) -> f64| all.iter().map(|t| f(t)).sum::<f64>() / n;
    let log_likelihood = mean_of(&|t| t.log_density);
    let mean_log = mean_of(&|t| t.log_ms);
    let spread = mean_of(&|t| (t.log_ms - mean_log).powi(2)).sqrt().max(1e-9);
    let baseline_log_likelihood = -mean_log - spread.ln() - HALF_LN_TAU - 0.5;
    let weight = |t: &Timed| 1.0 / (t.sigma * t.sigma);
    let weights: f64 = all.iter().map(|t| weight(t)).sum();
    let scale_factor = (all.iter().map(|t| t.log_ratio * weight(t)).sum::<f64>() / weights).exp();
    let plays: Vec<(f64, f64)> = timed
        .iter()
        .filter(|play| !play.is_empty())
        .map(|play| (play.len() as f64, play.iter().map(|t| t.log_density).sum()))
        .collect();
    let mut rng = seeded(seed);
    let draws = (0..resamples)
        .map(|_| {
            let (k, sum) = (0..plays.len())
                .map(|_| plays[rng.gen_range(0..plays.len())])
                .fold((0.0, 0.0), |(k, s), (a, b)| (k + a, s + b));
            sum / k
        })
        .collect();
    Some(ThinkReport {
        decisions: all.len(),
        log_likelihood,
        log_likelihood_ci95: percentile_ci(draws),
        baseline_log_likelihood,
        scale_factor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log-density is the log-normal's, checked against its formula in terms of the normal
    /// density of ln t (f(t) = φ((ln t − μ)/σ) / (σ t)).
    #[test]
    fn a_time_is_scored_by_the_log_normal_density() {
        let model = ThinkModel { median_ms: 1200.0, sigma: 0.4 };
        let t = 2000.0_f64;
        let z = (t.ln() - 1200f64.ln()) / 0.4;
        let phi = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let scored = timed(2000, model);
        assert!((scored.log_density - (phi / (0.4 * t)).ln()).abs() < 1e-12);
        assert!((scored.log_ratio - (2000f64 / 1200.0).ln()).abs() < 1e-12);
        assert!(timed(0, model).log_density.is_finite(), "a recorded 0 counts as 1 ms");
    }

    /// 40 plays of 10 times drawn at `factor` × the median of models whose medians differ.
    fn drawn(factor: f64) -> Vec<Vec<Timed>> {
        let mut rng = seeded(9);
        let model = |i: usize| ThinkModel { median_ms: 300.0 + 100.0 * (i % 7) as f64, sigma: 0.3 };
        (0..40)
            .map(|play| {
                (0..10)
                    .map(|i| {
                        let m = model(play + i);
                        let z = yomi_plugin::rng::standard_normal(&mut rng);
                        timed((factor * m.median_ms * (0.3 * z).exp()).round() as u64, m)
                    })
                    .collect()
            })
            .collect()
    }

    /// Times drawn at twice the model's medians are fitted back with a scale factor near 2; the
    /// model beats the flat baseline on times it describes and loses on times twice as slow.
    #[test]
    fn the_best_scale_is_recovered_and_the_baseline_is_beaten_only_by_a_fitting_model() {
        let slow = summarise(&drawn(2.0), 200, 3).unwrap();
        assert_eq!(slow.decisions, 400);
        assert!((slow.scale_factor / 2.0 - 1.0).abs() < 0.05, "{slow:?}");
        let [lo, hi] = slow.log_likelihood_ci95;
        assert!(lo <= slow.log_likelihood && slow.log_likelihood <= hi, "{slow:?}");
        assert!(slow.log_likelihood < slow.baseline_log_likelihood, "{slow:?}");
        let fitting = summarise(&drawn(1.0), 200, 3).unwrap();
        assert!((fitting.scale_factor - 1.0).abs() < 0.05, "{fitting:?}");
        assert!(fitting.log_likelihood > fitting.baseline_log_likelihood, "{fitting:?}");
        assert!(summarise(&[vec![]], 200, 3).is_none());
    }
}
