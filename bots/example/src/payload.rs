//! Rock-paper-scissors' payloads, defined once: the referee ([`crate::game`]) writes them and the
//! `rps` bot reads them.
//!
//! A request's observation flows so: the host hands the bot the JSON the referee wrote from
//! [`Observation`]; the kit's typed adapter (`yomi_plugin::typed`) reads it back into
//! [`Observation`] and each `legal` entry into a [`Hand`], checks them against
//! [`Observation::legal`] (refusing a misfit as `invalid_params` naming the field), and writes
//! the bot's [`Hand`] back as its name. The catalog publishes the three types as JSON Schema.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use yomi_plugin::{ErrorCode, ErrorInfo};

/// What a seat is shown before a throw. Every field may be left out by an external client: the
/// bot reads only `opponent_last`, so `{"opponent_last": "rock"}` (or `{}`) is a whole request.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Observation {
    /// The seat shown (0 or 1).
    pub seat: usize,
    /// The throw about to be made, from 1.
    pub round: usize,
    /// Throws in the game.
    pub rounds: usize,
    /// Both seats' hands of every throw so far, seat 0's first.
    pub history: Vec<[Hand; 2]>,
    /// The other seat's last hand; none before the first throw.
    pub opponent_last: Option<Hand>,
    /// Both seats' points so far (1 a win, ½ a tie).
    pub score: [f64; 2],
}

/// What a resolved throw reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// The throw just made, from 1.
    pub round: usize,
    /// Both seats' hands, seat 0's first.
    pub hands: [Hand; 2],
    /// Both seats' points after it.
    pub score: [f64; 2],
}

impl yomi_plugin::typed::Observation for Observation {
    type Action = Hand;
    type Event = Event;

    /// Every throw, every time.
    fn legal(&self) -> Vec<Hand> {
        Hand::ALL.to_vec()
    }
}

/// A hand; in JSON, its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Hand {
    Rock,
    Paper,
    Scissors,
}

impl Hand {
    pub const ALL: [Hand; 3] = [Hand::Rock, Hand::Paper, Hand::Scissors];

    pub fn name(self) -> &'static str {
        match self {
            Hand::Rock => "rock",
            Hand::Paper => "paper",
            Hand::Scissors => "scissors",
        }
    }

    pub fn parse(text: &str) -> Result<Hand, ErrorInfo> {
        Hand::ALL.into_iter().find(|h| h.name() == text).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::IllegalAction,
                format!("`{text}` is not a hand (rock, paper, scissors)"),
            )
        })
    }

    /// The hand that beats this one.
    pub fn beaten_by(self) -> Hand {
        match self {
            Hand::Rock => Hand::Paper,
            Hand::Paper => Hand::Scissors,
            Hand::Scissors => Hand::Rock,
        }
    }

    /// 1 for a win, 0.5 for a tie, 0 for a loss.
    pub fn score_against(self, other: Hand) -> f64 {
        if self == other {
            0.5
        } else if other.beaten_by() == self {
            1.0
        } else {
            0.0
        }
    }
}
