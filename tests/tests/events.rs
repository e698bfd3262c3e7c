//! The events on the wire against the protocol's schema (protocol/schema.json): a match with a
//! client seat and a tournament send every kind, each line with the fields its kind's payload has.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use yomi_e2e::Server;

/// Each event kind of the schema with its payload's required fields and all its fields.
fn kinds() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../protocol/schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let names = |list: &Value| -> BTreeSet<String> {
        match list {
            Value::Array(items) => items.iter().map(|n| n.as_str().unwrap().to_string()).collect(),
            Value::Object(map) => map.keys().cloned().collect(),
            other => panic!("not a list of fields: {other}"),
        }
    };
    let events = schema["events"].as_object().unwrap();
    events
        .iter()
        .map(|(kind, payload)| {
            let pointer = payload["$ref"].as_str().unwrap().trim_start_matches('#');
            let payload = schema.pointer(pointer).unwrap();
            (kind.clone(), (names(&payload["required"]), names(&payload["properties"])))
        })
        .collect()
}

#[test]
fn every_event_line_has_the_fields_of_its_kind_in_the_schema() {
    // A record set in the data directory, for a `humanlike.run` and its `replay.progress`.
    let data = yomi_e2e::temp_dir();
    let example =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/records/sevens-temperature-2.jsonl");
    yomi_e2e::run_ok(yomi_e2e::yomi_in(data.path()).args(["records", "import", "syn", example]));
    let mut server = Server::stdio(&["--data-dir", data.path().to_str().unwrap()]);
    let conn = server.conn();
    let run = json!({"id": "m", "op": "match.run", "game": "rps", "game_options": {"rounds": 2},
                     "seed": 1, "games": 2, "seats": [{"bot": "example/rps"}, {"client": "me"}]});
    conn.send(&run);
    let mut events = Vec::new();
    loop {
        let line = conn.recv();
        if line.get("ok").is_some() {
            assert_eq!(line["ok"], json!(true), "{line}");
            if line["id"] == json!("m") {
                break;
            }
            continue;
        }
        if line["event"] == json!("your_turn") {
            let id = conn.next_id();
            conn.send(&json!({"id": id, "op": "match.move", "match": line["match"],
                              "seat": line["seat"], "action": line["legal"][0]}));
        }
        events.push(line);
    }
    // Its events carry the tournament's `id`, yet they are events, not replies.
    let spec = json!({"game": "rps", "games_per_pair": 2, "seed": 3,
                      "bots": [{"bot": "example/rps"}, {"bot": "example/rps", "preset": "reader"}]});
    let summary = conn.ok("tournament.run", spec);
    assert!(conn.events.iter().all(|e| e["id"] == summary["id"]), "{:?}", conn.events);
    events.append(&mut conn.events);
    conn.ok("humanlike.run", json!({"bot": "sevens/dvalue", "records": "syn", "resamples": 10}));
    events.append(&mut conn.events);

    let kinds = kinds();
    let mut seen = BTreeSet::new();
    for line in &events {
        let kind = line["event"].as_str().unwrap();
        let (required, fields) =
            kinds.get(kind).unwrap_or_else(|| panic!("`{kind}` is not in the schema: {line}"));
        let mut given: BTreeSet<String> = line.as_object().unwrap().keys().cloned().collect();
        given.remove("event");
        assert!(required.is_subset(&given), "{kind} lacks {:?}: {line}", required - &given);
        assert!(given.is_subset(fields), "{kind} has {:?} beyond its schema", &given - fields);
        seen.insert(kind.to_string());
    }
    let every: BTreeSet<String> = kinds.into_keys().collect();
    assert_eq!(seen, every, "a kind of the schema that these runs did not send");
}

/// `protocol/schema.json` is what `yomi schema` prints with the shipped plugins: the protocol's
/// part and each game's payload schemas (`games`).
#[test]
fn the_checked_in_schema_is_yomi_schema_with_the_shipped_games() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../protocol/schema.json");
    let data = yomi_e2e::temp_dir();
    let printed = yomi_e2e::run_ok(yomi_e2e::yomi_in(data.path()).arg("schema"));
    let checked_in = std::fs::read_to_string(path).unwrap();
    assert!(
        String::from_utf8_lossy(&printed.stdout) == checked_in,
        "regenerate it with `./target/release/yomi schema > protocol/schema.json`"
    );
    let schema: Value = serde_json::from_str(&checked_in).unwrap();
    for game in ["battle", "rps", "sevens", "sugoroku"] {
        let payload = &schema["games"][game];
        assert!(payload["observation"].is_object() && payload["action"].is_object(), "{game}");
    }
}
