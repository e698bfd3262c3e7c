//! The protocol operations, one module per family. Each operation parses its typed parameters
//! from the request and applies them to the session.

pub mod agents;
pub mod meta;
pub mod plugins;

use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo, Request};

use crate::server::session::Session;

/// Every operation name, for `hello` and for the error on an unknown one.
pub const OPERATIONS: &[&str] = &[
    "hello",
    "ping",
    "catalog",
    "agent.new",
    "agent.configure",
    "agent.swap",
    "agent.act",
    "agent.observe",
    "agent.call",
    "agent.drop",
    "agent.list",
    "plugin.list",
    "plugin.load",
];

/// Routes a request to its operation.
pub async fn dispatch(session: &mut Session, request: Request) -> Result<Value, ErrorInfo> {
    match request.op.as_str() {
        "hello" => meta::hello(request.params()?),
        "ping" => Ok(meta::ping()),
        "catalog" => Ok(session.shared.registry.catalog()),
        "agent.new" => agents::new(session, request.params()?).await,
        "agent.configure" => agents::configure(session, request.params()?).await,
        "agent.swap" => agents::swap(session, request.params()?).await,
        "agent.act" => agents::act(session, request.params()?).await,
        "agent.observe" => agents::observe(session, request.params()?).await,
        "agent.call" => agents::call(session, request.params()?).await,
        "agent.drop" => agents::drop(session, request.params()?),
        "agent.list" => Ok(agents::list(session)),
        "plugin.list" => Ok(plugins::list(session)),
        "plugin.load" => plugins::load(session, request.params()?).await,
        other => Err(ErrorInfo::new(
            ErrorCode::UnknownOp,
            format!("unknown op `{other}`; known: {}", OPERATIONS.join(", ")),
        )),
    }
}
