//! Every command that prints exits quietly when its stdout is closed, as Unix tools do
//! (`yomi roles sample ... | head -c 50` used to panic with "failed printing to stdout"), and
//! one-shot commands log warnings only unless `-v` or RUST_LOG asks for more.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use yomi_e2e::{temp_dir, yomi_in};

/// `yomi ARGS...` with its own data directory and no log settings from the caller's env.
fn yomi(data: &Path, args: &[&str]) -> Command {
    let mut cmd = yomi_in(data);
    cmd.args(args).env_remove("RUST_LOG").env_remove("YOMI_LOG").stdin(Stdio::null());
    cmd
}

/// Runs the command with its stdout closed after reading `keep` bytes (0: before it printed
/// anything) and checks it still succeeds, silently.
fn quiet_when_stdout_closes(data: &Path, args: &[&str], keep: usize) {
    let mut child =
        yomi(data, args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run yomi");
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0; keep];
    stdout
        .read_exact(&mut head)
        .unwrap_or_else(|e| panic!("{args:?}: fewer than {keep} bytes: {e}"));
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} exited {} with stdout closed:\n{stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{args:?} panicked with stdout closed:\n{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{args:?} complained about the pipe:\n{stderr}");
}

/// The command as issue 18 reported it: 20,000 draws, read 50 bytes, close.
#[test]
fn a_large_output_cut_by_head_ends_quietly() {
    let data = temp_dir();
    let args = "roles sample --players a,b,c,d --roles werewolf=1,villager=3 --count 20000 --json --seed 1";
    quiet_when_stdout_closes(data.path(), &args.split(' ').collect::<Vec<_>>(), 50);
}

/// The host's own commands, each of its printing forms.
#[test]
fn every_host_command_ends_quietly_on_a_closed_stdout() {
    let data = temp_dir();
    let dir = data.path();
    let transcript = dir.join("match.jsonl");
    let transcript = transcript.to_str().unwrap();
    let rps = ["--game", "rps", "--bot", "example/rps", "--bot", "example/rps:reading=1"];
    let runs: Vec<Vec<&str>> = vec![
        vec!["bots"],
        vec!["bots", "--json"],
        vec!["plugins"],
        vec!["plugins", "--json"],
        vec!["--help"],
        vec!["example", "--help"],
        [&["match"], &rps[..], &["--games", "3"]].concat(),
        [&["match"], &rps[..], &["--games", "3", "--json", "--transcript", transcript]].concat(),
        [&["tournament"], &rps[..], &["--games-per-pair", "2"]].concat(),
        [&["tournament"], &rps[..], &["--games-per-pair", "2", "--json"]].concat(),
        vec!["tournament", "--list"],
        vec!["tournament", "--list", "--json"],
        vec!["replay", transcript],
        vec!["replay", transcript, "--json"],
    ];
    for args in &runs {
        quiet_when_stdout_closes(dir, args, 0);
    }
    // The tournaments above ran although nobody read their standings.
    let list = yomi(dir, &["tournament", "--list", "--json"]).output().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");
    let id = list[0]["id"].as_str().unwrap().to_string();
    quiet_when_stdout_closes(dir, &["tournament", "--transcript", &format!("{id}:0")], 0);
}

/// Every plugin command (the repro commands with their smallest sizes; `repro battle`, `repro
/// dice` and `repro roles` have no size option and take too long for a test, and print through
/// the same path as every other plugin command).
#[test]
fn every_plugin_command_ends_quietly_on_a_closed_stdout() {
    let data = temp_dir();
    let dir = data.path();
    let runs: &[&str] = &[
        "battle analyze --parties thesis --active A,D",
        "battle analyze --parties thesis --active A,D --json",
        "battle solve --parties thesis",
        "dice sequence --length 20 --count 3 --json",
        "dice score --json 5 2 1 6 3 4 4 1",
        "dice compare --length 20 --count 10",
        "dice profile --player p --sequence 452514332612345612345612",
        "dice sugoroku --sets 2",
        "example beats rock",
        "roles sample --players a,b,c,d --roles werewolf=1,villager=3",
        "roles create g --players a,b,c,d",
        "roles join g --players e",
        "roles leave g --players e",
        "roles players g",
        "roles groups",
        "roles deal g --roles werewolf=1,villager=3",
        "roles role g --player a --game 1",
        "roles discard g 1",
        "roles deal g --roles werewolf=1,villager=3",
        "roles commit g 2",
        "roles history g",
        "roles analyze g --roles werewolf=1,villager=3 --games 3",
        "sevens d 6S KS --table 8S,9S",
        "repro sevens --games 2",
        "stud eval AS KS QS JS TS 2C 3D",
        "stud eval --json AS KS QS JS TS 2C 3D",
        "stud compare \"AS KS QS JS TS 2C 3D\" \"9S 9H 9D 9C 5S 6H 7D\"",
        "stud deals --seed 1 --count 2",
        "repro stud --sets 1 --games 2",
    ];
    for run in runs {
        quiet_when_stdout_closes(dir, &split_words(run), 0);
    }
    // The roles commands did their work although nobody read what they printed.
    let history = yomi(dir, &["roles", "history", "g"]).output().unwrap();
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(history.starts_with("game 2:"), "{history}");
}

/// Splits a command line on spaces, keeping "double-quoted words" together.
fn split_words(line: &str) -> Vec<&str> {
    line.split('"')
        .enumerate()
        .flat_map(
            |(i, part)| if i % 2 == 1 { vec![part] } else { part.split_whitespace().collect() },
        )
        .collect()
}

/// Issue 18.6: one-shot commands log warnings only; `-v` or RUST_LOG bring back the info lines.
#[test]
fn one_shot_commands_log_warnings_only_unless_asked() {
    let data = temp_dir();
    let stderr = |cmd: &mut Command| String::from_utf8(cmd.output().unwrap().stderr).unwrap();
    assert_eq!(
        stderr(&mut yomi(data.path(), &["bots"])),
        "",
        "`yomi bots` logs nothing by default"
    );
    assert!(stderr(&mut yomi(data.path(), &["-v", "bots"])).contains("INFO"));
    assert!(stderr(yomi(data.path(), &["bots"]).env("RUST_LOG", "info")).contains("INFO"));
}
