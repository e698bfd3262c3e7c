//! The bots' side of the trust boundary, through the real binary: no request names a file on the
//! server, no observation's rules make a bot allocate without bound, solved tables are bounded
//! per agent and on disk, service parameters are checked by the host against the bots' declared
//! bounds, and a roles group is reached only with the key its creator got back.

use std::net::Ipv4Addr;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};
use yomi_e2e::{error_code, json_out, run_ok, temp_dir, yomi_in, Conn, Server};

/// A stdio server with a data directory of its own.
fn served() -> (tempfile::TempDir, Server) {
    let data = temp_dir();
    let server = Server::stdio(&["--data-dir", data.path().to_str().unwrap()]);
    (data, server)
}

const DEAL: &str = "As Ad 2c 3c 4c 5c Ah | Ks Kd 2d 3d 4d 5d Kh";

fn stud_match(conn: &mut Conn, deals: Value) -> Value {
    conn.request(
        "match.run",
        json!({"game": "stud", "games": 1, "seed": 1, "game_options": {"deals": deals},
               "seats": [{"bot": "stud/calling-station"}, {"bot": "stud/calling-station"}]}),
    )
}

#[test]
fn stud_deals_are_given_inline_and_no_path_is_ever_opened() {
    let (data, mut server) = served();
    let conn = server.conn();
    // A path on the server is only text that is not a deal: the file is never read.
    let reply = stud_match(conn, json!("/etc/passwd"));
    assert_eq!(error_code(&reply).as_deref(), Some("invalid_option"), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("deal `/etc/passwd`") && !message.contains("root:"), "{message}");
    let file = data.path().join("good.deals");
    std::fs::write(&file, format!("{DEAL}\n")).unwrap();
    let reply = stud_match(conn, json!(file.to_str().unwrap()));
    assert_eq!(error_code(&reply).as_deref(), Some("invalid_option"), "a readable deal file too");
    // Deals inline are played; too many are refused before any game.
    assert_eq!(stud_match(conn, json!([DEAL]))["ok"], json!(true));
    let reply = stud_match(conn, json!(vec![DEAL; 10_001]));
    assert!(reply["error"]["message"].as_str().unwrap().contains("at most 10000"), "{reply}");
    conn.assert_alive();

    // The CLI reads a local deal file itself and sends its text.
    let transcript = data.path().join("t.jsonl");
    let deals = format!("deals=@{}", file.display());
    run_ok(yomi_in(data.path()).args(["match", "--game", "stud", "--game-option", &deals]).args([
        "--bot",
        "stud/calling-station",
        "--bot",
        "stud/calling-station",
        "--games",
        "1",
        "--json",
        "--transcript",
        transcript.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert!(text.contains(r#""hole":["As","Ad"]"#) && text.contains(r#""hole":["Ks","Kd"]"#));
}

/// The paper's parties with every HP and the turn limit set as given.
fn rules(hp: u64, turn_limit: u64) -> Value {
    let mon = |name: &str, ty: &str, speed: u64, moves: [&str; 3]| json!({"name": name, "type": ty, "hp": hp, "speed": speed, "moves": moves});
    json!({
        "parties": [
            [mon("A", "grass", 5, ["grass", "fire", "electric"]), mon("B", "water", 4, ["water", "fire", "electric"]), mon("C", "electric", 10, ["electric", "grass", "water"])],
            [mon("D", "grass", 6, ["grass", "fire", "electric"]), mon("E", "fire", 7, ["water", "fire", "electric"]), mon("F", "electric", 8, ["electric", "grass", "water"])]
        ],
        "same_type_neutral": false,
        "turn_limit": turn_limit,
    })
}

fn act(conn: &mut Conn, agent: &str, rules: Value, hp: u64) -> Value {
    let observation = json!({"you": 0, "phase": "choose", "rules": rules,
        "state": {"turn": 1, "hp": [[hp, hp, hp], [hp, hp, hp]], "active": ["A", "D"]}});
    conn.request("agent.act", json!({"agent": agent, "observation": observation}))
}

fn new_agent(conn: &mut Conn, bot: &str) -> String {
    conn.ok("agent.new", json!({"bot": bot, "seed": 1}))["agent"].as_str().unwrap().to_string()
}

#[test]
fn battle_observation_rules_are_checked_as_the_game_options_are() {
    let (data, mut server) = served();
    let conn = server.conn();
    let agent = new_agent(conn, "battle/nash");
    let started = Instant::now();
    // HP 255 used to make the solver allocate petabytes and abort the server.
    for (hp, limit) in [(255, 20), (200, 20), (6, 20), (5, 255), (5, 41)] {
        let reply = act(conn, &agent, rules(hp, limit), hp.min(5));
        assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{hp} {limit}: {reply}");
    }
    assert!(started.elapsed() < Duration::from_secs(5), "refused before any solving");
    conn.assert_alive();
    // The same bound in the same words as the game option.
    let message = act(conn, &agent, rules(6, 20), 5)["error"]["message"].clone();
    let options = json!({"parties": "custom", "custom_parties": rules(6, 20)["parties"]});
    let reply = conn.request(
        "match.run",
        json!({"game": "battle", "games": 1, "seed": 1, "game_options": options,
               "seats": [{"bot": "battle/random"}, {"bot": "battle/random"}]}),
    );
    assert_eq!(error_code(&reply).as_deref(), Some("invalid_option"), "{reply}");
    let option_message = reply["error"]["message"].as_str().unwrap();
    assert!(option_message.ends_with("A: HP 6 is out of range [1, 5]"), "{option_message}");
    assert_eq!(message, json!("`observation.rules`: A: HP 6 is out of range [1, 5]"));
    assert!(!data.path().join("battle").exists(), "no table was solved or stored");
}

/// The same bound when every decision also asks for the bot's policy: the policy reads the
/// rules first, and once counted a new rule set against a copy of the agent's budget, so an
/// agent asked this way never ran out.
#[test]
fn an_agent_asked_for_its_policy_has_the_same_few_new_rule_sets() {
    let (_data, mut server) = served();
    let conn = server.conn();
    let agent = new_agent(conn, "battle/nash");
    let with_policy = |conn: &mut Conn, limit: u64| {
        let observation = json!({"you": 0, "phase": "choose", "rules": rules(1, limit),
            "state": {"turn": 1, "hp": [[1, 1, 1], [1, 1, 1]], "active": ["A", "D"]}});
        conn.request(
            "agent.act",
            json!({"agent": agent, "observation": observation, "policy": true}),
        )
    };
    for limit in 12..=15 {
        let reply = with_policy(conn, limit);
        assert!(reply["result"]["policy"].is_array(), "rule set {limit}: {reply}");
    }
    let reply = with_policy(conn, 16);
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
}

#[test]
fn each_agent_may_have_only_a_few_new_rule_sets_solved() {
    let (_data, mut server) = served();
    let conn = server.conn();
    let agent = new_agent(conn, "battle/nash");
    // Tiny rule sets (every HP 1), distinct by turn limit: solved in milliseconds each.
    for limit in 2..=5 {
        let reply = act(conn, &agent, rules(1, limit), 1);
        assert_eq!(reply["ok"], json!(true), "rule set {limit}: {reply}");
    }
    let reply = act(conn, &agent, rules(1, 6), 1);
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    // Rule sets already solved cost nothing and stay available; so does analyze's budget.
    assert_eq!(act(conn, &agent, rules(1, 3), 1)["ok"], json!(true));
    let analyze = json!({"agent": agent, "method": "analyze",
        "params": {"parties": rules(1, 7)["parties"], "turn_limit": 7, "active": "A,D"}});
    assert_eq!(error_code(&conn.request("agent.call", analyze)).as_deref(), Some("limit_exceeded"));
    // Another agent solves what this one could not.
    let other = new_agent(conn, "battle/nash");
    assert_eq!(act(conn, &other, rules(1, 6), 1)["ok"], json!(true));
}

#[test]
fn the_server_solves_a_bounded_number_of_new_rule_sets_an_hour_whatever_the_agents() {
    let (_data, mut server) = served();
    let conn = server.conn();
    // 60 tiny rule sets, four per agent, by fifteen agents: each is solved.
    let sets: Vec<(u64, u64)> =
        [1, 2].iter().flat_map(|&hp| (2..32).map(move |l| (hp, l))).collect();
    for four in sets.chunks(4) {
        let agent = new_agent(conn, "battle/nash");
        for &(hp, limit) in four {
            assert_eq!(act(conn, &agent, rules(hp, limit), hp)["ok"], json!(true), "{hp} {limit}");
        }
    }
    // A fresh agent still has its own allowance, but the server's hour is used up.
    let agent = new_agent(conn, "battle/nash");
    let reply = act(conn, &agent, rules(1, 32), 1);
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("in the last hour"), "{reply}");
    assert_eq!(act(conn, &agent, rules(2, 9), 2)["ok"], json!(true), "solved rules stay free");
}

#[test]
fn one_client_address_gets_a_share_of_the_servers_new_rule_sets_not_all_of_them() {
    let data = temp_dir();
    let server = Server::tcp(&["--data-dir", data.path().to_str().unwrap()]);
    let mut greedy = server.connect_from(Ipv4Addr::new(127, 0, 0, 2));
    // Twelve new rule sets, four per agent by three agents (a fifth of the server's hour) ...
    let agents: Vec<String> = (0..3).map(|_| new_agent(&mut greedy, "battle/nash")).collect();
    for limit in 2..14 {
        let agent = &agents[(limit as usize - 2) / 4];
        assert_eq!(act(&mut greedy, agent, rules(1, limit), 1)["ok"], json!(true), "{limit}");
    }
    // ... and then none for a fresh agent of the same address, on a new connection too.
    let mut again = server.connect_from(Ipv4Addr::new(127, 0, 0, 2));
    let agent = new_agent(&mut again, "battle/nash");
    let reply = act(&mut again, &agent, rules(1, 14), 1);
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("your agents"), "{reply}");
    // Another address still has its share.
    let mut other = server.connect_from(Ipv4Addr::new(127, 0, 0, 3));
    let agent = new_agent(&mut other, "battle/nash");
    assert_eq!(act(&mut other, &agent, rules(1, 14), 1)["ok"], json!(true));
}

/// A sparse file (its length counts, no disk is used) last used `days` ago.
fn old_table(dir: &Path, name: &str, len: u64, days: u64) -> std::path::PathBuf {
    let path = dir.join(name);
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(len).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(86_400 * days)).unwrap();
    path
}

#[test]
fn stored_tables_are_bounded_and_the_least_recently_used_go_first() {
    let data = temp_dir();
    let tables = data.path().join("battle").join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    let oldest = old_table(&tables, &format!("{}.table", "a".repeat(64)), 300 << 20, 3);
    let newer = old_table(&tables, &format!("{}.table", "b".repeat(64)), 250 << 20, 2);
    let mut server = Server::stdio(&["--data-dir", data.path().to_str().unwrap()]);
    let conn = server.conn();
    let agent = new_agent(conn, "battle/nash");
    assert_eq!(act(conn, &agent, rules(2, 10), 2)["ok"], json!(true));
    // The new table is stored after the decision, on a thread of its own; the store is pruned
    // once it is in place.
    let stored = || -> Vec<_> {
        let entries = std::fs::read_dir(&tables).unwrap().map(|e| e.unwrap().path());
        entries.filter(|p| p.extension().is_some_and(|e| e == "table")).collect()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while (oldest.exists() || stored().len() != 2) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let names = stored();
    assert_eq!(names.len(), 2, "the new table and the newer old one: {names:?}");
    assert!(!oldest.exists() && newer.exists(), "512 MiB at most: the oldest table went");
}

#[test]
fn the_host_checks_service_parameters_against_the_declared_bounds() {
    let data = temp_dir();
    let catalog = json_out(&run_ok(yomi_in(data.path()).args(["bots", "--json"])));
    let method = |bot: &str, name: &str| -> Value {
        let bot = catalog["bots"].as_array().unwrap().iter().find(|b| b["id"] == bot).unwrap();
        bot["methods"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap().clone()
    };
    let param = |m: &Value, name: &str| -> Value {
        m["params"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap().clone()
    };
    assert_eq!(param(&method("roles/roles", "sample"), "count")["max"], json!(10_000));
    assert_eq!(param(&method("roles/roles", "analyze"), "runs")["max"], json!(10_000));
    assert_eq!(param(&method("dice/dice", "rolls"), "n")["max"], json!(10_000));
    assert_eq!(param(&method("battle/nash", "analyze"), "turn_limit")["max"], json!(40));

    let mut server = Server::stdio(&["--data-dir", data.path().to_str().unwrap()]);
    let conn = server.conn();
    let (roles, dice) = (new_agent(conn, "roles/roles"), new_agent(conn, "dice/dice"));
    let players = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o"];
    let sample = json!({"players": players, "roles": "werewolf=3,seer=1,villager=11"});
    let started = Instant::now();
    let cases = [
        (
            &roles,
            "sample",
            json!({"count": 1_000_000}),
            "parameter `count` = 1000000 is out of range [1, 10000]",
        ),
        (
            &roles,
            "sample",
            json!({"sampler": "mh", "thin": 1e9}),
            "parameter `thin` = 1000000000.0 is out of range [1, 10000]",
        ),
        (
            &roles,
            "analyze",
            json!({"runs": 10_001}),
            "parameter `runs` = 10001 is out of range [1, 10000]",
        ),
        (&roles, "sample", json!({"count": "many"}), "parameter `count` must be an integer"),
        (
            &dice,
            "rolls",
            json!({"n": 100_000}),
            "parameter `n` = 100000 is out of range [1, 10000]",
        ),
        (
            &dice,
            "sequence",
            json!({"length": 0}),
            "parameter `length` = 0 is out of range [1, 10000]",
        ),
    ];
    for (agent, name, extra, want) in cases {
        let mut params = sample.clone();
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let reply =
            conn.request("agent.call", json!({"agent": agent, "method": name, "params": params}));
        assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{name}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("`{name}`: {want}")), "{message}");
    }
    // Within each bound, a request's total work is bounded by the service.
    let work = [
        json!({"sampler": "mh", "count": 10_000, "thin": 10_000}),
        json!({"sampler": "mh", "burn_in": 1_000_000, "thin": 10_000, "count": 1_000}),
    ];
    for extra in work {
        let mut params = sample.clone();
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let reply = conn
            .request("agent.call", json!({"agent": roles, "method": "sample", "params": params}));
        assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    }
    assert!(started.elapsed() < Duration::from_secs(5), "every refusal comes before the work");
    let ok = conn.ok(
        "agent.call",
        json!({"agent": roles, "method": "sample",
        "params": {"players": players, "roles": "werewolf=3,seer=1,villager=11", "count": 10_000}}),
    );
    assert_eq!(ok.as_array().unwrap().len(), 10_000);
}

#[test]
fn a_roles_group_is_reached_only_with_the_key_its_creator_got() {
    let data = temp_dir();
    let server = Server::tcp(&["--data-dir", data.path().to_str().unwrap()]);
    let (mut owner, mut other) = (server.connect(), server.connect());
    let a = new_agent(&mut owner, "roles/roles");
    let b = new_agent(&mut other, "roles/roles");
    let created = owner.ok(
        "agent.call",
        json!({"agent": a, "method": "create",
        "params": {"group": "friday", "players": ["ann", "bob", "cid", "dee"]}}),
    );
    let key = created["key"].as_str().unwrap().to_string();
    assert_eq!(key.len(), 32);
    let call = |conn: &mut Conn, agent: &str, method: &str, params: Value| {
        conn.request("agent.call", json!({"agent": agent, "method": method, "params": params}))
    };
    let dealt = call(
        &mut owner,
        &a,
        "assign",
        json!({"group": "friday", "key": key, "roles": "werewolf=1,villager=3"}),
    );
    assert_eq!(dealt["ok"], json!(true), "{dealt}");

    // The other client sees no group and reads no role.
    assert_eq!(call(&mut other, &b, "groups", json!({}))["result"], json!({"groups": []}));
    for (method, params) in [
        ("role", json!({"group": "friday", "player": "ann"})),
        ("role", json!({"group": "friday", "player": "ann", "key": "0".repeat(32)})),
        ("history", json!({"group": "friday"})),
        ("players", json!({"group": "friday"})),
    ] {
        let reply = call(&mut other, &b, method, params);
        assert_eq!(error_code(&reply).as_deref(), Some("forbidden"), "{method}: {reply}");
    }
    // Given the key, it may.
    let role =
        call(&mut other, &b, "role", json!({"group": "friday", "key": key, "player": "ann"}));
    assert_eq!(role["result"]["role"], dealt["result"]["assignment"]["ann"]);

    // The operator's CLI reaches every group.
    let listed = json_out(&run_ok(yomi_in(data.path()).args(["roles", "groups", "--json"])));
    assert_eq!(listed, json!({"groups": ["friday"]}));
}
