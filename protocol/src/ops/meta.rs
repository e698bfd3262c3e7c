//! `hello` and `ping`, and the empty shapes other operations share.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::envelope::RequestId;

/// `hello`'s parameters: an optional client introduction, and the token of a network client.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Hello {
    /// The protocol version the client speaks, if it says.
    #[serde(default)]
    pub protocol: Option<u32>,
    /// The client's name, for the server's log.
    #[serde(default)]
    pub client: Option<String>,
    /// The player or operator token; grants its role to this connection.
    #[serde(default)]
    pub token: Option<String>,
}

/// `hello`'s reply: what a client can rely on from this server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Welcome {
    /// The protocol version the server speaks.
    pub protocol: u32,
    /// Always `yomi`.
    pub server: String,
    /// The server's version (the workspace version every crate and client package shares).
    pub version: String,
    /// The source the server was built from: the git commit (12 hex digits), or what the
    /// builder set in `YOMI_BUILD`, or `unknown`.
    pub build: String,
    /// What the server offers (`agents`, `hot-swap`, `tournaments` ...).
    pub features: Vec<String>,
    /// Every operation's name.
    pub operations: Vec<String>,
    /// Whether the client's protocol version (if it gave one) is the server's.
    pub compatible: bool,
    /// `player` or `operator` once the connection has a role, else null.
    pub role: Option<String>,
    /// When the operator keeps people's games as human records (`yomi serve --record-people
    /// NAME`): the name, whose sets `NAME-GAME` receive every decision a client seat of a match
    /// answers. Absent when nothing is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
}

/// `ping`'s reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Pong {
    /// Always true.
    pub pong: bool,
}

/// The parameters of an operation that takes none (other fields are ignored).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct NoParams {}

/// The reply of an operation that has nothing to say but that it was done: `{}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Done {}

/// `cancel`'s parameters: one request by its envelope id, or every request of the session.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Cancel {
    /// The envelope id of the request to stop.
    #[serde(default)]
    pub request: Option<RequestId>,
    /// Stop every request of the session instead.
    #[serde(default)]
    pub all: bool,
}

/// `cancel`'s reply: the requests it stopped (each also answered `cancelled`); empty when the
/// ones it named had already answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stopped {
    /// What was stopped.
    pub stopped: Vec<StoppedRequest>,
}

/// A request a `cancel` stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StoppedRequest {
    /// Its envelope id.
    pub request: RequestId,
    /// Its operation.
    pub op: String,
}
