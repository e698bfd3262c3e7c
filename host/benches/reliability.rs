//! Reliability load: `cargo bench -p yomi --bench reliability [many|churn]`.
//!
//! - `many`: holds 5,000 concurrent TCP connections to one `yomi serve` on loopback, each doing
//!   `ping` and `agent.act` round trips, for `YOMI_BENCH_SECONDS` (default 60); counts errors.
//! - `churn`: 50,000 connect / ping / close cycles (`YOMI_BENCH_CYCLES`), 16 at a time.
//!
//! Prints the server's RSS and open file descriptors before, during and after. Needs a file
//! descriptor limit above the connection count for both processes; it raises its own soft limit
//! to the hard one (the server inherits it).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use yomi_e2e::Server;

const CONNECTIONS: usize = 5_000;

fn main() {
    raise_fd_limit();
    let which = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let server = Server::tcp(&["--max-connections", "6000", "--idle-timeout", "0"]);
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
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    println!("{when:>12}: server {rss}, {fds} open fds");
}

/// One client: makes an agent, then alternates `ping` and `agent.act` until `end`. Returns
/// (round trips, errors).
async fn client(addr: SocketAddr, end: Instant) -> (u64, u64) {
    let Ok(stream) = TcpStream::connect(addr).await else { return (0, 1) };
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    if !ask(&mut write, &mut lines, r#"{"id":0,"op":"agent.new","bot":"example/rps"}"#).await {
        return (0, 1);
    }
    let (mut trips, mut errors) = (0, 0);
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
        if ask(&mut write, &mut lines, &line).await {
            trips += 1;
        } else {
            errors += 1;
            break;
        }
        // Each connection asks about once a second: 5,000 connections, ~5,000 requests/s.
        tokio::time::sleep(Duration::from_millis(1000)).await;
    }
    (trips, errors)
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
    let end = start + Duration::from_secs(10) + period;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..CONNECTIONS {
        tokio::time::sleep_until((start + Duration::from_millis(2 * i as u64)).into()).await;
        tasks.spawn(client(addr, end));
    }
    tokio::time::sleep_until((start + Duration::from_secs(10) + period / 2).into()).await;
    report("during many", pid);
    let (mut trips, mut errors) = (0, 0);
    while let Some(result) = tasks.join_next().await {
        let (t, e) = result.unwrap_or((0, 1));
        trips += t;
        errors += e;
    }
    println!(
        "many: {CONNECTIONS} connections for {} s: {trips} round trips, {errors} errors",
        period.as_secs()
    );
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
