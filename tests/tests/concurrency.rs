//! Many TCP clients at once: each session is answered on its own, and a request that never ends
//! on one connection does not stall the others.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{json, Value};
use yomi_e2e::{install_misbehave, rps_turn, temp_dir, with_agent, Conn, Server};

/// Clients stuck on a bot that never answers do not hold up anyone else. There are more stuck
/// clients than the server has reactor threads (one per core), so this also shows that plugin calls
/// run off the reactor: were they on it, the stuck calls would occupy every reactor thread.
#[test]
fn a_stuck_request_on_one_connection_does_not_stall_another() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let server = Server::tcp_with_dir(dir.path());
    let reactor_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut stuck_clients: Vec<_> = (0..reactor_threads + 2)
        .map(|_| {
            let mut a = server.connect();
            a.ok("plugin.load", json!({"path": lib}));
            let stuck = a.ok("agent.new", json!({"bot": "misbehave", "options": {"on_act": "hang"}}))["agent"].as_str().unwrap().to_string();
            let id = a.next_id();
            a.send(&json!({"id": id, "op": "agent.act", "agent": stuck, "observation": {}, "legal": ["rock"]}));
            a
        })
        .collect();

    let mut b = server.connect();
    let reader = b.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..50 {
        assert_eq!(
            b.ok("agent.act", with_agent(&reader, rps_turn("rock", false)))["action"],
            json!("paper")
        );
    }
    // Even another agent of the hanging bot, on another connection, is served.
    let fine =
        b.ok("agent.new", json!({"bot": "misbehave"}))["agent"].as_str().unwrap().to_string();
    assert_eq!(
        b.ok("agent.act", with_agent(&fine, rps_turn("rock", false)))["action"],
        json!("rock")
    );
    // A third client connecting now is served too.
    server.connect().assert_alive();

    // The stuck requests are still pending (a session answers in order, so nothing comes back).
    for a in &mut stuck_clients {
        assert!(
            a.recv_within(Duration::from_millis(50)).is_none(),
            "the hanging bot cannot have answered"
        );
    }
}

/// A bot that answered quickly long enough for its calls to run on the reactor thread, and then
/// hangs: on more connections than the server has reactor threads, each with such a bot, the
/// others are still served, and SIGTERM still ends the server.
#[test]
fn quick_bots_that_turn_to_hang_stall_no_one() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let mut server = Server::tcp_with_dir(dir.path());
    let reactor_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let quick_answers = 200;
    // Connected first, so that no connection is the server's only client.
    let mut other = server.connect();
    other.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}));
    let mut turned: Vec<_> = (0..reactor_threads + 2)
        .map(|_| {
            let (mut conn, agent) = hangs_after(&server, &lib, quick_answers);
            quick_turns(&mut conn, &agent, quick_answers);
            let id = conn.next_id();
            conn.send(&json!({"id": id, "op": "agent.act", "agent": agent, "observation": {}, "legal": ["rock"]}));
            // Time for the server's other threads to go idle, as they would between clients.
            std::thread::sleep(Duration::from_millis(200));
            conn
        })
        .collect();
    for _ in 0..50 {
        assert_eq!(
            other.ok("agent.act", with_agent("a1", rps_turn("rock", false)))["action"],
            json!("paper")
        );
    }
    server.connect().assert_alive();
    for conn in &mut turned {
        assert!(conn.recv_within(Duration::from_millis(20)).is_none(), "a hung bot answered");
    }
    server.terminate();
    let status = server.wait_exit(Duration::from_secs(20));
    assert!(status.success(), "exit status {status}; log:\n{}", server.log());
}

/// A new client of `server` with an agent of the misbehaving bot (loaded from `lib`) that answers
/// `quick_answers` times, then hangs for good; the agent's id.
fn hangs_after(server: &Server, lib: &Path, quick_answers: u64) -> (Conn, String) {
    let mut conn = server.connect();
    conn.ok("plugin.load", json!({"path": lib}));
    let options = json!({"hang_after": quick_answers});
    let agent = conn.ok("agent.new", json!({"bot": "misbehave", "options": options}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    (conn, agent)
}

/// `turns` quick answers of `agent`, one round trip each: enough of them earn its calls a place
/// in line on a reactor thread.
fn quick_turns(conn: &mut Conn, agent: &str, turns: u64) {
    for _ in 0..turns {
        let act = with_agent(agent, rps_turn("rock", false));
        assert_eq!(conn.ok("agent.act", act)["action"], json!("rock"));
    }
}

/// How long another client may wait for one reply while a bot hangs: far beyond any round trip,
/// far short of the hang.
const STALL: Duration = Duration::from_secs(5);

/// One request that must succeed within [`STALL`]; its `result`.
fn answered(conn: &mut Conn, op: &str, mut request: Value) -> Value {
    let id = conn.next_id();
    request["id"] = json!(id);
    request["op"] = json!(op);
    conn.send(&request);
    let reply = conn.recv_within(STALL).unwrap_or_else(|| {
        panic!("`{op}` not answered within {STALL:?}: a hung bot stalls others")
    });
    assert_eq!(reply["id"], json!(id), "{reply}");
    assert_eq!(reply["ok"], json!(true), "{reply}");
    reply["result"].clone()
}

/// A bot quick for many calls (so they run in line, on a reactor thread) hangs for good on one
/// connection, while three other clients are `busy` sending `ping` and `agent.act` or idle until
/// it hangs: each of them is still answered, one reply after another, for a second after.
fn one_quick_bot_hangs(busy: bool) {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let server = Server::tcp_with_dir(dir.path());
    let quick_answers = 200;
    let (mut hung, agent) = hangs_after(&server, &lib, quick_answers);
    let others: Vec<Conn> = (0..3)
        .map(|_| {
            let mut conn = server.connect();
            conn.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}));
            conn
        })
        .collect();
    let (hanging, done) = (AtomicBool::new(false), AtomicBool::new(false));
    std::thread::scope(|scope| {
        for mut conn in others {
            let (hanging, done) = (&hanging, &done);
            scope.spawn(move || {
                let mut served_since_the_hang = 0;
                while !done.load(Ordering::SeqCst) {
                    let hung_now = hanging.load(Ordering::SeqCst);
                    if !busy && !hung_now {
                        std::thread::sleep(Duration::from_millis(1));
                        continue;
                    }
                    assert_eq!(answered(&mut conn, "ping", json!({})), json!({"pong": true}));
                    let act =
                        answered(&mut conn, "agent.act", with_agent("a1", rps_turn("rock", false)));
                    assert_eq!(act["action"], json!("paper"));
                    served_since_the_hang += usize::from(hung_now);
                }
                assert!(
                    served_since_the_hang >= 5,
                    "{served_since_the_hang} round trips after the hang"
                );
            });
        }
        quick_turns(&mut hung, &agent, quick_answers);
        let id = hung.next_id();
        hung.send(&json!({"id": id, "op": "agent.act", "agent": agent, "observation": {}, "legal": ["rock"]}));
        if !busy {
            // Time for the server's other threads to go idle, as they would between clients.
            std::thread::sleep(Duration::from_millis(200));
        }
        hanging.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_secs(1));
        done.store(true, Ordering::SeqCst);
    });
    server.connect().assert_alive();
    assert!(hung.recv_within(Duration::from_millis(20)).is_none(), "the hung bot answered");
}

/// The in-line decision is made per bot: a new agent of a bot whose calls have been quick may
/// run its very first call in line. If that agent hangs at once, other clients are still served.
#[test]
fn a_new_agent_of_a_quick_bot_that_hangs_at_once_stalls_no_one() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let server = Server::tcp_with_dir(dir.path());
    let (mut warm, agent) = hangs_after(&server, &lib, 1_000);
    quick_turns(&mut warm, &agent, 200);
    let mut hung = server.connect();
    hung.ok("plugin.load", json!({"path": lib}));
    let options = json!({"on_act": "hang"});
    let fresh = hung.ok("agent.new", json!({"bot": "misbehave", "options": options}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    let mut others: Vec<Conn> = (0..3)
        .map(|_| {
            let mut conn = server.connect();
            conn.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}));
            conn
        })
        .collect();
    let id = hung.next_id();
    hung.send(
        &json!({"id": id, "op": "agent.act", "agent": fresh, "observation": {}, "legal": ["rock"]}),
    );
    // Time for the server's other threads to go idle, as they would between clients.
    std::thread::sleep(Duration::from_millis(200));
    for conn in &mut others {
        for _ in 0..5 {
            assert_eq!(answered(conn, "ping", json!({})), json!({"pong": true}));
            let act = answered(conn, "agent.act", with_agent("a1", rps_turn("rock", false)));
            assert_eq!(act["action"], json!("paper"));
        }
    }
    assert!(hung.recv_within(Duration::from_millis(20)).is_none(), "the hung bot answered");
}

#[test]
fn a_quick_bot_that_hangs_stalls_no_busy_client() {
    one_quick_bot_hangs(true);
}

#[test]
fn a_quick_bot_that_hangs_stalls_no_idle_client() {
    one_quick_bot_hangs(false);
}

/// A client pipelines a few `ping`s and, in the same write, an `agent.act` of a quick bot that
/// hangs on it. Answering the first `ping` woke the connection's writer into its reactor thread's
/// own run slot, where no other thread may take it: had the act gone in line on that thread, the
/// `ping` replies would never be written. They are all written, and another client is served.
#[test]
fn replies_before_a_pipelined_hang_are_written() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let server = Server::tcp_with_dir(dir.path());
    let quick_answers = 50;
    let mut other = server.connect();
    other.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}));
    let (mut hung, agent) = hangs_after(&server, &lib, quick_answers);
    quick_turns(&mut hung, &agent, quick_answers);
    let pings = 3;
    let mut lines = String::new();
    for n in 0..pings {
        lines += &format!("{}\n", json!({"id": format!("ping-{n}"), "op": "ping"}));
    }
    lines += &format!(
        "{}\n",
        json!({"id": "hang", "op": "agent.act", "agent": agent, "observation": {}, "legal": ["rock"]})
    );
    hung.send_raw(lines.as_bytes());
    for n in 0..pings {
        let reply = hung.recv_within(STALL).unwrap_or_else(|| {
            panic!("the reply to ping-{n} was never written: a hung bot holds the writer")
        });
        assert_eq!(reply["id"], json!(format!("ping-{n}")), "{reply}");
        assert_eq!(reply["result"], json!({"pong": true}), "{reply}");
    }
    let act = answered(&mut other, "agent.act", with_agent("a1", rps_turn("rock", false)));
    assert_eq!(act["action"], json!("paper"));
    server.connect().assert_alive();
    assert!(hung.recv_within(Duration::from_millis(20)).is_none(), "the hung bot answered");
}

/// Dropping an agent runs the bot's destructor, which is plugin code too: one that never returns
/// must not take a reactor thread with it. More sessions than reactor threads drop such agents
/// (explicitly and by hanging up); another client is still served.
#[test]
fn a_destructor_that_never_returns_stalls_no_one() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let server = Server::tcp_with_dir(dir.path());
    let reactor_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut dropping = Vec::new();
    for n in 0..reactor_threads + 2 {
        let mut conn = server.connect();
        conn.ok("plugin.load", json!({"path": lib}));
        let id = conn
            .ok("agent.new", json!({"bot": "misbehave", "options": {"hang_on_drop": true}}))
            ["agent"]
            .as_str()
            .unwrap()
            .to_string();
        if n % 2 == 0 {
            conn.ok("agent.drop", json!({"agent": id}));
            dropping.push(conn);
        } // else: the connection is closed here, dropping the session's agents.
    }
    let mut other = server.connect();
    other.ok("agent.new", json!({"bot": "example/rps", "preset": "reader"}));
    for _ in 0..20 {
        assert_eq!(
            other.ok("agent.act", with_agent("a1", rps_turn("rock", false)))["action"],
            json!("paper")
        );
    }
    for conn in &mut dropping {
        conn.assert_alive();
    }
}

/// Several clients fire interleaved requests with overlapping ids and agent names; each gets
/// exactly its own answers, in its own order.
#[test]
fn concurrent_clients_get_their_own_answers() {
    let server = Server::tcp(&[]);
    let clients = 8;
    let rounds = 150;
    std::thread::scope(|scope| {
        for c in 0..clients {
            let mut conn = server.connect();
            scope.spawn(move || {
                // Every client's agent is `a1` in its own session, with its own personality.
                let reading = 1 + c % 2;
                let agent = conn.ok("agent.new", json!({"bot": "rps", "options": {"reading": reading}, "seed": c}));
                assert_eq!(agent["agent"], json!("a1"));
                let hands = ["rock", "paper", "scissors"];
                // Pipeline a batch, then read it back: replies interleave on the server side.
                for round in 0..rounds {
                    let id = format!("c{c}-r{round}");
                    conn.send(&json!({"id": id, "op": "agent.act", "agent": "a1", "observation": {"opponent_last": hands[round % 3]}, "legal": hands}));
                }
                for round in 0..rounds {
                    let reply = conn.reply();
                    assert_eq!(reply["id"], json!(format!("c{c}-r{round}")), "{reply}");
                    let last = round % 3;
                    let expected = hands[(last + reading) % 3];
                    assert_eq!(reply["result"]["action"], json!(expected), "client {c} round {round}: {reply}");
                }
                let listed = conn.ok("agent.list", json!({}));
                assert_eq!(listed.as_array().unwrap().len(), 1);
                assert_eq!(listed[0]["options"]["reading"], json!(reading));
            });
        }
    });
    server.connect().assert_alive();
}

/// SIGTERM while a bot is stuck: the server still exits instead of waiting for it forever.
#[test]
fn shutdown_does_not_wait_forever_for_a_stuck_bot() {
    let dir = temp_dir();
    let lib = install_misbehave(dir.path());
    let mut server = Server::tcp_with_dir(dir.path());
    let mut a = server.connect();
    a.ok("plugin.load", json!({"path": lib}));
    let stuck = a.ok("agent.new", json!({"bot": "misbehave", "options": {"on_act": "hang"}}))
        ["agent"]
        .as_str()
        .unwrap()
        .to_string();
    a.send(&json!({"id": "never", "op": "agent.act", "agent": stuck, "observation": {}, "legal": ["rock"]}));
    let mut b = server.connect();
    b.assert_alive();
    std::thread::sleep(Duration::from_millis(100));
    server.terminate();
    let status = server.wait_exit(Duration::from_secs(20));
    assert!(status.success(), "exit status {status}; log:\n{}", server.log());
    assert!(b.is_closed_within(Duration::from_secs(5)));
}

/// The catalog shows, per bot, whether its calls run in line and the measured pace behind it:
/// a quick bot earns `in_line` after enough calls, and a bot never called shows no pace.
#[test]
fn the_catalog_shows_which_bots_run_in_line() {
    let server = Server::tcp(&[]);
    let mut conn = server.connect();
    let pace_of = |conn: &mut Conn, id: &str| {
        let catalog = conn.ok("catalog", json!({}));
        let bots = catalog["bots"].as_array().expect("bots").clone();
        let unmeasured = bots.iter().filter(|bot| bot["id"] != json!(id));
        assert!(unmeasured.clone().all(|bot| bot.get("pace").is_none()), "{catalog}");
        bots.iter().find(|bot| bot["id"] == json!(id)).expect("the bot is listed")["pace"].clone()
    };
    assert_eq!(pace_of(&mut conn, "example/rps"), Value::Null, "no call timed yet");
    let agent =
        conn.ok("agent.new", json!({"bot": "example/rps"}))["agent"].as_str().unwrap().to_string();
    // A preempted call on a loaded machine costs a quick bot its place for a while: it earns it
    // back within a few rounds of quick calls.
    let mut pace = Value::Null;
    for round in 1..=100 {
        for _ in 0..20 {
            conn.ok("agent.act", with_agent(&agent, rps_turn("rock", false)));
        }
        pace = pace_of(&mut conn, "example/rps");
        assert_eq!(pace["calls"], json!(round * 20), "{pace}");
        assert!(pace["recent_call_ms"].is_number(), "{pace}");
        if pace["in_line"] == json!(true) {
            break;
        }
    }
    assert_eq!(pace["in_line"], json!(true), "{pace}");
}

#[test]
fn a_bots_pace_is_shown_to_operators_only() {
    let (player_token, operator_token) = ("player-token-for-tests", "operator-token-for-tests");
    let server = Server::tcp(&["--token", player_token, "--operator-token", operator_token]);
    let session = |token: &str| {
        let mut conn = server.connect();
        conn.ok("hello", json!({"token": token}));
        conn
    };
    let (mut player, mut operator) = (session(player_token), session(operator_token));
    let agent = player.ok("agent.new", json!({"bot": "example/rps"}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..5 {
        player.ok("agent.act", with_agent(&agent, rps_turn("rock", false)));
    }
    let rps_of = |conn: &mut Conn| {
        let catalog = conn.ok("catalog", json!({}));
        let bots = catalog["bots"].as_array().expect("bots").clone();
        bots.into_iter().find(|bot| bot["id"] == json!("example/rps")).expect("rps is listed")
    };
    // The player's own calls are in the sum; the sum also holds every other client's.
    assert_eq!(rps_of(&mut operator)["pace"]["calls"], json!(5));
    let seen_by_player = rps_of(&mut player);
    assert!(seen_by_player.get("pace").is_none(), "{seen_by_player}");
}
