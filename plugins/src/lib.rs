//! The yomi plugin boundary.
//!
//! A bot author implements the safe traits in [`api`] ([`Agent`] for a game bot, [`Service`] for
//! a bot that answers calls, [`Game`] for the rules), lists them in a [`declare::Declaration`]
//! and exports it with one line: `yomi_plugin::declare_plugin!(MyPlugin, declaration);`. That
//! generates the [`Plugin`] and the C entry point the host looks for. [`cli`] parses a
//! plugin's CLI commands, [`repro::Output`] prints its reproduction rows, and [`typed`] lets a bot
//! read serde types instead of JSON, and [`think`] suggests a human think time per decision. Rust has no stable ABI, so nothing but `#[repr(C)]` tables,
//! byte buffers and UTF-8 JSON ever crosses between host and plugin ([`abi`], carrying the
//! [`call`]s, which [`dispatch`] hands to the author's traits); every call is wrapped in
//! `catch_unwind`, so a panicking bot becomes an error reply, not a dead host.
//!
//! The host side lives in its own crate, `yomi-plugin-engine`: it opens a library, checks its ABI
//! version and manifest, and hands out `PluginHandle`s that speak [`call::Call`]s. An author's
//! crate depends on this one alone.
//!
//! [`referee`] runs a game between in-process agents synchronously: what bot crates use in their
//! own tests and benchmarks, without a host. [`testing`] is the conformance check every bot crate
//! runs on its bots (and `yomi check` runs on loaded ones).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod abi;
pub mod api;
pub mod call;
pub mod cancel;
pub mod capability;
pub mod cli;
pub mod declare;
pub mod dispatch;
pub mod ladder;
pub mod misfit;
pub mod policy;
#[cfg(feature = "policy-test")]
pub mod policy_check;
pub mod referee;
pub mod repro;
pub mod rng;
pub mod testing;
pub mod think;
pub mod typed;

pub use api::{Agent, CommandContext, Game, Plugin, Service, ServiceAgent};
pub use call::{AgentContext, GameOver};
pub use yomi_protocol as protocol;
pub use yomi_protocol::{
    ActReply, ActRequest, BotInfo, Clock, Decision, ErrorCode, ErrorInfo, GameInfo, GameOutcome,
    OptionSpec, Options, PluginManifest, PolicyEntry, Preset,
};
