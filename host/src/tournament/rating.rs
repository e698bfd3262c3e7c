//! Pairwise tallies of results and the SPRT for two-bot comparisons (the standings' ratings are
//! fitted jointly, in [`super::ladder`]).
//!
//! Multi-seat games are reduced to pairwise comparisons (a bot beats another in a game when its
//! score is higher; equal scores are a draw), so the same arithmetic serves two- and n-player
//! games.

use serde::{Deserialize, Serialize};
use yomi_protocol::ops::tournaments::{Pairwise, Sprt};

use super::stats::{sprt_bounds, Outcomes, SprtModel};

/// The arithmetic of a bot's pairwise results against the rest of the field (the protocol's
/// [`Pairwise`], which the standings report as they are).
pub trait Tally {
    /// Counts one comparison: a higher score wins, an equal one draws.
    fn add(&mut self, my_score: f64, their_score: f64);
    /// Comparisons counted.
    fn n(&self) -> u64;
    /// Mean score per comparison (win 1, draw 0.5).
    fn score(&self) -> f64;
}

impl Tally for Pairwise {
    fn add(&mut self, my_score: f64, their_score: f64) {
        if my_score > their_score {
            self.wins += 1;
        } else if my_score < their_score {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    fn n(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    fn score(&self) -> f64 {
        if self.n() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.n() as f64
    }
}

/// Parameters of a sequential probability ratio test: H0 Elo = elo0 against H1 Elo = elo1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SprtSpec {
    pub elo0: f64,
    pub elo1: f64,
    #[serde(default = "five_percent")]
    pub alpha: f64,
    #[serde(default = "five_percent")]
    pub beta: f64,
    /// How `elo0` and `elo1` are read: logistic Elo (the default) or normalized Elo.
    #[serde(default, skip_serializing_if = "is_logistic")]
    pub model: SprtModel,
}

fn is_logistic(model: &SprtModel) -> bool {
    *model == SprtModel::Logistic
}

fn five_percent() -> f64 {
    0.05
}

impl SprtSpec {
    /// Parses `elo0,elo1[,alpha,beta]`.
    pub fn parse(text: &str) -> Result<SprtSpec, String> {
        let parts: Vec<f64> = text
            .split(',')
            .map(|p| {
                p.trim().parse::<f64>().map_err(|_| format!("`{p}` in --sprt is not a number"))
            })
            .collect::<Result<_, _>>()?;
        let spec = match parts[..] {
            [elo0, elo1] => {
                SprtSpec { elo0, elo1, alpha: 0.05, beta: 0.05, model: SprtModel::Logistic }
            }
            [elo0, elo1, alpha, beta] => {
                SprtSpec { elo0, elo1, alpha, beta, model: SprtModel::Logistic }
            }
            _ => return Err("--sprt takes elo0,elo1 or elo0,elo1,alpha,beta".into()),
        };
        spec.check()?;
        Ok(spec)
    }

    pub fn check(&self) -> Result<(), String> {
        let ok = self.elo0.is_finite() && self.elo1.is_finite() && self.elo1 > self.elo0;
        let probs = (0.0..0.5).contains(&self.alpha)
            && (0.0..0.5).contains(&self.beta)
            && self.alpha > 0.0
            && self.beta > 0.0;
        if ok && probs {
            Ok(())
        } else {
            Err("SPRT needs finite elo0 < elo1 and 0 < alpha, beta < 0.5".into())
        }
    }

    /// Where the test stands on the two bots' outcomes so far (the pentanomial counts of a
    /// tournament played in pairs, else the trinomial): the generalized log-likelihood ratio of
    /// fishtest's `LLRcalc` (see [`Outcomes::llr`]), 0 before any outcome.
    pub fn state(&self, outcomes: Option<&Outcomes>) -> Sprt {
        let (lower, upper) = sprt_bounds(self.alpha, self.beta);
        let llr = outcomes.map_or(0.0, |o| o.llr(self.elo0, self.elo1, self.model));
        let decision = if llr >= upper {
            "H1"
        } else if llr <= lower {
            "H0"
        } else {
            "continue"
        };
        Sprt { llr, lower, upper, decision: decision.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprt_accepts_clear_results() {
        let spec = SprtSpec::parse("0,20").unwrap();
        let decide = |counts: &[u64]| spec.state(Outcomes::new(counts).as_ref()).decision;
        // Games lost, drawn, won by the first bot; then pairs of 0, ½, 1, 1½, 2 points.
        assert_eq!(decide(&[100, 0, 900]), "H1");
        assert_eq!(decide(&[900, 0, 100]), "H0");
        assert_eq!(decide(&[5, 0, 5]), "continue");
        assert_eq!(decide(&[10, 20, 100, 150, 120]), "H1");
        assert_eq!(decide(&[120, 150, 100, 20, 10]), "H0");
        assert_eq!(spec.state(None).decision, "continue", "nothing counted yet");
        assert!(SprtSpec::parse("10,0").is_err());
        assert!(SprtSpec::parse("0,10,0.6,0.05").is_err());
    }

    #[test]
    fn the_state_is_the_outcomes_llr_with_fishtests_bounds() {
        let spec = SprtSpec { model: SprtModel::Normalized, ..SprtSpec::parse("0,5").unwrap() };
        let outcomes = Outcomes::new(&[31, 402, 2112, 436, 40]).unwrap();
        let state = spec.state(Some(&outcomes));
        assert_eq!(state.llr, outcomes.llr(0.0, 5.0, SprtModel::Normalized));
        assert_eq!((state.lower, state.upper), sprt_bounds(0.05, 0.05));
    }
}
