//! Who sits in a seat, as asked for and as resolved: a bot (in this process or isolated in a worker
//! process), an agent the client's session made (played by the server), or a connected client
//! that answers `your_turn` events with `match.move`.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use yomi_plugin::AgentContext;
use yomi_protocol::options::resolve;
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::served::{Pace, ServedSeat};
use crate::agents::client::{ClientAgent, ClientLink};
use crate::agents::live::LiveAgent;
use crate::agents::scripted::ScriptedAgent;
use crate::agents::{open_bot, runs_apart, AgentHandle, ExplainMode, Placement};
use crate::registry::{BotRef, Registry};
use crate::runtime::costs::Budgets;
use crate::runtime::executor::Scope;

/// A seat as a client or a script asks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SeatSpec {
    Bot(BotSeat),
    /// An agent the client's session made plays this seat, on the server:
    /// `{"agent": "a1", "explain": "step"}`.
    Agent(AgentSeat),
    /// A connected client plays this seat: `{"client": "alice"}`.
    Client {
        client: String,
    },
}

/// An agent seat: the session's agent `agent` decides, so `agent.configure` and `agent.swap`
/// between steps change who plays the seat's next decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentSeat {
    pub agent: String,
    /// Show the agent's reasoning to the match's client seats, and when (see [`ExplainMode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<ExplainMode>,
}

/// A bot seat: `{"bot": "delta-nash", "preset": .., "options": {..}, "isolate": false}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BotSeat {
    pub bot: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(default, skip_serializing_if = "Options::is_empty")]
    pub options: Options,
    /// Run the bot in a `yomi worker` child process.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub isolate: bool,
}

impl BotSeat {
    /// Parses the command-line form `bot[:key=value,...]`. Values are JSON where they parse as
    /// JSON (numbers, booleans, quoted strings) and strings otherwise. Two keys are the seat's own:
    /// `preset=NAME` and `isolate=true`.
    pub fn parse(spec: &str) -> Result<BotSeat, ErrorInfo> {
        let (bot, rest) = spec.split_once(':').unwrap_or((spec, ""));
        if bot.is_empty() {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("`{spec}`: a seat needs a bot name"),
            ));
        }
        let mut seat =
            BotSeat { bot: bot.to_string(), preset: None, options: Options::new(), isolate: false };
        let mut seen = std::collections::HashSet::new();
        for pair in rest.split(',').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    format!("`{pair}` in `{spec}` is not key=value"),
                )
            })?;
            let value: Value =
                serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
            if !seen.insert(key) {
                return Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    format!("`{key}` is given twice in `{spec}`"),
                ));
            }
            match key {
                "preset" => seat.preset = value.as_str().map(String::from),
                "isolate" => seat.isolate = value.as_bool().unwrap_or(false),
                _ => {
                    seat.options.insert(key.to_string(), value);
                }
            }
        }
        Ok(seat)
    }
}

/// A seat resolved against the registry: ready to start agents.
#[derive(Debug, Clone)]
pub enum SeatPlan {
    Bot {
        bot: BotRef,
        options: Options,
        isolate: bool,
    },
    /// A session's agent; `bound` is it, once the session has been asked for it (a replay
    /// plays the recorded moves instead).
    Agent {
        id: String,
        explain: Option<ExplainMode>,
        bound: Option<SessionAgent>,
    },
    Client {
        name: String,
    },
}

/// A session's agent bound to an agent seat.
#[derive(Clone)]
pub struct SessionAgent {
    pub bot: BotRef,
    pub agent: Arc<LiveAgent>,
}

impl std::fmt::Debug for SessionAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionAgent({})", self.bot.qualified())
    }
}

impl SeatPlan {
    /// Resolves a spec for `game`: the bot must play it and its options must check.
    pub fn resolve(
        registry: &Registry,
        game: &str,
        spec: &SeatSpec,
    ) -> Result<SeatPlan, ErrorInfo> {
        match spec {
            SeatSpec::Client { client } => Ok(SeatPlan::Client { name: client.clone() }),
            SeatSpec::Agent(seat) => {
                Ok(SeatPlan::Agent { id: seat.agent.clone(), explain: seat.explain, bound: None })
            }
            SeatSpec::Bot(seat) => {
                let bot = registry.resolve_bot(&seat.bot, Some(game), None)?;
                let options = resolve(
                    &bot.info.options,
                    &bot.info.presets,
                    seat.preset.as_deref(),
                    &seat.options,
                )?;
                Ok(SeatPlan::Bot { bot, options, isolate: seat.isolate })
            }
        }
    }

    /// Whether a connected client plays the seat.
    pub fn is_client(&self) -> bool {
        matches!(self, SeatPlan::Client { .. })
    }

    /// Whether the seat runs in a process of its own (a `yomi worker` or an engine).
    pub fn is_isolated(&self) -> bool {
        matches!(self, SeatPlan::Bot { bot, isolate, .. } if runs_apart(bot, *isolate))
    }

    /// A short name for tables: `plugin/bot`, `agent:ID` or `client:NAME`.
    pub fn label(&self) -> String {
        match self {
            SeatPlan::Bot { bot, .. } => bot.qualified(),
            SeatPlan::Agent { id, .. } => format!("agent:{id}"),
            SeatPlan::Client { name } => format!("client:{name}"),
        }
    }

    /// What a transcript header records about the seat.
    pub fn header(&self, seed: u64) -> Value {
        match self {
            SeatPlan::Bot { bot, options, isolate } => json!({
                "bot": bot.qualified(), "plugin_version": bot.version(),
                "build": bot.build(), "options": options, "seed": seed, "isolate": isolate,
            }),
            SeatPlan::Client { name } => json!({"client": name}),
            // The agent may be reconfigured or swapped mid-match: its moves are what replays.
            SeatPlan::Agent { id, .. } => json!({"agent": id}),
        }
    }

    /// Starts the seat's agent.
    pub async fn start(&self, seed: u64, env: &SeatEnv) -> Result<Arc<dyn AgentHandle>, ErrorInfo> {
        match self {
            SeatPlan::Bot { bot, options, isolate } => {
                let context = AgentContext {
                    seed,
                    data_dir: env.data_dir.clone(),
                    client: env.client.clone(),
                    // A match asks its seats for decisions, never for their policies.
                    policy_ms: None,
                };
                let placement =
                    Placement { isolate: *isolate, deadline: env.deadline, place: None, scope: env.scope };
                let agent = open_bot(bot, options.clone(), context, placement).await?;
                // Explained in the transcript only: no client watches a tournament's steps.
                let explain = env.explain.then_some(ExplainMode::Game);
                Ok(match (env.pace, explain) {
                    (None, None) => agent,
                    (pace, explain) => {
                        Arc::new(ServedSeat { inner: agent, explain, pace, owned: true })
                    }
                })
            }
            SeatPlan::Agent { bound: Some(bound), explain, .. } => Ok(Arc::new(ServedSeat {
                inner: bound.agent.clone(),
                explain: *explain,
                pace: env.pace,
                owned: false,
            })),
            SeatPlan::Agent { bound: None, .. } | SeatPlan::Client { .. } => match &env.clients {
                ClientSeats::Replayed(recorded) => {
                    Ok(Arc::new(ScriptedAgent::new(recorded_actions(recorded, env.seat))))
                }
                _ if !self.is_client() => Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    "agent seats name an agent of the session: run the match with `match.run` over the protocol",
                )),
                ClientSeats::Connected(link) => {
                    Ok(Arc::new(ClientAgent::new(link.clone(), env.seat)))
                }
                ClientSeats::Refused => Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    "client seats need a connected client: run the match with `match.run` over the protocol",
                )),
            },
        }
    }
}

/// What starting a seat may need besides its plan.
#[derive(Clone, Default)]
pub struct SeatEnv {
    pub seat: usize,
    pub data_dir: Option<std::path::PathBuf>,
    /// Who the seats' agents work for (`AgentContext::client`); `None` on the command line.
    pub client: Option<String>,
    /// The decision deadline, which isolated workers and engines enforce by killing the process.
    pub deadline: Option<Duration>,
    pub clients: ClientSeats,
    /// The server's worker and game budgets a match draws from; `None` on the command line,
    /// where the operator's own process plays.
    pub budgets: Option<Budgets>,
    /// Bots wait their suggested think time before their steps resolve (`human_pace`).
    pub pace: Option<Pace>,
    /// Bots are asked to explain each decision, for the transcript (a tournament's `explain`).
    pub explain: bool,
    /// The scope of the plugin calls of the match's game and bots (a game thread's, or handed
    /// over).
    pub scope: Scope,
}

/// Who plays the client seats of a match.
#[derive(Clone, Default)]
pub enum ClientSeats {
    /// None may be played here (the command line, tournaments).
    #[default]
    Refused,
    /// The connected client that asked for the match.
    Connected(ClientLink),
    /// The moves recorded in this transcript (a replay).
    Replayed(Arc<Vec<Value>>),
}

/// The actions `seat` took in a recorded transcript, in order.
fn recorded_actions(recorded: &[Value], seat: usize) -> Vec<Value> {
    recorded
        .iter()
        .filter(|l| l["type"] == "action" && l["seat"].as_u64() == Some(seat as u64))
        .map(|l| l["action"].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_command_line_seats() {
        let s = BotSeat::parse(
            "delta-nash:delta=0.1,noise=uniform,preset=human,isolate=true,label=\"x\"",
        )
        .unwrap();
        assert_eq!(s.bot, "delta-nash");
        assert_eq!(s.options["delta"], json!(0.1));
        assert_eq!(s.options["noise"], json!("uniform"));
        assert_eq!(s.options["label"], json!("x"));
        assert_eq!(s.preset.as_deref(), Some("human"));
        assert!(s.isolate);
        assert!(BotSeat::parse(":x=1").is_err());
        assert!(BotSeat::parse("rps:bias").is_err());
        let twice = BotSeat::parse("rps:reading=1,reading=2").unwrap_err();
        assert!(twice.message.contains("`reading` is given twice"), "{}", twice.message);
        assert!(BotSeat::parse("rps:preset=a,preset=b").is_err());
        assert_eq!(BotSeat::parse("example/rps").unwrap().bot, "example/rps");
    }
}
