//! Every Sevens bot's policy is its behaviour: from positions of a seeded game, the moves of
//! thousands of agents that differ only in their seed match the policy the bot states there
//! (Pearson's chi-square), the D-value player at several temperatures included.

use crate::common;

use serde_json::{json, Value};
use yomi_plugin::policy_check::{chi_square, sampling_check};
use yomi_plugin::{ActRequest, Agent, Decision};

/// Seat 0's decisions, in order, in a game of three `bot`s with `overrides` (seed 5).
fn decisions_of_seat_0(bot: &str, overrides: &Value) -> Vec<Decision> {
    let mut game = common::game(json!({}), 5);
    let mut agents: Vec<Box<dyn Agent>> =
        (0..3).map(|seat| common::agent(bot, None, overrides.clone(), 100 + seat)).collect();
    let mut mine = Vec::new();
    loop {
        let decisions = game.decisions();
        let Some(d) = decisions.into_iter().next() else { break };
        if d.seat == 0 {
            mine.push(d.clone());
        }
        let action = common::act(agents[d.seat].as_mut(), &d);
        let event = game.apply(&[(d.seat, action)]).unwrap();
        agents.iter_mut().for_each(|a| a.observe(&event).unwrap());
    }
    mine
}

fn request(d: &Decision) -> ActRequest {
    ActRequest::new(d.observation.clone(), d.legal.clone())
}

/// Checks `bot` at every decision of seat 0 in a game: a fresh agent that has seen the same
/// earlier decisions, `draws` times. Returns how many positions had more than one move.
fn check_game(bot: &str, overrides: Value, draws: u64) -> usize {
    let positions = decisions_of_seat_0(bot, &overrides);
    assert!(positions.len() > 5, "{bot}: a game gives seat 0 several decisions");
    let mut mixed = 0;
    for (k, d) in positions.iter().enumerate() {
        let fresh = |seed| {
            let mut agent = common::agent(bot, None, overrides.clone(), seed);
            positions[..k].iter().for_each(|earlier| drop(common::act(agent.as_mut(), earlier)));
            agent
        };
        match sampling_check(fresh, &request(d), draws) {
            Ok((policy, p)) => {
                mixed += usize::from(policy.len() > 1);
                assert!(p > 1e-3, "{bot} {overrides} decision {k}: p = {p}, policy {policy:?}");
            }
            // A policy too spread for the draws: checked with more where a test asks for it.
            Err(e) if e.contains("draw more") => mixed += 1,
            Err(e) => panic!("{bot} {overrides} decision {k}: {e}"),
        }
    }
    mixed
}

#[test]
fn the_d_value_players_moves_follow_its_softmax_policy() {
    for temperature in [0.5, 1.0, 3.0] {
        let mixed = check_game("dvalue", json!({"temperature": temperature}), 2000);
        assert!(mixed > 3, "temperature {temperature}: only {mixed} mixed positions");
    }
    assert_eq!(check_game("dvalue", json!({}), 20), 0, "temperature 0: the best move for sure");
}

#[test]
fn the_random_players_moves_follow_its_policy() {
    assert!(check_game("random", json!({}), 1500) > 3);
    assert!(check_game("random", json!({"pass_rate": 0.3}), 1500) > 3);
}

/// The students and the greedy player choose for sure, the student from what it remembers of
/// earlier turns: every draw is the policy's one move.
#[test]
fn the_deterministic_players_policies_are_their_one_move() {
    for (bot, overrides) in [("student", json!({})), ("student", json!({"ak": "play"}))] {
        assert_eq!(check_game(bot, overrides, 10), 0);
    }
    assert_eq!(check_game("greedy", json!({}), 10), 0);
}

/// The check has power: moves at temperature 1 tested against the policy at temperature 3 fail
/// where the two differ.
#[test]
fn moves_against_another_temperatures_policy_fail_the_check() {
    let positions = decisions_of_seat_0("dvalue", &json!({"temperature": 1.0}));
    let d = positions
        .iter()
        .find(|d| {
            let request = request(d);
            let policy = |t: f64| {
                common::agent("dvalue", None, json!({"temperature": t}), 0)
                    .policy(&request)
                    .unwrap()
            };
            let (cold, warm) = (policy(1.0), policy(3.0));
            cold.len() > 1 && cold.iter().zip(&warm).any(|(a, b)| (a.p - b.p).abs() > 0.1)
        })
        .expect("a position where the temperature matters");
    let request = request(d);
    let warm =
        common::agent("dvalue", None, json!({"temperature": 3.0}), 0).policy(&request).unwrap();
    let played: Vec<Value> = (1..=2000)
        .map(|seed| {
            let mut agent = common::agent("dvalue", None, json!({"temperature": 1.0}), seed);
            agent.act(&request).unwrap().action
        })
        .collect();
    let p = chi_square(&warm, &played).unwrap_or(0.0);
    assert!(p < 1e-6, "p = {p}");
}
