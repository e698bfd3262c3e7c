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

use super::{read_act_text, AgentHandle};
use crate::runtime::executor;
use crate::runtime::metrics::{self, PluginCalls};
use crate::runtime::registry::{BotRef, PluginEntry};

/// An agent living in a plugin loaded into this process.
pub struct InProcessAgent {
    handle: executor::Handle,
    calls: PluginCalls,
}

impl InProcessAgent {
    /// Opens an agent of `bot`, one of `plugin`'s bots.
    pub async fn open(
        plugin: &Arc<PluginEntry>,
        bot: &BotRef,
        options: Options,
        context: AgentContext,
    ) -> Result<InProcessAgent, ErrorInfo> {
        let request = Open::Agent { bot: bot.info.name.clone(), options, context };
        let handle = executor::Handle::open(plugin.clone(), request).await?;
        Ok(InProcessAgent { handle, calls: metrics::plugin_calls(&bot.qualified()) })
    }

    async fn invoke<T: DeserializeOwned + Send + 'static>(
        &self,
        call: &(impl Serialize + Sync),
    ) -> Result<T, ErrorInfo> {
        let started = std::time::Instant::now();
        let result = self.handle.invoke(call).await;
        self.calls.record(started.elapsed());
        result
    }
}

#[async_trait]
impl AgentHandle for InProcessAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        self.invoke(&Call::Act(request)).await
    }

    async fn act_text(&self, request: ActText<'_>) -> Result<ActReply, ErrorInfo> {
        self.invoke(&request).await.map_err(|e| match e.code {
            // The plugin could not read the call: the text holds a number too large to read,
            // which is refused as reading the parameters here would have refused it.
            ErrorCode::InvalidParams => read_act_text(&request).err().unwrap_or(e),
            _ => e,
        })
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
}
