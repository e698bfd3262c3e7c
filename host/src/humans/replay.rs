//! Replaying a record set through a bot, as `yomi humanlike` and `yomi fit` do many times over:
//! the records are read into [`Prepared`] plays once (each observation and legal list already
//! JSON text, handed to the bot as it is), and each play is replayed whole on a game thread
//! (`runtime::executor::on_game_thread`), so every plugin call runs right where it is made
//! instead of being handed to another thread. Plays run side by side, `workers` at a time, each
//! with a turn among the server's running games when it has budgets; answers are put back in
//! order, so a replay's figures do not depend on how many ran at once.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures_util::{StreamExt, TryStreamExt};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use yomi_plugin::call::ActText;
use yomi_plugin::rng::derive_seed;
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::record::{raw, same_move, Record};
use super::think_time::{timed, Timed};
use crate::matches::seat::{SeatEnv, SeatPlan};
use crate::runtime::costs::Budgets;
use crate::runtime::executor::{on_game_thread, Scope};

/// How one model did on one decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// The probability it gave the recorded action.
    pub p: f64,
    /// Its top-1 match (1, 1/k on a k-way tie, or 0).
    pub top: f64,
    /// The recorded time under the bot's think-time model, where the record has a time and the
    /// bot a model.
    pub think: Option<Timed>,
}

/// One recorded decision, ready to be asked again.
#[derive(Clone)]
struct Decision {
    events: Vec<Box<RawValue>>,
    observation: Box<RawValue>,
    legal: Box<RawValue>,
    action: Value,
    think_ms: Option<u64>,
}

/// A record set's plays, read once and replayed any number of times.
pub struct Prepared {
    plays: Vec<(String, Vec<Decision>)>,
    /// Each play's number in the record set, which seeds its agent: a part of the plays
    /// ([`Prepared::every`]) replays each of them as the whole set does.
    numbers: Vec<u64>,
    decisions: usize,
}

impl Prepared {
    /// Prepares `plays` (each a play's decisions in order).
    pub fn new(plays: &[Vec<&Record>]) -> Arc<Prepared> {
        let plays: Vec<(String, Vec<Decision>)> = plays
            .iter()
            .map(|play| {
                let label = play.first().map_or_else(String::new, |r| r.play.clone());
                let decisions = play
                    .iter()
                    .map(|r| Decision {
                        events: r.events.clone(),
                        observation: r.observation.clone(),
                        legal: raw(&r.legal),
                        action: r.action.clone(),
                        think_ms: r.think_ms,
                    })
                    .collect();
                (label, decisions)
            })
            .collect();
        let numbers = (0..plays.len() as u64).collect();
        Arc::new(Prepared::of(plays, numbers))
    }

    fn of(plays: Vec<(String, Vec<Decision>)>, numbers: Vec<u64>) -> Prepared {
        let decisions = plays.iter().map(|(_, d)| d.len()).sum();
        Prepared { plays, numbers, decisions }
    }

    /// Every `k`-th play, from the first.
    pub fn every(&self, k: usize) -> Arc<Prepared> {
        let (numbers, plays) = self
            .numbers
            .iter()
            .zip(&self.plays)
            .step_by(k.max(1))
            .map(|(n, p)| (*n, p.clone()))
            .unzip();
        Arc::new(Prepared::of(plays, numbers))
    }

    /// How many decisions one replay asks for.
    pub fn decisions(&self) -> usize {
        self.decisions
    }

    /// How many plays there are.
    pub fn plays(&self) -> usize {
        self.plays.len()
    }
}

/// A recorded event as the value an agent observes: parsed for each replay rather than held
/// parsed, which for a whole record set took about 20 times the memory.
fn value(event: &RawValue) -> Result<Value, ErrorInfo> {
    serde_json::from_str(event.get())
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("a recorded event: {e}")))
}

/// How a replay runs: how many plays at once, whose game turns they take, when to stop, and a
/// count of the decisions replayed so far (for progress reports).
#[derive(Clone)]
pub struct Running {
    pub workers: usize,
    pub budgets: Option<Budgets>,
    pub stop: CancellationToken,
    pub replayed: Arc<AtomicU64>,
}

impl Running {
    /// One play per core, no budgets, never stopped: the command line's replays.
    pub fn local() -> Running {
        Running {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            budgets: None,
            stop: CancellationToken::new(),
            replayed: Arc::default(),
        }
    }
}

/// Scores every decision of `prepared` under the bot of `plan`, a fresh agent per play (seeded
/// from `seed` and the play's number) told each decision's events before it decides.
pub async fn score_bot(
    plan: &SeatPlan,
    prepared: &Arc<Prepared>,
    seed: u64,
    running: &Running,
) -> Result<Vec<Vec<Scored>>, ErrorInfo> {
    let plan = Arc::new(plan.clone());
    // Unordered, so a long play holds one worker, not the next plays' finished answers (an
    // ordered buffer counts them against its width and leaves a core idle); put back in order
    // after.
    let mut scored: Vec<(usize, Vec<Scored>)> = futures_util::stream::iter(0..prepared.plays.len())
        .map(|i| {
            let (plan, prepared, running) = (plan.clone(), prepared.clone(), running.clone());
            async move {
                let _turn = match &running.budgets {
                    Some(budgets) => Some(budgets.game().await),
                    None => None,
                };
                on_game_thread(move |scope| async move {
                    let play = &prepared.plays[i];
                    let seed = derive_seed(seed, prepared.numbers[i]);
                    score_play(&plan, play, seed, &running, scope).await
                })
                .await
                .map(|scored| (i, scored))
            }
        })
        .buffer_unordered(running.workers.max(1))
        .try_collect()
        .await?;
    scored.sort_unstable_by_key(|(i, _)| *i);
    Ok(scored.into_iter().map(|(_, scored)| scored).collect())
}

/// Scores one play's decisions with a fresh agent.
async fn score_play(
    plan: &SeatPlan,
    (label, play): &(String, Vec<Decision>),
    seed: u64,
    running: &Running,
    scope: Scope,
) -> Result<Vec<Scored>, ErrorInfo> {
    let agent = plan.start(seed, &SeatEnv { scope, ..SeatEnv::default() }).await?;
    let mut scored = Vec::with_capacity(play.len());
    for decision in play {
        if running.stop.is_cancelled() {
            return Err(yomi_plugin::cancel::error());
        }
        for event in &decision.events {
            agent.observe(value(event)?).await?;
        }
        let request = ActText {
            observation: &decision.observation,
            legal: &decision.legal,
            explain: false,
            policy: true,
            // Records are scored without a clock: a person's time is measured, not limited.
            clock: None,
        };
        let reply = agent.act_text(request, scope).await.map_err(|e| match e.code {
            ErrorCode::NoPolicy => ErrorInfo::new(
                ErrorCode::NoPolicy,
                format!("{} does not say how likely its actions are: {}", plan.label(), e.message),
            ),
            _ => ErrorInfo::new(e.code, format!("play {label}: {}", e.message)),
        })?;
        let policy = reply.policy.unwrap_or_default();
        let p = policy.iter().find(|e| same_move(&e.action, &decision.action)).map_or(0.0, |e| e.p);
        let best = policy.iter().map(|e| e.p).fold(0.0, f64::max);
        let ties = policy.iter().filter(|e| e.p == best).count().max(1);
        let top = if p > 0.0 && p == best { 1.0 / ties as f64 } else { 0.0 };
        let think = decision.think_ms.zip(reply.think_model).map(|(ms, model)| timed(ms, model));
        scored.push(Scored { p, top, think });
    }
    agent.close().await;
    running.replayed.fetch_add(play.len() as u64, Ordering::Relaxed);
    Ok(scored)
}
