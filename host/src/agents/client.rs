//! A seat played by a connected client: the host sends `your_turn` events through the client's
//! outbox and waits for its `match.move`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use tokio::sync::oneshot;
use yomi_protocol::events::{Event, Explained, MatchEvent, YourTurn};
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use super::AgentHandle;
use crate::runtime::outbox::Outbox;

/// Moves awaited from connected clients, by (match id, seat).
#[derive(Default)]
pub struct Mailbox {
    pending: Mutex<HashMap<(String, usize), oneshot::Sender<Value>>>,
}

impl Mailbox {
    /// Delivers a client's move; an error if that seat is not waiting for one.
    pub fn deliver(&self, match_id: &str, seat: usize, action: Value) -> Result<(), ErrorInfo> {
        let sender =
            self.pending.lock().unwrap().remove(&(match_id.to_string(), seat)).ok_or_else(
                || {
                    ErrorInfo::new(
                        ErrorCode::Conflict,
                        format!("seat {seat} of match `{match_id}` is not waiting for a move"),
                    )
                },
            )?;
        sender
            .send(action)
            .map_err(|_| ErrorInfo::new(ErrorCode::Conflict, "that decision is no longer awaited"))
    }

    /// Drops every awaited move: their seats see a disconnect.
    pub fn close(&self) {
        self.pending.lock().unwrap().clear();
    }
}

/// How a client seat reaches its client.
#[derive(Clone)]
pub struct ClientLink {
    pub match_id: String,
    pub mailbox: Arc<Mailbox>,
    pub outbox: Outbox,
}

/// A seat played by the connected client.
pub struct ClientAgent {
    link: ClientLink,
    seat: usize,
}

impl ClientAgent {
    pub fn new(link: ClientLink, seat: usize) -> ClientAgent {
        ClientAgent { link, seat }
    }

    async fn send(&self, event: impl Into<Event>) -> Result<(), ErrorInfo> {
        self.link.outbox.event(event).await
    }
}

#[async_trait]
impl AgentHandle for ClientAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        let (tx, rx) = oneshot::channel();
        let key = (self.link.match_id.clone(), self.seat);
        self.link.mailbox.pending.lock().unwrap().insert(key, tx);
        self.send(YourTurn {
            legal: request.legal,
            match_id: self.link.match_id.clone(),
            observation: request.observation,
            seat: self.seat,
            clock: request.clock,
        })
        .await?;
        let action = rx
            .await
            .map_err(|_| ErrorInfo::new(ErrorCode::Disconnected, "the client went away"))?;
        Ok(ActReply::new(action))
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.observe_step(event, &[]).await
    }

    async fn observe_step(&self, event: Value, explained: &[Explained]) -> Result<(), ErrorInfo> {
        self.send(MatchEvent {
            game_event: event,
            match_id: self.link.match_id.clone(),
            seat: self.seat,
            explained: explained.to_vec(),
        })
        .await
    }

    async fn configure(&self, _options: Options) -> Result<(), ErrorInfo> {
        Ok(())
    }

    async fn call(&self, method: String, _params: Value) -> Result<Value, ErrorInfo> {
        Err(ErrorInfo::new(
            ErrorCode::UnknownMethod,
            format!("a client seat has no method `{method}`"),
        ))
    }
}
