//! δ-Nash's policy: the probability of each action over a fresh seed. A decision samples from
//! the mean of n noisy equilibria, so that probability is the expectation over the noise of
//! one noisy equilibrium, whatever n. An equilibrium is piecewise rational in up to 25 noisy
//! entries, with no closed-form expectation, so it is estimated by Monte Carlo, made cheap by:
//! - antithetic pairs: every noise model is symmetric, so each draw e of the matrix's noise is
//!   used twice, as e and −e, and the pair's mean is one sample (most of an equilibrium's
//!   response to small noise is odd in it, and cancels);
//! - a stopping rule: draws stop once every action's standard error is at most [`TARGET_SE`]
//!   (asked after [`MIN_PAIRS`], then every [`CHECK_PAIRS`]), or when the allowance of work is
//!   spent;
//! - no draws at all where there is one action: its probability is 1;
//! - a seed from the position, not the agent: the estimate is a function of the position and
//!   the personality alone, and leaves the agent's RNG stream untouched.

use yomi_plugin::rng::{seeded, Rng as SeededRng};

use crate::lp::MAX;

/// The standard error per action the estimate stops at: a thousand decisions' sampling test
/// sees errors of about 0.015 at p = 0.5, so this is well under what it can see.
pub const TARGET_SE: f64 = 0.003;

/// Antithetic pairs drawn before the stopping rule is first asked: an action that none of 2,500
/// independent noises made the player play is under 0.12 % at 95 % confidence (the rule of
/// three), so the estimate says 0 only of actions about that rare.
pub const MIN_PAIRS: usize = 2500;

/// Antithetic pairs between two later asks: a position needs 2,500 to 7,500 pairs, and asking
/// only every 2,500 drew up to 2,499 pairs more than the rule needed.
pub const CHECK_PAIRS: usize = 250;

/// The estimate and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The mean strategy over the draws.
    pub probs: Vec<f64>,
    /// The largest standard error of an entry of `probs` (from the pairs' spread).
    pub se: f64,
    /// Noisy strategies drawn (twice the pairs).
    pub draws: usize,
}

/// The seed of a position's estimate: the table's index of the state, the side and the phase.
pub fn seed(index: usize, side: usize, replacing: bool) -> u64 {
    let key = (index as u64) << 2 | (side as u64) << 1 | u64::from(replacing);
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03
}

/// The mean of `pair`'s strategies over `len` actions: `pair(rng)` draws one noise and returns
/// the strategies under +e and −e. At most `max_draws` strategies (at least one pair, none for
/// one action) are drawn.
pub fn estimate(
    len: usize,
    max_draws: usize,
    seed: u64,
    mut pair: impl FnMut(&mut SeededRng) -> ([f64; MAX], [f64; MAX]),
) -> Estimate {
    if len == 1 {
        return Estimate { probs: vec![1.0], se: 0.0, draws: 0 };
    }
    let mut rng = seeded(seed);
    let max_pairs = (max_draws / 2).max(1);
    let (mut sum, mut squares) = ([0.0f64; MAX], [0.0f64; MAX]);
    let mut pairs = 0;
    let se = |sum: &[f64; MAX], squares: &[f64; MAX], n: usize| {
        let n = n as f64;
        (0..len)
            .map(|i| {
                let mean = sum[i] / n;
                let var = (squares[i] / n - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
                (var / n).sqrt()
            })
            .fold(0.0, f64::max)
    };
    while pairs < max_pairs {
        let (a, b) = pair(&mut rng);
        for i in 0..len {
            let x = (a[i] + b[i]) / 2.0;
            sum[i] += x;
            squares[i] += x * x;
        }
        pairs += 1;
        let asked = pairs >= MIN_PAIRS && (pairs - MIN_PAIRS).is_multiple_of(CHECK_PAIRS);
        if asked && se(&sum, &squares, pairs) <= TARGET_SE {
            break;
        }
    }
    Estimate {
        probs: sum[..len].iter().map(|s| s / pairs as f64).collect(),
        se: se(&sum, &squares, pairs),
        draws: 2 * pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// A coin of known probability, drawn antithetically (u and 1 − u): the estimate is within
    /// four of its stated standard errors, and stops early once that error is small enough.
    #[test]
    fn a_known_probability_is_estimated_within_its_standard_error() {
        let p = 0.3;
        let coin = |u: f64| {
            let mut s = [0.0; MAX];
            s[usize::from(u >= p)] = 1.0;
            s
        };
        let e = estimate(2, 100_000, 7, |rng| {
            let u: f64 = rng.gen();
            (coin(u), coin(1.0 - u))
        });
        assert!((e.probs[0] - p).abs() < 4.0 * e.se, "{e:?}");
        assert!(e.se <= TARGET_SE && e.draws < 100_000, "stops at the target: {e:?}");
        let capped = estimate(2, 10, 7, |rng| {
            let u: f64 = rng.gen();
            (coin(u), coin(1.0 - u))
        });
        assert_eq!(capped.draws, 10, "the allowance caps the draws");
    }

    /// One action is played for sure, without drawing.
    #[test]
    fn a_single_action_needs_no_draws() {
        let e = estimate(1, 1_000_000, 1, |_| unreachable!("no draw for one action"));
        assert_eq!((e.probs, e.se, e.draws), (vec![1.0], 0.0, 0));
    }

    /// A strategy that never varies is exact after the first check.
    #[test]
    fn a_constant_strategy_stops_at_the_first_check() {
        let pure = |_: &mut SeededRng| ([1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]);
        let e = estimate(3, 1_000_000, 1, pure);
        assert_eq!((e.probs, e.se, e.draws), (vec![1.0, 0.0, 0.0], 0.0, 2 * MIN_PAIRS));
    }
}
