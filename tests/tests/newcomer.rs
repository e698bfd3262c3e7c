//! What a tournament's manager meets at the command line: the resume hint pastes as printed
//! (with the same `--plugins` and `--data-dir`), a tournament whose process was killed lists as
//! "interrupted", a finished tournament's standings can be shown again (text and JSON), and the
//! standings name presets and changed options, keep their columns in line and show timeouts.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_bin, yomi_in as yomi};

fn list(data: &Path) -> Value {
    json_out(&run_ok(yomi(data).args(["tournament", "--list", "--json"])))
}

/// A tournament slow enough to be caught running (one bot sleeps on each decision).
fn start_slow_tournament(data: &Path) -> Child {
    let args = "tournament --game rps --games-per-pair 100 --seed 5 --bot example/rps --bot misbehave:on_act=slow";
    yomi(data).args(args.split(' ')).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
}

/// The command between backticks after `resume with ` on the tournament's first stderr line.
fn resume_hint(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let hint = line.split("resume with `").nth(1).and_then(|rest| rest.split('`').next());
    hint.unwrap_or_else(|| panic!("no resume hint in {line:?}")).to_string()
}

/// Runs a command line as printed (its words split on spaces: the test's paths have none).
fn paste(command: &str) -> std::process::Output {
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(words[0], "yomi", "{command}");
    Command::new(yomi_bin()).args(&words[1..]).env("YOMI_LOG", "error").output().unwrap()
}

#[test]
fn a_killed_tournament_lists_as_interrupted_and_its_pasted_resume_hint_finishes_it() {
    let tmp = temp_dir();
    let data = tmp.path();
    let mut child = start_slow_tournament(data);
    let hint = resume_hint(&mut child);
    let data_dir = data.display().to_string();
    assert!(hint.contains(&format!("--data-dir {data_dir}")), "{hint}");
    assert!(hint.contains("--plugins"), "the same plugins, so the bots resolve: {hint}");
    let start = Instant::now();
    let running = loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = list(data);
        if now[0]["games"].as_u64().unwrap_or(0) >= 2 {
            break now;
        }
        assert!(start.elapsed() < Duration::from_secs(300), "no progress: {now}");
    };
    assert_eq!(running[0]["status"], json!("running"), "its process is alive: {running}");
    child.kill().unwrap(); // SIGKILL: nothing runs on the way out
    child.wait().unwrap();
    let after = list(data);
    assert_eq!(after[0]["status"], json!("interrupted"), "{after}");
    let text = run_ok(yomi(data).args(["tournament", "--list"]));
    assert!(String::from_utf8_lossy(&text.stdout).contains("interrupted"));
    // The standings so far can be shown while it is interrupted.
    let id = after[0]["id"].as_str().unwrap();
    let partial = json_out(&run_ok(yomi(data).args(["tournament", "--show", id, "--json"])));
    assert_eq!(partial["status"], json!("interrupted"));
    assert!(partial["games"].as_u64().unwrap() >= 2, "{partial}");

    // Pasted as printed, from another directory and without YOMI_DATA_DIR, it finishes the run.
    let resumed = paste(&format!("{hint} --json"));
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let summary: Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(
        (summary["status"].clone(), summary["games"].clone()),
        (json!("finished"), json!(100))
    );
    assert_eq!(list(data)[0]["status"], json!("finished"));

    // Resuming it again says where its standings are; that command shows them, text and JSON.
    let again = paste(&hint);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success() && stderr.contains("already finished"), "{stderr}");
    let show = stderr.split("its standings: `").nth(1).and_then(|rest| rest.split('`').next());
    let show = show.unwrap_or_else(|| panic!("no command in {stderr}"));
    assert!(show.contains(&format!("--data-dir {data_dir} tournament --show {id}")), "{show}");
    let shown: Value = serde_json::from_slice(&paste(&format!("{show} --json")).stdout).unwrap();
    assert_eq!(shown, summary, "the standings shown again are the ones the run printed");
    let table = String::from_utf8_lossy(&paste(show).stdout).to_string();
    assert!(table.starts_with("rank  bot"), "{table}");
    assert!(table.contains("example/rps") && table.contains(":on_act=slow"), "{table}");
}

#[test]
fn an_id_not_in_the_records_says_where_they_were_looked_for() {
    let tmp = temp_dir();
    let out = yomi(tmp.path()).args(["tournament", "--resume", "t-nowhere"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    let file = tmp.path().join("records.sqlite3");
    assert!(
        stderr.contains(&format!("no tournament `t-nowhere` in the records at {}", file.display())),
        "{stderr}"
    );
    let out = yomi(tmp.path()).args(["tournament", "--show", "t-nowhere"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tournament `t-nowhere`"));
}

#[test]
fn standings_name_presets_and_options_keep_columns_and_show_timeouts() {
    let tmp = temp_dir();
    let args = [
        "tournament",
        "--game",
        "rps",
        "--games-per-pair",
        "4",
        "--seed",
        "3",
        "--bot",
        "example/rps:preset=reader",
        "--bot",
        "example/rps:reading=2,bias=0.25",
        "--bot",
        "misbehave:on_act=slow",
        "--deadline-ms",
        "20",
        "--on-timeout",
        "default",
    ];
    let json = json_out(&run_ok(yomi(tmp.path()).args(args).arg("--json")));
    let labels: Vec<&str> =
        json["standings"].as_array().unwrap().iter().map(|r| r["bot"].as_str().unwrap()).collect();
    for wanted in [
        "example/rps:preset=reader",
        "example/rps:bias=0.25,reading=2",
        "misbehave/misbehave:on_act=slow",
    ] {
        assert!(labels.contains(&wanted), "{wanted} among {labels:?}");
    }
    let slow = json["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["bot"].as_str().unwrap().starts_with("misbehave"));
    let timeouts = slow.unwrap()["failures"]["timeout"].as_u64().unwrap();
    assert!(timeouts > 0, "{json}");

    let id = json["id"].as_str().unwrap();
    let table = String::from_utf8_lossy(
        &run_ok(yomi(tmp.path()).args(["tournament", "--show", id])).stdout,
    )
    .to_string();
    let lines: Vec<&str> = table.lines().take(4).collect();
    // Each row's games column ends where the header's does, however long the bot's label.
    let header_end = lines[0].find("games").unwrap() + "games".len();
    for row in &lines[1..] {
        assert_eq!(row[..header_end].trim_end().len(), header_end, "{table}");
        assert_eq!(&row[header_end..header_end + 1], " ", "{table}");
    }
    let slow_row = lines.iter().find(|l| l.contains("misbehave")).unwrap();
    assert!(slow_row.ends_with(&format!("{timeouts} timeout")), "{table}");
}

#[test]
fn bots_lists_the_values_of_choice_options() {
    let tmp = temp_dir();
    let out = String::from_utf8_lossy(&run_ok(yomi(tmp.path()).arg("bots")).stdout).to_string();
    let noise = out
        .lines()
        .find(|l| l.trim_start().starts_with("--noise"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(noise.contains("one of: "), "{noise}");
    assert!(noise.contains("uniform-variable"), "{noise}");
}

#[test]
fn repro_of_a_plugin_without_one_names_the_plugins_that_have_one() {
    let tmp = temp_dir();
    let out = yomi(tmp.path()).args(["repro", "example"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("plugin `example` has no reproduction"), "{stderr}");
    for plugin in ["battle", "dice", "roles", "sevens", "stud"] {
        assert!(stderr.contains(plugin), "{plugin} in {stderr}");
    }
    assert!(!stderr.contains("unrecognized subcommand"), "{stderr}");
}

#[test]
fn a_busy_port_names_its_address() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let tmp = temp_dir();
    let out =
        yomi(tmp.path()).args(["serve", "--tcp", &addr]).stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(&format!("cannot listen on {addr}")), "{stderr}");
}
