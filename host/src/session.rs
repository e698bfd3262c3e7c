//! A session: one client's state — its agents, the ids it was given, its background operations —
//! and its view of the server. Plain state: the operations (`ops`) act on it.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use serde_json::Value;
use yomi_plugin::rng::derive_seed;
use yomi_protocol::{ErrorCode, ErrorInfo, Options, RequestId};

use crate::agents::client::Mailbox;
use crate::agents::live::LiveAgent;
use crate::registry::BotRef;
use crate::runtime::auth::{Access, Role};
use crate::runtime::config::Shared;
use crate::runtime::costs::Budgets;
use crate::runtime::limits::Limits;
use crate::runtime::outbox::Outbox;
use crate::runtime::requests::{answered, cancelled, Requests, Running};

/// An agent the session owns, with what it was made from.
pub struct AgentSlot {
    pub bot: BotRef,
    /// The complete option set in force.
    pub options: Options,
    pub seed: u64,
    /// The bot behind the id: `agent.swap` replaces it in place, so a match seat that names the
    /// agent plays on with the new one.
    pub agent: Arc<LiveAgent>,
}

/// Per-connection state.
pub struct Session {
    pub shared: Arc<Shared>,
    /// Replies and events for this client.
    pub outbox: Outbox,
    pub agents: BTreeMap<String, AgentSlot>,
    /// Counts agents made, for ids and default seeds.
    agents_made: u64,
    /// The seed agents made without one derive theirs from: `--seed`, or drawn from the OS.
    base_seed: u64,
    /// Counts matches started, for match ids.
    matches_started: u64,
    /// Moves awaited from this client for the seats it plays.
    pub mailbox: Arc<Mailbox>,
    /// Long operations (matches, tournaments) running in the background for this client.
    background: TaskTracker,
    /// Cancels the background operations when the client goes away.
    cancel: CancellationToken,
    /// The requests running now, which `cancel` can stop.
    pub requests: Requests,
    /// The request being dispatched now, until it replies or goes to the background.
    pub current: Option<Running>,
    /// What the client may do: set once per connection (at `hello` or the WebSocket upgrade).
    pub access: Access,
    /// A network client's address, against which its wrong tokens count.
    pub address: Option<IpAddr>,
    /// This session's number in the server, by which its games take turns with other clients'.
    number: u64,
    /// Who the session's agents work for (see [`AgentContext::client`](yomi_plugin::AgentContext)):
    /// `None` for the parent process on stdio, which shares the server with no other client.
    pub client: Option<String>,
}

/// Numbers the sessions of this process.
static SESSIONS: AtomicU64 = AtomicU64::new(1);

impl Session {
    /// The server's data directory, where records, presets and tournaments live.
    pub fn data_dir(&self) -> Result<std::path::PathBuf, ErrorInfo> {
        self.shared
            .config
            .data_dir
            .clone()
            .ok_or_else(|| ErrorInfo::new(ErrorCode::Internal, "the server has no data directory"))
    }

    /// A session of the parent process (stdio) or of the host itself: an operator.
    pub fn new(shared: Arc<Shared>, outbox: Outbox) -> Session {
        Session::with_access(shared, outbox, Access::Granted(Role::Operator), None)
    }

    /// A client's session, which may have to give a token first; `address` is a network
    /// client's, by which plugins share per-client budgets.
    pub fn with_access(
        shared: Arc<Shared>,
        outbox: Outbox,
        access: Access,
        address: Option<IpAddr>,
    ) -> Session {
        let cancel = CancellationToken::new();
        Session {
            client: address.map(client_key),
            outbox,
            agents: BTreeMap::new(),
            agents_made: 0,
            base_seed: shared.config.base_seed.unwrap_or_else(fresh_seed),
            matches_started: 0,
            mailbox: Arc::default(),
            background: TaskTracker::new(),
            requests: Requests::new(cancel.clone()),
            current: None,
            cancel,
            shared,
            access,
            address,
            number: SESSIONS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The server's worker and game budgets, drawn on as this client.
    pub fn budgets(&self) -> Budgets {
        self.shared.budgets.for_client(self.number)
    }

    /// The client's role; `None` until it has given a token.
    pub fn role(&self) -> Option<Role> {
        self.access.role()
    }

    /// Runs a long operation in the background; its result becomes the reply to `id`. It stays
    /// among the session's running requests until then, so a `cancel` can stop it (dropping its
    /// work, as a client's hang-up does).
    pub fn spawn(
        &mut self,
        op: &'static str,
        id: RequestId,
        work: impl Future<Output = Result<Value, ErrorInfo>> + Send + 'static,
    ) {
        let outbox = self.outbox.clone();
        let requests = self.requests.clone();
        let running = self.current.take().unwrap_or_else(|| self.requests.start(&id, op));
        self.background.spawn(async move {
            let result = tokio::select! {
                biased;
                _ = running.stop.cancelled() => match requests.session_ended() {
                    // Nobody to tell when the client is gone.
                    true => return,
                    false => Err(cancelled(op)),
                },
                result = work => result,
            };
            let reply = answered(op, Some(id), result);
            drop(running);
            let _ = outbox.reply(&reply).await;
        });
    }

    /// Cancelled when the request being dispatched is cancelled or the client goes away.
    pub fn stop(&self) -> CancellationToken {
        self.current.as_ref().map_or_else(|| self.cancel.child_token(), |r| r.stop.clone())
    }

    /// Whether the client holds the operator's role (larger limits).
    pub fn is_operator(&self) -> bool {
        self.role() == Some(Role::Operator)
    }

    /// Whether no match or tournament of this session is running (the idle timeout applies).
    pub fn is_idle(&self) -> bool {
        self.background.is_empty()
    }

    /// `limit_exceeded` when the session already runs `--max-background` matches and tournaments.
    pub fn check_background_room(&self) -> Result<(), ErrorInfo> {
        let limit = self.shared.config.limits.max_background;
        let running = self.background.len();
        Limits::check(running, limit, "matches and tournaments running", "--max-background")
    }

    /// `limit_exceeded` when the session already holds `--max-agents` agents.
    pub fn check_agent_room(&self) -> Result<(), ErrorInfo> {
        let limit = self.shared.config.limits.max_agents;
        Limits::check(self.agents.len(), limit, "agents", "--max-agents")
    }

    /// A fresh match id.
    pub fn next_match(&mut self) -> String {
        self.matches_started += 1;
        format!("m{}", self.matches_started)
    }

    /// A fresh agent id and the seed it gets unless the client chose one.
    pub fn next_agent(&mut self) -> (String, u64) {
        self.agents_made += 1;
        (format!("a{}", self.agents_made), derive_seed(self.base_seed, self.agents_made))
    }

    pub fn agent(&self, id: &str) -> Result<&AgentSlot, ErrorInfo> {
        self.agents.get(id).ok_or_else(|| unknown_agent(id))
    }

    pub fn agent_mut(&mut self, id: &str) -> Result<&mut AgentSlot, ErrorInfo> {
        self.agents.get_mut(id).ok_or_else(|| unknown_agent(id))
    }

    /// Drops every agent the session owns and stops its background operations (client seats see
    /// a disconnect first).
    pub async fn close(&mut self) {
        self.mailbox.close();
        self.cancel.cancel();
        self.background.close();
        self.background.wait().await;
        self.agents.clear();
    }
}

/// A seed from the OS: what a client that named none gets, so no other client can predict it.
/// The key plugins see for a network client: the same for every connection from one address,
/// hashed with a key of this process, so no plugin learns addresses.
fn client_key(address: IpAddr) -> String {
    use sha2::{Digest, Sha256};
    static PROCESS_KEY: OnceLock<u64> = OnceLock::new();
    let key = PROCESS_KEY.get_or_init(fresh_seed);
    let digest = Sha256::new().chain_update(key.to_le_bytes()).chain_update(address.to_string());
    let digest = digest.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

pub fn fresh_seed() -> u64 {
    use rand::RngCore;
    rand::rngs::OsRng.next_u64()
}

fn unknown_agent(id: &str) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::UnknownAgent, format!("no agent `{id}` in this session"))
}
