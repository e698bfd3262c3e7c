//! A client's outgoing lines: replies and events are serialized here, in one place, and queued
//! for the connection's writer task. The queue is bounded in lines and, for network clients, in
//! bytes: a client that never reads cannot pin more than that much of the server's memory.

use std::sync::Arc;

use tokio::sync::{mpsc, Semaphore};
use yomi_protocol::{ErrorCode, ErrorInfo, Event, Reply};

/// Lines queued for one client's writer. Cheap to clone: every background task of the session
/// (a match streaming progress, a client seat sending `your_turn`) holds one.
#[derive(Clone, Debug)]
pub struct Outbox {
    sender: mpsc::Sender<String>,
    bytes: Option<ByteBudget>,
}

/// The bytes a queue may hold: each queued line holds permits for its length until the writer
/// takes it off the queue ([`ByteBudget::taken`]).
#[derive(Clone, Debug)]
pub struct ByteBudget {
    permits: Arc<Semaphore>,
    limit: u32,
}

impl ByteBudget {
    /// The permits a line of `len` bytes holds: a line longer than the whole budget takes it all,
    /// so it still goes out (alone).
    fn cost(&self, len: usize) -> u32 {
        u32::try_from(len).unwrap_or(u32::MAX).min(self.limit)
    }

    /// A line of `len` bytes left the queue: its bytes are free again.
    fn taken(&self, len: usize) {
        self.permits.add_permits(self.cost(len) as usize);
    }
}

/// The writer's end of a byte-bounded outbox.
#[derive(Debug)]
pub struct Queue {
    lines: mpsc::Receiver<String>,
    budget: ByteBudget,
}

impl Queue {
    /// The next line, its bytes given back to the budget; `None` once every sender is gone.
    pub async fn recv(&mut self) -> Option<String> {
        let line = self.lines.recv().await?;
        self.budget.taken(line.len());
        Some(line)
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }
}

impl Drop for Queue {
    /// The writer is gone: senders waiting for room fail instead of waiting for ever.
    fn drop(&mut self) {
        self.budget.permits.close();
    }
}

impl Outbox {
    /// An outbox holding at most `capacity` unsent lines, and the writer's end of it.
    pub fn new(capacity: usize) -> (Outbox, mpsc::Receiver<String>) {
        let (sender, queue) = mpsc::channel(capacity);
        (Outbox { sender, bytes: None }, queue)
    }

    /// An outbox holding at most `capacity` unsent lines and `max_bytes` bytes of them.
    pub fn with_bytes(capacity: usize, max_bytes: usize) -> (Outbox, Queue) {
        let limit = u32::try_from(max_bytes.max(1)).unwrap_or(u32::MAX);
        let budget = ByteBudget { permits: Arc::new(Semaphore::new(limit as usize)), limit };
        let (sender, lines) = mpsc::channel(capacity);
        (Outbox { sender, bytes: Some(budget.clone()) }, Queue { lines, budget })
    }

    /// Queues a reply, waiting for room. Fails only when the client is gone.
    pub async fn reply(&self, reply: &Reply) -> Result<(), ErrorInfo> {
        self.send(serde_json::to_string(reply).expect("replies serialize")).await
    }

    /// Queues an event, waiting for room. Fails only when the client is gone.
    pub async fn event(&self, event: impl Into<Event>) -> Result<(), ErrorInfo> {
        self.send(to_line(&event.into())).await
    }

    /// Queues an event unless the queue is full (progress a slow reader may miss). Returns
    /// whether it was queued.
    pub fn try_event(&self, event: impl Into<Event>) -> bool {
        let line = to_line(&event.into());
        let len = line.len();
        if let Some(bytes) = &self.bytes {
            match bytes.permits.try_acquire_many(bytes.cost(len)) {
                Ok(permit) => permit.forget(),
                Err(_) => return false,
            }
        }
        let queued = self.sender.try_send(line).is_ok();
        if let (false, Some(bytes)) = (queued, &self.bytes) {
            bytes.taken(len);
        }
        queued
    }

    async fn send(&self, line: String) -> Result<(), ErrorInfo> {
        if let Some(bytes) = &self.bytes {
            bytes.permits.acquire_many(bytes.cost(line.len())).await.map_err(|_| gone())?.forget();
        }
        self.sender.send(line).await.map_err(|_| gone())
    }
}

fn gone() -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Disconnected, "the client is gone")
}

/// An event's line, written through a JSON map as replies are (their results are maps): every
/// line's keys, nested ones too, come out sorted by name, as they always have.
fn to_line(event: &Event) -> String {
    let map = serde_json::to_value(event).expect("events serialize");
    serde_json::to_string(&map).expect("JSON values serialize")
}

#[cfg(test)]
mod tests {
    use yomi_protocol::events::TournamentProgress;

    use super::*;

    /// A `tournament.progress` event whose line is `id.len()` + 59 bytes long.
    fn progress(id: &str) -> TournamentProgress {
        TournamentProgress { id: id.into(), games: 0, total: 0 }
    }

    #[test]
    fn a_line_is_its_event_with_keys_sorted_by_name() {
        let line = to_line(&progress("t1").into());
        assert_eq!(line, r#"{"event":"tournament.progress","games":0,"id":"t1","total":0}"#);
        assert_eq!(line.len(), "t1".len() + 59);
    }

    #[tokio::test]
    async fn the_byte_budget_holds_senders_until_the_writer_takes_lines() {
        let (outbox, mut queue) = Outbox::with_bytes(100, 100);
        // Two events of 69 bytes: the second must wait for the first to be taken.
        assert!(outbox.try_event(progress(&"x".repeat(10))));
        assert!(!outbox.try_event(progress(&"y".repeat(10))));
        queue.recv().await.unwrap();
        assert!(outbox.try_event(progress(&"y".repeat(10))));
    }

    #[tokio::test]
    async fn a_line_longer_than_the_budget_goes_out_alone() {
        let (outbox, mut queue) = Outbox::with_bytes(100, 16);
        outbox.event(progress(&"z".repeat(100))).await.unwrap();
        assert!(!outbox.try_event(progress("")));
        queue.recv().await.unwrap();
        assert!(outbox.try_event(progress("")));
    }

    #[tokio::test]
    async fn a_gone_writer_fails_senders_waiting_for_room() {
        let (outbox, queue) = Outbox::with_bytes(100, 16);
        outbox.event(progress(&"z".repeat(100))).await.unwrap();
        drop(queue);
        let error = outbox.event(progress("")).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::Disconnected);
    }
}
