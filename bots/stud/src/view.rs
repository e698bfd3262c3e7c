//! A bot's reading of an observation ([`crate::payload::Observation`], already checked against
//! the rules by the typed adapter): its cards, the money, the history as the player uses it, and
//! the amount ranges of the legal bets.

use crate::cards::Card;
use crate::payload::{Act, Action, Observation, Phase, Who};

/// One betting action of this game as the player reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Past {
    pub turn: u8,
    pub mine: bool,
    pub act: Act,
    pub paid: u64,
    pub pot_before: u64,
}

/// The amount range of a legal betting action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legal {
    Open { min: u64, max: u64 },
    Call { amount: u64 },
    Raise { min: u64, max: u64 },
}

/// A checked observation as the bots read it.
#[derive(Debug, Clone)]
pub struct View {
    pub seat: usize,
    pub position: usize,
    pub game: u64,
    pub turn: u8,
    pub reveal: bool,
    pub pot: u64,
    pub hole: Vec<Card>,
    pub up: Vec<Card>,
    pub opp_up: Vec<Card>,
    pub opp_hole_count: usize,
    pub history: Vec<Past>,
    pub legal: Vec<Legal>,
    /// The observation's own legal actions, in its order (what the baselines draw among, so a
    /// seed plays the same whatever order a caller lists them in).
    pub offered: Vec<Action>,
}

impl View {
    /// The bots' reading of a checked observation.
    pub fn new(obs: &Observation) -> View {
        let history = obs
            .history
            .iter()
            .map(|p| Past {
                turn: p.turn,
                mine: p.who == Who::Me,
                act: p.act,
                paid: p.paid,
                pot_before: p.pot_before,
            })
            .collect();
        View {
            seat: obs.seat,
            position: obs.position,
            game: obs.game,
            turn: obs.turn,
            reveal: obs.phase == Phase::Reveal,
            pot: obs.pot,
            hole: obs.hole.clone(),
            up: obs.up.clone(),
            opp_up: obs.opp_up.clone(),
            opp_hole_count: obs.opp_hole_count,
            history,
            legal: obs.legal.iter().filter_map(Self::legal).collect(),
            offered: obs.legal.clone(),
        }
    }

    fn legal(action: &Action) -> Option<Legal> {
        match *action {
            Action::Bet { act: Act::Open, min: Some(min), max: Some(max), .. } => {
                Some(Legal::Open { min, max })
            }
            Action::Bet { act: Act::Call, amount: Some(amount), .. } => {
                Some(Legal::Call { amount })
            }
            Action::Bet { act: Act::Raise, min: Some(min), max: Some(max), .. } => {
                Some(Legal::Raise { min, max })
            }
            _ => None,
        }
    }

    /// All my cards.
    pub fn own(&self) -> Vec<Card> {
        [self.hole.clone(), self.up.clone()].concat()
    }

    /// True when I answer a raise (only call or drop remain).
    pub fn facing_raise(&self) -> bool {
        !self.reveal
            && !self.legal.iter().any(|l| matches!(l, Legal::Open { .. } | Legal::Raise { .. }))
    }

    /// The betting bounds `(lower, upper)` of my amount decision: an open's range, or from the
    /// call amount to the raise maximum.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        let mut lower = None;
        let mut upper = None;
        for l in &self.legal {
            match *l {
                Legal::Open { min, max } => return Some((min, max)),
                Legal::Call { amount } => lower = Some(amount),
                Legal::Raise { max, .. } => upper = Some(max),
            }
        }
        Some((lower?, upper.unwrap_or(lower?)))
    }
}

/// The action for a bet of `amount` chips within `bounds()`: an open, a call (the amount equals
/// the call) or a raise.
pub fn bet_action(view: &View, amount: u64) -> Action {
    for l in &view.legal {
        match *l {
            Legal::Open { .. } => return Action::bet(Act::Open, Some(amount)),
            Legal::Call { amount: due } if amount <= due || view.facing_raise() => {
                return Action::bet(Act::Call, None)
            }
            _ => {}
        }
    }
    Action::bet(Act::Raise, Some(amount))
}
