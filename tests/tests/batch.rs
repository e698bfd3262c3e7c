//! End-to-end tests of batched `agent.act`: many positions in one request, answered in order,
//! one bad position failing only itself, seeds reproducing a fresh agent's decision, and the
//! operator's bound on the count.

use serde_json::{json, Value};
use yomi_e2e::{error_code, rps_turn, Server};

/// `rps_turn`'s observation and legal actions as one position.
fn position(opponent_last: &str) -> Value {
    let turn = rps_turn(opponent_last, false);
    json!({"observation": turn["observation"], "legal": turn["legal"]})
}

#[test]
fn positions_are_answered_in_order_and_a_bad_one_fails_alone() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let made = conn.ok("agent.new", json!({"bot": "example/rps", "seed": 3}));
    let agent = made["agent"].as_str().unwrap();
    let mut seeded = position("paper");
    seeded["seed"] = json!(11);
    let positions = json!([
        position("rock"),
        {"observation": position("rock")["observation"], "legal": "rock"},
        seeded,
        seeded,
        position("scissors"),
    ]);
    let result = conn.ok("agent.act", json!({"agent": agent, "positions": positions}));
    let decisions = result["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 5, "{result}");
    let legal = rps_turn("rock", false)["legal"].clone();
    for i in [0, 2, 3, 4] {
        let action = &decisions[i]["action"];
        assert!(legal.as_array().unwrap().contains(action), "position {i}: {result}");
    }
    assert_eq!(decisions[1]["error"]["code"], json!("invalid_params"), "{result}");
    assert_eq!(decisions[2], decisions[3], "one seed, one decision");
    // A seeded position is answered as a fresh agent with that seed answers it.
    let fresh = conn.ok("agent.new", json!({"bot": "example/rps", "seed": 11}));
    let turn = rps_turn("paper", false);
    let mut act = json!({"agent": fresh["agent"]});
    act["observation"] = turn["observation"].clone();
    act["legal"] = turn["legal"].clone();
    assert_eq!(conn.ok("agent.act", act)["action"], decisions[2]["action"]);
    // Nothing is an empty batch.
    let empty = conn.ok("agent.act", json!({"agent": agent, "positions": []}));
    assert_eq!(empty, json!({"decisions": []}));
}

#[test]
fn a_batch_is_bounded_and_is_one_form_or_the_other() {
    let mut server = Server::stdio(&["--max-batch", "2"]);
    let conn = server.conn();
    let made = conn.ok("agent.new", json!({"bot": "example/rps"}));
    let agent = made["agent"].as_str().unwrap();
    let three = json!([position("rock"), position("rock"), position("rock")]);
    let reply = conn.request("agent.act", json!({"agent": agent, "positions": three}));
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("--max-batch 2"), "{reply}");
    let mut both = position("rock");
    both["agent"] = json!(agent);
    both["positions"] = json!([position("rock")]);
    assert_eq!(conn.err("agent.act", both), "invalid_params");
    let not_a_list = json!({"agent": agent, "positions": {"observation": null}});
    assert_eq!(conn.err("agent.act", not_a_list), "invalid_params");
    let unknown = json!({"agent": "a404", "positions": [position("rock")]});
    assert_eq!(conn.err("agent.act", unknown), "unknown_agent");
}

/// A TCP server with the build's plugins and the misbehaving fixture (`on_act: slow`: 30 ms a
/// decision), and `flags`.
fn with_slow_bot(flags: &[&str]) -> Server {
    let plugins = yomi_e2e::target_dir().to_str().unwrap().to_string();
    let misbehave = yomi_e2e::library("fixture_misbehave").to_str().unwrap().to_string();
    let mut args = vec!["--plugins", &plugins, "--plugins", &misbehave];
    args.extend_from_slice(flags);
    Server::tcp(&args)
}

#[test]
fn a_batch_of_a_slow_bot_is_bounded_by_its_time_not_only_its_length() {
    let server = with_slow_bot(&["--max-batch-time", "0.3"]);
    let mut conn = server.connect();
    let made = conn.ok("agent.new", json!({"bot": "misbehave", "options": {"on_act": "slow"}}));
    let agent = made["agent"].as_str().unwrap();
    // 100 positions of 30 ms each would take 3 s; the batch stops deciding at about 0.3 s.
    let positions = vec![position("rock"); 100];
    let started = std::time::Instant::now();
    let result = conn.ok("agent.act", json!({"agent": agent, "positions": positions}));
    let decisions = result["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 100, "one entry per position, in order");
    let decided = decisions.iter().take_while(|d| d.get("error").is_none()).count();
    assert!((5..=12).contains(&decided), "about 0.3 s of 30 ms calls: {decided}");
    for refused in &decisions[decided..] {
        assert_eq!(refused["error"]["code"], "limit_exceeded", "{refused}");
        assert!(refused["error"]["message"].as_str().unwrap().contains("--max-batch-time"));
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    // The next request is served as usual.
    conn.ok("agent.act", json!({"agent": agent, "positions": [position("paper")]}));
}

/// Batches take turns: with one position decided at a time (`--max-batch-calls 1`), two clients'
/// batches of a slow bot (30 ms a position) run one position after another, the clients in
/// rotation, so the short batch that came second ends long before the long one.
#[test]
fn clients_batches_share_the_cores_in_turns() {
    let server = with_slow_bot(&["--max-batch-calls", "1"]);
    let slow_batch = |conn: &mut yomi_e2e::Conn, positions: usize| {
        let made = conn.ok("agent.new", json!({"bot": "misbehave", "options": {"on_act": "slow"}}));
        let batch = json!({"agent": made["agent"], "positions": vec![position("rock"); positions]});
        move |conn: &mut yomi_e2e::Conn| {
            let result = conn.ok("agent.act", batch);
            assert_eq!(result["decisions"].as_array().unwrap().len(), positions);
            std::time::Instant::now()
        }
    };
    let (mut long_conn, mut short_conn) = (server.connect(), server.connect());
    let long = slow_batch(&mut long_conn, 40);
    let short = slow_batch(&mut short_conn, 10);
    let started = std::time::Instant::now();
    let long = std::thread::spawn(move || long(&mut long_conn));
    std::thread::sleep(std::time::Duration::from_millis(100));
    let short_done = short(&mut short_conn);
    let long_done = long.join().unwrap();
    assert!(short_done < long_done, "the second client's short batch waited for the long one");
    // One position at a time: together no sooner than 50 positions of 30 ms one after another.
    let together = long_done.max(short_done) - started;
    assert!(together >= std::time::Duration::from_millis(1500), "{together:?}: ran at once");
}
