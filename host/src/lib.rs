//! The yomi host: one process that loads bot plugins and serves them to clients over JSON lines.
//!
//! The modules are layers; each imports only from the layers listed before it (the wire types
//! `yomi_protocol` and the plugin kit `yomi_plugin` sit under all of them), which
//! `tests/layers.rs` checks:
//!
//! - [`runtime`]: the loaded plugins, calling plugin code off the reactor, a client's outbox.
//! - [`agents`]: the `AgentHandle` trait — one async interface in front of every bot, whatever
//!   serves it (in process, a worker process, a connected client, recorded moves).
//! - [`matches`]: the host as referee: seats, policy, one game, a match, transcripts.
//! - [`tournament`]: schedules, the resumable store, standings and ratings.
//! - [`humans`]: records of people's decisions, and how likely a bot finds them.
//! - [`session`]: one client's state.
//! - [`ops`]: one module per family of protocol operations, each a parse step and an apply step.
//! - [`server`]: transports (stdio, TCP), the line framing, one connection.
//! - [`cli`]: the command line.

/// The host allocates from many threads and frees on others (a game's transcript is built by its
/// player and dropped by the committing loop; a request is parsed on one thread and its call
/// answered on a lane). The system allocator serialised those frees on its arena locks, which put
/// a tournament's players to sleep more often than they ran; mimalloc frees across threads
/// without a lock. Declared here, not in `main.rs`, so the benches and tests measure the same host.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod registry;
pub mod runtime;

pub mod agents;

pub mod matches;

pub mod tournament;

pub mod humans;

pub mod session;

pub mod ops;

pub mod server;

pub mod cli;
