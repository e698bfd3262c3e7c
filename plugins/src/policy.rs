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

/// What a policy may cost beyond its decision when the host sets no allowance
/// (`AgentContext::policy_ms`), in milliseconds (`yomi serve --max-policy-ms`'s default).
pub const DEFAULT_ALLOWANCE_MS: u64 = 2_000;

/// The policy that plays each of `actions` with probability proportional to its weight. Actions
/// of weight 0 are left out; equal actions are merged into one entry, found by their JSON text,
/// so a policy of many actions (a bet range's every amount) costs what it lists.
pub fn weighted(actions: impl IntoIterator<Item = (Value, f64)>) -> Vec<PolicyEntry> {
    let mut entries: Vec<PolicyEntry> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (action, w) in actions.into_iter().filter(|(_, w)| *w > 0.0) {
        match at.entry(action.to_string()) {
            std::collections::hash_map::Entry::Occupied(i) => entries[*i.get()].p += w,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(entries.len());
                entries.push(PolicyEntry { action, p: w });
            }
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
    let mut seen = std::collections::HashSet::new();
    if let Some(e) = policy.iter().find(|e| !seen.insert(e.action.to_string())) {
        return Err(wrong(format!("{} is listed twice", e.action)));
    }
    if !policy.iter().any(|e| e.action == reply.action) {
        return Err(wrong(format!("it played {}, which its policy does not hold", reply.action)));
    }
    reply.policy = Some(policy);
    Ok(reply)
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
}
