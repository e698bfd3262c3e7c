//! The protocol operations, one module per family. Each operation parses its typed parameters
//! from the request and applies them to the session.

pub mod agents;
pub mod cancel;
pub mod matches;
pub mod meta;
pub mod plugins;
pub mod schema;
pub mod tournaments;

use serde::Serialize;
use serde_json::Value;
use yomi_protocol::ops::agents::Acted;
use yomi_protocol::ops::{self as wire, Operation};
use yomi_protocol::{ErrorCode, ErrorInfo, Op, Reply, Request, OPERATIONS};

use self::schema::HostSpecs;
use crate::runtime::auth;
use crate::runtime::metrics;
use crate::runtime::requests::cancelled;
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

/// Operation `O`'s parameters, as the protocol's table gives them.
type Params<'a, O> = <O as Operation<HostSpecs>>::Params<'a>;

/// Operation `O`'s reply, as the protocol's table gives it.
pub type ReplyOf<O> = <O as Operation<HostSpecs>>::Reply;

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
    // Reads operation `$op`'s parameters as `$p` and answers with `$handler`: both of the types
    // the protocol's table gives `$op`, or this does not compile.
    macro_rules! answer {
        ($op:ident, |$p:pat_param| $handler:expr) => {{
            let $p: Params<'_, wire::$op> = request.params()?;
            reply::<wire::$op>($handler)
        }};
    }
    let role = match (session.role(), op) {
        (_, Op::Hello) => return answer!(Hello, |p| meta::hello(session, p)?).map(Some),
        (_, Op::Ping) => return answer!(Ping, |_| meta::ping()).map(Some),
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
        Op::Catalog => answer!(Catalog, |_| plugins::catalog(&session.shared.registry, role)),
        Op::AgentNew => answer!(AgentNew, |p| agents::new(session, p).await?),
        Op::AgentConfigure => answer!(AgentConfigure, |p| agents::configure(session, p).await?),
        Op::AgentSwap => answer!(AgentSwap, |p| agents::swap(session, p).await?),
        Op::AgentAct => {
            let p: Params<'_, wire::AgentAct> = request.params()?;
            match agents::act(session, p).await? {
                // Moved into its `Value`, not copied: the hot path of a game client.
                Acted::One(decision) => Ok(decision.into()),
                batch => reply::<wire::AgentAct>(batch),
            }
        }
        Op::AgentObserve => answer!(AgentObserve, |p| agents::observe(session, p).await?),
        Op::AgentCall => {
            let p: Params<'_, wire::AgentCall> = request.params()?;
            let result: ReplyOf<wire::AgentCall> = agents::call(session, p).await?;
            Ok(result) // the bot's own JSON, as it is
        }
        Op::AgentDrop => answer!(AgentDrop, |p| agents::drop(session, p)?),
        Op::AgentList => answer!(AgentList, |_| agents::list(session)),
        Op::PluginList => answer!(PluginList, |_| plugins::list(session, role)),
        Op::PluginLoad => answer!(PluginLoad, |p| plugins::load(session, p).await?),
        Op::MatchRun => {
            let p: Params<'_, wire::MatchRun> = request.params()?;
            return matches::run(session, id, p).map(|_| None);
        }
        Op::MatchMove => answer!(MatchMove, |p| matches::play_move(session, p)?),
        Op::MatchReplay => answer!(MatchReplay, |p| matches::replay(session, p).await?),
        Op::TournamentRun => {
            let p: Params<'_, wire::TournamentRun> = request.params()?;
            return tournaments::run(session, id, p).await.map(|_| None);
        }
        Op::TournamentList => answer!(TournamentList, |_| tournaments::list(session).await?),
        Op::Cancel => answer!(Cancel, |p| cancel::run(session, p)?),
    }
    .map(Some)
}

/// Operation `O`'s reply as its reply line's `result`. Through a `Value`, whose keys are in
/// order: the bytes clients have always been sent.
pub fn reply<O: Operation<HostSpecs>>(reply: ReplyOf<O>) -> Result<Value, ErrorInfo>
where
    ReplyOf<O>: Serialize,
{
    serde_json::to_value(reply)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("a reply did not serialize: {e}")))
}
