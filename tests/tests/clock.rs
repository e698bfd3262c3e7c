//! End-to-end tests of game clocks (`--tc`): a seat that runs out of its clock loses on time,
//! counted as a `time` failure; a generous clock changes no result; a bad time control is
//! refused before any game starts.

use serde_json::{json, Value};
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in as yomi};

/// A tournament of the slow fixture bot (30 ms a move) against the example bot under `tc`.
fn slow_tournament(tc: Option<&str>) -> Value {
    let tmp = temp_dir();
    let mut cmd = yomi(tmp.path());
    cmd.args(["tournament", "--game", "rps", "--games-per-pair", "4", "--seed", "3", "--json"]);
    cmd.args(["--bot", "misbehave:on_act=slow", "--bot", "example/rps"]);
    if let Some(tc) = tc {
        cmd.args(["--tc", tc]);
    }
    json_out(&run_ok(&mut cmd))
}

fn row<'a>(summary: &'a Value, label: &str) -> &'a Value {
    summary["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["bot"].as_str().unwrap().contains(label))
        .unwrap_or_else(|| panic!("no {label} in {summary}"))
}

#[test]
fn a_seat_out_of_its_clock_loses_on_time() {
    // 50 ms for the whole game: the slow bot's second 30 ms move runs past it.
    let summary = slow_tournament(Some("0.05"));
    let slow = row(&summary, "misbehave");
    assert_eq!(slow["failures"]["time"], json!(4), "{summary}");
    assert!(row(&summary, "example/rps")["failures"].get("time").is_none(), "{summary}");
}

#[test]
fn a_generous_clock_changes_no_result() {
    let without = slow_tournament(None);
    let with = slow_tournament(Some("40/600+1"));
    for label in ["misbehave", "example/rps"] {
        assert_eq!(row(&with, label)["score"], row(&without, label)["score"], "{with} {without}");
        assert!(row(&with, label)["failures"].get("time").is_none(), "{with}");
    }
}

#[test]
fn a_bad_time_control_is_refused_with_the_string_named() {
    let tmp = temp_dir();
    for tc in ["0", "-1", "abc", "1e9", "40/"] {
        for command in ["match", "tournament"] {
            let out = yomi(tmp.path())
                .args([command, "--game", "rps", "--bot", "example/rps", "--bot", "example/rps"])
                .arg(format!("--tc={tc}"))
                .output()
                .unwrap();
            assert!(!out.status.success());
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(&format!("bad time control {tc:?}")), "{stderr}");
        }
    }
}
