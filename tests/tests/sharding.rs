//! End-to-end tests of sharded tournaments: shard processes, each with its own data directory as
//! on separate machines, merged by `yomi tournament merge`, against the same tournament played by
//! one process.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use yomi_e2e::{json_out, recorded_games, run_ok, temp_dir, yomi_in as yomi};

/// The tournament every test plays: 3 bots, 3 pairings, 48 games. The slow fixture bot makes each
/// of its games take at least 90 ms, so a shard can be killed part-way on any machine.
const TOURNAMENT: &[&str] = &[
    "tournament",
    "--game",
    "rps",
    "--games-per-pair",
    "16",
    "--seed",
    "11",
    "--id",
    "cup",
    "--json",
    "--bot",
    "example/rps",
    "--bot",
    "example/rps:preset=reader",
    "--bot",
    "misbehave:on_act=slow",
];

fn shard_command(data: &Path, shard: &[&str]) -> Command {
    let mut cmd = yomi(data);
    cmd.args(TOURNAMENT).args(shard);
    cmd
}

/// Every recorded game of tournament `id` in `data`, in index order, with the decision timings
/// (the one thing that differs between runs) taken out of the transcripts.
fn records(data: &Path, id: &str) -> Vec<(i64, String, String, String, String, String)> {
    recorded_games(data, id, "idx, seats, scores, failures, forfeit, transcript", |r| {
        let transcript: String = r.get(5)?;
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, without_timings(&transcript)))
    })
}

fn without_timings(transcript: &str) -> String {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let lines: Vec<String> = transcript
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            strip(&mut v);
            v.to_string()
        })
        .collect();
    lines.join("\n")
}

fn games_recorded(data: &Path, id: &str) -> usize {
    if !data.join("records.sqlite3").is_file() {
        return 0;
    }
    rusqlite::Connection::open(data.join("records.sqlite3"))
        .and_then(|db| {
            db.query_row("SELECT COUNT(*) FROM games WHERE tournament = ?1", [id], |r| {
                r.get::<_, i64>(0)
            })
        })
        .unwrap_or(0) as usize
}

/// Four shard processes at once, one of them killed after its first game and run again, merged:
/// exactly the records and standings of the tournament played in one process. Merging again, or
/// with a shard given twice, is refused.
#[test]
fn four_shards_merge_into_exactly_the_one_process_tournament() {
    let tmp = temp_dir();
    let dir = |name: &str| -> PathBuf { tmp.path().join(name) };
    let whole = json_out(&run_ok(yomi(&dir("whole")).args(TOURNAMENT)));
    assert_eq!(whole["games"], Value::from(48));

    // Both forms of --shard: `I/N`, and `I --shards N` as an Indexed Job or job array passes it.
    let forms = |i: usize| -> Vec<String> {
        if matches!(i, 0 | 2) {
            vec!["--shard".into(), format!("{i}/4")]
        } else {
            vec!["--shard".into(), i.to_string(), "--shards".into(), "4".into()]
        }
    };
    let spawn = |i: usize| {
        let args = forms(i);
        shard_command(
            &dir(&format!("shard{i}")),
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
    };
    let mut children: Vec<_> = (0..4).map(spawn).collect();

    // Kill shard 1 once it has committed a game, while it still has games to play.
    let killed_id = "cup-shard-1-of-4";
    let start = Instant::now();
    while games_recorded(&dir("shard1"), killed_id) == 0 {
        assert!(start.elapsed() < Duration::from_secs(300), "shard 1 made no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    children[1].kill().unwrap();
    children[1].wait().unwrap();
    let at_kill = games_recorded(&dir("shard1"), killed_id);
    assert!(at_kill < 12, "shard 1 finished before it could be killed ({at_kill} games)");
    for (i, child) in children.iter_mut().enumerate() {
        if i != 1 {
            assert!(child.wait().unwrap().success(), "shard {i} failed");
        }
    }

    // Merging now is refused: shard 1 is unfinished.
    let early =
        yomi(&dir("merged")).args(["tournament", "merge"]).args(shard_dirs(&dir)).output().unwrap();
    assert!(!early.status.success());
    assert!(String::from_utf8_lossy(&early.stderr).contains("not finished"), "{early:?}");

    // The same command again resumes the shard; once more finds it finished.
    let resumed = json_out(&run_ok(&mut shard_command(&dir("shard1"), &["--shard", "1/4"])));
    assert_eq!(resumed["id"], Value::from(killed_id));
    assert_eq!(resumed["games"], Value::from(12));
    run_ok(&mut shard_command(&dir("shard1"), &["--shard", "1/4"]));

    let merged = json_out(&run_ok(
        yomi(&dir("merged")).args(["tournament", "merge", "--json"]).args(shard_dirs(&dir)),
    ));
    assert_eq!(merged, whole, "merged standings equal the one-process standings");
    assert_eq!(records(&dir("merged"), "cup"), records(&dir("whole"), "cup"));
    assert_eq!(records(&dir("merged"), "cup").len(), 48);

    let again =
        yomi(&dir("merged")).args(["tournament", "merge"]).args(shard_dirs(&dir)).output().unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("merged before"), "{again:?}");
    let twice = yomi(&dir("merged-twice"))
        .args(["tournament", "merge"])
        .args(shard_dirs(&dir))
        .arg(dir("shard2"))
        .output()
        .unwrap();
    assert!(!twice.status.success());
    assert!(String::from_utf8_lossy(&twice.stderr).contains("given twice"), "{twice:?}");
    assert!(records(&dir("merged-twice"), "cup").is_empty(), "a refused merge writes nothing");
}

fn shard_dirs(dir: &impl Fn(&str) -> PathBuf) -> Vec<PathBuf> {
    (0..4).map(|i| dir(&format!("shard{i}"))).collect()
}

/// Shards of different tournaments, a missing shard, and bad --shard values are clear errors.
#[test]
fn mismatched_missing_and_malformed_shards_are_refused() {
    let tmp = temp_dir();
    let dir = |name: &str| -> PathBuf { tmp.path().join(name) };
    let quick = |data: &Path, seed: &str, shard: &str| {
        run_ok(yomi(data).args([
            "tournament",
            "--game",
            "rps",
            "--games-per-pair",
            "2",
            "--seed",
            seed,
            "--shard",
            shard,
            "--bot",
            "example/rps",
            "--bot",
            "example/rps:preset=reader",
        ]))
    };
    quick(&dir("a0"), "1", "0/2");
    quick(&dir("a1"), "1", "1/2");
    quick(&dir("b1"), "2", "1/2");
    let merge = |dirs: &[&str]| {
        let out = yomi(&dir("out"))
            .args(["tournament", "merge"])
            .args(dirs.iter().map(|d| dir(d)))
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    assert!(merge(&["a0", "b1"]).contains("different tournaments"));
    assert!(merge(&["a0"]).contains("missing: 1"));
    assert!(merge(&["a0", "nowhere"]).contains("holds no yomi records"));
    for bad in ["2/2", "1", "x/2", "0/0"] {
        let out = yomi(&dir("bad"))
            .args(["tournament", "--game", "rps", "--bot", "example/rps", "--bot", "example/rps"])
            .args(["--shard", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "--shard {bad} accepted");
        assert!(String::from_utf8_lossy(&out.stderr).contains("shard"), "{out:?}");
    }
}
