//! The yomi plugin boundary.
//!
//! A bot author implements the safe traits in [`api`] ([`Plugin`], [`Agent`], [`Game`]) and
//! exports them with one line: `yomi_plugin::export_plugin!(MyPlugin);`. That macro generates the
//! C entry point the host looks for. Rust has no stable ABI, so nothing but `#[repr(C)]` tables,
//! byte buffers and UTF-8 JSON ever crosses between host and plugin ([`abi`]); every call is
//! wrapped in `catch_unwind`, so a panicking bot becomes an error reply, not a dead host.
//!
//! The host side ([`loader`], feature `host`) opens a library, checks its ABI version and
//! manifest, and hands out [`loader::PluginHandle`]s that speak [`call::Call`]s.
//!
//! [`referee`] runs a game between in-process agents synchronously: what bot crates use in their
//! own tests and benchmarks, without a host.

pub mod abi;
pub mod api;
pub mod call;
#[cfg(feature = "host")]
pub mod loader;
pub mod referee;
pub mod repro;
pub mod rng;

pub use api::{Agent, AgentContext, CommandContext, Game, Plugin};
pub use yomi_protocol as protocol;
pub use yomi_protocol::{
    ActReply, ActRequest, BotInfo, Decision, ErrorCode, ErrorInfo, GameInfo, GameOutcome,
    OptionSpec, Options, PluginManifest, Preset,
};
