//! End-to-end tests of matches, tournaments, transcripts and isolation through the real binary.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in as yomi};

/// What legitimately differs between runs and builds: timings, build hashes, the host version.
fn redact(transcript: &str) -> String {
    transcript
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            redact_value(&mut v);
            v.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn redact_value(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                match k.as_str() {
                    "ms" => *x = json!("[ms]"),
                    "build" => *x = json!("[build]"),
                    "yomi" | "plugin_version" => *x = json!("[version]"),
                    _ => redact_value(x),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        _ => {}
    }
}

/// Every game with every bot that plays it: a seeded match whose transcript is snapshotted, and
/// replayed to the identical result. A changed bot shows up as a snapshot diff to review.
#[test]
fn every_game_and_bot_has_a_snapshotted_replayable_match() {
    let tmp = temp_dir();
    let data = tmp.path().to_path_buf();
    let catalog = json_out(&run_ok(yomi(&data).args(["bots", "--json"])));
    let mut checked = 0;
    for game in catalog["games"].as_array().unwrap() {
        let name = game["name"].as_str().unwrap();
        let seats = game["min_seats"].as_u64().unwrap() as usize;
        let mut bots: Vec<&str> = catalog["bots"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["games"].as_array().unwrap().iter().any(|g| g == name))
            .filter(|b| b["plugin"] != "misbehave")
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        bots.sort();
        for bot in bots {
            let file = data.join(format!("{name}-{}.jsonl", bot.replace('/', "-")));
            let mut cmd = yomi(&data);
            cmd.args([
                "match",
                "--game",
                name,
                "--seed",
                "7",
                "--games",
                "1",
                "--json",
                "--transcript",
            ])
            .arg(&file);
            for _ in 0..seats {
                cmd.args(["--bot", bot]);
            }
            run_ok(&mut cmd);
            let text = std::fs::read_to_string(&file).unwrap();
            insta::assert_snapshot!(format!("{name}__{}", bot.replace('/', "__")), redact(&text));
            let replay = json_out(&run_ok(yomi(&data).arg("replay").arg(&file).arg("--json")));
            assert_eq!(
                replay["identical"],
                json!(true),
                "{bot} on {name} did not replay: {replay}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 1, "no game with a bot was found");
}

#[test]
fn a_corrupted_transcript_names_its_line() {
    let tmp = temp_dir();
    let data = tmp.path().to_path_buf();
    let file = data.join("t.jsonl");
    run_ok(
        yomi(&data)
            .args([
                "match",
                "--game",
                "rps",
                "--bot",
                "example/rps",
                "--bot",
                "example/rps",
                "--transcript",
            ])
            .arg(&file),
    );
    let mut lines: Vec<String> =
        std::fs::read_to_string(&file).unwrap().lines().map(String::from).collect();
    lines[3] = "{\"type\": \"action\", broken".into();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = yomi(&data).arg("replay").arg(&file).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 4"), "{err}");
}

#[test]
fn bad_match_and_tournament_requests_are_clear_errors() {
    let tmp = temp_dir();
    let data = tmp.path().to_path_buf();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["match", "--game", "chess", "--bot", "example/rps", "--bot", "example/rps"],
            "no game `chess`",
        ),
        (
            vec!["match", "--game", "rps", "--bot", "nosuch", "--bot", "example/rps"],
            "no bot `nosuch`",
        ),
        (vec!["match", "--game", "rps", "--bot", "example/rps"], "played by 2 seats, not 1"),
        (
            vec![
                "match",
                "--game",
                "rps",
                "--bot",
                "example/rps",
                "--bot",
                "example/rps",
                "--games",
                "0",
            ],
            "games must be",
        ),
        (
            vec![
                "match",
                "--game",
                "rps",
                "--bot",
                "example/rps:reading=9",
                "--bot",
                "example/rps",
            ],
            "out of range",
        ),
        (
            vec![
                "tournament",
                "--game",
                "rps",
                "--bot",
                "example/rps",
                "--bot",
                "example/rps",
                "--concurrency",
                "65",
            ],
            "concurrency must be 1 to 64",
        ),
        (
            vec![
                "tournament",
                "--game",
                "rps",
                "--bot",
                "example/rps",
                "--bot",
                "example/rps",
                "--games-per-pair",
                "0",
            ],
            "at least 1",
        ),
        (vec!["tournament", "--resume", "t-nope"], "no tournament `t-nope`"),
        // The host sets a game's seat count from the seats; a contradicting option is refused
        // before any game is played (sugoroku once failed at the end of its first game).
        (
            vec![
                "match",
                "--game",
                "sugoroku",
                "--bot",
                "dice/walker",
                "--bot",
                "dice/walker",
                "--game-option",
                "players=1",
            ],
            "game option players = 1 but the match has 2 seats",
        ),
    ];
    for (args, want) in cases {
        let out = yomi(&data).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{args:?}: wanted `{want}` in: {err}");
    }
}

/// A bot that hangs and one that aborts its process, both isolated: the tournament finishes,
/// their failures are counted by kind, and the healthy bot's games are unaffected.
#[test]
fn isolated_bots_that_hang_or_crash_do_not_stop_a_tournament() {
    let tmp = temp_dir();
    let data = tmp.path().to_path_buf();
    let out = run_ok(yomi(&data).args([
        "tournament",
        "--game",
        "rps",
        "--games-per-pair",
        "2",
        "--concurrency",
        "2",
        "--json",
        "--deadline-ms",
        "300",
        "--on-timeout",
        "default",
        "--on-error",
        "default",
        "--bot",
        "misbehave:on_act=hang,isolate=true",
        "--bot",
        "misbehave:on_act=abort,isolate=true",
        "--bot",
        "example/rps",
    ]));
    let summary = json_out(&out);
    assert_eq!(summary["games"], json!(6));
    let row = |label: &str| {
        summary["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["bot"].as_str().unwrap().contains(label))
            .unwrap()
            .clone()
    };
    assert!(row("on_act=hang")["failures"]["timeout"].as_u64().unwrap() > 0, "{summary}");
    assert!(row("on_act=abort")["failures"]["crash"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(
        row("example/rps")["failures"],
        json!({"timeout": 0, "illegal": 0, "error": 0, "crash": 0, "disconnect": 0})
    );
}

/// `kill -9` in the middle of a tournament, then `--resume`: every scheduled game is recorded
/// exactly once.
#[test]
fn a_killed_tournament_resumes_with_no_game_lost_or_doubled() {
    let tmp = temp_dir();
    let data = tmp.path().to_path_buf();
    let mut child = yomi(&data)
        .args([
            // The slow bot makes every game take at least 90 ms, whatever the machine's speed.
            "tournament",
            "--game",
            "rps",
            "--games-per-pair",
            "60",
            "--concurrency",
            "2",
            "--seed",
            "5",
            "--json",
            "--bot",
            "example/rps",
            "--bot",
            "misbehave:on_act=slow",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let list = loop {
        std::thread::sleep(Duration::from_millis(100));
        let list = json_out(&run_ok(yomi(&data).args(["tournament", "--list", "--json"])));
        if list
            .as_array()
            .is_some_and(|l| l.first().is_some_and(|t| t["games"].as_u64().unwrap_or(0) >= 3))
        {
            break list;
        }
        assert!(start.elapsed() < Duration::from_secs(300), "tournament made no progress");
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let id = list[0]["id"].as_str().unwrap().to_string();
    let before = json_out(&run_ok(yomi(&data).args(["tournament", "--list", "--json"])))[0].clone();
    assert_eq!(before["status"], json!("interrupted"));
    assert!(before["games"].as_u64().unwrap() < 60, "killed too late to test resuming: {before}");
    let summary = json_out(&run_ok(yomi(&data).args(["tournament", "--resume", &id, "--json"])));
    assert_eq!(summary["id"], json!(id));
    assert_eq!(summary["games"], json!(60));
    let played: u64 =
        summary["standings"].as_array().unwrap().iter().map(|r| r["games"].as_u64().unwrap()).sum();
    assert_eq!(played, 120, "each game counts once for each of its two bots");
    let after = json_out(&run_ok(yomi(&data).args(["tournament", "--list", "--json"])))[0].clone();
    assert_eq!(
        after,
        json!({"id": id, "status": "finished", "games": 60, "total": 60, "game": "rps"})
    );
    let again = yomi(&data).args(["tournament", "--resume", &id]).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("already finished"));
}

/// A person's client plays a seat through the protocol: `your_turn` events, `match.move` answers;
/// it learns the match id from `match.started` before its first turn.
#[test]
fn a_client_plays_a_seat_through_the_protocol() {
    use std::io::{BufRead, BufReader, Write};
    let tmp = temp_dir();
    let data = tmp.path().to_path_buf();
    let mut child = yomi(&data)
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let run = json!({"id": 1, "op": "match.run", "game": "rps", "game_options": {"rounds": 3}, "seed": 1,
                     "seats": [{"bot": "example/rps", "options": {"reading": 1}}, {"client": "me"}]});
    writeln!(stdin, "{run}").unwrap();
    let (mut turns, mut game_events, mut started) = (0, 0, false);
    let reply = loop {
        let line = lines.next().unwrap().unwrap();
        let msg: Value = serde_json::from_str(&line).unwrap();
        // A parser keeps one of two equal keys: a line that re-serializes shorter had a duplicate.
        assert_eq!(msg.to_string().len(), line.len(), "a key given twice: {line}");
        started |= msg["event"] == "match.started";
        if msg["event"] == "match.event" {
            game_events += 1;
            assert_eq!(msg["game_event"]["round"], json!(game_events), "{line}");
        }
        if msg["event"] == "your_turn" {
            assert!(started, "match.started comes before the first your_turn: {msg}");
            turns += 1;
            assert_eq!(msg["seat"], json!(1));
            assert_eq!(msg["legal"], json!(["rock", "paper", "scissors"]));
            let mv = json!({"id": 100 + turns, "op": "match.move", "match": msg["match"], "seat": 1, "action": "rock"});
            writeln!(stdin, "{mv}").unwrap();
        } else if msg["id"] == json!(1) {
            break msg;
        }
    };
    assert_eq!((turns, game_events), (3, 3));
    assert_eq!(reply["ok"], json!(true), "{reply}");
    // The reader always beats the last hand: rock then paper twice beats our rock twice.
    assert_eq!(reply["result"]["scores"], json!([1.0, 0.0]));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// The SPRT stops a decided comparison early: a bot that beats the opponent's last hand against
/// one that throws rock four times in five is found stronger long before the schedule ends. On
/// games it reads the trinomial outcomes (logistic Elo); with `--repeat` the pairs' pentanomial
/// outcomes (here normalized Elo, as fishtest's newer tests do), stopping on a whole pair.
#[test]
fn the_sprt_stops_a_decided_comparison_early() {
    let tmp = temp_dir();
    for (repeat, model) in [(false, "logistic"), (true, "normalized")] {
        let mut args = vec!["tournament", "--game", "rps", "--games-per-pair", "2000"];
        args.extend(["--sprt", "0,50", "--sprt-model", model, "--json"]);
        args.extend(["--bot", "example/rps:reading=1", "--bot", "example/rps:preset=rock-lover"]);
        if repeat {
            args.push("--repeat");
        }
        let summary = json_out(&run_ok(yomi(tmp.path()).args(&args)));
        assert_eq!(summary["sprt"]["decision"], json!("H1"), "{summary}");
        let (llr, upper) = (&summary["sprt"]["llr"], &summary["sprt"]["upper"]);
        assert!(llr.as_f64().unwrap() >= upper.as_f64().unwrap(), "{summary}");
        let games = summary["games"].as_u64().unwrap();
        assert!(games < 2000, "{games} games");
        let pairing = &summary["pairings"][0];
        let counts = if repeat { "pentanomial" } else { "trinomial" };
        assert_eq!(pairing["model"], json!(counts), "{summary}");
        let counted: u64 =
            pairing[counts].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum();
        assert_eq!(games, if repeat { 2 * counted } else { counted }, "{summary}");
    }
}

/// After a game the host tells each bot seat the outcome (`game_over`), in this process and in a
/// worker alike; a bot that fails there is logged and the match result stands.
#[test]
fn game_over_reaches_every_bot_and_its_failure_is_only_logged() {
    let tmp = temp_dir();
    for isolate in ["false", "true"] {
        let bot = format!("misbehave:panic_on=game_over,isolate={isolate}");
        let out = run_ok(
            yomi(tmp.path())
                .env("YOMI_LOG", "warn")
                .args(["match", "--game", "rps", "--seed", "3", "--games", "2", "--json"])
                .args(["--bot", "example/rps", "--bot", &bot]),
        );
        let result = json_out(&out);
        assert_eq!(result["games"], json!(2), "{result}");
        assert_eq!(result["forfeits"], json!([0, 0]), "the failure changes no result: {result}");
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(
            log.matches("game_over failed").count() >= 2 && log.contains("told the outcome"),
            "isolate={isolate}: {log}"
        );
    }
}
