//! The protocol operations, one module per family. Each operation parses its typed parameters
//! from the request and applies them to the session.

pub mod agents;
pub mod cancel;
pub mod matches;
pub mod meta;
pub mod plugins;
pub mod tournaments;

use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo, Op, Reply, Request, OPERATIONS};

use crate::requests::cancelled;
use crate::runtime::auth::{self, Role};
use crate::runtime::metrics;
use crate::session::Session;

/// Answers one request line. Never fails: every problem becomes an error reply. Returns None
/// when the operation went to the background and will reply by itself.
pub async fn handle_line(session: &mut Session, text: &str) -> Option<Reply> {
    match Request::parse(text) {
        Err((id, error)) => {
            metrics::request("unparsed", Err(error.code));
            Some(Reply::err(id, error))
        }
        Ok(request) => {
            let id = request.id.clone();
            // Only known names become labels, so a client cannot grow the label set.
            let op = Op::parse(&request.op).map_or("unknown", Op::name);
            match cancellable(session, op, request).await {
                Ok(Some(result)) => {
                    metrics::request(op, Ok(()));
                    Some(Reply::ok(id, result))
                }
                // Counted by `Session::spawn` when the background work replies.
                Ok(None) => None,
                Err(error) => {
                    metrics::request(op, Err(error.code));
                    Some(Reply::err(Some(id), error))
                }
            }
        }
    }
}

/// Dispatches a request as one of the session's running requests, which a `cancel` can stop: its
/// work is then dropped and it answers `cancelled`.
async fn cancellable(
    session: &mut Session,
    op: &'static str,
    request: Request<'_>,
) -> Result<Option<Value>, ErrorInfo> {
    if op == Op::Cancel.name() {
        return dispatch(session, request).await;
    }
    let running = session.requests.start(&request.id, op);
    let stop = running.stop.clone();
    session.current = Some(running);
    let result = tokio::select! {
        biased;
        _ = stop.cancelled() => Err(cancelled(op)),
        result = dispatch(session, request) => result,
    };
    session.current = None;
    result
}

/// Routes a request to its operation. `Ok(None)` means the operation runs in the background and
/// sends its own reply.
pub async fn dispatch(
    session: &mut Session,
    request: Request<'_>,
) -> Result<Option<Value>, ErrorInfo> {
    let Some(op) = Op::parse(&request.op) else {
        return Err(ErrorInfo::new(
            ErrorCode::UnknownOp,
            format!("unknown op `{}`; known: {}", request.op, OPERATIONS.join(", ")),
        ));
    };
    let role = match (session.role(), op) {
        (_, Op::Hello) => return meta::hello(session, request.params()?).map(Some),
        (_, Op::Ping) => return Ok(Some(meta::ping())),
        (Some(role), _) => role,
        (None, _) => return Err(auth::token_needed(op.name())),
    };
    if matches!(op, Op::PluginLoad | Op::TournamentList) {
        role.require_operator(op.name())?;
    }
    if matches!(op, Op::MatchRun | Op::TournamentRun) {
        session.check_background_room()?;
    }
    let id = request.id.clone();
    let reply = match op {
        Op::Hello | Op::Ping => unreachable!("answered above"),
        Op::Catalog => Ok(session.shared.registry.catalog()),
        Op::AgentNew => agents::new(session, request.params()?).await,
        Op::AgentConfigure => agents::configure(session, request.params()?).await,
        Op::AgentSwap => agents::swap(session, request.params()?).await,
        Op::AgentAct => agents::act(session, request.params()?).await,
        Op::AgentObserve => agents::observe(session, request.params()?).await,
        Op::AgentCall => agents::call(session, request.params()?).await,
        Op::AgentDrop => agents::drop(session, request.params()?),
        Op::AgentList => Ok(agents::list(session)),
        Op::PluginList => Ok(without_paths(plugins::list(session), role)),
        Op::PluginLoad => plugins::load(session, request.params()?).await,
        Op::MatchRun => return matches::run(session, id, request.params()?).map(|_| None),
        Op::MatchMove => matches::play_move(session, request.params()?),
        Op::MatchReplay => matches::replay(session, request.params()?).await,
        Op::TournamentRun => {
            return tournaments::run(session, id, request.params()?).await.map(|_| None)
        }
        Op::TournamentList => tournaments::list(session).await,
        Op::Cancel => cancel::run(session, request.params()?),
    };
    reply.map(Some)
}

/// A plugin list as `role` may see it: library paths (where the server's files are) are for
/// operators only.
fn without_paths(mut list: Value, role: Role) -> Value {
    if role == Role::Player {
        for plugin in list.as_array_mut().into_iter().flatten() {
            if let Some(fields) = plugin.as_object_mut() {
                fields.remove("path");
            }
        }
    }
    list
}
