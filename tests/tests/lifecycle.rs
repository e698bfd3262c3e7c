//! The process from outside: graceful shutdown on stdin EOF and SIGTERM, `yomi bots --json` for
//! scripts, `--help` on every command, plugin subcommands.

use std::time::Duration;

use serde_json::{json, Value};
use yomi_e2e::{run_yomi, Server};

const EXIT_WAIT: Duration = Duration::from_secs(10);

#[test]
fn stdin_eof_ends_the_server_after_answering_everything() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    conn.ok("agent.new", json!({"bot": "rps"}));
    // Pipelined requests followed at once by EOF: every reply still goes out.
    for n in 0..25 {
        conn.send(&json!({"id": n, "op": "agent.act", "agent": "a1", "observation": {}, "legal": ["rock", "paper", "scissors"]}));
    }
    server.close_stdin();
    let conn = server.conn();
    for n in 0..25 {
        assert_eq!(conn.reply()["id"], json!(n));
    }
    assert!(conn.is_closed_within(EXIT_WAIT), "stdout closes at exit");
    let status = server.wait_exit(EXIT_WAIT);
    assert!(status.success(), "exit status {status}");
}

#[test]
fn sigterm_stops_a_tcp_server_cleanly() {
    let mut server = Server::tcp(&[]);
    let mut idle = server.connect();
    let mut busy = server.connect();
    busy.ok("agent.new", json!({"bot": "rps"}));
    idle.assert_alive();
    server.terminate();
    let status = server.wait_exit(EXIT_WAIT);
    assert!(status.success(), "exit status {status}; log:\n{}", server.log());
    assert!(idle.is_closed_within(EXIT_WAIT), "open connections are closed");
    assert!(busy.is_closed_within(EXIT_WAIT));
    server.wait_log(&["shutting down"]);
}

#[test]
fn sigterm_and_ctrl_c_stop_a_stdio_server_too() {
    for signal in ["TERM", "INT"] {
        let mut server = Server::stdio(&[]);
        server.conn().assert_alive();
        server.signal(signal);
        assert!(server.wait_exit(EXIT_WAIT).success(), "SIG{signal}");
        assert!(server.conn().is_closed_within(EXIT_WAIT));
    }
}

/// Both transports in one process: they serve side by side, and the end of stdin (the parent that
/// started yomi is gone) stops everything.
#[test]
fn stdio_and_tcp_in_one_process() {
    let mut server = Server::stdio_and_tcp();
    let mut tcp = server.connect();
    tcp.ok("agent.new", json!({"bot": "rps"}));
    server.conn().ok("agent.new", json!({"bot": "rps"}));
    assert_eq!(tcp.ok("agent.list", json!({})).as_array().unwrap().len(), 1, "separate sessions");
    server.conn().assert_alive();
    server.close_stdin();
    assert!(server.wait_exit(EXIT_WAIT).success());
    assert!(tcp.is_closed_within(EXIT_WAIT));
}

#[test]
fn bots_json_is_the_catalog_for_scripts() {
    let out = run_yomi(&["bots", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let catalog: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    let games = catalog["games"].as_array().expect("games");
    let rps_game = games.iter().find(|g| g["name"] == json!("rps")).expect("the rps game");
    assert_eq!(rps_game["plugin"], json!("example"));
    assert_eq!(
        (rps_game["min_seats"].clone(), rps_game["max_seats"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(rps_game["simultaneous"], json!(true));
    assert!(rps_game["options"].as_array().is_some());

    let bots = catalog["bots"].as_array().expect("bots");
    let rps = bots.iter().find(|b| b["id"] == json!("example/rps")).expect("example/rps");
    assert_eq!(rps["name"], json!("rps"));
    assert_eq!(rps["plugin"], json!("example"));
    assert_eq!(rps["games"], json!(["rps"]));
    for key in ["description", "options", "presets", "methods"] {
        assert!(rps.get(key).is_some(), "bot entries have `{key}`: {rps}");
    }
    for option in rps["options"].as_array().unwrap() {
        for key in ["name", "type", "default", "description"] {
            assert!(option.get(key).is_some(), "options have `{key}`: {option}");
        }
    }
    let reading =
        rps["options"].as_array().unwrap().iter().find(|o| o["name"] == json!("reading")).unwrap();
    assert_eq!(
        reading,
        &json!({"name": "reading", "type": "int", "min": 0, "max": 2, "default": 0,
        "description": reading["description"]})
    );
    let favourite = rps["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == json!("favourite"))
        .unwrap();
    assert_eq!(favourite["type"], json!("choice"));
    assert_eq!(favourite["choices"], json!(["rock", "paper", "scissors"]));
    let reader =
        rps["presets"].as_array().unwrap().iter().find(|p| p["name"] == json!("reader")).unwrap();
    assert_eq!(reader["options"], json!({"reading": 1}));
    assert!(reader["description"].is_string());

    let plugins = catalog["plugins"].as_array().expect("plugins");
    assert!(plugins.iter().any(|p| p["name"] == json!("example") && p["generation"] == json!(1)));
    // The same catalog as the protocol's `catalog`.
    let mut server = Server::stdio(&[]);
    assert_eq!(server.conn().ok("catalog", json!({})), catalog);
}

#[test]
fn bots_without_json_is_for_people() {
    let out = run_yomi(&["bots"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("example/rps") && text.contains("reading") && text.contains("reader"),
        "{text}"
    );
    assert!(serde_json::from_str::<Value>(&text).is_err());
}

/// The subcommand names in the `Commands:` section of clap's help text.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|name| name != "help")
        .collect()
}

#[test]
fn every_command_has_help() {
    let top = run_yomi(&["--help"]);
    assert!(top.status.success());
    let help = String::from_utf8(top.stdout).unwrap();
    assert!(help.contains("Usage: yomi"), "{help}");
    let commands = subcommands(&help);
    for required in ["serve", "bots", "plugins", "repro"] {
        assert!(commands.iter().any(|c| c == required), "`yomi --help` lists {required}: {help}");
    }
    let mut stack: Vec<Vec<String>> = commands.into_iter().map(|c| vec![c]).collect();
    while let Some(path) = stack.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = run_yomi(&args);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "`yomi {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("Usage:"), "`yomi {}` prints usage: {text}", args.join(" "));
        // Nested subcommands (if a command has any) get the same check.
        stack.extend(subcommands(&text).into_iter().map(|c| [path.clone(), vec![c]].concat()));
    }
    let serve = String::from_utf8(run_yomi(&["serve", "--help"]).stdout).unwrap();
    for flag in ["--stdio", "--tcp", "--max-line-bytes", "--plugins"] {
        assert!(serve.contains(flag), "serve --help documents {flag}: {serve}");
    }
    assert!(run_yomi(&["--version"]).status.success());
}

#[test]
fn plugin_subcommands_and_unknown_commands() {
    let out = run_yomi(&["example", "beats", "rock"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "paper\n");
    let bad = run_yomi(&["example", "beats", "lizard"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stdout.is_empty(), "errors go to stderr only");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("lizard"));
    let help = run_yomi(&["example", "--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("beats"), "lists the plugin's commands");
    let unknown = run_yomi(&["no-such-plugin"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("example"),
        "lists the loaded plugins"
    );
    let plugins = run_yomi(&["plugins", "--json"]);
    let list: Value = serde_json::from_slice(&plugins.stdout).unwrap();
    assert!(list.as_array().unwrap().iter().any(|p| p["name"] == json!("example")));
}

/// `--help` is an answer, the same way in every plugin: on the plugin itself and on each command
/// its manifest lists, it exits 0 and prints clap's usage on stdout.
#[test]
fn every_plugin_command_has_help() {
    let plugins = run_yomi(&["plugins", "--json"]);
    let list: Value = serde_json::from_slice(&plugins.stdout).unwrap();
    let mut checked = 0;
    for plugin in list.as_array().unwrap() {
        let name = plugin["name"].as_str().unwrap();
        let help = run_yomi(&[name, "--help"]);
        assert!(help.status.success(), "yomi {name} --help: {help:?}");
        for command in plugin["commands"].as_array().unwrap() {
            let command = command["name"].as_str().unwrap();
            let out = run_yomi(&[name, command, "--help"]);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && text.contains("Usage:"),
                "yomi {name} {command} --help: {out:?}"
            );
            checked += 1;
            if command == "repro" {
                // `yomi repro <plugin> --help` is the same page, not the host's.
                let short = run_yomi(&["repro", name, "--help"]);
                assert_eq!(short.stdout, out.stdout, "yomi repro {name} --help: {short:?}");
            }
        }
    }
    assert!(checked >= 10, "every shipped plugin lists its commands: {list}");
    let host = run_yomi(&["repro", "--help"]);
    assert!(String::from_utf8_lossy(&host.stdout).contains("Usage: yomi repro"), "{host:?}");
}
