//! The two baseline bots: `random` (uniform over the legal kinds of action, amounts skewed toward
//! small as people bet) and `calling-station` (never drops, always opens or calls the minimum).

use rand::seq::SliceRandom;
use rand::Rng;
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::typed::{Choice, TypedAgent};
use yomi_plugin::{ErrorCode, ErrorInfo, Options};

use crate::allowance::PolicyAllowance;
use crate::payload::{Act, Action, Observation};
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
    /// Most bet amounts `random`'s policy may list.
    allowance: PolicyAllowance,
}

impl Baseline {
    pub fn new(kind: Kind, seed: u64) -> Baseline {
        Baseline { kind, rng: seeded(seed), allowance: PolicyAllowance::default() }
    }

    /// The bot under the host's policy allowance (`AgentContext::policy_ms`): `random`'s policy
    /// lists every amount of a bet range, which the client states.
    pub fn with_policy_ms(mut self, policy_ms: Option<u64>) -> Baseline {
        self.allowance = PolicyAllowance::new(policy_ms);
        self
    }

    fn choose(&mut self, view: &View, legal: &[Action]) -> Result<Action, ErrorInfo> {
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
                Ok(match *entry {
                    Action::Bet { act: act @ (Act::Open | Act::Raise), min, max, .. } => {
                        let min = min.unwrap_or(lower);
                        let max = max.unwrap_or(upper).max(min);
                        // u² puts most bets near the minimum; the pot is still reachable.
                        let u: f64 = self.rng.gen();
                        let amount = min + ((max - min) as f64 * u * u).round() as u64;
                        Action::bet(act, Some(amount))
                    }
                    Action::Bet { act, .. } => Action::bet(act, None),
                    reveal => reveal,
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
    fn distribution(&self, view: &View, legal: &[Action]) -> Result<Vec<(Action, f64)>, ErrorInfo> {
        let none = || ErrorInfo::new(ErrorCode::BotError, "no legal action offered");
        if legal.is_empty() {
            return Err(none());
        }
        if view.reveal {
            return Ok(match self.kind {
                Kind::Random => legal.iter().map(|&a| (a, 1.0)).collect(),
                Kind::CallingStation => vec![(legal[0], 1.0)],
            });
        }
        let (lower, upper) = view.bounds().ok_or_else(none)?;
        if self.kind == Kind::CallingStation {
            return Ok(vec![(bet_action(view, lower), 1.0)]);
        }
        // A bet entry's range of amounts, its bounds defaulting to the turn's.
        let range = |min: Option<u64>, max: Option<u64>| {
            let min = min.unwrap_or(lower);
            (min, max.unwrap_or(upper).max(min))
        };
        let amounts = legal.iter().map(|entry| match *entry {
            Action::Bet { act: Act::Open | Act::Raise, min, max, .. } => {
                let (min, max) = range(min, max);
                max - min + 1
            }
            _ => 0,
        });
        self.allowance.check(amounts.fold(0, u64::saturating_add))?;
        let share = 1.0 / legal.len() as f64;
        let mut actions = Vec::new();
        for entry in legal {
            match *entry {
                Action::Bet { act: act @ (Act::Open | Act::Raise), min, max, .. } => {
                    let (min, max) = range(min, max);
                    for k in 0..=max - min {
                        let p = share * squared_amount_chance(max - min, k);
                        actions.push((Action::bet(act, Some(min + k)), p));
                    }
                }
                Action::Bet { act, .. } => actions.push((Action::bet(act, None), share)),
                reveal => actions.push((reveal, share)),
            }
        }
        Ok(actions)
    }
}

/// The baselines draw among the observation's own legal list (`View::offered`), whatever the
/// caller's order.
impl TypedAgent for Baseline {
    type Observation = Observation;

    fn policy(&self, obs: &Observation, _: &[Action]) -> Result<Vec<(Action, f64)>, ErrorInfo> {
        let view = View::new(obs);
        self.distribution(&view, &view.offered)
    }

    fn act(
        &mut self,
        obs: &Observation,
        _: Vec<Action>,
        _: bool,
    ) -> Result<Choice<Action>, ErrorInfo> {
        let view = View::new(obs);
        Ok(Choice::new(self.choose(&view, &view.offered)?))
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }
}
