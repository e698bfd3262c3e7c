//! The rules of rock-paper-scissors as a yomi game: both seats choose at once, each round is
//! scored, the higher total after `rounds` throws wins.

use serde::Serialize;
use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::typed::{to_json, Observation as _};
use yomi_plugin::{Decision, ErrorCode, ErrorInfo, Game, GameOutcome, Options};

use crate::payload::{Event, Hand, Observation};

/// A game in progress.
pub struct Rps {
    rounds: usize,
    history: Vec<[Hand; 2]>,
}

impl Rps {
    pub fn new(options: &Options) -> Result<Rps, ErrorInfo> {
        Ok(Rps { rounds: opt::i64(options, "rounds")? as usize, history: Vec::new() })
    }

    fn totals(&self) -> [f64; 2] {
        self.history
            .iter()
            .fold([0.0, 0.0], |[a, b], [x, y]| [a + x.score_against(*y), b + y.score_against(*x)])
    }

    fn observation(&self, seat: usize) -> Observation {
        Observation {
            seat,
            round: self.history.len() + 1,
            rounds: self.rounds,
            history: self.history.clone(),
            opponent_last: self.history.last().map(|h| h[1 - seat]),
            score: self.totals(),
        }
    }
}

impl Game for Rps {
    fn decisions(&self) -> Vec<Decision> {
        if self.history.len() >= self.rounds {
            return vec![];
        }
        (0..2)
            .map(|seat| {
                let observation = self.observation(seat);
                let legal = observation.legal().iter().map(to_json).collect();
                Decision { seat, observation: to_json(&observation), legal }
            })
            .collect()
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        if self.history.len() >= self.rounds {
            return Err(ErrorInfo::new(ErrorCode::IllegalAction, "the game is over"));
        }
        let mut hands = [None, None];
        for (seat, action) in actions {
            let slot = hands.get_mut(*seat).ok_or_else(|| {
                ErrorInfo::new(
                    ErrorCode::IllegalAction,
                    format!("seat {seat}: there are only seats 0 and 1"),
                )
            })?;
            let hand = action.as_str().ok_or_else(|| {
                ErrorInfo::new(
                    ErrorCode::IllegalAction,
                    format!("seat {seat}: an action is a hand name string"),
                )
            })?;
            *slot = Some(
                Hand::parse(hand)
                    .map_err(|e| ErrorInfo::new(e.code, format!("seat {seat}: {}", e.message)))?,
            );
        }
        let [Some(a), Some(b)] = hands else {
            return Err(ErrorInfo::new(ErrorCode::IllegalAction, "both seats must throw a hand"));
        };
        self.history.push([a, b]);
        Ok(to_json(&Event { round: self.history.len(), hands: [a, b], score: self.totals() }))
    }

    fn outcome(&self) -> Option<GameOutcome> {
        if self.history.len() < self.rounds {
            return None;
        }
        let [a, b] = self.totals();
        let scores = if a > b {
            vec![1.0, 0.0]
        } else if a < b {
            vec![0.0, 1.0]
        } else {
            vec![0.5, 0.5]
        };
        Some(GameOutcome {
            scores,
            summary: to_json(&Summary { points: [a, b], rounds: self.history.len() }),
        })
    }
}

/// What a finished game reports beside its scores: both seats' points and the throws made.
#[derive(Serialize)]
struct Summary {
    points: [f64; 2],
    rounds: usize,
}
