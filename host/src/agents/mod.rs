//! Agents: one async interface, [`AgentHandle`], in front of every bot whatever serves it — a
//! plugin in this process ([`in_process`]), a child process ([`child`]: a `yomi worker`
//! ([`worker`]) or an engine ([`engine`])), a connected client playing a seat ([`client`]), or
//! recorded moves replayed ([`scripted`]).
//! (The author's side of a bot is the plugin kit's `Agent` trait; this is the host's view.)

pub mod child;
pub mod client;
pub mod engine;
pub mod in_process;
pub mod live;
pub mod scripted;
pub mod worker;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;
use yomi_plugin::call::{ActText, Open};
use yomi_plugin::{AgentContext, GameOver};
use yomi_protocol::{ActReply, ActRequest, ErrorInfo, Options};

pub use in_process::InProcessAgent;

use crate::registry::{BotRef, BotSource};
use crate::runtime::executor::Scope;
use child::{ChildAgent, Launcher};
use engine::EngineLaunch;
use worker::WorkerLaunch;
use yomi_protocol::events::Explained;

/// How to start a bot's agent besides its options and context.
#[derive(Default)]
pub struct Placement {
    /// Run a plugin's bot in a `yomi worker` process (an engine always has a process of its own).
    pub isolate: bool,
    /// How long one call of a child process may take before it is killed.
    pub deadline: Option<Duration>,
    /// The process's place among the server's `--max-workers`, when the agent holds its own.
    pub place: Option<OwnedSemaphorePermit>,
    /// The scope of a plugin's agent in this process: a game thread's, or handed over.
    pub scope: Scope,
}

/// Whether `bot`'s agent runs in a process of its own when placed so.
pub fn runs_apart(bot: &BotRef, isolate: bool) -> bool {
    isolate || matches!(bot.source, BotSource::Engine(_))
}

/// Starts an agent of `bot`: in this process, in a worker, or in its engine.
pub async fn open_bot(
    bot: &BotRef,
    options: yomi_protocol::Options,
    context: AgentContext,
    placement: Placement,
) -> Result<Arc<dyn AgentHandle>, ErrorInfo> {
    let launcher: Box<dyn Launcher> = match &bot.source {
        BotSource::Engine(engine) => Box::new(EngineLaunch(engine.clone())),
        BotSource::Plugin(plugin) if placement.isolate => {
            Box::new(WorkerLaunch { library: plugin.loaded.path.clone() })
        }
        BotSource::Plugin(plugin) => {
            return Ok(Arc::new(
                InProcessAgent::open(plugin, bot, options, context, placement.scope).await?,
            ))
        }
    };
    let open =
        Open::Agent { bot: bot.info.name.clone(), options, context, cancel: Default::default() };
    let agent =
        ChildAgent::start(launcher, bot.qualified(), open, placement.deadline, placement.place)
            .await?;
    Ok(Arc::new(agent))
}

/// When a match shows an agent seat's reasoning (its `agent.act` explanation and think time) to
/// the client: never before the step it decided is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExplainMode {
    /// In the `match.event` of the step it decided. For games whose bots' reasoning names only
    /// what the step made public (battle, rps).
    Step,
    /// In the last `match.event` of the game, every step's at once. For games where the bot's
    /// reasoning may name what it still hides (stud's reveal weighs each face-down card).
    Game,
}

/// A bot instance as the host sees it.
#[async_trait]
pub trait AgentHandle: Send + Sync {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo>;
    /// `act` with the observation and legal actions still the JSON text a client sent: a plugin
    /// in this process is handed the text as it is; other agents read it first.
    /// `scope` is what the client's request asking for it allows (see `runtime::executor`).
    async fn act_text(&self, request: ActText<'_>, _scope: Scope) -> Result<ActReply, ErrorInfo> {
        self.act(request.read_params()?).await
    }
    async fn observe(&self, event: Value) -> Result<(), ErrorInfo>;
    /// [`observe`](AgentHandle::observe) a match step's event, with the decisions of the match's
    /// explaining seats that may be shown now. Only a client seat shows them (to its client);
    /// a bot takes in the event alone.
    async fn observe_step(&self, event: Value, _explained: &[Explained]) -> Result<(), ErrorInfo> {
        self.observe(event).await
    }
    /// When a match may show this seat's reasoning: only an agent seat that asked to explain.
    fn explains(&self) -> Option<ExplainMode> {
        None
    }
    /// Tells a bot how a game it played ended, so a learning bot can update. Seats the host does
    /// not run a bot for (a client, a replayed transcript) have nothing to tell.
    async fn game_over(&self, _over: GameOver) -> Result<(), ErrorInfo> {
        Ok(())
    }
    /// `options` is the complete, schema-checked set.
    async fn configure(&self, options: Options) -> Result<(), ErrorInfo>;
    /// Ends the agent's worker process, if it has one, and waits until it is gone, so a match
    /// gives its places among `--max-workers` back only once its processes are. Agents in this
    /// process have nothing to end.
    async fn close(&self) {}
    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo>;
    /// [`call`](AgentHandle::call) that stops when `stop` is cancelled. By default the call goes
    /// on and its answer is dropped; an agent that can stop its bot does so.
    async fn call_until(
        &self,
        method: String,
        params: Value,
        stop: CancellationToken,
    ) -> Result<Value, ErrorInfo> {
        tokio::select! {
            result = self.call(method, params) => result,
            _ = stop.cancelled() => Err(yomi_plugin::cancel::error()),
        }
    }
}
