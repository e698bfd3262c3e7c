//! The players through the plugin's own API: options and presets, explain objects, live
//! configuration, the exploiter's model, and a seeded Nash vs δ-Nash match snapshot.

use serde_json::{json, Value};
use yomi_battle::BattlePlugin;
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::{referee, ActRequest, Agent, AgentContext, ErrorCode, Options, Plugin};

fn options(bot: &str, preset: Option<&str>, overrides: Value) -> Result<Options, String> {
    let m = BattlePlugin.manifest();
    let info = m.bots.iter().find(|b| b.name == bot).unwrap();
    let overrides: Options = serde_json::from_value(overrides).unwrap();
    resolve(&info.options, &info.presets, preset, &overrides).map_err(|e| e.to_string())
}

fn agent(bot: &str, preset: Option<&str>, overrides: Value, seed: u64) -> Box<dyn Agent> {
    BattlePlugin
        .new_agent(
            bot,
            &options(bot, preset, overrides).unwrap(),
            &AgentContext { seed, ..AgentContext::default() },
        )
        .unwrap()
}

fn game(seed: u64) -> Box<dyn yomi_plugin::Game> {
    let m = BattlePlugin.manifest();
    let opts = resolve(&m.games[0].options, &[], None, &Options::new()).unwrap();
    BattlePlugin.new_game("battle", &opts, seed).unwrap()
}

/// The first decision of a fixed game (seat 0 holds party 1, A vs D).
fn first_request(explain: bool) -> ActRequest {
    first_request_of(0, explain)
}

/// `seat`'s first decision in a fixed game (seat 0 holds party 1, seat 1 party 2; A vs D).
fn first_request_of(seat: usize, explain: bool) -> ActRequest {
    let m = BattlePlugin.manifest();
    let overrides: Options =
        serde_json::from_value(json!({"deal": "fixed", "start": "first"})).unwrap();
    let opts = resolve(&m.games[0].options, &[], None, &overrides).unwrap();
    let g = BattlePlugin.new_game("battle", &opts, 1).unwrap();
    let d = g.decisions().remove(seat);
    assert_eq!(d.seat, seat);
    ActRequest::new(d.observation, d.legal).with_explain(explain)
}

#[test]
fn bad_personalities_are_rejected_by_the_schema() {
    for (overrides, want) in [
        (json!({"delta": -0.1}), "out of range"),
        (json!({"n": 0}), "out of range"),
        (json!({"noise": "cauchy"}), "not one of"),
        (json!({"bias": "defence"}), "not one of"),
        (json!({"alpha": "big"}), "must be a number"),
        (json!({"alpha": 0.5}), "out of range"),
    ] {
        let err = options("delta-nash", None, overrides).unwrap_err();
        assert!(err.contains(want), "{err}");
    }
    assert!(
        options("delta-nash", None, json!({"alpha": -0.03})).is_ok(),
        "a negative α is an aversion"
    );
}

#[test]
fn nash_plays_the_analysed_equilibrium_and_explains_it() {
    let mut nash = agent("nash", None, json!({}), 1);
    let reply = nash.act(&first_request(true)).unwrap();
    let explain = reply.explain.unwrap();
    let analysis = nash.call("analyze", &json!({"parties": "thesis", "active": "A,D"})).unwrap();
    assert_eq!(explain["strategy"], analysis["row_strategy"]);
    assert_eq!(explain["true_equilibrium"], analysis["row_strategy"]);
    assert_eq!(explain["actions"], analysis["row_actions"]);
    assert_eq!(explain["bias"]["kind"], "none");
}

/// At A vs D party 2 has several optimal strategies (fire/switch-to-E mixes): `analyze` must name
/// the one a `nash` agent in seat 1 plays, not another optimum.
#[test]
fn analyze_names_the_equilibrium_a_nash_agent_plays_in_either_seat() {
    let mut nash = agent("nash", None, json!({}), 1);
    let analysis = nash.call("analyze", &json!({"parties": "thesis", "active": "A,D"})).unwrap();
    let explain = nash.act(&first_request_of(1, true)).unwrap().explain.unwrap();
    assert_eq!(explain["actions"], analysis["col_actions"]);
    assert_eq!(explain["strategy"], analysis["col_strategy"]);
    let explain = nash.act(&first_request_of(0, true)).unwrap().explain.unwrap();
    assert_eq!(explain["strategy"], analysis["row_strategy"]);
}

#[test]
fn delta_nash_explains_noise_and_bias_and_configure_takes_effect_next_decision() {
    let mut bot = agent("delta-nash", Some("human-like"), json!({}), 7);
    let request = first_request(true);
    let before = bot.act(&request).unwrap().explain.unwrap();
    assert_eq!(before["personality"]["noise"], "uniform-variable");
    assert_eq!(before["noisy_equilibria"].as_array().unwrap().len(), 10);
    let strategy: Vec<f64> = serde_json::from_value(before["strategy"].clone()).unwrap();
    assert!((strategy.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    // A strong attack habit: every move row is biased, and the strategy shifts to moves.
    bot.configure(
        &options("delta-nash", None, json!({"delta": 0.0, "bias": "attack", "alpha": 0.2}))
            .unwrap(),
    )
    .unwrap();
    let after = bot.act(&request).unwrap().explain.unwrap();
    assert_eq!(after["bias"]["rows"], json!([true, true, true, false, false]));
    assert_eq!(after["personality"]["delta"], 0.0);
    let attack = |e: &Value| (0..3).map(|k| e["strategy"][k].as_f64().unwrap()).sum::<f64>();
    let truth = |e: &Value| (0..3).map(|k| e["true_equilibrium"][k].as_f64().unwrap()).sum::<f64>();
    assert!(
        attack(&after) > truth(&after) + 0.1,
        "attack share {} vs Nash {}",
        attack(&after),
        truth(&after)
    );
}

#[test]
fn monte_carlo_explains_its_scores() {
    let mut bot = agent("mc", Some("greedy"), json!({"playouts": 5}), 3);
    let e = bot.act(&first_request(true)).unwrap().explain.unwrap();
    let scores: Vec<f64> = serde_json::from_value(e["scores"].clone()).unwrap();
    assert_eq!(scores.len(), 5);
    assert!(scores.iter().all(|s| *s >= 0.0 && *s <= 25.0));
    let best = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let chosen =
        e["strategy"].as_array().unwrap().iter().position(|p| p.as_f64() == Some(1.0)).unwrap();
    assert_eq!(scores[chosen], best);
}

#[test]
fn the_exploiter_learns_a_model_from_a_game() {
    let mut me = agent("exploiter", Some("nash-base"), json!({"model_samples": 3}), 11);
    assert_eq!(me.call("opponent_model", &json!({})).unwrap(), Value::Null);
    let mut opponent = agent("delta-nash", Some("switcher"), json!({}), 12);
    let mut g = game(5);
    referee::play(g.as_mut(), &mut [me.as_mut(), opponent.as_mut()]).unwrap();
    let model = me.call("opponent_model", &json!({})).unwrap();
    assert!(model["observed"].as_u64().unwrap() >= 1, "{model}");
    let posterior = model["posterior"].as_f64().unwrap();
    assert!(posterior > 0.0 && posterior <= 1.0);
    let e = me.act(&first_request(true)).unwrap().explain.unwrap();
    assert!(e["opponent_model"]["best_model"]["bias"].is_string());
    assert!(e["exploiting"].is_boolean());
}

#[test]
fn a_seeded_nash_vs_delta_nash_match() {
    let mut a = agent("nash", None, json!({}), 21);
    let mut b = agent("delta-nash", Some("human-like"), json!({}), 22);
    let mut g = game(77);
    let played = referee::play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
    insta::assert_json_snapshot!("nash_vs_delta_nash_seed_77", played);
}

#[test]
fn a_malformed_observation_is_an_error_not_a_panic() {
    let mut bot = agent("nash", None, json!({}), 1);
    let mut request = first_request(false);
    request.observation["state"]["turn"] = json!(0);
    request.observation["phase"] = json!("replace");
    assert!(bot.act(&request).unwrap_err().message.contains("turn 0 is out of range"));
    let mut request = first_request(false);
    request.observation["state"]["hp"] = json!([[9, 5, 5], [5, 4, 4]]);
    assert!(bot.act(&request).unwrap_err().message.contains("HP 9 is out of range"));
    let mut request = first_request(false);
    request.observation["rules"] = json!("chess");
    let error = bot.act(&request).unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidParams);
    assert!(error.message.starts_with("`observation`: does not fit"), "{}", error.message);
    assert!(error.message.contains("expected struct Rules"), "{}", error.message);
    let mut request = first_request(false);
    request.observation["rules"]["parties"] = json!("thesiss");
    let error = bot.act(&request).unwrap_err();
    assert!(
        error.message.starts_with("`observation.rules.parties`: unknown parties"),
        "{}",
        error.message
    );
}

/// `strength` maps a target Elo to δ through the checked-in ladder: a higher target, a smaller δ,
/// and the ends of the measured range give its ends; without `limit_strength` δ is as given.
#[test]
fn strength_sets_delta_monotonically_from_the_ladder() {
    let m = BattlePlugin.manifest();
    let info = m.bots.iter().find(|b| b.name == "delta-nash").unwrap();
    let spec = info.options.iter().find(|o| o.name == "strength").expect("a strength option");
    let yomi_plugin::protocol::OptionKind::Int { min: Some(lo), max: Some(hi) } = spec.kind else {
        panic!("strength is a bounded int: {spec:?}")
    };
    let delta_at = |overrides: Value| {
        let mut a = agent("delta-nash", None, overrides, 1);
        a.act(&first_request(true)).unwrap().explain.unwrap()["personality"]["delta"]
            .as_f64()
            .unwrap()
    };
    let deltas: Vec<f64> = (lo..=hi)
        .step_by(((hi - lo) / 8).max(1) as usize)
        .map(|elo| delta_at(json!({"limit_strength": true, "strength": elo})))
        .collect();
    assert!(deltas.windows(2).all(|w| w[1] <= w[0]), "{deltas:?}");
    assert!(deltas[0] > deltas[deltas.len() - 1], "{deltas:?}");
    assert_eq!(delta_at(json!({"limit_strength": false, "strength": lo, "delta": 0.3})), 0.3);
    let err = options("delta-nash", None, json!({"strength": hi + 1})).unwrap_err();
    assert!(err.contains("out of range"), "{err}");
}

/// Each decision suggests a think time; `think_scale` 0 turns it off and 2 doubles it, the move
/// staying the same (think times draw from a stream of their own).
#[test]
fn decisions_carry_a_think_time_that_never_changes_the_move() {
    let reply = |scale: f64| {
        let mut a = agent("delta-nash", None, json!({"think_scale": scale}), 5);
        a.act(&first_request(false)).unwrap()
    };
    let (normal, off, double) = (reply(1.0), reply(0.0), reply(2.0));
    assert_eq!(
        (normal.action.clone(), off.action.clone()),
        (double.action.clone(), normal.action.clone())
    );
    let ms = normal.think_ms.expect("a think time");
    assert!((300..10_000).contains(&ms), "{ms}");
    assert_eq!(off.think_ms, None);
    let doubled = double.think_ms.unwrap() as f64 / ms as f64;
    assert!((doubled - 2.0).abs() < 0.01, "{doubled}");
}
