//! Criterion benches of the players: time per decision (the full agent path: observation JSON in,
//! action JSON out, table shared) for nash, delta-nash (n = 10), mc (500 playouts) and the
//! exploiter (a turn decision plus one observed opponent turn), whole games between two
//! delta-nash players, and decisions asked with their policy.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use yomi_battle::BattlePlugin;
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::{referee, ActRequest, Agent, AgentContext, Options, Plugin};

fn agent(bot: &str, overrides: Value, seed: u64) -> Box<dyn Agent> {
    let m = BattlePlugin.manifest();
    let info = m.bots.iter().find(|b| b.name == bot).unwrap();
    let overrides: Options = serde_json::from_value(overrides).unwrap();
    let options = resolve(&info.options, &info.presets, None, &overrides).unwrap();
    BattlePlugin
        .new_agent(bot, &options, &AgentContext { seed, ..AgentContext::default() })
        .unwrap()
}

fn game_options(overrides: Value) -> Options {
    let m = BattlePlugin.manifest();
    let overrides: Options = serde_json::from_value(overrides).unwrap();
    resolve(&m.games[0].options, &[], None, &overrides).unwrap()
}

fn decisions(c: &mut Criterion) {
    let g = BattlePlugin
        .new_game("battle", &game_options(json!({"deal": "fixed", "start": "first"})), 1)
        .unwrap();
    let d = g.decisions().remove(0);
    let request = ActRequest::new(d.observation, d.legal);
    let mut group = c.benchmark_group("decision at A vs D");
    for (name, bot, options) in [
        ("nash", "nash", json!({})),
        ("delta-nash n=10", "delta-nash", json!({"n": 10})),
        ("mc 500 playouts", "mc", json!({"playouts": 20})),
        ("exploiter (not yet confident)", "exploiter", json!({})),
    ] {
        let mut a = agent(bot, options, 1);
        a.act(&request).unwrap(); // solve the shared table outside the timing
        group.bench_function(name, |b| b.iter(|| a.act(&request).unwrap()));
    }
    // The exploiter's per-turn cost: observing the opponent's action scores all 27 models.
    let mut ex = agent("exploiter", json!({}), 2);
    ex.act(&request).unwrap();
    let event = json!({"kind": "turn", "actions": [{"move": "grass"}, {"switch": "E"}], "sides": [0, 1],
        "before": {"turn": 1, "hp": [[5,5,5],[5,4,4]], "active": ["A","D"]},
        "after": {"turn": 2, "hp": [[5,5,5],[5,3,4]], "active": ["A","E"]}});
    group.bench_function("exploiter observe (27 models x 10 samples)", |b| {
        b.iter(|| ex.observe(&event).unwrap())
    });
    // Confident: threshold 0 makes it exploit from the first observation on.
    let mut confident = agent("exploiter", json!({"threshold": 0.0}), 3);
    confident.act(&request).unwrap();
    confident.observe(&event).unwrap();
    group.bench_function("exploiter (exploiting)", |b| b.iter(|| confident.act(&request).unwrap()));
    group.finish();
}

fn games(c: &mut Criterion) {
    let options = game_options(json!({}));
    let mut seed = 0u64;
    let mut group = c.benchmark_group("games");
    group.sample_size(20);
    group.bench_function("delta-nash vs delta-nash (human-like, n=10), one game", |b| {
        b.iter(|| {
            seed += 1;
            let mut g = BattlePlugin.new_game("battle", &options, seed).unwrap();
            let mut x = agent("delta-nash", json!({}), seed * 2);
            let mut y = agent("delta-nash", json!({}), seed * 2 + 1);
            referee::play(g.as_mut(), &mut [x.as_mut(), y.as_mut()]).unwrap().steps.len()
        })
    });
    group.finish();
}

/// The policy of one decision under the default allowance (2 s by the bot's reckoning of 250
/// playouts a millisecond), the figure `--max-policy-ms` is calibrated by.
fn policies(c: &mut Criterion) {
    let g = BattlePlugin
        .new_game("battle", &game_options(json!({"deal": "fixed", "start": "first"})), 1)
        .unwrap();
    let d = g.decisions().remove(0);
    let request = ActRequest::new(d.observation, d.legal);
    let mut group = c.benchmark_group("policy at A vs D");
    group.sample_size(10);
    for (name, bot, options) in [
        ("delta-nash δ=0.2 n=10 (2,001 draws)", "delta-nash", json!({"n": 10, "delta": 0.2})),
        ("mc 20 playouts (1,001 draws)", "mc", json!({"playouts": 20})),
    ] {
        let mut a = agent(bot, options, 1);
        a.act(&request).unwrap();
        group.bench_function(name, |b| b.iter(|| a.policy(&request).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, decisions, games, policies);
criterion_main!(benches);
