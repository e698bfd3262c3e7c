//! The protocol operations, one module per family.
//!
//! How a request flows: [`handle_line`] parses the line's envelope and the operation's name once
//! ([`Request::parse`], [`Op::parse`]); [`dispatch`] checks the session may ask for it, then reads
//! the parameters once into the protocol table's [`Command`]; [`apply`] hands each command's
//! parameters to its operation's handler, whose reply type the table also fixes. Every request
//! then gets exactly one reply, made and counted in one place
//! ([`answered`](crate::runtime::requests::answered)): here, from the background
//! (`Session::spawn`), or as cancelled before it ran (`cancel::urgent`).

pub mod agents;
pub mod cancel;
pub mod humans;
pub mod matches;
pub mod meta;
pub mod plugins;
pub mod schema;
pub mod tournaments;

use serde::Serialize;
use serde_json::Value;
use yomi_protocol::ops::agents::Acted;
use yomi_protocol::ops::{self as wire, Command, Operation};
use yomi_protocol::{ErrorCode, ErrorInfo, Op, Reply, Request, RequestId, OPERATIONS};

use self::schema::HostSpecs;
use crate::runtime::auth::{self, Role};
use crate::runtime::executor::Scope;
use crate::runtime::requests::{answered, cancelled};
use crate::session::Session;

/// Answers one request line. Never fails: every problem becomes an error reply. Returns None
/// when the operation went to the background and will reply by itself.
pub async fn handle_line(session: &mut Session, text: &str, scope: Scope) -> Option<Reply> {
    let request = match Request::parse(text) {
        Ok(request) => request,
        Err((id, error)) => return Some(answered("unparsed", id, Err(error))),
    };
    let id = request.id.clone();
    // Only known names become labels, so a client cannot grow the label set.
    let Some(op) = Op::parse(&request.op) else {
        let error = ErrorInfo::new(
            ErrorCode::UnknownOp,
            format!("unknown op `{}`; known: {}", request.op, OPERATIONS.join(", ")),
        );
        return Some(answered("unknown", Some(id), Err(error)));
    };
    match cancellable(session, op, request, scope).await {
        // Answered by `Session::spawn` when the background work ends.
        Ok(Answer::Later) => None,
        Ok(Answer::Now(result)) => Some(answered(op.name(), Some(id), Ok(result))),
        Err(error) => Some(answered(op.name(), Some(id), Err(error))),
    }
}

/// What applying a command gives.
#[derive(Debug)]
pub enum Answer {
    /// The reply's `result`.
    Now(Value),
    /// Nothing yet: the operation runs in the background and replies by itself.
    Later,
}

/// Operation `O`'s reply, as the protocol's table gives it.
pub type ReplyOf<O> = <O as Operation<HostSpecs>>::Reply;

/// Dispatches a request as one of the session's running requests, which a `cancel` can stop: its
/// work is then dropped and it answers `cancelled`.
async fn cancellable(
    session: &mut Session,
    op: Op,
    request: Request<'_>,
    scope: Scope,
) -> Result<Answer, ErrorInfo> {
    if op == Op::Cancel {
        return dispatch(session, op, request, scope).await;
    }
    let running = session.requests.start(&request.id, op.name());
    let stop = running.stop.clone();
    session.current = Some(running);
    let result = tokio::select! {
        biased;
        _ = stop.cancelled() => Err(cancelled(op.name())),
        result = dispatch(session, op, request, scope) => result,
    };
    session.current = None;
    result
}

/// Checks that the session may ask for `op` at all (before its parameters are read, so a client
/// without a token costs no parsing), reads the request as its command and applies it.
pub async fn dispatch(
    session: &mut Session,
    op: Op,
    request: Request<'_>,
    scope: Scope,
) -> Result<Answer, ErrorInfo> {
    let role = match (session.role(), op) {
        (role, Op::Hello | Op::Ping) => role,
        (Some(role), _) => Some(role),
        (None, _) => return Err(auth::token_needed(op.name())),
    };
    if let (Some(role), Op::PluginLoad | Op::TournamentList | Op::HumanlikeRun | Op::FitRun) =
        (role, op)
    {
        role.require_operator(op.name())?;
    }
    if matches!(op, Op::MatchRun | Op::TournamentRun | Op::HumanlikeRun | Op::FitRun) {
        session.check_background_room()?;
    }
    let id = request.id.clone();
    // Only `hello` and `ping` come without a role, and neither reads it.
    let command = Command::read(op, request)?;
    apply(session, role.unwrap_or(Role::Player), id, command, scope).await
}

/// Applies one command: each operation's handler takes the parameters and gives the reply the
/// protocol's table names for it, or this does not compile.
async fn apply(
    session: &mut Session,
    role: Role,
    id: RequestId,
    command: Command<'_, HostSpecs>,
    scope: Scope,
) -> Result<Answer, ErrorInfo> {
    use Command as C;
    match command {
        C::Hello(p) => now::<wire::Hello>(meta::hello(session, p)?),
        C::Ping(_) => now::<wire::Ping>(meta::ping()),
        C::Catalog(_) => now::<wire::Catalog>(plugins::catalog(&session.shared.registry, role)),
        C::AgentNew(p) => now::<wire::AgentNew>(agents::new(session, p).await?),
        C::AgentConfigure(p) => now::<wire::AgentConfigure>(agents::configure(session, p).await?),
        C::AgentSwap(p) => now::<wire::AgentSwap>(agents::swap(session, p).await?),
        C::AgentAct(p) => now::<wire::AgentAct>(agents::act(session, p, scope).await?),
        C::AgentObserve(p) => now::<wire::AgentObserve>(agents::observe(session, p).await?),
        C::AgentCall(p) => now::<wire::AgentCall>(agents::call(session, p).await?),
        C::AgentDrop(p) => now::<wire::AgentDrop>(agents::drop(session, p)?),
        C::AgentList(_) => now::<wire::AgentList>(agents::list(session)),
        C::PluginList(_) => now::<wire::PluginList>(plugins::list(session, role)),
        C::PluginLoad(p) => now::<wire::PluginLoad>(plugins::load(session, p).await?),
        C::MatchRun(p) => matches::run(session, id, p).map(|()| Answer::Later),
        C::MatchMove(p) => now::<wire::MatchMove>(matches::play_move(session, p)?),
        C::MatchReplay(p) => now::<wire::MatchReplay>(matches::replay(session, p).await?),
        C::TournamentRun(p) => tournaments::run(session, id, p).await.map(|()| Answer::Later),
        C::TournamentList(_) => now::<wire::TournamentList>(tournaments::list(session).await?),
        C::TournamentShow(p) => now::<wire::TournamentShow>(tournaments::show(session, p).await?),
        C::TournamentGames(p) => {
            now::<wire::TournamentGames>(tournaments::games(session, p).await?)
        }
        C::TournamentGame(p) => now::<wire::TournamentGame>(tournaments::game(session, p).await?),
        C::OpeningsList(_) => now::<wire::OpeningsList>(tournaments::openings(session).await?),
        C::HumanlikeRun(p) => humans::humanlike(session, id, p).await.map(|()| Answer::Later),
        C::FitRun(p) => humans::fit(session, id, p).await.map(|()| Answer::Later),
        C::Cancel(p) => now::<wire::Cancel>(cancel::run(session, p)?),
    }
}

/// Operation `O`'s reply, given at once.
fn now<O: Operation<HostSpecs>>(reply: ReplyOf<O>) -> Result<Answer, ErrorInfo>
where
    ReplyOf<O>: IntoResult,
{
    self::reply::<O>(reply).map(Answer::Now)
}

/// Operation `O`'s reply as its reply line's `result` (a background operation's too).
pub fn reply<O: Operation<HostSpecs>>(reply: ReplyOf<O>) -> Result<Value, ErrorInfo>
where
    ReplyOf<O>: IntoResult,
{
    reply.into_result()
}

/// A reply as its line's `result`.
pub trait IntoResult {
    fn into_result(self) -> Result<Value, ErrorInfo>;
}

/// Through a `Value`, whose keys are in order: the bytes clients have always been sent.
pub fn serialized(reply: &impl Serialize) -> Result<Value, ErrorInfo> {
    serde_json::to_value(reply)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("a reply did not serialize: {e}")))
}

/// The replies written as they serialize.
macro_rules! serialized {
    ($($reply:ty),* $(,)?) => {
        $(impl IntoResult for $reply {
            fn into_result(self) -> Result<Value, ErrorInfo> {
                serialized(&self)
            }
        })*
    };
}

serialized!(
    wire::meta::Welcome,
    wire::meta::Pong,
    wire::meta::Done,
    wire::meta::Stopped,
    wire::plugins::Catalog,
    wire::plugins::Plugin,
    Vec<wire::plugins::Plugin>,
    wire::agents::Agent,
    Vec<wire::agents::Agent>,
    wire::agents::Dropped,
    wire::matches::Summary,
    wire::matches::Replayed,
    wire::tournaments::Summary,
    Vec<wire::tournaments::Listed>,
    wire::tournaments::Shown,
    wire::tournaments::GamesPage,
    wire::tournaments::GameRecord,
    Vec<wire::tournaments::SuiteListed>,
);

/// A decision is moved into its `Value`, not copied: the hot path of a game client.
impl IntoResult for Acted {
    fn into_result(self) -> Result<Value, ErrorInfo> {
        match self {
            Acted::One(decision) => Ok(decision.into()),
            batch => serialized(&batch),
        }
    }
}

/// `agent.call`'s reply: the bot's own JSON, as it is.
impl IntoResult for Value {
    fn into_result(self) -> Result<Value, ErrorInfo> {
        Ok(self)
    }
}
