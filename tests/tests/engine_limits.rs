//! What an engine may cost the server (PROTOCOL.md, "Engines" and "Security"): its lines are
//! bounded as a client's are, its stderr reaches the log within a rate, it dies with everything it
//! started, a crash loop is spaced out across agents, a silent engine does not hold up serving,
//! and one that dies says why. The engines are small scripts written here; the operator names
//! them with `--engine`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{error_code, json_out, temp_dir, yomi_bin, Server};

/// A minimal engine in Python, without the kit: it declares an rps bot and plays rock; `MODE`
/// (its first argument) adds one misbehaviour.
const ENGINE: &str = r#"
import os, subprocess, sys
mode = sys.argv[1]
out = sys.stdout.buffer
def reply(result):
    out.write(b'{"ok":true,"result":' + result + b'}\n')
    out.flush()
if mode == "grandchild":
    # A program of its own, as a shell script running an interpreter would have.
    subprocess.Popen(["sh", "-c", "sleep 600; : " + sys.argv[2] + "-child"])
for line in sys.stdin.buffer:
    if line.startswith(b'{"hello"'):
        reply(b'{"protocol":"yomi-engine","version":1,"engine":{"name":"t","version":"1",'
              b'"description":"test","games":["rps"],"options":[],"presets":[],"methods":[]}}')
    elif line.startswith(b'{"open"'):
        reply(b'null')
    elif mode == "long-reply":
        chunk = b"x" * (1 << 20)
        for _ in range(int(sys.argv[2])):
            out.write(chunk)
        out.write(b"\n")
        out.flush()
    elif mode == "stderr-flood":
        err = sys.stderr.buffer
        err.write(b"y" * (1 << 20) + b"\n")
        for i in range(20000):
            err.write(b"flood %d " % i + b"z" * 1000 + b"\n")
        err.flush()
        reply(b'{"action":"rock"}')
    else:
        reply(b'{"action":"rock"}')
"#;

/// The handshake's answer of an engine declaring an rps bot, for the shell scripts' `HELLO`.
const HELLO: &str = r#"{"ok":true,"result":{"protocol":"yomi-engine","version":1,"engine":{"name":"t","version":"1","description":"test","games":["rps"],"options":[],"presets":[],"methods":[]}}}"#;

/// Writes the engine script and executable shell scripts (`HELLO` in them replaced) into `dir`.
fn write_scripts(dir: &Path, shell: &[(&str, &str)]) -> PathBuf {
    let engine = dir.join("engine.py");
    std::fs::write(&engine, ENGINE).unwrap();
    for (name, body) in shell {
        let path = dir.join(name);
        let body = body.replace("HELLO", HELLO);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    engine
}

/// `NAME=python3 ENGINE ARGS`.
fn engine_flag(name: &str, engine: &Path, args: &str) -> String {
    format!("{name}=python3 {} {args}", engine.display())
}

/// A serve over stdio with these engines (each `--engine` flag) and its own data directory.
fn serve(data: &Path, engines: &[String]) -> Server {
    let mut args = vec!["--data-dir".to_string(), data.to_str().unwrap().to_string()];
    for e in engines {
        args.extend(["--engine".to_string(), e.clone()]);
    }
    Server::stdio(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `yomi --data-dir DATA ARGS...`.
fn yomi(data: &Path, args: &[&str]) -> Output {
    Command::new(yomi_bin())
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("YOMI_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .expect("run yomi")
}

/// Processes whose command line holds `token` (Linux: read from `/proc`), but yomi's own, which
/// names its engines.
fn processes_with(token: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // A zombie has exited; its parent has yet to reap it.
            let zombie =
                stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            let cmdline = String::from_utf8_lossy(&cmdline);
            !zombie && cmdline.contains(token) && !cmdline.contains("--engine")
        })
        .count()
}

/// Waits until `done` holds, up to 20 s (processes end and logs arrive asynchronously); says
/// whether it did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// The most memory the process ever held, in MiB (Linux: `VmHWM`).
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

/// A unique word to find a test's processes by.
fn token(what: &str) -> String {
    format!("yomi-test-{what}-{}-{}", std::process::id(), rand_suffix())
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

#[test]
fn an_engine_line_longer_than_a_clients_is_refused_without_growing_the_server() {
    let data = temp_dir();
    let engine = write_scripts(
        data.path(),
        // 256 MiB without a newline at its handshake.
        &[("endless.sh", "head -c 268435456 /dev/zero | tr '\\0' x")],
    );
    let endless = format!("endless={}", data.path().join("endless.sh").display());
    let long = engine_flag("long", &engine, "long-reply 300");
    let mut server = serve(data.path(), &[endless.clone(), long]);
    let pid = server.pid();
    let conn = server.conn();
    let refused = conn.request("agent.new", json!({"bot": "engine/endless"}));
    assert_eq!(error_code(&refused).as_deref(), Some("unknown_bot"), "refused at start: {refused}");
    let id = conn.ok("agent.new", json!({"bot": "engine/long"}))["agent"].clone();
    // A 300 MiB reply line.
    let act = json!({"agent": id, "observation": {}, "legal": ["rock"]});
    let reply = conn.request("agent.act", act);
    assert_eq!(error_code(&reply).as_deref(), Some("bot_error"), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("wrote a line longer than 1048576 bytes"), "{message}");
    conn.assert_alive();
    let log = server.wait_log(&["engine `endless` handshake"]);
    assert!(log.contains("wrote a line longer than 1048576 bytes"), "{log}");
    let peak = peak_rss_mib(pid);
    assert!(peak < 128, "the server held {peak} MiB at its peak");
    // The operator may allow longer lines, per engine.
    let file = format!(
        "[[engine]]\nname = \"long\"\ncommand = \"python3\"\nargs = [\"{}\", \"long-reply\", \"2\"]\nmax_line_bytes = 4194304\n",
        engine.display()
    );
    std::fs::write(data.path().join("engines.toml"), file).unwrap();
    let mut server = serve(data.path(), &[]);
    let conn = server.conn();
    let id = conn.ok("agent.new", json!({"bot": "engine/long"}))["agent"].clone();
    let reply =
        conn.request("agent.act", json!({"agent": id, "observation": {}, "legal": ["rock"]}));
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("unreadable reply"), "a 2 MiB line is read, and is no reply: {reply}");
}

#[test]
fn an_engines_stderr_reaches_the_log_cut_and_rate_limited() {
    let data = temp_dir();
    let engine = write_scripts(data.path(), &[]);
    let mut server = serve(data.path(), &[engine_flag("flood", &engine, "stderr-flood")]);
    let conn = server.conn();
    let id = conn.ok("agent.new", json!({"bot": "engine/flood"}))["agent"].clone();
    // About 21 MB on stderr, then an answer.
    let act = json!({"agent": id, "observation": {}, "legal": ["rock"]});
    assert_eq!(conn.ok("agent.act", act)["action"], "rock");
    conn.ok("agent.drop", json!({"agent": id}));
    let log = server.wait_log(&["bytes of stderr dropped"]);
    assert!(log.contains("(1044480 bytes cut)"), "the long line is cut at 4096 bytes");
    let flood_lines = log.lines().filter(|l| l.contains("flood ")).count();
    assert!((1..=200).contains(&flood_lines), "{flood_lines} of 20000 lines logged");
    assert!(log.len() < 1 << 20, "the log took {} bytes", log.len());
}

#[test]
fn an_engine_that_dies_at_its_handshake_says_why() {
    let data = temp_dir();
    let missing = data.path().join("missing.py");
    let flag = format!("gone=python3 {}", missing.display());
    let out = yomi(data.path(), &["--engine", &flag, "check", "engine/gone", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json_out(&out);
    let detail = report["bots"][0]["checks"][0]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("process died (exit status: 2)"), "{report:#}");
    assert!(detail.contains("can't open file"), "Python's own words: {report:#}");
    // An engine that starts and then dies at `open` says it in the client's error too.
    let dies = "[ -e \"$0.ready\" ] && died=1\ntouch \"$0.ready\"\nread hello\necho 'HELLO'\n[ -n \"$died\" ] && { echo 'no model file at /models/d.bin' >&2; exit 3; }\nwhile read line; do echo '{\"ok\":true,\"result\":null}'; done";
    write_scripts(data.path(), &[("dies.sh", dies)]);
    let dies = format!("dies={}", data.path().join("dies.sh").display());
    let mut server = serve(data.path(), &[dies]);
    let reply = server.conn().request("agent.new", json!({"bot": "engine/dies"}));
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("exit status: 3"), "{reply}");
    assert!(message.contains("no model file at /models/d.bin"), "{reply}");
}

#[test]
fn nothing_an_engine_started_outlives_it() {
    let data = temp_dir();
    let engine = write_scripts(data.path(), &[]);
    let word = token("grandchild");
    let mut server =
        serve(data.path(), &[engine_flag("parent", &engine, &format!("grandchild {word}"))]);
    let conn = server.conn();
    let id = conn.ok("agent.new", json!({"bot": "engine/parent"}))["agent"].clone();
    let child = format!("{word}-child");
    assert!(eventually(|| processes_with(&child) == 1), "the engine started its program");
    conn.ok("agent.drop", json!({"agent": id}));
    assert!(eventually(|| processes_with(&child) == 0), "agent.drop left the engine's program");
    // Restarts and the deadline kill the same way; and the server's exit.
    let id = conn.ok("agent.new", json!({"bot": "engine/parent"}))["agent"].clone();
    conn.ok("agent.act", json!({"agent": id, "observation": {}, "legal": ["rock"]}));
    assert!(eventually(|| processes_with(&child) == 1));
    server.close_stdin();
    assert!(server.wait_exit(Duration::from_secs(20)).success());
    assert!(
        eventually(|| processes_with(&child) == 0),
        "the server's exit left the engine's program"
    );
}

#[test]
fn a_silent_engine_holds_up_neither_serving_nor_a_clean_exit_on_sigterm() {
    let data = temp_dir();
    let engine = write_scripts(data.path(), &[]);
    let word = token("silent");
    let silent = format!("silent=sh -c \"sleep 600; : {word}\"");
    let mut server = serve(data.path(), &[silent, engine_flag("ok", &engine, "plain")]);
    let conn = server.conn();
    // Serving starts once the patience is over, with every engine that answered by then seated:
    // the first catalog lists the quick engine, though it was named after the silent one.
    let catalog = conn.ok("catalog", json!({}));
    let listed: Vec<Value> =
        catalog["bots"].as_array().unwrap().iter().map(|b| b["id"].clone()).collect();
    assert!(listed.contains(&json!("engine/ok")), "{listed:?}");
    assert!(!listed.contains(&json!("engine/silent")), "{listed:?}");
    assert!(processes_with(&word) == 1, "the server serves while the silent engine still starts");
    server.wait_log(&["have not answered their handshakes yet"]);
    server.terminate();
    assert!(server.wait_exit(Duration::from_secs(20)).success());
    assert!(eventually(|| processes_with(&word) == 0), "the exit left the silent engine running");

    // A SIGTERM while a one-shot command waits for the handshake: a clean exit, nothing left.
    let word = token("pending");
    let silent = format!("silent=sh -c \"sleep 600; : {word}\"");
    let check = Command::new(yomi_bin())
        .args([
            "--data-dir",
            data.path().to_str().unwrap(),
            "--engine",
            &silent,
            "check",
            "engine/silent",
        ])
        .env("YOMI_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(eventually(|| processes_with(&word) == 1), "the handshake is pending");
    let kill = Command::new("kill").args(["-TERM", &check.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = check.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + 15), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("while engines answered their handshakes")
    );
    assert!(eventually(|| processes_with(&word) == 0), "the engine outlived the command");
}

#[test]
fn a_crash_loop_is_spaced_out_across_agents() {
    let data = temp_dir();
    let starts = data.path().join("starts");
    // It answers its handshake when the server starts, then dies at every start after, as an
    // engine whose model file went away.
    let flaky = format!(
        "[ -e \"$0.ok\" ] || {{ touch \"$0.ok\"; read l; echo 'HELLO'; exit 0; }}\necho started >> {}\nexit 2",
        starts.display()
    );
    write_scripts(data.path(), &[("flaky.sh", &flaky)]);
    let flaky = format!("flaky={}", data.path().join("flaky.sh").display());
    let mut server = serve(data.path(), &[flaky]);
    let conn = server.conn();
    let mut refused = 0;
    for _ in 0..30 {
        let reply = conn.request("agent.new", json!({"bot": "engine/flaky"}));
        assert_eq!(error_code(&reply).as_deref(), Some("crashed"), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        refused += message.contains("the next start is allowed in") as usize;
    }
    let started = std::fs::read_to_string(&starts).unwrap_or_default().lines().count();
    assert!(
        started < 15 && refused + started == 30,
        "{started} processes started for 30 agent.new"
    );
    conn.assert_alive();
}
