//! The requests of one session that are running now (in line or in the background), by their
//! envelope id, so a `cancel` can find and stop them. Each holds a [`Running`] guard for as long
//! as it runs; its token is a child of the session's, so a client that hangs up stops them all.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use yomi_protocol::{ErrorCode, ErrorInfo, Reply, RequestId};

use super::metrics;

/// One session's running requests. Cloning shares them.
#[derive(Clone)]
pub struct Requests(Arc<Shared>);

struct Shared {
    /// The session's token: cancelled when the client goes away.
    session: CancellationToken,
    running: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    entries: Vec<Entry>,
    /// Numbers entries, so a guard removes its own even when ids repeat.
    serial: u64,
}

struct Entry {
    id: RequestId,
    op: &'static str,
    serial: u64,
    stop: CancellationToken,
}

/// Which requests a cancel names.
pub enum Which<'a> {
    One(&'a RequestId),
    All,
}

impl Which<'_> {
    pub fn matches(&self, id: &RequestId) -> bool {
        match self {
            Which::One(wanted) => *wanted == id,
            Which::All => true,
        }
    }
}

/// A request that is running; it leaves the register when this is dropped.
pub struct Running {
    requests: Requests,
    serial: u64,
    /// Cancelled when the client cancels this request or goes away.
    pub stop: CancellationToken,
}

impl Requests {
    /// The running requests of a session whose work `session` stops.
    pub fn new(session: CancellationToken) -> Requests {
        Requests(Arc::new(Shared { session, running: Mutex::default() }))
    }

    /// Registers a request that starts now.
    pub fn start(&self, id: &RequestId, op: &'static str) -> Running {
        let stop = self.0.session.child_token();
        let mut running = self.lock();
        running.serial += 1;
        let serial = running.serial;
        running.entries.push(Entry { id: id.clone(), op, serial, stop: stop.clone() });
        Running { requests: self.clone(), serial, stop }
    }

    /// Cancels the running requests `which` names; returns their ids and operations.
    pub fn cancel(&self, which: &Which) -> Vec<(RequestId, &'static str)> {
        let running = self.lock();
        let stopped =
            running.entries.iter().filter(|e| which.matches(&e.id) && !e.stop.is_cancelled());
        stopped
            .map(|e| {
                e.stop.cancel();
                (e.id.clone(), e.op)
            })
            .collect()
    }

    /// Whether the session itself has ended (its client is gone), not only some request.
    pub fn session_ended(&self) -> bool {
        self.0.session.is_cancelled()
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.0.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = self.requests.lock();
        running.entries.retain(|e| e.serial != self.serial);
    }
}

/// The one reply to a request of operation `op` (a known operation's name, `unknown` or
/// `unparsed`), counted in the request metrics: every request's reply is made here, whether it
/// answers at once, from the background, or as cancelled before it ran.
pub fn answered(
    op: &'static str,
    id: Option<RequestId>,
    result: Result<Value, ErrorInfo>,
) -> Reply {
    metrics::request(op, result.as_ref().map(|_| ()).map_err(|e| e.code));
    match result {
        Ok(result) => Reply { id, ok: true, result: Some(result), error: None },
        Err(error) => Reply::err(id, error),
    }
}

/// The error a cancelled request is answered with, saying what became of its work.
pub fn cancelled(op: &str) -> ErrorInfo {
    let what = match op {
        "agent.call" => "the bot was asked to stop its work; a bot that does not check for that finishes it and its answer is dropped",
        "match.run" => "the match was stopped",
        "tournament.run" => "the tournament was stopped; run it again with `resume` to go on",
        "agent.act" | "agent.observe" | "agent.configure" | "agent.new" | "agent.swap" => {
            "a bot running in this process cannot be interrupted: its call runs to its end and its answer is dropped"
        }
        _ => "its work was stopped",
    };
    ErrorInfo::new(ErrorCode::Cancelled, format!("`{op}` cancelled by the client: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> RequestId {
        RequestId::Number(n.into())
    }

    #[test]
    fn a_cancel_stops_the_named_request_once_and_a_finished_one_not_at_all() {
        let session = CancellationToken::new();
        let requests = Requests::new(session.clone());
        let one = requests.start(&id(1), "agent.call");
        let two = requests.start(&id(2), "match.run");
        let stopped = requests.cancel(&Which::One(&id(1)));
        assert_eq!(stopped, vec![(id(1), "agent.call")]);
        assert!(one.stop.is_cancelled() && !two.stop.is_cancelled());
        assert!(requests.cancel(&Which::One(&id(1))).is_empty(), "already cancelled");
        drop(two);
        assert!(requests.cancel(&Which::One(&id(2))).is_empty(), "finished");
        let three = requests.start(&id(3), "agent.act");
        assert_eq!(requests.cancel(&Which::All), vec![(id(3), "agent.act")]);
        assert!(three.stop.is_cancelled() && !requests.session_ended());
    }

    #[test]
    fn a_gone_client_stops_every_request() {
        let session = CancellationToken::new();
        let requests = Requests::new(session.clone());
        let running = requests.start(&id(1), "agent.call");
        session.cancel();
        assert!(running.stop.is_cancelled() && requests.session_ended());
    }
}
