//! The three samplers agree: exact DP vs enumeration to 1e-12, chi-square tests of each sampler's
//! frequencies against the exact distribution, and MH's marginal TV shrinking with steps.

use std::collections::HashMap;

use yomi_plugin::rng::seeded;
use yomi_roles::convergence::{exact_curve, mh_curve};
use yomi_roles::enumerate::enumerate;
use yomi_roles::exact::ExactSampler;
use yomi_roles::examples::{fifteen, players};
use yomi_roles::mh::MhConfig;
use yomi_roles::model::{PastGame, Problem, Roles};
use yomi_roles::sampler::{draw, Method};
use yomi_roles::stats::{chi_square, chi_square_critical, Z_999};

/// A small game with a lopsided history, so the distribution is far from uniform.
fn small(beta: f64) -> Problem {
    let p = players(5);
    let game = |roles: [&str; 5]| -> PastGame {
        p.iter().cloned().zip(roles.iter().map(|r| r.to_string())).collect()
    };
    let past = vec![
        game(["werewolf", "seer", "villager", "villager", "villager"]),
        game(["werewolf", "villager", "seer", "villager", "villager"]),
        game(["villager", "werewolf", "seer", "villager", "villager"]),
    ];
    Problem::new(p.clone(), Roles::parse("werewolf=1,seer=1,villager=3").unwrap(), &past, beta)
        .unwrap()
}

/// Random small games: every role set with up to 7 players and 4 role types, random histories.
fn random_games() -> Vec<Problem> {
    use rand::Rng;
    let mut rng = seeded(99);
    (0..30)
        .map(|_| {
            let k = rng.gen_range(1..=4);
            let counts: Vec<i64> = (0..k).map(|_| rng.gen_range(1..=3)).collect();
            let n = counts.iter().sum::<i64>() as usize;
            let names: Vec<String> = (0..k).map(|r| format!("r{r}")).collect();
            let roles =
                Roles::new(names.iter().cloned().zip(counts.iter().copied()).collect()).unwrap();
            let p = players(n);
            let past: Vec<PastGame> = (0..rng.gen_range(0..6))
                .map(|_| {
                    p.iter().map(|q| (q.clone(), names[rng.gen_range(0..k)].clone())).collect()
                })
                .collect();
            Problem::new(p, roles, &past, rng.gen_range(0.0..3.0)).unwrap()
        })
        .collect()
}

#[test]
fn exact_matches_enumeration_to_1e_12() {
    for problem in random_games().into_iter().chain([small(1.0), small(0.0), small(4.0)]) {
        let e = enumerate(&problem).unwrap();
        let x = ExactSampler::new(&problem).unwrap();
        assert!((e.ln_z - x.ln_z()).abs() < 1e-12);
        let mut total = 0.0;
        for (a, p) in e.assignments.iter().zip(&e.probabilities) {
            let q = x.probability(a);
            total += q;
            assert!((q - p).abs() < 1e-12, "{q} vs {p}");
        }
        assert!((total - 1.0).abs() < 1e-12);
        for (re, rx) in e.marginals(problem.n(), problem.k()).iter().zip(&x.marginals()) {
            for (a, b) in re.iter().zip(rx) {
                assert!((a - b).abs() < 1e-12);
            }
        }
    }
}

/// Chi-square of `draws` samples from `method` against the enumerated distribution, at 0.1 %.
fn chi_square_passes(method: Method, draws: usize, seed: u64) -> (f64, f64) {
    let problem = small(1.0);
    let e = enumerate(&problem).unwrap();
    let index: HashMap<Vec<usize>, usize> =
        e.assignments.iter().cloned().enumerate().map(|(i, a)| (a, i)).collect();
    let mut observed = vec![0u64; e.assignments.len()];
    for a in draw(&problem, method, draws, &mut seeded(seed)).unwrap() {
        observed[index[&a]] += 1;
    }
    let stat = chi_square(&observed, &e.probabilities);
    (stat, chi_square_critical(e.assignments.len() - 1, Z_999))
}

#[test]
fn exact_sampler_frequencies_pass_chi_square() {
    let (stat, critical) = chi_square_passes(Method::Exact, 40_000, 1);
    assert!(stat < critical, "chi-square {stat} >= {critical}");
}

#[test]
fn enumeration_sampler_frequencies_pass_chi_square() {
    let (stat, critical) = chi_square_passes(Method::Enumerate, 40_000, 2);
    assert!(stat < critical, "chi-square {stat} >= {critical}");
}

#[test]
fn thinned_mh_frequencies_pass_chi_square() {
    // Thinning by 50 steps leaves nearly independent samples in this 20-state game.
    let (stat, critical) =
        chi_square_passes(Method::Mh(MhConfig { burn_in: 1000, thin: 50 }), 40_000, 3);
    assert!(stat < critical, "chi-square {stat} >= {critical}");
}

#[test]
fn a_wrong_distribution_fails_chi_square() {
    // The test has power: uniform draws (beta = 0) judged against the beta = 1 distribution fail.
    let problem = small(1.0);
    let e = enumerate(&problem).unwrap();
    let index: HashMap<Vec<usize>, usize> =
        e.assignments.iter().cloned().enumerate().map(|(i, a)| (a, i)).collect();
    let mut observed = vec![0u64; e.assignments.len()];
    for a in draw(&small(0.0), Method::Exact, 40_000, &mut seeded(4)).unwrap() {
        observed[index[&a]] += 1;
    }
    assert!(
        chi_square(&observed, &e.probabilities)
            > chi_square_critical(e.assignments.len() - 1, Z_999)
    );
}

#[test]
fn mh_marginal_tv_shrinks_with_steps() {
    let problem = fifteen(1.0);
    let sampler = ExactSampler::new(&problem).unwrap();
    let exact = sampler.marginals();
    let checkpoints = [1_000u64, 10_000, 100_000, 1_000_000];
    let mh = mh_curve(&problem, &exact, 1000, &checkpoints, &mut seeded(5));
    let iid = exact_curve(&sampler, &exact, problem.n(), problem.k(), &checkpoints, &mut seeded(6));
    // Each tenfold increase of steps shrinks the distance (Monte Carlo error ~ 1/sqrt(steps)).
    for w in mh.windows(2) {
        assert!(w[1].1 < w[0].1, "{mh:?}");
    }
    assert!(mh[3].1 < 0.01, "{mh:?}");
    // Independent exact draws are at least as close as the same number of correlated MH steps.
    assert!(iid[3].1 < 0.01, "{iid:?}");
}
