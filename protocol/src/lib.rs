//! The wire format of yomi.
//!
//! Everything that crosses a boundary — a client's JSON line, a reply, an event, a plugin manifest,
//! a bot's option schema, a game's decision request — is defined here as serde types, so the host,
//! the plugin plumbing and every bot agree on one shape. No I/O lives here.
//!
//! The protocol is versioned by [`PROTOCOL_VERSION`]: additive fields are ignored by receivers;
//! a breaking change bumps the number.

#![warn(missing_docs)]

pub mod envelope;
pub mod error;
pub mod events;
pub mod failures;
pub mod game;
pub mod manifest;
pub mod ops;
pub mod options;
pub mod schema;
pub mod validate;

pub use envelope::{Reply, Request, RequestId};
pub use error::{ErrorCode, ErrorInfo};
pub use events::{Event, EVENTS};
pub use failures::{FailureCounts, FailureKind};
pub use game::{
    ActReply, ActRequest, Clock, Decision, GameOutcome, PolicyEntry, Think, ThinkModel,
};
pub use manifest::{BotInfo, GameInfo, PluginManifest};
pub use ops::{Op, OPERATIONS};
pub use options::{OptionError, OptionKind, OptionSpec, Options, Preset};

/// Version of the JSON-lines protocol spoken between clients and the host.
pub const PROTOCOL_VERSION: u32 = 1;
