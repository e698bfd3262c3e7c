//! End-to-end tests of the server's edge, as a hostile client or web page meets it: tokens and
//! roles, addresses other machines can reach, cross-site WebSockets and DNS rebinding, HTTP sent
//! to the TCP port, and connection limits (a full server answers at once; half-sent requests and
//! unauthenticated clients do not hold slots; a non-reader pins a bounded number of bytes).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::client::IntoClientRequest;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::{Message, WebSocket};
use yomi_e2e::{error_code, temp_dir, yomi_bin, Server};

/// Runs `yomi ARGS` for at most `limit`: its exit status and stderr, or `None` when it was still
/// running (then it is killed).
fn start_briefly(args: &[&str], limit: Duration) -> Option<(i32, String)> {
    let mut child = Command::new(yomi_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start yomi");
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            let mut log = String::new();
            child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
            return Some((status.code().unwrap_or(-1), log));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// The HTTP listener's address and the token generated for it, from the playground's URL.
fn http_of(server: &Server) -> (String, String) {
    let url = server.playground_url();
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, _) = rest.split_once('/').unwrap();
    (addr.to_string(), server.generated_token())
}

/// One HTTP/1.1 request with `headers` (a `Host` naming `addr` unless given); the response's
/// head (status line and headers, lower-cased names kept as sent) and body.
fn http_get(addr: &str, path: &str, headers: &[(&str, &str)]) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(yomi_e2e::REPLY_TIMEOUT)).unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.to_string(), body.to_string())
}

/// The value of header `name` in a response head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

type Socket = WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

/// Opens `ws://ADDR/ws` + `query` with extra request headers.
fn websocket(
    addr: &str,
    query: &str,
    headers: &[(&str, &str)],
) -> Result<Socket, Box<tungstenite::Error>> {
    let mut request = format!("ws://{addr}/ws{query}").into_client_request().unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(
            tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    let (socket, _) = tungstenite::connect(request).map_err(Box::new)?;
    if let tungstenite::stream::MaybeTlsStream::Plain(stream) = socket.get_ref() {
        stream.set_read_timeout(Some(yomi_e2e::REPLY_TIMEOUT)).unwrap();
    }
    Ok(socket)
}

/// The HTTP status a refused WebSocket upgrade got.
fn refused_status(result: Result<Socket, Box<tungstenite::Error>>) -> u16 {
    match result.map_err(|e| *e) {
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("expected an HTTP refusal, got {e}"),
        Ok(_) => panic!("expected the upgrade to be refused, it was accepted"),
    }
}

/// Sends one request over a WebSocket and reads its reply.
fn ws_request(socket: &mut Socket, request: Value) -> Value {
    socket.send(Message::Text(request.to_string())).unwrap();
    match socket.read().unwrap() {
        Message::Text(text) => serde_json::from_str(&text).unwrap(),
        other => panic!("expected a text frame, got {other:?}"),
    }
}

/// The close frame's code after reading up to a close.
fn close_code(socket: &mut Socket) -> Option<u16> {
    loop {
        match socket.read() {
            Ok(Message::Close(frame)) => return frame.map(|f| u16::from(f.code)),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}

#[test]
fn addresses_other_machines_reach_need_a_token_or_insecure() {
    for listener in ["--tcp", "--http"] {
        let outcome = start_briefly(&["serve", listener, "0.0.0.0:0"], Duration::from_secs(10));
        let (code, log) =
            outcome.unwrap_or_else(|| panic!("`serve {listener} 0.0.0.0:0` kept running"));
        assert_ne!(code, 0, "{log}");
        assert!(log.contains("without a token") && log.contains("--insecure"), "{log}");
    }
    let insecure = Server::tcp(&["--tcp", "0.0.0.0:0", "--insecure"]);
    insecure.wait_log(&["INSECURE"]);
    let guarded = Server::tcp(&["--tcp", "0.0.0.0:0", "--token", "a-long-player-token"]);
    guarded.wait_log(&["listening on 0.0.0.0:"]);
}

#[test]
fn max_connections_zero_is_refused_at_start() {
    let outcome = start_briefly(
        &["serve", "--tcp", "127.0.0.1:0", "--max-connections", "0"],
        Duration::from_secs(10),
    );
    let (code, log) = outcome.expect("`--max-connections 0` kept running");
    assert_ne!(code, 0);
    assert!(log.contains("--max-connections") && log.contains("at least 1"), "{log}");
}

#[test]
fn tcp_clients_give_their_token_in_hello_and_get_its_role() {
    let dir = temp_dir();
    let (player, operator) = ("player-7f3a9c", "operator-e41b02");
    std::fs::write(dir.path().join("player"), format!("{player}\n")).unwrap();
    std::fs::write(dir.path().join("operator"), operator).unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let data = path("data");
    let server = Server::tcp(&[
        "--token-file",
        &path("player"),
        "--operator-token-file",
        &path("operator"),
        "--data-dir",
        &data,
    ]);

    let mut stranger = server.connect();
    assert_eq!(stranger.err("catalog", json!({})), "unauthorized");
    assert_eq!(stranger.err("agent.new", json!({"bot": "example/rps"})), "unauthorized");
    stranger.assert_alive();
    let hello = stranger.ok("hello", json!({}));
    assert_eq!(hello["role"], Value::Null);
    // A wrong guess costs the connection.
    assert_eq!(stranger.err("hello", json!({"token": "guess"})), "unauthorized");
    assert!(stranger.is_closed_within(Duration::from_secs(5)));
    server.wait_log(&["closing the connection: it gave a wrong token"]);

    let mut player_conn = server.connect();
    let hello = player_conn.ok("hello", json!({"token": player}));
    assert_eq!(hello["role"], "player");
    player_conn.ok("catalog", json!({}));
    let plugins = player_conn.ok("plugin.list", json!({}));
    assert!(!plugins.as_array().unwrap().is_empty());
    assert!(plugins.as_array().unwrap().iter().all(|p| p.get("path").is_none()), "{plugins}");
    assert_eq!(player_conn.err("plugin.load", json!({"path": "libx.so"})), "unauthorized");
    assert_eq!(player_conn.err("tournament.list", json!({})), "unauthorized");

    let mut operator_conn = server.connect();
    let hello = operator_conn.ok("hello", json!({"token": operator}));
    assert_eq!(hello["role"], "operator");
    let plugins = operator_conn.ok("plugin.list", json!({}));
    assert!(plugins.as_array().unwrap().iter().all(|p| p["path"].is_string()), "{plugins}");
    operator_conn.ok("tournament.list", json!({}));

    let log = server.log();
    assert!(!log.contains(player) && !log.contains(operator), "a token reached the log:\n{log}");
}

#[test]
fn without_a_token_loopback_tcp_and_stdio_clients_are_operators() {
    let server = Server::tcp(&[]);
    assert_eq!(server.connect().ok("hello", json!({}))["role"], "operator");
    let mut stdio = Server::stdio(&[]);
    assert_eq!(stdio.conn().ok("hello", json!({}))["role"], "operator");
}

#[test]
fn a_client_that_gives_no_token_in_time_is_closed() {
    let server = Server::tcp(&["--token", "t0k3n-for-tests", "--handshake-timeout", "0.5"]);
    let mut silent = server.connect();
    let mut known = server.connect();
    known.ok("hello", json!({"token": "t0k3n-for-tests"}));
    assert!(silent.is_closed_within(Duration::from_secs(5)), "the stranger kept its slot");
    std::thread::sleep(Duration::from_millis(600));
    known.assert_alive();
    server.wait_log(&["no token given within 0.5 s (--handshake-timeout)"]);
}

#[test]
fn http_sent_to_the_tcp_port_closes_the_connection_unanswered() {
    let server = Server::tcp(&[]);
    let mut page = server.connect();
    // What a web page's `fetch("http://127.0.0.1:PORT", {method: "POST", body})` sends.
    let body = "{\"id\":1,\"op\":\"ping\"}\n";
    page.send_raw(
        format!(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    assert!(page.is_closed_within(Duration::from_secs(5)));
    server.wait_log(&["it sent HTTP, not JSON lines"]);
    server.connect().assert_alive();
}

#[test]
fn a_full_tcp_server_tells_a_new_client_at_once() {
    let server = Server::tcp(&["--max-connections", "1"]);
    let mut first = server.connect();
    first.assert_alive();
    let mut second = server.connect();
    let refusal = second.recv_within(Duration::from_secs(5)).expect("an answer at once");
    assert_eq!(error_code(&refusal).as_deref(), Some("limit_exceeded"));
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("the server is full (--max-connections 1)"), "{message}");
    assert!(second.is_closed_within(Duration::from_secs(5)));
    first.assert_alive();
    // A place frees up once the first client has gone.
    drop(first);
    server.connect_when_free().assert_alive();
}

#[test]
fn one_address_cannot_hold_every_connection_slot() {
    let server = Server::tcp(&["--max-connections", "8", "--max-connections-per-ip", "2"]);
    let home = Ipv4Addr::new(127, 0, 0, 1);
    let held = [server.connect_from(home), server.connect_from(home)];
    let mut third = server.connect_from(home);
    let refusal = third.recv_within(Duration::from_secs(5)).expect("an answer at once");
    assert_eq!(error_code(&refusal).as_deref(), Some("limit_exceeded"));
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-connections-per-ip 2"), "{message}");
    assert!(third.is_closed_within(Duration::from_secs(5)));
    // Another address still gets in while the first holds its share.
    server.connect_from(Ipv4Addr::new(127, 0, 0, 2)).assert_alive();
    // And the first gets a slot again once one of its own is freed.
    drop(held);
    server.connect_when_free().assert_alive();
}

#[test]
fn strangers_holding_every_slot_give_way_to_newcomers_and_never_to_token_holders() {
    let token = "a-token-of-sixteen-plus";
    let server = Server::tcp(&[
        "--token",
        token,
        "--max-connections",
        "8",
        "--max-connections-per-ip",
        "2",
        "--handshake-timeout",
        "60",
    ]);
    let mut member = server.connect_from(Ipv4Addr::new(127, 0, 0, 9));
    member.ok("hello", json!({"token": token}));
    // Four addresses fill the other seven slots with silent connections.
    let mut strangers: Vec<_> =
        (0..7).map(|i| server.connect_from(Ipv4Addr::new(127, 0, 0, 2 + i / 2))).collect();
    for stranger in &mut strangers {
        stranger.assert_alive();
    }
    // A newcomer still gets in (the oldest stranger is closed), and can give its token.
    let mut newcomer = server.connect_from(Ipv4Addr::new(127, 0, 0, 20));
    assert_eq!(newcomer.ok("hello", json!({"token": token}))["role"], "player");
    assert!(strangers[0].is_closed_within(Duration::from_secs(5)), "the oldest stranger gave way");
    server.wait_log(&["a new client took the slot of this connection, which had given no token"]);
    // Many more newcomers: the strangers go, oldest first; the token holders stay.
    for i in 0..12 {
        server.connect_from(Ipv4Addr::new(127, 0, 1, i)).assert_alive();
    }
    member.assert_alive();
    newcomer.assert_alive();
}

#[test]
fn the_playground_trades_its_url_token_for_a_cookie() {
    let server = Server::tcp(&["--http", "127.0.0.1:0"]);
    let (addr, token) = http_of(&server);
    assert_eq!(token.len(), 64, "a generated token from the OS RNG: {token}");

    let (head, body) = http_get(&addr, "/", &[]);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(body.contains("?token="), "{body}");
    let (head, _) = http_get(&addr, "/?token=wrong", &[]);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");

    let (head, _) = http_get(&addr, &format!("/?token={token}"), &[]);
    assert!(head.starts_with("HTTP/1.1 303"), "{head}");
    assert_eq!(header(&head, "location"), Some("/"));
    let cookie = header(&head, "set-cookie").expect("a cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let port = addr.rsplit(':').next().unwrap();
    let pair = cookie.split(';').next().unwrap().to_string();
    assert_eq!(pair, format!("yomi-token-{port}={token}"));

    let (head, body) = http_get(&addr, "/", &[("Cookie", &pair)]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.contains("<html") || body.contains("<!doctype"), "{body}");

    let mut page =
        websocket(&addr, "", &[("Cookie", &pair), ("Origin", &format!("http://{addr}"))]).unwrap();
    let hello = ws_request(&mut page, json!({"id": 1, "op": "hello"}));
    assert_eq!(hello["result"]["role"], "operator");

    let mut client = websocket(&addr, &format!("?token={token}"), &[]).unwrap();
    assert_eq!(ws_request(&mut client, json!({"id": 1, "op": "catalog"}))["ok"], true);

    let mut stranger = websocket(&addr, "", &[]).unwrap();
    let reply = ws_request(&mut stranger, json!({"id": 1, "op": "catalog"}));
    assert_eq!(error_code(&reply).as_deref(), Some("unauthorized"));
    let reply = ws_request(&mut stranger, json!({"id": 2, "op": "hello", "token": token}));
    assert_eq!(reply["result"]["role"], "operator");

    assert_eq!(refused_status(websocket(&addr, "?token=wrong", &[])), 401);
    let log = server.log();
    assert_eq!(log.matches(&token).count(), 1, "the token is printed once, in the URL:\n{log}");
}

#[test]
fn plugin_views_are_served_by_plugin_name_to_the_page_only() {
    let server = Server::tcp(&["--http", "127.0.0.1:0"]);
    let (addr, token) = http_of(&server);
    let mut client = websocket(&addr, &format!("?token={token}"), &[]).unwrap();
    let catalog = ws_request(&mut client, json!({"id": 1, "op": "catalog"}));
    let plugins = catalog["result"]["plugins"].as_array().unwrap();
    let example = plugins.iter().find(|p| p["name"] == "example").expect("the example plugin");
    assert_eq!(example["view"], "/plugins/example/view.js");

    // Like the page itself, a view needs the token (in the URL or the page's cookie).
    let (head, _) = http_get(&addr, "/plugins/example/view.js", &[]);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    let (head, _) = http_get(&addr, "/plugins/example/view.js?token=wrong", &[]);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    let cookie = format!("yomi-token-{}={token}", addr.rsplit(':').next().unwrap());
    let (head, body) = http_get(&addr, "/plugins/example/view.js", &[("Cookie", &cookie)]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(header(&head, "content-type"), Some("text/javascript; charset=utf-8"));
    assert_eq!(
        body,
        include_str!("../../bots/example/web/view.js"),
        "the module the plugin carries"
    );

    // Only a loaded plugin's name is looked up: no path of a request reaches a file.
    let with_token = |path: &str| http_get(&addr, path, &[("Cookie", &cookie)]);
    for path in [
        "/plugins/nowhere/view.js",
        "/plugins/../Cargo.toml",
        "/plugins/%2e%2e/view.js",
        "/plugins/..%2f..%2fCargo.toml/view.js",
        "/plugins/example/../../Cargo.toml",
        "/plugins/example/%2e%2e%2f%2e%2e%2fCargo.toml",
        "/plugins/example/src/lib.rs",
        "/plugins/example/web/view.js",
        "/plugins/%2Fetc%2Fpasswd/view.js",
        "/../bots/example/web/view.js",
    ] {
        let (head, body) = with_token(path);
        assert!(
            head.starts_with("HTTP/1.1 404") || head.starts_with("HTTP/1.1 400"),
            "{path}: {head}"
        );
        assert!(!body.contains("[package]") && !body.contains("root:"), "{path}: {body}");
    }
}

#[test]
fn pages_of_other_sites_cannot_open_a_websocket() {
    let server = Server::tcp(&["--http", "127.0.0.1:0", "--allow-origin", "https://game.example"]);
    let (addr, token) = http_of(&server);
    let query = format!("?token={token}");
    for foreign in ["http://evil.example", "http://127.0.0.1:1", "null"] {
        let status = refused_status(websocket(&addr, &query, &[("Origin", foreign)]));
        assert_eq!(status, 403, "{foreign}");
    }
    websocket(&addr, &query, &[("Origin", &format!("http://{addr}"))]).expect("its own page");
    websocket(&addr, &query, &[("Origin", "https://game.example")]).expect("an allowed origin");
    websocket(&addr, &query, &[]).expect("a client that is not a browser");
    server.wait_log(&["refusing a WebSocket opened by another site's page"]);
}

#[test]
fn requests_for_other_host_names_are_refused() {
    let server = Server::tcp(&["--http", "127.0.0.1:0", "--allow-host", "yomi.internal"]);
    let (addr, token) = http_of(&server);
    let port = addr.rsplit(':').next().unwrap();
    // A page of evil.example whose name now resolves to 127.0.0.1 (DNS rebinding).
    let rebound = format!("evil.example:{port}");
    for path in ["/healthz", "/", "/metrics", "/app.js"] {
        let (head, _) = http_get(&addr, path, &[("Host", &rebound)]);
        assert!(head.starts_with("HTTP/1.1 403"), "{path}: {head}");
    }
    let status =
        refused_status(websocket(&addr, &format!("?token={token}"), &[("Host", &rebound)]));
    assert_eq!(status, 403);
    for host in
        [format!("localhost:{port}"), format!("[::1]:{port}"), addr.clone(), "yomi.internal".into()]
    {
        let (head, body) = http_get(&addr, "/healthz", &[("Host", &host)]);
        assert!(head.starts_with("HTTP/1.1 200") && body == "ok\n", "{host}: {head}");
    }
}

#[test]
fn no_response_carries_a_cors_header() {
    let server = Server::tcp(&["--http", "127.0.0.1:0"]);
    let (addr, token) = http_of(&server);
    let origin = ("Origin", "http://evil.example");
    let cookie_path = format!("/?token={token}");
    for path in ["/", "/healthz", "/metrics", "/app.js", "/nowhere", cookie_path.as_str()] {
        let (head, _) = http_get(&addr, path, &[origin]);
        let lower = head.to_ascii_lowercase();
        assert!(!lower.contains("access-control-allow"), "{path}: {head}");
    }
}

#[test]
fn half_sent_http_requests_are_dropped_and_the_listener_keeps_serving() {
    let server = Server::tcp(&[
        "--http",
        "127.0.0.1:0",
        "--handshake-timeout",
        "1",
        "--max-connections",
        "8",
    ]);
    let (addr, _) = http_of(&server);
    let started = Instant::now();
    let mut half_sent: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut stream = TcpStream::connect(&addr).unwrap();
            stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // Every slot is held, by connections that showed no token: a newcomer takes the oldest's
    // slot, so a health check is answered at once and the oldest is closed.
    let (head, body) = http_get(&addr, "/healthz", &[]);
    assert!(head.starts_with("HTTP/1.1 200") && body == "ok\n", "{head}");
    let mut rest = Vec::new();
    let _ = half_sent[0].read_to_end(&mut rest);
    assert!(started.elapsed() < Duration::from_millis(900), "the oldest closed at once");
    // The other half-sent requests are closed after the header timeout...
    for stream in &mut half_sent[1..] {
        let _ = stream.read_to_end(&mut rest);
    }
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(5), "closed after {waited:?}");
    // ... and the listener serves again.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (head, body) = http_get(&addr, "/healthz", &[]);
        if head.starts_with("HTTP/1.1 200") {
            assert_eq!(body, "ok\n");
            break;
        }
        assert!(Instant::now() < deadline, "never served again: {head}");
        std::thread::sleep(Duration::from_millis(100));
    }
    server.wait_log(&["no complete request headers within 1 s (--handshake-timeout)"]);
}

#[test]
fn a_full_server_tells_a_new_websocket_client_at_once() {
    let server = Server::tcp(&["--http", "127.0.0.1:0", "--max-connections", "1"]);
    let (addr, token) = http_of(&server);
    let query = format!("?token={token}");
    let mut first = websocket(&addr, &query, &[]).unwrap();
    assert_eq!(ws_request(&mut first, json!({"id": 1, "op": "ping"}))["ok"], true);
    let mut second = websocket(&addr, &query, &[]).unwrap();
    let refusal: Value = match second.read().unwrap() {
        Message::Text(text) => serde_json::from_str(&text).unwrap(),
        other => panic!("expected the refusal as text, got {other:?}"),
    };
    assert_eq!(error_code(&refusal).as_deref(), Some("limit_exceeded"));
    assert_eq!(close_code(&mut second), Some(u16::from(CloseCode::Again)));
    assert_eq!(ws_request(&mut first, json!({"id": 2, "op": "ping"}))["ok"], true);
}

#[test]
fn a_websocket_frame_over_the_hard_limit_closes_with_1009() {
    let server = Server::tcp(&["--http", "127.0.0.1:0", "--max-line-bytes", "1024"]);
    let (addr, token) = http_of(&server);
    let mut socket = websocket(&addr, &format!("?token={token}"), &[]).unwrap();
    // 4 × 1024 is under the 64 KiB floor: 100 KiB is over the hard limit.
    let huge = format!("{{\"id\":1,\"op\":\"ping\",\"pad\":\"{}\"}}", "x".repeat(100 << 10));
    socket.send(Message::Text(huge)).unwrap();
    assert_eq!(close_code(&mut socket), Some(1009));
}

/// The server's resident memory in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
#[cfg(target_os = "linux")]
fn a_client_that_never_reads_pins_a_bounded_number_of_bytes() {
    let server = Server::tcp(&["--max-outbox-bytes", "1048576", "--write-timeout", "0"]);
    let mut warm = server.connect();
    warm.assert_alive();
    let before = resident_kib(server.pid());
    // 256 requests whose replies echo a 200 KB id: 51 MB of replies if all were queued.
    let id = "i".repeat(200_000);
    let batch: Vec<u8> = (0..256)
        .flat_map(|n| format!("{{\"id\":\"{id}{n}\",\"op\":\"ping\"}}\n").into_bytes())
        .collect();
    let stream = TcpStream::connect(server.addr.unwrap()).unwrap();
    let mut writer = stream.try_clone().unwrap();
    // The server stops reading once its queue is full, so the writes go out from a thread.
    std::thread::spawn(move || {
        let _ = writer.write_all(&batch);
    });
    std::thread::sleep(Duration::from_secs(3));
    let grown_mb = resident_kib(server.pid()).saturating_sub(before) / 1024;
    assert!(grown_mb < 24, "one non-reader grew the server by {grown_mb} MB");
    warm.assert_alive();
    // Reading now drains every reply, in order.
    stream.set_read_timeout(Some(yomi_e2e::REPLY_TIMEOUT)).unwrap();
    let mut lines = std::io::BufReader::new(stream);
    for n in 0..256 {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut lines, &mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], format!("{id}{n}"));
    }
}

#[test]
fn every_http_path_but_healthz_needs_the_token() {
    let server = Server::tcp(&["--http", "127.0.0.1:0"]);
    let (addr, token) = http_of(&server);
    let cookie = format!("yomi-token-{}={token}", addr.rsplit(':').next().unwrap());
    let bearer = format!("Bearer {token}");
    for path in ["/index.html", "/app.js", "/style.css", "/metrics", "/nowhere"] {
        let (head, body) = http_get(&addr, path, &[]);
        assert!(head.starts_with("HTTP/1.1 401"), "{path} without a token: {head}");
        assert!(!body.contains("<html") && !body.contains("yomi_"), "{path}: {body}");
        let (head, _) = http_get(&addr, path, &[("Authorization", "Bearer wrong")]);
        assert!(head.starts_with("HTTP/1.1 401"), "{path} with a wrong token: {head}");
    }
    for path in ["/index.html", "/app.js", "/style.css", "/metrics"] {
        let (head, _) = http_get(&addr, path, &[("Cookie", &cookie)]);
        assert!(head.starts_with("HTTP/1.1 200"), "{path} with the cookie: {head}");
    }
    // How Prometheus gives a token: a bearer header.
    let (head, _) = http_get(&addr, "/metrics", &[("Authorization", &bearer)]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("text/plain; version=0.0.4"), "the Prometheus text: {head}");
    let (head, body) = http_get(&addr, "/healthz", &[]);
    assert!(head.starts_with("HTTP/1.1 200") && body == "ok\n", "{head}");
}

#[test]
fn a_page_of_another_scheme_on_the_same_host_and_port_cannot_open_a_websocket() {
    let server = Server::tcp(&["--http", "127.0.0.1:0"]);
    let (addr, token) = http_of(&server);
    let query = format!("?token={token}");
    for other in [format!("https://{addr}"), format!("ws://{addr}")] {
        assert_eq!(refused_status(websocket(&addr, &query, &[("Origin", &other)])), 403, "{other}");
    }
    websocket(&addr, &query, &[("Origin", &format!("http://{addr}"))]).expect("its own page");
}

#[test]
fn wrong_tokens_from_one_address_are_throttled_across_connections_and_listeners() {
    let token = "the-right-token-for-tests";
    let server =
        Server::tcp(&["--token", token, "--http", "127.0.0.1:0", "--max-token-failures", "3"]);
    let (http, _) = http_of(&server);
    let other = Ipv4Addr::new(127, 0, 0, 2);
    for guess in 0..3 {
        let mut guesser = server.connect();
        assert_eq!(
            guesser.err("hello", json!({"token": format!("guess-{guess}")})),
            "unauthorized"
        );
    }
    // The fourth try, even with the right token, is refused unread until the minute is over...
    let mut guesser = server.connect();
    let reply = guesser.request("hello", json!({"token": token}));
    assert_eq!(error_code(&reply).as_deref(), Some("unauthorized"), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("too many wrong tokens") && message.contains("--max-token-failures 3"),
        "{message}"
    );
    // ... on every listener of the server ...
    let (head, _) = http_get(&http, &format!("/?token={token}"), &[]);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    // ... while another address is served.
    assert_eq!(server.connect_from(other).ok("hello", json!({"token": token}))["role"], "player");
}

#[test]
fn short_tokens_are_refused_on_addresses_other_machines_reach() {
    for flag in ["--token", "--operator-token"] {
        let outcome =
            start_briefly(&["serve", "--tcp", "0.0.0.0:0", flag, "x"], Duration::from_secs(10));
        let (code, log) = outcome.expect("it refuses to start");
        assert_ne!(code, 0, "{log}");
        assert!(log.contains("fewer than 16 characters") && log.contains(flag), "{log}");
    }
    // Loopback stays a local setup: a short token is the operator's business there.
    let local = Server::tcp(&["--token", "x"]);
    assert_eq!(local.connect().ok("hello", json!({"token": "x"}))["role"], "player");
}

#[test]
fn a_browser_preconnect_that_sends_nothing_is_closed_without_a_warning() {
    let server = Server::tcp(&["--http", "127.0.0.1:0", "--handshake-timeout", "0.5"]);
    let (addr, _) = http_of(&server);
    let mut silent = TcpStream::connect(&addr).unwrap();
    silent.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let _ = silent.read_to_end(&mut rest);
    assert!(rest.is_empty(), "closed without an answer");
    // A half-sent request still gets its warning, so the log is being written.
    let mut half = TcpStream::connect(&addr).unwrap();
    half.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
    half.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = half.read_to_end(&mut rest);
    let log = server.wait_log(&["no complete request headers"]);
    assert_eq!(log.matches("no complete request headers").count(), 1, "{log}");
}
