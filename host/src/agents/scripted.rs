//! Recorded moves played back (a client's moves when a transcript is replayed).

use std::collections::VecDeque;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::Value;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use super::AgentHandle;

/// Replays recorded actions for a seat (a client's moves when a transcript is replayed).
pub struct ScriptedAgent {
    actions: Mutex<VecDeque<Value>>,
}

impl ScriptedAgent {
    pub fn new(actions: Vec<Value>) -> ScriptedAgent {
        ScriptedAgent { actions: Mutex::new(actions.into()) }
    }
}

#[async_trait]
impl AgentHandle for ScriptedAgent {
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
