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
pub fn mh_curve(
    problem: &Problem,
    exact: &[Vec<f64>],
    burn_in: u64,
    checkpoints: &[u64],
    rng: &mut impl Rng,
) -> Vec<(u64, f64)> {
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
pub fn exact_curve(
    sampler: &ExactSampler,
    exact: &[Vec<f64>],
    n: usize,
    k: usize,
    checkpoints: &[u64],
    rng: &mut impl Rng,
) -> Vec<(u64, f64)> {
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
pub fn mh_steps_to(
    problem: &Problem,
    exact: &[Vec<f64>],
    threshold: f64,
    burn_in: u64,
    every: u64,
    max_steps: u64,
    rng: &mut impl Rng,
) -> Option<u64> {
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

/// The exact law of the MH chain, for games small enough to enumerate: the distribution over
/// assignments after `t` steps from the chain's start (a uniformly random assignment), pushed
/// through the transition matrix step by step. No Monte Carlo noise: it shows how much burn-in
/// the chain needs, separately from how many samples it needs.
pub struct ChainLaw {
    /// Target probabilities of every enumerated assignment.
    target: Vec<f64>,
    target_marginals: Vec<Vec<f64>>,
    assignments: Vec<crate::model::Assignment>,
    k: usize,
    /// Off-diagonal transitions, compressed by row: `moves[start[s]..start[s+1]]`.
    start: Vec<usize>,
    moves: Vec<(u32, f64)>,
    /// Probability of staying put (same-role pair proposed, or rejection).
    stay: Vec<f64>,
    /// The chain's law now, and how many steps it has taken.
    pub law: Vec<f64>,
    pub steps: u64,
}

/// TV distances of the chain's law to the target: over whole assignments, and of the marginals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LawDistance {
    pub steps: u64,
    pub joint_tv: f64,
    pub marginal_tv: f64,
}

impl ChainLaw {
    pub fn new(problem: &Problem) -> Result<ChainLaw, yomi_plugin::ErrorInfo> {
        let e = crate::enumerate::enumerate(problem)?;
        let index: std::collections::HashMap<&[usize], u32> =
            e.assignments.iter().enumerate().map(|(i, a)| (a.as_slice(), i as u32)).collect();
        let n = problem.n();
        let pairs = (n * n.saturating_sub(1) / 2).max(1) as f64;
        let (mut start, mut moves, mut stay) =
            (vec![0], Vec::new(), Vec::with_capacity(e.assignments.len()));
        let mut swapped = Vec::with_capacity(n);
        for (s, a) in e.assignments.iter().enumerate() {
            let mut leave = 0.0;
            for i in 0..n {
                for j in i + 1..n {
                    if a[i] == a[j] {
                        continue;
                    }
                    swapped.clear();
                    swapped.extend_from_slice(a);
                    swapped.swap(i, j);
                    let t = index[swapped.as_slice()];
                    let delta =
                        problem.beta * (e.energies[t as usize] as f64 - e.energies[s] as f64);
                    let p = (-delta).exp().min(1.0) / pairs;
                    moves.push((t, p));
                    leave += p;
                }
            }
            start.push(moves.len());
            stay.push(1.0 - leave);
        }
        let count = e.assignments.len();
        let target_marginals = e.marginals(n, problem.k());
        Ok(ChainLaw {
            target: e.probabilities,
            target_marginals,
            assignments: e.assignments,
            k: problem.k(),
            start,
            moves,
            stay,
            law: vec![1.0 / count as f64; count],
            steps: 0,
        })
    }

    /// One step of the chain: `law <- law * P`.
    pub fn step(&mut self) {
        let mut next: Vec<f64> = self.law.iter().zip(&self.stay).map(|(p, s)| p * s).collect();
        for (s, &p) in self.law.iter().enumerate() {
            for &(t, q) in &self.moves[self.start[s]..self.start[s + 1]] {
                next[t as usize] += p * q;
            }
        }
        self.law = next;
        self.steps += 1;
    }

    /// How far the law is from the target now.
    pub fn distance(&self) -> LawDistance {
        let joint_tv =
            0.5 * self.law.iter().zip(&self.target).map(|(p, q)| (p - q).abs()).sum::<f64>();
        let n = self.target_marginals.len();
        let mut m = vec![vec![0.0; self.k]; n];
        for (a, p) in self.assignments.iter().zip(&self.law) {
            for (i, &r) in a.iter().enumerate() {
                m[i][r] += p;
            }
        }
        LawDistance {
            steps: self.steps,
            joint_tv,
            marginal_tv: marginal_tv(&m, &self.target_marginals),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::seed_four;

    #[test]
    fn the_chain_law_converges_to_the_target_and_stays_a_distribution() {
        let mut law = ChainLaw::new(&seed_four(1.0)).unwrap();
        let first = law.distance();
        assert!(first.joint_tv > 0.3, "{first:?}");
        for _ in 0..200 {
            law.step();
            assert!((law.law.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        let last = law.distance();
        assert!(last.joint_tv < 1e-6 && last.marginal_tv <= last.joint_tv + 1e-15, "{last:?}");
    }
}
