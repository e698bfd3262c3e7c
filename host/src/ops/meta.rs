//! `hello` and `ping`.

use serde::Deserialize;
use serde_json::{json, Value};
use yomi_protocol::{ErrorInfo, OPERATIONS, PROTOCOL_VERSION};

/// Optional client introduction.
#[derive(Debug, Deserialize)]
pub struct Hello {
    /// The protocol version the client speaks, if it says.
    #[serde(default)]
    pub protocol: Option<u32>,
    #[serde(default)]
    pub client: Option<String>,
}

/// What a client can rely on from this server.
pub const FEATURES: &[&str] = &[
    "catalog",
    "agents",
    "personality-swap",
    "hot-swap",
    "services",
    "plugin-load",
    "matches",
    "client-seats",
    "tournaments",
];

pub fn hello(params: Hello) -> Result<Value, ErrorInfo> {
    if let Some(client) = &params.client {
        tracing::info!(client, "hello");
    }
    Ok(json!({
        "protocol": PROTOCOL_VERSION,
        "server": "yomi",
        "version": env!("CARGO_PKG_VERSION"),
        "features": FEATURES,
        "operations": OPERATIONS,
        "compatible": params.protocol.is_none_or(|p| p == PROTOCOL_VERSION),
    }))
}

pub fn ping() -> Value {
    json!({"pong": true})
}
