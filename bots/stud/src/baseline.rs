//! The two baseline bots: `random` (uniform over the legal kinds of action, amounts skewed toward
//! small as people bet) and `calling-station` (never drops, always opens or calls the minimum).

use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::{json, Value};
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::{ActReply, ActRequest, Agent, ErrorCode, ErrorInfo, Options};

use crate::view::{bet_action, View};

/// Which baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Random,
    CallingStation,
}

pub struct Baseline {
    kind: Kind,
    rng: SeededRng,
}

impl Baseline {
    pub fn new(kind: Kind, seed: u64) -> Baseline {
        Baseline { kind, rng: seeded(seed) }
    }

    fn choose(&mut self, view: &View, legal: &[Value]) -> Result<Value, ErrorInfo> {
        let none = || ErrorInfo::new(ErrorCode::BotError, "no legal action offered");
        if view.reveal {
            return match self.kind {
                Kind::Random => legal.choose(&mut self.rng).cloned().ok_or_else(none),
                Kind::CallingStation => legal.first().cloned().ok_or_else(none),
            };
        }
        let (lower, upper) = view.bounds().ok_or_else(none)?;
        match self.kind {
            Kind::CallingStation => Ok(bet_action(view, lower)),
            Kind::Random => {
                let entry = legal.choose(&mut self.rng).ok_or_else(none)?;
                Ok(match entry.get("act").and_then(Value::as_str) {
                    Some("open") | Some("raise") => {
                        let min = entry["min"].as_u64().unwrap_or(lower);
                        let max = entry["max"].as_u64().unwrap_or(upper).max(min);
                        // u² puts most bets near the minimum; the pot is still reachable.
                        let u: f64 = self.rng.gen();
                        let amount = min + ((max - min) as f64 * u * u).round() as u64;
                        json!({"act": entry["act"], "amount": amount})
                    }
                    _ => json!({"act": entry["act"]}),
                })
            }
        }
    }
}

impl Agent for Baseline {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let view = View::read(request)?;
        Ok(ActReply::new(self.choose(&view, &view.offered)?))
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }
}
