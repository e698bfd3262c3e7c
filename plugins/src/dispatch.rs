//! The plugin side of a call: an open handle (the bot's agent or game) and the dispatch of each
//! call to the author's traits. The wire shapes are in [`call`](crate::call); the C entry points
//! that carry them in [`abi`](crate::abi).

use serde_json::value::RawValue;
use serde_json::Value;
use yomi_protocol::{ActReply, ErrorCode, ErrorInfo, PolicyEntry};

use crate::api::{Agent, Game};
use crate::call::{
    unreadable, ActText, Answer, Apply, Call, Configure, DefaultAction, Incoming, Observe, Service,
};

/// An open handle on the plugin side.
pub enum Handle {
    /// An agent, which takes agent calls.
    Agent(Box<dyn Agent>),
    /// A game, which takes game calls.
    Game(Box<dyn Game>),
}

impl Handle {
    /// Dispatches one call as a plugin reads it (see [`Incoming`]).
    pub fn dispatch_incoming(&mut self, call: Incoming) -> Result<Answer, ErrorInfo> {
        match (self, call) {
            (Handle::Agent(a), Incoming::Act(request)) => {
                let mut answer = || match request.policy {
                    true => {
                        let (reply, policy) = a.act_with_policy_text(&request)?;
                        with_policy(Some(policy), reply)
                    }
                    false => with_policy(None, a.act_text(&request)?),
                };
                answer().map_err(|e| request.refusal(e))
            }
            (Handle::Game(_), Incoming::Act(_)) => Err(does_not_apply("\"act\"", "a game")),
            (handle, Incoming::Other(call)) => handle.dispatch(call),
        }
    }

    /// Dispatches one call to the agent or game behind the handle.
    pub fn dispatch(&mut self, call: Call) -> Result<Answer, ErrorInfo> {
        let json = |v: Result<Value, ErrorInfo>| v.map(Answer::Json);
        match (self, call) {
            // Policy and action asked together go the one way a call as it arrives does
            // (`Agent::act_with_policy_text`), so a bot that shares their work does it once here too.
            (handle, Call::Act(req)) if req.policy => {
                let (observation, legal) = (raw(&req.observation)?, raw(&req.legal)?);
                handle.dispatch_incoming(Incoming::Act(ActText {
                    observation: &observation,
                    legal: &legal,
                    explain: req.explain,
                    policy: true,
                    clock: req.clock,
                }))
            }
            (Handle::Agent(a), Call::Act(req)) => with_policy(None, a.act(&req)?),
            (Handle::Agent(a), Call::Observe(Observe { event })) => {
                json(a.observe(&event).map(|_| Value::Null))
            }
            (Handle::Agent(a), Call::GameOver(over)) => {
                json(a.game_over(&over).map(|_| Value::Null))
            }
            (Handle::Agent(a), Call::Configure(Configure { options })) => {
                json(a.configure(&options).map(|_| Value::Null))
            }
            (Handle::Agent(a), Call::Service(Service { method, params })) => {
                json(a.call(&method, &params))
            }
            (Handle::Game(g), Call::Decisions) => Ok(Answer::Decisions(g.decisions())),
            (Handle::Game(g), Call::Apply(Apply { actions })) => json(g.apply(&actions)),
            (Handle::Game(g), Call::Outcome) => Ok(Answer::Outcome(g.outcome())),
            (Handle::Game(g), Call::DefaultAction(DefaultAction { seat })) => {
                Ok(Answer::DefaultAction(g.default_action(seat)))
            }
            (Handle::Agent(_), other) => Err(wrong_kind("an agent", &other)),
            (Handle::Game(_), other) => Err(wrong_kind("a game", &other)),
        }
    }
}

/// A decision with the policy asked before it, checked against it (see [`crate::policy::attach`]).
/// The think time's distribution goes with the policy only: a plain decision stays as it was.
fn with_policy(policy: Option<Vec<PolicyEntry>>, reply: ActReply) -> Result<Answer, ErrorInfo> {
    match policy {
        Some(policy) => crate::policy::attach(policy, reply).map(Answer::Decision),
        None => Ok(Answer::Decision(ActReply { think_model: None, ..reply })),
    }
}

/// A value as the JSON text a call carries it in.
fn raw(value: &impl serde::Serialize) -> Result<Box<RawValue>, ErrorInfo> {
    serde_json::value::to_raw_value(value).map_err(|e| unreadable(&e))
}

fn wrong_kind(kind: &str, call: &Call) -> ErrorInfo {
    let name =
        serde_json::to_value(call).ok().and_then(|v| v.get("call").cloned()).unwrap_or_default();
    does_not_apply(&name.to_string(), kind)
}

fn does_not_apply(call: &str, kind: &str) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidRequest, format!("call {call} does not apply to {kind}"))
}
