//! The records database (`records.sqlite3` in the data directory) under damage and sudden death:
//! a corrupt or truncated file gives a clear error naming it and is left untouched; a tournament
//! killed with SIGKILL again and again resumes to exactly its scheduled games.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in as yomi};

/// `yomi tournament --list --json` in `data`.
fn list(data: &Path) -> Value {
    json_out(&run_ok(yomi(data).args(["tournament", "--list", "--json"])))
}

/// Checks that listing the tournaments fails with an error that names the records file, and
/// that the file was not changed by trying.
fn refused_naming_the_file(data: &Path) -> String {
    let file = data.join("records.sqlite3");
    let before = std::fs::read(&file).unwrap();
    let out = yomi(data).args(["tournament", "--list", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "a damaged records file was accepted:\n{stderr}");
    assert!(stderr.contains(&file.display().to_string()), "the error names the file:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "the damaged file was changed");
    stderr
}

/// A small finished tournament, so the records file has content.
fn play_small_tournament(data: &Path) {
    let args = "tournament --game rps --bot example/rps --bot example/rps:reading=1 --games-per-pair 20 --json";
    run_ok(yomi(data).args(args.split(' ')));
}

#[test]
fn a_records_file_that_is_not_a_database_is_refused_by_name() {
    let tmp = temp_dir();
    std::fs::write(
        tmp.path().join("records.sqlite3"),
        "these are not the records you are looking for\n".repeat(200),
    )
    .unwrap();
    let stderr = refused_naming_the_file(tmp.path());
    assert!(stderr.contains("move it away"), "the error says what to do:\n{stderr}");
}

#[test]
fn a_truncated_records_file_is_refused_by_name() {
    let tmp = temp_dir();
    play_small_tournament(tmp.path());
    let file = tmp.path().join("records.sqlite3");
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.len() > 8192, "the tournament should fill a few pages: {} bytes", bytes.len());
    // Keep the header page and part of the tables: what a full disk or a bad copy leaves.
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    refused_naming_the_file(tmp.path());
}

/// Starts (or resumes) the slow concurrency-4 tournament in the background.
fn start_tournament(data: &Path, resume: Option<&str>) -> Child {
    let mut cmd = yomi(data);
    match resume {
        Some(id) => cmd.args(["tournament", "--resume", id]),
        // The slow bot makes every game take at least 90 ms, whatever the machine's speed.
        None => cmd.args(
            "tournament --game rps --games-per-pair 400 --concurrency 4 --seed 9 --bot example/rps --bot misbehave:on_act=slow"
                .split(' '),
        ),
    };
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()
}

/// Issue 16: kill -9 at five pseudo-random points (seeded: the same points every run) of a
/// concurrency-4 tournament, resuming after each, then let it finish: every scheduled game is
/// recorded once, none lost, none doubled.
#[test]
fn five_kills_of_a_concurrent_tournament_lose_and_double_nothing() {
    let tmp = temp_dir();
    let data = tmp.path();
    // The first run is killed once it has recorded a game, so there is a tournament to resume.
    let mut child = start_tournament(data, None);
    let start = Instant::now();
    let id = loop {
        std::thread::sleep(Duration::from_millis(50));
        let l = list(data);
        if l[0]["games"].as_u64().unwrap_or(0) >= 1 {
            break l[0]["id"].as_str().unwrap().to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(300), "the tournament made no progress");
    };
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for kill in 1..=5 {
        if kill > 1 {
            // A point anywhere from start-up to mid-run: 0 to 1.5 s after starting.
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            std::thread::sleep(Duration::from_millis((state >> 33) % 1500));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let now = list(data);
        assert_eq!(now[0]["status"], json!("running"), "finished before kill {kill}: {now}");
        child = start_tournament(data, Some(&id));
    }
    assert!(child.wait().unwrap().success());
    let done = list(data);
    assert_eq!(
        done,
        json!([{"id": id, "status": "finished", "games": 400, "total": 400, "game": "rps"}])
    );
    // Each game index is in the records once: every transcript is there, one past the end is not.
    for index in [0, 399] {
        run_ok(yomi(data).args(["tournament", "--transcript", &format!("{id}:{index}")]));
    }
    let past =
        yomi(data).args(["tournament", "--transcript", &format!("{id}:400")]).output().unwrap();
    assert!(!past.status.success());
}
