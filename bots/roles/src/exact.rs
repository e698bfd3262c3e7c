//! The exact sampler for any size: dynamic programming over how many of each role remain.
//!
//! The energy is a sum of per-player terms, so the weight of an assignment is a product of
//! per-player factors `w[i][k] = exp(-beta * history[i][k])`. Deal to players in order 0, 1, ...;
//! once the remaining role counts `r` are known, the player to deal to next is `n - |r|`, so
//! `Z(r)` — the total weight of all ways to finish the deal from `r` — obeys
//! `Z(r) = sum_k [r_k > 0] w[n-|r|][k] * Z(r - e_k)`, `Z(0) = 1`. The table has
//! `prod_k (c_k + 1)` entries (320 for 15 players and 5 role types), is kept in log space so no
//! beta underflows, and a draw walks it once: player `i` gets role `k` with probability
//! `w[i][k] Z(r - e_k) / Z(r)`. Exact, no burn-in, no mixing problem. Those conditional
//! probabilities fall out of the log-sum-exp that builds `Z(r)`, so the table keeps them and a
//! draw is `n` table look-ups with no `exp` at all.

use rand::Rng;

use crate::model::{invalid, log_add, Assignment, Problem};
use yomi_plugin::ErrorInfo;

/// Largest table accepted: `prod (c_k + 1) * K` entries, 128 MB of f64.
pub const MAX_ENTRIES: usize = 1 << 24;

/// The prepared sampler for one problem.
#[derive(Debug, Clone)]
pub struct ExactSampler {
    n: usize,
    k: usize,
    counts: Vec<usize>,
    /// Mixed-radix strides: state index = sum_k r_k * stride[k].
    stride: Vec<usize>,
    /// `log_w[i * k + r]`: log weight of player `i` getting role `r`.
    log_w: Vec<f64>,
    /// `ln_z[state]`: log of the total weight of finishing the deal from that state.
    ln_z: Vec<f64>,
    /// `next[state * k + d]`: probability that the next player gets role `d` from that state.
    next: Vec<f64>,
}

impl ExactSampler {
    /// Builds the table: for each of the `prod (c_k + 1)` states, a log-sum-exp over `K` roles.
    pub fn new(problem: &Problem) -> Result<ExactSampler, ErrorInfo> {
        let (n, k) = (problem.n(), problem.k());
        let counts = problem.roles.counts.clone();
        let mut stride = Vec::with_capacity(k);
        let mut states: usize = 1;
        for &c in &counts {
            stride.push(states);
            states = states
                .checked_mul(c + 1)
                .filter(|&s| s.saturating_mul(k) <= MAX_ENTRIES)
                .ok_or_else(|| invalid(format!("too many role-count states for the exact sampler (limit {MAX_ENTRIES} entries)")))?;
        }
        let log_w: Vec<f64> = (0..n)
            .flat_map(|i| (0..k).map(move |r| (i, r)))
            .map(|(i, r)| problem.log_weight(i, r))
            .collect();
        let mut ln_z = vec![f64::NEG_INFINITY; states];
        ln_z[0] = 0.0;
        let mut next = vec![0.0; states * k];
        let mut terms = vec![f64::NEG_INFINITY; k];
        // Visit states in increasing index: `r - e_k` always has a smaller index than `r`. An
        // odometer over the digits keeps `r` and `|r|` without decoding every index.
        let mut r = vec![0usize; k];
        let mut size = 0usize;
        for s in 1..states {
            for d in 0..k {
                if r[d] < counts[d] {
                    r[d] += 1;
                    size += 1;
                    break;
                }
                size -= r[d];
                r[d] = 0;
            }
            let i = n - size;
            let row = &log_w[i * k..(i + 1) * k];
            let mut top = f64::NEG_INFINITY;
            for d in 0..k {
                terms[d] = if r[d] > 0 { row[d] + ln_z[s - stride[d]] } else { f64::NEG_INFINITY };
                top = top.max(terms[d]);
            }
            // `top` is finite: some digit is positive and every weight is finite.
            let probs = &mut next[s * k..(s + 1) * k];
            let mut sum = 0.0;
            for (p, &t) in probs.iter_mut().zip(&terms) {
                *p = (t - top).exp();
                sum += *p;
            }
            probs.iter_mut().for_each(|p| *p /= sum);
            ln_z[s] = top + sum.ln();
        }
        Ok(ExactSampler { n, k, counts, stride, log_w, ln_z, next })
    }

    fn full_state(&self) -> usize {
        self.counts.iter().zip(&self.stride).map(|(c, s)| c * s).sum()
    }

    /// `log Z` of the whole problem.
    pub fn ln_z(&self) -> f64 {
        self.ln_z[self.full_state()]
    }

    /// The exact probability of one assignment: `exp(-beta E - log Z)`.
    pub fn probability(&self, assignment: &[usize]) -> f64 {
        let log_q: f64 =
            assignment.iter().enumerate().map(|(i, &r)| self.log_w[i * self.k + r]).sum();
        (log_q - self.ln_z()).exp()
    }

    /// Draws one assignment exactly from the Boltzmann distribution.
    pub fn draw(&self, rng: &mut impl Rng) -> Assignment {
        let mut out = Vec::with_capacity(self.n);
        let mut s = self.full_state();
        for _ in 0..self.n {
            let probs = &self.next[s * self.k..(s + 1) * self.k];
            let mut u: f64 = rng.gen();
            let mut chosen = None;
            for (d, &p) in probs.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                chosen = Some(d);
                if u < p {
                    break;
                }
                u -= p;
            }
            // The probabilities sum to 1 up to rounding; if `u` outlives them all, the last
            // role with any probability (the one rounding shortchanged) is taken.
            let d = chosen.expect("a role remains for every player");
            s -= self.stride[d];
            out.push(d);
        }
        out
    }

    /// Exact per-player role marginals `m[i][k]`, by a forward pass (the weight of dealing to
    /// players before `i` and reaching `r`) combined with the backward table `Z`.
    pub fn marginals(&self) -> Vec<Vec<f64>> {
        let full = self.full_state();
        let mut ln_f = vec![f64::NEG_INFINITY; self.ln_z.len()];
        ln_f[full] = 0.0;
        let ln_z = self.ln_z();
        let mut m = vec![vec![0.0; self.k]; self.n];
        // Decreasing index: every predecessor `r + e_k` of `r` has been finished before `r`.
        let mut r = self.counts.clone();
        let mut size: usize = r.iter().sum();
        for s in (1..=full).rev() {
            if s != full {
                // Odometer step downwards.
                for (digit, &count) in r.iter_mut().zip(&self.counts) {
                    if *digit > 0 {
                        *digit -= 1;
                        size -= 1;
                        break;
                    }
                    *digit = count;
                    size += count;
                }
            }
            let i = self.n - size;
            for d in 0..self.k {
                if r[d] > 0 {
                    let t = s - self.stride[d];
                    let edge = ln_f[s] + self.log_w[i * self.k + d];
                    m[i][d] += (edge + self.ln_z[t] - ln_z).exp();
                    ln_f[t] = log_add(ln_f[t], edge);
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enumerate::enumerate;
    use crate::examples::{seed_eleven, seed_four};

    #[test]
    fn matches_enumeration_on_the_seed_examples() {
        for problem in [seed_four(1.0), seed_four(0.3), seed_eleven(1.0), seed_eleven(2.5)] {
            let e = enumerate(&problem).unwrap();
            let x = ExactSampler::new(&problem).unwrap();
            assert!((e.ln_z - x.ln_z()).abs() < 1e-12);
            for (a, p) in e.assignments.iter().zip(&e.probabilities) {
                assert!((x.probability(a) - p).abs() < 1e-12);
            }
            let (me, mx) = (e.marginals(problem.n(), problem.k()), x.marginals());
            for (re, rx) in me.iter().zip(&mx) {
                for (a, b) in re.iter().zip(rx) {
                    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
                }
            }
        }
    }
}
