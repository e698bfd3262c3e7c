//! Agents: one async interface, [`AgentHandle`], in front of every bot whatever serves it — a
//! plugin in this process ([`in_process`]), a `yomi worker` child process ([`worker`]), a
//! connected client playing a seat ([`client`]), or recorded moves replayed ([`scripted`]).
//! (The author's side of a bot is the plugin kit's `Agent` trait; this is the host's view.)

pub mod client;
pub mod in_process;
pub mod scripted;
pub mod worker;

use async_trait::async_trait;
use serde_json::Value;
use yomi_protocol::{ActReply, ActRequest, ErrorInfo, Options};

pub use in_process::InProcessAgent;

/// A bot instance as the host sees it.
#[async_trait]
pub trait AgentHandle: Send + Sync {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo>;
    async fn observe(&self, event: Value) -> Result<(), ErrorInfo>;
    /// `options` is the complete, schema-checked set.
    async fn configure(&self, options: Options) -> Result<(), ErrorInfo>;
    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo>;
}
