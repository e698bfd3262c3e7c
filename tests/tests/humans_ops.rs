//! End-to-end tests of `humanlike.run` and `fit.run`: operator only, bounded before any replay,
//! with progress events and `cancel`, and the same report as the commands' `--json`.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use yomi_e2e::{error_code, json_out, run_ok, temp_dir, yomi_in, Conn, Server};

const PLAYER: &str = "player-token-for-tests";
const OPERATOR: &str = "operator-token-for-tests";

/// Record set `sim` in `data`: `games` games of three D-value players at temperature 1.
fn records(data: &Path, games: u32) {
    let path = data.join("match.jsonl");
    let bot = "sevens/dvalue:temperature=1";
    run_ok(
        yomi_in(data)
            .args(["match", "--game", "sevens", "--bot", bot, "--bot", bot, "--bot", bot])
            .args(["--games", &games.to_string(), "--seed", "4", "--transcript"])
            .arg(&path),
    );
    run_ok(yomi_in(data).args(["records", "import", "sim"]).arg(&path));
}

fn server(data: &Path, extra: &[&str]) -> Server {
    let dir = data.to_str().unwrap();
    let base = ["--data-dir", dir, "--token", PLAYER, "--operator-token", OPERATOR];
    Server::tcp(&[&base[..], extra].concat())
}

fn session(server: &Server, token: &str) -> Conn {
    let mut conn = server.connect();
    conn.ok("hello", json!({"token": token}));
    conn
}

/// Sends a request with id `id` without waiting for its reply.
fn send(conn: &mut Conn, id: &str, op: &str, params: Value) {
    let mut request = params.as_object().unwrap().clone();
    request.insert("id".into(), json!(id));
    request.insert("op".into(), json!(op));
    conn.send(&Value::Object(request));
}

#[test]
fn humanlike_run_is_the_commands_report_for_an_operator_only() {
    let data = temp_dir();
    records(data.path(), 6);
    let server = server(data.path(), &[]);
    let params = json!({"bot": "sevens/dvalue:temperature=1", "records": "sim", "resamples": 200});
    let mut player = session(&server, PLAYER);
    assert_eq!(player.err("humanlike.run", params.clone()), "unauthorized");
    assert_eq!(player.err("fit.run", params.clone()), "unauthorized");

    let mut op = session(&server, OPERATOR);
    let unknown = json!({"bot": "sevens/dvalue", "records": "nope"});
    assert_eq!(op.err("humanlike.run", unknown.clone()), "not_found");
    assert_eq!(op.err("fit.run", unknown), "not_found");
    let path = json!({"bot": "sevens/dvalue", "records": "../sim"});
    assert_eq!(op.err("humanlike.run", path), "invalid_params");

    let report = op.ok("humanlike.run", params);
    let cli = json_out(&run_ok(yomi_in(data.path()).args([
        "humanlike",
        "sevens/dvalue:temperature=1",
        "--records",
        "sim",
        "--resamples",
        "200",
        "--json",
    ])));
    assert_eq!(report, cli);
    let progress: Vec<&Value> =
        op.events.iter().filter(|e| e["event"] == "replay.progress").collect();
    let total = report["decisions"].as_u64().unwrap() * (1 + presets(&report));
    for event in &progress {
        assert_eq!(
            (event["op"].as_str(), event["total"].as_u64()),
            (Some("humanlike.run"), Some(total))
        );
        assert!(event["decisions"].as_u64().unwrap() <= total, "{event}");
    }
    player.assert_alive();
}

fn presets(report: &Value) -> u64 {
    report["presets_log_likelihood"].as_object().unwrap().len() as u64
}

#[test]
fn an_oversized_request_is_refused_before_any_replay_naming_the_limit() {
    let data = temp_dir();
    records(data.path(), 6);
    let server = server(data.path(), &["--max-replayed-decisions", "100"]);
    let mut op = session(&server, OPERATOR);
    for (what, params) in [
        ("humanlike.run", json!({"bot": "sevens/dvalue", "records": "sim"})),
        (
            "fit.run",
            json!({"bot": "sevens/dvalue", "records": "sim", "fit": ["temperature"], "iterations": 1}),
        ),
    ] {
        let reply = op.request(what, params);
        assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("--max-replayed-decisions 100"), "{message}");
        assert!(message.contains("recorded decisions"), "{message}");
    }
    // A bootstrap of a trillion resamples is refused before it starts, naming the field.
    let many = json!({"bot": "sevens/dvalue", "records": "sim", "resamples": 1_000_000_000_000u64});
    let reply = op.request("humanlike.run", many);
    assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("`resamples` 1 to 10000"));
    assert!(op.events.iter().all(|e| e["event"] != "replay.progress"), "no replay ran");
    assert!(!data.path().join("presets").exists(), "no preset was written");
    op.assert_alive();
}

#[test]
fn a_fit_reports_progress_serves_others_and_stops_on_cancel() {
    let data = temp_dir();
    // Four weights searched by Nelder–Mead on 60 games: seconds of replays, long enough to be
    // seen in progress (an event every half second) and cancelled.
    records(data.path(), 60);
    let server = server(data.path(), &[]);
    let mut op = session(&server, OPERATOR);
    let options = ["temperature", "w_outside", "w_run", "w_hold_ak"];
    let fit = json!({"bot": "sevens/dvalue", "records": "sim", "fit": options, "iterations": 1000});
    send(&mut op, "fit", "fit.run", fit);
    let progress = loop {
        let line = op.recv();
        if line["event"] == "replay.progress" && line["decisions"].as_u64() > Some(0) {
            break line;
        }
        assert!(line.get("ok").is_none(), "the fit answered before it was cancelled: {line}");
    };
    assert_eq!(
        (progress["request"].as_str(), progress["op"].as_str()),
        (Some("fit"), Some("fit.run"))
    );
    // Another client is served while the fit runs.
    let mut other = session(&server, PLAYER);
    other.assert_alive();
    send(&mut op, "stop", "cancel", json!({"request": "fit"}));
    let mut replies = Vec::new();
    while replies.len() < 2 {
        match op.recv_within(Duration::from_secs(10)) {
            Some(line) if line.get("ok").is_some() => replies.push(line),
            Some(_) => {}
            None => panic!("no reply within 10 s of the cancel"),
        }
    }
    let fit = replies.iter().find(|r| r["id"] == "fit").unwrap();
    assert_eq!(error_code(fit).as_deref(), Some("cancelled"), "{fit}");
    op.assert_alive();
}
