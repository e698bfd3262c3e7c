//! Who sits in a seat: a bot (in this process or isolated in a worker process) or a connected
//! client that answers `your_turn` events with `match.move`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::oneshot;
use yomi_plugin::call::Open;
use yomi_plugin::AgentContext;
use yomi_protocol::options::resolve;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Event, Options};

use crate::agent::{Agent, InProcessAgent};
use crate::ops::agents::option_error;
use crate::registry::{BotRef, Registry};
use crate::server::connection::Outbox;
use crate::worker::WorkerAgent;

/// A seat as a client or a script asks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SeatSpec {
    Bot(BotSeat),
    /// A connected client plays this seat: `{"client": "alice"}`.
    Client {
        client: String,
    },
}

/// A bot seat: `{"bot": "delta-nash", "preset": .., "options": {..}, "isolate": false}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        for pair in rest.split(',').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    format!("`{pair}` in `{spec}` is not key=value"),
                )
            })?;
            let value: Value =
                serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
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
    Bot { bot: BotRef, options: Options, isolate: bool },
    Client { name: String },
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
            SeatSpec::Bot(seat) => {
                let bot = registry.resolve_bot(&seat.bot, Some(game), None)?;
                let options = resolve(
                    &bot.info.options,
                    &bot.info.presets,
                    seat.preset.as_deref(),
                    &seat.options,
                )
                .map_err(option_error)?;
                Ok(SeatPlan::Bot { bot, options, isolate: seat.isolate })
            }
        }
    }

    /// A short name for tables: `plugin/bot`, or `client:NAME`.
    pub fn label(&self) -> String {
        match self {
            SeatPlan::Bot { bot, .. } => bot.qualified(),
            SeatPlan::Client { name } => format!("client:{name}"),
        }
    }

    /// What a transcript header records about the seat.
    pub fn header(&self, seed: u64) -> Value {
        match self {
            SeatPlan::Bot { bot, options, isolate } => json!({
                "bot": bot.qualified(), "plugin_version": bot.plugin.loaded.manifest.version,
                "build": bot.plugin.build, "options": options, "seed": seed, "isolate": isolate,
            }),
            SeatPlan::Client { name } => json!({"client": name}),
        }
    }

    /// Starts the seat's agent.
    pub async fn start(&self, seed: u64, env: &SeatEnv) -> Result<Arc<dyn Agent>, ErrorInfo> {
        match self {
            SeatPlan::Bot { bot, options, isolate } => {
                let context = AgentContext { seed, data_dir: env.data_dir.clone() };
                if *isolate {
                    let open = Open::Agent { bot: bot.info.name.clone(), options: options.clone(), context };
                    Ok(Arc::new(WorkerAgent::start(bot.plugin.loaded.path.clone(), bot.qualified(), open, env.deadline).await?))
                } else {
                    Ok(Arc::new(InProcessAgent::open(bot, options.clone(), context).await?))
                }
            }
            SeatPlan::Client { .. } => match &env.client {
                Some(link) => Ok(Arc::new(ClientAgent { link: link.clone(), seat: env.seat })),
                None => Err(ErrorInfo::new(
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
    /// The decision deadline, which isolated workers enforce by killing the process.
    pub deadline: Option<Duration>,
    pub client: Option<ClientLink>,
}

/// Moves awaited from connected clients, by (match id, seat).
#[derive(Default)]
pub struct Mailbox {
    pending: Mutex<HashMap<(String, usize), oneshot::Sender<Value>>>,
}

impl Mailbox {
    /// Delivers a client's move; an error if that seat is not waiting for one.
    pub fn deliver(&self, match_id: &str, seat: usize, action: Value) -> Result<(), ErrorInfo> {
        let sender =
            self.pending.lock().unwrap().remove(&(match_id.to_string(), seat)).ok_or_else(
                || {
                    ErrorInfo::new(
                        ErrorCode::Conflict,
                        format!("seat {seat} of match `{match_id}` is not waiting for a move"),
                    )
                },
            )?;
        sender
            .send(action)
            .map_err(|_| ErrorInfo::new(ErrorCode::Conflict, "that decision is no longer awaited"))
    }

    /// Drops every awaited move: their seats see a disconnect.
    pub fn close(&self) {
        self.pending.lock().unwrap().clear();
    }
}

/// How a client seat reaches its client.
#[derive(Clone)]
pub struct ClientLink {
    pub match_id: String,
    pub mailbox: Arc<Mailbox>,
    pub outbox: Outbox,
}

/// A seat played by the connected client.
struct ClientAgent {
    link: ClientLink,
    seat: usize,
}

impl ClientAgent {
    async fn send(&self, event: &str, body: Value) -> Result<(), ErrorInfo> {
        let text = serde_json::to_string(&Event::new(event, body)).expect("events serialize");
        self.link
            .outbox
            .send(text)
            .await
            .map_err(|_| ErrorInfo::new(ErrorCode::Disconnected, "the client is gone"))
    }
}

#[async_trait]
impl Agent for ClientAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        let (tx, rx) = oneshot::channel();
        let key = (self.link.match_id.clone(), self.seat);
        self.link.mailbox.pending.lock().unwrap().insert(key, tx);
        self.send(
            "your_turn",
            json!({"match": self.link.match_id, "seat": self.seat, "observation": request.observation, "legal": request.legal}),
        )
        .await?;
        let action = rx
            .await
            .map_err(|_| ErrorInfo::new(ErrorCode::Disconnected, "the client went away"))?;
        Ok(ActReply::new(action))
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.send(
            "match.event",
            json!({"match": self.link.match_id, "seat": self.seat, "event": event}),
        )
        .await
    }

    async fn configure(&self, _options: Options) -> Result<(), ErrorInfo> {
        Ok(())
    }

    async fn call(&self, method: String, _params: Value) -> Result<Value, ErrorInfo> {
        Err(ErrorInfo::new(
            ErrorCode::UnknownMethod,
            format!("a client seat has no method `{method}`"),
        ))
    }
}

/// Replays recorded actions for a seat (a client's moves when a transcript is replayed).
pub struct ScriptedAgent {
    actions: Mutex<std::collections::VecDeque<Value>>,
}

impl ScriptedAgent {
    pub fn new(actions: Vec<Value>) -> ScriptedAgent {
        ScriptedAgent { actions: Mutex::new(actions.into()) }
    }
}

#[async_trait]
impl Agent for ScriptedAgent {
    async fn act(&self, _request: ActRequest) -> Result<ActReply, ErrorInfo> {
        self.actions.lock().unwrap().pop_front().map(ActReply::new).ok_or_else(|| {
            ErrorInfo::new(ErrorCode::Conflict, "the transcript has no more moves for this seat")
        })
    }

    async fn observe(&self, _event: Value) -> Result<(), ErrorInfo> {
        Ok(())
    }

    async fn configure(&self, _options: Options) -> Result<(), ErrorInfo> {
        Ok(())
    }

    async fn call(&self, method: String, _params: Value) -> Result<Value, ErrorInfo> {
        Err(ErrorInfo::new(
            ErrorCode::UnknownMethod,
            format!("a replayed seat has no method `{method}`"),
        ))
    }
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
        assert_eq!(BotSeat::parse("example/rps").unwrap().bot, "example/rps");
    }
}
