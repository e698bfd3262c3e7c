//! Seeded matches, recorded: the full transcript (every action and public event) and outcome.

use crate::common;

use common::{agent, game};
use serde_json::json;
use yomi_plugin::referee::play;
use yomi_plugin::Agent;

#[test]
fn three_players_dvalue_student_greedy() {
    let mut g = game(json!({}), 2026);
    let mut a = agent("dvalue", None, json!({}), 1);
    let mut b = agent("student", Some("typical"), json!({}), 2);
    let mut c = agent("greedy", None, json!({}), 3);
    let mut agents: Vec<&mut dyn Agent> = vec![a.as_mut(), b.as_mut(), c.as_mut()];
    let played = play(g.as_mut(), &mut agents).unwrap();
    insta::assert_json_snapshot!(played);
}

#[test]
fn four_players_fluctuating_dvalue_random_must_play() {
    let mut g =
        game(json!({"players": 4, "out_of_passes": "must_play", "first": "seven_of_diamonds"}), 7);
    let mut a = agent("dvalue", Some("fluctuating"), json!({}), 4);
    let mut b = agent("random", None, json!({"pass_rate": 0.1}), 5);
    let mut c = agent("student", Some("eager"), json!({}), 6);
    let mut d = agent("dvalue", None, json!({}), 7);
    let mut agents: Vec<&mut dyn Agent> = vec![a.as_mut(), b.as_mut(), c.as_mut(), d.as_mut()];
    let played = play(g.as_mut(), &mut agents).unwrap();
    insta::assert_json_snapshot!(played);
}
