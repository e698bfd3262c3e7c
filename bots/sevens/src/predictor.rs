//! Readability, measured: an observer that learns online which kind of move a player makes in each
//! kind of situation and predicts the next one (the most frequent choice so far in the same
//! situation features). A player that the observer predicts well is one people can read.
//!
//! Situation features: phase (board D: >80, >40, rest), ahead or behind (hand D against the board's
//! share), own passes left against the opponents' (fewer, equal, more), number of playable cards
//! (1, 2, 3+) and whether a pass is safe. A move is described by what a person would notice:
//! "pass", or the card's distance from 7 and whether the player holds cards further out (0, 1, 2+).
//! Only decisions with at least two legal actions are scored.

use std::collections::HashMap;

use serde_json::Value;

use crate::card::Card;
use crate::payload::PASS;
use crate::view::View;

type Situation = (u8, bool, std::cmp::Ordering, usize, bool);

/// What a person notices about a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Pass,
    Card { distance: u8, beyond: usize },
}

fn kind(view: &View, action: &Value) -> Option<Kind> {
    match action.as_str()? {
        PASS => Some(Kind::Pass),
        text => {
            let card = Card::parse(text).ok()?;
            Some(Kind::Card { distance: card.distance(), beyond: view.own_beyond(card).min(2) })
        }
    }
}

fn situation(view: &View) -> Situation {
    let j = view.judge();
    let phase = if j.board_d > 80 {
        0
    } else if j.board_d > 40 {
        1
    } else {
        2
    };
    (
        phase,
        j.ahead,
        view.my_passes().cmp(&view.opponents_passes()),
        view.cards.len().min(3),
        view.can_pass_safely(),
    )
}

/// The online most-frequent-choice predictor and its running score.
#[derive(Debug, Default)]
pub struct Predictor {
    counts: HashMap<Situation, HashMap<Kind, u32>>,
    pub predictions: u64,
    pub hits: u64,
}

impl Predictor {
    /// Predicts the move for `view` (legal actions `legal`), then learns the move actually made.
    /// Returns whether the prediction was right, or None for a forced move.
    pub fn observe(&mut self, view: &View, legal: &[Value], actual: &Value) -> Option<bool> {
        if legal.len() < 2 {
            return None;
        }
        let key = situation(view);
        let seen = self.counts.entry(key).or_default();
        let mut guess = &legal[0];
        let mut best = 0;
        for action in legal {
            let n = kind(view, action).and_then(|k| seen.get(&k)).copied().unwrap_or(0);
            if n > best {
                best = n;
                guess = action;
            }
        }
        let hit = guess == actual;
        if let Some(k) = kind(view, actual) {
            *seen.entry(k).or_default() += 1;
        }
        self.predictions += 1;
        self.hits += u64::from(hit);
        Some(hit)
    }

    pub fn accuracy(&self) -> f64 {
        if self.predictions == 0 {
            0.0
        } else {
            self.hits as f64 / self.predictions as f64
        }
    }
}
