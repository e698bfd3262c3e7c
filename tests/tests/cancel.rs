//! End-to-end tests of `cancel`: each kind of request is stopped and answered `cancelled` exactly
//! once, the cancel itself says what it stopped, a cancel racing the answer still leaves one
//! reply, and a client that hangs up stops its bot's work.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{
    error_code, library, rps_turn, target_dir, temp_dir, with_agent, workers_of, Conn, Server,
};

/// Sends `{"id": id, "op": op, ...params}` without waiting for the reply.
fn send(conn: &mut Conn, id: &str, op: &str, params: Value) {
    let mut request = params;
    request["id"] = json!(id);
    request["op"] = json!(op);
    conn.send(&request);
}

/// Reads lines until every id in `ids` has had a reply; returns them by id, each checked to come
/// only once. Events (which may carry an `id` of their own, a tournament's) are skipped.
fn replies(conn: &mut Conn, ids: &[&str]) -> BTreeMap<String, Value> {
    let mut got = BTreeMap::new();
    while ids.iter().any(|id| !got.contains_key(*id)) {
        let line = conn.recv();
        if line.get("ok").is_none() {
            continue;
        }
        let Some(id) = line.get("id").and_then(Value::as_str) else { continue };
        assert!(got.insert(id.to_string(), line.clone()).is_none(), "two replies for {id}: {line}");
    }
    got
}

/// No reply with this id comes before a `ping` sent now is answered.
fn no_more_replies_for(conn: &mut Conn, id: &str) {
    send(conn, "flush", "ping", json!({}));
    loop {
        let line = conn.recv();
        assert_ne!(line["id"], json!(id), "a second reply: {line}");
        if line["id"] == json!("flush") {
            return;
        }
    }
}

fn stopped(reply: &Value) -> Vec<(String, String)> {
    assert_eq!(reply["ok"], json!(true), "{reply}");
    let list = reply["result"]["stopped"].as_array().expect("a list of what was stopped");
    let mut stopped: Vec<(String, String)> = list
        .iter()
        .map(|s| {
            (s["request"].as_str().unwrap().to_string(), s["op"].as_str().unwrap().to_string())
        })
        .collect();
    stopped.sort();
    stopped
}

fn pair(id: &str, op: &str) -> (String, String) {
    (id.to_string(), op.to_string())
}

fn assert_cancelled(reply: &Value) {
    assert_eq!(error_code(reply).as_deref(), Some("cancelled"), "{reply}");
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A TCP server with the misbehaving fixture and metrics on a port of their own.
fn server_with_metrics() -> (Server, String) {
    let addr = format!("127.0.0.1:{}", free_port());
    let plugins = target_dir().to_str().unwrap().to_string();
    let misbehave = library("fixture_misbehave").to_str().unwrap().to_string();
    let server = Server::tcp(&["--metrics", &addr, "--plugins", &plugins, "--plugins", &misbehave]);
    (server, addr)
}

/// `yomi_service_calls_running` now (0 before any service call made the gauge).
fn service_calls_running(metrics: &str) -> f64 {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(metrics).unwrap();
    write!(stream, "GET /metrics HTTP/1.1\r\nHost: {metrics}\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
        .lines()
        .find_map(|l| l.strip_prefix("yomi_service_calls_running "))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

/// Waits until the gauge shows `calls` service calls running; how long that took.
fn wait_for_running(metrics: &str, calls: f64, within: Duration) -> Duration {
    let start = Instant::now();
    while service_calls_running(metrics) != calls {
        assert!(
            start.elapsed() < within,
            "{calls} service calls were not running within {within:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    start.elapsed()
}

fn misbehave_agent(conn: &mut Conn, options: Value) -> String {
    let made = conn.ok("agent.new", json!({"bot": "misbehave/misbehave", "options": options}));
    made["agent"].as_str().unwrap().to_string()
}

#[test]
fn a_running_service_call_is_answered_cancelled_at_once_and_its_bot_stops() {
    let (server, metrics) = server_with_metrics();
    let mut conn = server.connect();
    let agent = misbehave_agent(&mut conn, json!({}));
    let spin = json!({"agent": agent, "method": "spin", "params": {"seconds": 60}});
    send(&mut conn, "spin", "agent.call", spin);
    wait_for_running(&metrics, 1.0, Duration::from_secs(10));
    let started = Instant::now();
    send(&mut conn, "stop", "cancel", json!({"request": "spin"}));
    let got = replies(&mut conn, &["spin", "stop"]);
    assert!(started.elapsed() < Duration::from_secs(2), "answered after {:?}", started.elapsed());
    assert_cancelled(&got["spin"]);
    assert_eq!(stopped(&got["stop"]), [pair("spin", "agent.call")]);
    // The bot polls the flag: its thread is free again at once, and the agent serves on.
    wait_for_running(&metrics, 0.0, Duration::from_secs(2));
    let echo = conn.ok("agent.call", json!({"agent": agent, "method": "echo", "params": {}}));
    assert_eq!(echo["method"], json!("echo"));
    no_more_replies_for(&mut conn, "spin");
}

#[test]
fn work_that_cannot_be_interrupted_finishes_but_its_answer_is_dropped() {
    let (server, metrics) = server_with_metrics();
    let mut conn = server.connect();
    let agent = misbehave_agent(&mut conn, json!({}));
    // A bot that never looks at the flag: the cancel is answered at once all the same.
    let spin = json!({"agent": agent, "method": "spin", "params": {"seconds": 1.5, "poll": false}});
    send(&mut conn, "stubborn", "agent.call", spin);
    wait_for_running(&metrics, 1.0, Duration::from_secs(10));
    send(&mut conn, "stop", "cancel", json!({"request": "stubborn"}));
    let got = replies(&mut conn, &["stubborn", "stop"]);
    assert_cancelled(&got["stubborn"]);
    let message = got["stubborn"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("answer is dropped"), "{message}");
    assert_eq!(service_calls_running(&metrics), 1.0, "still running in the bot");
    wait_for_running(&metrics, 0.0, Duration::from_secs(5));
    no_more_replies_for(&mut conn, "stubborn");

    // An act running in a bot that hangs: cancelled at once, the thread stays with the bot.
    let hanging = misbehave_agent(&mut conn, json!({"on_act": "hang"}));
    send(&mut conn, "act", "agent.act", with_agent(&hanging, rps_turn("rock", false)));
    std::thread::sleep(Duration::from_millis(200));
    send(&mut conn, "stop-act", "cancel", json!({"request": "act"}));
    let got = replies(&mut conn, &["act", "stop-act"]);
    assert_cancelled(&got["act"]);
    assert_eq!(stopped(&got["stop-act"]), [pair("act", "agent.act")]);
    conn.assert_alive();
}

#[test]
fn a_queued_request_is_taken_out_of_the_queue_and_the_others_keep_their_order() {
    let (server, metrics) = server_with_metrics();
    let mut conn = server.connect();
    let agent = misbehave_agent(&mut conn, json!({}));
    let rps =
        conn.ok("agent.new", json!({"bot": "example/rps"}))["agent"].as_str().unwrap().to_string();
    let spin = json!({"agent": agent, "method": "spin", "params": {"seconds": 1, "poll": false}});
    send(&mut conn, "first", "agent.call", spin);
    wait_for_running(&metrics, 1.0, Duration::from_secs(10));
    send(&mut conn, "second", "agent.act", with_agent(&rps, rps_turn("rock", false)));
    send(&mut conn, "third", "ping", json!({}));
    send(&mut conn, "fourth", "agent.act", with_agent(&rps, rps_turn("paper", false)));
    send(&mut conn, "stop", "cancel", json!({"request": "third"}));
    // The cancel and the queued request it stopped are answered before the running call ends.
    let first_two: Vec<Value> = (0..2).map(|_| conn.recv()).collect();
    let ids: Vec<&Value> = first_two.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!("third"), &json!("stop")], "{first_two:?}");
    assert_cancelled(&first_two[0]);
    assert_eq!(stopped(&first_two[1]), [pair("third", "ping")]);
    let rest: Vec<Value> = (0..3).map(|_| conn.recv()).collect();
    let ids: Vec<&Value> = rest.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!("first"), &json!("second"), &json!("fourth")], "{rest:?}");
    assert!(rest.iter().all(|r| r["ok"] == json!(true)), "{rest:?}");
}

#[test]
fn a_match_and_a_tournament_are_cancelled_and_the_tournament_resumes() {
    let dir = temp_dir();
    let mut server = Server::stdio(&["--data-dir", dir.path().to_str().unwrap()]);
    let conn = server.conn();
    // A match waiting for a client's move runs until it is cancelled.
    let seats = json!([{"bot": "example/rps"}, {"client": "me"}]);
    send(conn, "m", "match.run", json!({"game": "rps", "seats": seats}));
    send(conn, "stop-m", "cancel", json!({"request": "m"}));
    let got = replies(conn, &["m", "stop-m"]);
    assert_cancelled(&got["m"]);
    assert_eq!(stopped(&got["stop-m"]), [pair("m", "match.run")]);

    let bots = vec![json!({"bot": "example/rps"}); 6];
    let spec = json!({"game": "rps", "bots": bots, "games_per_pair": 20_000, "tournament": "cup"});
    send(conn, "t", "tournament.run", spec);
    // Cancelled once it has played some games.
    let started = Instant::now();
    loop {
        let line = conn.recv();
        assert!(line.get("ok").is_none(), "the tournament ended before it was cancelled: {line}");
        if line["event"] == json!("tournament.progress") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no progress");
    }
    send(conn, "stop-t", "cancel", json!({"request": "t"}));
    let got = replies(conn, &["t", "stop-t"]);
    assert_cancelled(&got["t"]);
    assert!(got["t"]["error"]["message"].as_str().unwrap().contains("resume"), "{}", got["t"]);
    assert_eq!(stopped(&got["stop-t"]), [pair("t", "tournament.run")]);
    let listed = conn.ok("tournament.list", json!({}));
    let cup = listed.as_array().unwrap().iter().find(|t| t["id"] == json!("cup")).unwrap().clone();
    let played = cup["games"].as_u64().unwrap();
    assert!(played > 0 && played < cup["total"].as_u64().unwrap(), "{cup}");
    // Resumable as after a disconnect: it goes on from the games it had recorded.
    send(conn, "again", "tournament.run", json!({"resume": "cup"}));
    loop {
        let line = conn.recv();
        if line["event"] == json!("tournament.progress") {
            assert!(line["games"].as_u64().unwrap() > played, "{line}");
            break;
        }
        assert!(line.get("ok").is_none(), "{line}");
    }
    send(conn, "stop-again", "cancel", json!({"request": "again"}));
    let got = replies(conn, &["again", "stop-again"]);
    assert_cancelled(&got["again"]);
}

#[test]
fn a_cancelled_match_kills_its_isolated_bots_and_the_next_match_starts_new_ones() {
    let (server, _) = server_with_metrics();
    let mut conn = server.connect();
    // An isolated bot that never answers: its match runs until it is cancelled.
    let hanging =
        json!({"bot": "misbehave/misbehave", "options": {"on_act": "hang"}, "isolate": true});
    let seats = json!([hanging, {"bot": "example/rps", "isolate": true}]);
    send(&mut conn, "m", "match.run", json!({"game": "rps", "seats": seats}));
    let start = Instant::now();
    while workers_of(server.pid()) < 2 {
        assert!(start.elapsed() < Duration::from_secs(10), "the workers never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    send(&mut conn, "stop", "cancel", json!({"request": "m"}));
    let got = replies(&mut conn, &["m", "stop"]);
    assert_cancelled(&got["m"]);
    while workers_of(server.pid()) > 0 {
        assert!(start.elapsed() < Duration::from_secs(10), "the workers outlived their match");
        std::thread::sleep(Duration::from_millis(20));
    }
    let isolated = json!([{"bot": "example/rps", "isolate": true}, {"bot": "example/rps"}]);
    let result = conn.ok("match.run", json!({"game": "rps", "games": 2, "seats": isolated}));
    assert_eq!(result["games"], json!(2));
}

#[test]
fn cancel_all_stops_everything_of_the_session_and_only_of_it() {
    let (server, metrics) = server_with_metrics();
    let mut other = server.connect();
    let mut conn = server.connect();
    let agent = misbehave_agent(&mut conn, json!({}));
    let theirs = misbehave_agent(&mut other, json!({}));
    let seats = json!([{"bot": "example/rps"}, {"client": "me"}]);
    send(
        &mut other,
        "their-spin",
        "agent.call",
        json!({"agent": theirs, "method": "spin", "params": {"seconds": 2}}),
    );
    send(&mut conn, "m", "match.run", json!({"game": "rps", "seats": seats}));
    send(
        &mut conn,
        "spin",
        "agent.call",
        json!({"agent": agent, "method": "spin", "params": {"seconds": 60}}),
    );
    send(&mut conn, "queued", "ping", json!({}));
    wait_for_running(&metrics, 2.0, Duration::from_secs(10));
    send(&mut conn, "all", "cancel", json!({"all": true}));
    let got = replies(&mut conn, &["m", "spin", "queued", "all"]);
    for id in ["m", "spin", "queued"] {
        assert_cancelled(&got[id]);
    }
    let expected = [pair("m", "match.run"), pair("queued", "ping"), pair("spin", "agent.call")];
    assert_eq!(stopped(&got["all"]), expected);
    // The other client's call runs to its end.
    let theirs = replies(&mut other, &["their-spin"]);
    assert_eq!(theirs["their-spin"]["result"]["cancelled"], json!(false), "{theirs:?}");
    // A cancel of a request already answered stops nothing, and says so.
    assert_eq!(stopped(&conn.request("cancel", json!({"request": "spin"}))), []);
    assert_eq!(conn.err("cancel", json!({})), "invalid_params");
}

#[test]
fn a_cancel_racing_the_answer_still_leaves_exactly_one_reply() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let agent =
        conn.ok("agent.new", json!({"bot": "example/rps"}))["agent"].as_str().unwrap().to_string();
    let (mut answered, mut cancelled) = (0, 0);
    for i in 0..200 {
        let id = format!("act-{i}");
        // Both lines in one write: the cancel arrives while the act runs, or after it answered.
        let mut act = with_agent(&agent, rps_turn("rock", false));
        act["id"] = json!(id);
        act["op"] = json!("agent.act");
        let cancel = json!({"id": format!("stop-{i}"), "op": "cancel", "request": id});
        conn.send_raw(format!("{act}\n{cancel}\n").as_bytes());
        let got = replies(conn, &[&id, &format!("stop-{i}")]);
        let stopped = stopped(&got[&format!("stop-{i}")]);
        match error_code(&got[&id]) {
            None => {
                assert!(stopped.is_empty(), "answered, yet the cancel claims it: {got:?}");
                answered += 1;
            }
            Some(code) => {
                assert_eq!(code, "cancelled");
                assert_eq!(stopped, [pair(&id, "agent.act")]);
                cancelled += 1;
            }
        }
    }
    no_more_replies_for(conn, "act-199");
    assert_eq!(answered + cancelled, 200);
}

#[test]
fn a_client_that_hangs_up_stops_its_bots_work() {
    let (server, metrics) = server_with_metrics();
    let mut conn = server.connect();
    let agent = misbehave_agent(&mut conn, json!({}));
    let spin = json!({"agent": agent, "method": "spin", "params": {"seconds": 120}});
    for i in 0..3 {
        // Each request waits for the one before: one runs, two are queued.
        send(&mut conn, &format!("spin-{i}"), "agent.call", spin.clone());
    }
    wait_for_running(&metrics, 1.0, Duration::from_secs(10));
    drop(conn);
    // The connection gives a running request a grace of 3 s, then stops it: the bot's thread is
    // free long before the 120 s the call asked for, and the queued calls never start.
    let took = wait_for_running(&metrics, 0.0, Duration::from_secs(10));
    assert!(took < Duration::from_secs(6), "the bot stopped only after {took:?}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(service_calls_running(&metrics), 0.0);
}
