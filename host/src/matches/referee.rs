//! Plays one game between seated agents under a policy, recording every decision, action and
//! event: the host side of the OpenSpiel loop, with deadlines and failures.

use std::sync::Arc;
use std::time::Instant;

use futures_util::future::join_all;
use serde::Serialize;
use serde_json::{json, Value};
use yomi_plugin::GameOver;
use yomi_protocol::events::Explained;
use yomi_protocol::{ActReply, ActRequest, Clock, Decision, ErrorCode, ErrorInfo, GameOutcome};

use super::clock::SeatClock;
use super::game::RefereedGame;
use super::log::Log;
use super::policy::{FailureCounts, FailureKind, OnFailure, Policy};
use crate::agents::AgentHandle;
use crate::agents::ExplainMode;

#[cfg(test)]
#[path = "referee_tests.rs"]
mod tests;

/// A game longer than this many steps is a broken referee, not a long game.
const MAX_STEPS: usize = 1_000_000;

/// How one game ended: a wire type, as `match.progress` events carry it.
pub use yomi_protocol::events::GameRecord;

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
    let failures = vec![FailureCounts::default(); agents.len()];
    let clocks = policy.tc.map(|tc| vec![SeatClock::new(tc); agents.len()]);
    let mut referee = Referee {
        game,
        agents,
        policy,
        game_index,
        log,
        failures,
        clocks,
        steps: 0,
        held: Vec::new(),
    };
    match referee.play_steps().await {
        Ok(()) => referee.finish().await,
        Err(Stop::Forfeit(seat, kind)) => Ok(referee.forfeit(seat, kind)),
        Err(Stop::Failed(e)) => Err(e),
    }
}

/// Why a game stopped before the end of its steps: a seat forfeited, or the game (or its plugin)
/// failed. One type for both lets every step stop the game with `?`.
enum Stop {
    Forfeit(usize, FailureKind),
    Failed(ErrorInfo),
}

impl From<ErrorInfo> for Stop {
    fn from(e: ErrorInfo) -> Stop {
        Stop::Failed(e)
    }
}

/// One game in play: what every step reads, and the failures and steps counted so far (they go
/// into the record however the game ends).
struct Referee<'a> {
    game: &'a dyn RefereedGame,
    agents: &'a [Arc<dyn AgentHandle>],
    policy: &'a Policy,
    game_index: u32,
    log: &'a mut Log,
    /// Failures per seat, for the record and the outcome line.
    failures: Vec<FailureCounts>,
    /// Each seat's game clock, when the policy has a time control.
    clocks: Option<Vec<SeatClock>>,
    /// Steps played, bounded by [`MAX_STEPS`].
    steps: usize,
    /// Explaining seats' decisions held back until the game's last step (`"explain": "game"`).
    held: Vec<Explained>,
}

impl Referee<'_> {
    /// Plays steps until the game asks for no more decisions.
    async fn play_steps(&mut self) -> Result<(), Stop> {
        let mut decisions = self.game.decisions().await?;
        while !decisions.is_empty() {
            self.count_step(&decisions)?;
            let (mut actions, explained) = self.collect_actions(&decisions).await?;
            let event = self.apply(&decisions, &mut actions).await?;
            self.log.push(&EventLine { event: &event, game: self.game_index, kind: "event" });
            // The next decisions are asked before the seats observe: the last step's event
            // carries the decisions held back for the end of the game.
            decisions = self.game.decisions().await?;
            let shown = self.shown_now(explained, decisions.is_empty());
            self.observe(event, &shown).await;
        }
        Ok(())
    }

    /// Of this step's explained decisions, those shown with its event; the rest are held for
    /// the game's last step, which shows them all.
    fn shown_now(&mut self, explained: Vec<Explained>, last: bool) -> Vec<Explained> {
        let (mut now, held): (Vec<_>, Vec<_>) = explained
            .into_iter()
            .partition(|e| self.agents[e.seat].explains() == Some(ExplainMode::Step));
        self.held.extend(held);
        if last {
            now.append(&mut self.held);
            now.sort_by_key(|e| (e.step, e.seat));
        }
        now
    }

    /// Counts one more step. A game that runs past [`MAX_STEPS`] or asks a seat that is not at
    /// the table is a broken game, not a failing bot.
    fn count_step(&mut self, decisions: &[Decision]) -> Result<(), ErrorInfo> {
        let seats = self.agents.len();
        self.steps += 1;
        if self.steps > MAX_STEPS {
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
        Ok(())
    }

    /// Asks every deciding seat at once, logs the decisions and the answers, and puts the
    /// policy's substitute in place of each failed answer.
    /// Also returns the answers of the seats that explain, to be shown once the step resolves.
    async fn collect_actions(
        &mut self,
        decisions: &[Decision],
    ) -> Result<(Vec<(usize, Value)>, Vec<Explained>), Stop> {
        let (agents, policy, game_index) = (self.agents, self.policy, self.game_index);
        let clocks: Vec<Option<Clock>> =
            decisions.iter().map(|d| self.clocks.as_ref().map(|c| c[d.seat].shown())).collect();
        let answers = join_all(
            decisions
                .iter()
                .zip(&clocks)
                .map(|(d, clock)| ask(agents[d.seat].as_ref(), d, policy, *clock)),
        )
        .await;
        for (d, clock) in decisions.iter().zip(&clocks) {
            let (observation, legal) = (&d.observation, &d.legal);
            self.log.push(&DecisionLine {
                clock: clock.as_ref(),
                game: game_index,
                legal,
                observation,
                seat: d.seat,
                kind: "decision",
            });
        }
        let mut actions = Vec::with_capacity(decisions.len());
        let mut explained = Vec::new();
        for (d, (answer, ms)) in decisions.iter().zip(answers) {
            let out_of_time = match &answer {
                Ok(reply) => !self.charge(d.seat, ms, reply.think_ms),
                Err(e) if e.code == ErrorCode::Timeout => !self.charge(d.seat, ms, None),
                Err(_) => false,
            };
            let answer = match answer {
                _ if out_of_time => {
                    Err(ErrorInfo::new(ErrorCode::Timeout, "the game clock ran out"))
                }
                answer => answer,
            };
            let mut explain = None;
            let (action, failure) = match answer {
                Ok(reply) => {
                    let action = reply.action.clone();
                    explain = reply.explain.clone();
                    if agents[d.seat].explains().is_some() {
                        explained.push(Explained { seat: d.seat, step: self.steps, reply });
                    }
                    (Some(action), None)
                }
                Err(e) if out_of_time => (None, Some((FailureKind::Time, e.message))),
                Err(e) => (None, Some((FailureKind::of(&e), e.message))),
            };
            let failed = failure.as_ref().map(|(kind, message)| Failure { kind: *kind, message });
            self.log.push(&ActionLine {
                action: action.as_ref(),
                explain: explain.as_ref(),
                failure: failed,
                game: game_index,
                ms,
                seat: d.seat,
                kind: "action",
            });
            match (action, failure) {
                (Some(action), _) => actions.push((d.seat, action)),
                (None, Some((kind, _))) => {
                    self.failures[d.seat].add(kind);
                    if kind == FailureKind::Time {
                        return Err(Stop::Forfeit(d.seat, kind));
                    }
                    actions.push((d.seat, self.substitute(d.seat, kind).await?));
                }
                (None, None) => unreachable!("an answer is an action or a failure"),
            }
        }
        Ok((actions, explained))
    }

    /// Charges a seat's move to its clock (its `think_ms` when the policy counts it and it is
    /// longer); false when the seat ran out of time. Always true without a clock.
    fn charge(&mut self, seat: usize, ms: u64, think_ms: Option<u64>) -> bool {
        let counted = match think_ms {
            Some(think) if self.policy.tc_counts_think => ms.max(think),
            _ => ms,
        };
        self.clocks.as_mut().is_none_or(|clocks| clocks[seat].charge(counted))
    }

    /// Applies the joint action and returns the game's event. While the game rejects it as
    /// illegal, the culprit's action is charged and replaced by the policy's substitute; a
    /// substitute the game has just rejected forfeits instead of looping.
    async fn apply(
        &mut self,
        decisions: &[Decision],
        actions: &mut [(usize, Value)],
    ) -> Result<Value, Stop> {
        loop {
            let e = match self.game.apply(actions.to_vec()).await {
                Ok(event) => return Ok(event),
                Err(e) if e.code == ErrorCode::IllegalAction => e,
                Err(e) => return Err(e.into()),
            };
            let Some(&seat) = culprits(decisions, actions).first() else {
                return Err(Stop::Failed(ErrorInfo::new(
                    ErrorCode::Internal,
                    format!("the game rejected a joint action without a culprit: {}", e.message),
                )));
            };
            self.failures[seat].add(FailureKind::Illegal);
            self.log.push_value(json!({"type": "illegal", "game": self.game_index, "seat": seat, "message": e.message}));
            let action = self.substitute(seat, FailureKind::Illegal).await?;
            if Some(&action) == actions.iter().find(|(s, _)| *s == seat).map(|(_, a)| a) {
                return Err(Stop::Forfeit(seat, FailureKind::Illegal));
            }
            actions.iter_mut().filter(|(s, _)| *s == seat).for_each(|(_, a)| *a = action.clone());
        }
    }

    /// Shows every seat the event (client seats with the decisions that may be shown now). A seat
    /// that fails to take it in is charged with the failure and plays on.
    async fn observe(&mut self, event: Value, explained: &[Explained]) {
        let observed =
            join_all(self.agents.iter().map(|a| a.observe_step(event.clone(), explained))).await;
        for (seat, result) in observed.into_iter().enumerate() {
            if let Err(e) = result {
                self.failures[seat].add(FailureKind::of(&e));
                self.log.push_value(json!({"type": "observe_failed", "game": self.game_index, "seat": seat, "message": e.message}));
            }
        }
    }

    /// The action the policy plays instead of a failed one, or [`Stop::Forfeit`] when it plays
    /// none (the policy forfeits, or the game has no default action).
    async fn substitute(&self, seat: usize, kind: FailureKind) -> Result<Value, Stop> {
        let action = match self.policy.response(kind) {
            OnFailure::Forfeit => None,
            OnFailure::Default => self.game.default_action(seat).await?,
        };
        action.ok_or(Stop::Forfeit(seat, kind))
    }

    /// The record of a game played to its end, with the game's own outcome.
    async fn finish(self) -> Result<GameRecord, ErrorInfo> {
        let seats = self.agents.len();
        let outcome = self.game.outcome().await?.ok_or_else(|| {
            ErrorInfo::new(ErrorCode::Internal, "the game has no decisions left but no outcome")
        })?;
        if outcome.scores.len() != seats {
            return Err(ErrorInfo::new(
                ErrorCode::Internal,
                format!("the game scored {} seats of {seats}", outcome.scores.len()),
            ));
        }
        let failures = self.failures;
        self.log.push_value(json!({"type": "outcome", "game": self.game_index, "scores": outcome.scores, "summary": outcome.summary, "failures": failures}));
        Ok(GameRecord {
            scores: outcome.scores,
            summary: outcome.summary,
            failures,
            forfeit: None,
            steps: self.steps,
        })
    }

    /// The record of a game `seat` forfeited: it scores 0, every other seat 1.
    fn forfeit(self, seat: usize, kind: FailureKind) -> GameRecord {
        let seats = self.agents.len();
        let scores: Vec<f64> = (0..seats).map(|s| if s == seat { 0.0 } else { 1.0 }).collect();
        let summary = json!({"forfeit": {"seat": seat, "kind": kind}});
        let failures = self.failures;
        self.log.push_value(json!({"type": "outcome", "game": self.game_index, "scores": scores, "summary": summary, "failures": failures}));
        GameRecord { scores, summary, failures, forfeit: Some((seat, kind)), steps: self.steps }
    }
}

// Transcript lines written for every step, their fields in the order a `Value` map sorts them
// (see `log`): the same text as a map would give, without building one.

#[derive(Serialize)]
struct DecisionLine<'a> {
    /// The seat's clock as it was shown the decision; only when the match has a time control.
    #[serde(skip_serializing_if = "Option::is_none")]
    clock: Option<&'a Clock>,
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
    /// The bot's reasoning, when its seat was asked for it: the replay viewer shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<&'a Value>,
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

/// Asks one agent, showing it its clock, under the deadline or its remaining clock time when that
/// is shorter; returns the answer and the milliseconds it took.
async fn ask(
    agent: &dyn AgentHandle,
    decision: &Decision,
    policy: &Policy,
    clock: Option<Clock>,
) -> (Result<ActReply, ErrorInfo>, u64) {
    let request =
        ActRequest::new(decision.observation.clone(), decision.legal.clone()).with_clock(clock);
    let start = Instant::now();
    let clock = clock.map(|c| std::time::Duration::from_millis(c.remaining_ms + 1));
    let deadline = match (policy.deadline(), clock) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let answer = match deadline {
        Some(deadline) => match tokio::time::timeout(deadline, agent.act(request)).await {
            Ok(r) => r,
            Err(_) => Err(ErrorInfo::new(
                ErrorCode::Timeout,
                format!("no answer within {} ms", deadline.as_millis()),
            )),
        },
        None => agent.act(request).await,
    };
    (answer, start.elapsed().as_millis() as u64)
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
