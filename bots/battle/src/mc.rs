//! The primitive Monte Carlo player (paper §5.1): for each pair of its and the opponent's actions,
//! random playouts to the end; an action's score is its wins summed over the opponent's actions;
//! `greedy` plays the best score, `soft-max` samples p ∝ exp(score/τ) (τ unstated in the paper;
//! spec U15 suggests 2 on raw win counts). Draws count as no win.

use rand::Rng;
use yomi_plugin::api::opt;
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec, Options};

use crate::engine::{Action, Engine, State, Status};
use crate::explain::Explanation;

/// The options of the `mc` bot.
pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::choice(
            "policy",
            "soft-max",
            &["greedy", "soft-max"],
            "greedy: the best score; soft-max: sample p ∝ exp(score/τ)",
        ),
        OptionSpec::int(
            "playouts",
            20,
            Some(1),
            Some(10_000),
            "random playouts per action pair (the paper: 20, so 500 per 5×5 decision)",
        ),
        OptionSpec::float(
            "temperature",
            2.0,
            Some(1e-6),
            None,
            "soft-max temperature τ on raw win counts",
        ),
        OptionSpec::int(
            "replacement_playouts",
            100,
            Some(1),
            Some(100_000),
            "playouts per candidate when replacing a fainted Pokémon (the best is taken)",
        ),
    ]
}

/// A Monte Carlo player's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mc {
    pub greedy: bool,
    pub playouts: usize,
    pub temperature: f64,
    pub replacement_playouts: usize,
}

impl Mc {
    pub fn from_options(options: &Options) -> Result<Mc, ErrorInfo> {
        let mc = Mc {
            greedy: opt::str(options, "policy")? == "greedy",
            playouts: opt::i64(options, "playouts")?.max(0) as usize,
            temperature: opt::f64(options, "temperature")?,
            replacement_playouts: opt::i64(options, "replacement_playouts")?.max(0) as usize,
        };
        if mc.playouts == 0
            || mc.replacement_playouts == 0
            || !(mc.temperature.is_finite() && mc.temperature > 0.0)
        {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                "playouts must be ≥ 1 and the temperature finite and > 0",
            ));
        }
        Ok(mc)
    }

    /// The strategy for `side` in a turn (over its legal actions) and the scores behind it.
    pub fn turn(
        &self,
        engine: &Engine,
        s: &State,
        side: usize,
        rng: &mut impl Rng,
    ) -> (Vec<f64>, Explanation) {
        let mine = engine.legal(s, side);
        let theirs = engine.legal(s, 1 - side);
        let mut scores = vec![0.0; mine.len()];
        for (i, a) in mine.as_slice().iter().enumerate() {
            for b in theirs.as_slice() {
                let pair = if side == 0 { [*a, *b] } else { [*b, *a] };
                let next = engine.resolve(s, pair);
                scores[i] += (0..self.playouts)
                    .filter(|_| wins(playout(engine, &next, rng), side))
                    .count() as f64;
            }
        }
        let probs =
            if self.greedy { one_hot_best(&scores) } else { softmax(&scores, self.temperature) };
        (probs, scores_shown(scores))
    }

    /// The replacement: the candidate with the most playout wins.
    pub fn replacement(
        &self,
        engine: &Engine,
        s: &State,
        side: usize,
        rng: &mut impl Rng,
    ) -> (Vec<f64>, Explanation) {
        let candidates = engine.replacements(s, side);
        let scores: Vec<f64> = candidates
            .as_slice()
            .iter()
            .map(|a| {
                let Action::Switch(k) = *a else { unreachable!("replacements are switches") };
                let next = engine.replace(s, side, k);
                (0..self.replacement_playouts)
                    .filter(|_| wins(playout(engine, &next, rng), side))
                    .count() as f64
            })
            .collect();
        (one_hot_best(&scores), scores_shown(scores))
    }
}

fn scores_shown(scores: Vec<f64>) -> Explanation {
    Explanation { scores: Some(scores), ..Explanation::default() }
}

fn wins(party1_score: f64, side: usize) -> bool {
    if side == 0 {
        party1_score == 1.0
    } else {
        party1_score == 0.0
    }
}

/// Plays uniformly random actions and replacements to the end; party 1's score.
pub fn playout(engine: &Engine, s: &State, rng: &mut impl Rng) -> f64 {
    let mut s = *s;
    loop {
        match engine.status(&s) {
            Status::Over(v) => return v,
            Status::Replace(side) => {
                let c = engine.replacements(&s, side);
                let Action::Switch(k) = c.as_slice()[rng.gen_range(0..c.len())] else {
                    unreachable!("replacements are switches")
                };
                s = engine.replace(&s, side, k);
            }
            Status::Play => {
                let (a, b) = (engine.legal(&s, 0), engine.legal(&s, 1));
                let pair = [
                    a.as_slice()[rng.gen_range(0..a.len())],
                    b.as_slice()[rng.gen_range(0..b.len())],
                ];
                s = engine.resolve(&s, pair);
            }
        }
    }
}

/// All weight on the first best score.
fn one_hot_best(scores: &[f64]) -> Vec<f64> {
    let best = scores.iter().enumerate().fold(0, |b, (k, x)| if *x > scores[b] { k } else { b });
    (0..scores.len()).map(|k| if k == best { 1.0 } else { 0.0 }).collect()
}

fn softmax(scores: &[f64], temperature: f64) -> Vec<f64> {
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = scores.iter().map(|x| ((x - top) / temperature).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_takes_the_first_best_and_softmax_orders_by_score() {
        assert_eq!(one_hot_best(&[3.0, 7.0, 7.0]), vec![0.0, 1.0, 0.0]);
        let p = softmax(&[10.0, 12.0, 4.0], 2.0);
        assert!(p[1] > p[0] && p[0] > p[2]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((p[1] / p[0] - 1f64.exp()).abs() < 1e-9);
    }
}
