//! Every bad input of the protocol gets an error reply with a stable code, and the connection
//! keeps working afterwards.

use serde_json::{json, Value};
use yomi_e2e::{error_code, rps_turn, with_agent, Conn, Server};

/// Sends raw bytes that are not a usable request; checks the code, the id (`null` unless the
/// request's id could be read) and that the session goes on.
fn rejects_raw(conn: &mut Conn, line: &[u8], code: &str, id: Value) {
    conn.send_raw(line);
    let reply = conn.reply();
    assert_eq!(
        error_code(&reply).as_deref(),
        Some(code),
        "{} -> {reply}",
        String::from_utf8_lossy(line)
    );
    assert_eq!(reply["id"], id, "{reply}");
    conn.assert_alive();
}

/// Sends a request that must fail with `code`, then checks the session goes on.
fn rejects(conn: &mut Conn, op: &str, params: Value, code: &str) {
    assert_eq!(conn.err(op, params.clone()), code, "{op} {params}");
    conn.assert_alive();
}

fn framing_and_envelope(conn: &mut Conn) {
    rejects_raw(conn, b"{nope\n", "malformed_json", Value::Null);
    rejects_raw(conn, b"{\"id\": 1, \"op\": \"ping\"\n", "malformed_json", Value::Null);
    rejects_raw(conn, b"[1, 2]\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"\"ping\"\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"42\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"null\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"{\"op\": \"ping\"}\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"{\"id\": null, \"op\": \"ping\"}\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"{\"id\": [1], \"op\": \"ping\"}\n", "invalid_request", Value::Null);
    rejects_raw(conn, b"{\"id\": {\"n\": 1}, \"op\": \"ping\"}\n", "invalid_request", Value::Null);
    // Once the id is readable, even a broken request's reply carries it.
    rejects_raw(conn, b"{\"id\": 77}\n", "invalid_request", json!(77));
    rejects_raw(conn, b"{\"id\": \"x\", \"op\": 5}\n", "invalid_request", json!("x"));
    rejects_raw(conn, b"{\"id\": 78, \"op\": \"agent.dance\"}\n", "unknown_op", json!(78));
    rejects_raw(conn, b"\xff\xfe{\"id\": 1}\n", "malformed_json", Value::Null);
    rejects_raw(
        conn,
        b"{\"id\": 1, \"op\": \"ping\", \"x\": \"\xc3\x28\"}\n",
        "malformed_json",
        Value::Null,
    );
    // Nesting deep enough to overflow a naive recursive parser is refused, not a crash.
    let deep = format!(
        "{{\"id\": 1, \"op\": \"ping\", \"x\": {}{}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    rejects_raw(conn, deep.as_bytes(), "malformed_json", Value::Null);
    // Blank lines are skipped silently; CRLF line ends are fine.
    conn.send_raw(b"\n   \n{\"id\": \"crlf\", \"op\": \"ping\"}\r\n");
    assert_eq!(conn.reply()["id"], json!("crlf"));
}

fn parameters_and_names(conn: &mut Conn) {
    // Missing and ill-typed fields.
    rejects(conn, "agent.new", json!({}), "invalid_params");
    rejects(conn, "agent.new", json!({"bot": 3}), "invalid_params");
    rejects(conn, "agent.new", json!({"bot": "rps", "options": [1]}), "invalid_params");
    rejects(conn, "agent.new", json!({"bot": "rps", "seed": -1}), "invalid_params");
    rejects(conn, "agent.act", json!({}), "invalid_params");
    rejects(conn, "agent.act", json!({"agent": 5}), "invalid_params");
    rejects(conn, "agent.act", json!({"agent": "a1", "legal": "rock"}), "invalid_params");
    rejects(conn, "agent.observe", json!({"agent": "a1"}), "invalid_params");
    rejects(conn, "agent.call", json!({"agent": "a1"}), "invalid_params");
    rejects(conn, "agent.configure", json!({"agent": "a1", "options": "fast"}), "invalid_params");
    rejects(conn, "plugin.load", json!({}), "invalid_params");
    rejects(conn, "hello", json!({"protocol": "one"}), "invalid_params");

    // Unknown agent ids, for every operation that takes one.
    for op in ["agent.act", "agent.configure", "agent.swap", "agent.drop"] {
        rejects(conn, op, json!({"agent": "a999"}), "unknown_agent");
    }
    rejects(conn, "agent.observe", json!({"agent": "a999", "event": {}}), "unknown_agent");
    rejects(conn, "agent.call", json!({"agent": "a999", "method": "roll"}), "unknown_agent");

    // Unknown bots, plugins and presets.
    rejects(conn, "agent.new", json!({"bot": "chess"}), "unknown_bot");
    rejects(conn, "agent.new", json!({"bot": "example/chess"}), "unknown_bot");
    rejects(conn, "agent.new", json!({"bot": "rps", "game": "go"}), "unknown_bot");
    rejects(conn, "agent.new", json!({"bot": "nowhere/rps"}), "unknown_plugin");
    rejects(conn, "agent.new", json!({"bot": "rps", "preset": "grandmaster"}), "unknown_preset");

    // Options of the wrong type, out of range, not a choice, unknown.
    for options in [
        json!({"bias": "high"}),
        json!({"bias": 1.5}),
        json!({"bias": -0.1}),
        json!({"reading": 3}),
        json!({"reading": 1.5}),
        json!({"reading": "1"}),
        json!({"favourite": "lizard"}),
        json!({"favourite": 0}),
        json!({"colour": "red"}),
    ] {
        rejects(conn, "agent.new", json!({"bot": "rps", "options": options}), "invalid_option");
    }

    // A live agent refuses bad changes and keeps its personality.
    let id = conn.ok("agent.new", json!({"bot": "rps", "preset": "reader"}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    rejects(
        conn,
        "agent.configure",
        json!({"agent": id, "options": {"reading": 7}}),
        "invalid_option",
    );
    rejects(
        conn,
        "agent.configure",
        json!({"agent": id, "options": {"reading": 2, "bias": 9}}),
        "invalid_option",
    );
    rejects(conn, "agent.configure", json!({"agent": id, "preset": "nope"}), "unknown_preset");
    let listed = conn.ok("agent.list", json!({}));
    assert_eq!(
        listed[0]["options"]["reading"],
        json!(1),
        "a rejected change applies nothing: {listed}"
    );
    let act = conn.ok("agent.act", with_agent(&id, rps_turn("scissors", false)));
    assert_eq!(act["action"], json!("rock"));
    // An observation that does not fit the bot's observation type is refused, saying why; the
    // agent keeps playing.
    let odd = conn.request(
        "agent.act",
        with_agent(&id, json!({"observation": "??", "legal": ["rock", "paper", "scissors"]})),
    );
    assert_eq!(odd["error"]["code"], json!("invalid_params"), "{odd}");
    assert!(odd["error"]["message"].as_str().unwrap().contains("observation"), "{odd}");
    rejects(
        conn,
        "agent.act",
        with_agent(&id, json!({"observation": {"opponent_last": "lizard"}, "legal": ["rock"]})),
        "invalid_params",
    );
    // A number too large for a float, in the observation or the legal actions (which reach a bot
    // as the client's text): refused as a bad parameter, whoever reads it first.
    for (observation, legal) in [(r#"{"opponent_last": 1e400}"#, "[]"), ("null", "[1e400]")] {
        let line = format!(
            r#"{{"id": "huge", "op": "agent.act", "agent": "{id}", "observation": {observation}, "legal": {legal}}}"#
        );
        conn.send_raw(format!("{line}\n").as_bytes());
        let reply = conn.reply();
        assert_eq!(reply["error"]["code"], json!("invalid_params"), "{reply}");
        let message = &reply["error"]["message"];
        assert_eq!(message, "bad parameters for `agent.act`: number out of range", "{reply}");
    }
    assert_eq!(
        conn.ok("agent.act", with_agent(&id, rps_turn("scissors", false)))["action"],
        json!("rock")
    );
    rejects(conn, "agent.call", json!({"agent": id, "method": "roll"}), "unknown_method");
}

#[test]
fn framing_and_envelope_errors_over_stdio() {
    let mut server = Server::stdio(&[]);
    framing_and_envelope(server.conn());
}

#[test]
fn framing_and_envelope_errors_over_tcp() {
    let server = Server::tcp(&[]);
    framing_and_envelope(&mut server.connect());
}

#[test]
fn parameter_and_name_errors_over_stdio() {
    let mut server = Server::stdio(&[]);
    parameters_and_names(server.conn());
}

#[test]
fn parameter_and_name_errors_over_tcp() {
    let server = Server::tcp(&[]);
    parameters_and_names(&mut server.connect());
}

#[test]
fn lines_over_the_configured_limit_are_skipped() {
    let mut server = Server::stdio(&["--max-line-bytes", "100"]);
    let conn = server.conn();
    let padding = "x".repeat(200);
    let long = format!("{{\"id\": 1, \"op\": \"ping\", \"pad\": \"{padding}\"}}\n");
    rejects_raw(conn, long.as_bytes(), "line_too_long", Value::Null);
    // A line just under the limit is fine, and extra fields are ignored.
    let fits = format!("{{\"id\": 2, \"op\": \"ping\", \"pad\": \"{}\"}}\n", "x".repeat(60));
    assert!(fits.len() < 100);
    conn.send_raw(fits.as_bytes());
    assert_eq!(conn.reply()["ok"], json!(true));
    // A long line arriving in pieces, then a good line in the same write.
    conn.send_raw(padding.as_bytes());
    conn.send_raw(format!("{padding}\n{{\"id\": 3, \"op\": \"ping\"}}\n").as_bytes());
    assert_eq!(error_code(&conn.reply()).as_deref(), Some("line_too_long"));
    assert_eq!(conn.reply()["id"], json!(3));
}

#[test]
fn the_default_limit_is_one_mebibyte() {
    let server = Server::tcp(&[]);
    let mut conn = server.connect();
    let just_under =
        format!("{{\"id\": 1, \"op\": \"ping\", \"pad\": \"{}\"}}\n", "x".repeat((1 << 20) - 100));
    conn.send_raw(just_under.as_bytes());
    assert_eq!(conn.reply()["ok"], json!(true));
    let over = format!("{{\"id\": 2, \"op\": \"ping\", \"pad\": \"{}\"}}\n", "x".repeat(1 << 20));
    rejects_raw(&mut conn, over.as_bytes(), "line_too_long", Value::Null);
}

/// Agents belong to the session that made them: another connection cannot see or use them.
#[test]
fn agents_are_private_to_their_session() {
    let server = Server::tcp(&[]);
    let mut alice = server.connect();
    let mut bob = server.connect();
    let id = alice.ok("agent.new", json!({"bot": "rps"}))["agent"].as_str().unwrap().to_string();
    assert_eq!(bob.err("agent.act", with_agent(&id, rps_turn("rock", false))), "unknown_agent");
    assert_eq!(bob.err("agent.drop", json!({"agent": id})), "unknown_agent");
    assert_eq!(bob.ok("agent.list", json!({})), json!([]));
    assert!(alice.ok("agent.act", with_agent(&id, rps_turn("rock", false)))["action"].is_string());
}
