//! The referee's failure policy against a small simultaneous game and scripted agents: which seat
//! is blamed, what is played instead, when a game is forfeited, and that every seat hears how the
//! game ended.

use std::collections::VecDeque;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::{json, Value};
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, Decision, ErrorCode, ErrorInfo, GameOutcome, Options};

use super::*;
use crate::matches::game::RefereedGame;
use crate::matches::policy::{OnFailure, Policy};

const ROUNDS: u32 = 3;

/// Two seats pick "a" or "b" at once for [`ROUNDS`] rounds; every "b" is a point and the seat
/// with more points wins. The game refuses any other pick as a whole joint action (so the
/// referee must find the culprit itself); its default action is "a".
struct Picks {
    /// Rounds played, and each seat's points.
    state: Mutex<(u32, [u32; 2])>,
}

impl Picks {
    fn new() -> Picks {
        Picks { state: Mutex::new((0, [0, 0])) }
    }
}

#[async_trait]
impl RefereedGame for Picks {
    async fn decisions(&self) -> Result<Vec<Decision>, ErrorInfo> {
        let (played, _) = *self.state.lock().unwrap();
        if played == ROUNDS {
            return Ok(Vec::new());
        }
        let decide = |seat| Decision {
            seat,
            observation: json!({"round": played + 1}),
            legal: vec![json!("a"), json!("b")],
        };
        Ok(vec![decide(0), decide(1)])
    }

    async fn apply(&self, actions: Vec<(usize, Value)>) -> Result<Value, ErrorInfo> {
        if actions.iter().any(|(_, a)| *a != json!("a") && *a != json!("b")) {
            return Err(ErrorInfo::new(ErrorCode::IllegalAction, "picks are \"a\" or \"b\""));
        }
        let mut state = self.state.lock().unwrap();
        state.0 += 1;
        for (seat, action) in &actions {
            state.1[*seat] += u32::from(*action == json!("b"));
        }
        Ok(json!({"picks": actions.iter().map(|(_, a)| a.clone()).collect::<Vec<_>>()}))
    }

    async fn outcome(&self) -> Result<Option<GameOutcome>, ErrorInfo> {
        let (played, points) = *self.state.lock().unwrap();
        let scores = match points[0].cmp(&points[1]) {
            std::cmp::Ordering::Greater => vec![1.0, 0.0],
            std::cmp::Ordering::Less => vec![0.0, 1.0],
            std::cmp::Ordering::Equal => vec![0.5, 0.5],
        };
        Ok((played == ROUNDS).then(|| GameOutcome { scores, summary: json!({"points": points}) }))
    }

    async fn default_action(&self, _seat: usize) -> Result<Option<Value>, ErrorInfo> {
        Ok(Some(json!("a")))
    }
}

/// One scripted answer.
enum Step {
    Pick(&'static str),
    Fail(ErrorCode),
    /// Never answers.
    Stall,
}

/// An agent that answers from a script and remembers what it was told at the end.
struct Script {
    steps: Mutex<VecDeque<Step>>,
    told: Mutex<Vec<GameOver>>,
}

#[async_trait]
impl AgentHandle for Script {
    async fn act(&self, _request: ActRequest) -> Result<ActReply, ErrorInfo> {
        let step = self.steps.lock().unwrap().pop_front().expect("the script has a step");
        match step {
            Step::Pick(action) => Ok(ActReply::new(json!(action))),
            Step::Fail(code) => Err(ErrorInfo::new(code, "scripted failure")),
            Step::Stall => std::future::pending().await,
        }
    }

    async fn observe(&self, _event: Value) -> Result<(), ErrorInfo> {
        Ok(())
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        self.told.lock().unwrap().push(over);
        Ok(())
    }

    async fn configure(&self, _options: Options) -> Result<(), ErrorInfo> {
        Ok(())
    }

    async fn call(&self, _method: String, _params: Value) -> Result<Value, ErrorInfo> {
        Err(ErrorInfo::new(ErrorCode::UnknownMethod, "scripted"))
    }
}

/// What one refereed game left behind.
struct Played {
    record: GameRecord,
    told: Vec<Vec<GameOver>>,
    log: Vec<Value>,
}

async fn referee(scripts: [Vec<Step>; 2], policy: Policy) -> Played {
    let scripts: Vec<Arc<Script>> = scripts
        .into_iter()
        .map(|steps| {
            Arc::new(Script { steps: Mutex::new(steps.into()), told: Mutex::new(Vec::new()) })
        })
        .collect();
    let agents: Vec<Arc<dyn AgentHandle>> =
        scripts.iter().map(|s| s.clone() as Arc<dyn AgentHandle>).collect();
    let mut log = Log::new(false);
    let record = play(&Picks::new(), &agents, &policy, 0, &mut log).await.expect("refereed");
    let told = scripts.iter().map(|s| std::mem::take(&mut *s.told.lock().unwrap())).collect();
    Played { record, told, log: log.into_values() }
}

fn policy(deadline_ms: Option<u64>, on_failure: OnFailure) -> Policy {
    Policy {
        deadline_ms,
        on_timeout: on_failure,
        on_illegal: on_failure,
        on_error: on_failure,
        ..Policy::default()
    }
}

/// Every seat was told the recorded scores once, as its own seat.
fn assert_told(played: &Played) {
    for (seat, told) in played.told.iter().enumerate() {
        assert_eq!(told.len(), 1, "seat {seat} told once: {told:?}");
        assert_eq!(told[0].seat, seat);
        assert_eq!(told[0].outcome.scores, played.record.scores);
    }
}

#[tokio::test]
async fn a_clean_game_is_scored_and_every_seat_told() {
    use Step::Pick;
    let played = referee(
        [vec![Pick("b"), Pick("b"), Pick("a")], vec![Pick("a"), Pick("b"), Pick("a")]],
        Policy::default(),
    )
    .await;
    assert_eq!(played.record.scores, vec![1.0, 0.0]);
    assert_eq!(played.record.forfeit, None);
    assert_eq!(played.record.steps, 3);
    assert!(played.record.failures.iter().all(|f| *f == FailureCounts::default()));
    assert_told(&played);
}

#[tokio::test]
async fn an_illegal_pick_is_blamed_on_its_seat_and_forfeits_the_game() {
    use Step::Pick;
    let played = referee(
        [vec![Pick("a"), Pick("a")], vec![Pick("b"), Pick("c")]],
        policy(None, OnFailure::Forfeit),
    )
    .await;
    // Seat 1 was ahead, but its second pick is not a legal one: it loses.
    assert_eq!(played.record.forfeit, Some((1, FailureKind::Illegal)));
    assert_eq!(played.record.scores, vec![1.0, 0.0]);
    assert_eq!(played.record.failures[1].illegal, 1);
    assert_eq!(played.record.failures[0], FailureCounts::default());
    assert!(played.log.iter().any(|l| l["type"] == json!("illegal") && l["seat"] == json!(1)));
    assert_told(&played);
}

#[tokio::test]
async fn with_the_default_policy_the_game_plays_the_default_instead() {
    use Step::Pick;
    let played = referee(
        [vec![Pick("a"), Pick("a"), Pick("a")], vec![Pick("b"), Pick("c"), Pick("a")]],
        policy(None, OnFailure::Default),
    )
    .await;
    // Seat 1's "c" became the default "a": one point to none, and the game went the distance.
    assert_eq!(played.record.forfeit, None);
    assert_eq!(played.record.steps, 3);
    assert_eq!(played.record.scores, vec![0.0, 1.0]);
    assert_eq!(played.record.failures[1].illegal, 1);
    let events: Vec<&Value> = played.log.iter().filter(|l| l["type"] == json!("event")).collect();
    assert_eq!(events[1]["event"]["picks"], json!(["a", "a"]));
    assert_told(&played);
}

#[tokio::test]
async fn errors_and_timeouts_are_counted_apart_and_follow_their_own_policy() {
    use Step::{Fail, Pick, Stall};
    let policy = Policy {
        deadline_ms: Some(50),
        on_timeout: OnFailure::Forfeit,
        on_illegal: OnFailure::Forfeit,
        on_error: OnFailure::Default,
        ..Policy::default()
    };
    let played =
        referee([vec![Fail(ErrorCode::Internal), Pick("b")], vec![Pick("a"), Stall]], policy).await;
    // Seat 0's error was replaced by the default action; seat 1's silence forfeited the game.
    assert_eq!(played.record.forfeit, Some((1, FailureKind::Timeout)));
    assert_eq!(played.record.scores, vec![1.0, 0.0]);
    assert_eq!(played.record.failures[0].error, 1);
    assert_eq!(played.record.failures[1].timeout, 1);
    assert_eq!(played.record.steps, 2);
    assert_told(&played);
}

#[test]
fn culprits_are_the_seats_whose_action_is_not_listed() {
    let decision = |seat| Decision { seat, observation: json!({}), legal: vec![json!("a")] };
    let decisions = [decision(0), decision(1)];
    let blamed = |actions: &[(usize, Value)]| culprits(&decisions, actions);
    assert_eq!(blamed(&[(0, json!("a")), (1, json!("x"))]), vec![1]);
    assert_eq!(blamed(&[(0, json!("x")), (1, json!("x"))]), vec![0, 1]);
    assert!(blamed(&[(0, json!("a")), (1, json!("a"))]).is_empty());
    // A lone actor is the culprit even for an action listed by range (a bet amount).
    assert_eq!(blamed(&[(1, json!(250))]), vec![1]);
}

/// A tournament writes these lines straight as text; a `Value` map would sort their keys. The two
/// must give the same transcript, so each struct lists its fields in sorted order.
#[test]
fn step_lines_write_their_fields_in_the_order_a_map_sorts_them() {
    fn same_as_a_map(line: &impl Serialize) {
        let text = serde_json::to_string(line).unwrap();
        let through_map = serde_json::to_string(&serde_json::to_value(line).unwrap()).unwrap();
        assert_eq!(text, through_map);
    }
    let (observation, legal) = (json!({"b": 1, "a": 2}), vec![json!("rock"), json!("paper")]);
    let clock = Clock { increment_ms: 100, moves_to_go: Some(7), remaining_ms: 2_500 };
    for clock in [None, Some(&clock)] {
        same_as_a_map(&DecisionLine {
            clock,
            game: 3,
            legal: &legal,
            observation: &observation,
            seat: 1,
            kind: "decision",
        });
    }
    let failure = Some(Failure { kind: FailureKind::Illegal, message: "lizard" });
    let explain = Some(&observation);
    for (action, explain, failure) in [(Some(&legal[0]), explain, None), (None, None, failure)] {
        same_as_a_map(&ActionLine {
            action,
            explain,
            failure,
            game: 3,
            ms: 12,
            seat: 0,
            kind: "action",
        });
    }
    same_as_a_map(&EventLine { event: &observation, game: 3, kind: "event" });
}
