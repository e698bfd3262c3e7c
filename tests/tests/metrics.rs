//! End-to-end test of the Prometheus metrics of `yomi serve`, on their own port (`--metrics ADDR`)
//! and on the HTTP port (`--http ADDR`, `GET /metrics`): a scrape parses as Prometheus text and
//! counts what the server did.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use prometheus_parse::{Sample, Scrape, Value as Metric};
use serde_json::json;
use yomi_e2e::{library, rps_turn, target_dir, with_agent, Server};

/// A port nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `GET path` with a closing connection (and `token` as a bearer token, as Prometheus gives
/// one): the response's head and body.
fn get(addr: &str, path: &str, token: Option<&str>) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    (head.to_string(), body.to_string())
}

/// `GET /metrics`, parsed with a Prometheus text-format parser.
fn scrape(addr: &str, token: Option<&str>) -> Scrape {
    let (_, body) = get(addr, "/metrics", token);
    Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).expect("the scrape parses")
}

/// The one sample of `metric` whose labels include `labels`.
fn sample<'a>(scrape: &'a Scrape, metric: &str, labels: &[(&str, &str)]) -> &'a Sample {
    let found: Vec<&Sample> = scrape
        .samples
        .iter()
        .filter(|s| s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .collect();
    assert_eq!(found.len(), 1, "{metric} {labels:?} in {:#?}", scrape.samples);
    found[0]
}

fn number(sample: &Sample) -> f64 {
    match &sample.value {
        Metric::Counter(x) | Metric::Gauge(x) | Metric::Untyped(x) => *x,
        Metric::Histogram(buckets) => {
            buckets.iter().find(|b| b.less_than.is_infinite()).expect("a +Inf bucket").count
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_scrape_parses_and_counts_requests_calls_games_and_restarts() {
    let addr = format!("127.0.0.1:{}", free_port());
    let plugins = target_dir().to_str().unwrap().to_string();
    let misbehave = library("fixture_misbehave").to_str().unwrap().to_string();
    let server = Server::tcp(&["--metrics", &addr, "--plugins", &plugins, "--plugins", &misbehave]);
    let mut conn = server.connect();
    for _ in 0..3 {
        conn.assert_alive();
    }
    assert_eq!(conn.err("no.such.op", json!({})), "unknown_op");
    assert_eq!(conn.err("agent.act", json!({"agent": "a404"})), "unknown_agent");
    let agent =
        conn.ok("agent.new", json!({"bot": "example/rps"}))["agent"].as_str().unwrap().to_string();
    for _ in 0..5 {
        conn.ok("agent.act", with_agent(&agent, rps_turn("rock", false)));
    }
    // An isolated bot whose process dies at every decision: its worker is started again for
    // each game after the first.
    let result = conn.ok(
        "match.run",
        json!({"game": "rps", "seed": 1, "games": 3, "seats": [
            {"bot": "example/rps"},
            {"bot": "misbehave", "options": {"on_act": "abort"}, "isolate": true},
        ]}),
    );
    assert_eq!(result["games"], json!(3));

    let s = scrape(&addr, None);
    let requests = |op: &str, code: &str| {
        number(sample(&s, "yomi_requests_total", &[("op", op), ("code", code)]))
    };
    assert_eq!(requests("ping", "ok"), 3.0);
    assert_eq!(requests("unknown", "unknown_op"), 1.0);
    assert_eq!(requests("agent.act", "unknown_agent"), 1.0);
    assert_eq!(requests("agent.new", "ok"), 1.0);
    assert_eq!(requests("agent.act", "ok"), 5.0);
    assert_eq!(requests("match.run", "ok"), 1.0);
    assert_eq!(number(sample(&s, "yomi_connections_open", &[("transport", "tcp")])), 1.0);
    assert_eq!(number(sample(&s, "yomi_connections_total", &[("transport", "tcp")])), 1.0);
    assert_eq!(number(sample(&s, "yomi_match_games_total", &[("game", "rps")])), 3.0);
    assert_eq!(
        number(sample(&s, "yomi_worker_restarts_total", &[("bot", "misbehave/misbehave")])),
        2.0
    );
    // Five `agent.act` calls, then the match's decisions and observations of the same bot.
    let calls = sample(&s, "yomi_plugin_call_seconds", &[("bot", "example/rps")]);
    assert!(matches!(calls.value, Metric::Histogram(_)), "{calls:?}");
    assert!(number(calls) > 5.0, "{calls:?}");
    assert!(s.docs.contains_key("yomi_plugin_call_seconds"), "metrics carry their HELP text");

    drop(conn);
    conn_closed_eventually(&addr);
}

/// The open-connections gauge falls back to zero once the client hangs up.
fn conn_closed_eventually(addr: &str) {
    let deadline = std::time::Instant::now() + yomi_e2e::REPLY_TIMEOUT;
    loop {
        let s = scrape(addr, None);
        if number(sample(&s, "yomi_connections_open", &[("transport", "tcp")])) == 0.0 {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "the connection gauge never fell");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The address of the server's HTTP listener, from its log.
fn http_addr(server: &Server) -> String {
    let log = server.wait_log(&["listening on http://"]);
    let tail = log.split("listening on http://").nth(1).unwrap();
    tail.split_whitespace().next().unwrap().to_string()
}

#[test]
fn the_http_port_serves_the_same_metrics_as_the_metrics_port() {
    let metrics_addr = format!("127.0.0.1:{}", free_port());
    let server = Server::tcp(&["--http", "127.0.0.1:0", "--metrics", &metrics_addr]);
    let http = http_addr(&server);
    let token = server.generated_token();
    let (head, body) = get(&http, "/healthz", None);
    assert!(head.contains("200 OK"), "{head}");
    assert_eq!(body, "ok\n");
    let mut conn = server.connect();
    for _ in 0..4 {
        conn.assert_alive();
    }
    // A WebSocket session counts as a connection of its own transport once upgraded.
    let mut socket = TcpStream::connect(&http).unwrap();
    write!(
        socket,
        "GET /ws HTTP/1.1\r\nHost: {http}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    socket.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 101");

    let (head, _) = get(&http, "/metrics", Some(&token));
    assert!(head.contains("content-type: text/plain; version=0.0.4"), "{head}");
    let deadline = std::time::Instant::now() + yomi_e2e::REPLY_TIMEOUT;
    let on_http = loop {
        let s = scrape(&http, Some(&token));
        let ws = s.samples.iter().any(|x| {
            x.metric == "yomi_connections_open" && x.labels.get("transport") == Some("websocket")
        });
        if ws {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "no websocket connection counted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let on_metrics_port = scrape(&metrics_addr, None);
    for s in [&on_http, &on_metrics_port] {
        assert_eq!(
            number(sample(s, "yomi_requests_total", &[("op", "ping"), ("code", "ok")])),
            4.0
        );
        assert_eq!(number(sample(s, "yomi_connections_total", &[("transport", "tcp")])), 1.0);
    }
    let open = |t| number(sample(&on_http, "yomi_connections_open", &[("transport", t)]));
    assert_eq!((open("tcp"), open("websocket")), (1.0, 1.0));
    assert!(on_http.docs.contains_key("yomi_requests_total"), "metrics carry their HELP text");
}

#[test]
fn a_metrics_address_in_use_is_a_clear_error() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = yomi_e2e::run_yomi(&["serve", "--tcp", "127.0.0.1:0", "--metrics", &addr]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("metrics on {addr}")), "{stderr}");
}
