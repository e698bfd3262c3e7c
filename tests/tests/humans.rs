//! End-to-end tests of human records: `yomi records import` from a transcript and from JSON
//! lines, a bad line named with nothing lost.

use std::path::Path;

use serde_json::Value;
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in};

/// Records a seeded match of two `bot` seats into `dir/match.jsonl`.
fn record_match(data: &Path, bot: &str, games: u32) -> std::path::PathBuf {
    let path = data.join("match.jsonl");
    run_ok(
        yomi_in(data)
            .args(["match", "--game", "sevens", "--bot", bot, "--bot", bot, "--bot", bot])
            .args(["--games", &games.to_string(), "--seed", "4", "--transcript"])
            .arg(&path),
    );
    path
}

fn import(data: &Path, name: &str, file: &Path) -> std::process::Output {
    yomi_in(data).args(["records", "import", name]).arg(file).arg("--json").output().unwrap()
}

#[test]
fn a_transcript_and_json_lines_import_and_a_bad_line_loses_nothing() {
    let data = temp_dir();
    let transcript = record_match(data.path(), "sevens/dvalue:temperature=1", 2);
    let done = json_out(&run_ok(
        yomi_in(data.path()).args(["records", "import", "sim"]).arg(&transcript).arg("--json"),
    ));
    assert_eq!(
        (done["game"].as_str(), done["plays"].as_u64()),
        (Some("sevens"), Some(2)),
        "{done}"
    );
    let decisions = done["decisions"].as_u64().unwrap();
    assert!(decisions > 50, "three seats' decisions of two games: {done}");
    let stored = std::fs::read_to_string(data.path().join("humans/sim.jsonl")).unwrap();
    assert_eq!(stored.lines().count() as u64, decisions);
    let first: Value = serde_json::from_str(stored.lines().next().unwrap()).unwrap();
    assert_eq!(first["player"], "sevens/dvalue");

    // JSON lines, the second line bad: the whole file is refused naming it; the set is as it was.
    let lines = stored.lines().take(2).collect::<Vec<_>>();
    let mut bad: Value = serde_json::from_str(lines[1]).unwrap();
    bad["action"] = "ZZ".into();
    let file = data.path().join("bad.jsonl");
    std::fs::write(&file, format!("{}\n{bad}\n", lines[0])).unwrap();
    let out = import(data.path(), "sim", &file);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 2: `action`: \"ZZ\" is not one of `legal`"), "{stderr}");
    assert_eq!(std::fs::read_to_string(data.path().join("humans/sim.jsonl")).unwrap(), stored);
    // An observation that does not fit the game's payload schema is named by line and path.
    let misfit = r#"{"game": "rps", "observation": {"opponent_last": "lizard"}, "legal": ["rock"], "action": "rock"}"#;
    std::fs::write(&file, format!("\n{misfit}\n")).unwrap();
    let stderr = String::from_utf8_lossy(&import(data.path(), "rps", &file).stderr).to_string();
    let want = "line 2: `observation.opponent_last`: must be one of \"rock\", \"paper\", \"scissors\", not \"lizard\"";
    assert!(stderr.contains(want), "{stderr}");
    assert!(!data.path().join("humans/rps.jsonl").exists(), "nothing is added");
    let out = import(data.path(), "../escape", &file);
    assert!(String::from_utf8_lossy(&out.stderr).contains("a record set's name is"));
}

/// `yomi humanlike BOT --records sim --json` on `data`.
fn humanlike(data: &Path, bot: &str) -> Value {
    json_out(&run_ok(yomi_in(data).args(["humanlike", bot, "--records", "sim", "--json"])))
}

/// Records of the D-value player at temperature 1, as if people had played: the bot at the
/// temperature that made them finds them likelier than the same bot warmer or colder and than
/// uniform play; its preset at that temperature is the best preset, with the same figures.
#[test]
fn humanlike_finds_the_temperature_that_made_the_records() {
    let data = temp_dir();
    let transcript = record_match(data.path(), "sevens/dvalue:temperature=1", 6);
    run_ok(yomi_in(data.path()).args(["records", "import", "sim"]).arg(&transcript));
    let ll = |report: &Value, model: &str| report["all"][model]["log_likelihood"].as_f64().unwrap();
    let at_1 = humanlike(data.path(), "sevens/dvalue:temperature=1");
    assert_eq!(at_1["plays"], 6, "{at_1}");
    let decisions = at_1["decisions"].as_u64().unwrap();
    assert_eq!(at_1["all"]["bot"]["decisions"].as_u64(), Some(decisions));
    for model in ["bot", "uniform", "best_preset"] {
        let s = &at_1["all"][model];
        for (mean, ci) in [("accuracy", "accuracy_ci95"), ("log_likelihood", "log_likelihood_ci95")]
        {
            let (m, lo, hi) =
                (s[mean].as_f64().unwrap(), s[ci][0].as_f64().unwrap(), s[ci][1].as_f64().unwrap());
            assert!(lo <= m && m <= hi, "{model} {mean}: {m} outside [{lo}, {hi}]");
        }
    }
    assert_eq!(at_1["best_preset"], "fluctuating", "the preset at temperature 1: {at_1}");
    assert_eq!(ll(&at_1, "best_preset"), ll(&at_1, "bot"));
    assert!(ll(&at_1, "bot") > ll(&at_1, "uniform") + 0.3, "{at_1}");
    assert_eq!(
        at_1["all"]["bot"]["zero_probability"], 0,
        "a warm player gives every move a chance"
    );
    for other in ["sevens/dvalue:temperature=4", "sevens/dvalue:temperature=0.25"] {
        let report = humanlike(data.path(), other);
        assert!(ll(&at_1, "bot") > ll(&report, "bot"), "{other}: {}", report["all"]["bot"]);
    }
    let stages: Vec<&String> = at_1["by_stage"].as_object().unwrap().keys().collect();
    assert_eq!(stages, ["early", "late", "middle"]);
    let staged: u64 = ["early", "middle", "late"]
        .iter()
        .map(|s| at_1["by_stage"][s]["bot"]["decisions"].as_u64().unwrap())
        .sum();
    assert_eq!(staged, decisions, "every decision in one stage");
    let kinds: u64 = at_1["by_kind"]
        .as_object()
        .unwrap()
        .values()
        .map(|k| k["bot"]["decisions"].as_u64().unwrap())
        .sum();
    assert_eq!(kinds, decisions, "every decision of one kind");
    // A set that is not there is not found, by name.
    let out = yomi_in(data.path())
        .args(["humanlike", "sevens/dvalue", "--records", "none"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no record set `none`"));
}

/// A replay's figures do not depend on how its plugin calls run: on game threads, side by side
/// (the default), or each handed to the blocking pool (`YOMI_EXECUTOR=pool`), every
/// log-likelihood and accuracy is the same to the last digit.
#[test]
fn replays_score_the_same_however_their_calls_run() {
    let data = temp_dir();
    let transcript = record_match(data.path(), "sevens/dvalue:temperature=2", 4);
    run_ok(yomi_in(data.path()).args(["records", "import", "sim"]).arg(&transcript));
    let args = ["humanlike", "sevens/dvalue:temperature=1.5", "--records", "sim", "--json"];
    let fast = json_out(&run_ok(yomi_in(data.path()).args(args)));
    let pool = json_out(&run_ok(yomi_in(data.path()).env("YOMI_EXECUTOR", "pool").args(args)));
    assert!(fast["all"]["bot"]["log_likelihood"].as_f64().unwrap() < 0.0, "{fast}");
    for part in ["all", "by_stage", "by_kind", "presets_log_likelihood"] {
        assert_eq!(fast[part], pool[part], "{part}");
    }
}
