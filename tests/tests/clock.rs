//! End-to-end tests of game clocks (`--tc`): a seat that runs out of its clock loses on time,
//! counted as a `time` failure; a generous clock changes no result; a bad time control is
//! refused before any game starts; a client seat is shown its own clock, and only its own.

use std::time::Duration;

use serde_json::{json, Value};
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in as yomi, Conn, Server};

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

/// How long the client takes over each move, so its clock visibly runs down.
const CLIENT_THINKS: Duration = Duration::from_millis(20);

/// A match of rps with the client in seat 0 and the example bot in seat 1 under `policy`: every
/// line the client received, and the match's transcript.
fn client_match(conn: &mut Conn, policy: Value) -> (Vec<Value>, Vec<Value>) {
    conn.send(&json!({"id": "run", "op": "match.run", "game": "rps", "seed": 5,
        "game_options": {"rounds": 5}, "policy": policy, "transcript": true,
        "seats": [{"client": "me"}, {"bot": "example/rps"}]}));
    let mut seen = Vec::new();
    loop {
        let line = conn.recv();
        if line["id"] == "run" {
            assert_eq!(line["ok"], json!(true), "{line}");
            return (seen, line["result"]["transcript"].as_array().unwrap().clone());
        }
        if line["event"] == "your_turn" {
            std::thread::sleep(CLIENT_THINKS);
            conn.send(&json!({"id": "move", "op": "match.move", "match": line["match"],
                "seat": 0, "action": line["legal"][0]}));
        }
        seen.push(line);
    }
}

/// The clocks of the transcript's decision lines of `seat`.
fn decision_clocks(transcript: &[Value], seat: u64) -> Vec<Value> {
    transcript
        .iter()
        .filter(|l| l["type"] == "decision" && l["seat"] == seat)
        .map(|l| l["clock"].clone())
        .collect()
}

#[test]
fn a_client_seat_sees_its_own_clock_run_down_and_no_other() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let (seen, transcript) = client_match(conn, json!({"tc": "10/60"}));
    let turns: Vec<&Value> = seen.iter().filter(|l| l["event"] == "your_turn").collect();
    assert_eq!(turns.len(), 5, "one turn a round");
    let shown: Vec<Value> = turns.iter().map(|t| t["clock"].clone()).collect();
    for (k, clock) in shown.iter().enumerate() {
        assert_eq!(clock["increment_ms"], json!(0), "{clock}");
        assert_eq!(clock["moves_to_go"], json!(10 - k), "{clock}");
    }
    let remaining: Vec<u64> = shown.iter().map(|c| c["remaining_ms"].as_u64().unwrap()).collect();
    assert_eq!(remaining[0], 60_000, "the whole base before the first move");
    for pair in remaining.windows(2) {
        assert!(
            pair[1] + CLIENT_THINKS.as_millis() as u64 <= pair[0],
            "each move is charged to the client's clock: {remaining:?}"
        );
    }
    // Every clock the client saw is seat 0's as the referee recorded it, and seat 1's (a bot that
    // answers at once) ran differently, so the client was not shown it.
    assert_eq!(shown, decision_clocks(&transcript, 0));
    let bots = decision_clocks(&transcript, 1);
    assert_eq!(bots.len(), 5);
    assert_ne!(bots, shown, "the two seats' clocks ran apart");
    for line in seen.iter().filter(|l| l["event"] != "your_turn") {
        assert!(!line.to_string().contains("remaining_ms"), "a clock outside a turn: {line}");
    }
}

#[test]
fn without_a_clock_no_turn_and_no_transcript_line_carries_one() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let (seen, transcript) = client_match(conn, json!({}));
    assert!(seen.iter().any(|l| l["event"] == "your_turn"));
    for line in seen.iter().chain(&transcript) {
        assert!(
            !line.to_string().contains("remaining_ms"),
            "a clock without a time control: {line}"
        );
    }
}

/// Over the protocol: a malformed `tc` in `match.run` or `tournament.run` is `invalid_params`
/// naming the string, before any game starts (no event, no recorded tournament), and the session
/// serves on.
#[test]
fn a_bad_tc_over_the_protocol_is_invalid_params_naming_it_and_the_session_serves_on() {
    let tmp = temp_dir();
    let mut server = Server::stdio(&["--data-dir", tmp.path().to_str().unwrap()]);
    let conn = server.conn();
    let bots = json!([{"bot": "example/rps"}, {"bot": "example/rps"}]);
    let seats = json!([{"bot": "example/rps"}, {"bot": "example/rps"}]);
    for tc in ["garbage", "0", "40/", "60+1+2"] {
        let policy = json!({"tc": tc});
        let requests = [
            ("match.run", json!({"game": "rps", "seats": seats, "policy": policy})),
            ("tournament.run", json!({"game": "rps", "bots": bots, "policy": policy})),
        ];
        for (op, params) in requests {
            let reply = conn.request(op, params);
            assert_eq!(reply["error"]["code"], "invalid_params", "{op} {tc}: {reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(message.contains(&format!("bad time control {tc:?}")), "{op}: {message}");
            assert!(conn.events.is_empty(), "{op} {tc} started something: {:?}", conn.events);
            conn.assert_alive();
        }
    }
    let listed = conn.ok("tournament.list", json!({}));
    assert_eq!(listed, json!([]), "no refused tournament was recorded");
    let played =
        conn.ok("match.run", json!({"game": "rps", "seats": seats, "policy": {"tc": "60"}}));
    assert_eq!(played["games"], json!(1), "a good clock still plays: {played}");
}
