//! `yomi check`, the conformance check: every bot in the repository passes it, and each bot of the
//! `nonconform` fixture, built to break one rule, fails exactly the check of that rule.

use std::process::{Command, Output, Stdio};

use serde_json::Value;
use yomi_e2e::{json_out, library, target_dir, yomi_bin, FLAWS};

/// `yomi check ARGS...` over the build's plugins, plus the nonconforming fixture when asked.
fn yomi_check(with_fixture: bool, args: &[&str]) -> Output {
    let mut cmd = Command::new(yomi_bin());
    cmd.arg("--plugins").arg(target_dir());
    if with_fixture {
        cmd.arg("--plugins").arg(library("fixture_nonconform"));
    }
    cmd.arg("check").args(args).env("YOMI_LOG", "error").stdin(Stdio::null());
    cmd.output().expect("run yomi check")
}

/// The status of each check of a bot's report, by check name.
fn statuses(report: &Value) -> Vec<(String, String)> {
    report["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .map(|c| {
            (c["check"].as_str().unwrap().to_string(), c["status"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn every_bot_in_the_repository_passes() {
    let out = yomi_check(false, &["--all", "--games", "1", "--json"]);
    let report = json_out(&out);
    let bots = report["bots"].as_array().expect("bots");
    let failed: Vec<String> =
        bots.iter().filter(|b| b["passed"] != true).map(|b| b.to_string()).collect();
    assert!(failed.is_empty(), "bots that fail:\n{}", failed.join("\n"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<&str> = bots.iter().map(|b| b["bot"].as_str().unwrap()).collect();
    for plugin in ["battle", "dice", "example", "roles", "sevens", "stud"] {
        assert!(
            names.iter().any(|n| n.starts_with(&format!("{plugin}/"))),
            "{plugin} in {names:?}"
        );
    }
    // A game bot is played and timed; a service gets the option checks only.
    let rps = bots.iter().find(|b| b["bot"] == "example/rps").expect("example/rps");
    assert!(statuses(rps).iter().all(|(_, s)| s == "pass"), "{rps}");
    assert!(rps["latency"]["decisions"].as_u64().unwrap() > 0, "{rps}");
    let roles = bots.iter().find(|b| b["bot"] == "roles/roles").expect("roles/roles");
    let roles = statuses(roles);
    assert!(roles.contains(&("legal play".into(), "skip".into())), "{roles:?}");
    assert!(roles.contains(&("bad options".into(), "pass".into())), "{roles:?}");
}

#[test]
fn each_broken_bot_fails_the_check_it_breaks() {
    for (bot, broken, extra) in FLAWS {
        let bot = format!("nonconform/{bot}");
        let args = [&[bot.as_str(), "--json"][..], extra].concat();
        let out = yomi_check(true, &args);
        assert_eq!(out.status.code(), Some(1), "{bot}: {}", String::from_utf8_lossy(&out.stderr));
        let report = &json_out(&out)["bots"][0];
        let failed: Vec<String> =
            statuses(report).into_iter().filter(|(_, s)| s == "fail").map(|(c, _)| c).collect();
        assert_eq!(failed, [broken], "{bot} fails only `{broken}`: {report:#}");
    }
}

#[test]
fn the_readable_report_has_a_line_per_check_and_names_the_fault() {
    let out = yomi_check(true, &["nonconform/illegal", "example/rps", "--games", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let illegal =
        text.lines().find(|l| l.contains("FAIL  legal play")).unwrap_or_else(|| panic!("{text}"));
    assert!(illegal.contains("refused the bot's action \"lizard\""), "{illegal}");
    assert!(text.contains("example/rps: PASS"), "{text}");
    assert!(text.contains("1 of 2 bots fail: nonconform/illegal"), "{text}");
}

#[test]
fn an_unknown_bot_or_bad_flag_is_a_clear_error() {
    let out = yomi_check(false, &["example/nobody"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has no bot `nobody`"), "{stderr}");
    let out = yomi_check(false, &["example/rps", "--max-p99-ms", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-p99-ms must be a positive number"));
    assert_eq!(yomi_check(false, &[]).status.code(), Some(2), "no bot and no --all");
}

#[test]
fn an_isolated_bot_is_checked_in_its_worker_process() {
    let out = yomi_check(
        true,
        &["example/rps:isolate=true", "nonconform/fragile:isolate=true", "--games", "1", "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report = json_out(&out);
    assert_eq!(report["bots"][0]["passed"], true, "{report:#}");
    let fragile = statuses(&report["bots"][1]);
    assert!(fragile.contains(&("bad observation".into(), "fail".into())), "{fragile:?}");
    assert!(fragile.contains(&("legal play".into(), "pass".into())), "{fragile:?}");
}
