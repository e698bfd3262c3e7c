//! The service through the plugin's public surface: `agent.call` methods on a `roles` agent and
//! the `yomi roles` commands, with a real SQLite file in a temporary data directory.

use serde_json::{json, Value};
use yomi_plugin::{Agent, AgentContext, CommandContext, Options, Plugin};
use yomi_roles::settings::option_specs;
use yomi_roles::RolesPlugin;

fn defaults() -> Options {
    option_specs().into_iter().map(|o| (o.name, o.default)).collect()
}

fn agent(dir: &std::path::Path, seed: u64) -> Box<dyn Agent> {
    RolesPlugin
        .new_agent(
            "roles",
            &defaults(),
            &AgentContext { seed, data_dir: Some(dir.to_path_buf()), ..AgentContext::default() },
        )
        .unwrap()
}

fn cli(dir: &std::path::Path, args: &[&str]) -> Result<String, String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    RolesPlugin
        .command(&args, &CommandContext { data_dir: Some(dir.to_path_buf()) })
        .map_err(|e| e.message)
}

const ROLES: &str = "werewolf=1,seer=1,villager=2";

#[test]
fn a_group_plays_commits_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = agent(dir.path(), 7);
    let created =
        a.call("create", &json!({"group": "friday", "players": ["ann", "bob", "cid", "dee"]}));
    let key = created.unwrap()["key"].as_str().unwrap().to_string();
    for _ in 0..3 {
        let dealt =
            a.call("assign", &json!({"group": "friday", "key": key, "roles": ROLES})).unwrap();
        let game = dealt["game"].as_i64().unwrap();
        assert_eq!(dealt["assignment"].as_object().unwrap().len(), 4);
        // A player learns only their own role.
        let own = a.call("role", &json!({"group": "friday", "key": key, "player": "bob"})).unwrap();
        assert_eq!(
            own,
            json!({"group": "friday", "game": game, "player": "bob", "role": dealt["assignment"]["bob"]})
        );
        a.call("commit", &json!({"group": "friday", "key": key, "game": game})).unwrap();
    }
    let discarded =
        a.call("assign", &json!({"group": "friday", "key": key, "roles": ROLES})).unwrap();
    a.call("discard", &json!({"group": "friday", "key": key, "game": discarded["game"]})).unwrap();
    drop(a);

    // A new agent (a restarted server) sees the three committed games and not the discarded one.
    let mut b = agent(dir.path(), 8);
    let history = b.call("history", &json!({"group": "friday", "key": key})).unwrap();
    assert_eq!(history["games"].as_array().unwrap().len(), 3);
    let total: u64 = history["counts"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|c| c.as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(total, 12);

    // Players come and go; a newcomer has no history. The analysis of the stored group equals
    // the analysis of the same players with the history as `history` returned it.
    b.call("leave", &json!({"group": "friday", "key": key, "players": ["dee"]})).unwrap();
    b.call("join", &json!({"group": "friday", "key": key, "players": ["eve"]})).unwrap();
    let analysis = b
        .call(
            "analyze",
            &json!({"group": "friday", "key": key, "roles": ROLES, "beta": 2.0, "seed": 1}),
        )
        .unwrap();
    assert_eq!(analysis["players"], json!(["ann", "bob", "cid", "eve"]));
    let past: Vec<Value> =
        history["games"].as_array().unwrap().iter().map(|g| g["assignment"].clone()).collect();
    let explicit = b
        .call("analyze", &json!({"players": ["ann", "bob", "cid", "eve"], "history": past, "roles": ROLES, "beta": 2.0, "seed": 1}))
        .unwrap();
    assert_eq!(analysis["probabilities"], explicit["probabilities"]);
    assert_eq!(analysis["never"], explicit["never"]);
    let p = &analysis["probabilities"];
    for player in ["ann", "bob", "cid", "eve"] {
        let row: f64 = p[player].as_object().unwrap().values().map(|x| x.as_f64().unwrap()).sum();
        assert!((row - 1.0).abs() < 1e-12);
    }
    assert_eq!(analysis["never"]["method"], json!("exact"));
}

#[test]
fn bad_input_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = agent(dir.path(), 1);
    let created = a.call("create", &json!({"group": "g", "players": ["a", "b", "c", "d"]}));
    let key = created.unwrap()["key"].as_str().unwrap().to_string();
    let before = a.call("players", &json!({"group": "g", "key": key})).unwrap();
    let bad: [(&str, Value, &str); 12] = [
        (
            "assign",
            json!({"group": "g", "key": key, "roles": "werewolf=1,villager=2"}),
            "sum to 3 but there are 4",
        ),
        (
            "assign",
            json!({"group": "g", "key": key, "roles": "werewolf=-1,villager=5"}),
            "negative",
        ),
        ("assign", json!({"group": "g", "key": key, "roles": ROLES, "beta": -1.0}), "negative"),
        ("assign", json!({"group": "nope", "key": key, "roles": ROLES}), "no group `nope`"),
        ("join", json!({"group": "g", "key": key, "players": ["e", "e"]}), "twice"),
        ("join", json!({"group": "g", "key": key, "players": ["a"]}), "already"),
        ("create", json!({"group": "g", "players": []}), "already exists"),
        ("create", json!({"group": "h", "players": ["x", "x"]}), "twice"),
        ("commit", json!({"group": "g", "key": key, "game": 99}), "no game 99"),
        ("players", json!({"group": "g"}), "needs its `key`"),
        ("players", json!({"group": "g", "key": "00"}), "no group `g` with that key"),
        ("sample", json!({"players": ["a", "a"], "roles": "werewolf=1,villager=1"}), "twice"),
    ];
    for (method, params, message) in bad {
        let err = a.call(method, &params).unwrap_err();
        assert!(err.message.contains(message), "{method} {params}: {}", err.message);
    }
    assert_eq!(a.call("players", &json!({"group": "g", "key": key})).unwrap(), before);
    assert_eq!(a.call("groups", &json!({})).unwrap(), json!({"groups": ["g"]}));

    // Committing twice, or committing a discarded game, is refused and changes nothing.
    let game = a.call("assign", &json!({"group": "g", "key": key, "roles": ROLES})).unwrap()
        ["game"]
        .as_i64()
        .unwrap();
    let again = a.call("assign", &json!({"group": "g", "key": key, "roles": ROLES})).unwrap_err();
    assert!(again.message.contains("pending"));
    a.call("commit", &json!({"group": "g", "key": key, "game": game})).unwrap();
    assert!(a
        .call("commit", &json!({"group": "g", "key": key, "game": game}))
        .unwrap_err()
        .message
        .contains("already committed"));
    assert!(a
        .call("discard", &json!({"group": "g", "key": key, "game": game}))
        .unwrap_err()
        .message
        .contains("already committed"));
    assert_eq!(
        a.call("history", &json!({"group": "g", "key": key})).unwrap()["games"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_group_is_reached_only_with_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let (mut owner, mut other) = (agent(dir.path(), 1), agent(dir.path(), 2));
    let created = owner.call("create", &json!({"group": "g", "players": ["a", "b", "c", "d"]}));
    let key = created.unwrap()["key"].as_str().unwrap().to_string();
    assert_eq!(key.len(), 32, "128 bits in hex: {key}");
    assert!(key.chars().all(|c| c.is_ascii_hexdigit()));
    let dealt = owner.call("assign", &json!({"group": "g", "key": key, "roles": ROLES})).unwrap();

    // Another client lists nothing and reads nothing without the key.
    assert_eq!(other.call("groups", &json!({})).unwrap(), json!({"groups": []}));
    for method in ["players", "history", "role", "assign", "commit", "join", "analyze"] {
        let params = json!({"group": "g", "player": "a", "players": ["e"], "roles": ROLES, "game": dealt["game"]});
        let e = other.call(method, &params).unwrap_err();
        assert_eq!(e.code, yomi_plugin::ErrorCode::Forbidden, "{method}: {}", e.message);
    }
    // With the key it may; the group is then among those it lists.
    let role = other.call("role", &json!({"group": "g", "key": key, "player": "a"})).unwrap();
    assert_eq!(role["role"], dealt["assignment"]["a"]);
    assert_eq!(other.call("groups", &json!({})).unwrap(), json!({"groups": ["g"]}));
    // Keys differ per group; the operator's CLI reaches every group and lists them all.
    let h = owner.call("create", &json!({"group": "h", "players": ["a", "b", "c", "d"]})).unwrap();
    assert_ne!(h["key"].as_str().unwrap(), key);
    assert_eq!(cli(dir.path(), &["groups", "--json"]).unwrap().trim(), r#"{"groups":["g","h"]}"#);
}

#[test]
fn cli_sample_prints_a_json_array_of_assignments() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.json");
    std::fs::write(&history, r#"[{"a":"werewolf","b":"villager","c":"villager","d":"villager"}]"#)
        .unwrap();
    let out = cli(
        dir.path(),
        &[
            "sample",
            "--players",
            "a,b,c,d",
            "--roles",
            "werewolf=1,villager=3",
            "--history",
            history.to_str().unwrap(),
            "--beta",
            "1",
            "--count",
            "500",
            "--json",
            "--seed",
            "3",
        ],
    )
    .unwrap();
    let drawn: Vec<serde_json::Map<String, Value>> = serde_json::from_str(&out).unwrap();
    assert_eq!(drawn.len(), 500);
    for a in &drawn {
        assert_eq!(a.len(), 4);
        assert_eq!(a.values().filter(|r| *r == "werewolf").count(), 1);
    }
    // `a` was the werewolf and the others villagers last time: making `a` the werewolf again costs
    // E = 4 against E = 2 otherwise, so P = exp(-2) / (exp(-2) + 3) = 0.0432.
    let again = drawn.iter().filter(|a| a["a"] == "werewolf").count() as f64 / 500.0;
    assert!((again - 0.0432).abs() < 0.03, "{again}");
    // Same seed, same draws; nothing was written to the data directory.
    assert_eq!(
        cli(
            dir.path(),
            &[
                "sample",
                "--players",
                "a,b,c,d",
                "--roles",
                "werewolf=1,villager=3",
                "--history",
                history.to_str().unwrap(),
                "--beta",
                "1",
                "--count",
                "500",
                "--json",
                "--seed",
                "3"
            ]
        )
        .unwrap(),
        out
    );
    assert!(!dir.path().join(yomi_roles::store::DB_FILE).exists());
}

#[test]
fn cli_rejects_bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    for (args, message) in [
        (
            vec!["sample", "--players", "a,b", "--roles", "werewolf=1,villager=1", "--beta", "-2"],
            "negative",
        ),
        (
            vec!["sample", "--players", "a,b", "--roles", "werewolf=1,villager=1", "--beta", "inf"],
            "finite",
        ),
        (
            vec!["sample", "--players", "a,b", "--roles", "werewolf=1,villager=1", "--beta", "NaN"],
            "finite",
        ),
        (vec!["sample", "--players", "a,b,a", "--roles", "werewolf=1,villager=2"], "twice"),
        (vec!["sample", "--players", "a,b", "--roles", "werewolf=2,villager=1"], "sum"),
        (vec!["deal", "nope", "--roles", "werewolf=1"], "unknown group"),
    ] {
        let err = cli(dir.path(), &args).unwrap_err();
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[test]
fn cli_deal_commit_history_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    cli(dir.path(), &["create", "g", "--players", "a,b,c"]).unwrap();
    let dealt: Value = serde_json::from_str(
        &cli(
            dir.path(),
            &["deal", "g", "--roles", "werewolf=1,villager=2", "--seed", "5", "--json"],
        )
        .unwrap(),
    )
    .unwrap();
    let game = dealt["game"].to_string();
    let own = cli(dir.path(), &["role", "g", "--player", "c"]).unwrap();
    assert_eq!(own, format!("c: {}\n", dealt["assignment"]["c"].as_str().unwrap()));
    cli(dir.path(), &["commit", "g", &game]).unwrap();
    assert!(cli(dir.path(), &["commit", "g", &game]).unwrap_err().contains("already committed"));
    let history: Value =
        serde_json::from_str(&cli(dir.path(), &["history", "g", "--json"]).unwrap()).unwrap();
    assert_eq!(history["games"][0]["assignment"], dealt["assignment"]);
    let text =
        cli(dir.path(), &["analyze", "g", "--roles", "werewolf=1,villager=2", "--games", "3"])
            .unwrap();
    assert!(text.contains("guessability"), "{text}");
}

#[test]
fn seeded_session_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = agent(dir.path(), 42);
    let mut transcript = Vec::new();
    // The group key comes from the OS, so the transcript shows it as `<key>`.
    let mut key = String::new();
    let mut call = |a: &mut Box<dyn Agent>, method: &str, mut params: Value| {
        if !key.is_empty() {
            params["key"] = json!(key);
        }
        let mut reply = a.call(method, &params).unwrap();
        if let Some(k) = reply.get("key").and_then(Value::as_str) {
            key = k.to_string();
        }
        for v in [&mut params, &mut reply] {
            if v.get("key").is_some() {
                v["key"] = json!("<key>");
            }
        }
        transcript.push(json!({"method": method, "params": params, "reply": reply}));
        reply
    };
    call(&mut a, "create", json!({"group": "club", "players": ["p1", "p2", "p3", "p4", "p5"]}));
    for _ in 0..4 {
        let dealt = call(
            &mut a,
            "assign",
            json!({"group": "club", "roles": "werewolf=1,seer=1,villager=3"}),
        );
        call(&mut a, "commit", json!({"group": "club", "game": dealt["game"]}));
    }
    call(
        &mut a,
        "analyze",
        json!({"group": "club", "roles": "werewolf=1,seer=1,villager=3", "games": 2}),
    );
    insta::assert_json_snapshot!(transcript);
}

#[test]
fn clients_create_a_bounded_number_of_groups() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = agent(dir.path(), 1);
    for i in 0..yomi_roles::service::MAX_GROUPS {
        let group = json!({"group": format!("g{i}"), "players": ["a", "b", "c", "d"]});
        client.call("create", &group).unwrap();
    }
    let one_more = json!({"group": "full", "players": ["a", "b", "c", "d"]});
    let e = client.call("create", &one_more).unwrap_err();
    assert_eq!(e.code, yomi_plugin::ErrorCode::LimitExceeded, "{}", e.message);
    // The operator's command line is not bounded by it.
    cli(dir.path(), &["create", "full", "--players", "a,b,c,d"]).unwrap();
}
