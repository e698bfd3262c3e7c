//! The whole client session, over stdio and over TCP: hello, ping, catalog, agents made from
//! presets, decisions with explanations, live personality changes, bot swaps (including a newer
//! build of a plugin loaded while the server runs), observe, call, list, drop, plugins.

use serde_json::{json, Value};
use yomi_e2e::{
    install_library, install_misbehave, library, rps_turn, temp_dir, with_agent, Conn, Server,
};

/// The hand the agent plays against an opponent whose last hand was `last`.
fn answer(conn: &mut Conn, agent: &str, last: &str) -> String {
    let result = conn.ok("agent.act", with_agent(agent, rps_turn(last, false)));
    assert!(result.get("explain").is_none(), "no explain unless asked: {result}");
    result["action"].as_str().expect("a hand").to_string()
}

/// Everything but plugin loading, on any transport.
fn whole_session(conn: &mut Conn) {
    let hello = conn.ok("hello", json!({"protocol": 1, "client": "e2e"}));
    assert_eq!(hello["protocol"], json!(1));
    assert_eq!(hello["server"], json!("yomi"));
    assert_eq!(hello["compatible"], json!(true));
    assert_eq!(hello["version"], json!(env!("CARGO_PKG_VERSION")));
    assert!(hello["build"].as_str().is_some_and(|b| !b.is_empty()), "hello names its build");
    let ops: Vec<&str> =
        hello["operations"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    for op in [
        "ping",
        "catalog",
        "agent.new",
        "agent.configure",
        "agent.swap",
        "agent.act",
        "agent.observe",
        "agent.call",
        "agent.drop",
        "agent.list",
        "plugin.list",
        "plugin.load",
    ] {
        assert!(ops.contains(&op), "hello lists {op}: {hello}");
    }
    assert!(hello["features"].as_array().is_some_and(|f| !f.is_empty()));
    // A client from the future is told, not refused.
    assert_eq!(conn.ok("hello", json!({"protocol": 99}))["compatible"], json!(false));

    conn.assert_alive();

    let catalog = conn.ok("catalog", json!({}));
    let rps = catalog["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == json!("example/rps"))
        .expect("example/rps in the catalog");
    let presets: Vec<&str> =
        rps["presets"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(presets.contains(&"reader"), "{rps}");
    assert!(catalog["games"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["name"] == json!("rps") && g["plugin"] == json!("example")));

    // A preset agent: `reader` always beats your last hand, and says so when asked.
    let a = conn.ok("agent.new", json!({"bot": "rps", "preset": "reader", "seed": 5}));
    let id = a["agent"].as_str().unwrap().to_string();
    assert_eq!(a["bot"], json!("example/rps"));
    assert_eq!(
        a["options"],
        json!({"bias": 0.0, "favourite": "rock", "reading": 1, "think_scale": 1.0})
    );
    assert_eq!(a["seed"], json!(5));
    let explained = conn.ok("agent.act", with_agent(&id, rps_turn("rock", true)));
    assert_eq!(explained["action"], json!("paper"));
    assert_eq!(
        explained["explain"],
        json!({"reason": "beats your last hand", "opponent_last": "rock"})
    );
    // A suggested human think time rides along; the reply did not wait for it.
    assert!(explained["think_ms"].as_u64().is_some_and(|ms| ms > 0), "{explained}");
    for (last, beat) in [("rock", "paper"), ("paper", "scissors"), ("scissors", "rock")] {
        assert_eq!(answer(conn, &id, last), beat);
    }

    // The runtime personality swap: reading 2 expects you to read it and beats that.
    let changed = conn.ok("agent.configure", json!({"agent": id, "options": {"reading": 2}}));
    assert_eq!(changed["options"]["reading"], json!(2));
    assert_eq!(changed["agent"], json!(id));
    for (last, beat) in [("rock", "scissors"), ("paper", "rock"), ("scissors", "paper")] {
        assert_eq!(answer(conn, &id, last), beat);
    }
    // ... and back, through a preset; unnamed options return to the defaults.
    let back = conn.ok("agent.configure", json!({"agent": id, "preset": "reader"}));
    assert_eq!(
        back["options"],
        json!({"bias": 0.0, "favourite": "rock", "reading": 1, "think_scale": 1.0})
    );
    assert_eq!(answer(conn, &id, "rock"), "paper");
    // A full bias makes it throw its favourite whatever you did.
    conn.ok(
        "agent.configure",
        json!({"agent": id, "options": {"bias": 1.0, "favourite": "scissors"}}),
    );
    for last in ["rock", "paper", "scissors", "rock"] {
        assert_eq!(answer(conn, &id, last), "scissors");
    }

    // agent.swap with nothing named: same bot, fresh instance, options carried over.
    let swapped = conn.ok("agent.swap", json!({"agent": id}));
    assert_eq!(swapped["agent"], json!(id));
    assert_eq!(
        swapped["options"],
        json!({"bias": 1.0, "favourite": "scissors", "reading": 1, "think_scale": 1.0})
    );
    assert_eq!(swapped["seed"], json!(5), "the agent keeps its seed");
    assert_eq!(answer(conn, &id, "paper"), "scissors");
    // agent.swap with new options: they replace the old ones (over the defaults).
    let swapped = conn
        .ok("agent.swap", json!({"agent": id, "bot": "example/rps", "options": {"reading": 2}}));
    assert_eq!(
        swapped["options"],
        json!({"bias": 0.0, "favourite": "rock", "reading": 2, "think_scale": 1.0})
    );
    assert_eq!(answer(conn, &id, "paper"), "rock");

    // Observing is accepted (the rps bot learns nothing from it, but the call must reach it).
    assert_eq!(
        conn.ok("agent.observe", json!({"agent": id, "event": {"hands": ["rock", "paper"]}})),
        json!({})
    );

    // Services: the rps bot offers none, and says which it has.
    assert_eq!(
        conn.err("agent.call", json!({"agent": id, "method": "roll", "params": {}})),
        "unknown_method"
    );

    // Two agents side by side; the list shows both with their options.
    let b = conn.ok(
        "agent.new",
        json!({"bot": "example/rps", "options": {"favourite": "paper", "bias": 1}}),
    );
    let id_b = b["agent"].as_str().unwrap().to_string();
    assert_ne!(id_b, id);
    assert_eq!(b["options"]["bias"], json!(1.0), "ints are accepted for float options");
    let list = conn.ok("agent.list", json!({}));
    let ids: Vec<&str> =
        list.as_array().unwrap().iter().filter_map(|a| a["agent"].as_str()).collect();
    assert_eq!(ids.len(), 2, "{list}");
    assert!(ids.contains(&id.as_str()) && ids.contains(&id_b.as_str()));

    // Dropping one leaves the other working.
    assert_eq!(conn.ok("agent.drop", json!({"agent": id})), json!({"dropped": id}));
    assert_eq!(conn.err("agent.act", with_agent(&id, rps_turn("rock", false))), "unknown_agent");
    assert_eq!(answer(conn, &id_b, "rock"), "paper");
    assert_eq!(conn.ok("agent.list", json!({})).as_array().unwrap().len(), 1);

    let plugins = conn.ok("plugin.list", json!({}));
    let example = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == json!("example"))
        .expect("example loaded");
    assert_eq!(example["generation"], json!(1));
    assert_eq!(example["bots"], json!(["rps"]));
    assert!(example["build"].as_str().is_some_and(|b| b.len() == 12));
}

#[test]
fn whole_session_over_stdio() {
    let mut server = Server::stdio(&[]);
    whole_session(server.conn());
}

#[test]
fn whole_session_over_tcp() {
    let server = Server::tcp(&[]);
    let mut conn = server.connect();
    whole_session(&mut conn);
}

#[test]
fn ids_are_echoed_verbatim() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    for id in [
        json!("abc"),
        json!(-3),
        json!(1.5),
        json!(true),
        json!(18446744073709551615u64),
        json!(""),
    ] {
        conn.send(&json!({"id": id, "op": "ping"}));
        let reply = conn.reply();
        assert_eq!(reply, json!({"id": id, "ok": true, "result": {"pong": true}}));
    }
    // Pipelined requests are answered in order.
    for n in 0..20 {
        conn.send(&json!({"id": n, "op": "ping"}));
    }
    for n in 0..20 {
        assert_eq!(conn.reply()["id"], json!(n));
    }
}

#[test]
fn seeds_make_agents_repeat_themselves() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let play = |conn: &mut Conn, seed: u64| -> Vec<String> {
        let id = conn.ok("agent.new", json!({"bot": "rps", "seed": seed}))["agent"]
            .as_str()
            .unwrap()
            .to_string();
        (0..30).map(|_| answer(conn, &id, "rock")).collect()
    };
    let first = play(conn, 11);
    assert_eq!(play(conn, 11), first, "same seed, same hands");
    assert_ne!(play(conn, 12), first, "another seed, other hands");
    let hands: std::collections::BTreeSet<&String> = first.iter().collect();
    assert_eq!(hands.len(), 3, "a uniform bot throws every hand in 30 throws: {first:?}");
}

/// Hot swap: a newer build of the example plugin is dropped into a plugin directory and loaded
/// while the server runs. Existing agents keep their build until swapped; new agents get the new
/// one; an old generation can still be pinned.
#[test]
fn newer_plugin_build_is_loaded_beside_the_old_and_swapped_in() {
    let dir = temp_dir();
    let server = Server::tcp_with_dir(dir.path());
    let mut conn = server.connect();

    let old = conn.ok("agent.new", json!({"bot": "rps", "preset": "reader"}));
    let id = old["agent"].as_str().unwrap().to_string();
    assert_eq!(old["generation"], json!(1));
    conn.ok("agent.configure", json!({"agent": id, "options": {"reading": 2}}));

    // Same code, different bytes: a new build of plugin `example`.
    let example = library("yomi_example");
    let copy = install_library(&example, dir.path(), "libyomi_example_next.so", b"build 2");
    let loaded = conn.ok("plugin.load", json!({"path": copy}));
    assert_eq!(loaded["name"], json!("example"));
    assert_eq!(loaded["generation"], json!(2));
    assert_ne!(loaded["build"], old["build"]);
    let plugins = conn.ok("plugin.list", json!({}));
    let generations: Vec<&Value> = plugins
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == json!("example"))
        .map(|p| &p["generation"])
        .collect();
    assert_eq!(generations, vec![&json!(1), &json!(2)], "both builds stay loaded: {plugins}");

    // The existing agent still runs generation 1 with its state.
    let listed = conn.ok("agent.list", json!({}));
    assert_eq!(listed[0]["generation"], json!(1));
    assert_eq!(answer(&mut conn, &id, "rock"), "scissors");

    // New agents get generation 2; generation 1 can still be pinned.
    assert_eq!(conn.ok("agent.new", json!({"bot": "rps"}))["generation"], json!(2));
    assert_eq!(
        conn.ok("agent.new", json!({"bot": "rps", "generation": 1}))["generation"],
        json!(1)
    );
    assert_eq!(conn.err("agent.new", json!({"bot": "rps", "generation": 7})), "unknown_plugin");

    // Swapping with nothing named moves the agent to the newest build, keeping its options.
    let swapped = conn.ok("agent.swap", json!({"agent": id}));
    assert_eq!(swapped["generation"], json!(2));
    assert_eq!(swapped["build"], loaded["build"]);
    assert_eq!(swapped["options"]["reading"], json!(2));
    assert_eq!(answer(&mut conn, &id, "rock"), "scissors");
    // ... and back to a pinned generation.
    assert_eq!(
        conn.ok("agent.swap", json!({"agent": id, "generation": 1}))["generation"],
        json!(1)
    );

    // Loading the same bytes again is a no-op that returns the loaded build.
    assert_eq!(conn.ok("plugin.load", json!({"path": copy}))["generation"], json!(2));

    // A rebuilt file at the same path (replaced by rename, as linkers do) becomes generation 3:
    // the host maps the new bytes even though the path was seen before.
    install_library(&example, dir.path(), "libyomi_example_next.so", b"build 3");
    let third = conn.ok("plugin.load", json!({"path": copy}));
    assert_eq!(third["generation"], json!(3));
    assert_ne!(third["build"], loaded["build"]);
    let swapped = conn.ok("agent.swap", json!({"agent": id}));
    assert_eq!(swapped["generation"], json!(3));
    assert_eq!(answer(&mut conn, &id, "paper"), "rock");

    // Relative paths are looked up inside the plugin directories.
    assert_eq!(
        conn.ok("plugin.load", json!({"path": "libyomi_example_next.so"}))["generation"],
        json!(3)
    );
}

/// Swapping to a different bot: options that the new bot lacks do not carry over.
#[test]
fn swap_to_another_bot_and_back() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let mut server = Server::stdio_with_dir(dir.path());
    let conn = server.conn();
    conn.ok("plugin.load", json!({"path": lib}));
    let id = conn.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    let swapped = conn.ok("agent.swap", json!({"agent": id, "bot": "misbehave"}));
    assert_eq!(swapped["bot"], json!("misbehave/misbehave"));
    assert_eq!(
        swapped["options"],
        json!({"on_act": "ok", "panic_on": "nothing", "hang_on_drop": false, "hang_after": 0})
    );
    assert_eq!(answer(conn, &id, "rock"), "rock");
    // Its service methods are now reachable through the same id.
    let echoed = conn.ok("agent.call", json!({"agent": id, "method": "echo", "params": {"n": 3}}));
    assert_eq!(echoed, json!({"method": "echo", "params": {"n": 3}}));
    let back =
        conn.ok("agent.swap", json!({"agent": id, "bot": "example/rps", "preset": "reader"}));
    assert_eq!(back["bot"], json!("example/rps"));
    assert_eq!(answer(conn, &id, "rock"), "paper");
    // A swap to an unknown bot leaves the agent as it was.
    assert_eq!(conn.err("agent.swap", json!({"agent": id, "bot": "nobody"})), "unknown_bot");
    assert_eq!(
        conn.err("agent.swap", json!({"agent": id, "options": {"reading": 9}})),
        "invalid_option"
    );
    assert_eq!(answer(conn, &id, "rock"), "paper");
}
