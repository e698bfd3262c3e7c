//! Plays one game between seated agents under a policy, recording every decision, action and
//! event: the host side of the OpenSpiel loop, with deadlines and failures.

use std::sync::Arc;
use std::time::Instant;

use futures_util::future::join_all;
use serde::Serialize;
use serde_json::{json, Value};
use yomi_plugin::GameOver;
use yomi_protocol::{ActRequest, Decision, ErrorCode, ErrorInfo, GameOutcome};

use super::game::RefereedGame;
use super::log::Log;
use super::policy::{FailureCounts, FailureKind, OnFailure, Policy};
use crate::agents::AgentHandle;

#[cfg(test)]
#[path = "referee_tests.rs"]
mod tests;

/// A game longer than this many steps is a broken referee, not a long game.
const MAX_STEPS: usize = 1_000_000;

/// The result of one game.
#[derive(Debug, Clone, Serialize)]
pub struct GameRecord {
    pub scores: Vec<f64>,
    pub summary: Value,
    pub failures: Vec<FailureCounts>,
    /// The seat that forfeited, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<(usize, FailureKind)>,
    pub steps: usize,
}

/// Plays `game` to the end, then tells every seat how it ended (a forfeit too). `log` receives
/// the transcript lines of this game.
pub async fn play(
    game: &dyn RefereedGame,
    agents: &[Arc<dyn AgentHandle>],
    policy: &Policy,
    game_index: u32,
    log: &mut Log,
) -> Result<GameRecord, ErrorInfo> {
    let record = play_to_end(game, agents, policy, game_index, log).await?;
    let outcome = GameOutcome { scores: record.scores.clone(), summary: record.summary.clone() };
    tell_game_over(agents, &outcome, game_index).await;
    Ok(record)
}

async fn play_to_end(
    game: &dyn RefereedGame,
    agents: &[Arc<dyn AgentHandle>],
    policy: &Policy,
    game_index: u32,
    log: &mut Log,
) -> Result<GameRecord, ErrorInfo> {
    let seats = agents.len();
    let mut failures = vec![FailureCounts::default(); seats];
    let mut steps = 0;
    loop {
        let decisions = game.decisions().await?;
        if decisions.is_empty() {
            break;
        }
        steps += 1;
        if steps > MAX_STEPS {
            return Err(ErrorInfo::new(
                ErrorCode::Internal,
                format!("game did not end within {MAX_STEPS} steps"),
            ));
        }
        if let Some(d) = decisions.iter().find(|d| d.seat >= seats) {
            return Err(ErrorInfo::new(
                ErrorCode::Internal,
                format!("game asked seat {} of {seats}", d.seat),
            ));
        }
        let answers =
            join_all(decisions.iter().map(|d| ask(agents[d.seat].as_ref(), d, policy))).await;
        for d in &decisions {
            let (observation, legal) = (&d.observation, &d.legal);
            log.push(&DecisionLine {
                game: game_index,
                legal,
                observation,
                seat: d.seat,
                kind: "decision",
            });
        }
        let mut actions = Vec::with_capacity(decisions.len());
        for (d, (answer, ms)) in decisions.iter().zip(answers) {
            let (action, failure) = match answer {
                Ok(action) => (Some(action), None),
                Err(e) => (None, Some((FailureKind::of(&e), e.message))),
            };
            let failed = failure.as_ref().map(|(kind, message)| Failure { kind: *kind, message });
            log.push(&ActionLine {
                action: action.as_ref(),
                failure: failed,
                game: game_index,
                ms,
                seat: d.seat,
                kind: "action",
            });
            match (action, failure) {
                (Some(action), _) => actions.push((d.seat, action)),
                (None, Some((kind, _))) => {
                    failures[d.seat].add(kind);
                    match substitute(game, d.seat, kind, policy).await? {
                        Some(action) => actions.push((d.seat, action)),
                        None => {
                            return forfeit(d.seat, kind, seats, failures, steps, game_index, log)
                        }
                    }
                }
                (None, None) => unreachable!("an answer is an action or a failure"),
            }
        }
        let event = loop {
            match game.apply(actions.clone()).await {
                Ok(event) => break event,
                Err(e) if e.code == ErrorCode::IllegalAction => {
                    let culprits = culprits(&decisions, &actions);
                    let Some(&seat) = culprits.first() else {
                        return Err(ErrorInfo::new(
                            ErrorCode::Internal,
                            format!(
                                "the game rejected a joint action without a culprit: {}",
                                e.message
                            ),
                        ));
                    };
                    failures[seat].add(FailureKind::Illegal);
                    log.push_value(json!({"type": "illegal", "game": game_index, "seat": seat, "message": e.message}));
                    match substitute(game, seat, FailureKind::Illegal, policy).await? {
                        Some(action)
                            if Some(&action)
                                != actions.iter().find(|(s, _)| *s == seat).map(|(_, a)| a) =>
                        {
                            actions
                                .iter_mut()
                                .filter(|(s, _)| *s == seat)
                                .for_each(|(_, a)| *a = action.clone());
                        }
                        _ => {
                            return forfeit(
                                seat,
                                FailureKind::Illegal,
                                seats,
                                failures,
                                steps,
                                game_index,
                                log,
                            )
                        }
                    }
                }
                Err(e) => return Err(e),
            }
        };
        log.push(&EventLine { event: &event, game: game_index, kind: "event" });
        let observed = join_all(agents.iter().map(|a| a.observe(event.clone()))).await;
        for (seat, result) in observed.into_iter().enumerate() {
            if let Err(e) = result {
                failures[seat].add(FailureKind::of(&e));
                log.push_value(json!({"type": "observe_failed", "game": game_index, "seat": seat, "message": e.message}));
            }
        }
    }
    let outcome = game.outcome().await?.ok_or_else(|| {
        ErrorInfo::new(ErrorCode::Internal, "the game has no decisions left but no outcome")
    })?;
    if outcome.scores.len() != seats {
        return Err(ErrorInfo::new(
            ErrorCode::Internal,
            format!("the game scored {} seats of {seats}", outcome.scores.len()),
        ));
    }
    log.push_value(json!({"type": "outcome", "game": game_index, "scores": outcome.scores, "summary": outcome.summary, "failures": failures}));
    Ok(GameRecord {
        scores: outcome.scores,
        summary: outcome.summary,
        failures,
        forfeit: None,
        steps,
    })
}

// Transcript lines written for every step, their fields in the order a `Value` map sorts them
// (see `log`): the same text as a map would give, without building one.

#[derive(Serialize)]
struct DecisionLine<'a> {
    game: u32,
    legal: &'a [Value],
    observation: &'a Value,
    seat: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct ActionLine<'a> {
    action: Option<&'a Value>,
    failure: Option<Failure<'a>>,
    game: u32,
    ms: u64,
    seat: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct Failure<'a> {
    kind: FailureKind,
    message: &'a str,
}

#[derive(Serialize)]
struct EventLine<'a> {
    event: &'a Value,
    game: u32,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// Tells every seat's agent the outcome. A bot that fails to take it in has already played its
/// game: the failure is logged for the operator and changes neither the record nor the match.
async fn tell_game_over(agents: &[Arc<dyn AgentHandle>], outcome: &GameOutcome, game_index: u32) {
    let told = join_all(
        agents
            .iter()
            .enumerate()
            .map(|(seat, a)| a.game_over(GameOver { seat, outcome: outcome.clone() })),
    )
    .await;
    for (seat, result) in told.into_iter().enumerate() {
        if let Err(e) = result {
            tracing::warn!(game = game_index, seat, code = ?e.code, "game_over failed: {}", e.message);
        }
    }
}

/// Asks one agent under the deadline; returns the answer and the milliseconds it took.
async fn ask(
    agent: &dyn AgentHandle,
    decision: &Decision,
    policy: &Policy,
) -> (Result<Value, ErrorInfo>, u64) {
    let request = ActRequest {
        observation: decision.observation.clone(),
        legal: decision.legal.clone(),
        explain: false,
    };
    let start = Instant::now();
    let answer = match policy.deadline() {
        Some(deadline) => match tokio::time::timeout(deadline, agent.act(request)).await {
            Ok(r) => r,
            Err(_) => Err(ErrorInfo::new(
                ErrorCode::Timeout,
                format!("no answer within {} ms", deadline.as_millis()),
            )),
        },
        None => agent.act(request).await,
    };
    (answer.map(|r| r.action), start.elapsed().as_millis() as u64)
}

/// The action the policy plays instead of a failed one, or None for a forfeit.
async fn substitute(
    game: &dyn RefereedGame,
    seat: usize,
    kind: FailureKind,
    policy: &Policy,
) -> Result<Option<Value>, ErrorInfo> {
    match policy.response(kind) {
        OnFailure::Forfeit => Ok(None),
        OnFailure::Default => game.default_action(seat).await,
    }
}

/// Seats whose action is not among their listed legal actions. A game that lists actions by
/// range (bet amounts) can only be blamed through this when one seat acted.
fn culprits(decisions: &[Decision], actions: &[(usize, Value)]) -> Vec<usize> {
    if let [only] = actions {
        return vec![only.0];
    }
    actions
        .iter()
        .filter(|(seat, action)| {
            decisions.iter().find(|d| d.seat == *seat).is_some_and(|d| !d.legal.contains(action))
        })
        .map(|(seat, _)| *seat)
        .collect()
}

fn forfeit(
    seat: usize,
    kind: FailureKind,
    seats: usize,
    failures: Vec<FailureCounts>,
    steps: usize,
    game_index: u32,
    log: &mut Log,
) -> Result<GameRecord, ErrorInfo> {
    let scores: Vec<f64> = (0..seats).map(|s| if s == seat { 0.0 } else { 1.0 }).collect();
    let summary = json!({"forfeit": {"seat": seat, "kind": kind}});
    log.push_value(json!({"type": "outcome", "game": game_index, "scores": scores, "summary": summary, "failures": failures}));
    Ok(GameRecord { scores, summary, failures, forfeit: Some((seat, kind)), steps })
}
