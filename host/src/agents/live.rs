//! A session's agent behind a handle that outlives `agent.swap`: a match seat that names the
//! agent (`{"agent": "a1"}`) keeps the handle, so a swap or a `agent.configure` between steps
//! reaches the bot that plays the seat's next decision.

use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use yomi_plugin::call::ActText;
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorInfo, Options};

use super::AgentHandle;
use crate::runtime::executor::Scope;

/// The agent in force behind an agent id; every call goes to the one in force when it starts.
pub struct LiveAgent {
    current: RwLock<Arc<dyn AgentHandle>>,
}

impl LiveAgent {
    pub fn new(agent: Arc<dyn AgentHandle>) -> Arc<LiveAgent> {
        Arc::new(LiveAgent { current: RwLock::new(agent) })
    }

    /// Puts another agent in force; calls already running finish on the one they started on.
    pub fn replace(&self, agent: Arc<dyn AgentHandle>) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = agent;
    }

    fn current(&self) -> Arc<dyn AgentHandle> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[async_trait]
impl AgentHandle for LiveAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        self.current().act(request).await
    }

    async fn act_text(&self, request: ActText<'_>, scope: Scope) -> Result<ActReply, ErrorInfo> {
        self.current().act_text(request, scope).await
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.current().observe(event).await
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        self.current().game_over(over).await
    }

    async fn configure(&self, options: Options) -> Result<(), ErrorInfo> {
        self.current().configure(options).await
    }

    async fn close(&self) {
        self.current().close().await
    }

    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo> {
        self.current().call(method, params).await
    }

    async fn call_until(
        &self,
        method: String,
        params: Value,
        stop: CancellationToken,
    ) -> Result<Value, ErrorInfo> {
        self.current().call_until(method, params, stop).await
    }
}
