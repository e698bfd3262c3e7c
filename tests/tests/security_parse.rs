//! End-to-end tests of what a client that has not given its token can make the server do: only
//! short lines are read before the token, so a long line of unknown keys costs it nothing but
//! a `line_too_long`, and the same line is answered once the token is given.

use serde_json::{json, Value};
use yomi_e2e::{error_code, Server};

const TOKEN: &str = "a-token-of-sixteen-plus";

/// A `ping` line of `keys` unknown fields.
fn ping_with_unknown_keys(id: u64, keys: usize) -> String {
    let mut line = format!("{{\"id\":{id},\"op\":\"ping\"");
    for key in 0..keys {
        line.push_str(&format!(",\"k{key}\":0"));
    }
    line.push_str("}\n");
    line
}

#[test]
fn before_the_token_only_short_lines_are_read() {
    let server = Server::tcp(&["--token", TOKEN]);
    let mut stranger = server.connect();
    let long = ping_with_unknown_keys(1, 2_000); // about 18 KB
    stranger.send_raw(long.as_bytes());
    let reply = stranger.recv();
    assert_eq!(error_code(&reply).as_deref(), Some("line_too_long"), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-unauthenticated-line-bytes"), "{message}");
    // A short line is still answered on the same connection, and after `hello` the long one is.
    let short = ping_with_unknown_keys(2, 10);
    stranger.send_raw(short.as_bytes());
    assert_eq!(stranger.recv()["ok"], Value::Bool(true));
    stranger.ok("hello", json!({"token": TOKEN}));
    stranger.send_raw(ping_with_unknown_keys(3, 2_000).as_bytes());
    let reply = stranger.recv();
    assert_eq!(reply["ok"], Value::Bool(true), "{reply}");
}

#[test]
fn the_unauthenticated_line_limit_is_the_operators_to_set() {
    let server = Server::tcp(&["--token", TOKEN, "--max-unauthenticated-line-bytes", "65536"]);
    let mut stranger = server.connect();
    stranger.send_raw(ping_with_unknown_keys(1, 2_000).as_bytes());
    let reply = stranger.recv();
    assert_eq!(reply["ok"], Value::Bool(true), "{reply}");
}
