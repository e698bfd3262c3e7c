//! The fairness/unpredictability trade-off, made visible.
//!
//! - Who gets what next game: each player's exact probability of each role.
//! - Guessability: the largest single-player probability of one role (the werewolf) next game —
//!   what a player who knows the history and the algorithm can bet on. Uniform dealing gives
//!   `count / n`; "whoever had it least" gives 1.
//! - Fairness: the probability that someone never gets that role within the next k games, if the
//!   same players keep playing and every game is committed. Exact (a forward pass over every
//!   reachable history) where that is small enough, else simulated with a 95 % Wilson interval.

use std::collections::BTreeMap;

use rand::Rng;
use serde::Serialize;
use yomi_plugin::repro::{mean_ci, wilson};
use yomi_plugin::{cancel, ErrorInfo};

use crate::enumerate::assignments;
use crate::exact::ExactSampler;
use crate::model::{assignment_count, invalid, log_add, Problem};

/// Most (history, assignment) pairs the exact forward pass may visit before it gives way to
/// simulation.
pub const EXACT_BUDGET: u64 = 2_000_000;

/// The largest single-player probability of role `role`: `(player index, probability)`.
pub fn guessability(marginals: &[Vec<f64>], role: usize) -> (usize, f64) {
    marginals
        .iter()
        .enumerate()
        .map(|(i, m)| (i, m[role]))
        .fold((0, f64::NEG_INFINITY), |best, x| if x.1 > best.1 { x } else { best })
}

/// The chance that someone never gets a role within the next `games` games.
#[derive(Debug, Clone, Serialize)]
pub struct NeverEstimate {
    pub role: String,
    pub games: u32,
    pub probability: f64,
    /// 95 % interval when simulated; `None` when exact.
    pub ci95: Option<[f64; 2]>,
    /// "exact" or "simulated".
    pub method: &'static str,
    /// Simulated runs, or (history, assignment) pairs the exact pass visited.
    pub n: u64,
    /// Mean over the `games` games of the guessability of `role` before each game.
    pub mean_guessability: f64,
    pub mean_guessability_ci95: Option<[f64; 2]>,
}

/// Finds a role by name among the problem's roles.
pub fn role_index(problem: &Problem, role: &str) -> Result<usize, ErrorInfo> {
    problem.roles.index(role).ok_or_else(|| {
        invalid(format!(
            "role `{role}` is not dealt in this game (roles: {})",
            problem.roles.names.join(", ")
        ))
    })
}

/// Exact where the forward pass fits in [`EXACT_BUDGET`], else `runs` simulated runs.
pub fn never(
    problem: &Problem,
    role: &str,
    games: u32,
    runs: u64,
    rng: &mut impl Rng,
) -> Result<NeverEstimate, ErrorInfo> {
    let r = role_index(problem, role)?;
    if games == 0 {
        return Err(invalid("the number of games must be at least 1"));
    }
    match never_exact(problem, r, games)? {
        Some(e) => Ok(e),
        None => never_simulated(problem, r, games, runs, rng),
    }
}

/// The forward pass: the distribution over the counts gained in the coming games, game by game
/// (in a BTreeMap, so the summation order, and hence every last bit, is the same on every run).
/// Returns `None` when it would exceed the budget.
pub fn never_exact(
    problem: &Problem,
    role: usize,
    games: u32,
) -> Result<Option<NeverEstimate>, ErrorInfo> {
    if assignment_count(&problem.roles.counts) > u128::from(EXACT_BUDGET) {
        return Ok(None);
    }
    let all = assignments(&problem.roles.counts)?;
    let (n, k) = (problem.n(), problem.k());
    let mut layer: BTreeMap<Vec<u32>, f64> = BTreeMap::from([(vec![0u32; n * k], 1.0)]);
    let mut visited: u64 = 0;
    let mut guess_sum = 0.0;
    let mut log_q = vec![0.0; all.len()];
    for _ in 0..games {
        cancel::check()?;
        visited += (layer.len() * all.len()) as u64;
        if visited > EXACT_BUDGET {
            return Ok(None);
        }
        let mut next: BTreeMap<Vec<u32>, f64> = BTreeMap::new();
        for (gained, weight) in &layer {
            let count = |i: usize, r: usize| f64::from(problem.history[i][r] + gained[i * k + r]);
            for (lq, a) in log_q.iter_mut().zip(&all) {
                *lq = -problem.beta * a.iter().enumerate().map(|(i, &r)| count(i, r)).sum::<f64>();
            }
            let ln_z = log_q.iter().fold(f64::NEG_INFINITY, |acc, &l| log_add(acc, l));
            let mut marginal = vec![0.0; n];
            for (lq, a) in log_q.iter().zip(&all) {
                let p = (lq - ln_z).exp();
                let mut g = gained.clone();
                for (i, &r) in a.iter().enumerate() {
                    g[i * k + r] += 1;
                    if r == role {
                        marginal[i] += p;
                    }
                }
                *next.entry(g).or_insert(0.0) += weight * p;
            }
            guess_sum += weight * marginal.iter().fold(0.0, |m: f64, &x| m.max(x));
        }
        layer = next;
    }
    let probability =
        layer.iter().filter(|(g, _)| (0..n).any(|i| g[i * k + role] == 0)).map(|(_, w)| w).sum();
    Ok(Some(NeverEstimate {
        role: problem.roles.names[role].clone(),
        games,
        probability,
        ci95: None,
        method: "exact",
        n: visited,
        mean_guessability: guess_sum / f64::from(games),
        mean_guessability_ci95: None,
    }))
}

/// Plays `runs` independent sequences of `games` games with the exact sampler.
pub fn never_simulated(
    problem: &Problem,
    role: usize,
    games: u32,
    runs: u64,
    rng: &mut impl Rng,
) -> Result<NeverEstimate, ErrorInfo> {
    if runs == 0 {
        return Err(invalid("the number of simulated runs must be at least 1"));
    }
    let mut never_count = 0u64;
    let mut guesses = Vec::with_capacity(runs as usize);
    for _ in 0..runs {
        cancel::check()?;
        let mut current = problem.clone();
        let mut got = vec![false; problem.n()];
        let mut guess = 0.0;
        for _ in 0..games {
            let sampler = ExactSampler::new(&current)?;
            guess += guessability(&sampler.marginals(), role).1;
            let a = sampler.draw(rng);
            for (i, &r) in a.iter().enumerate() {
                got[i] |= r == role;
            }
            current = current.with_game(&a);
        }
        never_count += u64::from(got.iter().any(|g| !g));
        guesses.push(guess / f64::from(games));
    }
    let (mean_guess, guess_ci) = mean_ci(&guesses);
    Ok(NeverEstimate {
        role: problem.roles.names[role].clone(),
        games,
        probability: never_count as f64 / runs as f64,
        ci95: Some(wilson(never_count as f64, runs)),
        method: "simulated",
        n: runs,
        mean_guessability: mean_guess,
        mean_guessability_ci95: Some(guess_ci),
    })
}

/// Probability that someone never gets a role dealt to `count` of `n` players in each of `games`
/// uniformly random games, by inclusion–exclusion over the set of players left out:
/// `sum_{j>=1} (-1)^(j+1) C(n, j) (C(n-j, count) / C(n, count))^games`.
pub fn never_uniform(n: usize, count: usize, games: u32) -> f64 {
    let binom = |a: usize, b: usize| -> f64 {
        if b > a {
            return 0.0;
        }
        (0..b).fold(1.0, |acc, j| acc * (a - j) as f64 / (j + 1) as f64)
    };
    (1..=n)
        .map(|j| {
            let sign = if j % 2 == 1 { 1.0 } else { -1.0 };
            sign * binom(n, j) * (binom(n - j, count) / binom(n, count)).powi(games as i32)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{players, seed_four};
    use crate::model::Roles;
    use yomi_plugin::rng::seeded;

    fn fresh(n: usize, roles: &str, beta: f64) -> Problem {
        Problem::new(players(n), Roles::parse(roles).unwrap(), &[], beta).unwrap()
    }

    #[test]
    fn uniform_dealing_matches_the_closed_form() {
        // 1 - 4!/4^4 for 4 games; inclusion-exclusion for 6.
        assert!((never_uniform(4, 1, 4) - (1.0 - 24.0 / 256.0)).abs() < 1e-12);
        for games in [4, 6] {
            let e =
                never_exact(&fresh(4, "werewolf=1,villager=3", 0.0), 0, games).unwrap().unwrap();
            assert!((e.probability - never_uniform(4, 1, games)).abs() < 1e-12);
            assert!((e.mean_guessability - 0.25).abs() < 1e-12);
        }
    }

    #[test]
    fn simulation_agrees_with_the_exact_pass() {
        let p = fresh(5, "werewolf=1,seer=1,villager=3", 1.0);
        let exact = never_exact(&p, 0, 5).unwrap().unwrap();
        let sim = never_simulated(&p, 0, 5, 4000, &mut seeded(3)).unwrap();
        let [lo, hi] = sim.ci95.unwrap();
        // A 99.9 % band around the simulated proportion, so one fixed seed cannot flake.
        let half = 3.3 * (exact.probability * (1.0 - exact.probability) / 4000.0).sqrt();
        assert!(
            (sim.probability - exact.probability).abs() < half,
            "{} vs {} [{lo}, {hi}]",
            sim.probability,
            exact.probability
        );
        assert!((sim.mean_guessability - exact.mean_guessability).abs() < 0.01);
    }

    #[test]
    fn history_makes_the_least_played_most_likely() {
        let p = seed_four(1.0);
        let m = ExactSampler::new(&p).unwrap().marginals();
        let (who, prob) = guessability(&m, 0);
        assert!(who == 2 || who == 3);
        assert!((prob - 1.0 / (2.0 + (-2.0f64).exp() + (-4.0f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn unknown_role_is_an_error() {
        assert!(never(&seed_four(1.0), "seer", 3, 10, &mut seeded(1))
            .unwrap_err()
            .message
            .contains("not dealt"));
    }
}
