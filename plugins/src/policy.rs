//! A bot's policy: every action it could play in a position, with the probability it plays it.
//!
//! A bot says how likely its actions are by implementing [`Agent::policy`](crate::Agent::policy)
//! (or [`TypedAgent::policy`](crate::typed::TypedAgent::policy)); the default says it does not,
//! with the error code `no_policy`, never a made-up distribution. The kit asks for the policy
//! before the decision, from the same state, and refuses to answer with one that is not a
//! distribution or that does not hold the action the bot then played ([`attach`]), so a policy
//! on the wire is always the bot's real behaviour in that state. [`chi_square`] (feature
//! `policy-test`) is the sampling check every bot crate runs on its bots.

use serde_json::Value;
use yomi_protocol::{ActReply, ErrorCode, ErrorInfo, PolicyEntry};

/// How far a policy's probabilities may sum from 1 (rounding of softmax weights).
const SUM_TOLERANCE: f64 = 1e-9;

/// What a bot that does not say how likely its actions are answers a request for its policy.
pub fn not_given() -> ErrorInfo {
    ErrorInfo::new(
        ErrorCode::NoPolicy,
        "this bot does not say how likely its actions are; ask without `policy`",
    )
}

/// The policy of a bot that plays `action` for sure.
pub fn pure(action: Value) -> Vec<PolicyEntry> {
    vec![PolicyEntry { action, p: 1.0 }]
}

/// The policy that plays each of `actions` with probability proportional to its weight. Actions
/// of weight 0 are left out; equal actions are merged into one entry.
pub fn weighted(actions: impl IntoIterator<Item = (Value, f64)>) -> Vec<PolicyEntry> {
    let mut entries: Vec<PolicyEntry> = Vec::new();
    for (action, w) in actions.into_iter().filter(|(_, w)| *w > 0.0) {
        match entries.iter_mut().find(|e| e.action == action) {
            Some(entry) => entry.p += w,
            None => entries.push(PolicyEntry { action, p: w }),
        }
    }
    let total: f64 = entries.iter().map(|e| e.p).sum();
    entries.iter_mut().for_each(|e| e.p /= total);
    entries
}

/// Puts `policy` beside `reply`, after checking that it is a distribution over distinct actions
/// and that it holds the action played; a bot that breaks either gets `bot_error` naming which.
pub fn attach(policy: Vec<PolicyEntry>, mut reply: ActReply) -> Result<ActReply, ErrorInfo> {
    let wrong = |what: String| {
        ErrorInfo::new(
            ErrorCode::BotError,
            format!("the bot's policy is not its behaviour: {what}"),
        )
    };
    if let Some(e) = policy.iter().find(|e| !(e.p > 0.0 && e.p <= 1.0 + SUM_TOLERANCE)) {
        return Err(wrong(format!("{} has probability {}", e.action, e.p)));
    }
    let total: f64 = policy.iter().map(|e| e.p).sum();
    if (total - 1.0).abs() > SUM_TOLERANCE {
        return Err(wrong(format!("its probabilities sum to {total}")));
    }
    for (i, e) in policy.iter().enumerate() {
        if policy[..i].iter().any(|earlier| earlier.action == e.action) {
            return Err(wrong(format!("{} is listed twice", e.action)));
        }
    }
    if !policy.iter().any(|e| e.action == reply.action) {
        return Err(wrong(format!("it played {}, which its policy does not hold", reply.action)));
    }
    reply.policy = Some(policy);
    Ok(reply)
}

/// The sampling check of a policy (feature `policy-test`): `draws` actions a bot played from one
/// position and state against the policy it gave there, by Pearson's chi-square test. Returns
/// the p-value; an action the policy does not hold is an error, as is a policy too spread for
/// `draws` (an expected count under 5 in a cell: the test would be unreliable).
#[cfg(feature = "policy-test")]
pub fn chi_square(policy: &[PolicyEntry], draws: &[Value]) -> Result<f64, String> {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let mut counts = vec![0usize; policy.len()];
    for action in draws {
        match policy.iter().position(|e| e.action == *action) {
            Some(i) => counts[i] += 1,
            None => return Err(format!("played {action}, which the policy does not hold")),
        }
    }
    if policy.len() < 2 {
        return Ok(1.0);
    }
    let n = draws.len() as f64;
    if let Some(e) = policy.iter().find(|e| e.p * n < 5.0) {
        return Err(format!("{} expects {:.1} of {n} draws; draw more", e.action, e.p * n));
    }
    let statistic: f64 =
        policy.iter().zip(&counts).map(|(e, &c)| (c as f64 - e.p * n).powi(2) / (e.p * n)).sum();
    let df = (policy.len() - 1) as f64;
    let distribution = ChiSquared::new(df).map_err(|e| e.to_string())?;
    Ok(1.0 - distribution.cdf(statistic))
}

/// The sampling check of one position (feature `policy-test`): the policy `fresh(0)` gives for
/// `request` through the kit's own dispatch (checked by [`attach`]), and the p-value of `draws`
/// decisions from fresh agents `fresh(1)`, `fresh(2)` ... against it ([`chi_square`]). `fresh`
/// brings each agent to the same state (a learning bot replays what it saw before), so the draws
/// differ by their seed alone.
#[cfg(feature = "policy-test")]
pub fn sampling_check(
    fresh: impl Fn(u64) -> Box<dyn crate::Agent>,
    request: &yomi_protocol::ActRequest,
    draws: u64,
) -> Result<(Vec<PolicyEntry>, f64), String> {
    use crate::call::{Answer, Call};
    use crate::dispatch::Handle;
    let asked = yomi_protocol::ActRequest { policy: true, ..request.clone() };
    let policy = match Handle::Agent(fresh(0)).dispatch(Call::Act(asked)) {
        Ok(Answer::Decision(ActReply { policy: Some(policy), .. })) => policy,
        other => return Err(format!("no policy: {other:?}")),
    };
    let plain = yomi_protocol::ActRequest { policy: false, ..request.clone() };
    let played = (1..=draws)
        .map(|seed| fresh(seed).act(&plain).map(|r| r.action).map_err(|e| e.to_string()))
        .collect::<Result<Vec<Value>, String>>()?;
    let p = chi_square(&policy, &played)?;
    Ok((policy, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn weights_become_probabilities_without_zero_or_repeated_entries() {
        let policy =
            weighted([(json!("a"), 1.0), (json!("b"), 0.0), (json!("a"), 1.0), (json!("c"), 2.0)]);
        assert_eq!(
            policy,
            vec![
                PolicyEntry { action: json!("a"), p: 0.5 },
                PolicyEntry { action: json!("c"), p: 0.5 }
            ]
        );
    }

    #[test]
    fn a_policy_that_is_not_the_bots_behaviour_is_refused_by_name() {
        let reply = || ActReply::new(json!("a"));
        let ok = attach(pure(json!("a")), reply()).unwrap();
        assert_eq!(ok.policy, Some(pure(json!("a"))));
        let message = |policy: Vec<PolicyEntry>| attach(policy, reply()).unwrap_err().message;
        assert!(message(pure(json!("b"))).contains("played \"a\", which its policy does not hold"));
        let half = |a: &str| PolicyEntry { action: json!(a), p: 0.5 };
        assert!(message(vec![half("a")]).contains("sum to 0.5"));
        assert!(message(vec![half("a"), half("a")]).contains("listed twice"));
        let zero = PolicyEntry { action: json!("b"), p: 0.0 };
        assert!(message(vec![PolicyEntry { action: json!("a"), p: 1.0 }, zero])
            .contains("probability 0"));
        assert_eq!(attach(vec![], reply()).unwrap_err().code, ErrorCode::BotError);
    }

    #[cfg(feature = "policy-test")]
    #[test]
    fn the_chi_square_check_passes_a_fair_sample_and_fails_a_biased_one() {
        let policy = weighted([(json!("a"), 1.0), (json!("b"), 3.0)]);
        let sample = |a: usize, b: usize| -> Vec<Value> {
            std::iter::repeat_n(json!("a"), a).chain(std::iter::repeat_n(json!("b"), b)).collect()
        };
        assert!(chi_square(&policy, &sample(250, 750)).unwrap() > 0.9);
        assert!(chi_square(&policy, &sample(500, 500)).unwrap() < 1e-6);
        assert!(chi_square(&policy, &[json!("c")]).unwrap_err().contains("does not hold"));
        assert!(chi_square(&policy, &sample(1, 2)).unwrap_err().contains("draw more"));
    }
}
