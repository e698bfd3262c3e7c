//! The calls a host makes on an open agent or game handle, as JSON. The same shape crosses the C
//! ABI and the pipes of a `yomi worker` child process.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_protocol::{ActRequest, ErrorCode, ErrorInfo, Options};

use crate::api::{Agent, AgentContext, Game, GameOver};

/// A request to open a handle.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Open {
    Agent { bot: String, options: Options, context: AgentContext },
    Game { game: String, options: Options, seed: u64 },
}

/// A call on an open handle.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    Act(ActRequest),
    Observe {
        event: Value,
    },
    GameOver(GameOver),
    Configure {
        options: Options,
    },
    Service {
        method: String,
        #[serde(default)]
        params: Value,
    },
    Decisions,
    Apply {
        actions: Vec<(usize, Value)>,
    },
    Outcome,
    DefaultAction {
        seat: usize,
    },
}

/// The reply to any call: the JSON result or an error.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallReply {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

impl From<Result<Value, ErrorInfo>> for CallReply {
    fn from(r: Result<Value, ErrorInfo>) -> CallReply {
        match r {
            Ok(v) => CallReply { ok: true, result: Some(v), error: None },
            Err(e) => CallReply { ok: false, result: None, error: Some(e) },
        }
    }
}

impl From<CallReply> for Result<Value, ErrorInfo> {
    fn from(r: CallReply) -> Result<Value, ErrorInfo> {
        match (r.ok, r.result, r.error) {
            (true, result, _) => Ok(result.unwrap_or(Value::Null)),
            (false, _, Some(e)) => Err(e),
            (false, _, None) => {
                Err(ErrorInfo::new(ErrorCode::Internal, "plugin replied not-ok without an error"))
            }
        }
    }
}

/// An open handle on the plugin side.
pub enum Handle {
    Agent(Box<dyn Agent>),
    Game(Box<dyn Game>),
}

impl Handle {
    /// Dispatches one call to the agent or game behind the handle.
    pub fn dispatch(&mut self, call: Call) -> Result<Value, ErrorInfo> {
        match (self, call) {
            (Handle::Agent(a), Call::Act(req)) => to_json(&a.act(&req)?),
            (Handle::Agent(a), Call::Observe { event }) => a.observe(&event).map(|_| Value::Null),
            (Handle::Agent(a), Call::GameOver(over)) => a.game_over(&over).map(|_| Value::Null),
            (Handle::Agent(a), Call::Configure { options }) => {
                a.configure(&options).map(|_| Value::Null)
            }
            (Handle::Agent(a), Call::Service { method, params }) => a.call(&method, &params),
            (Handle::Game(g), Call::Decisions) => to_json(&g.decisions()),
            (Handle::Game(g), Call::Apply { actions }) => g.apply(&actions),
            (Handle::Game(g), Call::Outcome) => to_json(&g.outcome()),
            (Handle::Game(g), Call::DefaultAction { seat }) => to_json(&g.default_action(seat)),
            (Handle::Agent(_), other) => Err(wrong_kind("an agent", &other)),
            (Handle::Game(_), other) => Err(wrong_kind("a game", &other)),
        }
    }
}

fn wrong_kind(kind: &str, call: &Call) -> ErrorInfo {
    let name =
        serde_json::to_value(call).ok().and_then(|v| v.get("call").cloned()).unwrap_or_default();
    ErrorInfo::new(ErrorCode::InvalidRequest, format!("call {name} does not apply to {kind}"))
}

/// Serializes a reply value; a failure here is a bug in the plugin's types.
fn to_json<T: Serialize>(value: &T) -> Result<Value, ErrorInfo> {
    serde_json::to_value(value)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("reply does not serialize: {e}")))
}
