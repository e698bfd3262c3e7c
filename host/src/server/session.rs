//! A session: one client's agents and its view of the server.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use yomi_plugin::rng::derive_seed;
use yomi_protocol::{ErrorCode, ErrorInfo, Event, Options, Reply, Request};

use super::connection::Outbox;
use super::Shared;
use crate::agent::Agent;
use crate::ops;
use crate::registry::BotRef;

/// An agent the session owns, with what it was made from.
pub struct AgentSlot {
    pub bot: BotRef,
    /// The complete option set in force.
    pub options: Options,
    pub seed: u64,
    pub agent: Arc<dyn Agent>,
}

/// Per-connection state.
pub struct Session {
    pub shared: Arc<Shared>,
    /// Replies and events for this client.
    pub outbox: Outbox,
    pub agents: BTreeMap<String, AgentSlot>,
    /// Counts agents made, for ids and default seeds.
    agents_made: u64,
}

impl Session {
    pub fn new(shared: Arc<Shared>, outbox: Outbox) -> Session {
        Session { shared, outbox, agents: BTreeMap::new(), agents_made: 0 }
    }

    /// Answers one request line. Never fails: every problem becomes an error reply.
    pub async fn handle_line(&mut self, text: &str) -> Reply {
        match Request::parse(text) {
            Err((id, error)) => Reply::err(id, error),
            Ok(request) => {
                let id = request.id.clone();
                match ops::dispatch(self, request).await {
                    Ok(result) => Reply::ok(id, result),
                    Err(error) => Reply::err(Some(id), error),
                }
            }
        }
    }

    /// A fresh agent id and the seed it gets unless the client chose one.
    pub fn next_agent(&mut self) -> (String, u64) {
        self.agents_made += 1;
        (format!("a{}", self.agents_made), derive_seed(self.shared.config.base_seed, self.agents_made))
    }

    pub fn agent(&self, id: &str) -> Result<&AgentSlot, ErrorInfo> {
        self.agents.get(id).ok_or_else(|| unknown_agent(id))
    }

    pub fn agent_mut(&mut self, id: &str) -> Result<&mut AgentSlot, ErrorInfo> {
        self.agents.get_mut(id).ok_or_else(|| unknown_agent(id))
    }

    /// Queues an event for the client.
    pub async fn emit(&self, event: &str, body: Value) {
        let text = serde_json::to_string(&Event::new(event, body)).expect("events serialize");
        let _ = self.outbox.send(text).await;
    }

    /// Drops every agent the session owns.
    pub async fn close(&mut self) {
        self.agents.clear();
    }
}

fn unknown_agent(id: &str) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::UnknownAgent, format!("no agent `{id}` in this session"))
}
