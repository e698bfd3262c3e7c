//! How the superiority estimate leans under readings of (3.1)–(3.2) other than the coded one,
//! with neutral tendencies (so `result` = `expect`), on the reproduction's deal set 0 (seed 196):
//! the share of deals in which an actor judges itself behind and in which both do, at turns 1,
//! 3 and 5 (REPRODUCTION.md, "The estimate leans to behind"). Run with
//! `cargo run --release -p yomi-stud --example estimate_readings`.
//!
//! - `mean` (the code): F(com) − F(hum_expect), hum_expect the mean rank-refined score (3.1);
//! - `E[F]`: F(com) − Σ F(s_i)·p1(s_i), the expectation taken of F rather than of the score;
//! - `category mean`: hum_expect over the 0–9 category scores, as (3.1)'s 点数 s_i reads, F
//!   over rank-refined scores;
//! - `mid-CDF`: F(x) = P(score < x) + P(score = x)/2 at both points;
//! - `category-only`: scores, mean and F all on categories (`score_mode=category-only`).

use yomi_stud::cards::{Card, DealSet};
use yomi_stud::estimate::{opponent_scores, Scores, Scoring};
use yomi_stud::hand::{EvalRules, ScoreMode};

const REFINED: Scoring = Scoring { mode: ScoreMode::RankRefined, eval: EvalRules { wheel: true } };
const CATEGORY: Scoring =
    Scoring { mode: ScoreMode::CategoryOnly, eval: EvalRules { wheel: true } };
const READINGS: [&str; 5] = ["mean", "E[F]", "category mean", "mid-CDF", "category-only"];

fn mid_cdf(scores: &Scores, x: f64) -> f64 {
    let below: f64 = scores.masses().filter(|(v, _)| *v < x).map(|(_, m)| m).sum();
    let equal: f64 = scores.masses().filter(|(v, _)| *v == x).map(|(_, m)| m).sum();
    below + equal / 2.0
}

/// `expect` under each reading for `own` against `opp_up` with `hole` unknown cards.
fn expects(own: &[Card], opp_up: &[Card], hole: usize) -> [f64; 5] {
    let refined = opponent_scores(own, opp_up, hole, REFINED);
    let category = opponent_scores(own, opp_up, hole, CATEGORY);
    let com = REFINED.score(own);
    let p = refined.cdf(com);
    let hum_expect = refined.mean();
    let com_category = CATEGORY.score(own);
    [
        p - refined.cdf(hum_expect),
        p - refined.masses().map(|(s, m)| m * refined.cdf(s)).sum::<f64>(),
        p - refined.cdf(category.mean()),
        mid_cdf(&refined, com) - mid_cdf(&refined, hum_expect),
        category.cdf(com_category) - category.cdf(category.mean()),
    ]
}

fn main() {
    let set = DealSet::seeded(196, 500);
    println!("| turn | reading | an actor behind | both behind |\n|---|---|---|---|");
    for turn in [1usize, 3, 5] {
        let (mut behind, mut both) = ([0usize; 5], [0usize; 5]);
        for d in &set.deals {
            let own = |pos: usize| d.cards[pos][..(turn + 2).min(7)].to_vec();
            let up = |pos: usize| d.cards[pos][2..(turn + 2).min(6)].to_vec();
            let hole = if turn < 5 { 2 } else { 3 };
            let (a, b) = (expects(&own(0), &up(1), hole), expects(&own(1), &up(0), hole));
            for r in 0..READINGS.len() {
                behind[r] += usize::from(a[r] < 0.0) + usize::from(b[r] < 0.0);
                both[r] += usize::from(a[r] < 0.0 && b[r] < 0.0);
            }
        }
        let n = set.deals.len() as f64;
        for (r, name) in READINGS.iter().enumerate() {
            let (one, two) = (behind[r] as f64 / (2.0 * n), both[r] as f64 / n);
            println!("| {turn} | {name} | {one:.3} | {two:.3} |");
        }
    }
}
