//! Pairwise tallies of results and the SPRT for two-bot comparisons (the standings' ratings are
//! fitted jointly, in [`super::ladder`]).
//!
//! Multi-seat games are reduced to pairwise comparisons (a bot beats another in a game when its
//! score is higher; equal scores are a draw), so the same arithmetic serves two- and n-player
//! games.

use serde::{Deserialize, Serialize};
use yomi_protocol::ops::tournaments::{Pairwise, Sprt};

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
            [elo0, elo1] => SprtSpec { elo0, elo1, alpha: 0.05, beta: 0.05 },
            [elo0, elo1, alpha, beta] => SprtSpec { elo0, elo1, alpha, beta },
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

    /// The log-likelihood ratio of the results so far (win/draw/loss of the first bot), with the
    /// normal approximation used by chess engine testing (the GSPRT of fishtest and cutechess),
    /// and where the test stands with it.
    pub fn state(&self, t: &Pairwise) -> Sprt {
        let lower = (self.beta / (1.0 - self.alpha)).ln();
        let upper = ((1.0 - self.beta) / self.alpha).ln();
        let n = t.n() as f64;
        let llr = if t.wins == 0 || t.losses == 0 || n == 0.0 {
            0.0
        } else {
            let (w, d) = (t.wins as f64 / n, t.draws as f64 / n);
            let s = w + d / 2.0;
            let var = (w + d / 4.0 - s * s) / n;
            let s0 = 1.0 / (1.0 + 10f64.powf(-self.elo0 / 400.0));
            let s1 = 1.0 / (1.0 + 10f64.powf(-self.elo1 / 400.0));
            (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
        };
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
        assert_eq!(spec.state(&Pairwise { wins: 900, draws: 0, losses: 100 }).decision, "H1");
        assert_eq!(spec.state(&Pairwise { wins: 100, draws: 0, losses: 900 }).decision, "H0");
        assert_eq!(spec.state(&Pairwise { wins: 5, draws: 0, losses: 5 }).decision, "continue");
        assert!(SprtSpec::parse("10,0").is_err());
        assert!(SprtSpec::parse("0,10,0.6,0.05").is_err());
    }
}
