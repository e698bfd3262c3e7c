//! Every battle bot's policy is its behaviour: from the positions of a seeded game, the actions
//! of many agents that differ only in their seed match the policy the bot states there
//! (Pearson's chi-square), turns and replacements, δ-Nash's noise models and biases, Monte
//! Carlo's playouts and the exploiter's best response to a predicted opponent included.

use serde_json::{json, Value};
use yomi_battle::BattlePlugin;
use yomi_plugin::policy_check::{chi_square, sampling_check};
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::{ActRequest, Agent, AgentContext, Decision, Options, Plugin};

fn agent(bot: &str, overrides: &Value, seed: u64) -> Box<dyn Agent> {
    let m = BattlePlugin.manifest();
    let info = m.bots.iter().find(|b| b.name == bot).unwrap();
    let overrides: Options = serde_json::from_value(overrides.clone()).unwrap();
    let options = resolve(&info.options, &info.presets, None, &overrides).unwrap();
    BattlePlugin
        .new_agent(bot, &options, &AgentContext { seed, ..AgentContext::default() })
        .unwrap()
}

/// What seat 0's agent met in a game, in order: its decisions and the events after each step.
enum Step {
    Decide(Decision),
    Observe(Value),
}

/// Seat 0's history in a game of `bot` (seat 0) against δ-Nash (seat 1), seed 9.
fn history(bot: &str, overrides: &Value) -> Vec<Step> {
    let m = BattlePlugin.manifest();
    let game_options: Options = serde_json::from_value(json!({"deal": "fixed"})).unwrap();
    let game_options = resolve(&m.games[0].options, &[], None, &game_options).unwrap();
    let mut game = BattlePlugin.new_game("battle", &game_options, 9).unwrap();
    let mut agents = [agent(bot, overrides, 100), agent("delta-nash", &json!({"delta": 0.2}), 101)];
    let mut steps = Vec::new();
    loop {
        let decisions = game.decisions();
        if decisions.is_empty() {
            break;
        }
        let mut actions = Vec::new();
        for d in decisions {
            if d.seat == 0 {
                steps.push(Step::Decide(d.clone()));
            }
            let reply = agents[d.seat].act(&request(&d)).unwrap();
            actions.push((d.seat, reply.action));
        }
        let event = game.apply(&actions).unwrap();
        agents.iter_mut().for_each(|a| a.observe(&event).unwrap());
        steps.push(Step::Observe(event));
    }
    steps
}

fn request(d: &Decision) -> ActRequest {
    ActRequest::new(d.observation.clone(), d.legal.clone())
}

/// What a game's check met: positions with more than one action, and those of them whose
/// policy is exactly even (δ-Nash's decided positions, where every action is exchangeable).
struct Checked {
    mixed: usize,
    even: usize,
}

/// Checks `bot` at every decision of seat 0 in a game: `draws` fresh agents that met the same
/// history before it.
fn check_game(bot: &str, overrides: Value, draws: u64) -> Checked {
    let steps = history(bot, &overrides);
    let (mut mixed, mut even) = (0, 0);
    let mut decisions = 0;
    for (k, step) in steps.iter().enumerate() {
        let Step::Decide(d) = step else { continue };
        decisions += 1;
        let fresh = |seed| {
            let mut agent = agent(bot, &overrides, seed);
            for earlier in &steps[..k] {
                match earlier {
                    Step::Decide(d) => drop(agent.act(&request(d)).unwrap()),
                    Step::Observe(event) => agent.observe(event).unwrap(),
                }
            }
            agent
        };
        match sampling_check(fresh, &request(d), draws) {
            Ok((policy, p)) => {
                mixed += usize::from(policy.len() > 1);
                even += usize::from(policy.len() > 1 && policy.iter().all(|e| e.p == policy[0].p));
                assert!(p > 1e-3, "{bot} {overrides} step {k}: p = {p}, policy {policy:?}");
            }
            // A policy too spread for the draws: an action it plays rarely.
            Err(e) if e.contains("draw more") => mixed += 1,
            Err(e) => panic!("{bot} {overrides} step {k}: {e}"),
        }
    }
    assert!(decisions > 3, "{bot}: a game gives seat 0 several decisions");
    Checked { mixed, even }
}

#[test]
fn the_random_players_actions_follow_its_policy() {
    assert!(check_game("random", json!({}), 600).mixed > 3);
}

/// Nash samples the equilibrium it solves: the policy is the LP's mixed strategy.
#[test]
fn the_nash_players_actions_follow_its_equilibrium() {
    assert!(check_game("nash", json!({}), 600).mixed > 0);
}

/// δ-Nash's policy is the mean of its noisy equilibria over the noise: every noise model, and
/// a bias; in decided positions, exactly even.
#[test]
fn the_delta_nash_players_actions_follow_its_policy_under_each_noise_model() {
    let mut even = 0;
    for noise in ["uniform", "uniform-variable", "normal", "normal-variable"] {
        let c = check_game("delta-nash", json!({"noise": noise, "delta": 0.2, "n": 3}), 800);
        assert!(c.mixed > 1, "{noise}: only {} mixed positions", c.mixed);
        even += c.even;
    }
    assert!(even > 0, "no decided position was checked");
    let biased = json!({"noise": "normal-variable", "delta": 0.1, "bias": "switch", "alpha": 0.1});
    assert!(check_game("delta-nash", biased, 800).mixed > 1);
}

/// Monte Carlo's policy is over its playouts: soft-max and greedy.
#[test]
fn the_monte_carlo_players_actions_follow_its_policy() {
    assert!(check_game("mc", json!({"playouts": 4, "replacement_playouts": 10}), 400).mixed > 1);
    let greedy = json!({"policy": "greedy", "playouts": 4, "replacement_playouts": 10});
    assert!(check_game("mc", greedy, 200).mixed > 1);
}

/// The exploiter, confident from its first observation (threshold 0), best-responds to the
/// opponent it predicts; its policy is over that prediction's noise. What it learned depends on
/// its seed, so the draws are one agent's, acting again and again from what it learned by then
/// (acting learns nothing).
#[test]
fn the_exploiters_actions_follow_its_policy() {
    let overrides = json!({"threshold": 0.0, "delta": 0.1, "model_samples": 2});
    let steps = history("exploiter", &overrides);
    let mut bot = agent("exploiter", &overrides, 7);
    let mut mixed = 0;
    for step in &steps {
        match step {
            Step::Observe(event) => bot.observe(event).unwrap(),
            Step::Decide(d) => {
                let request = request(d);
                let policy = bot.policy(&request).unwrap();
                let played: Vec<Value> =
                    (0..400).map(|_| bot.act(&request).unwrap().action).collect();
                match chi_square(&policy, &played) {
                    Ok(p) => assert!(p > 1e-3, "p = {p}, policy {policy:?}"),
                    Err(e) => assert!(e.contains("draw more"), "{e}"),
                }
                mixed += usize::from(policy.len() > 1);
            }
        }
    }
    assert!(mixed > 1, "only {mixed} mixed positions");
}

/// The check has power: δ-Nash's actions at δ 0.3 tested against Nash's policy fail where the
/// two differ.
#[test]
fn actions_against_another_bots_policy_fail_the_check() {
    let steps = history("nash", &json!({}));
    let Some(Step::Decide(first)) = steps.first() else { panic!("seat 0 decides first") };
    let request = request(first);
    let nash = agent("nash", &json!({}), 0).policy(&request).unwrap();
    let noisy = json!({"noise": "uniform", "delta": 0.3, "n": 1});
    let played: Vec<Value> = (1..=800)
        .map(|seed| agent("delta-nash", &noisy, seed).act(&request).unwrap().action)
        .collect();
    let p = chi_square(&nash, &played).unwrap_or(0.0);
    assert!(p < 1e-6, "p = {p}, Nash's policy {nash:?}");
}

/// The action a δ-Nash decision plays is in the policy it answers with, however few draws the
/// server's allowance leaves the estimate: with none, the position's estimate rests on ten
/// noisy equilibria and alone would miss actions the decision's own ten draws play (a host
/// refuses a policy without the action played, `policy::attach`).
#[test]
fn the_played_action_is_in_the_policy_whatever_the_allowance() {
    use yomi_plugin::call::{Answer, Call};
    use yomi_plugin::dispatch::Handle;
    let overrides = json!({"delta": 0.5});
    let m = BattlePlugin.manifest();
    let info = m.bots.iter().find(|b| b.name == "delta-nash").unwrap();
    let options: Options = serde_json::from_value(overrides.clone()).unwrap();
    let options = resolve(&info.options, &info.presets, None, &options).unwrap();
    let mut asked = 0;
    for step in history("delta-nash", &overrides) {
        let Step::Decide(d) = step else { continue };
        for seed in 0..30 {
            let context = AgentContext { seed, policy_ms: Some(0), ..AgentContext::default() };
            let agent = BattlePlugin.new_agent("delta-nash", &options, &context).unwrap();
            let request = ActRequest { policy: true, ..request(&d) };
            match Handle::Agent(agent).dispatch(Call::Act(request)) {
                Ok(Answer::Decision(reply)) => {
                    let policy = reply.policy.expect("a policy");
                    assert!(policy.iter().any(|e| e.action == reply.action && e.p > 0.0));
                }
                other => panic!("seed {seed}: {other:?}"),
            }
            asked += 1;
        }
    }
    assert!(asked > 100, "{asked} calls");
}
