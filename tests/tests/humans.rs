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
    let out = import(data.path(), "../escape", &file);
    assert!(String::from_utf8_lossy(&out.stderr).contains("a record set's name is"));
}
