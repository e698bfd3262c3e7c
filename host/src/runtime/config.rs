//! Settings and state shared by every connection of one server.

use std::path::PathBuf;
use std::sync::Arc;

use super::auth::Auth;
use super::costs::{Budgets, CostLimits};
use super::limits::Limits;
use crate::registry::Registry;

/// Limits and settings shared by every connection.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Longest accepted request line in bytes; longer lines get `line_too_long` and are skipped.
    pub max_line_bytes: usize,
    /// TCP connections (and, counted apart, WebSocket sessions and HTTP connections) served at
    /// once; a further client is told the server is full and closed.
    pub max_connections: usize,
    /// Of those, how many one client address may hold (0: no cap), so one host cannot lock
    /// everyone else out.
    pub max_connections_per_ip: usize,
    /// Where services keep state that survives restarts.
    pub data_dir: Option<PathBuf>,
    /// Base seed from which agents without an explicit seed get theirs (`--seed`, for tests that
    /// replay whole sessions); `None`: each session draws its own from the OS, so no client can
    /// predict a deployed bot by replaying another session's seeds.
    pub base_seed: Option<u64>,
    /// Per-connection timeouts and per-session limits.
    pub limits: Limits,
    /// What one request may cost, and the server-wide budgets' sizes.
    pub costs: CostLimits,
    /// The tokens, and what a client without one may do.
    pub auth: Auth,
    /// Origins besides the page's own whose pages may open a WebSocket (`--allow-origin`).
    pub allow_origins: Vec<String>,
    /// Host names besides loopback ones and IP addresses the HTTP listener answers
    /// (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// The record sets people's match decisions are kept in (`--record-people NAME`: sets
    /// `NAME-GAME`); `None` keeps none.
    pub record_people: Option<String>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            max_line_bytes: 1 << 20,
            max_connections: 256,
            max_connections_per_ip: 64,
            data_dir: None,
            base_seed: None,
            limits: Limits::default(),
            costs: CostLimits::default(),
            auth: Auth::default(),
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            record_people: None,
        }
    }
}

/// What every session can reach.
#[derive(Debug)]
pub struct Shared {
    pub registry: Arc<Registry>,
    pub config: ServeConfig,
    /// Worker processes and running games, shared by every session.
    pub budgets: Budgets,
}

impl Shared {
    pub fn new(registry: Arc<Registry>, config: ServeConfig) -> Shared {
        let budgets = Budgets::new(&config.costs);
        Shared { registry, config, budgets }
    }
}
