//! The players of the plugin, and what they share: the move type and the choice among scored
//! moves (argmax at temperature 0, softmax sampling above it).

pub mod baseline;
pub mod dvalue;
pub mod readings;
pub mod student;

use rand::Rng;
use serde::Serialize;
use yomi_plugin::think::{self, entropy_bits, Effort};

pub use crate::payload::Action as Move;
use dvalue::Phase;

/// A move with its score and the rules that gave it; in `explain`, `{"action", "score",
/// "rules"}`.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    #[serde(rename = "action")]
    pub mv: Move,
    pub score: f64,
    pub rules: Vec<&'static str>,
}

impl Scored {
    pub fn new(mv: Move) -> Scored {
        Scored { mv, score: 0.0, rules: Vec::new() }
    }

    pub fn add(&mut self, points: f64, rule: &'static str) {
        self.score += points;
        self.rules.push(rule);
    }
}

/// Sevens' think-time model (README, "Think time"): a card takes under a second when it is the
/// only one, longer with more playable cards, close scores and in the middle game, where holding
/// decides the hand.
pub const THINK: think::Model = think::Model {
    base: 700.0,
    per_choice: 400.0,
    per_doubt: 600.0,
    per_stage: 500.0,
    sigma: 0.35,
};

/// Score differences a person still weighs against each other: the doubt of a decision is the
/// entropy of the softmax of the scores at this temperature (or the bot's own, if higher).
const DELIBERATION: f64 = 2.0;

/// What makes a choice among `scored` hard for a player at `temperature`, at `phase`.
pub fn effort(scored: &[Scored], temperature: f64, phase: Phase) -> Effort {
    let stage = match phase {
        Phase::Opening => 0.0,
        Phase::Middle => 1.0,
        Phase::Endgame => 0.5,
    };
    let doubt = entropy_bits(&probabilities(scored, temperature.max(DELIBERATION)));
    Effort { choices: scored.len(), doubt, stage }
}

/// Index of the chosen move: the first best at temperature 0; otherwise a draw with probability
/// proportional to exp(score / temperature), so better moves stay likelier but none is certain.
pub fn choose(scored: &[Scored], temperature: f64, rng: &mut impl Rng) -> usize {
    let best = scored.iter().map(|s| s.score).fold(f64::NEG_INFINITY, f64::max);
    if temperature <= 0.0 || scored.len() == 1 {
        return scored.iter().position(|s| s.score == best).unwrap_or(0);
    }
    let weights: Vec<f64> = scored.iter().map(|s| ((s.score - best) / temperature).exp()).collect();
    let mut x = rng.gen::<f64>() * weights.iter().sum::<f64>();
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    scored.len() - 1
}

/// The policy of a player that draws among `scored` by [`choose`]: each move with its
/// [`probabilities`].
pub fn policy(scored: &[Scored], temperature: f64) -> Vec<(Move, f64)> {
    scored.iter().map(|s| s.mv).zip(probabilities(scored, temperature)).collect()
}

/// Softmax probabilities of the moves at `temperature` (for `explain`).
pub fn probabilities(scored: &[Scored], temperature: f64) -> Vec<f64> {
    let best = scored.iter().map(|s| s.score).fold(f64::NEG_INFINITY, f64::max);
    if temperature <= 0.0 {
        let first = scored.iter().position(|s| s.score == best).unwrap_or(0);
        return (0..scored.len()).map(|i| if i == first { 1.0 } else { 0.0 }).collect();
    }
    let weights: Vec<f64> = scored.iter().map(|s| ((s.score - best) / temperature).exp()).collect();
    let sum: f64 = weights.iter().sum();
    weights.iter().map(|w| w / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Card;
    use yomi_plugin::rng::seeded;

    fn scored(scores: &[f64]) -> Vec<Scored> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &s)| Scored {
                mv: Move::Play(Card::new(0, i as u8 + 1)),
                score: s,
                rules: vec![],
            })
            .collect()
    }

    #[test]
    fn zero_temperature_takes_the_first_best() {
        assert_eq!(choose(&scored(&[1.0, 3.0, 3.0]), 0.0, &mut seeded(1)), 1);
    }

    #[test]
    fn softmax_frequencies_follow_the_scores() {
        let s = scored(&[0.0, 1.0]);
        let mut rng = seeded(7);
        let n = 20_000;
        let hits = (0..n).filter(|_| choose(&s, 1.0, &mut rng) == 1).count() as f64 / n as f64;
        let p = probabilities(&s, 1.0)[1];
        assert!((p - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert!((hits - p).abs() < 0.02, "{hits} vs {p}");
    }
}
