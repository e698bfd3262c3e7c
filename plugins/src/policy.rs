//! A bot's policy: every action it could play in a position, with the probability it plays it.
//!
//! A bot says how likely its actions are by implementing [`Agent::policy`](crate::Agent::policy)
//! (or [`TypedAgent::policy`](crate::typed::TypedAgent::policy)); the default says it does not,
//! with the error code `no_policy`, never a made-up distribution. The kit asks for the policy
//! before the decision, from the same state, and refuses to answer with one that is not a
//! distribution or that does not hold the action the bot then played ([`attach`]), so a policy
//! on the wire is always the bot's real behaviour in that state. [`chi_square`] (feature
//! `policy-test`) is the sampling check every bot crate runs on its bots.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::OnceLock;

use foldhash::fast::RandomState;

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
/// of weight 0 are left out; equal actions are merged into the first one's entry, found by a
/// hash of their content ([`ByValue`]), so a policy of many actions (a bet range's every amount)
/// costs what it lists.
pub fn weighted(actions: impl IntoIterator<Item = (Value, f64)>) -> Vec<PolicyEntry> {
    let actions: Vec<(Value, f64)> = actions.into_iter().filter(|(_, w)| *w > 0.0).collect();
    // Each action's weight gathers at its first occurrence; later equal ones keep 0.
    let mut gathered = vec![0.0; actions.len()];
    let mut first = HashMap::with_capacity_and_hasher(actions.len(), RandomState::default());
    for (i, (action, w)) in actions.iter().enumerate() {
        gathered[*first.entry(ByValue(action)).or_insert(i)] += w;
    }
    drop(first);
    let total: f64 = gathered.iter().sum();
    actions
        .into_iter()
        .zip(gathered)
        .filter(|(_, p)| *p > 0.0)
        .map(|((action, _), p)| PolicyEntry { action, p: p / total })
        .collect()
}

/// A JSON value as a hash key: equal when the values are, hashed by content without writing
/// the value out as text (a policy may list thousands of actions, each looked up once).
struct ByValue<'a>(&'a Value);

impl PartialEq for ByValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for ByValue<'_> {}

impl Hash for ByValue<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_content(self.0, state);
    }
}

/// Feeds `value` to `h` so that equal values hash alike: numbers by the value `==` compares,
/// object entries in any order (each entry is hashed on its own and the hashes summed).
fn hash_content<H: Hasher>(value: &Value, h: &mut H) {
    match value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => (2u8, u).hash(h),
            (None, Some(i), _) => (3u8, i).hash(h),
            // -0.0 == 0.0, so both hash as 0.0.
            (None, None, f) => (4u8, (f.unwrap_or(0.0) + 0.0).to_bits()).hash(h),
        },
        Value::String(s) => (5u8, s).hash(h),
        Value::Array(items) => {
            (6u8, items.len()).hash(h);
            items.iter().for_each(|v| hash_content(v, h));
        }
        Value::Object(map) => {
            let entries = map.iter().fold(0u64, |sum, (k, v)| {
                let mut e = entry_hashes().build_hasher();
                k.hash(&mut e);
                hash_content(v, &mut e);
                sum.wrapping_add(e.finish())
            });
            (7u8, map.len(), entries).hash(h);
        }
    }
}

/// The hasher of an object's entries: one per process (every entry of every value must hash
/// alike), seeded at random so that no bot can choose actions whose hashes collide.
fn entry_hashes() -> &'static RandomState {
    static STATE: OnceLock<RandomState> = OnceLock::new();
    STATE.get_or_init(RandomState::default)
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
    let mut seen = HashSet::with_capacity_and_hasher(policy.len(), RandomState::default());
    if let Some(e) = policy.iter().find(|e| !seen.insert(ByValue(&e.action))) {
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

    /// Any JSON value of a few levels, its leaves drawn from small sets so equal ones recur.
    fn small_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..4).prop_map(|n| json!(n)),
            (-3i32..4).prop_map(|n| json!(f64::from(n) / 2.0 + 0.25)),
            "[ab]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::btree_map("[ab]", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// The content hash merges exactly what merging by JSON text (the independent method it
        /// replaced) merges, with the same weights in the same order.
        #[test]
        fn merging_by_content_is_merging_by_text(
            actions in proptest::collection::vec((small_json(), 0u8..4), 0..24)
        ) {
            let actions: Vec<(Value, f64)> =
                actions.into_iter().map(|(a, w)| (a, f64::from(w))).collect();
            let (mut by_text, mut texts): (Vec<PolicyEntry>, Vec<String>) = (vec![], vec![]);
            for (action, w) in actions.iter().filter(|(_, w)| *w > 0.0) {
                let text = action.to_string();
                match texts.iter().position(|t| *t == text) {
                    Some(i) => by_text[i].p += w,
                    None => {
                        texts.push(text);
                        by_text.push(PolicyEntry { action: action.clone(), p: *w });
                    }
                }
            }
            let total: f64 = by_text.iter().map(|e| e.p).sum();
            by_text.iter_mut().for_each(|e| e.p /= total);
            proptest::prop_assert_eq!(weighted(actions), by_text);
        }
    }

    #[test]
    fn equal_values_merge_whatever_their_spelling() {
        let policy = weighted([(json!(0.0), 1.0), (json!(-0.0), 1.0), (json!(0), 2.0)]);
        assert_eq!(policy.len(), 2, "0.0 and -0.0 are one value, the integer 0 another");
        assert_eq!(policy[0].p, 0.5);
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
