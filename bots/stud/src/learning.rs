//! Rule modification (spec §3.6): after each game, every estimation of that game modifies the
//! tendency of its strongest-firing rule by the fuzzy modification amount (Table 3.3), turned
//! into an actual change by the 5-value history (Table 3.4).

use std::collections::VecDeque;
use std::sync::Arc;

use serde::Serialize;

use crate::estimate::{Scores, Tendencies};
use crate::fuzzy::{centroid, NZP, STRONG, WEAK};

/// What one estimation leaves for learning.
#[derive(Debug, Clone)]
pub struct Record {
    pub rule: usize,
    pub expect: f64,
    pub com: f64,
    pub scores: Arc<Scores>,
    /// How many of the opponent's cards (in dealing order) it held at that moment.
    pub opp_cards: usize,
}

/// Table 3.3: estimated × actual strength → modification amount in [−10, 10].
pub fn modification(estimated: f64, actual: f64) -> f64 {
    let h = [WEAK.mu(estimated), STRONG.mu(estimated)];
    let i = [WEAK.mu(actual), STRONG.mu(actual)];
    // (H, I) → N/Z/P index: (weak, weak) Z, (weak, strong) P, (strong, weak) N, (strong, strong) Z.
    let table = [[1, 2], [0, 1]];
    let mut clipped = Vec::with_capacity(4);
    for (hi, hm) in h.iter().enumerate() {
        for (ii, im) in i.iter().enumerate() {
            clipped.push((NZP[table[hi][ii]], hm.min(*im)));
        }
    }
    centroid(-10.0, 10.0, &clipped, 0.0)
}

/// Table 3.4: mean of the past modifications × latest → actual change in [−10, 10].
pub fn change(past_mean: f64, latest: f64) -> f64 {
    // Rows K = N, Z, P; columns L = N, Z, P.
    let table = [[0, 0, 1], [0, 1, 2], [1, 2, 2]];
    let mut clipped = Vec::with_capacity(9);
    for (k, km) in NZP.iter().enumerate() {
        for (l, lm) in NZP.iter().enumerate() {
            let w = km.mu(past_mean).min(lm.mu(latest));
            if w > 0.0 {
                clipped.push((NZP[table[k][l]], w));
            }
        }
    }
    centroid(-10.0, 10.0, &clipped, 0.0)
}

/// One applied change, kept for the tendency graphs and the style classifier.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Change {
    pub game: u64,
    pub rule: usize,
    pub modification: f64,
    pub change: f64,
    pub tendency: f64,
}

/// The learnt state against one opponent.
#[derive(Debug, Clone)]
pub struct Learner {
    pub tendencies: Tendencies,
    histories: Vec<VecDeque<f64>>,
    pub history_len: usize,
    pub log: Vec<Change>,
    /// How often each rule was the strongest-firing rule of an estimation.
    pub firings: [u64; 18],
}

impl Learner {
    pub fn new(initial: f64, history_len: usize) -> Learner {
        Learner {
            tendencies: [initial; 18],
            histories: vec![VecDeque::new(); 18],
            history_len,
            log: vec![],
            firings: [0; 18],
        }
    }

    /// Learns from a finished game's records, given the opponent's seven cards in dealing order.
    pub fn learn(&mut self, game: u64, records: &[Record], opp_score: impl Fn(usize) -> f64) {
        for r in records {
            let actual = r.scores.cdf(r.com) - r.scores.cdf(opp_score(r.opp_cards));
            let q = modification(r.expect, actual);
            let h = &mut self.histories[r.rule];
            let k = if h.is_empty() { 0.0 } else { h.iter().sum::<f64>() / h.len() as f64 };
            let m = change(k, q);
            let t = &mut self.tendencies[r.rule];
            *t = (*t + m).clamp(0.0, 100.0);
            h.push_back(q);
            if h.len() > self.history_len {
                h.pop_front();
            }
            self.log.push(Change { game, rule: r.rule, modification: q, change: m, tendency: *t });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modification_signs_follow_table_3_3() {
        assert!(modification(-0.8, 0.8) > 3.0);
        assert!(modification(0.8, -0.8) < -3.0);
        assert!(modification(0.8, 0.8).abs() < 1e-9);
        assert!(modification(-0.8, 0.8) < 6.7, "the P centroid is 20/3");
    }

    #[test]
    fn change_follows_table_3_4_and_is_bounded() {
        assert!(change(5.0, 5.0) > 0.0);
        assert!(change(-5.0, -5.0) < 0.0);
        assert!(change(5.0, -5.0).abs() < 1e-9);
        for (k, l) in [(6.67, 6.67), (-6.67, -6.67), (0.0, 6.67)] {
            assert!(change(k, l).abs() < 6.7);
        }
    }
}
