//! Prometheus metrics of a serving host: connections, requests by operation and outcome, plugin
//! call latency by bot, games played, worker restarts. Scraped at `GET /metrics` on the HTTP port
//! (`yomi serve --http ADDR`) and on a port of their own (`--metrics ADDR`).
//!
//! The recording functions below go through the `metrics` facade: until [`scrape`] installs the
//! recorder (the first listener serving `/metrics` does) each call is a no-op, so the CLI commands
//! and tests pay nothing for them.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use axum::http::header;
use axum::routing::{get, MethodRouter};
use axum::Router;
use metrics::{
    counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram, Histogram,
};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use yomi_protocol::error::ALL_CODES;
use yomi_protocol::ErrorCode;

const CONNECTIONS_OPEN: &str = "yomi_connections_open";
const CONNECTIONS: &str = "yomi_connections_total";
const REQUESTS: &str = "yomi_requests_total";
const PLUGIN_CALL_SECONDS: &str = "yomi_plugin_call_seconds";
const MATCH_GAMES: &str = "yomi_match_games_total";
const TOURNAMENT_GAMES: &str = "yomi_tournament_games_total";
const WORKER_RESTARTS: &str = "yomi_worker_restarts_total";
const SERVICE_CALLS_RUNNING: &str = "yomi_service_calls_running";

/// Latency buckets from 10 µs (a heuristic bot's decision) to 10 s (a deep search).
const CALL_BUCKETS: &[f64] =
    &[1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0];

/// How often the recorder drops its histograms' drained samples (what the exporter's own
/// listener would do).
const UPKEEP: Duration = Duration::from_secs(5);

/// The Prometheus text format's media type.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The process's one recorder, installed by the first listener that serves it.
static RECORDER: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// `GET /metrics`: every metric as the exporter renders it. Installs the recorder on first use;
/// must run inside the tokio runtime, which then runs the recorder's upkeep.
pub fn scrape() -> anyhow::Result<MethodRouter> {
    let handle = RECORDER.get_or_init(install).clone().map_err(anyhow::Error::msg)?;
    Ok(get(move || {
        let text = handle.render();
        async move { ([(header::CONTENT_TYPE, TEXT_FORMAT)], text) }
    }))
}

fn install() -> Result<PrometheusHandle, String> {
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(PLUGIN_CALL_SECONDS.into()), CALL_BUCKETS)
        .map_err(|e| e.to_string())?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).map_err(|e| e.to_string())?;
    describe();
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(UPKEEP).await;
            upkeep.run_upkeep();
        }
    });
    Ok(handle)
}

/// Serves the metrics on a port of their own (`--metrics ADDR`), at any path. Binds at once, so
/// an address in use is an error here; must run inside the tokio runtime.
pub fn serve(addr: SocketAddr) -> anyhow::Result<()> {
    let bound = std::net::TcpListener::bind(addr)
        .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
        .and_then(tokio::net::TcpListener::from_std)
        .map_err(|e| anyhow::anyhow!("metrics on {addr}: {e}"))?;
    let app = Router::new().fallback_service(scrape()?);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(bound, app).await {
            tracing::error!("the metrics endpoint stopped: {e}");
        }
    });
    tracing::info!("metrics on http://{addr}/metrics");
    Ok(())
}

fn describe() {
    describe_gauge!(CONNECTIONS_OPEN, "Client connections open now, by transport");
    describe_counter!(CONNECTIONS, "Client connections accepted, by transport");
    describe_counter!(REQUESTS, "Requests answered, by operation and outcome (ok or error code)");
    describe_histogram!(
        PLUGIN_CALL_SECONDS,
        metrics::Unit::Seconds,
        "Time of one call into a bot (act, observe, configure, service), by bot"
    );
    describe_counter!(MATCH_GAMES, "Games played in matches, by game");
    describe_counter!(TOURNAMENT_GAMES, "Tournament games played and recorded, by game");
    describe_counter!(WORKER_RESTARTS, "Isolated bots' worker processes started again after dying");
    describe_gauge!(
        SERVICE_CALLS_RUNNING,
        "Service calls (agent.call) running inside in-process bots now, cancelled ones until they stop"
    );
}

/// A connection opened (`transport` is "tcp", "stdio" or "websocket"); the gauge falls when the
/// guard drops.
pub fn connection(transport: &'static str) -> ConnectionGuard {
    counter!(CONNECTIONS, "transport" => transport).increment(1);
    gauge!(CONNECTIONS_OPEN, "transport" => transport).increment(1.0);
    ConnectionGuard(transport)
}

/// Counts a connection as open while it lives.
pub struct ConnectionGuard(&'static str);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        gauge!(CONNECTIONS_OPEN, "transport" => self.0).decrement(1.0);
    }
}

/// One answered request. `op` must be a known operation name (or "unknown"/"unparsed"), so a
/// client cannot grow the label set without bound.
pub fn request(op: &'static str, outcome: Result<(), ErrorCode>) {
    let code = match outcome {
        Ok(()) => "ok",
        Err(code) => ALL_CODES.iter().find(|(c, _)| *c == code).map_or("internal", |(_, n)| n),
    };
    counter!(REQUESTS, "op" => op, "code" => code).increment(1);
}

/// The latencies of one bot's calls (`plugin/bot`), for an agent to keep: recording through a
/// kept handle skips building and looking up the labelled key at every call. A handle taken
/// before the recorder is installed records nothing; a server installs it before it serves.
pub fn plugin_calls(bot: &str) -> PluginCalls {
    PluginCalls(histogram!(PLUGIN_CALL_SECONDS, "bot" => bot.to_string()))
}

/// A service call running in a bot of this process: the gauge falls when the plugin returns,
/// which shows whether a cancelled call (or a gone client's) really stopped.
pub struct ServiceCall(());

impl ServiceCall {
    pub fn start() -> ServiceCall {
        gauge!(SERVICE_CALLS_RUNNING).increment(1.0);
        ServiceCall(())
    }
}

impl Drop for ServiceCall {
    fn drop(&mut self) {
        gauge!(SERVICE_CALLS_RUNNING).decrement(1.0);
    }
}

/// See [`plugin_calls`].
#[derive(Clone)]
pub struct PluginCalls(Histogram);

impl PluginCalls {
    /// One call took `elapsed`.
    pub fn record(&self, elapsed: Duration) {
        self.0.record(elapsed.as_secs_f64());
    }
}

/// Games of a match played.
pub fn match_games(game: &str, games: u64) {
    counter!(MATCH_GAMES, "game" => game.to_string()).increment(games);
}

/// One tournament game recorded.
pub fn tournament_game(game: &str) {
    counter!(TOURNAMENT_GAMES, "game" => game.to_string()).increment(1);
}

/// A dead worker process was started again.
pub fn worker_restart(bot: &str) {
    counter!(WORKER_RESTARTS, "bot" => bot.to_string()).increment(1);
}
