//! Engines (PROTOCOL.md, "Engines"): bots in any language that the real binary runs as child
//! processes named by the operator. The README's engine tour runs as written; every broken engine
//! fixture is caught by `yomi check`; engines take seats over the protocol and in tournament
//! shards; a crash costs the seat, not the server; and no client can make the server run a command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use yomi_e2e::{error_code, json_out, target_dir, temp_dir, yomi_bin, Server, FLAWS};

/// The repository's root: the README, the Python kit, the fixtures.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the repository").into()
}

/// Where the Python kit is, for the engines' `import yomi_client`.
fn python_path() -> String {
    root().join("clients/python/src").to_string_lossy().into_owned()
}

/// `NAME=COMMAND` for a Python script of the repository, the kit on its path.
fn python_engine(name: &str, script: &str, args: &str) -> String {
    let script = root().join(script);
    format!("{name}=env PYTHONPATH={} python3 {} {args}", python_path(), script.display())
}

/// The rock-paper-scissors example engine, as an `--engine` flag.
fn rps_engine(name: &str) -> String {
    python_engine(name, "clients/python/examples/rps_engine.py", "")
}

/// A broken engine fixture (`tests/engines/broken.py FLAW`), as an `--engine` flag.
fn broken_engine(name: &str, flaw: &str) -> String {
    python_engine(name, "tests/engines/broken.py", flaw)
}

/// `yomi ARGS...` with the build's plugins, the Python kit on the path and its own data directory.
fn yomi(data: &Path, args: &[&str]) -> Output {
    Command::new(yomi_bin())
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .current_dir(root())
        .env("PYTHONPATH", python_path())
        .env("YOMI_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .expect("run yomi")
}

/// The words of one README command line: `"..."` keeps spaces, `$Y` is the binary.
fn words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// The README's engine tour: its `$Y ...` commands, continuation lines joined.
fn readme_tour() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme.find("<!-- engine tour").expect("the README has an engine tour");
    let end = readme[start..].find("<!-- end of engine tour -->").expect("the tour ends") + start;
    let text = readme[start..end].replace("\\\n", " ");
    text.lines()
        .filter(|l| l.starts_with("$Y "))
        .map(|l| {
            let command = l.split(" # ").next().unwrap();
            words(command).into_iter().skip(1).collect()
        })
        .collect()
}

#[test]
fn the_readme_tour_enters_python_engines_into_tournaments_beside_yomis_bots() {
    let tour = readme_tour();
    assert!(tour.len() >= 3, "{tour:?}");
    let data = temp_dir();
    let mut tournaments = 0;
    for command in &tour {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let out = yomi(data.path(), &args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if args.contains(&"tournament") {
            tournaments += 1;
            let engine = args.iter().find(|a| a.starts_with("engine/")).unwrap();
            let row = stdout.lines().find(|l| l.contains(engine)).unwrap_or_else(|| {
                panic!("no standings row for {engine}: {stdout}");
            });
            assert!(row.trim_end().ends_with('-'), "the engine never failed: {row}");
            let beside = ["battle/delta-nash", "example/rps"];
            assert!(beside.iter().any(|b| stdout.contains(b)), "beside yomi's bots: {stdout}");
        }
    }
    assert_eq!(tournaments, 2, "an rps and a battle tournament");
}

/// The checks a report failed, by name.
fn failed_checks(report: &Value) -> Vec<String> {
    let checks = report["checks"].as_array().expect("checks");
    checks
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["check"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn yomi_check_passes_the_example_engine_and_catches_each_broken_one() {
    let data = temp_dir();
    let good = rps_engine("rps-py");
    let out = yomi(data.path(), &["--engine", &good, "check", "engine/rps-py", "--json"]);
    let report = json_out(&out);
    assert!(out.status.success(), "{report:#}");
    let checks: Vec<&str> = report["bots"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks[0], "handshake", "an engine's report starts with its handshake: {checks:?}");
    assert_eq!(checks.len(), 8, "then every check a plugin's bot gets: {checks:?}");
    let handshake: (&str, &str, &[&str]) = ("version", "handshake", &["--games", "1"]);
    for (flaw, check, extra) in [handshake].into_iter().chain(FLAWS) {
        let engine = broken_engine(flaw, flaw);
        let bot = format!("engine/{flaw}");
        let args =
            [&["--engine", engine.as_str(), "check", bot.as_str(), "--json"][..], extra].concat();
        let out = yomi(data.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{flaw}: {}", String::from_utf8_lossy(&out.stderr));
        let report = &json_out(&out)["bots"][0];
        assert_eq!(failed_checks(report), [check], "{flaw} fails only `{check}`: {report:#}");
        let line =
            report["checks"].as_array().unwrap().iter().find(|c| c["check"] == check).unwrap();
        assert!(line["detail"].as_str().unwrap().len() > 20, "a reason to act on: {line}");
    }
    // The text report says the same for people; `--engine` alone names what to check.
    let engine = broken_engine("v", "version");
    let out = yomi(data.path(), &["check", "--engine", &engine]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL  handshake") && text.contains("this yomi speaks version 1"),
        "{text}"
    );
}

#[test]
fn the_javascript_kit_serves_a_conforming_engine() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `node` on PATH (scripts/test-web.sh installs the JS toolchain)");
        return;
    }
    let data = temp_dir();
    let script = root().join("clients/js/examples/rps_engine.mjs");
    let engine = format!("rps-js=node {}", script.display());
    let out = yomi(data.path(), &["--engine", &engine, "check", "engine/rps-js", "--json"]);
    let report = json_out(&out);
    assert!(out.status.success(), "{report:#}");
    assert_eq!(report["bots"][0]["checks"][0]["check"], "handshake", "{report:#}");
}

#[test]
fn engines_take_seats_over_the_protocol_and_their_stderr_is_logged_under_their_name() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    let engine = rps_engine("rps-py");
    let mut server = Server::stdio(&["--data-dir", dir, "--engine", &engine]);
    let conn = server.conn();
    let catalog = conn.ok("catalog", json!({}));
    let entry = catalog["bots"].as_array().unwrap().iter().find(|b| b["id"] == "engine/rps-py");
    let entry = entry.unwrap_or_else(|| {
        let ids: Vec<&Value> =
            catalog["bots"].as_array().unwrap().iter().map(|b| &b["id"]).collect();
        panic!("no engine/rps-py in {ids:?}")
    });
    assert_eq!(entry["games"], json!(["rps"]));
    assert_eq!(entry["engine"]["name"], "frequency", "the name the engine gave itself");
    assert!(!entry.to_string().contains("python3"), "the command stays the operator's: {entry}");

    let agent =
        conn.ok("agent.new", json!({"bot": "engine/rps-py", "preset": "predictable", "seed": 3}));
    assert_eq!(
        (&agent["plugin"], &agent["options"]["randomness"]),
        (&json!("engine"), &json!(0.0))
    );
    let id = agent["agent"].as_str().unwrap().to_string();
    let seen = json!({"seat": 0, "history": [["paper", "rock"], ["paper", "rock"]]});
    let act = json!({"agent": id, "observation": seen, "legal": ["rock", "paper", "scissors"]});
    assert_eq!(conn.ok("agent.act", act.clone())["action"], "paper", "it counters rock");
    // A bad observation is a clear error from the engine, which serves on; its traceback is in
    // the server's log under the engine's name.
    let bad = conn.request("agent.act", json!({"agent": id, "observation": 7, "legal": ["rock"]}));
    assert_eq!(error_code(&bad).as_deref(), Some("bot_error"), "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().contains("TypeError"), "{bad}");
    assert_eq!(conn.ok("agent.act", act)["action"], "paper");
    // A seeded position would start an engine process of its own: refused, that position alone.
    let position = json!({"observation": seen, "legal": ["rock", "paper", "scissors"]});
    let mut seeded = position.clone();
    seeded["seed"] = json!(1);
    let batch = conn.ok("agent.act", json!({"agent": id, "positions": [position, seeded]}));
    assert_eq!(batch["decisions"][0]["action"], "paper", "{batch}");
    assert_eq!(batch["decisions"][1]["error"]["code"], "invalid_params", "{batch}");
    server.wait_log(&["Traceback (most recent call last): engine=rps-py"]);

    let conn = server.conn();
    let result = conn.ok(
        "match.run",
        json!({"game": "rps", "games": 4, "seed": 5, "policy": {"deadline_ms": 5000},
               "seats": [{"bot": "engine/rps-py"}, {"bot": "example/rps", "preset": "reader"}]}),
    );
    assert_eq!(result["games"], 4, "{result}");
    let failures = result["failures"].to_string();
    assert!(!failures.contains(":1") && !failures.contains(":2"), "no failures: {result}");
    let refused = conn.request("agent.new", json!({"bot": "engine/rps-py", "game": "battle"}));
    assert_eq!(error_code(&refused).as_deref(), Some("unknown_bot"), "{refused}");
}

#[test]
fn a_crashing_engine_costs_its_call_and_is_started_again() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    let engine = broken_engine("fragile", "fragile");
    let mut server = Server::stdio(&["--data-dir", dir, "--engine", &engine]);
    let conn = server.conn();
    let id = conn.ok("agent.new", json!({"bot": "engine/fragile", "seed": 1}))["agent"].clone();
    let crash =
        conn.request("agent.act", json!({"agent": id, "observation": null, "legal": ["rock"]}));
    assert_eq!(error_code(&crash).as_deref(), Some("crashed"), "{crash}");
    let seen = json!({"seat": 0, "history": []});
    let again = conn.ok("agent.act", json!({"agent": id, "observation": seen, "legal": ["rock"]}));
    assert_eq!(again["action"], "rock", "a fresh engine process answers");
    conn.assert_alive();
}

#[test]
fn engines_keep_the_deadline_and_the_cap_on_processes() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    let (slow, rps) = (broken_engine("slow", "slow"), rps_engine("rps-py"));
    let args = ["--data-dir", dir, "--engine", &slow, "--engine", &rps, "--max-workers", "2"];
    let mut server = Server::stdio(&args);
    let conn = server.conn();
    // A 20 ms engine under a 5 ms deadline: killed at each decision, counted, restarted.
    let result = conn.ok(
        "match.run",
        json!({"game": "rps", "games": 2, "seed": 1, "game_options": {"rounds": 1},
               "policy": {"deadline_ms": 5, "on_timeout": "forfeit"},
               "seats": [{"bot": "engine/slow"}, {"bot": "example/rps"}]}),
    );
    assert_eq!(result["failures"][0]["timeout"], 2, "{result}");
    assert_eq!(result["scores"], json!([0.0, 2.0]), "{result}");
    // Each engine agent holds one of the two places while it lives.
    let first = conn.ok("agent.new", json!({"bot": "engine/rps-py"}))["agent"].clone();
    conn.ok("agent.new", json!({"bot": "engine/rps-py"}));
    let full = conn.request("agent.new", json!({"bot": "engine/rps-py"}));
    assert_eq!(error_code(&full).as_deref(), Some("limit_exceeded"), "{full}");
    assert!(full["error"]["message"].as_str().unwrap().contains("--max-workers 2"), "{full}");
    conn.ok("agent.new", json!({"bot": "example/rps"}));
    conn.ok("agent.drop", json!({"agent": first}));
    conn.ok("agent.new", json!({"bot": "engine/rps-py"}));
}

#[test]
fn no_client_can_make_the_server_run_a_command() {
    let data = temp_dir();
    let marker = data.path().join("ran");
    let script = data.path().join("engine.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let dir = data.path().to_str().unwrap();
    let command = script.to_str().unwrap();
    let build = target_dir();
    let build = build.to_str().unwrap();
    let server = Server::tcp(&["--data-dir", dir, "--plugins", build, "--plugins", dir]);
    let mut conn = server.connect();
    for (op, params) in [
        ("agent.new", json!({"bot": format!("engine/{command}")})),
        ("agent.new", json!({"bot": "engine/x", "command": command})),
        ("agent.new", json!({"bot": command})),
        (
            "match.run",
            json!({"game": "rps", "seats": [{"bot": "engine/x", "command": command}, {"bot": "rps"}]}),
        ),
        ("plugin.load", json!({"path": command})),
        ("engine.add", json!({"name": "x", "command": command})),
    ] {
        let reply = conn.request(op, params.clone());
        assert!(error_code(&reply).is_some(), "`{op}` {params} must fail: {reply}");
    }
    // An engines file that appears while the server runs is not read: engines are the
    // operator's, at start.
    std::fs::write(
        data.path().join("engines.toml"),
        format!("[[engine]]\nname = \"x\"\ncommand = \"{command}\"\n"),
    )
    .unwrap();
    let reply = conn.request("agent.new", json!({"bot": "engine/x"}));
    assert_eq!(error_code(&reply).as_deref(), Some("unknown_bot"), "{reply}");
    conn.assert_alive();
    assert!(!marker.exists(), "a client made the server run {command}");
}

#[test]
fn the_engines_file_travels_with_the_data_directory_into_tournament_shards() {
    let base = temp_dir();
    let file = format!(
        "[[engine]]\nname = \"rps-py\"\ncommand = \"python3\"\nargs = [\"rps_engine.py\"]\n\
         working_dir = \"{}\"\nenv = {{ PYTHONPATH = \"{}\" }}\n",
        root().join("clients/python/examples").display(),
        python_path()
    );
    let dirs: Vec<PathBuf> = ["whole", "shard0", "shard1", "merged"]
        .iter()
        .map(|d| {
            let dir = base.path().join(d);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("engines.toml"), &file).unwrap();
            dir
        })
        .collect();
    let tournament = "tournament --game rps --games-per-pair 4 --seed 3 --id cup --json \
                      --bot engine/rps-py --bot rps --bot rps:preset=reader";
    let tournament: Vec<&str> = tournament.split_whitespace().collect();
    // Without PYTHONPATH of its own: the file's environment is what finds the kit.
    let run = |dir: &Path, extra: &[&str]| {
        let out = Command::new(yomi_bin())
            .arg("--data-dir")
            .arg(dir)
            .args(&tournament)
            .args(extra)
            .env_remove("PYTHONPATH")
            .env("YOMI_LOG", "error")
            .stdin(Stdio::null())
            .output()
            .expect("run yomi");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        json_out(&out)
    };
    let whole = run(&dirs[0], &[]);
    run(&dirs[1], &["--shard", "0/2"]);
    run(&dirs[2], &["--shard", "1/2"]);
    let merged = Command::new(yomi_bin())
        .arg("--data-dir")
        .arg(&dirs[3])
        .args(["tournament", "merge", "--json"])
        .args([&dirs[1], &dirs[2]])
        .env("YOMI_LOG", "error")
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert_eq!(json_out(&merged), whole, "the shards' standings are the one process's");
    assert!(whole.to_string().contains("engine/rps-py"), "{whole}");
}
