//! `humanlike.run` and `fit.run`: the jobs of `yomi humanlike` and `yomi fit` for an operator.
//! Each is prepared and its replayed decisions counted against `--max-replayed-decisions`
//! before any replay; it then runs in the background on the server's game budgets, with
//! `replay.progress` events, and stops at the next decision when cancelled.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use yomi_protocol::events::ReplayProgress;
use yomi_protocol::ops::humans::{Fit, Humanlike};
use yomi_protocol::{ErrorInfo, RequestId};

use crate::humans::replay::Running;
use crate::humans::report::{FitJob, HumanlikeJob};
use crate::runtime::blocking::blocking;
use crate::runtime::costs::exceeded;
use crate::session::Session;

/// How often a running job reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// `limit_exceeded` naming `--max-replayed-decisions` when `cost` is past it.
fn check_cost(session: &Session, op: &str, cost: u64) -> Result<(), ErrorInfo> {
    let limit = session.shared.config.costs.max_replayed_decisions;
    if cost > limit {
        let what = format!("{op} would replay up to {cost} recorded decisions");
        return Err(exceeded(what, limit, "--max-replayed-decisions"));
    }
    Ok(())
}

/// A replay that takes its turns among the server's running games and stops with the request.
fn running(session: &Session) -> Running {
    Running { budgets: Some(session.budgets()), stop: session.stop(), ..Running::local() }
}

/// Answers `id` with `work`'s report in the background, sending `replay.progress` events of
/// `running`'s count out of `total` until it ends.
fn spawn_reporting(
    session: &mut Session,
    op: &'static str,
    id: RequestId,
    running: &Running,
    total: u64,
    work: impl Future<Output = Result<Value, ErrorInfo>> + Send + 'static,
) {
    let (outbox, replayed, request) =
        (session.outbox.clone(), running.replayed.clone(), id.clone());
    let progress = async move {
        let mut every = tokio::time::interval(PROGRESS_EVERY);
        loop {
            every.tick().await;
            let decisions = replayed.load(Ordering::Relaxed);
            let op = op.to_string();
            outbox.try_event(ReplayProgress { request: request.clone(), op, decisions, total });
        }
    };
    session.spawn(op, id, async move {
        tokio::select! {
            result = work => result,
            never = progress => never,
        }
    });
}

/// `humanlike.run`: the report of `yomi humanlike --json`.
pub async fn humanlike(
    session: &mut Session,
    id: RequestId,
    p: Humanlike,
) -> Result<(), ErrorInfo> {
    let (dir, registry) = (session.data_dir()?, session.shared.registry.clone());
    let job = blocking(move || HumanlikeJob::prepare(&registry, &dir, p)).await?;
    check_cost(session, "humanlike.run", job.cost())?;
    let (total, running) = (job.cost(), running(session));
    let work = {
        let running = running.clone();
        async move { job.run(&running).await }
    };
    spawn_reporting(session, "humanlike.run", id, &running, total, work);
    Ok(())
}

/// `fit.run`: fits, writes the preset into the data directory and gives the report of
/// `yomi fit --json`. The optimiser blocks on each replay, so it runs on a blocking thread.
pub async fn fit(session: &mut Session, id: RequestId, p: Fit) -> Result<(), ErrorInfo> {
    let (dir, registry) = (session.data_dir()?, session.shared.registry.clone());
    let prepare_dir = dir.clone();
    let job = blocking(move || FitJob::prepare(registry, &prepare_dir, p)).await?;
    check_cost(session, "fit.run", job.cost())?;
    let (total, running) = (job.cost(), running(session));
    let runtime = tokio::runtime::Handle::current();
    let work = {
        let running = running.clone();
        blocking(move || job.run(&dir, &runtime, &running))
    };
    spawn_reporting(session, "fit.run", id, &running, total, work);
    Ok(())
}
