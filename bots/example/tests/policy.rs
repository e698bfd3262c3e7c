//! The rps bot's policy is its behaviour: from one position, thousands of throws by agents that
//! differ only in their seed match the policy it states there (Pearson's chi-square).

use serde_json::{json, Value};
use yomi_example::ExamplePlugin;
use yomi_plugin::policy_check::{chi_square, sampling_check};
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::{ActRequest, Agent, AgentContext, Options, Plugin};

fn agent(preset: Option<&str>, overrides: Value, seed: u64) -> Box<dyn Agent> {
    let bot = ExamplePlugin.manifest().bots.remove(0);
    let overrides: Options = serde_json::from_value(overrides).unwrap();
    let options = resolve(&bot.options, &bot.presets, preset, &overrides).unwrap();
    ExamplePlugin.new_agent("rps", &options, &AgentContext { seed, ..Default::default() }).unwrap()
}

fn throw(observation: Value) -> ActRequest {
    ActRequest::new(observation, vec![json!("rock"), json!("paper"), json!("scissors")])
}

/// Every preset and a mixed personality, before the first throw and after one.
#[test]
fn sampled_throws_match_the_stated_policy() {
    let personalities = [
        (Some("uniform"), json!({})),
        (Some("rock-lover"), json!({})),
        (Some("reader"), json!({})),
        (None, json!({"bias": 0.3, "reading": 2, "favourite": "paper"})),
    ];
    for (preset, overrides) in personalities {
        for observation in [json!({}), json!({"opponent_last": "scissors"})] {
            let fresh = |seed| agent(preset, overrides.clone(), seed);
            let (policy, p) = sampling_check(fresh, &throw(observation.clone()), 3000).unwrap();
            let total: f64 = policy.iter().map(|e| e.p).sum();
            assert!((total - 1.0).abs() < 1e-12);
            assert!(p > 1e-3, "{preset:?} {overrides} {observation}: p = {p}, policy {policy:?}");
        }
    }
}

/// The check has power: throws of the rock lover tested against the uniform player's policy fail.
#[test]
fn throws_against_another_bots_policy_fail_the_check() {
    let request = throw(json!({}));
    let uniform = agent(Some("uniform"), json!({}), 0).policy(&request).unwrap();
    let played: Vec<Value> = (1..=600)
        .map(|seed| agent(Some("rock-lover"), json!({}), seed).act(&request).unwrap().action)
        .collect();
    assert!(chi_square(&uniform, &played).unwrap() < 1e-9);
}

/// The reader beats the last hand for sure: one entry with p = 1.
#[test]
fn a_pure_choice_is_one_entry() {
    let reader = agent(Some("reader"), json!({}), 0);
    let policy = reader.policy(&throw(json!({"opponent_last": "rock"}))).unwrap();
    assert_eq!(serde_json::to_value(policy).unwrap(), json!([{"action": "paper", "p": 1.0}]));
}
