//! A bot seat the server plays in a match with a client: it asks the bot to explain when the seat
//! asked to, waits the bot's suggested think time when the match runs at a person's pace, and
//! leaves a session's agent open when the match ends (the session still owns it).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorInfo, Options};

use crate::agents::AgentHandle;
use crate::agents::ExplainMode;

/// Longest wait for one decision at human pace when the match sets no deadline.
pub const MAX_THINK: Duration = Duration::from_secs(30);

/// How a served seat waits at human pace.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// The match's decision deadline: the wait ends before it, so pacing never costs a timeout.
    pub deadline: Option<Duration>,
}

impl Pace {
    /// How long to wait after a decision that took `spent`, when the bot suggests `think_ms`:
    /// the rest of the think time, ending a tenth of the deadline before it runs out.
    pub fn wait(&self, think_ms: u64, spent: Duration) -> Duration {
        let think = Duration::from_millis(think_ms).min(MAX_THINK).saturating_sub(spent);
        match self.deadline {
            Some(deadline) => {
                think.min(deadline.saturating_sub(spent).saturating_sub(deadline / 10))
            }
            None => think,
        }
    }
}

/// A bot seat served for a match with a client.
pub struct ServedSeat {
    pub inner: Arc<dyn AgentHandle>,
    pub explain: Option<ExplainMode>,
    pub pace: Option<Pace>,
    /// The match started the agent and ends it; a session's agent outlives the match.
    pub owned: bool,
}

#[async_trait]
impl AgentHandle for ServedSeat {
    async fn act(&self, mut request: ActRequest) -> Result<ActReply, ErrorInfo> {
        let start = Instant::now();
        request.explain |= self.explain.is_some();
        let reply = self.inner.act(request).await?;
        if let (Some(pace), Some(think_ms)) = (self.pace, reply.think_ms) {
            // A timer, not a thread: the server plays on while the bot "thinks".
            tokio::time::sleep(pace.wait(think_ms, start.elapsed())).await;
        }
        Ok(reply)
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.inner.observe(event).await
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        self.inner.game_over(over).await
    }

    async fn configure(&self, options: Options) -> Result<(), ErrorInfo> {
        self.inner.configure(options).await
    }

    async fn close(&self) {
        if self.owned {
            self.inner.close().await
        }
    }

    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo> {
        self.inner.call(method, params).await
    }

    fn explains(&self) -> Option<ExplainMode> {
        self.explain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_the_rest_of_the_think_time_within_the_deadline() {
        let ms = Duration::from_millis;
        let free = Pace { deadline: None };
        assert_eq!(free.wait(800, ms(300)), ms(500));
        assert_eq!(free.wait(200, ms(300)), ms(0));
        assert_eq!(free.wait(u64::MAX, ms(0)), MAX_THINK);
        let bounded = Pace { deadline: Some(ms(1000)) };
        assert_eq!(bounded.wait(5000, ms(100)), ms(800));
        assert_eq!(bounded.wait(400, ms(100)), ms(300));
        assert_eq!(bounded.wait(5000, ms(2000)), ms(0));
    }
}
