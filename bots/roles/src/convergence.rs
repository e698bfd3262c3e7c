//! How close the MH sampler's output gets to the exact distribution, measured: the total-variation
//! distance (largest over players) between the per-player role frequencies of one chain and the
//! exact marginals, as a function of the number of steps — beside the same distance for the
//! exact sampler with as many independent draws, which is pure Monte Carlo noise.

use rand::Rng;

use crate::exact::ExactSampler;
use crate::mh::Chain;
use crate::model::Problem;
use crate::stats::{marginal_tv, Tally};

/// One MH chain after `burn_in` steps, counting every later step: the marginal TV at each of the
/// increasing `checkpoints` (steps after burn-in).
pub fn mh_curve(problem: &Problem, exact: &[Vec<f64>], burn_in: u64, checkpoints: &[u64], rng: &mut impl Rng) -> Vec<(u64, f64)> {
    let mut chain = Chain::new(problem, rng);
    chain.run(burn_in, rng);
    let mut tally = Tally::new(problem.n(), problem.k());
    checkpoints
        .iter()
        .map(|&at| {
            while tally.total < at {
                chain.step(rng);
                tally.add(&chain.state);
            }
            (at, marginal_tv(&tally.marginals(), exact))
        })
        .collect()
}

/// The same for independent exact draws.
pub fn exact_curve(sampler: &ExactSampler, exact: &[Vec<f64>], n: usize, k: usize, checkpoints: &[u64], rng: &mut impl Rng) -> Vec<(u64, f64)> {
    let mut tally = Tally::new(n, k);
    checkpoints
        .iter()
        .map(|&at| {
            while tally.total < at {
                tally.add(&sampler.draw(rng));
            }
            (at, marginal_tv(&tally.marginals(), exact))
        })
        .collect()
}

/// Steps after burn-in until one chain's marginal TV first falls under `threshold`, checked every
/// `every` steps; `None` if not within `max_steps`.
pub fn mh_steps_to(problem: &Problem, exact: &[Vec<f64>], threshold: f64, burn_in: u64, every: u64, max_steps: u64, rng: &mut impl Rng) -> Option<u64> {
    let mut chain = Chain::new(problem, rng);
    chain.run(burn_in, rng);
    let mut tally = Tally::new(problem.n(), problem.k());
    while tally.total < max_steps {
        for _ in 0..every {
            chain.step(rng);
            tally.add(&chain.state);
        }
        if marginal_tv(&tally.marginals(), exact) < threshold {
            return Some(tally.total);
        }
    }
    None
}
