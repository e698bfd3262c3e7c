//! The `Agent` trait: one async interface in front of every bot, whatever serves it — a plugin in
//! this process today, a child process or a connected client in a match.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use yomi_plugin::call::{Call, Open};
use yomi_plugin::loader::PluginHandle;
use yomi_plugin::AgentContext;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use crate::registry::{BotRef, PluginEntry};

/// A bot instance as the host sees it.
#[async_trait]
pub trait Agent: Send + Sync {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo>;
    async fn observe(&self, event: Value) -> Result<(), ErrorInfo>;
    /// `options` is the complete, schema-checked set.
    async fn configure(&self, options: Options) -> Result<(), ErrorInfo>;
    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo>;
}

/// An open plugin handle (agent or game) whose calls run on tokio's blocking pool: a bot may think
/// for a long time and must never hold up the reactor.
#[derive(Clone)]
pub struct BlockingHandle(Arc<Mutex<ClosedOffReactor>>);

/// A plugin handle that is closed on the blocking pool too: closing runs the bot's or game's
/// destructor, which is plugin code like any other call and may be slow (or never return).
struct ClosedOffReactor(Option<PluginHandle>);

impl Drop for ClosedOffReactor {
    fn drop(&mut self) {
        let Some(handle) = self.0.take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || drop(handle))),
            // Outside the runtime (at exit) there is no reactor to protect.
            Err(_) => drop(handle),
        }
    }
}

impl BlockingHandle {
    /// Opens a handle in `plugin` (on the blocking pool too: constructors may be slow).
    pub async fn open(
        plugin: Arc<PluginEntry>,
        request: Open,
    ) -> Result<BlockingHandle, ErrorInfo> {
        let handle = blocking(move || plugin.loaded.open(&request)).await?;
        Ok(BlockingHandle(Arc::new(Mutex::new(ClosedOffReactor(Some(handle))))))
    }

    pub async fn invoke(&self, call: Call) -> Result<Value, ErrorInfo> {
        let handle = self.0.clone();
        blocking(move || {
            // A poisoned lock only means an earlier call panicked on the host side of the boundary;
            // the plugin handle itself is still sound.
            let mut handle = handle.lock().unwrap_or_else(|p| p.into_inner());
            handle.0.as_mut().expect("a handle is open until it is dropped").invoke(&call)
        })
        .await
    }
}

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
        crate::metrics::plugin_call(&self.bot, started.elapsed());
        result
    }
}

/// Runs `f` on the blocking pool and flattens a join failure into an internal error.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(ErrorInfo::new(ErrorCode::Internal, format!("plugin call did not finish: {e}")))
    })
}

#[async_trait]
impl Agent for InProcessAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        let value = self.invoke(Call::Act(request)).await?;
        serde_json::from_value(value).map_err(|e| {
            ErrorInfo::new(ErrorCode::BotError, format!("bot sent an unreadable decision: {e}"))
        })
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.invoke(Call::Observe { event }).await.map(|_| ())
    }

    async fn configure(&self, options: Options) -> Result<(), ErrorInfo> {
        self.invoke(Call::Configure { options }).await.map(|_| ())
    }

    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo> {
        self.invoke(Call::Service { method, params }).await
    }
}
