//! `hello` and `ping`.

use yomi_protocol::ops::meta::{Hello, Pong, Welcome};
use yomi_protocol::{ErrorInfo, OPERATIONS, PROTOCOL_VERSION};

use crate::runtime::auth::{Access, Role};
use crate::session::Session;

/// This server's version, shared by every crate and client package of the release.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The commit the server was built from (host/build.rs), or `unknown`.
pub const BUILD: &str = env!("YOMI_BUILD");
/// What `yomi --version` prints after the name.
pub const LONG_VERSION: &str =
    concat!(env!("CARGO_PKG_VERSION"), " (build ", env!("YOMI_BUILD"), ")");

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

/// Introduces the server; with a token, grants its role to the session (a wrong token is
/// `unauthorized`, and the connection closes after that reply). `role` is null until a token is given. An
/// operator already (stdio, a loopback client of a server without tokens) has nothing to gain,
/// so its token is not checked: a client with `YOMI_TOKEN` set works against either.
pub fn hello(session: &mut Session, params: Hello) -> Result<Welcome, ErrorInfo> {
    if let Some(client) = &params.client {
        tracing::info!(client, "hello");
    }
    let operator = session.role() == Some(Role::Operator);
    if let (Some(token), false) = (&params.token, operator) {
        let granted = session.shared.config.auth.role_for(session.address, token);
        session.access = granted.as_ref().map_or(Access::Refused, |role| Access::Granted(*role));
        granted?;
    }
    let names = |list: &[&str]| list.iter().map(|name| name.to_string()).collect();
    Ok(Welcome {
        protocol: PROTOCOL_VERSION,
        server: "yomi".into(),
        version: VERSION.into(),
        build: BUILD.into(),
        features: names(FEATURES),
        operations: names(OPERATIONS),
        compatible: params.protocol.is_none_or(|p| p == PROTOCOL_VERSION),
        role: session.role().map(|role| role.name().to_string()),
        recording: session.shared.config.record_people.clone(),
    })
}

pub fn ping() -> Pong {
    Pong { pong: true }
}
