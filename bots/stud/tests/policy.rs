//! The baselines' policies are their behaviour: many decisions from one position, drawn from
//! fresh agents that differ by their seed alone, match the policy by chi-square.

use yomi_plugin::policy_check::sampling_check;
use yomi_plugin::protocol::options::defaults;
use yomi_plugin::{ActRequest, Agent, AgentContext, Options, Plugin};
use yomi_stud::{game_options, StudPlugin};

fn baseline(name: &str, seed: u64) -> Box<dyn Agent> {
    StudPlugin
        .new_agent(name, &Options::new(), &AgentContext { seed, ..AgentContext::default() })
        .unwrap()
}

#[test]
fn baseline_sampling_matches_the_policy() {
    let g = StudPlugin.new_game("stud", &defaults(&game_options()), 3).unwrap();
    let d = &g.decisions()[0];
    let request = ActRequest::new(d.observation.clone(), d.legal.clone());
    for name in ["random", "calling-station"] {
        let (policy, p) = sampling_check(|s| baseline(name, s), &request, 4000)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(p > 1e-4, "{name}: p = {p} for {policy:?}");
    }
}
