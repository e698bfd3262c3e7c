//! The two baseline bots: `random` (uniform over the legal kinds of action, amounts skewed toward
//! small as people bet) and `calling-station` (never drops, always opens or calls the minimum).

use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::{json, Value};
use yomi_plugin::policy::{pure, weighted};
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::{ActReply, ActRequest, Agent, ErrorCode, ErrorInfo, Options, PolicyEntry};

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

/// The chance that `min + round((max - min)·u²)` with uniform `u` is `min + k`: `u²` falls in
/// `[k - ½, k + ½]` scaled by the span, so the chance is the difference of the square roots.
fn squared_amount_chance(span: u64, k: u64) -> f64 {
    if span == 0 {
        return 1.0;
    }
    let cdf = |x: f64| (x / span as f64).clamp(0.0, 1.0).sqrt();
    cdf(k as f64 + 0.5) - cdf(k as f64 - 0.5)
}

impl Baseline {
    /// The distribution [`Baseline::choose`] samples from: the calling station's one action, or
    /// each legal kind with equal chance and, for a bet, each amount with its `u²` chance.
    fn distribution(&self, view: &View, legal: &[Value]) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        let none = || ErrorInfo::new(ErrorCode::BotError, "no legal action offered");
        if legal.is_empty() {
            return Err(none());
        }
        if view.reveal {
            return Ok(match self.kind {
                Kind::Random => weighted(legal.iter().map(|a| (a.clone(), 1.0))),
                Kind::CallingStation => pure(legal[0].clone()),
            });
        }
        let (lower, upper) = view.bounds().ok_or_else(none)?;
        if self.kind == Kind::CallingStation {
            return Ok(pure(bet_action(view, lower)));
        }
        let share = 1.0 / legal.len() as f64;
        let mut actions = Vec::new();
        for entry in legal {
            match entry.get("act").and_then(Value::as_str) {
                Some("open") | Some("raise") => {
                    let min = entry["min"].as_u64().unwrap_or(lower);
                    let max = entry["max"].as_u64().unwrap_or(upper).max(min);
                    for k in 0..=max - min {
                        let p = share * squared_amount_chance(max - min, k);
                        actions.push((json!({"act": entry["act"], "amount": min + k}), p));
                    }
                }
                _ => actions.push((json!({"act": entry["act"]}), share)),
            }
        }
        Ok(weighted(actions))
    }
}

impl Agent for Baseline {
    fn policy(&self, request: &ActRequest) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        let view = View::read(request)?;
        self.distribution(&view, &view.offered)
    }

    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let view = View::read(request)?;
        Ok(ActReply::new(self.choose(&view, &view.offered)?))
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }
}
