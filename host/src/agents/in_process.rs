//! An agent living in a plugin loaded into this process, called off the reactor (see
//! `runtime::blocking`).

use async_trait::async_trait;
use serde_json::Value;
use yomi_plugin::call::{Call, Open};
use yomi_plugin::AgentContext;
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use super::AgentHandle;
use crate::runtime::blocking::BlockingHandle;
use crate::runtime::metrics;
use crate::runtime::registry::BotRef;

/// An agent living in a plugin loaded into this process.
pub struct InProcessAgent {
    handle: BlockingHandle,
    /// `plugin/bot`, the label of its call latencies.
    bot: String,
}

impl InProcessAgent {
    pub async fn open(
        bot: &BotRef,
        options: Options,
        context: AgentContext,
    ) -> Result<InProcessAgent, ErrorInfo> {
        let request = Open::Agent { bot: bot.info.name.clone(), options, context };
        let handle = BlockingHandle::open(bot.plugin.clone(), request).await?;
        Ok(InProcessAgent { handle, bot: bot.qualified() })
    }

    async fn invoke(&self, call: Call) -> Result<Value, ErrorInfo> {
        let started = std::time::Instant::now();
        let result = self.handle.invoke(call).await;
        metrics::plugin_call(&self.bot, started.elapsed());
        result
    }
}

#[async_trait]
impl AgentHandle for InProcessAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        let value = self.invoke(Call::Act(request)).await?;
        serde_json::from_value(value).map_err(|e| {
            ErrorInfo::new(ErrorCode::BotError, format!("bot sent an unreadable decision: {e}"))
        })
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.invoke(Call::Observe { event }).await.map(|_| ())
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        self.invoke(Call::GameOver(over)).await.map(|_| ())
    }

    async fn configure(&self, options: Options) -> Result<(), ErrorInfo> {
        self.invoke(Call::Configure { options }).await.map(|_| ())
    }

    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo> {
        self.invoke(Call::Service { method, params }).await
    }
}
