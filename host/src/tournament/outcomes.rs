//! Each two-bot pairing's outcomes, counted as [`super::stats`] reads them: the three results of
//! a game (trinomial) or, in a tournament played in pairs, the five of a pair (pentanomial), all
//! from the pairing's first bot's side. Pairings of more than two bots keep their summed scores
//! only: their games are not one bot against another.

use std::collections::HashMap;

use yomi_protocol::ops::tournaments::{Pairing, Pairwise};

use super::finished::Finished;
use super::rating::Tally;
use super::stats::{Estimate, Outcomes};

/// One pairing's counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// Games lost, drawn, won.
    pub trinomial: [u64; 3],
    /// Finished pairs by points 0, ½, 1, 1½, 2.
    pub pentanomial: [u64; 5],
    /// The first bot's points in pairs whose other game is not finished yet, by pair.
    waiting: HashMap<u64, f64>,
}

impl Counts {
    /// Counts one game of the pairing `members` (nothing unless exactly two bots meet).
    pub fn add(&mut self, members: &[usize], game: &Finished) {
        let [first, second] = members else { return };
        let seat = |bot: &usize| game.slot.seats.iter().position(|b| b == bot);
        let (Some(a), Some(b)) = (seat(first), seat(second)) else { return };
        let mut result = Pairwise::default();
        result.add(game.scores[a], game.scores[b]);
        let points = result.score();
        self.trinomial[(points * 2.0) as usize] += 1;
        if let Some(pair) = game.slot.pair {
            match self.waiting.remove(&pair) {
                Some(other) => self.pentanomial[((points + other) * 2.0) as usize] += 1,
                None => {
                    self.waiting.insert(pair, points);
                }
            }
        }
    }

    /// The outcomes the statistics read: the pairs' when the games are `paired`, else the
    /// games'; `None` before any was counted.
    pub fn outcomes(&self, paired: bool) -> Option<Outcomes> {
        if paired {
            Outcomes::new(&self.pentanomial)
        } else {
            Outcomes::new(&self.trinomial)
        }
    }

    /// Writes the counts and what they say into the pairing's row: the pentanomial model when
    /// the games are `paired`, the trinomial otherwise, nothing for more than two bots.
    pub fn report(&self, paired: bool, row: &mut Pairing) {
        if row.bots.len() != 2 {
            row.model = "scores".into();
            return;
        }
        if paired {
            row.model = "pentanomial".into();
            row.pentanomial = Some(self.pentanomial);
        } else {
            row.model = "trinomial".into();
            row.trinomial = Some(self.trinomial);
        }
        let summary = self.outcomes(paired).map(|o| o.summary());
        let Some(summary) = summary else { return };
        (row.elo, row.elo_ci95) = tenths(summary.elo);
        (row.nelo, row.nelo_ci95) = tenths(summary.nelo);
        row.los = Some((summary.los * 1e4).round() / 1e4);
    }
}

/// An estimate to one decimal, as the standings show Elo.
fn tenths(e: Estimate) -> (Option<f64>, [Option<f64>; 2]) {
    // `+ 0.0` turns -0.0 into 0.0.
    let round = |x: Option<f64>| x.map(|x| (x * 10.0).round() / 10.0 + 0.0);
    (round(e.value), [round(e.ci95[0]), round(e.ci95[1])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::schedule::Slot;

    fn game(index: u64, seats: [usize; 2], scores: [f64; 2], paired: bool) -> Finished {
        let pair = paired.then_some(index / 2);
        let slot = Slot {
            index,
            pairing: 0,
            seats: seats.to_vec(),
            deal: 0,
            seed: 0,
            pair,
            opening: None,
        };
        Finished { slot, scores: scores.to_vec(), failures: vec![] }
    }

    fn row() -> Pairing {
        Pairing {
            bots: vec!["a".into(), "b".into()],
            games: 0,
            scores: vec![0.0, 0.0],
            model: String::new(),
            pentanomial: None,
            trinomial: None,
            elo: None,
            elo_ci95: [None, None],
            nelo: None,
            nelo_ci95: [None, None],
            los: None,
        }
    }

    /// Pairs count by the first bot's points whichever seat it sat in, once both games are in,
    /// and the figures are what `stats` computes from those counts.
    #[test]
    fn pairs_count_from_the_first_bots_side_once_complete() {
        let mut counts = Counts::default();
        // Pair 0: bot 0 wins in seat 0, draws in seat 1: 1½. Pair 1 arrives out of order:
        // bot 0 loses both: 0. Pair 2: one game only.
        for g in [
            game(0, [0, 1], [1.0, 0.0], true),
            game(3, [1, 0], [1.0, 0.0], true),
            game(1, [1, 0], [0.5, 0.5], true),
            game(2, [0, 1], [0.0, 1.0], true),
            game(4, [0, 1], [1.0, 0.0], true),
        ] {
            counts.add(&[0, 1], &g);
        }
        assert_eq!(counts.pentanomial, [1, 0, 0, 1, 0]);
        assert_eq!(counts.trinomial, [2, 1, 2]);
        let mut paired = row();
        counts.report(true, &mut paired);
        assert_eq!(
            (paired.model.as_str(), paired.pentanomial, paired.trinomial),
            ("pentanomial", Some([1, 0, 0, 1, 0]), None)
        );
        let expected = Outcomes::new(&[1, 0, 0, 1, 0]).unwrap().summary();
        assert_eq!(paired.nelo, expected.nelo.value.map(|x| (x * 10.0).round() / 10.0));
        assert_eq!(paired.los, Some((expected.los * 1e4).round() / 1e4));
        let mut single = row();
        counts.report(false, &mut single);
        assert_eq!((single.model.as_str(), single.trinomial), ("trinomial", Some([2, 1, 2])));
        assert_eq!(single.los, Some(0.5), "as many wins as losses");
    }

    /// A bot that lost everything has no lower Elo bound, and more than two bots no figures.
    #[test]
    fn a_shutout_is_unbounded_and_three_bots_keep_their_scores() {
        let mut counts = Counts::default();
        (0..4).for_each(|i| counts.add(&[0, 1], &game(i, [0, 1], [0.0, 1.0], false)));
        let mut r = row();
        counts.report(false, &mut r);
        assert_eq!(r.trinomial, Some([4, 0, 0]));
        assert_eq!(r.elo_ci95[0], None);
        assert!(r.elo_ci95[1].is_some_and(|x| x < 0.0), "{r:?}");
        let mut three = row();
        three.bots.push("c".into());
        counts.report(false, &mut three);
        assert_eq!((three.model.as_str(), three.trinomial, three.los), ("scores", None, None));
    }
}
