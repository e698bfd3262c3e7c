//! Load on a real `yomi serve --tcp 127.0.0.1:0 --http 127.0.0.1:0` child process, over TCP and
//! over WebSocket (`/ws`): round-trip latency of `ping` and of an `agent.act` on the example `rps`
//! bot over one connection (p50/p99), then requests per second with 1, 10 and 100 concurrent
//! connections, each a closed loop of one request at a time.
//!
//! Not a criterion bench: it prints one table. Needs the release build of the workspace:
//! `cargo build --release --workspace && cargo bench -p yomi --bench tcp_load`.
//! `YOMI_BENCH_SECS` sets the seconds per throughput cell (default 3), `YOMI_BENCH_N` the
//! round trips per latency row (default 20000), `YOMI_BENCH_CONNECTIONS` the connection counts
//! (default `1,10,100`).
//!
//! A last table gives decisions per second of battle/delta-nash and stud/fuzzy asked one
//! position per `agent.act` and `YOMI_BENCH_BATCH` positions (default 32; 0 skips the table) per
//! batched `agent.act`, over TCP at 1 and 100 connections; the positions are the real ones of a
//! match the server plays first. `YOMI_BENCH_ONLY=batch` prints that table alone.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};
use yomi_e2e::Server;

/// Where the server listens: the same process on both transports.
#[derive(Clone, Copy)]
enum Transport {
    Tcp(SocketAddr),
    /// The HTTP listener and the token it generated at launch.
    WebSocket(SocketAddr, &'static str),
}

/// A bare blocking client: one request out, one reply in. No helper threads, so the client costs
/// as little CPU as possible on a machine it shares with the server.
enum Client {
    Tcp { writer: TcpStream, reader: BufReader<TcpStream>, line: String },
    WebSocket(Box<WebSocket<MaybeTlsStream<TcpStream>>>),
}

impl Client {
    fn connect(transport: Transport) -> Client {
        match transport {
            Transport::Tcp(addr) => {
                let stream = TcpStream::connect(addr).expect("connect");
                stream.set_nodelay(true).unwrap();
                Client::Tcp {
                    reader: BufReader::new(stream.try_clone().unwrap()),
                    writer: stream,
                    line: String::new(),
                }
            }
            Transport::WebSocket(addr, token) => {
                let url = format!("ws://{addr}/ws?token={token}");
                let (socket, _) = tungstenite::connect(url).expect("connect");
                if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
                    stream.set_nodelay(true).unwrap();
                }
                Client::WebSocket(Box::new(socket))
            }
        }
    }

    /// Sends one request (a line; one text frame over WebSocket) and waits for its reply; panics
    /// on an error reply.
    fn round_trip(&mut self, request: &str) {
        match self {
            Client::Tcp { writer, reader, line } => {
                writer.write_all(request.as_bytes()).unwrap();
                line.clear();
                reader.read_line(line).unwrap();
                assert!(line.contains("\"ok\":true"), "request failed: {line}");
            }
            Client::WebSocket(socket) => {
                socket.send(Message::text(request.trim_end())).unwrap();
                match socket.read().unwrap() {
                    Message::Text(text) => {
                        assert!(text.contains("\"ok\":true"), "request failed: {text}")
                    }
                    other => panic!("unexpected frame {other:?}"),
                }
            }
        }
    }

    /// Makes an rps agent in this session (its id is `a1`).
    fn new_agent(&mut self) {
        self.round_trip(RPS_AGENT);
    }
}

const RPS_AGENT: &str =
    "{\"id\":0,\"op\":\"agent.new\",\"bot\":\"example/rps\",\"preset\":\"reader\"}\n";
const PING: &str = "{\"id\":1,\"op\":\"ping\"}\n";
const ACT: &str = "{\"id\":2,\"op\":\"agent.act\",\"agent\":\"a1\",\"observation\":{\"opponent_last\":\"rock\"},\"legal\":[\"rock\",\"paper\",\"scissors\"]}\n";

/// The connection counts of the throughput table: `YOMI_BENCH_CONNECTIONS` (comma-separated),
/// 1, 10 and 100 by default.
fn connection_counts() -> Vec<usize> {
    std::env::var("YOMI_BENCH_CONNECTIONS")
        .ok()
        .and_then(|v| v.split(',').map(|c| c.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 10, 100])
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Round-trip times, summarised.
struct Latencies(Vec<Duration>);

impl Latencies {
    fn new(mut samples: Vec<Duration>) -> Latencies {
        samples.sort();
        Latencies(samples)
    }

    /// The `p` quantile (0..1) in microseconds.
    fn percentile(&self, p: f64) -> f64 {
        let i = ((self.0.len() as f64 * p) as usize).min(self.0.len() - 1);
        self.0[i].as_secs_f64() * 1e6
    }

    fn mean(&self) -> f64 {
        self.0.iter().map(Duration::as_secs_f64).sum::<f64>() * 1e6 / self.0.len() as f64
    }
}

/// One request's round trip, timed.
fn timed(client: &mut Client, request: &str) -> Duration {
    let start = Instant::now();
    client.round_trip(request);
    start.elapsed()
}

/// `n` sequential round trips on one connection, after `n / 10` warm-up ones.
fn latency(transport: Transport, request: &str, n: usize) -> Latencies {
    let mut client = Client::connect(transport);
    client.new_agent();
    for _ in 0..n / 10 {
        client.round_trip(request);
    }
    Latencies::new((0..n).map(|_| timed(&mut client, request)).collect())
}

/// Requests per second over `connections` clients, each sending one request at a time for
/// `secs`, and the round-trip times of all of them (at 100 connections they include the queueing
/// behind the other clients, which is what a client of a busy server sees).
fn throughput(
    transport: Transport,
    request: &'static str,
    connections: usize,
    secs: u64,
) -> (f64, Latencies) {
    throughput_of(transport, RPS_AGENT, request, connections, secs)
}

/// [`throughput`] with each connection's agent `a1` made by the `agent.new` line `new_agent`.
fn throughput_of(
    transport: Transport,
    new_agent: &str,
    request: &'static str,
    connections: usize,
    secs: u64,
) -> (f64, Latencies) {
    let mut clients: Vec<Client> = (0..connections).map(|_| Client::connect(transport)).collect();
    for client in &mut clients {
        client.round_trip(new_agent);
    }
    let start = Arc::new(Barrier::new(connections + 1));
    let workers: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                let deadline = Instant::now() + Duration::from_secs(secs);
                let mut samples = Vec::new();
                while Instant::now() < deadline {
                    samples.push(timed(&mut client, request));
                }
                samples
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    let samples: Vec<Duration> = workers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    let rate = samples.len() as f64 / began.elapsed().as_secs_f64();
    (rate, Latencies::new(samples))
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument that names neither part skips this bench.
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if !filter.is_empty() && !filter.iter().any(|f| "tcp_load".contains(f.as_str())) {
        return;
    }
    let n = env_number("YOMI_BENCH_N", 20_000) as usize;
    let secs = env_number("YOMI_BENCH_SECS", 3);
    let server = Server::tcp(&[
        "--max-connections",
        "256",
        "--max-connections-per-ip",
        "0",
        "--http",
        "127.0.0.1:0",
    ]);
    let tcp = server.addr.unwrap();
    if std::env::var("YOMI_BENCH_ONLY").as_deref() == Ok("batch") {
        println!("load average before: {}", load_average());
        batches(Transport::Tcp(tcp), secs);
        println!("load average after: {}", load_average());
        return;
    }
    let http = http_addr(&server);
    println!("yomi serve --tcp {tcp} --http {http} (release build), client and server on the same machine");
    println!("load average before: {}", load_average());
    let token: &'static str = server.generated_token().leak();
    let transports =
        [("TCP", Transport::Tcp(tcp)), ("WebSocket", Transport::WebSocket(http, token))];
    println!();
    println!("round trip over one connection, {n} sequential requests");
    println!("| transport | request | p50 µs | p99 µs | mean µs |");
    println!("|---|---|---:|---:|---:|");
    for (name, request) in [("ping", PING), ("agent.act example/rps", ACT)] {
        for (transport_name, transport) in transports {
            let l = latency(transport, request, n);
            let (p50, p99, mean) = (l.percentile(0.5), l.percentile(0.99), l.mean());
            println!("| {transport_name} | {name} | {p50:.1} | {p99:.1} | {mean:.1} |");
        }
    }
    println!();
    println!("throughput, closed loop (one request in flight per connection), {secs} s per cell;");
    println!("act/ping: agent.act req/s over ping req/s, and agent.act p50 over ping p50");
    println!("| transport | connections | ping req/s | agent.act req/s | act/ping req/s | ping p50 µs | agent.act p50 µs | act/ping p50 |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for connections in connection_counts() {
        for (transport_name, transport) in transports {
            let (ping, ping_l) = throughput(transport, PING, connections, secs);
            let (act, act_l) = throughput(transport, ACT, connections, secs);
            let (ping_p50, act_p50) = (ping_l.percentile(0.5), act_l.percentile(0.5));
            println!(
                "| {transport_name} | {connections} | {ping:.0} | {act:.0} | {:.2} | {ping_p50:.1} | {act_p50:.1} | {:.2} |",
                act / ping,
                act_p50 / ping_p50
            );
        }
    }
    batches(Transport::Tcp(tcp), secs);
    println!();
    println!("load average after: {}", load_average());
}

/// Decisions per second, one position per `agent.act` against batches, for two game bots.
fn batches(transport: Transport, secs: u64) {
    let size = env_number("YOMI_BENCH_BATCH", 32) as usize;
    if size == 0 {
        return;
    }
    println!();
    println!("decisions per second over TCP, closed loop, {secs} s per cell: one position per");
    println!("agent.act, or {size} positions per batched agent.act");
    println!("| bot | connections | single decisions/s | batched decisions/s | batched/single |");
    println!("|---|---:|---:|---:|---:|");
    for (game, bot) in [("battle", "battle/delta-nash"), ("stud", "stud/fuzzy")] {
        let positions = positions_of(transport, game, bot);
        let single = act_line(&positions[..1], false);
        let cycled: Vec<serde_json::Value> = positions.iter().cycle().take(size).cloned().collect();
        let batch = act_line(&cycled, true);
        let (single, batch): (&'static str, &'static str) = (single.leak(), batch.leak());
        let new_agent =
            format!("{}\n", serde_json::json!({"id": 0, "op": "agent.new", "bot": bot}));
        for connections in [1, 100] {
            let (single_rate, _) = throughput_of(transport, &new_agent, single, connections, secs);
            let (batch_rate, _) = throughput_of(transport, &new_agent, batch, connections, secs);
            let batched = batch_rate * size as f64;
            println!(
                "| {bot} | {connections} | {single_rate:.0} | {batched:.0} | {:.2} |",
                batched / single_rate
            );
        }
    }
}

/// The positions seat 0 saw in one game of `bot` against itself, from the match's transcript.
fn positions_of(transport: Transport, game: &str, bot: &str) -> Vec<serde_json::Value> {
    let mut client = Client::connect(transport);
    let run = serde_json::json!({"id": 1, "op": "match.run", "game": game, "seed": 1, "games": 1,
        "transcript": true, "seats": [{"bot": bot}, {"bot": bot}]});
    let Client::Tcp { writer, reader, line } = &mut client else { panic!("TCP only") };
    writer.write_all(format!("{run}\n").as_bytes()).unwrap();
    let reply = loop {
        line.clear();
        reader.read_line(line).unwrap();
        let message: serde_json::Value = serde_json::from_str(line).unwrap();
        if message.get("id").is_some() {
            break message;
        }
    };
    let transcript = reply["result"]["transcript"].as_array().expect("a transcript").clone();
    let positions: Vec<serde_json::Value> = transcript
        .iter()
        .filter(|l| l["type"] == "decision" && l["seat"] == 0)
        .map(|l| serde_json::json!({"observation": l["observation"], "legal": l["legal"]}))
        .collect();
    assert!(!positions.is_empty(), "no decision of seat 0 in {reply}");
    positions
}

/// An `agent.act` line for agent `a1`: the one position, or all of them as a batch.
fn act_line(positions: &[serde_json::Value], batch: bool) -> String {
    let mut act = serde_json::json!({"id": 2, "op": "agent.act", "agent": "a1"});
    match batch {
        true => act["positions"] = serde_json::json!(positions),
        false => {
            act["observation"] = positions[0]["observation"].clone();
            act["legal"] = positions[0]["legal"].clone();
        }
    }
    format!("{act}\n")
}

/// The machine's load (Linux), printed with the figures: the numbers mean little on a busy machine.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The address of the server's HTTP listener, from its `listening on http://ADDR` log line.
fn http_addr(server: &Server) -> SocketAddr {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let log = server.log();
        let found = log.lines().find_map(|line| {
            line.split("listening on http://").nth(1)?.split_whitespace().next()?.parse().ok()
        });
        if let Some(addr) = found {
            return addr;
        }
        assert!(Instant::now() < deadline, "no HTTP listener in the log:\n{log}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
