//! Slow, idle and greedy clients: the limits and timeouts of `yomi serve` (PROTOCOL.md,
//! "Transports, limits and shutdown") close them with a logged reason or refuse them with
//! `limit_exceeded`, while other clients keep being served and shutdown stays bounded.

use std::io::{ErrorKind, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;
use yomi_e2e::{install_misbehave, temp_dir, Server};

/// Longer than any limit these tests configure plus the server's timer tick, with room for a
/// loaded machine: a closing that takes longer than this did not happen.
const CLOSE_WAIT: Duration = Duration::from_secs(15);

/// Writes `catalog` requests for `period` without ever reading a reply, as fast as the socket
/// takes them, or until the server closes the connection. Returns how many requests went out.
fn flood_without_reading(stream: &mut TcpStream, period: Duration) -> usize {
    let batch = "{\"id\":1,\"op\":\"catalog\"}\n".repeat(50);
    stream.set_nonblocking(true).unwrap();
    let (start, mut sent) = (Instant::now(), 0);
    while start.elapsed() < period {
        match stream.write(batch.as_bytes()) {
            Ok(n) if n == batch.len() => sent += 50,
            // A partial write leaves a broken line behind: finish it so every request is whole.
            Ok(n) => {
                stream.set_nonblocking(false).unwrap();
                if stream.write_all(&batch.as_bytes()[n..]).is_err() {
                    break;
                }
                stream.set_nonblocking(true).unwrap();
                sent += 50;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10))
            }
            // The server closed the connection (what a write timeout does).
            Err(_) => break,
        }
    }
    sent
}

/// Issue 18.1: a client that sends requests and never reads must not keep SIGTERM from ending
/// the server within its shutdown grace.
#[test]
fn sigterm_ends_the_server_while_a_client_never_reads() {
    let mut server = Server::tcp(&[]);
    let mut greedy = TcpStream::connect(server.addr.unwrap()).unwrap();
    let sent = flood_without_reading(&mut greedy, Duration::from_secs(2));
    assert!(sent > 1000, "the flood should fill every buffer; only {sent} requests went out");
    server.terminate();
    // The grace is 3 s; the margin is for a loaded machine, far below the 20 s of the defect.
    let status = server.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "exit status {status}; log:\n{}", server.log());
}

/// Bounded outbox: a client that never reads is closed after `--write-timeout`, with the reason
/// in the log, and the server keeps serving others.
#[test]
fn a_client_that_never_reads_is_closed_after_the_write_timeout() {
    let server = Server::tcp(&["--write-timeout", "1"]);
    let mut greedy = TcpStream::connect(server.addr.unwrap()).unwrap();
    flood_without_reading(&mut greedy, Duration::from_secs(3));
    let log = server.wait_log(&["--write-timeout"]);
    assert!(log.contains("closing the connection"), "{log}");
    server.connect().assert_alive();
}

/// A client that trickles a request one byte at a time is closed after `--line-timeout`.
#[test]
fn a_trickling_client_is_closed_after_the_line_timeout() {
    let server = Server::tcp(&["--line-timeout", "1"]);
    let mut slow = server.connect();
    slow.assert_alive();
    let start = Instant::now();
    let mut closed = false;
    for byte in b"{\"id\":2,\"op\":\"ping\"}".iter().cycle() {
        if slow.try_send_raw(&[*byte]).is_err() || start.elapsed() > CLOSE_WAIT {
            break;
        }
        if slow.is_closed_within(Duration::from_millis(300)) {
            closed = true;
            break;
        }
    }
    assert!(closed, "still open after {:?}; log:\n{}", start.elapsed(), server.log());
    server.wait_log(&["--line-timeout"]);
    server.connect().assert_alive();
}

/// A line with no newline is a line that never finishes: the same timeout closes it.
#[test]
fn a_line_without_newline_is_closed_after_the_line_timeout() {
    let server = Server::tcp(&["--line-timeout", "1"]);
    let mut stuck = server.connect();
    stuck.send_raw(b"{\"id\":1,\"op\":\"ping\"}");
    assert!(stuck.is_closed_within(CLOSE_WAIT), "log:\n{}", server.log());
    server.wait_log(&["--line-timeout"]);
}

/// A client that sends nothing is closed after `--idle-timeout` ...
#[test]
fn an_idle_client_is_closed_after_the_idle_timeout() {
    let server = Server::tcp(&["--idle-timeout", "1"]);
    let mut idle = server.connect();
    idle.assert_alive();
    assert!(idle.is_closed_within(CLOSE_WAIT), "log:\n{}", server.log());
    server.wait_log(&["--idle-timeout"]);
}

/// ... but not while one of its matches runs (here one waiting for the client's own move).
#[test]
fn a_client_with_a_match_running_is_not_idle() {
    let server = Server::tcp(&["--idle-timeout", "1"]);
    let mut player = server.connect();
    player.send(&json!({"id": 1, "op": "match.run", "game": "rps", "seed": 1,
                        "seats": [{"bot": "example/rps"}, {"client": "me"}]}));
    let turn = player.recv();
    let turn = if turn["event"] == "match.started" { player.recv() } else { turn };
    assert_eq!(turn["event"], json!("your_turn"), "{turn}");
    assert!(!player.is_closed_within(Duration::from_secs(3)), "closed while its match runs");
}

/// `--max-agents`: one agent too many is refused with `limit_exceeded`; dropping one makes room.
#[test]
fn agents_beyond_the_session_limit_are_refused() {
    let server = Server::tcp(&["--max-agents", "2"]);
    let mut client = server.connect();
    let first = client.ok("agent.new", json!({"bot": "example/rps"}))["agent"].clone();
    client.ok("agent.new", json!({"bot": "example/rps"}));
    assert_eq!(client.err("agent.new", json!({"bot": "example/rps"})), "limit_exceeded");
    // The limit is per session: another client has its own room.
    server.connect().ok("agent.new", json!({"bot": "example/rps"}));
    client.ok("agent.drop", json!({"agent": first}));
    client.ok("agent.new", json!({"bot": "example/rps"}));
}

/// `--max-background`: a second match while one runs is refused with `limit_exceeded`.
#[test]
fn background_operations_beyond_the_session_limit_are_refused() {
    let server = Server::tcp(&["--max-background", "1"]);
    let mut client = server.connect();
    client.send(&json!({"id": 1, "op": "match.run", "game": "rps", "seed": 1,
                        "seats": [{"bot": "example/rps"}, {"client": "me"}]}));
    let code = client.err(
        "match.run",
        json!({"game": "rps", "seed": 2, "seats": [{"bot": "example/rps"}, {"bot": "example/rps"}]}),
    );
    assert_eq!(code, "limit_exceeded");
    client.assert_alive();
}

/// Issue 16's known hole: a client that hangs up while its in-process bot is stuck in a call
/// must give its connection slot back (here the only one).
#[test]
fn a_hang_up_during_a_stuck_call_frees_the_connection_slot() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let server = Server::tcp(&[
        "--max-connections",
        "1",
        "--plugins",
        yomi_e2e::target_dir().to_str().unwrap(),
        "--plugins",
        dir.path().to_str().unwrap(),
    ]);
    let mut stuck = server.connect();
    stuck.ok("plugin.load", json!({"path": lib}));
    let agent = stuck.ok("agent.new", json!({"bot": "misbehave", "options": {"on_act": "hang"}}))
        ["agent"]
        .clone();
    stuck.send(&json!({"id": "never", "op": "agent.act", "agent": agent, "observation": {}, "legal": ["rock"]}));
    std::thread::sleep(Duration::from_millis(200));
    drop(stuck);
    let mut next = server.connect_when_free();
    next.assert_alive();
    server.wait_log(&["abandoning it"]);
}
