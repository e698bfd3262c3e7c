//! A client's outgoing lines: replies and events are serialized here, in one place, and queued
//! for the connection's writer task.

use serde_json::Value;
use tokio::sync::mpsc;
use yomi_protocol::{ErrorCode, ErrorInfo, Event, Reply};

/// Lines queued for one client's writer. Cheap to clone: every background task of the session
/// (a match streaming progress, a client seat sending `your_turn`) holds one.
#[derive(Clone, Debug)]
pub struct Outbox(mpsc::Sender<String>);

impl Outbox {
    /// An outbox holding at most `capacity` unsent lines, and the writer's end of it.
    pub fn new(capacity: usize) -> (Outbox, mpsc::Receiver<String>) {
        let (sender, queue) = mpsc::channel(capacity);
        (Outbox(sender), queue)
    }

    /// Queues a reply, waiting for room. Fails only when the client is gone.
    pub async fn reply(&self, reply: &Reply) -> Result<(), ErrorInfo> {
        self.send(serde_json::to_string(reply).expect("replies serialize")).await
    }

    /// Queues an event, waiting for room. Fails only when the client is gone.
    pub async fn event(&self, name: &str, body: Value) -> Result<(), ErrorInfo> {
        self.send(to_line(name, body)).await
    }

    /// Queues an event unless the queue is full (progress a slow reader may miss). Returns
    /// whether it was queued.
    pub fn try_event(&self, name: &str, body: Value) -> bool {
        self.0.try_send(to_line(name, body)).is_ok()
    }

    async fn send(&self, line: String) -> Result<(), ErrorInfo> {
        self.0
            .send(line)
            .await
            .map_err(|_| ErrorInfo::new(ErrorCode::Disconnected, "the client is gone"))
    }
}

fn to_line(name: &str, body: Value) -> String {
    serde_json::to_string(&Event::new(name, body)).expect("events serialize")
}
