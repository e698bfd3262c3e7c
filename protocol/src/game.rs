//! What crosses between a referee, the host and a playing agent.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One seat's pending decision: what it sees and what it may do. The observation holds only what
/// that seat is allowed to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// The seat that must decide, counted from 0 in the order agents were seated.
    pub seat: usize,
    /// What that seat sees, in the game's own JSON shape (its README documents it).
    pub observation: Value,
    /// The legal actions. For actions with a free parameter (a bet amount) an entry may describe a
    /// range; the game's README says how.
    pub legal: Vec<Value>,
}

/// An agent's decision request. Build it with [`ActRequest::new`] and the `with_` setters, so a
/// field added later touches no caller.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActRequest {
    /// What the agent's seat sees now, as in [`Decision::observation`].
    pub observation: Value,
    /// The actions the agent may choose from; its answer must be one of them.
    pub legal: Vec<Value>,
    /// Ask the bot to return an `explain` object with its reasoning.
    #[serde(default)]
    pub explain: bool,
    /// Ask the bot for the distribution it samples its action from ([`ActReply::policy`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub policy: bool,
    /// The deciding seat's game clock, when the match has a time control (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
}

impl ActRequest {
    /// A request for a decision alone (no reasoning, no policy, no clock).
    pub fn new(observation: Value, legal: Vec<Value>) -> ActRequest {
        ActRequest { observation, legal, ..ActRequest::default() }
    }

    /// The same request, asking for the bot's reasoning or not.
    pub fn with_explain(self, explain: bool) -> ActRequest {
        ActRequest { explain, ..self }
    }

    /// The same request, asking for the bot's policy or not.
    pub fn with_policy(self, policy: bool) -> ActRequest {
        ActRequest { policy, ..self }
    }

    /// The same request with the deciding seat's clock.
    pub fn with_clock(self, clock: Option<Clock>) -> ActRequest {
        ActRequest { clock, ..self }
    }
}

/// A seat's game clock as it stands when the seat is asked to decide: a bot may spend its time
/// by it. A seat that takes longer than `remaining_ms` loses on time. Its fields are in sorted
/// order, so a transcript line written straight from it reads as one written through a JSON map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Clock {
    /// The time added after each of the seat's moves, in milliseconds.
    pub increment_ms: u64,
    /// Moves left until the period's base time is added again; absent when the whole game is one
    /// period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves_to_go: Option<u32>,
    /// The time the seat has left, in milliseconds.
    pub remaining_ms: u64,
}

/// One action of a bot's policy with the probability the bot plays it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PolicyEntry {
    /// An action the bot may play here: one of the request's legal actions, or a concrete amount
    /// within a listed range.
    pub action: Value,
    /// The probability of playing it, above 0; a policy's entries sum to 1.
    pub p: f64,
}

/// An agent's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActReply {
    /// The chosen action: one of the request's legal actions (or within a listed range).
    pub action: Value,
    /// The bot's reasoning, when the request asked for it and the bot gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Value>,
    /// How long a person would take over this decision, in milliseconds (PROTOCOL.md, "Human
    /// think time"): a suggestion for the client's pace; the server never waits on it. None when
    /// the bot has no think-time model or its personality turned it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_ms: Option<u64>,
    /// When the request asked for the policy and the bot suggested a think time: the distribution
    /// `think_ms` was drawn from, so a person's recorded time can be scored against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_model: Option<ThinkModel>,
    /// When the request asked for it (`policy`): every action the bot could have played in this
    /// position and state with the probability it had, the distribution `action` was drawn from
    /// (a pure choice is one entry with p = 1; ties broken at random share their probability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Vec<PolicyEntry>>,
}

impl ActReply {
    /// A decision without an explanation.
    pub fn new(action: Value) -> ActReply {
        ActReply { action, explain: None, think_ms: None, think_model: None, policy: None }
    }

    /// A decision with the bot's reasoning beside it.
    pub fn explained(action: Value, explain: Value) -> ActReply {
        ActReply { action, explain: Some(explain), think_ms: None, think_model: None, policy: None }
    }

    /// The same decision with a suggested think time and its distribution (none leaves it
    /// without one).
    pub fn with_think_ms(mut self, think: Option<Think>) -> ActReply {
        self.think_ms = think.map(|t| t.ms);
        self.think_model = think.map(|t| t.model);
        self
    }
}

/// The distribution a bot draws a decision's think time from (PROTOCOL.md, "Human think time"):
/// log-normal, ln `think_ms` ~ N(ln `median_ms`, `sigma`²), as people's response times are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThinkModel {
    /// The median think time, in milliseconds.
    pub median_ms: f64,
    /// The spread of its logarithm.
    pub sigma: f64,
}

/// A suggested think time and the distribution it was drawn from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Think {
    /// The suggestion, in milliseconds.
    pub ms: u64,
    /// What it was drawn from.
    pub model: ThinkModel,
}

/// The serialized form, built by moving the values (`serde_json::to_value` would copy them).
impl From<ActReply> for Value {
    fn from(reply: ActReply) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("action".into(), reply.action);
        if let Some(explain) = reply.explain {
            map.insert("explain".into(), explain);
        }
        if let Some(ms) = reply.think_ms {
            map.insert("think_ms".into(), ms.into());
        }
        if let Some(model) = reply.think_model {
            let mut fields = serde_json::Map::new();
            fields.insert("median_ms".into(), model.median_ms.into());
            fields.insert("sigma".into(), model.sigma.into());
            map.insert("think_model".into(), Value::Object(fields));
        }
        if let Some(policy) = reply.policy {
            let entries = policy.into_iter().map(|e| {
                let mut entry = serde_json::Map::new();
                entry.insert("action".into(), e.action);
                entry.insert("p".into(), e.p.into());
                Value::Object(entry)
            });
            map.insert("policy".into(), Value::Array(entries.collect()));
        }
        Value::Object(map)
    }
}

/// The end of a game: a score per seat (higher is better; a win/loss game uses 1, 0.5, 0) and a
/// game-specific summary (chips won, finishing order ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameOutcome {
    /// One score per seat, in seat order; higher is better.
    pub scores: Vec<f64>,
    /// Game-specific detail for people and reports; the host does not read it.
    #[serde(default)]
    pub summary: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn act_reply_value_is_its_serialized_form() {
        for reply in [
            ActReply::new(json!("rock")),
            ActReply::explained(json!({"bet": 3}), json!({"why": ["odds", 0.4]})),
            ActReply {
                policy: Some(vec![
                    PolicyEntry { action: json!("rock"), p: 0.25 },
                    PolicyEntry { action: json!("paper"), p: 0.75 },
                ]),
                ..ActReply::new(json!("paper")).with_think_ms(Some(Think {
                    ms: 900,
                    model: ThinkModel { median_ms: 812.5, sigma: 0.3 },
                }))
            },
        ] {
            assert_eq!(Value::from(reply.clone()), serde_json::to_value(&reply).unwrap());
        }
    }
}
