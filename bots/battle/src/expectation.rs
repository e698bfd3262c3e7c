//! δ-Nash's policy: the probability of each action over a fresh seed. A decision samples from
//! the mean of n noisy equilibria, so that probability is the expectation over the noise of
//! one noisy equilibrium, whatever n. An equilibrium is piecewise rational in up to 25 noisy
//! entries, with no closed-form expectation, so it is estimated by Monte Carlo, made cheap by:
//! - antithetic pairs: every noise model is symmetric, so each draw e of the matrix's noise is
//!   used twice, as e and −e, and the pair's mean is one sample (most of an equilibrium's
//!   response to small noise is odd in it, and cancels);
//! - a stopping rule: draws stop once every action's standard error is at most [`TARGET_SE`]
//!   (asked every [`CHECK_PAIRS`]) and either every action has been played in [`SEEN_PAIRS`]
//!   pairs or [`MIN_PAIRS`] are drawn, or when the allowance of work is spent;
//! - exchangeable actions: actions whose true payoffs are the same in every column and whose
//!   bias is the same meet noise of the same law, so they have the same probability (the noisy
//!   game's equilibrium is unique almost surely, and permuting such rows permutes it). Each
//!   sample is averaged over each such class, and where every action is in one class (a single
//!   action, or a decided position, whatever is played) the policy is uniform without a draw;
//! - a seed from the position, not the agent: the estimate is a function of the position and
//!   the personality alone, and leaves the agent's RNG stream untouched.

use yomi_plugin::rng::{seeded, Rng as SeededRng};

use crate::lp::MAX;

/// The standard error per action the estimate stops at: a thousand decisions' sampling test
/// sees errors of about 0.015 at p = 0.5, so this is well under what it can see.
pub const TARGET_SE: f64 = 0.003;

/// Antithetic pairs drawn before the estimate may stop with an action it has not seen played
/// [`SEEN_PAIRS`] times: an action that none of 2,500 independent noises made the player play is
/// under 0.12 % at 95 % confidence (the rule of three), so the estimate says 0 only of actions
/// about that rare.
pub const MIN_PAIRS: usize = 2500;

/// Pairs in which every action must have been played for the estimate to stop before
/// [`MIN_PAIRS`]: no action is then said to be 0, and the rarest is known to about a fifth of
/// itself (1/√30), as near as [`MIN_PAIRS`] knows an action of 0.5 %. Where the standard error
/// is small early, most positions stop after a few hundred pairs instead of 2,500.
pub const SEEN_PAIRS: usize = 30;

/// Antithetic pairs between two asks of the stopping rule: a position needs 250 to 7,500 pairs,
/// and asking only every 2,500 drew up to 2,499 pairs more than the rule needed.
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

/// Each action's class of exchangeable actions, named by its first member: `keys[i]` is what
/// action i's law depends on (its true payoffs and its bias).
pub fn classes<K: PartialEq>(keys: &[K]) -> Vec<usize> {
    (0..keys.len()).map(|i| keys.iter().position(|k| *k == keys[i]).unwrap_or(i)).collect()
}

/// The mean of `pair`'s strategies over the actions of `classes` (see [`classes`]):
/// `pair(rng)` draws one noise and returns the strategies under +e and −e. At most `max_draws`
/// strategies (at least one pair, none when every action is in one class) are drawn.
pub fn estimate(
    classes: &[usize],
    max_draws: usize,
    seed: u64,
    mut pair: impl FnMut(&mut SeededRng) -> ([f64; MAX], [f64; MAX]),
) -> Estimate {
    let len = classes.len();
    if classes.iter().all(|&c| c == 0) {
        return Estimate { probs: vec![1.0 / len as f64; len], se: 0.0, draws: 0 };
    }
    let mut members = [0usize; MAX];
    classes.iter().for_each(|&c| members[c] += 1);
    let mut rng = seeded(seed);
    let max_pairs = (max_draws / 2).max(1);
    let (mut sum, mut squares) = ([0.0f64; MAX], [0.0f64; MAX]);
    let mut pairs = 0;
    let mut seen = [0usize; MAX];
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
        let mut class_sum = [0.0f64; MAX];
        for (i, &c) in classes.iter().enumerate() {
            class_sum[c] += (a[i] + b[i]) / 2.0;
        }
        for (i, &c) in classes.iter().enumerate() {
            let x = class_sum[c] / members[c] as f64;
            seen[i] += usize::from(x > 0.0);
            sum[i] += x;
            squares[i] += x * x;
        }
        pairs += 1;
        let asked = pairs.is_multiple_of(CHECK_PAIRS)
            && (pairs >= MIN_PAIRS || seen[..len].iter().all(|&k| k >= SEEN_PAIRS));
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
        let e = estimate(&[0, 1], 100_000, 7, |rng| {
            let u: f64 = rng.gen();
            (coin(u), coin(1.0 - u))
        });
        assert!((e.probs[0] - p).abs() < 4.0 * e.se, "{e:?}");
        assert!(e.se <= TARGET_SE && e.draws < 100_000, "stops at the target: {e:?}");
        let capped = estimate(&[0, 1], 10, 7, |rng| {
            let u: f64 = rng.gen();
            (coin(u), coin(1.0 - u))
        });
        assert_eq!(capped.draws, 10, "the allowance caps the draws");
    }

    /// One action is played for sure, and one class of exchangeable actions evenly, without
    /// drawing.
    #[test]
    fn one_class_of_actions_needs_no_draws() {
        let e = estimate(&[0], 1_000_000, 1, |_| unreachable!("no draw for one action"));
        assert_eq!((e.probs, e.se, e.draws), (vec![1.0], 0.0, 0));
        let e = estimate(&[0, 0, 0, 0], 1_000_000, 1, |_| unreachable!("no draw for one class"));
        assert_eq!((e.probs, e.se, e.draws), (vec![0.25; 4], 0.0, 0));
    }

    /// Classes name their first member; equal keys share a class.
    #[test]
    fn classes_group_equal_keys() {
        assert_eq!(classes(&[(0.5, false), (0.5, true), (0.5, false), (0.2, true)]), [0, 1, 0, 3]);
        assert_eq!(classes(&[1.0, 1.0, 1.0]), [0, 0, 0]);
    }

    /// Averaging a sample over a class keeps each action's expectation and narrows its spread:
    /// a four-way uniform choice whose actions pair into two classes stops at the error target
    /// about three times sooner than with every action apart.
    #[test]
    fn averaging_over_a_class_keeps_the_mean_and_narrows_the_error() {
        let pick = |u: f64| {
            let mut s = [0.0; MAX];
            s[((u * 4.0) as usize).min(3)] = 1.0;
            s
        };
        let draw = |rng: &mut SeededRng| (pick(rng.gen()), pick(rng.gen()));
        let apart = estimate(&[0, 1, 2, 3], 100_000, 3, draw);
        let paired = estimate(&[0, 0, 2, 2], 100_000, 3, draw);
        for e in [&apart, &paired] {
            assert!(e.se <= TARGET_SE, "{e:?}");
            for p in &e.probs {
                assert!((p - 0.25).abs() < 4.0 * e.se, "{e:?}");
            }
        }
        assert_eq!((paired.probs[0], paired.probs[2]), (paired.probs[1], paired.probs[3]));
        assert!(2 * paired.draws < apart.draws, "{paired:?} against {apart:?}");
    }

    /// A strategy that never varies is exact at the first check that may stop it: the first of
    /// all when it plays every action, after [`MIN_PAIRS`] when it leaves some unplayed.
    #[test]
    fn a_constant_strategy_stops_at_the_first_check_allowed() {
        let pure = |_: &mut SeededRng| ([1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]);
        let e = estimate(&[0, 1, 2], 1_000_000, 1, pure);
        assert_eq!((e.probs, e.se, e.draws), (vec![1.0, 0.0, 0.0], 0.0, 2 * MIN_PAIRS));
        let mixed = |_: &mut SeededRng| ([0.5, 0.25, 0.25, 0.0, 0.0], [0.5, 0.25, 0.25, 0.0, 0.0]);
        let e = estimate(&[0, 1, 2], 1_000_000, 1, mixed);
        assert_eq!((e.probs, e.se, e.draws), (vec![0.5, 0.25, 0.25], 0.0, 2 * CHECK_PAIRS));
    }

    /// An action played rarely keeps the draws going to [`MIN_PAIRS`] even when every error is
    /// already small: one played in about one draw of a thousand is seen too seldom to stop.
    #[test]
    fn a_rarely_played_action_is_drawn_for_until_the_minimum() {
        let rare = |u: f64| {
            let mut s = [0.0; MAX];
            s[usize::from(u < 0.001)] = 1.0;
            s
        };
        let e = estimate(&[0, 1], 1_000_000, 5, |rng| (rare(rng.gen()), rare(rng.gen())));
        assert_eq!(e.draws, 2 * MIN_PAIRS, "{e:?}");
        assert!(e.probs[1] < 0.004, "{e:?}");
    }
}
