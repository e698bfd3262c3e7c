//! People's games kept as human records (`yomi serve --record-people NAME`): off by default,
//! announced in `hello` when on, and then every decision a client seat answers, and only those,
//! lands in the data directory's record set NAME-GAME, which `humanlike` then reads.

use serde_json::{json, Value};
use yomi_e2e::{temp_dir, yomi_in, Conn, Server};

/// Plays a `match.run` of `params` with the client in seat 0, always its first legal action;
/// returns the reply's result and how many turns the client answered.
fn play_first_legal(conn: &mut Conn, mut params: Value) -> (Value, usize) {
    params["id"] = json!("run");
    params["op"] = json!("match.run");
    conn.send(&params);
    let mut answered = 0;
    loop {
        let line = conn.recv();
        if line["id"] == "run" {
            assert_eq!(line["ok"], json!(true), "{line}");
            return (line["result"].clone(), answered);
        }
        if line["event"] == "your_turn" {
            answered += 1;
            conn.send(&json!({"id": format!("move{answered}"), "op": "match.move",
                "match": line["match"], "seat": 0, "action": line["legal"][0]}));
        }
    }
}

fn rps_match() -> Value {
    json!({"game": "rps", "seed": 3, "games": 2, "game_options": {"rounds": 4},
        "seats": [{"client": "ana"}, {"bot": "example/rps"}]})
}

#[test]
fn a_persons_decisions_are_kept_only_when_the_operator_says_so() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    let mut server = Server::stdio(&["--data-dir", dir, "--record-people", "people"]);
    let conn = server.conn();
    assert_eq!(conn.ok("hello", json!({}))["recording"], json!("people"));
    let (result, answered) = play_first_legal(conn, rps_match());
    assert_eq!(answered, 8, "two games of four throws");
    assert!(result.get("transcript").is_none(), "kept for the records, not sent unasked");
    // The same match again, seed and all: its games are plays of their own, added at the end.
    play_first_legal(conn, rps_match());
    // A match of bots alone keeps nothing: no person played.
    let bots = json!({"game": "rps", "seed": 4, "games": 1, "game_options": {"rounds": 4},
        "seats": [{"bot": "example/rps"}, {"bot": "example/rps"}]});
    conn.ok("match.run", bots);

    let text = std::fs::read_to_string(data.path().join("humans/people-rps.jsonl")).unwrap();
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 16, "the person's eight throws twice, not the bot's:\n{text}");
    let plays: std::collections::BTreeSet<&str> =
        records.iter().map(|r| r["play"].as_str().unwrap()).collect();
    assert_eq!(plays.len(), 4, "two games in each of two matches: {plays:?}");
    for record in &records {
        assert_eq!((&record["seat"], &record["player"]), (&json!(0), &json!("ana")), "{record}");
        assert_eq!(record["action"], record["legal"][0], "{record}");
        assert!(record["think_ms"].is_u64(), "a person's time to answer: {record}");
    }
    // The set is an ordinary record set: `humanlike` scores the bot on it.
    let out = yomi_e2e::run_ok(yomi_in(data.path()).args([
        "humanlike",
        "example/rps",
        "--records",
        "people-rps",
        "--json",
    ]));
    assert_eq!(yomi_e2e::json_out(&out)["decisions"], json!(16));
}

#[test]
fn without_the_flag_nothing_is_kept_and_hello_says_nothing() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    let mut server = Server::stdio(&["--data-dir", dir]);
    let conn = server.conn();
    assert!(conn.ok("hello", json!({})).get("recording").is_none());
    play_first_legal(conn, rps_match());
    assert!(!data.path().join("humans").exists());
}

#[test]
fn a_record_set_name_that_could_be_a_path_stops_the_server_at_start() {
    let data = temp_dir();
    let out = yomi_in(data.path()).args(["serve", "--record-people", "../x"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a record set's name is 1 to 64 letters"), "{stderr}");
}
