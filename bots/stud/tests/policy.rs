//! The bots' policies are their behaviour: many decisions from one position, drawn from
//! fresh agents that differ by their seed alone, match the policy by chi-square.

use serde_json::{json, Value};
use yomi_plugin::policy_check::{chi_square, sampling_check};
use yomi_plugin::protocol::options::defaults;
use yomi_plugin::{ActRequest, Agent, AgentContext, Options, Plugin, PolicyEntry};
use yomi_stud::{game_options, player_options, StudPlugin, MODELS};

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

/// What seat 0 went through up to one of its decisions: its requests and every event, in order.
enum Step {
    Asked(ActRequest),
    Saw(Value),
}

/// The fuzzy player, or a model opponent (`ta`, `tp`, `la`, `lp`) with its own defaults, with
/// `options` over them.
fn player(bot: &str, options: &Value, seed: u64) -> Box<dyn Agent> {
    let model = MODELS.iter().find(|m| m.0 == bot).map(|m| (m.2, m.3));
    let mut o = defaults(&player_options(model));
    o.extend(options.as_object().unwrap().clone());
    StudPlugin.new_agent(bot, &o, &AgentContext { seed, ..AgentContext::default() }).unwrap()
}

/// Plays `bot` (seat 0) against the fuzzy player until seat 0 faces a decision whose observation is `seen` and whose
/// policy is `wanted`, from game `after` on (so the player has learned from the games before it); returns
/// what seat 0 went through before it and that request, or `None` when the session has none.
fn find(
    bot: &str,
    options: &Value,
    after: u64,
    seen: impl Fn(&Value) -> bool,
    wanted: impl Fn(&[PolicyEntry]) -> bool,
) -> Option<(Vec<Step>, ActRequest)> {
    let mut o = defaults(&game_options());
    o.insert("games".into(), json!(200));
    let mut game = StudPlugin.new_game("stud", &o, 7).unwrap();
    let mut seats = [player(bot, options, 1), player("fuzzy", options, 2)];
    let mut steps = Vec::new();
    while !game.decisions().is_empty() {
        let mut actions = Vec::new();
        for d in game.decisions() {
            let request = ActRequest::new(d.observation.clone(), d.legal.clone());
            if d.seat == 0 {
                if d.observation["game"].as_u64() >= Some(after)
                    && seen(&d.observation)
                    && wanted(&seats[0].policy(&request).unwrap())
                {
                    return Some((steps, request));
                }
                steps.push(Step::Asked(request.clone()));
            }
            actions.push((d.seat, seats[d.seat].act(&request).unwrap().action));
        }
        let event = game.apply(&actions).unwrap();
        for seat in &mut seats {
            seat.observe(&event).unwrap();
        }
        steps.push(Step::Saw(event));
    }
    None
}

/// A `bot` of seed `seed` brought to the found state: it decides every earlier request
/// (its own draws, which change no state the policy reads) and sees every event.
fn replayed(bot: &str, options: &Value, steps: &[Step], seed: u64) -> Box<dyn Agent> {
    let mut agent = player(bot, options, seed);
    for step in steps {
        match step {
            Step::Asked(request) => drop(agent.act(request).unwrap()),
            Step::Saw(event) => agent.observe(event).unwrap(),
        }
    }
    agent
}

/// Chi-square of `draws` decisions against the policy the player gives for `request`, the
/// amounts each expected fewer than 5 times pooled into one cell (and that cell into the
/// smallest other when it is still too small), so the test stays reliable.
fn pooled_check(
    bot: &str,
    options: &Value,
    steps: &[Step],
    request: &ActRequest,
    draws: u64,
) -> f64 {
    let policy = replayed(bot, options, steps, 0).policy(request).unwrap();
    let played = replayed(bot, options, steps, 0).act(request).unwrap();
    yomi_plugin::policy::attach(policy.clone(), played).unwrap();
    let n = draws as f64;
    let mut kept: Vec<PolicyEntry> = policy.iter().filter(|e| e.p * n >= 5.0).cloned().collect();
    let rest: f64 = policy.iter().filter(|e| e.p * n < 5.0).map(|e| e.p).sum();
    let pooled = json!("pooled");
    let mut into = pooled.clone();
    if rest > 0.0 {
        if rest * n >= 5.0 || kept.is_empty() {
            kept.push(PolicyEntry { action: pooled.clone(), p: rest });
        } else {
            let smallest = kept.iter_mut().min_by(|a, b| a.p.total_cmp(&b.p)).unwrap();
            smallest.p += rest;
            into = smallest.action.clone();
        }
    }
    let sampled: Vec<Value> = (1..=draws)
        .map(|seed| {
            let action = replayed(bot, options, steps, seed).act(request).unwrap().action;
            let known = policy.iter().any(|e| e.action == action);
            assert!(known, "played {action}, which the policy {policy:?} does not hold");
            if kept.iter().any(|e| e.action == action) {
                action
            } else {
                into.clone()
            }
        })
        .collect();
    chi_square(&kept, &sampled).unwrap()
}

fn is_drop(e: &PolicyEntry) -> bool {
    e.action == json!({"act": "drop"})
}

/// The fuzzy player's policy is its behaviour: the drop draw and the noisy bet early, the turn-5
/// bluff (or its drop) and a reveal, and answering a raise with the drop judged again
/// (`drop_check: action`), each after the player has learned from earlier games.
#[test]
fn fuzzy_sampling_matches_the_policy() {
    let default = json!({});
    type Seen = Box<dyn Fn(&Value) -> bool>;
    type Wanted = Box<dyn Fn(&[PolicyEntry]) -> bool>;
    let bets = |o: &Value| o["phase"] == "bet";
    let can_bet = |o: &Value| {
        let mut acts = o["legal"].as_array().into_iter().flatten().map(|a| &a["act"]);
        acts.any(|a| a == "open" || a == "raise")
    };
    let cases: Vec<(&str, Value, Seen, Wanted)> = vec![
        (
            "early: drop draw and noisy bet",
            default.clone(),
            Box::new(move |o| bets(o) && o["turn"].as_u64() <= Some(2)),
            Box::new(|p| p.iter().any(is_drop) && p.len() > 3),
        ),
        (
            "turn 5, inferior: bluff or drop",
            default.clone(),
            Box::new(move |o| bets(o) && o["turn"] == 5 && can_bet(o)),
            Box::new(|p| p.len() == 1),
        ),
        (
            "reveal at random among ties or slow play",
            default.clone(),
            Box::new(|o| o["phase"] == "reveal"),
            Box::new(|p| p.len() > 1),
        ),
        (
            "facing a raise: drop draw or call",
            json!({"drop_check": "action"}),
            Box::new(move |o| bets(o) && !can_bet(o)),
            Box::new(|p| p.len() == 2),
        ),
    ];
    for (name, options, seen, wanted) in cases {
        let Some((steps, request)) = find("fuzzy", &options, 3, seen, wanted) else {
            panic!("{name}: no such decision in 200 games")
        };
        let p = pooled_check("fuzzy", &options, &steps, &request, 2000);
        assert!(p > 1e-4, "{name}: p = {p}");
    }
}

/// Each model opponent's policy is its behaviour too: its early decision (the fuzzy drop draw
/// beside the noisy bet) and one from turn 5 on where its own drop rule applies (a loose model's
/// table draw; a tight model's bet, or the drop it always makes when inferior), after a game of
/// learning against the fuzzy player.
#[test]
fn model_opponents_sampling_matches_the_policy() {
    let default = json!({});
    for (bot, ..) in MODELS {
        let early = |o: &Value| o["phase"] == "bet" && o["turn"].as_u64() <= Some(2);
        let late = |o: &Value| o["phase"] == "bet" && o["turn"].as_u64() >= Some(5);
        let drawn = |p: &[PolicyEntry]| p.iter().any(is_drop) && p.len() > 1;
        let Some((steps, request)) = find(bot, &default, 1, early, drawn) else {
            panic!("{bot}: no early drop draw in 200 games")
        };
        let p = pooled_check(bot, &default, &steps, &request, 1000);
        assert!(p > 1e-4, "{bot}, early: p = {p}");
        let Some((steps, request)) = find(bot, &default, 1, late, |p| p.len() > 1) else {
            panic!("{bot}: no drawn decision from turn 5 in 200 games")
        };
        let p = pooled_check(bot, &default, &steps, &request, 1000);
        assert!(p > 1e-4, "{bot}, late: p = {p}");
    }
}
