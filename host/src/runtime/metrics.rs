//! Prometheus metrics of a serving host (`yomi serve --metrics ADDR`): connections, requests by
//! operation and outcome, plugin call latency by bot, games played, worker restarts.
//!
//! The recording functions below go through the `metrics` facade: without `--metrics` no recorder
//! is installed and each call is a no-op, so the CLI commands and tests pay nothing for them.

use std::net::SocketAddr;
use std::time::Duration;

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
use yomi_protocol::error::ALL_CODES;
use yomi_protocol::ErrorCode;

const CONNECTIONS_OPEN: &str = "yomi_connections_open";
const CONNECTIONS: &str = "yomi_connections_total";
const REQUESTS: &str = "yomi_requests_total";
const PLUGIN_CALL_SECONDS: &str = "yomi_plugin_call_seconds";
const MATCH_GAMES: &str = "yomi_match_games_total";
const TOURNAMENT_GAMES: &str = "yomi_tournament_games_total";
const WORKER_RESTARTS: &str = "yomi_worker_restarts_total";

/// Latency buckets from 10 µs (a heuristic bot's decision) to 10 s (a deep search).
const CALL_BUCKETS: &[f64] =
    &[1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0];

/// Installs the Prometheus recorder and serves `GET /metrics` (any path, in fact) on `addr`.
/// Must run inside the tokio runtime, which then runs the exporter.
pub fn serve(addr: SocketAddr) -> anyhow::Result<()> {
    let (recorder, exporter) = PrometheusBuilder::new()
        .with_http_listener(addr)
        .set_buckets_for_metric(Matcher::Full(PLUGIN_CALL_SECONDS.into()), CALL_BUCKETS)?
        .build()
        .map_err(|e| anyhow::anyhow!("metrics on {addr}: {e}"))?;
    metrics::set_global_recorder(recorder)?;
    tokio::spawn(async move {
        if let Err(e) = exporter.await {
            tracing::error!("the metrics endpoint stopped: {e:?}");
        }
    });
    describe();
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
}

/// A connection opened (`transport` is "tcp" or "stdio"); the gauge falls when the guard drops.
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

/// One call into a bot took `elapsed`.
pub fn plugin_call(bot: &str, elapsed: Duration) {
    histogram!(PLUGIN_CALL_SECONDS, "bot" => bot.to_string()).record(elapsed.as_secs_f64());
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
