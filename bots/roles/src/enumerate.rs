//! The reference sampler: list every distinct assignment, weigh each by `exp(-beta * E)`, normalise.
//! This is exactly the paper's procedure; it is only feasible for small games, and serves as the
//! ground truth the other two samplers are tested against.

use rand::Rng;

use crate::model::{assignment_count, invalid, log_add, Assignment, Problem};
use yomi_plugin::ErrorInfo;

/// Refuse to enumerate more assignments than this (a few hundred MB at most).
pub const MAX_ASSIGNMENTS: u128 = 5_000_000;

/// Every assignment with its energy and probability.
#[derive(Debug, Clone)]
pub struct Enumeration {
    pub assignments: Vec<Assignment>,
    pub energies: Vec<u64>,
    pub probabilities: Vec<f64>,
    /// `log Z`, the log of the sum of the unnormalised weights.
    pub ln_z: f64,
}

/// Lists all distinct assignments of the role multiset to the players, in lexicographic order of
/// role indices, or fails if there are more than [`MAX_ASSIGNMENTS`].
pub fn assignments(counts: &[usize]) -> Result<Vec<Assignment>, ErrorInfo> {
    let total = assignment_count(counts);
    if total > MAX_ASSIGNMENTS {
        return Err(invalid(format!(
            "{} assignments are too many to enumerate (limit {MAX_ASSIGNMENTS}); use the exact sampler",
            if total == u128::MAX { "astronomically many".to_string() } else { total.to_string() }
        )));
    }
    let n: usize = counts.iter().sum();
    let mut out = Vec::with_capacity(total as usize);
    let mut remaining = counts.to_vec();
    let mut current = Vec::with_capacity(n);
    extend(&mut remaining, &mut current, n, &mut out);
    Ok(out)
}

fn extend(remaining: &mut [usize], current: &mut Assignment, n: usize, out: &mut Vec<Assignment>) {
    if current.len() == n {
        out.push(current.clone());
        return;
    }
    for k in 0..remaining.len() {
        if remaining[k] > 0 {
            remaining[k] -= 1;
            current.push(k);
            extend(remaining, current, n, out);
            current.pop();
            remaining[k] += 1;
        }
    }
}

/// Enumerates a problem's whole distribution.
pub fn enumerate(problem: &Problem) -> Result<Enumeration, ErrorInfo> {
    let assignments = assignments(&problem.roles.counts)?;
    let energies: Vec<u64> = assignments.iter().map(|a| problem.energy(a)).collect();
    let log_q: Vec<f64> = energies.iter().map(|&e| -problem.beta * e as f64).collect();
    let ln_z = log_q.iter().fold(f64::NEG_INFINITY, |acc, &l| log_add(acc, l));
    let probabilities = log_q.iter().map(|l| (l - ln_z).exp()).collect();
    Ok(Enumeration { assignments, energies, probabilities, ln_z })
}

impl Enumeration {
    /// Draws one assignment by inverting the cumulative distribution, as the paper describes.
    pub fn draw(&self, rng: &mut impl Rng) -> Assignment {
        let u: f64 = rng.gen();
        let mut acc = 0.0;
        for (a, p) in self.assignments.iter().zip(&self.probabilities) {
            acc += p;
            if u < acc {
                return a.clone();
            }
        }
        // Rounding left `acc` a hair under 1: the last assignment with any weight takes the rest.
        let last = self.probabilities.iter().rposition(|&p| p > 0.0).unwrap_or(0);
        self.assignments[last].clone()
    }

    /// Per-player role marginals `m[i][k]`.
    pub fn marginals(&self, n: usize, k: usize) -> Vec<Vec<f64>> {
        let mut m = vec![vec![0.0; k]; n];
        for (a, p) in self.assignments.iter().zip(&self.probabilities) {
            for (i, &r) in a.iter().enumerate() {
                m[i][r] += p;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{seed_eleven, seed_four};

    #[test]
    fn four_player_distribution_follows_the_formula() {
        let e = enumerate(&seed_four(1.0)).unwrap();
        // Werewolf at p1..p4 in lexicographic order of role indices (werewolf = 0 sorts first).
        assert_eq!(e.energies, vec![10, 8, 6, 6]);
        let z: f64 = [10.0f64, 8.0, 6.0, 6.0].iter().map(|e| (-e).exp()).sum();
        for (p, e) in e.probabilities.iter().zip([10.0f64, 8.0, 6.0, 6.0]) {
            assert!((p - (-e).exp() / z).abs() < 1e-15);
        }
    }

    #[test]
    fn eleven_player_count() {
        let e = enumerate(&seed_eleven(1.0)).unwrap();
        assert_eq!(e.assignments.len(), 55_440);
        assert!((e.probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn refuses_huge_games() {
        assert!(assignments(&[5, 5, 5, 5]).unwrap_err().message.contains("too many"));
    }
}
