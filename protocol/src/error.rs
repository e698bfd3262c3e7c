//! Stable error codes. Clients match on `code`; `message` is for people and may change.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every error a reply can carry. The serialized names are stable API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The line is not valid JSON.
    MalformedJson,
    /// Valid JSON, but not a request object (not an object, no id, no op).
    InvalidRequest,
    /// The line is longer than the connection's limit.
    LineTooLong,
    /// No such operation.
    UnknownOp,
    /// The operation's parameters are missing or of the wrong type.
    InvalidParams,
    /// No such agent id in this session.
    UnknownAgent,
    /// No such bot.
    UnknownBot,
    /// No such game.
    UnknownGame,
    /// A bot name matches several plugins; qualify it as `plugin/bot`.
    AmbiguousBot,
    /// An option is unknown, of the wrong type or out of range.
    InvalidOption,
    /// No such preset for this bot.
    UnknownPreset,
    /// The action is not legal in the current state.
    IllegalAction,
    /// The bot does not offer that service method.
    UnknownMethod,
    /// The bot does not say how likely its actions are (`agent.act` with `policy`).
    NoPolicy,
    /// The bot rejected the request (bad observation, bad service parameters ...).
    BotError,
    /// The plugin panicked while handling the call; the host and other agents are unaffected.
    PluginPanic,
    /// A plugin could not be loaded (not a library, no entry point, wrong ABI, duplicate name ...).
    PluginLoad,
    /// No such plugin.
    UnknownPlugin,
    /// The path is outside the plugin directories.
    Forbidden,
    /// A deadline passed.
    Timeout,
    /// An isolated bot's worker process died (crash, abort, segfault); it is restarted on next use.
    Crashed,
    /// A connected client seat went away.
    Disconnected,
    /// No such match, tournament or record.
    NotFound,
    /// The request conflicts with the current state (e.g. resuming a finished tournament).
    Conflict,
    /// The connection has not given a valid token, or its role may not do this.
    Unauthorized,
    /// A per-session limit (agents, background operations) is reached; see `yomi serve --help`.
    LimitExceeded,
    /// Something failed inside the host.
    Internal,
    /// The client cancelled the request (`cancel`); its work was stopped or its answer dropped.
    Cancelled,
}

/// All codes with their wire names, for documentation and tests.
pub const ALL_CODES: &[(ErrorCode, &str)] = &[
    (ErrorCode::MalformedJson, "malformed_json"),
    (ErrorCode::InvalidRequest, "invalid_request"),
    (ErrorCode::LineTooLong, "line_too_long"),
    (ErrorCode::UnknownOp, "unknown_op"),
    (ErrorCode::InvalidParams, "invalid_params"),
    (ErrorCode::UnknownAgent, "unknown_agent"),
    (ErrorCode::UnknownBot, "unknown_bot"),
    (ErrorCode::UnknownGame, "unknown_game"),
    (ErrorCode::AmbiguousBot, "ambiguous_bot"),
    (ErrorCode::InvalidOption, "invalid_option"),
    (ErrorCode::UnknownPreset, "unknown_preset"),
    (ErrorCode::IllegalAction, "illegal_action"),
    (ErrorCode::UnknownMethod, "unknown_method"),
    (ErrorCode::NoPolicy, "no_policy"),
    (ErrorCode::BotError, "bot_error"),
    (ErrorCode::PluginPanic, "plugin_panic"),
    (ErrorCode::PluginLoad, "plugin_load"),
    (ErrorCode::UnknownPlugin, "unknown_plugin"),
    (ErrorCode::Forbidden, "forbidden"),
    (ErrorCode::Timeout, "timeout"),
    (ErrorCode::Crashed, "crashed"),
    (ErrorCode::Disconnected, "disconnected"),
    (ErrorCode::NotFound, "not_found"),
    (ErrorCode::Conflict, "conflict"),
    (ErrorCode::Unauthorized, "unauthorized"),
    (ErrorCode::LimitExceeded, "limit_exceeded"),
    (ErrorCode::Internal, "internal"),
    (ErrorCode::Cancelled, "cancelled"),
];

/// The error object of a failed reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error, JsonSchema)]
#[error("{code:?}: {message}")]
pub struct ErrorInfo {
    /// The stable, machine-readable kind of failure, which clients branch on.
    pub code: ErrorCode,
    /// For people: what went wrong and, where it helps, what to do about it.
    pub message: String,
}

impl ErrorInfo {
    /// An error of kind `code` with a message for people.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorInfo {
        ErrorInfo { code, message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for (code, name) in ALL_CODES {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::String(name.to_string())
            );
        }
    }
}
