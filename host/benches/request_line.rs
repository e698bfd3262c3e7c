//! The server's own work for one request line, without the network: parse the line, apply the
//! operation, serialize the reply — `ping` against `agent.act` on the example `rps` bot, whose
//! difference is what an `agent.act` costs beyond any request. The bot runs in line (as on a
//! tournament's game thread), so the rows measure CPU, not the hand-over to a lane.
//!
//! A second group parses a 1 MB `ping` of unknown keys (what a client may send before its token
//! when `--max-unauthenticated-line-bytes` allows it) with yomi's request parser and with
//! serde_json's plain parse into a `Value`: the parser must stay linear in the line.
//!
//! Needs the plugin library built: `cargo build --release --workspace`, then
//! `cargo bench -p yomi --bench request_line`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use tokio::sync::mpsc::Receiver;
use yomi_host::ops::handle_line;
use yomi_host::registry::Registry;
use yomi_host::runtime::config::{ServeConfig, Shared};
use yomi_host::runtime::executor::{on_game_thread, Scope};
use yomi_host::runtime::outbox::Outbox;
use yomi_host::session::Session;

const PING: &str = "{\"id\":1,\"op\":\"ping\"}";
const ACT: &str = "{\"id\":2,\"op\":\"agent.act\",\"agent\":\"a1\",\"observation\":{\"opponent_last\":\"rock\"},\"legal\":[\"rock\",\"paper\",\"scissors\"]}";

/// A session of a server that found the build's plugins, holding one `example/rps` agent `a1`,
/// with its outbox and the queue behind it.
async fn session() -> Connection {
    let registry = Registry::new(&[yomi_e2e::target_dir()]).expect("the target directory");
    let errors = registry.discover();
    assert!(errors.is_empty(), "plugins load: {errors:?}");
    let shared = Arc::new(Shared::new(Arc::new(registry), ServeConfig::default()));
    let (outbox, queue) = Outbox::new(1);
    let mut session = Session::new(shared, outbox.clone());
    let new = "{\"id\":0,\"op\":\"agent.new\",\"bot\":\"example/rps\",\"preset\":\"reader\"}";
    let reply =
        handle_line(&mut session, new, Scope::HANDED_OVER).await.expect("agent.new replies");
    assert!(reply.ok, "agent.new: {reply:?}");
    Connection { session, outbox, queue }
}

/// What a connection holds: its session, and its outgoing queue from both ends.
struct Connection {
    session: Session,
    outbox: Outbox,
    queue: Receiver<String>,
}

/// Answers `line` `iters` times, each reply serialized and queued as a connection does, and taken
/// off the queue again (in this thread: no other thread takes part).
async fn answer(
    mut c: Connection,
    line: &'static str,
    iters: u64,
    scope: Scope,
) -> (Connection, Duration) {
    let started = Instant::now();
    for _ in 0..iters {
        let reply = handle_line(&mut c.session, line, scope).await.expect("a direct reply");
        c.outbox.reply(&reply).await.expect("the queue is open");
        black_box(c.queue.recv().await);
    }
    (c, started.elapsed())
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut state = Some(runtime.block_on(session()));
    let mut group = c.benchmark_group("request line, in process");
    for (name, line) in [("ping", PING), ("agent.act example/rps", ACT)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let connection = state.take().expect("the connection is back");
                let work = on_game_thread(move |scope| async move {
                    Ok::<_, yomi_protocol::ErrorInfo>(answer(connection, line, iters, scope).await)
                });
                let (connection, elapsed) = runtime.block_on(work).unwrap();
                state = Some(connection);
                elapsed
            })
        });
    }
    group.finish();
}

/// A `ping` of about `bytes` bytes of unknown keys, each once.
fn ping_of_unknown_keys(bytes: usize) -> String {
    let mut line = String::from("{\"id\":1,\"op\":\"ping\"");
    let mut key = 0;
    while line.len() < bytes {
        line.push_str(&format!(",\"k{key}\":0"));
        key += 1;
    }
    line.push('}');
    line
}

fn bench_parse(c: &mut Criterion) {
    let line = ping_of_unknown_keys(1 << 20);
    let mut group = c.benchmark_group("parse a 1 MB line of unknown keys");
    group.sample_size(20);
    group.bench_function("yomi request parse", |b| {
        b.iter(|| black_box(yomi_protocol::Request::parse(black_box(&line)).is_ok()))
    });
    group.bench_function("serde_json into a Value", |b| {
        b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&line)).is_ok()))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_parse);
criterion_main!(benches);
