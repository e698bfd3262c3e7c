//! An agent living in a plugin loaded into this process, called off the reactor (see
//! `runtime::executor`).

use std::sync::Arc;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use yomi_plugin::call::{ActText, Call, Configure, Observe, Open, Service};
use yomi_plugin::AgentContext;
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;
use yomi_plugin::cancel::{self, CancelFlag};

use super::AgentHandle;
use crate::registry::{BotRef, PluginEntry};
use crate::runtime::executor::{self, Scope};
use crate::runtime::metrics;

/// An agent living in a plugin loaded into this process.
pub struct InProcessAgent {
    handle: executor::Handle,
    /// Raised to stop the service call running in the plugin (see `yomi_plugin::cancel`).
    cancel: CancelFlag,
    /// Service calls take turns: the flag belongs to one call from before it starts until after
    /// it ends, even when its client stopped waiting for it.
    turn: Arc<Mutex<()>>,
}

impl InProcessAgent {
    /// Opens an agent of `bot`, one of `plugin`'s bots, in `scope` (a game thread's, or handed over).
    pub async fn open(
        plugin: &Arc<PluginEntry>,
        bot: &BotRef,
        options: Options,
        context: AgentContext,
        scope: Scope,
    ) -> Result<InProcessAgent, ErrorInfo> {
        let cancel = CancelFlag::default();
        let request =
            Open::Agent { bot: bot.info.name.clone(), options, context, cancel: cancel.clone() };
        let bot = Some(bot.qualified());
        let handle = executor::Handle::open(plugin.clone(), request, bot.as_deref(), scope).await?;
        Ok(InProcessAgent { handle, cancel, turn: Arc::default() })
    }

    async fn invoke<T: DeserializeOwned + Send + 'static>(
        &self,
        call: &(impl Serialize + Sync),
    ) -> Result<T, ErrorInfo> {
        self.handle.invoke(call, None).await
    }
}

#[async_trait]
impl AgentHandle for InProcessAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        self.invoke(&Call::Act(request)).await
    }

    /// The text as the client sent it; the plugin's refusal is final (the kit words an
    /// unreadable text as the parameters' error, see `ActText::refusal`).
    async fn act_text(&self, request: ActText<'_>, scope: Scope) -> Result<ActReply, ErrorInfo> {
        self.handle.invoke(&request, Some(scope)).await
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.invoke(&Call::Observe(Observe { event })).await.map(|_: Value| ())
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        self.invoke(&Call::GameOver(over)).await.map(|_: Value| ())
    }

    async fn configure(&self, options: Options) -> Result<(), ErrorInfo> {
        self.handle.forget_pace();
        self.invoke(&Call::Configure(Configure { options })).await.map(|_: Value| ())
    }

    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo> {
        self.invoke(&Call::Service(Service { method, params })).await
    }

    /// Runs the call in a task of its own that keeps its turn until the plugin returns, and
    /// raises the flag when `stop` fires, so a bot that polls it stops at once, even after
    /// the client that asked has gone.
    async fn call_until(
        &self,
        method: String,
        params: Value,
        stop: CancellationToken,
    ) -> Result<Value, ErrorInfo> {
        let (turn, handle, flag) = (self.turn.clone(), self.handle.clone(), self.cancel.clone());
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let _turn = tokio::select! {
                turn = turn.lock_owned() => turn,
                _ = stop.cancelled() => return None,
            };
            flag.lower();
            let running = metrics::ServiceCall::start();
            let call = Call::Service(Service { method, params });
            let mut invoke = std::pin::pin!(handle.invoke::<Value>(&call, None));
            let result = tokio::select! {
                result = &mut invoke => Some(result),
                _ = stop.cancelled() => {
                    flag.raise();
                    let _ = invoke.await;
                    None
                }
            };
            flag.lower();
            drop(running);
            result
        });
        tokio::select! {
            joined = task => match joined {
                Ok(Some(result)) => result,
                Ok(None) => Err(cancel::error()),
                Err(e) => Err(ErrorInfo::new(ErrorCode::Internal, format!("service call failed: {e}"))),
            },
            // Answered `cancelled` by the caller; the task stops the plugin and ends by itself.
            _ = stopped.cancelled() => Err(cancel::error()),
        }
    }
}
