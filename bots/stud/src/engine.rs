//! The rules of one game (spec §2.2–2.4), as a state machine over *positions*: position 0 acts
//! first in every interval, position 1 second. The referee maps seats onto positions.
//!
//! Betting protocol per interval, verified against the paper's six game records:
//! first: drop or open x (1 ≤ x ≤ pot); second: drop, call x, or raise y (x < y ≤ pot, the pot
//! already holding x); after a raise, first: drop or call y − x. One raise per interval, no check.

use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::cards::{Card, Deal};
use crate::hand::{evaluate, EvalRules, HandValue, TieRule};

/// Each player's ante (spec §2.2).
pub const ANTE: u64 = 5;
/// The smallest opening bet (spec §2.4).
pub const MIN_OPEN: u64 = 1;

/// Where an interval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The first actor opens or drops.
    Open,
    /// The second actor answers an open of `open`.
    Respond { open: u64 },
    /// The first actor answers a raise to `raise` over its open `open`.
    FaceRaise { open: u64, raise: u64 },
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Drop {
        by: usize,
    },
    /// `winner` is None for a draw.
    Showdown {
        winner: Option<usize>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Bet(Stage),
    /// Both players choose a hole card to turn up, before intervals 6 and 7.
    Reveal,
    Over(Ending),
}

/// A betting action. Amounts are the chips put in by that action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Drop,
    Open(u64),
    Call,
    Raise(u64),
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Drop => "drop",
            Action::Open(_) => "open",
            Action::Call => "call",
            Action::Raise(_) => "raise",
        }
    }
}

/// One betting action as it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Logged {
    pub turn: u8,
    pub position: usize,
    pub action: Action,
    /// Chips put in by the action.
    pub paid: u64,
    /// The pot just before the action (the base of the opponent-bet normalisation).
    pub pot_before: u64,
}

/// One game of seven-card stud between two positions.
#[derive(Debug, Clone)]
pub struct StudGame {
    pub deal: Deal,
    /// The betting interval, 1..=7.
    pub turn: u8,
    pub phase: Phase,
    pub pot: u64,
    pub contrib: [u64; 2],
    /// Hole cards turned up, in the order they were shown.
    pub revealed: [Vec<Card>; 2],
    pub log: Vec<Logged>,
    pub tie_rule: TieRule,
    pub eval: EvalRules,
}

fn illegal(m: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::IllegalAction, m)
}

impl StudGame {
    /// Antes are paid and the first three cards dealt; interval 1 waits for position 0.
    pub fn new(deal: Deal, tie_rule: TieRule, eval: EvalRules) -> StudGame {
        StudGame {
            deal,
            turn: 1,
            phase: Phase::Bet(Stage::Open),
            pot: 2 * ANTE,
            contrib: [ANTE; 2],
            revealed: [vec![], vec![]],
            log: vec![],
            tie_rule,
            eval,
        }
    }

    /// Cards dealt to each position so far.
    pub fn dealt(&self) -> usize {
        if self.turn <= 4 {
            self.turn as usize + 2
        } else {
            7
        }
    }

    /// Every card the position holds now.
    pub fn cards(&self, pos: usize) -> &[Card] {
        &self.deal.cards[pos][..self.dealt()]
    }

    /// The position's face-down cards (known to it alone).
    pub fn hole(&self, pos: usize) -> Vec<Card> {
        let c = &self.deal.cards[pos];
        let mut hole = vec![c[0], c[1]];
        if self.dealt() == 7 {
            hole.push(c[6]);
        }
        hole.retain(|h| !self.revealed[pos].contains(h));
        hole
    }

    /// The position's face-up cards: the up cards dealt, then the revealed hole cards.
    pub fn up(&self, pos: usize) -> Vec<Card> {
        let d = self.dealt().min(6);
        let mut up = self.deal.cards[pos][2..d].to_vec();
        up.extend(&self.revealed[pos]);
        up
    }

    pub fn hand(&self, pos: usize) -> HandValue {
        evaluate(self.cards(pos), self.eval)
    }

    /// The position that must bet now, if any.
    pub fn to_act(&self) -> Option<usize> {
        match self.phase {
            Phase::Bet(Stage::Open | Stage::FaceRaise { .. }) => Some(0),
            Phase::Bet(Stage::Respond { .. }) => Some(1),
            _ => None,
        }
    }

    /// Applies a betting action of `pos`. Nothing changes on an error.
    pub fn bet(&mut self, pos: usize, action: Action) -> Result<(), ErrorInfo> {
        let Phase::Bet(stage) = self.phase else {
            return Err(illegal("no betting now".into()));
        };
        if self.to_act() != Some(pos) {
            return Err(illegal(format!("it is not position {}'s turn to bet", pos + 1)));
        }
        let pot = self.pot;
        let (paid, next) = match (stage, action) {
            (_, Action::Drop) => (0, None),
            (Stage::Open, Action::Open(x)) if (MIN_OPEN..=pot).contains(&x) => {
                (x, Some(Phase::Bet(Stage::Respond { open: x })))
            }
            (Stage::Open, Action::Open(x)) => {
                return Err(illegal(format!(
                    "an open must be between {MIN_OPEN} and the pot {pot}, not {x}"
                )))
            }
            (Stage::Respond { open }, Action::Call) => (open, None),
            (Stage::Respond { open }, Action::Raise(y)) if y > open && y <= pot => {
                (y, Some(Phase::Bet(Stage::FaceRaise { open, raise: y })))
            }
            (Stage::Respond { open }, Action::Raise(y)) => {
                return Err(illegal(format!(
                    "a raise must be above the open {open} and at most the pot {pot}, not {y}"
                )))
            }
            (Stage::FaceRaise { open, raise }, Action::Call) => (raise - open, None),
            (Stage::FaceRaise { .. }, Action::Raise(_)) => {
                return Err(illegal("only one raise per interval".into()))
            }
            (s, a) => {
                return Err(illegal(format!("`{}` is not allowed {}", a.name(), stage_text(s))))
            }
        };
        self.log.push(Logged { turn: self.turn, position: pos, action, paid, pot_before: pot });
        self.pot += paid;
        self.contrib[pos] += paid;
        self.phase = match (action, next) {
            (Action::Drop, _) => Phase::Over(Ending::Drop { by: pos }),
            (_, Some(p)) => p,
            (_, None) => self.end_interval(),
        };
        Ok(())
    }

    fn end_interval(&mut self) -> Phase {
        if self.turn == 7 {
            let (a, b) = (self.hand(0).key(self.tie_rule), self.hand(1).key(self.tie_rule));
            let winner = match a.cmp(&b) {
                std::cmp::Ordering::Greater => Some(0),
                std::cmp::Ordering::Less => Some(1),
                std::cmp::Ordering::Equal => None,
            };
            return Phase::Over(Ending::Showdown { winner });
        }
        self.turn += 1;
        if self.turn >= 6 {
            Phase::Reveal
        } else {
            Phase::Bet(Stage::Open)
        }
    }

    /// The simultaneous reveal: `cards[pos]` is the hole card position `pos` turns up.
    pub fn reveal(&mut self, cards: [Card; 2]) -> Result<(), ErrorInfo> {
        if self.phase != Phase::Reveal {
            return Err(illegal("no reveal now".into()));
        }
        for (pos, c) in cards.iter().enumerate() {
            if !self.hole(pos).contains(c) {
                return Err(illegal(format!(
                    "{c} is not a face-down card of position {}",
                    pos + 1
                )));
            }
        }
        for (pos, c) in cards.iter().enumerate() {
            self.revealed[pos].push(*c);
        }
        self.phase = Phase::Bet(Stage::Open);
        Ok(())
    }

    /// Chips won (+) or lost (−) by each position, once the game is over: the loser's whole
    /// contribution moves to the winner; a draw moves nothing.
    pub fn net(&self) -> Option<[i64; 2]> {
        let Phase::Over(end) = self.phase else { return None };
        let c = [self.contrib[0] as i64, self.contrib[1] as i64];
        // `loser` pays its whole contribution to the other position.
        let loser = match end {
            Ending::Drop { by } => Some(by),
            Ending::Showdown { winner } => winner.map(|w| 1 - w),
        };
        Some(match loser {
            Some(l) => {
                let mut n = [c[l]; 2];
                n[l] = -c[l];
                n
            }
            None => [0, 0],
        })
    }
}

fn stage_text(s: Stage) -> &'static str {
    match s {
        Stage::Open => "before the interval is opened (open or drop)",
        Stage::Respond { .. } => "in answer to an open (call, raise or drop)",
        Stage::FaceRaise { .. } => "after a raise (call or drop)",
    }
}
