//! The yomi host: one process that loads bot plugins and serves them to clients over JSON lines.
//!
//! - [`registry`]: the loaded plugins (several builds of one plugin may live side by side) and
//!   how bot and game names resolve to them.
//! - [`agent`]: the `Agent` trait — one async interface in front of every bot, whatever serves it.
//! - [`server`]: transports (stdio, TCP), the line framing, and per-connection sessions.
//! - [`ops`]: one module per family of protocol operations, each a parse step and an apply step.
//! - [`cli`]: the command line.

// First, so the printing macros are in scope in every later module.
#[macro_use]
mod cli_out;
pub mod agent;
pub mod cli;
mod cli_play;
mod cli_text;
pub mod matches;
pub mod ops;
pub mod registry;
pub mod server;
pub mod tournament;
pub mod worker;
