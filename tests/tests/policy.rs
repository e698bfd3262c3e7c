//! End-to-end tests of `agent.act`'s `policy`: PROTOCOL.md's example as written, a batch whose
//! every decision carries the policy it was drawn from, and a bot that does not say refusing
//! with `no_policy` while the session serves on.

use serde_json::{json, Value};
use yomi_e2e::{error_code, Server};

/// The request and reply lines of the JSON block in PROTOCOL.md's policy section.
fn protocol_example() -> (Vec<Value>, Vec<Value>) {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../PROTOCOL.md")).unwrap();
    let section = &text[text.find("#### The bot's policy").expect("a policy section")..];
    let block = &section[section.find("```json\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let lines: Vec<Value> = block.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines.into_iter().partition(|m| m.get("op").is_some())
}

#[test]
fn the_protocol_examples_policy_is_what_the_server_answers() {
    let (requests, shown) = protocol_example();
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let mut replies = Vec::new();
    for mut request in requests {
        request.as_object_mut().unwrap().remove("id");
        let op = request.as_object_mut().unwrap().remove("op").unwrap();
        replies.push(conn.request(op.as_str().unwrap(), request));
    }
    let acted = replies.last().unwrap();
    assert_eq!(acted["result"], shown[0]["result"], "{acted}");
    let total: f64 = acted["result"]["policy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["p"].as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-12);
}

/// Sevens' README observation: seat 1 may play 3C or pass.
fn sevens_observation() -> Value {
    json!({"seat": 1, "players": 3, "move": 10,
        "hand": ["AS","5S","JS","9H","JH","QH","KH","AD","3D","10D","KD","3C","KC"],
        "table": ["7S","6H","7H","5D","6D","7D","4C","5C","6C","7C","8C","9C","10C","JC"],
        "ends": {"S": [7, 7], "H": [6, 7], "D": [5, 7], "C": [4, 11]},
        "hand_sizes": [12, 13, 13], "passes_used": [0, 0, 0], "passes_left": [3, 3, 3],
        "pass_limit": 3, "out_of_passes": "out",
        "ranks": [null, null, null], "went_out": [false, false, false]})
}

#[test]
fn every_decision_of_a_batch_carries_the_policy_it_was_drawn_from() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let options = json!({"temperature": 8.0});
    let made = conn.ok("agent.new", json!({"bot": "sevens/dvalue", "options": options, "seed": 4}));
    let agent = made["agent"].as_str().unwrap();
    let observation = sevens_observation();
    let positions = json!([
        {"observation": observation},
        {"observation": 7},
        {"observation": observation, "seed": 3},
    ]);
    let batch =
        conn.ok("agent.act", json!({"agent": agent, "positions": positions, "policy": true}));
    let decisions = batch["decisions"].as_array().unwrap();
    for i in [0, 2] {
        let policy = decisions[i]["policy"].as_array().unwrap();
        assert_eq!(policy.len(), 2, "a warm player may play 3C or pass: {batch}");
        assert!(policy.iter().any(|e| e["action"] == decisions[i]["action"]), "{batch}");
    }
    assert_eq!(decisions[0]["policy"], decisions[2]["policy"], "one state, one policy");
    assert_eq!(decisions[1]["error"]["code"], "invalid_params", "{batch}");
    let one = json!({"agent": agent, "observation": observation, "policy": true});
    assert_eq!(conn.ok("agent.act", one)["policy"], decisions[0]["policy"]);
}

#[test]
fn a_bot_that_does_not_say_answers_no_policy_and_the_session_serves_on() {
    let misbehave = yomi_e2e::library("fixture_misbehave").to_str().unwrap().to_string();
    let plugins = yomi_e2e::target_dir().to_str().unwrap().to_string();
    let mut server = Server::stdio(&["--plugins", &plugins, "--plugins", &misbehave]);
    let conn = server.conn();
    let made = conn.ok("agent.new", json!({"bot": "misbehave/misbehave"}));
    let act =
        json!({"agent": made["agent"], "observation": {}, "legal": ["a", "b"], "policy": true});
    let reply = conn.request("agent.act", act.clone());
    assert_eq!(error_code(&reply).as_deref(), Some("no_policy"), "{reply}");
    let mut plain = act;
    plain["policy"] = json!(false);
    assert!(conn.ok("agent.act", plain)["action"].is_string(), "asked without, it plays");
    let batch = json!({"agent": made["agent"], "positions": [{"observation": {}, "legal": ["a"]}], "policy": true});
    let decided = conn.ok("agent.act", batch);
    assert_eq!(decided["decisions"][0]["error"]["code"], "no_policy", "{decided}");
}
