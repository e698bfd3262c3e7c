//! The protocol operations, one module per family. Each operation parses its typed parameters
//! from the request and applies them to the session.

pub mod agents;
pub mod matches;
pub mod meta;
pub mod plugins;
pub mod tournaments;

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
    "match.run",
    "match.move",
    "match.replay",
    "tournament.run",
    "tournament.list",
];

/// Routes a request to its operation. `Ok(None)` means the operation runs in the background and
/// sends its own reply.
pub async fn dispatch(session: &mut Session, request: Request) -> Result<Option<Value>, ErrorInfo> {
    let op = request.op.as_str();
    if matches!(op, "match.run" | "tournament.run") {
        session.check_background_room()?;
    }
    match op {
        "match.run" => matches::run(session, request.id.clone(), request.params()?).map(|_| None),
        "tournament.run" => {
            tournaments::run(session, request.id.clone(), request.params()?).map(|_| None)
        }
        _ => immediate(session, request).await.map(Some),
    }
}

async fn immediate(session: &mut Session, request: Request) -> Result<Value, ErrorInfo> {
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
        "match.move" => matches::play_move(session, request.params()?),
        "match.replay" => matches::replay(session, request.params()?).await,
        "tournament.list" => tournaments::list(session),
        other => Err(ErrorInfo::new(
            ErrorCode::UnknownOp,
            format!("unknown op `{other}`; known: {}", OPERATIONS.join(", ")),
        )),
    }
}
