//! `yomi repro roles`: the paper's worked numbers beside ours, the service's fairness and
//! guessability for several betas, and the measured closeness of MH to the exact distribution.
//! REPRODUCTION.md is this module's markdown output; every number in it comes from the rows.

use yomi_plugin::repro::{markdown, Row};
use yomi_plugin::rng::{derive_seed, seeded};
use yomi_plugin::ErrorInfo;

use crate::analysis::{guessability, never_exact, never_simulated, never_uniform};
use crate::convergence::{exact_curve, mh_curve, mh_steps_to, ChainLaw};
use crate::enumerate::enumerate;
use crate::exact::ExactSampler;
use crate::examples::{
    fifteen, players, seed_eleven, seed_eleven_candidate, seed_four, seed_four_candidate,
};
use crate::model::{Problem, Roles};

/// The fixed seed of every simulation here.
const SEED: u64 = 2;
/// Simulated runs per probability.
const RUNS: u64 = 20_000;
/// The betas compared.
const BETAS: [f64; 4] = [0.0, 0.5, 1.0, 2.0];
/// Most steps the exact law of the chain is followed.
const MAX_LAW_STEPS: u64 = 5000;
/// MH burn-in for the convergence rows.
pub const BURN_IN: u64 = 1000;

fn fresh(n: usize, roles: &str, beta: f64) -> Problem {
    Problem::new(players(n), Roles::parse(roles).expect("valid roles"), &[], beta)
        .expect("valid problem")
}

fn label(w: usize) -> String {
    (0..4).map(|i| if i == w { '1' } else { '0' }).collect()
}

/// Every row, in the order of REPRODUCTION.md.
pub fn rows() -> Result<Vec<Row>, ErrorInfo> {
    let mut rows = Vec::new();
    let mut stream = 0u64;
    let mut rng = || {
        stream += 1;
        seeded(derive_seed(SEED, stream))
    };

    rows.extend(paper_four_rows()?);

    // The paper's 11-player example.
    let eleven = seed_eleven(1.0);
    rows.push(
        Row::at("11-player example", "E(12340000011)", "energy")
            .ours(eleven.energy(&seed_eleven_candidate()) as f64, 1)
            .paper(10.0),
    );
    let e11 = enumerate(&eleven)?;
    rows.push(
        Row::at("11-player example", "assignments", "enumerated")
            .ours(e11.assignments.len() as f64, 1)
            .paper(55_400.0),
    );
    let x11 = ExactSampler::new(&eleven)?;
    let worst = e11
        .assignments
        .iter()
        .zip(&e11.probabilities)
        .map(|(a, p)| (x11.probability(a) - p).abs())
        .fold(0.0, f64::max);
    rows.push(
        Row::at("11-player example", "max |p_dp - p_enum| (beta = 1)", "exact vs enumeration")
            .ours(worst, e11.assignments.len() as u64),
    );

    // Uniform dealing: P(someone is never the werewolf), 4 players.
    for (games, paper_p) in [(4u32, 0.906), (6, 0.297)] {
        let row = format!("4 players, {games} games");
        rows.push(
            Row::at("P(someone never werewolf), uniform", &row, "exact")
                .ours(never_uniform(4, 1, games), 1)
                .paper(paper_p),
        );
        let sim =
            never_simulated(&fresh(4, "werewolf=1,villager=3", 0.0), 0, games, RUNS, &mut rng())?;
        rows.push(
            Row::at("P(someone never werewolf), uniform", &row, "simulated, beta = 0")
                .ours(sim.probability, sim.n)
                .paper(paper_p)
                .ci(sim.ci95),
        );
    }

    // The same under our service, with guessability beside it.
    for beta in BETAS {
        let row = format!("beta = {beta}");
        let problem = fresh(4, "werewolf=1,villager=3", beta);
        for games in [4u32, 6] {
            let e =
                never_exact(&problem, 0, games)?.expect("4 players are small enough to be exact");
            rows.push(
                Row::at(
                    "service, 4 players, 1 werewolf",
                    &row,
                    &format!("P(never), {games} games"),
                )
                .ours(e.probability, e.n),
            );
            rows.push(
                Row::at(
                    "service, 4 players, 1 werewolf",
                    &row,
                    &format!("mean guessability, {games} games"),
                )
                .ours(e.mean_guessability, e.n),
            );
        }
        let after = ExactSampler::new(&seed_four(beta))?.marginals();
        rows.push(
            Row::at("service, 4 players, 1 werewolf", &row, "guessability after 1000/0100/1000")
                .ours(guessability(&after, 0).1, 4),
        );
    }

    // The paper's 11-player role set from an empty history: too large to be exact, simulated.
    let roles11 = "werewolf=3,seer=1,knight=1,medium=1,villager=5";
    for beta in BETAS {
        let row = format!("beta = {beta}");
        for games in [4u32, 6] {
            let sim = never_simulated(&fresh(11, roles11, beta), 0, games, RUNS, &mut rng())?;
            rows.push(
                Row::at(
                    "service, 11 players, 3 werewolves",
                    &row,
                    &format!("P(never), {games} games"),
                )
                .ours(sim.probability, sim.n)
                .ci(sim.ci95),
            );
            rows.push(
                Row::at(
                    "service, 11 players, 3 werewolves",
                    &row,
                    &format!("mean guessability, {games} games"),
                )
                .ours(sim.mean_guessability, sim.n)
                .ci(sim.mean_guessability_ci95),
            );
        }
    }
    for games in [4u32, 6] {
        rows.push(
            Row::at(
                "service, 11 players, 3 werewolves",
                "uniform, closed form",
                &format!("P(never), {games} games"),
            )
            .ours(never_uniform(11, 3, games), 1),
        );
    }

    // The exact law of the MH chain on the paper's 11-player example: how much burn-in it needs.
    let table = "MH burn-in, 11-player example, beta = 1 (exact law of the chain)";
    let mut law = ChainLaw::new(&eleven)?;
    let (mut joint_at, mut marginal_at) = (None, None);
    while law.steps <= MAX_LAW_STEPS && joint_at.is_none() {
        let d = law.distance();
        if [0, 10, 25, 50, 100, 200, 400].contains(&d.steps) {
            rows.push(
                Row::at(table, &format!("{} steps", d.steps), "TV over assignments")
                    .ours(d.joint_tv, d.steps),
            );
            rows.push(
                Row::at(table, &format!("{} steps", d.steps), "marginal TV")
                    .ours(d.marginal_tv, d.steps),
            );
        }
        marginal_at = marginal_at.or((d.marginal_tv < 0.01).then_some(d.steps));
        joint_at = joint_at.or((d.joint_tv < 0.01).then_some(d.steps));
        law.step();
    }
    for (column, at) in [("TV over assignments", joint_at), ("marginal TV", marginal_at)] {
        rows.push(
            Row::at(table, "steps until < 0.01 (start: uniform)", column)
                .ours(at.map_or(f64::NAN, |s| s as f64), e11.assignments.len() as u64),
        );
    }

    // MH against the exact marginals, 15 players and 5 role types, beta = 1.
    let problem = fifteen(1.0);
    let sampler = ExactSampler::new(&problem)?;
    let exact = sampler.marginals();
    let checkpoints = [1_000u64, 10_000, 100_000, 1_000_000, 10_000_000];
    for (steps, tv) in mh_curve(&problem, &exact, BURN_IN, &checkpoints, &mut rng()) {
        rows.push(
            Row::at(
                "MH vs exact, 15 players, 5 roles, beta = 1",
                &format!("{steps} steps"),
                "marginal TV, one MH chain",
            )
            .ours(tv, steps),
        );
    }
    for (draws, tv) in
        exact_curve(&sampler, &exact, problem.n(), problem.k(), &checkpoints[..4], &mut rng())
    {
        rows.push(
            Row::at(
                "MH vs exact, 15 players, 5 roles, beta = 1",
                &format!("{draws} steps"),
                "marginal TV, as many exact draws",
            )
            .ours(tv, draws),
        );
    }
    let chains = 20u64;
    let mut reached = Vec::new();
    for _ in 0..chains {
        if let Some(s) = mh_steps_to(&problem, &exact, 0.01, BURN_IN, 1000, 100_000_000, &mut rng())
        {
            reached.push(s as f64);
        }
    }
    rows.push(
        Row::at(
            "MH vs exact, 15 players, 5 roles, beta = 1",
            "steps until marginal TV < 0.01",
            "mean over chains",
        )
        .mean(&reached),
    );
    rows.push(
        Row::at(
            "MH vs exact, 15 players, 5 roles, beta = 1",
            "chains reaching TV < 0.01 within 1e8 steps",
            "fraction",
        )
        .share(reached.len() as f64, chains),
    );
    Ok(rows)
}

/// The paper's first example: energies, then the probabilities under both readings of its
/// numbers — eq. (1.1) q = exp(-βE) at its β = 1 (the default), and q = 2^-E (β = ln 2), which
/// the printed p equal. Both readings answer the same numbers from the paper, so their rows name the reading.
fn paper_four_rows() -> Result<Vec<Row>, ErrorInfo> {
    let mut rows = Vec::new();
    let four = seed_four(1.0);
    for (w, paper_e) in [10.0, 8.0, 6.0, 6.0].into_iter().enumerate() {
        rows.push(
            Row::at("4-player example", &format!("E({})", label(w)), "energy")
                .ours(four.energy(&seed_four_candidate(w)) as f64, 1)
                .paper(paper_e),
        );
    }
    for (beta, column, reading) in [
        (1.0, "p, beta = 1", "beta=1"),
        (std::f64::consts::LN_2, "p, beta = ln 2 (q = 2^-E)", "beta=ln 2"),
    ] {
        let e = enumerate(&seed_four(beta))?;
        for (w, paper_p) in [0.027, 0.1081, 0.4324, 0.4324].into_iter().enumerate() {
            let at = e
                .assignments
                .iter()
                .position(|a| *a == seed_four_candidate(w))
                .expect("enumerated");
            rows.push(
                Row::at("4-player example", &format!("p({})", label(w)), column)
                    .ours(e.probabilities[at], 4)
                    .paper(paper_p)
                    .reading(reading),
            );
        }
    }
    Ok(rows)
}

/// The paper's numbers rounded as the paper prints them: does ours round to the same?
fn agrees_at_paper_precision(row: &Row) -> Option<bool> {
    let seed = row.paper?;
    let text = format!("{seed}");
    let digits = text.split_once('.').map(|(_, d)| d.len()).unwrap_or(0) as i32;
    let scale = 10f64.powi(digits);
    Some(((row.ours * scale).round() - seed * scale).abs() < 0.5)
}

/// REPRODUCTION.md: the table, then a discussion of every row whose number from the paper lies outside our
/// interval (or differs from our exact value), then how to regenerate.
pub fn document(rows: &[Row]) -> String {
    let mut out = String::from(
        "# Reproduction: werewolf role assignment (the role-assignment blog post)\n\n\
         Generated by `yomi repro roles > bots/roles/REPRODUCTION.md`; the same rows as JSON come from \
         `yomi repro roles --json`. Exact values have no interval; simulated ones carry a 95 % Wilson \
         (proportions) or normal (means) interval; all simulations use fixed seeds.\n\n",
    );
    out.push_str(&markdown(rows));
    out.push_str("\n## Rows where the paper and we differ\n\n");
    out.push_str("`agrees` compares the paper's printed number with our exact value to 1e-9, or with our interval. The paper prints rounded numbers, so the next column rounds ours to the paper's digits.\n\n");
    out.push_str("| table | row | column | paper | ours | same at the paper's precision |\n|---|---|---|---|---|---|\n");
    for r in rows.iter().filter(|r| r.agrees() == Some(false)) {
        let same = if agrees_at_paper_precision(r) == Some(true) { "yes" } else { "**no**" };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.6} | {} |\n",
            r.table,
            r.row,
            r.column,
            r.paper.unwrap_or(f64::NAN),
            r.ours,
            same
        ));
    }
    out.push_str(DISCUSSION);
    out.push_str(&findings(rows));
    out.push_str(REGENERATE);
    out
}

/// The number of the row with these labels (NaN if absent, which the tests rule out).
fn find(rows: &[Row], table: &str, row: &str, column: &str) -> f64 {
    rows.iter()
        .find(|r| r.table == table && r.row == row && r.column == column)
        .map(|r| r.ours)
        .unwrap_or(f64::NAN)
}

/// What the rows show, with the numbers read from them.
fn findings(rows: &[Row]) -> String {
    let t4 = "service, 4 players, 1 werewolf";
    let mut out = String::from("\nThe trade-off (4 players, 1 werewolf, from an empty history, every game committed):\n\n| beta | P(never werewolf), 4 games | mean guessability | P(never), 6 games | mean guessability |\n|---|---|---|---|---|\n");
    for beta in BETAS {
        let row = format!("beta = {beta}");
        out.push_str(&format!(
            "| {beta} | {:.4} | {:.4} | {:.4} | {:.4} |\n",
            find(rows, t4, &row, "P(never), 4 games"),
            find(rows, t4, &row, "mean guessability, 4 games"),
            find(rows, t4, &row, "P(never), 6 games"),
            find(rows, t4, &row, "mean guessability, 6 games"),
        ));
    }
    let tm = "MH vs exact, 15 players, 5 roles, beta = 1";
    out.push_str(&format!(
        "\nRaising beta makes a player who never gets to be the werewolf rarer and the next werewolf easier to \
         guess; uniform dealing (beta = 0) has guessability 1/4. Guessability is the largest single-player \
         probability of being the werewolf before each game, averaged over the k games.\n\n\
         MH against the exact marginals (15 players, 5 role types, beta = 1): after 10^6 steps one chain's \
         marginal TV is {:.4}, against {:.4} for 10^6 independent exact draws; a chain needs {:.0} steps on \
         average (after {BURN_IN} burn-in steps) to bring it under 0.01. The exact dynamic-programming sampler \
         needs no burn-in and its samples are independent.\n\n\
         Burn-in, exactly (the chain's law on the paper's 11-player example, pushed through the transition \
         matrix from a uniformly random start): the law is within 0.01 of the target in total variation \
         over all 55,440 assignments after {:.0} steps, and its marginals after {:.0} steps, so the default \
         burn-in of 1,000 steps is ample there.\n",
        find(rows, tm, "1000000 steps", "marginal TV, one MH chain"),
        find(rows, tm, "1000000 steps", "marginal TV, as many exact draws"),
        find(rows, tm, "steps until marginal TV < 0.01", "mean over chains"),
        find(rows, "MH burn-in, 11-player example, beta = 1 (exact law of the chain)", "steps until < 0.01 (start: uniform)", "TV over assignments"),
        find(rows, "MH burn-in, 11-player example, beta = 1 (exact law of the chain)", "steps until < 0.01 (start: uniform)", "marginal TV"),
    ));
    out
}

const DISCUSSION: &str = "
Why they differ:

- **p at beta = 1** (0.027, 0.1081, 0.4324, 0.4324). The paper defines q = exp(-beta E) and says
  beta = 1, but with E = (10, 8, 6, 6) that gives p = (0.0085, 0.0628, 0.4643, 0.4643). The paper's
  numbers are exactly 2^-E normalised, (1, 4, 16, 16) / 37, i.e. beta = ln 2 with base e: the
  `beta = ln 2` rows equal them to every digit the paper prints. We keep the paper's formula (base e)
  as the definition of beta and report both: the rows name their reading, `beta=1` (the default:
  eq. (1.1) 「q(i) = exp(-β E(i))」 with 「β=1として具体的に計算すると」) and `beta=ln 2` (the printed
  numbers).
- **55,400 assignments**: C(11,3) x 8 x 7 x 6 = 165 x 336 = 55,440, and enumeration lists 55,440
  distinct assignments. The paper misprints the product.
- **0.906** for 4 players and 4 games: the exact value is 1 - 4!/4^4 = 0.90625; the paper rounds it.
  The simulated row's interval contains 0.906.
- **0.297** for 4 players and 6 games: the paper's own formula, 1 - C(6,4) 4! 4^2 / 4^6, is negative
  (C(6,4) 4! 4^2 = 5,760 > 4^6 = 4,096: it counts some sequences more than once). The exact value,
  by inclusion-exclusion, 4 (3/4)^6 - 6 (1/2)^6 + 4 (1/4)^6 = 0.6191, and simulation (20,000 runs
  of 6 uniformly dealt games) agrees with 0.6191, not with 0.297. Uniform dealing is even less fair
  than the paper says.

";

const REGENERATE: &str = "
Regenerate: `cargo build --release -p yomi -p yomi-roles && ./target/release/yomi repro roles > bots/roles/REPRODUCTION.md`.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_probabilities_name_their_reading() {
        let rows = paper_four_rows().unwrap();
        let p: Vec<&Row> = rows.iter().filter(|r| r.row.starts_with("p(")).collect();
        assert_eq!(p.len(), 8);
        let reading = |name: &str| -> Vec<&Row> {
            p.iter().copied().filter(|r| r.reading.as_deref() == Some(name)).collect()
        };
        let (literal, printed) = (reading("beta=1"), reading("beta=ln 2"));
        assert_eq!((literal.len(), printed.len()), (4, 4));
        // The printed numbers are q = 2^-E; eq. (1.1) at its beta = 1 is not.
        assert!(printed.iter().all(|r| agrees_at_paper_precision(r) == Some(true)));
        assert!(literal.iter().all(|r| agrees_at_paper_precision(r) == Some(false)));
        assert!(rows.iter().filter(|r| r.row.starts_with("E(")).all(|r| r.reading.is_none()));
    }

    #[test]
    fn rounding_to_the_papers_digits() {
        let row = |seed: f64, ours: f64| Row::at("t", "r", "c").ours(ours, 1).paper(seed);
        assert_eq!(agrees_at_paper_precision(&row(0.906, 0.90625)), Some(true));
        assert_eq!(agrees_at_paper_precision(&row(0.4324, 0.432_432_4)), Some(true));
        assert_eq!(agrees_at_paper_precision(&row(0.297, 0.619_140_6)), Some(false));
        assert_eq!(agrees_at_paper_precision(&row(55_400.0, 55_440.0)), Some(false));
    }
}
