//! The automatic style classifier (beyond the seed, spec §5.3): tight/loose × aggressive/passive
//! from the opponent's betting statistics, which the seed read by eye from tendency graphs.
//!
//! - aggressive ⇔ at least [`BIG_SHARE`] of the opponent's opens and raises exceed 0.7 of the
//!   pot they faced (a passive player keeps below that; the seed's passive models are capped
//!   there, and "rarely bets large" is the seed's reading of passive humans);
//! - tight ⇔ of the games that reach turn 5, the share the opponent drops from turn 5 on
//!   reaches [`LATE_DROP`] (a tight player drops whenever it judges itself behind).
//!
//! Thresholds come from the full reproduction's per-model means (REPRODUCTION.md, "classifier
//! features"), so the confusion matrix there is in-sample for the tight/loose threshold. The
//! share of late bets above half the pot (the seed's "Much" rules) and the share of showdowns the
//! opponent loses are reported too; both separated the models worse.

use serde_json::{json, Value};

/// Aggressive when at least this share of opens and raises is above 0.7 of the pot.
pub const BIG_SHARE: f64 = 0.05;
/// Tight when at least this share of the games reaching turn 5 ends with its late drop (models
/// over 36 runs each: tight 0.47–0.48, loose 0.41).
pub const LATE_DROP: f64 = 0.44;
/// Games needed before a verdict.
pub const MIN_GAMES: u64 = 20;

/// Betting statistics of one opponent, from the public events.
#[derive(Debug, Clone, Default)]
pub struct OppStats {
    pub games: u64,
    pub late_bets: u64,
    pub late_much: u64,
    pub raises: u64,
    pub big_raises: u64,
    pub reached_turn5: u64,
    pub late_drops: u64,
    pub showdowns: u64,
    /// Showdowns the opponent lost: it stayed in with the weaker hand.
    pub showdown_losses: u64,
}

impl OppStats {
    pub fn observe(&mut self, event: &Value, opp_seat: usize) {
        if event["kind"] == "bet" && event["seat"].as_u64() == Some(opp_seat as u64) && event["act"] != "drop" {
            let (paid, pot) = (event["paid"].as_u64().unwrap_or(0), event["pot"].as_u64().unwrap_or(0));
            let before = pot.saturating_sub(paid).max(1);
            if event["turn"].as_u64().unwrap_or(0) >= 3 {
                self.late_bets += 1;
                if paid as f64 / before as f64 > 0.5 {
                    self.late_much += 1;
                }
            }
            if event["act"] == "open" || event["act"] == "raise" {
                self.raises += 1;
                if paid as f64 / before as f64 > 0.7 {
                    self.big_raises += 1;
                }
            }
        }
        if let Some(end) = event.get("end") {
            self.games += 1;
            if end["ending"] == "showdown" {
                self.showdowns += 1;
                self.showdown_losses += u64::from(end["winner"].as_u64() == Some(1 - opp_seat as u64));
            }
            if end["turn"].as_u64().unwrap_or(0) >= 5 {
                self.reached_turn5 += 1;
                if end["ending"] == "drop" && end["winner"].as_u64() != Some(opp_seat as u64) {
                    self.late_drops += 1;
                }
            }
        }
    }

    pub fn much_share(&self) -> f64 {
        self.late_much as f64 / self.late_bets.max(1) as f64
    }

    pub fn late_drop_rate(&self) -> f64 {
        self.late_drops as f64 / self.reached_turn5.max(1) as f64
    }

    pub fn big_share(&self) -> f64 {
        self.big_raises as f64 / self.raises.max(1) as f64
    }

    pub fn showdown_loss_rate(&self) -> f64 {
        self.showdown_losses as f64 / self.showdowns.max(1) as f64
    }

    pub fn summary(&self) -> Value {
        json!({"games": self.games, "much_share": self.much_share(), "late_drop_rate": self.late_drop_rate(), "big_share": self.big_share(), "showdown_loss_rate": self.showdown_loss_rate()})
    }
}

/// A detected style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub tight: bool,
    pub aggressive: bool,
}

impl Style {
    pub fn label(self) -> &'static str {
        match (self.tight, self.aggressive) {
            (true, true) => "tight-aggressive",
            (true, false) => "tight-passive",
            (false, true) => "loose-aggressive",
            (false, false) => "loose-passive",
        }
    }
}

/// The style, once [`MIN_GAMES`] games have been seen.
pub fn classify(stats: &OppStats) -> Option<Style> {
    (stats.games >= MIN_GAMES).then(|| Style { tight: stats.late_drop_rate() >= LATE_DROP, aggressive: stats.big_share() >= BIG_SHARE })
}
