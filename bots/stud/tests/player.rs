//! The fuzzy player and the model opponents through the plugin: options, explain, learning,
//! bad observations, seeded snapshots.

use serde_json::{json, Value};
use yomi_plugin::protocol::options::defaults;
use yomi_plugin::referee::play;
use yomi_plugin::{ActRequest, Agent, AgentContext, ErrorCode, Options, Plugin};
use yomi_stud::{game_options, player_options, StudPlugin, MODELS};

fn with(mut o: Options, changes: Value) -> Options {
    for (k, v) in changes.as_object().unwrap() {
        o.insert(k.clone(), v.clone());
    }
    o
}

fn bot(name: &str, changes: Value, seed: u64) -> Box<dyn Agent> {
    let model = MODELS.iter().find(|m| m.0 == name).map(|m| (m.2, m.3));
    let o = with(defaults(&player_options(model)), changes);
    StudPlugin.new_agent(name, &o, &AgentContext { seed, ..AgentContext::default() }).unwrap()
}

fn session(changes: Value, seed: u64) -> Box<dyn yomi_plugin::Game> {
    StudPlugin.new_game("stud", &with(defaults(&game_options()), changes), seed).unwrap()
}

#[test]
fn out_of_range_options_are_clear_errors() {
    for (k, v) in [
        ("tendency_init", json!(150.0)),
        ("noise_variance", json!(-1.0)),
        ("potential_margin", json!(-0.5)),
        ("slowplay_weakest", json!(2.0)),
    ] {
        let o = with(defaults(&player_options(None)), json!({ k: v }));
        let e = StudPlugin.new_agent("fuzzy", &o, &AgentContext::default()).err().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidOption);
        assert!(e.message.contains(k), "{}", e.message);
    }
}

#[test]
fn inconsistent_observations_are_clear_errors() {
    let g = session(json!({}), 1);
    let d = &g.decisions()[0];
    let mut p = bot("fuzzy", json!({}), 1);
    let mut obs = d.observation.clone();
    obs["up"] = json!(["As", "Kd"]);
    let e = p.act(&ActRequest::new(obs, d.legal.clone())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    assert!(e.message.starts_with("`observation`: turn 1 needs"), "{}", e.message);
    let mut obs = d.observation.clone();
    obs["turn"] = json!(9);
    assert!(p.act(&ActRequest::new(obs, d.legal.clone())).is_err());
}

/// A bot reads a history and an event as the game's payload types: a misfit, or the answer-only
/// word `bet` where the referee reports a bet made, is refused naming its field.
#[test]
fn a_history_or_event_that_does_not_fit_is_refused_naming_the_field() {
    let mut g = session(json!({}), 1);
    g.apply(&[(0, json!({"act": "open", "amount": 3}))]).unwrap();
    let d = &g.decisions()[0];
    let mut p = bot("fuzzy", json!({}), 1);
    let mut obs = d.observation.clone();
    obs["history"][0]["act"] = json!("bet");
    let e = p.act(&ActRequest::new(obs, d.legal.clone())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    assert!(e.message.starts_with("`observation.history[0].act`: `bet`"), "{}", e.message);
    let event = g.apply(&[(1, json!({"act": "call"}))]).unwrap();
    p.observe(&event).unwrap();
    for (field, bad, says) in
        [("act", json!("fold"), "`event.act`: must be one of"), ("end", json!(3), "`event.end`:")]
    {
        let mut e = event.clone();
        e[field] = bad;
        let err = p.observe(&e).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert!(err.message.starts_with(says), "{}", err.message);
    }
}

#[test]
fn explain_shows_the_estimation_and_the_reasons() {
    let g = session(json!({}), 5);
    let d = &g.decisions()[0];
    let mut p = bot("fuzzy", json!({}), 2);
    let reply =
        p.act(&ActRequest::new(d.observation.clone(), d.legal.clone()).with_explain(true)).unwrap();
    let x = reply.explain.unwrap();
    for k in ["result", "expect", "infer", "p", "com", "fired", "superior", "bluff"] {
        assert!(x.get(k).is_some(), "explain lacks {k}: {x}");
    }
    // With every tendency at 50 the rules cancel out: result = expect.
    assert!((x["result"].as_f64().unwrap() - x["expect"].as_f64().unwrap()).abs() < 1e-12);
    assert!(!x["fired"].as_array().unwrap().is_empty());
}

#[test]
fn every_model_plays_every_reveal_strategy_and_learns() {
    for (name, ..) in MODELS {
        for reveal in ["random", "strong-first", "weak-first"] {
            let mut g = session(json!({"games": 20, "disclose": true}), 3);
            let (mut a, mut b) =
                (bot("fuzzy", json!({}), 4), bot(name, json!({ "reveal": reveal }), 5));
            let played = play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
            let net = played.outcome.summary["net"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .sum::<i64>();
            assert_eq!(net, 0, "chips are conserved");
            let t = a.call("tendencies", &json!({})).unwrap();
            let moved = t["tendencies"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["t"].as_f64().unwrap() != 50.0);
            assert!(moved, "{name}/{reveal}: learning changed no tendency");
        }
    }
}

#[test]
fn the_style_service_answers_after_enough_games() {
    let mut g = session(json!({"games": 30, "disclose": true}), 8);
    let (mut a, mut b) = (bot("fuzzy", json!({}), 1), bot("la", json!({}), 2));
    play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
    let s = a.call("style", &json!({})).unwrap();
    assert!(s["style"].is_string(), "{s}");
    assert_eq!(s["stats"]["games"], 30);
    assert_eq!(a.call("nope", &json!({})).unwrap_err().code, ErrorCode::UnknownMethod);
}

#[test]
fn seeded_fuzzy_matches_are_stable() {
    for (name, opp) in [("fuzzy-vs-ta", "ta"), ("fuzzy-vs-lp", "lp")] {
        let mut g = session(json!({"games": 3, "disclose": true}), 17);
        let (mut a, mut b) = (bot("fuzzy", json!({}), 31), bot(opp, json!({}), 32));
        let played = play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
        insta::assert_json_snapshot!(name, played);
    }
}

/// Drops in `games` seeded games of fuzzy (seat 0, first to act) against `opp` (seat 1), both
/// with `changes`: (the model's drops from turn 5, drops just after a raise in the interval).
fn drops(opp: &str, changes: Value, games: u64) -> (usize, usize) {
    let mut g = session(json!({"games": games, "disclose": true}), 21);
    let (mut a, mut b) = (bot("fuzzy", changes.clone(), 22), bot(opp, changes, 23));
    let played = play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
    let acts: Vec<(usize, &Value, u64)> = played
        .steps
        .iter()
        .flat_map(|s| {
            let turn = s.event["turn"].as_u64().or(s.event["end"]["turn"].as_u64()).unwrap_or(0);
            s.actions.iter().map(move |(seat, a)| (*seat, a, turn))
        })
        .collect();
    let (mut late, mut after_raise) = (0, 0);
    for (i, (seat, a, turn)) in acts.iter().enumerate() {
        if a["act"] != "drop" {
            continue;
        }
        late += usize::from(*seat == 1 && *turn >= 5);
        after_raise += usize::from(i > 0 && acts[i - 1].1["act"] == "raise");
    }
    (late, after_raise)
}

/// A loose model drops from turn 5 on the drop table's result by default, and never under
/// `loose_late: continue`. The drop judgement runs once per betting interval by default, so no
/// drop ever answers a raise; `drop_check: action` judges the raise too.
#[test]
fn loose_models_drop_late_on_the_table_and_a_raise_is_judged_only_per_action() {
    let (late, after_raise) = drops("la", json!({}), 150);
    assert!(late > 0);
    assert_eq!(after_raise, 0);
    let cont = json!({"loose_late": "continue", "drop_check": "action"});
    let (late, after_raise) = drops("la", cont, 150);
    assert_eq!(late, 0);
    assert!(after_raise > 0);
}

/// An observation whose `legal` is empty asks a seat to act with nothing to do: every bot of the
/// plugin refuses it with `invalid_params` naming the field (PROTOCOL.md, "Bad observations"),
/// at a bet and at a reveal, with the request's own `legal` empty or not, and plays on after it.
#[test]
fn an_empty_legal_list_is_refused_by_every_bot() {
    let g = session(json!({}), 1);
    let d = &g.decisions()[0];
    for name in ["fuzzy", "ta", "tp", "la", "lp", "random", "calling-station"] {
        let mut p = bot(name, json!({}), 1);
        for request_legal in [vec![], d.legal.clone()] {
            let mut obs = d.observation.clone();
            obs["legal"] = json!([]);
            let e = p.act(&ActRequest::new(obs, request_legal)).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParams, "{name}: {}", e.message);
            assert!(e.message.starts_with("`observation.legal`:"), "{name}: {}", e.message);
        }
        let ok = p.act(&ActRequest::new(d.observation.clone(), vec![]));
        assert!(ok.is_ok(), "{name} plays on from the observation's own legal actions");
    }
}
