//! The protocol operations, one module per family. Each operation parses its typed parameters
//! from the request and applies them to the session.

pub mod agents;
pub mod matches;
pub mod meta;
pub mod plugins;
pub mod schema;
pub mod tournaments;

use serde::Serialize;
use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo, Op, Reply, Request, OPERATIONS};

use crate::runtime::auth;
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
            match dispatch(session, request).await {
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
        (_, Op::Hello) => return to_result(meta::hello(session, request.params()?)?).map(Some),
        (_, Op::Ping) => return to_result(meta::ping()).map(Some),
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
    match op {
        Op::Hello | Op::Ping => unreachable!("answered above"),
        Op::Catalog => to_result(plugins::catalog(&session.shared.registry, role)),
        Op::AgentNew => to_result(agents::new(session, request.params()?).await?),
        Op::AgentConfigure => to_result(agents::configure(session, request.params()?).await?),
        Op::AgentSwap => to_result(agents::swap(session, request.params()?).await?),
        // Moved into its `Value`, not copied: the hot path of a game client.
        Op::AgentAct => Ok(agents::act(session, request.params()?).await?.into()),
        Op::AgentObserve => to_result(agents::observe(session, request.params()?).await?),
        Op::AgentCall => agents::call(session, request.params()?).await,
        Op::AgentDrop => to_result(agents::drop(session, request.params()?)?),
        Op::AgentList => to_result(agents::list(session)),
        Op::PluginList => to_result(plugins::list(session, role)),
        Op::PluginLoad => to_result(plugins::load(session, request.params()?).await?),
        Op::MatchRun => return matches::run(session, id, request.params()?).map(|_| None),
        Op::MatchMove => to_result(matches::play_move(session, request.params()?)?),
        Op::MatchReplay => to_result(matches::replay(session, request.params()?).await?),
        Op::TournamentRun => {
            return tournaments::run(session, id, request.params()?).await.map(|_| None)
        }
        Op::TournamentList => to_result(tournaments::list(session).await?),
    }
    .map(Some)
}

/// A typed reply (its type is the operation's in `yomi_protocol::ops`) as its reply's `result`.
/// Through a `Value`, whose keys are in order: the bytes clients have always been sent.
pub fn to_result(reply: impl Serialize) -> Result<Value, ErrorInfo> {
    serde_json::to_value(reply)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("a reply did not serialize: {e}")))
}
