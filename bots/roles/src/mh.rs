//! The paper's sampler: Metropolis–Hastings over assignments, proposing to swap two players' roles.
//!
//! A swap keeps the role counts, and the proposal (an unordered pair of distinct players, uniform)
//! is symmetric, so a proposal is accepted with probability `min(1, exp(-beta * dE))`, where only
//! the two players' terms of the energy change. Z is never needed. Swaps generate every
//! permutation, so the chain is irreducible; proposals that pick two players with the same role
//! (or are rejected) are self-loops, which make it aperiodic. The price is burn-in and correlated
//! samples, which [`crate::convergence`] measures against the exact sampler.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::model::{invalid, Assignment, Problem};
use yomi_plugin::{cancel, ErrorInfo};

/// Steps between two looks at whether the host cancelled the call (a few microseconds' worth).
const CANCEL_EVERY: u64 = 1 << 12;

/// Burn-in and thinning of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MhConfig {
    /// Steps discarded before the first sample.
    pub burn_in: u64,
    /// Steps between two kept samples (1 keeps every step).
    pub thin: u64,
}

/// A running chain.
#[derive(Debug, Clone)]
pub struct Chain {
    k: usize,
    /// `beta * history[i][k]`, the per-player energy terms scaled by beta.
    cost: Vec<f64>,
    pub state: Assignment,
    pub accepted: u64,
    pub steps: u64,
}

impl Chain {
    /// Starts from a uniformly random assignment.
    pub fn new(problem: &Problem, rng: &mut impl Rng) -> Chain {
        let k = problem.k();
        let cost = (0..problem.n())
            .flat_map(|i| (0..k).map(move |r| (i, r)))
            .map(|(i, r)| -problem.log_weight(i, r))
            .collect();
        let mut state: Assignment =
            problem.roles.counts.iter().enumerate().flat_map(|(r, &c)| vec![r; c]).collect();
        state.shuffle(rng);
        Chain { k, cost, state, accepted: 0, steps: 0 }
    }

    /// One proposal and its acceptance test.
    pub fn step(&mut self, rng: &mut impl Rng) {
        self.steps += 1;
        let n = self.state.len();
        if n < 2 {
            return;
        }
        let i = rng.gen_range(0..n);
        let mut j = rng.gen_range(0..n - 1);
        if j >= i {
            j += 1;
        }
        let (ri, rj) = (self.state[i], self.state[j]);
        if ri == rj {
            return;
        }
        let c = |p: usize, r: usize| self.cost[p * self.k + r];
        let delta = c(i, rj) + c(j, ri) - c(i, ri) - c(j, rj);
        if delta <= 0.0 || rng.gen::<f64>() < (-delta).exp() {
            self.state.swap(i, j);
            self.accepted += 1;
        }
    }

    /// Runs `steps` steps, or fewer once the host cancels the call (the caller checks).
    pub fn run(&mut self, steps: u64, rng: &mut impl Rng) {
        for done in 0..steps {
            if done % CANCEL_EVERY == 0 && cancel::cancelled() {
                return;
            }
            self.step(rng);
        }
    }
}

/// Draws `count` samples from one chain: burn-in, then one sample every `thin` steps.
pub fn sample(
    problem: &Problem,
    config: MhConfig,
    count: usize,
    rng: &mut impl Rng,
) -> Result<Vec<Assignment>, ErrorInfo> {
    if config.thin == 0 {
        return Err(invalid("thin must be at least 1"));
    }
    let mut chain = Chain::new(problem, rng);
    chain.run(config.burn_in, rng);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        cancel::check()?;
        chain.run(config.thin, rng);
        out.push(chain.state.clone());
    }
    cancel::check()?;
    Ok(out)
}
