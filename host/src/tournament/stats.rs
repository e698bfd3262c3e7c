//! The statistics chess engine testers read off fishtest and fastchess, for one bot against
//! another: the score with its Elo, normalized Elo and likelihood of superiority, and the
//! generalized SPRT's log-likelihood ratio, from the counts of the outcomes.
//!
//! The outcomes are either the three of a game (loss, draw, win: the *trinomial* model) or the
//! five of a game pair played on one deal with the seats swapped (0, ½, 1, 1½, 2 points: the
//! *pentanomial* model). Pairs take the luck of the deal out of the variance, so the pentanomial
//! interval is the honest one for paired games. The formulas are those of fishtest's `LLRcalc`
//! (M. Van den Bergh, "Comments on normalized Elo" and "Support of the MLE of a multinomial"):
//! outcome `i` of `k` is worth `i / (k - 1)` of the points, an outcome never seen counts as 0.001
//! (fishtest's regularisation, so no probability is 0), and the SPRT's likelihoods are maximum
//! likelihood distributions under each hypothesis, found by solving the secular equation.
//! `tests/stats/vectors.py` recomputes them independently and the tests compare.

use std::f64::consts::{LN_10, SQRT_2};

/// Normalized Elo per unit of the t-value `(score - ½) / σ per game` (fishtest's
/// `nelo_divided_by_nt`, 800 / ln 10).
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// The two-sided 95 % quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// What an outcome never seen counts as (fishtest's `regularize`).
const UNSEEN: f64 = 1e-3;

/// How the SPRT reads `elo0` and `elo1`.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SprtModel {
    /// Logistic Elo: the expected score `1 / (1 + 10^(-elo/400))` (fishtest's `LLR_logistic`).
    #[default]
    Logistic,
    /// Normalized Elo: the t-value of the score (fishtest's `LLR_normalized`).
    Normalized,
}

/// The empirical distribution of outcomes: how many were counted and each outcome's
/// `(points, probability)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcomes {
    count: f64,
    pdf: Vec<(f64, f64)>,
    /// Games per outcome: 2 for a pair, 1 for a game.
    games_per_outcome: f64,
}

/// A figure with its 95 % interval; an end that is unbounded (a score of 0 or 1) is `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub value: Option<f64>,
    pub ci95: [Option<f64>; 2],
}

/// What the outcomes say about the first bot against the second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The mean points per game (0 to 1).
    pub score: f64,
    /// Logistic Elo.
    pub elo: Estimate,
    /// Normalized Elo.
    pub nelo: Estimate,
    /// Likelihood of superiority: the probability that the first bot is the stronger.
    pub los: f64,
}

impl Outcomes {
    /// From counts of the three game outcomes (loss, draw, win) or the five pair outcomes (0, ½,
    /// 1, 1½, 2 points); `None` before anything was counted.
    pub fn new(counts: &[u64]) -> Option<Outcomes> {
        let games_per_outcome = match counts.len() {
            3 => 1.0,
            5 => 2.0,
            _ => return None,
        };
        if counts.iter().all(|&c| c == 0) {
            return None;
        }
        let regular: Vec<f64> =
            counts.iter().map(|&c| if c == 0 { UNSEEN } else { c as f64 }).collect();
        let count: f64 = regular.iter().sum();
        let last = (counts.len() - 1) as f64;
        let pdf = regular.iter().enumerate().map(|(i, &c)| (i as f64 / last, c / count)).collect();
        Some(Outcomes { count, pdf, games_per_outcome })
    }

    /// The mean points per game and the variance of one outcome's points.
    pub fn mean_variance(&self) -> (f64, f64) {
        mean_variance(&self.pdf)
    }

    /// Score, Elo and normalized Elo with their 95 % intervals, and the LOS (fishtest's
    /// `get_elo` and its normalized counterpart, fastchess's `EloPentanomial`).
    pub fn summary(&self) -> Summary {
        let (mu, var) = self.mean_variance();
        let se = (var / self.count).sqrt();
        let (low, high) = (mu - Z95 * se, mu + Z95 * se);
        let sigma_per_game = (self.games_per_outcome * var).sqrt();
        let nelo = |s: f64| finite((s - 0.5) / sigma_per_game * NELO_PER_T);
        Summary {
            score: mu,
            elo: Estimate {
                value: finite(logistic_elo(mu)),
                ci95: [finite(logistic_elo(low)), finite(logistic_elo(high))],
            },
            nelo: Estimate { value: nelo(mu), ci95: [nelo(low), nelo(high)] },
            los: normal_cdf((mu - 0.5) / se),
        }
    }

    /// The generalized log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`), read as `model`
    /// says; 0 where the maximum likelihood distribution does not exist (a hypothesis outside
    /// what the outcomes can show).
    pub fn llr(&self, elo0: f64, elo1: f64, model: SprtModel) -> f64 {
        let fit = |elo: f64| match model {
            SprtModel::Logistic => mle_expected(&self.pdf, logistic_score(elo)),
            SprtModel::Normalized => {
                // The t-value of one outcome: a pair's points vary √2 less than two games'.
                let t = elo / NELO_PER_T * self.games_per_outcome.sqrt();
                mle_t_value(&self.pdf, 0.5, t)
            }
        };
        let (Some(p0), Some(p1)) = (fit(elo0), fit(elo1)) else { return 0.0 };
        let per_outcome: f64 = self
            .pdf
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(&(_, p), (&q0, &q1))| p * (q1.ln() - q0.ln()))
            .sum();
        self.count * per_outcome
    }
}

/// The SPRT's bounds for error rates `alpha` and `beta`: accept H0 at or below the first, H1 at
/// or above the second.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The expected score of a logistic Elo difference.
pub fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference of an expected score (infinite or NaN outside (0, 1)).
fn logistic_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The standard normal distribution function.
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / SQRT_2))
}

fn mean_variance(pdf: &[(f64, f64)]) -> (f64, f64) {
    let mean: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var = pdf.iter().map(|&(a, p)| p * (a - mean).powi(2)).sum();
    (mean, var)
}

/// The root of `Σ pᵢ aᵢ / (1 + x aᵢ) = 0` between the poles `-1 / max a` and `-1 / min a`
/// (the function falls strictly there), by bisection to the last bit; `None` unless the `aᵢ`
/// have both signs.
fn secular(pdf: &[(f64, f64)]) -> Option<f64> {
    let min = pdf.iter().map(|&(a, _)| a).fold(f64::INFINITY, f64::min);
    let max = pdf.iter().map(|&(a, _)| a).fold(f64::NEG_INFINITY, f64::max);
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    let f = |x: f64| pdf.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
    let epsilon = 1e-9;
    let (mut low, mut high) = (-1.0 / max + epsilon, -1.0 / min - epsilon);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high {
            break;
        }
        if f(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(0.5 * (low + high))
}

/// The distribution closest to `pdf` (maximum likelihood) whose mean is `s`.
fn mle_expected(pdf: &[(f64, f64)], s: f64) -> Option<Vec<f64>> {
    let shifted: Vec<(f64, f64)> = pdf.iter().map(|&(a, p)| (a - s, p)).collect();
    let x = secular(&shifted)?;
    Some(shifted.iter().map(|&(d, p)| p / (1.0 + x * d)).collect())
}

/// The distribution closest to `pdf` whose t-value `(mean - reference) / σ` is `t`, by the
/// fixed-point iteration of "Comments on normalized Elo", section 4.1, from the uniform one.
fn mle_t_value(pdf: &[(f64, f64)], reference: f64, t: f64) -> Option<Vec<f64>> {
    let n = pdf.len();
    let mut fit = vec![1.0 / n as f64; n];
    for _ in 0..10 {
        let with_points: Vec<(f64, f64)> =
            pdf.iter().zip(&fit).map(|(&(a, _), &q)| (a, q)).collect();
        let (mu, var) = mean_variance(&with_points);
        let sigma = var.sqrt();
        let phi: Vec<(f64, f64)> = pdf
            .iter()
            .map(|&(a, p)| {
                (a - reference - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0, p)
            })
            .collect();
        let x = secular(&phi)?;
        let next: Vec<f64> = phi.iter().map(|&(d, p)| p / (1.0 + x * d)).collect();
        let change = next.iter().zip(&fit).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        fit = next;
        if change < 1e-9 {
            break;
        }
    }
    Some(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectors `tests/stats/vectors.py` computes from the published formulas.
    const VECTORS: &str = include_str!("../../../tests/stats/vectors.json");

    fn close(what: &str, ours: Option<f64>, theirs: &serde_json::Value) {
        match (ours, theirs.as_f64()) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                let tolerance = 1e-6 * b.abs().max(1.0);
                assert!((a - b).abs() <= tolerance, "{what}: {a} here, {b} in Python");
            }
            (a, _) => panic!("{what}: {a:?} here, {theirs} in Python"),
        }
    }

    #[test]
    fn the_figures_match_the_python_vectors() {
        let vectors: Vec<serde_json::Value> = serde_json::from_str(VECTORS).unwrap();
        assert!(vectors.len() >= 20, "{} vectors", vectors.len());
        for v in &vectors {
            let counts: Vec<u64> = serde_json::from_value(v["counts"].clone()).unwrap();
            let at = |name: &str| format!("{counts:?} {name}");
            let o = Outcomes::new(&counts).unwrap();
            let s = o.summary();
            close(&at("score"), Some(s.score), &v["score"]);
            close(&at("elo"), s.elo.value, &v["elo"]);
            close(&at("elo low"), s.elo.ci95[0], &v["elo_ci95"][0]);
            close(&at("elo high"), s.elo.ci95[1], &v["elo_ci95"][1]);
            close(&at("nelo"), s.nelo.value, &v["nelo"]);
            close(&at("nelo low"), s.nelo.ci95[0], &v["nelo_ci95"][0]);
            close(&at("nelo high"), s.nelo.ci95[1], &v["nelo_ci95"][1]);
            close(&at("los"), Some(s.los), &v["los"]);
            let (elo0, elo1) = (v["elo0"].as_f64().unwrap(), v["elo1"].as_f64().unwrap());
            let logistic = o.llr(elo0, elo1, SprtModel::Logistic);
            let normalized = o.llr(elo0, elo1, SprtModel::Normalized);
            close(&at("llr logistic"), Some(logistic), &v["llr_logistic"]);
            close(&at("llr normalized"), Some(normalized), &v["llr_normalized"]);
        }
    }

    #[test]
    fn a_known_pentanomial_run() {
        // A fishtest-sized run: more 1½ than ½ pairs is a positive Elo, surely superior.
        let o = Outcomes::new(&[1000, 9000, 20000, 10000, 1100]).unwrap();
        let s = o.summary();
        assert!(s.score > 0.5 && s.los > 0.99, "{s:?}");
        let [low, high] = s.nelo.ci95.map(Option::unwrap);
        assert!(low < s.nelo.value.unwrap() && s.nelo.value.unwrap() < high);
        assert!(o.llr(0.0, 2.0, SprtModel::Normalized) > sprt_bounds(0.05, 0.05).1);
        assert!(o.llr(0.0, 2.0, SprtModel::Logistic) > sprt_bounds(0.05, 0.05).1);
    }

    #[test]
    fn nothing_counted_is_no_distribution() {
        assert!(Outcomes::new(&[0, 0, 0, 0, 0]).is_none());
        assert!(Outcomes::new(&[1, 2]).is_none());
    }
}
