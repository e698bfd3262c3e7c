//! The automatic style classifier (beyond the seed, spec §5.3): tight/loose × aggressive/passive
//! from the opponent's betting statistics, which the seed read by eye from tendency graphs.
//!
//! - aggressive ⇔ the share of the opponent's middle/end-game bets (turns ≥ 3) that fire the
//!   "Much" rules (bet > half the pot it faced) reaches [`MUCH_SHARE`];
//! - loose ⇔ the opponent loses at least [`SHOWDOWN_LOSS`] of the showdowns it reaches (a loose
//!   player stays to the end with hands weaker than it estimated; a tight one only when ahead).
//!
//! The thresholds are midpoints between the model opponents' means in a 150-game calibration
//! run (`yomi repro stud --sets 1 --games 150`); the late-drop rate is reported as evidence but
//! separated the models worse (REPRODUCTION.md, "classifier features").

use serde_json::{json, Value};

/// Aggressive when at least this share of late bets is above half the pot (models: aggressive
/// 0.54–0.56, passive 0.35).
pub const MUCH_SHARE: f64 = 0.45;
/// Loose when at least this share of its showdowns is lost (models: tight 0.17–0.28, loose
/// 0.44–0.58).
pub const SHOWDOWN_LOSS: f64 = 0.36;
/// Games needed before a verdict.
pub const MIN_GAMES: u64 = 20;

/// Betting statistics of one opponent, from the public events.
#[derive(Debug, Clone, Default)]
pub struct OppStats {
    pub games: u64,
    pub late_bets: u64,
    pub late_much: u64,
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
            if event["turn"].as_u64().unwrap_or(0) >= 3 {
                self.late_bets += 1;
                let before = pot.saturating_sub(paid).max(1);
                if paid as f64 / before as f64 > 0.5 {
                    self.late_much += 1;
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

    pub fn showdown_loss_rate(&self) -> f64 {
        self.showdown_losses as f64 / self.showdowns.max(1) as f64
    }

    pub fn summary(&self) -> Value {
        json!({"games": self.games, "much_share": self.much_share(), "late_drop_rate": self.late_drop_rate(), "showdown_loss_rate": self.showdown_loss_rate()})
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
    (stats.games >= MIN_GAMES).then(|| Style { tight: stats.showdown_loss_rate() < SHOWDOWN_LOSS, aggressive: stats.much_share() >= MUCH_SHARE })
}
