//! The automatic style classifier (beyond the paper, spec §5.3): tight/loose × aggressive/passive
//! from the opponent's betting statistics, which the paper read by eye from tendency graphs.
//!
//! - aggressive ⇔ at least [`BIG_SHARE`] of the opponent's opens and raises exceed 0.7 of the
//!   pot they faced (a passive player keeps below that; the paper's passive models are capped
//!   there, and "rarely bets large" is the paper's reading of passive humans);
//! - tight ⇔ of the games that reach turn 5, the share the opponent drops from turn 5 on
//!   reaches [`LATE_DROP`], and at least [`TURN5_SHARE`] of those drops come at turn 5 itself.
//!   §4.2.1's tight system 「第 5 ターンで優劣推定値 result が負であれば、必ずドロップをする」:
//!   it drops at turn 5 whenever behind (about half of those games), and later only when a
//!   reveal turns it from ahead to behind. A loose one drops on the drop table's draw alone: never
//!   under `loose_late=continue`; under the default `table` in about 40 % of those games too, but
//!   spread over turns 5–7, its intention rising with the turn (0.43–0.52 at turn 5, 0.8–0.97 at
//!   turn 7), so about half of its late drops come at turn 5.
//!
//! The thresholds follow from the two styles' definitions, not from the runs; the reproduction's
//! "classifier features" rows show each model's measured shares. The share of late bets above
//! half the pot (the paper's "Much" rules) and the share of showdowns the opponent loses are
//! reported too; both separated the models worse.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::estimate::rule_name;
use crate::learning::Change;
use crate::payload::{Act, Ending, Event, Phase};

/// Aggressive when at least this share of opens and raises is above 0.7 of the pot.
pub const BIG_SHARE: f64 = 0.05;
/// Tight needs at least this share of the games reaching turn 5 to end with its late drop: half
/// of a tight player's share (it drops whenever it judges itself behind, about half of those
/// games); a loose player under `loose_late=continue` never drops late.
pub const LATE_DROP: f64 = 0.25;
/// Tight needs at least this share of its late drops to come at turn 5: halfway between a tight
/// player, nearly all of whose late drops come there, and a loose one under `loose_late=table`,
/// whose drop intention rises over turns 5–7 so that about half come there.
pub const TURN5_SHARE: f64 = 0.75;
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
    /// Games the opponent dropped at turn 5 itself.
    pub turn5_drops: u64,
    pub showdowns: u64,
    /// Showdowns the opponent lost: it stayed in with the weaker hand.
    pub showdown_losses: u64,
}

impl OppStats {
    /// Counts one public event of a game against the opponent in `opp_seat`.
    pub fn observe(&mut self, event: &Event, opp_seat: usize) {
        if let (Phase::Bet, Some(seat), Some(act)) = (event.kind, event.seat, event.act) {
            if seat == opp_seat && act != Act::Drop {
                let (paid, pot) = (event.paid.unwrap_or(0), event.pot.unwrap_or(0));
                let before = pot.saturating_sub(paid).max(1);
                if event.turn >= 3 {
                    self.late_bets += 1;
                    if paid as f64 / before as f64 > 0.5 {
                        self.late_much += 1;
                    }
                }
                if matches!(act, Act::Open | Act::Raise) {
                    self.raises += 1;
                    if paid as f64 / before as f64 > 0.7 {
                        self.big_raises += 1;
                    }
                }
            }
        }
        if let Some(end) = &event.end {
            self.games += 1;
            if end.ending == Ending::Showdown {
                self.showdowns += 1;
                self.showdown_losses += u64::from(end.winner == Some(1 - opp_seat));
            }
            if end.turn >= 5 {
                self.reached_turn5 += 1;
                if end.ending == Ending::Drop && end.winner != Some(opp_seat) {
                    self.late_drops += 1;
                    self.turn5_drops += u64::from(end.turn == 5);
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

    /// The share of its late drops (turns 5–7) made at turn 5 (0 with none).
    pub fn turn5_share(&self) -> f64 {
        self.turn5_drops as f64 / self.late_drops.max(1) as f64
    }

    pub fn big_share(&self) -> f64 {
        self.big_raises as f64 / self.raises.max(1) as f64
    }

    pub fn showdown_loss_rate(&self) -> f64 {
        self.showdown_losses as f64 / self.showdowns.max(1) as f64
    }

    /// The statistics the style is read from.
    pub fn summary(&self) -> Summary {
        Summary {
            games: self.games,
            much_share: self.much_share(),
            late_drop_rate: self.late_drop_rate(),
            turn5_share: self.turn5_share(),
            big_share: self.big_share(),
            showdown_loss_rate: self.showdown_loss_rate(),
        }
    }
}

/// The opponent's statistics behind its detected style (the `style` call's `stats`).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub games: u64,
    pub much_share: f64,
    pub late_drop_rate: f64,
    pub turn5_share: f64,
    pub big_share: f64,
    pub showdown_loss_rate: f64,
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
    (stats.games >= MIN_GAMES).then(|| Style {
        tight: stats.late_drop_rate() >= LATE_DROP && stats.turn5_share() >= TURN5_SHARE,
        aggressive: stats.big_share() >= BIG_SHARE,
    })
}

/// The paper's reading of one rule's tendency curve (§4.3.1, spec §5.3): `monotone-decreasing`
/// (≥ 5 changes, ≥ 80 % of the non-zero ones negative, net ≤ −20), `monotone-increasing` (the
/// mirror), `oscillating` (≥ 5 changes, neither direction reaches 80 %), `steady` (one
/// direction with a net change under 20), or `few-firings`.
pub fn pattern(changes: &[f64]) -> &'static str {
    let nonzero: Vec<f64> = changes.iter().copied().filter(|c| c.abs() > 1e-9).collect();
    if changes.len() < 5 || nonzero.is_empty() {
        return "few-firings";
    }
    let down = nonzero.iter().filter(|c| **c < 0.0).count() as f64 / nonzero.len() as f64;
    let net: f64 = changes.iter().sum();
    match (down, net) {
        (d, n) if d >= 0.8 && n <= -20.0 => "monotone-decreasing",
        (d, n) if d <= 0.2 && n >= 20.0 => "monotone-increasing",
        (d, _) if (0.2..0.8).contains(&d) => "oscillating",
        _ => "steady",
    }
}

/// The pattern of the end-game and Much rules, the ones the paper reads styles from.
pub fn tendency_patterns(log: &[Change]) -> BTreeMap<String, &'static str> {
    let mut out = BTreeMap::new();
    for rule in 0..18 {
        let (end, much) = (rule / 6 == 2, rule % 3 == 2);
        if end || much {
            let changes: Vec<f64> =
                log.iter().filter(|c| c.rule == rule).map(|c| c.change).collect();
            out.insert(rule_name(rule), pattern(&changes));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::End;

    fn bet(seat: usize, turn: u8, act: Act, paid: u64, pot: u64) -> Event {
        let (seat, act, paid, pot) = (Some(seat), Some(act), Some(paid), Some(pot));
        Event { seat, act, paid, pot, ..Event::new(1, turn, Phase::Bet) }
    }

    /// A bet of `seat` at `turn` that ends the game as `ending` with `winner`.
    fn last(seat: usize, turn: u8, act: Act, ending: Ending, winner: usize) -> Event {
        let (net, chips, hands) = ([0, 0], [0, 0], None);
        let end = End { ending, winner: Some(winner), net, chips, pot: 0, turn, hands };
        Event { end: Some(end), ..bet(seat, turn, act, 0, 0) }
    }

    #[test]
    fn a_big_betting_late_dropper_is_tight_aggressive() {
        let mut s = OppStats::default();
        for _ in 0..MIN_GAMES {
            s.observe(&bet(1, 3, Act::Open, 90, 190), 1);
            s.observe(&last(1, 5, Act::Drop, Ending::Drop, 0), 1);
        }
        assert_eq!(classify(&s).map(Style::label), Some("tight-aggressive"));
    }

    #[test]
    fn a_small_betting_stayer_is_loose_passive() {
        let mut s = OppStats::default();
        assert_eq!(classify(&s), None);
        for _ in 0..MIN_GAMES {
            s.observe(&bet(1, 3, Act::Open, 10, 110), 1);
            s.observe(&last(0, 7, Act::Call, Ending::Showdown, 0), 1);
        }
        assert_eq!(classify(&s).map(Style::label), Some("loose-passive"));
        assert_eq!(s.showdown_loss_rate(), 1.0);
    }

    /// Drops at turns 6–7 alone do not make a player tight: a tight one drops at turn 5.
    #[test]
    fn a_player_dropping_only_at_the_end_is_loose() {
        let mut s = OppStats::default();
        for _ in 0..MIN_GAMES {
            s.observe(&last(1, 7, Act::Drop, Ending::Drop, 0), 1);
        }
        assert_eq!(s.late_drop_rate(), 1.0);
        assert_eq!(s.turn5_share(), 0.0);
        assert_eq!(classify(&s).map(|st| st.tight), Some(false));
    }

    #[test]
    fn tendency_patterns_follow_the_seed_reading() {
        assert_eq!(pattern(&[-5.0; 6]), "monotone-decreasing");
        assert_eq!(pattern(&[5.0, -5.0, 5.0, -5.0, 5.0]), "oscillating");
        assert_eq!(pattern(&[-5.0, -5.0]), "few-firings");
    }
}
