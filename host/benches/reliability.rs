//! Reliability load: `cargo bench -p yomi --bench reliability [many|churn|faults]`.
//!
//! - `many`: holds 5,000 concurrent TCP connections to one `yomi serve` on loopback, each doing
//!   `ping` and `agent.act` round trips, for `YOMI_BENCH_SECONDS` (default 60); counts errors.
//! - `churn`: 50,000 connect / ping / close cycles (`YOMI_BENCH_CYCLES`), 16 at a time.
//! - `soak`: 200 connections each playing one-game battle matches of delta-nash against itself
//!   for `YOMI_SOAK_SECONDS` (default 30), then the server idle: its RSS and threads during and
//!   0, 15 and 35 s after, to tell a leak from a high-water mark (threads of the blocking pool
//!   end after 10 s idle; the memory trimmer gives memory back every 30 s).
//! - `faults`: 100 connections doing round trips while one more connection runs a match whose
//!   isolated bot (the `misbehave` fixture in a `yomi worker`) hangs, panics or aborts at every
//!   decision; prints the 100 connections' latency percentiles in each phase
//!   (`YOMI_FAULT_SECONDS` each, default 10) beside the quiet phase.
//!
//! Prints the server's RSS and open file descriptors before, during and after. Needs a file
//! descriptor limit above the connection count for both processes; it raises its own soft limit
//! to the hard one (the server inherits it).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use yomi_e2e::{library, target_dir, Server};

const CONNECTIONS: usize = 5_000;

fn main() {
    raise_fd_limit();
    // A bot's panic in a fresh worker would print a symbolised backtrace (about 100 ms of CPU)
    // when the caller's shell sets this: measure the host, not the backtrace printer. Nothing
    // else runs yet, so changing the environment is safe.
    std::env::remove_var("RUST_BACKTRACE");
    let which = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    // The build's plugins, and the misbehaving fixture for `faults`.
    let (plugins, misbehave) = (target_dir(), library("fixture_misbehave"));
    let server = Server::tcp(&[
        "--max-connections",
        "6000",
        "--max-connections-per-ip",
        "0",
        "--idle-timeout",
        "0",
        "--plugins",
        plugins.to_str().unwrap(),
        "--plugins",
        misbehave.to_str().unwrap(),
    ]);
    let addr = server.addr.expect("tcp server");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    report("before", server.pid());
    if which.as_deref().is_none_or(|w| w == "many") {
        let seconds = env_number("YOMI_BENCH_SECONDS", 60);
        runtime.block_on(many(addr, server.pid(), Duration::from_secs(seconds)));
        std::thread::sleep(Duration::from_secs(2));
        report("after many", server.pid());
    }
    if which.as_deref().is_none_or(|w| w == "churn") {
        let cycles = env_number("YOMI_BENCH_CYCLES", 50_000) as usize;
        runtime.block_on(churn(addr, cycles));
        std::thread::sleep(Duration::from_secs(2));
        report("after churn", server.pid());
    }
    if which.as_deref() == Some("soak") {
        let seconds = env_number("YOMI_SOAK_SECONDS", 30);
        runtime.block_on(soak(addr, server.pid(), Duration::from_secs(seconds)));
    }
    if which.as_deref().is_none_or(|w| w == "faults") {
        let seconds = env_number("YOMI_FAULT_SECONDS", 10);
        runtime.block_on(faults(addr, server.pid(), Duration::from_secs(seconds)));
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Raises this process's soft file-descriptor limit to its hard limit.
fn raise_fd_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain syscalls on a valid struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
    eprintln!("file descriptor limit: {}", limit.rlim_cur);
}

/// Prints the server's resident memory and open file descriptors.
fn report(when: &str, pid: u32) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: ?");
    let threads = status.lines().find(|l| l.starts_with("Threads:")).unwrap_or("Threads: ?");
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    println!("{when:>12}: server {rss}, {threads}, {fds} open fds");
}

/// What one client saw: each successful round trip (when it was sent, how long it took) and
/// its errors.
#[derive(Default)]
struct ClientLog {
    trips: Vec<(Instant, Duration)>,
    errors: u64,
}

/// One client: makes an agent, then alternates `ping` and `agent.act`, one every `interval`,
/// until `end`. Stops at the first error.
async fn client(addr: SocketAddr, end: Instant, interval: Duration) -> ClientLog {
    let mut log = ClientLog::default();
    let Ok(stream) = TcpStream::connect(addr).await else {
        log.errors += 1;
        return log;
    };
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    if !ask(&mut write, &mut lines, r#"{"id":0,"op":"agent.new","bot":"example/rps"}"#).await {
        log.errors += 1;
        return log;
    }
    let mut i = 0u64;
    while Instant::now() < end {
        i += 1;
        let line = if i & 1 == 0 {
            format!(r#"{{"id":{i},"op":"ping"}}"#)
        } else {
            format!(
                r#"{{"id":{i},"op":"agent.act","agent":"a1","observation":{{"opponent_last":"rock"}},"legal":["rock","paper","scissors"]}}"#
            )
        };
        let sent = Instant::now();
        if !ask(&mut write, &mut lines, &line).await {
            log.errors += 1;
            break;
        }
        log.trips.push((sent, sent.elapsed()));
        tokio::time::sleep(interval).await;
    }
    log
}

/// Runs `count` clients until `end` (started `stagger` apart) and gathers their logs.
async fn clients(
    addr: SocketAddr,
    count: usize,
    stagger: Duration,
    end: Instant,
    interval: Duration,
) -> Vec<ClientLog> {
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..count {
        tokio::time::sleep_until((start + stagger * i as u32).into()).await;
        tasks.spawn(client(addr, end, interval));
    }
    let mut logs = vec![];
    while let Some(result) = tasks.join_next().await {
        logs.push(result.unwrap_or(ClientLog { trips: vec![], errors: 1 }));
    }
    logs
}

/// "N round trips, p50 / p99 / max latency" of the trips sent within `from..to`.
fn latency_summary(logs: &[ClientLog], from: Instant, to: Instant) -> String {
    let mut times: Vec<Duration> = logs
        .iter()
        .flat_map(|l| &l.trips)
        .filter(|(sent, _)| (from..to).contains(sent))
        .map(|&(_, took)| took)
        .collect();
    if times.is_empty() {
        return "no round trips".into();
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    format!(
        "{} round trips, latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}

/// Sends one request line and reads one reply; true when it succeeded.
async fn ask(
    write: &mut tokio::net::tcp::OwnedWriteHalf,
    lines: &mut tokio::io::Lines<BufReader<tokio::net::tcp::OwnedReadHalf>>,
    line: &str,
) -> bool {
    if write.write_all(format!("{line}\n").as_bytes()).await.is_err() {
        return false;
    }
    matches!(lines.next_line().await, Ok(Some(reply)) if reply.contains("\"ok\":true"))
}

async fn many(addr: SocketAddr, pid: u32, period: Duration) {
    let start = Instant::now();
    // Connections are opened over the first 10 s so the accept queue never overflows.
    let ramp = Duration::from_secs(10);
    let end = start + ramp + period;
    // Each connection asks about once a second: 5,000 connections, ~5,000 requests/s.
    let run = tokio::spawn(clients(
        addr,
        CONNECTIONS,
        ramp / CONNECTIONS as u32,
        end,
        Duration::from_secs(1),
    ));
    tokio::time::sleep_until((start + ramp + period / 2).into()).await;
    report("during many", pid);
    let logs = run.await.unwrap();
    let errors: u64 = logs.iter().map(|l| l.errors).sum();
    let trips: usize = logs.iter().map(|l| l.trips.len()).sum();
    println!(
        "many: {CONNECTIONS} connections for {} s (+{} s ramp-up): {trips} round trips ({:.0}/s), {errors} errors",
        period.as_secs(),
        ramp.as_secs(),
        trips as f64 / (ramp + period).as_secs_f64(),
    );
    println!("many, steady part: {}", latency_summary(&logs, start + ramp, end));
}

/// 200 connections playing battle matches back to back for `period`, then idle.
async fn soak(addr: SocketAddr, pid: u32, period: Duration) {
    const SOAKERS: usize = 200;
    let end = Instant::now() + period;
    let matches = (0..SOAKERS).map(|_| {
        tokio::spawn(async move {
            let (read, mut write) = TcpStream::connect(addr).await.unwrap().into_split();
            let mut lines = BufReader::new(read).lines();
            let request = r#"{"id":1,"op":"match.run","game":"battle","games":1,"seats":[{"bot":"battle/delta-nash"},{"bot":"battle/delta-nash"}]}"#;
            let mut played = 0u64;
            while Instant::now() < end {
                write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
                loop {
                    let line = lines.next_line().await.unwrap().expect("the server answers");
                    if line.starts_with(r#"{"id":1,"#) {
                        assert!(line.contains(r#""ok":true"#), "{line}");
                        break;
                    }
                }
                played += 1;
            }
            played
        })
    });
    let matches: Vec<_> = matches.collect();
    tokio::time::sleep(period / 2).await;
    report("during soak", pid);
    let mut played = 0;
    for m in matches {
        played += m.await.unwrap();
    }
    println!("soak: {SOAKERS} connections for {} s: {played} matches", period.as_secs());
    let idle = Instant::now();
    for after in [0, 15, 35] {
        tokio::time::sleep_until((idle + Duration::from_secs(after)).into()).await;
        report(&format!("idle {after} s"), pid);
    }
}

/// A request for a match of `games` games where the `misbehave` bot, isolated in a worker, does
/// `on_act` at every decision against the example bot; every failure forfeits the game.
fn faulty_match(id: u64, on_act: &str, games: u64) -> String {
    format!(
        r#"{{"id":{id},"op":"match.run","game":"rps","seed":{id},"games":{games},"seats":[{{"bot":"misbehave/misbehave","options":{{"on_act":"{on_act}"}},"isolate":true}},{{"bot":"example/rps"}}],"policy":{{"deadline_ms":100}}}}"#
    )
}

/// How often a faulty bot fails.
#[derive(Clone, Copy)]
enum Pace {
    /// One long match: a new game (and, after a crash or a hang, a new worker) right away.
    BackToBack,
    /// One one-game match, then this pause: a steady, realistic fault rate.
    Every(Duration),
}

/// Runs faulty matches until `end`, then hangs up (which stops a running one); returns the
/// games played.
async fn faulty_connection(addr: SocketAddr, on_act: &str, pace: Pace, end: Instant) -> u64 {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut games = 0;
    for id in 1.. {
        let count = match pace {
            Pace::BackToBack => 1_000_000,
            Pace::Every(_) => 1,
        };
        write.write_all(format!("{}\n", faulty_match(id, on_act, count)).as_bytes()).await.unwrap();
        let reply = format!("{{\"id\":{id},");
        loop {
            let Ok(Ok(Some(line))) = tokio::time::timeout_at(end.into(), lines.next_line()).await
            else {
                return games;
            };
            assert!(!line.contains("\"ok\":false"), "the faulty match was refused: {line}");
            if line.contains("\"match.progress\"") {
                games += 1;
            } else if line.starts_with(&reply) {
                break;
            }
        }
        if let Pace::Every(pause) = pace {
            tokio::time::sleep(pause).await;
        }
    }
    games
}

/// 100 connections' latency while another runs matches whose isolated bot misbehaves.
async fn faults(addr: SocketAddr, pid: u32, phase: Duration) {
    const OTHERS: usize = 100;
    let paced = Pace::Every(Duration::from_millis(100));
    let phases: [(&str, Option<Pace>); 8] = [
        ("quiet", None),
        ("ok", Some(Pace::BackToBack)),
        ("hang", Some(Pace::BackToBack)),
        ("panic", Some(Pace::BackToBack)),
        ("abort", Some(Pace::BackToBack)),
        ("ok", Some(paced)),
        ("panic", Some(paced)),
        ("abort", Some(paced)),
    ];
    let start = Instant::now();
    // Every connection is open and has its agent before the first phase starts.
    let ramp = Duration::from_secs(2);
    let end = start + ramp + phase * phases.len() as u32;
    let interval = Duration::from_millis(50);
    let run = tokio::spawn(clients(addr, OTHERS, Duration::from_millis(10), end, interval));
    let mut games = vec![];
    for (i, (on_act, pace)) in phases.iter().enumerate() {
        let from = start + ramp + phase * i as u32;
        tokio::time::sleep_until(from.into()).await;
        games.push(match pace {
            None => 0,
            Some(pace) => faulty_connection(addr, on_act, *pace, from + phase).await,
        });
        report(&format!("after {on_act}"), pid);
    }
    let logs = run.await.unwrap();
    let errors: u64 = logs.iter().map(|l| l.errors).sum();
    println!("faults: {OTHERS} connections, one request each every {interval:?}, {errors} errors");
    for (i, (on_act, pace)) in phases.iter().enumerate() {
        let from = start + ramp + phase * i as u32;
        let played = match pace {
            None => "no match".to_string(),
            Some(Pace::BackToBack) => format!("on_act={on_act} back to back: {} games", games[i]),
            Some(Pace::Every(p)) => format!("on_act={on_act} every {p:?}: {} games", games[i]),
        };
        println!("{played}; others: {}", latency_summary(&logs, from, from + phase));
    }
}

async fn churn(addr: SocketAddr, cycles: usize) {
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..16 {
        tasks.spawn(async move {
            let mut errors = 0u64;
            for _ in (worker..cycles).step_by(16) {
                let ok = async {
                    let mut stream = TcpStream::connect(addr).await.ok()?;
                    stream.write_all(b"{\"id\":1,\"op\":\"ping\"}\n").await.ok()?;
                    let mut lines = BufReader::new(&mut stream).lines();
                    lines.next_line().await.ok()?.filter(|l| l.contains("pong"))
                };
                if ok.await.is_none() {
                    errors += 1;
                }
            }
            errors
        });
    }
    let mut errors = 0;
    while let Some(result) = tasks.join_next().await {
        errors += result.unwrap_or(1);
    }
    println!(
        "churn: {cycles} connect/ping/close cycles in {:.1} s, {errors} errors",
        start.elapsed().as_secs_f64()
    );
}
