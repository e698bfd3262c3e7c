//! Plugins that misbehave or are not plugins at all: a panic inside any call is an error reply and
//! nothing else; bad libraries are refused with clear errors; `plugin.load` stays inside the
//! plugin directories.

use serde_json::json;
use yomi_e2e::{
    install_library, install_misbehave, library, rps_turn, run_yomi, temp_dir, with_agent, Conn,
    Server,
};

/// A server whose plugin directories are the build's and a temp dir holding a copy of the
/// misbehaving fixture, with the fixture loaded.
fn with_misbehave(dir: &tempfile::TempDir) -> Server {
    let lib = install_misbehave(dir.path());
    let server = Server::tcp_with_dir(dir.path());
    let loaded = server.connect().ok("plugin.load", json!({"path": lib}));
    assert_eq!(loaded["name"], json!("misbehave"));
    server
}

fn new_agent(conn: &mut Conn, params: serde_json::Value) -> String {
    conn.ok("agent.new", params)["agent"].as_str().unwrap().to_string()
}

#[test]
fn a_panicking_bot_is_an_error_reply_and_nothing_else() {
    let dir = temp_dir();
    let server = with_misbehave(&dir);
    let mut conn = server.connect();
    let mut other = server.connect();
    let healthy = new_agent(&mut conn, json!({"bot": "example/rps", "preset": "reader"}));
    let elsewhere = new_agent(&mut other, json!({"bot": "example/rps", "preset": "reader"}));
    let bad = new_agent(&mut conn, json!({"bot": "misbehave", "options": {"on_act": "panic"}}));

    for _ in 0..3 {
        let reply = conn.request("agent.act", with_agent(&bad, rps_turn("rock", false)));
        assert_eq!(reply["error"]["code"], json!("plugin_panic"), "{reply}");
        assert!(reply["error"]["message"].as_str().unwrap().contains("asked to panic"), "{reply}");
        // The host, this session's other agent and another session's agent keep working.
        assert_eq!(
            conn.ok("agent.act", with_agent(&healthy, rps_turn("rock", false)))["action"],
            json!("paper")
        );
        assert_eq!(
            other.ok("agent.act", with_agent(&elsewhere, rps_turn("paper", false)))["action"],
            json!("scissors")
        );
    }
    // The panicking agent itself is still there and recovers when told to behave.
    conn.ok("agent.configure", json!({"agent": bad, "options": {"on_act": "ok"}}));
    assert_eq!(
        conn.ok("agent.act", with_agent(&bad, rps_turn("rock", false)))["action"],
        json!("rock")
    );

    // A panicking service call too.
    assert_eq!(
        conn.err("agent.call", json!({"agent": bad, "method": "panic", "params": {}})),
        "plugin_panic"
    );
    assert_eq!(
        conn.ok("agent.call", json!({"agent": bad, "method": "echo", "params": [1]}))["params"],
        json!([1])
    );

    // The host passes a made-up action through: legal entries may describe ranges (bet sizes), so
    // only a game's referee can judge an action. The reply is still well-formed.
    conn.ok("agent.configure", json!({"agent": bad, "options": {"on_act": "illegal"}}));
    assert_eq!(
        conn.ok("agent.act", with_agent(&bad, rps_turn("rock", false)))["action"],
        json!("lizard")
    );

    assert_eq!(conn.ok("agent.drop", json!({"agent": bad}))["dropped"], json!(bad));
    conn.assert_alive();
    other.assert_alive();
    server.wait_log(&["loaded"]);
}

/// A panic in every other kind of call: making the agent, observing, reconfiguring, dropping.
#[test]
fn panics_in_every_call_are_contained() {
    let dir = temp_dir();
    let server = with_misbehave(&dir);
    let mut conn = server.connect();
    let healthy = new_agent(&mut conn, json!({"bot": "example/rps", "preset": "reader"}));
    let still_fine = |conn: &mut Conn| {
        assert_eq!(
            conn.ok("agent.act", with_agent(&healthy, rps_turn("rock", false)))["action"],
            json!("paper")
        );
    };

    assert_eq!(
        conn.err("agent.new", json!({"bot": "misbehave", "options": {"panic_on": "new"}})),
        "plugin_panic"
    );
    still_fine(&mut conn);

    let observer =
        new_agent(&mut conn, json!({"bot": "misbehave", "options": {"panic_on": "observe"}}));
    assert_eq!(
        conn.err("agent.observe", json!({"agent": observer, "event": {"hands": ["rock", "rock"]}})),
        "plugin_panic"
    );
    assert_eq!(
        conn.ok("agent.act", with_agent(&observer, rps_turn("rock", false)))["action"],
        json!("rock")
    );
    still_fine(&mut conn);

    let stubborn =
        new_agent(&mut conn, json!({"bot": "misbehave", "options": {"panic_on": "configure"}}));
    assert_eq!(
        conn.err("agent.configure", json!({"agent": stubborn, "options": {"on_act": "illegal"}})),
        "plugin_panic"
    );
    // The failed change was not recorded.
    let listed = conn.ok("agent.list", json!({}));
    let entry = listed.as_array().unwrap().iter().find(|a| a["agent"] == json!(stubborn)).unwrap();
    assert_eq!(entry["options"]["on_act"], json!("ok"));
    // A swap replaces the instance, so it is the way out of a broken agent.
    conn.ok("agent.swap", json!({"agent": stubborn, "options": {"on_act": "ok"}}));
    conn.ok("agent.configure", json!({"agent": stubborn, "options": {"on_act": "illegal"}}));
    still_fine(&mut conn);

    let dropper =
        new_agent(&mut conn, json!({"bot": "misbehave", "options": {"panic_on": "drop"}}));
    assert_eq!(conn.ok("agent.drop", json!({"agent": dropper}))["dropped"], json!(dropper));
    still_fine(&mut conn);
    // Closing a session drops its agents: a panic there must not take the server down either.
    let mut doomed = server.connect();
    new_agent(&mut doomed, json!({"bot": "misbehave", "options": {"panic_on": "drop"}}));
    drop(doomed);
    still_fine(&mut conn);
    server.connect().assert_alive();
}

#[test]
fn ambiguous_bare_bot_names_must_be_qualified() {
    let dir = temp_dir();
    let twin = install_library(&library("fixture_twin"), dir.path(), "libfixture_twin.so", b"");
    let mut server = Server::stdio_with_dir(dir.path());
    let conn = server.conn();
    assert_eq!(
        conn.ok("agent.new", json!({"bot": "rps"}))["bot"],
        json!("example/rps"),
        "unique so far"
    );
    conn.ok("plugin.load", json!({"path": twin}));
    // Two plugins now have a bot called `rps`.
    assert_eq!(conn.err("agent.new", json!({"bot": "rps"})), "ambiguous_bot");
    assert_eq!(conn.err("agent.new", json!({"bot": "rps", "game": "rps"})), "ambiguous_bot");
    assert_eq!(conn.err("agent.swap", json!({"agent": "a1", "bot": "rps"})), "ambiguous_bot");
    let reply = conn.request("agent.new", json!({"bot": "rps"}));
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("example/rps") && message.contains("twin/rps"), "{message}");
    let ours = conn.ok("agent.new", json!({"bot": "example/rps"}));
    assert_eq!(ours["bot"], json!("example/rps"));
    let other = conn.ok("agent.new", json!({"bot": "twin/rps"}));
    assert_eq!(other["bot"], json!("twin/rps"));
    assert_eq!(
        conn.ok("agent.act", with_agent(other["agent"].as_str().unwrap(), rps_turn("rock", false)))
            ["action"],
        json!("rock")
    );
}

#[test]
fn files_that_are_not_plugins_are_refused_clearly() {
    let dir = temp_dir();
    std::fs::write(dir.path().join("notes.txt"), "not a library\n").unwrap();
    std::fs::write(dir.path().join("libyomi_fake.so"), "also not a library\n").unwrap();
    for fixture in ["fixture_old_abi", "fixture_short_table", "fixture_abort"] {
        install_library(&library(fixture), dir.path(), &format!("lib{fixture}.so"), b"");
    }
    let mut server = Server::stdio(&["--plugins", dir.path().to_str().unwrap()]);
    // Discovery skipped the broken `libyomi_fake.so` with a warning and went on.
    let conn = server.conn();
    assert_eq!(conn.ok("plugin.list", json!({})), json!([]));

    let load_error = |conn: &mut Conn, path: &str| -> String {
        let reply = conn.request("plugin.load", json!({"path": path}));
        assert_eq!(reply["error"]["code"], json!("plugin_load"), "{path}: {reply}");
        reply["error"]["message"].as_str().unwrap().to_string()
    };
    let text = load_error(conn, "notes.txt");
    assert!(text.contains("not a loadable library"), "{text}");
    let fake = load_error(conn, "libyomi_fake.so");
    assert!(fake.contains("not a loadable library"), "{fake}");
    let old = load_error(conn, "libfixture_old_abi.so");
    assert!(old.contains("ABI 1,") && old.contains("rebuild"), "{old}");
    let short = load_error(conn, "libfixture_short_table.so");
    assert!(short.contains("12 bytes") && short.contains("rebuild"), "{short}");
    let abort = load_error(conn, "libfixture_abort.so");
    assert!(abort.contains("panic = \"abort\"") && abort.contains("unwind"), "{abort}");
    assert_eq!(conn.err("plugin.load", json!({"path": "missing.so"})), "not_found");
    conn.assert_alive();
    assert_eq!(conn.ok("plugin.list", json!({})), json!([]), "nothing half-loaded");
    drop(server);

    // The log said why the fake library was skipped at startup.
    let mut server = Server::stdio(&["--plugins", dir.path().to_str().unwrap()]);
    server.conn().assert_alive();
    server.wait_log(&["libyomi_fake.so"]);
}

/// At startup, two different files claiming one plugin name: the first wins, the second is skipped
/// with a clear warning (a newer build is loaded on purpose, with `plugin.load`).
#[test]
fn duplicate_plugin_names_at_startup_are_skipped() {
    let dir = temp_dir();
    install_library(
        &library("yomi_example"),
        dir.path(),
        "libyomi_example_copy.so",
        b"another build",
    );
    let mut server = Server::stdio_with_dir(dir.path());
    let plugins = server.conn().ok("plugin.list", json!({}));
    let examples: Vec<&serde_json::Value> =
        plugins.as_array().unwrap().iter().filter(|p| p["name"] == json!("example")).collect();
    assert_eq!(examples.len(), 1, "{plugins}");
    assert!(
        !examples[0]["path"].as_str().unwrap().contains("copy"),
        "the build directory comes first: {plugins}"
    );
    server.wait_log(&["duplicate plugin name `example`", "libyomi_example_copy.so"]);
    // The same file loaded on request is a new generation instead.
    let loaded = server.conn().ok("plugin.load", json!({"path": "libyomi_example_copy.so"}));
    assert_eq!(loaded["generation"], json!(2));
}

#[test]
fn a_library_without_the_entry_symbol_is_refused() {
    // A real shared library without the entry point: the old-ABI fixture with its exported
    // symbol renamed in the file.
    let dir = temp_dir();
    let mut bytes = std::fs::read(library("fixture_old_abi")).unwrap();
    let symbol = b"yomi_plugin_entry";
    let mut renamed = 0;
    let mut i = 0;
    while i + symbol.len() <= bytes.len() {
        if &bytes[i..i + symbol.len()] == symbol {
            bytes[i..i + symbol.len()].copy_from_slice(b"yomi_plugin_entrX");
            renamed += 1;
        }
        i += 1;
    }
    assert!(renamed > 0, "the fixture exports yomi_plugin_entry");
    std::fs::write(dir.path().join("libnosymbol.so"), bytes).unwrap();
    let mut server = Server::stdio(&["--plugins", dir.path().to_str().unwrap()]);
    let reply = server.conn().request("plugin.load", json!({"path": "libnosymbol.so"}));
    assert_eq!(reply["error"]["code"], json!("plugin_load"), "{reply}");
    assert!(
        reply["error"]["message"].as_str().unwrap().contains("no `yomi_plugin_entry` symbol"),
        "{reply}"
    );
    server.conn().assert_alive();
}

#[test]
fn plugin_load_stays_inside_the_plugin_directories() {
    let inside = temp_dir();
    let outside = temp_dir();
    let stray = install_misbehave(outside.path());
    let mut server = Server::stdio_with_dir(inside.path());
    let conn = server.conn();
    assert_eq!(conn.err("plugin.load", json!({"path": stray})), "forbidden");
    assert_eq!(conn.err("plugin.load", json!({"path": "/etc/hostname"})), "forbidden");
    // `..` cannot climb out either, nor can a symlink inside that points outside.
    let climb = format!(
        "{}/../{}/libfixture_misbehave.so",
        inside.path().display(),
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    assert_eq!(conn.err("plugin.load", json!({"path": climb})), "forbidden");
    std::os::unix::fs::symlink(&stray, inside.path().join("liblink.so")).unwrap();
    assert_eq!(conn.err("plugin.load", json!({"path": "liblink.so"})), "forbidden");
    let names: Vec<serde_json::Value> = conn
        .ok("plugin.list", json!({}))
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].clone())
        .collect();
    assert!(names.contains(&json!("example")) && !names.contains(&json!("misbehave")), "{names:?}");
}

/// A one-shot `yomi <plugin> ...` command opens only that plugin's library when it has the
/// conventional file name, so a broken neighbour costs it nothing (not even a warning); under
/// another file name the plugin is still found by discovering everything.
#[test]
fn a_plugin_command_opens_only_its_own_library() {
    let dir = temp_dir();
    let plugins = dir.path().to_str().unwrap();
    std::fs::write(dir.path().join("libyomi_broken.so"), "not a library\n").unwrap();
    install_library(&library("yomi_example"), dir.path(), "libyomi_example.so", b"");
    install_library(&library("yomi_dice"), dir.path(), "libyomi_other_name.so", b"");
    let stderr = |out: &std::process::Output| String::from_utf8_lossy(&out.stderr).into_owned();

    let own = run_yomi(&["-v", "--plugins", plugins, "example", "--help"]);
    assert!(own.status.success(), "{}", stderr(&own));
    assert!(String::from_utf8_lossy(&own.stdout).contains("yomi example"));
    assert!(!stderr(&own).contains("libyomi_broken.so"), "{}", stderr(&own));

    let renamed = run_yomi(&["-v", "--plugins", plugins, "dice", "--help"]);
    assert!(renamed.status.success(), "{}", stderr(&renamed));
    assert!(String::from_utf8_lossy(&renamed.stdout).contains("yomi dice"));
    assert!(stderr(&renamed).contains("libyomi_broken.so"), "full discovery: {}", stderr(&renamed));
}
