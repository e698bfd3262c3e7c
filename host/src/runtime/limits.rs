//! Per-connection limits and timeouts: what keeps one slow, idle or greedy client from holding
//! the server's memory, connection slots or shutdown. Documented in PROTOCOL.md, "Transports,
//! limits and shutdown".

use std::time::Duration;

use clap::Args;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// Limits every TCP session gets (stdio sessions skip the idle and line timeouts: the parent
/// process owns that pipe and may keep it quiet for as long as it likes).
#[derive(Debug, Clone, Args)]
pub struct Limits {
    /// Close a TCP or WebSocket connection that sent nothing for this many seconds while none of
    /// its matches or tournaments run (0 = never).
    #[arg(long, value_name = "SECONDS", default_value = "120", value_parser = seconds)]
    pub idle_timeout: Duration,
    /// Close a network client that has not given its token within this many seconds of
    /// connecting, and an HTTP connection whose request headers take longer (0 = never).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = seconds)]
    pub handshake_timeout: Duration,
    /// Close a TCP connection whose request line is still unfinished this many seconds after its
    /// first byte arrived (a trickling client, a line with no newline; 0 = never).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = seconds)]
    pub line_timeout: Duration,
    /// Close a connection that has not taken a queued reply for this many seconds (a client that
    /// sends requests but never reads; 0 = never).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = seconds)]
    pub write_timeout: Duration,
    /// Agents one session may hold at once; `agent.new` beyond it fails with `limit_exceeded`.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_agents: usize,
    /// Matches and tournaments one session may run at once; more fail with `limit_exceeded`.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_background: usize,
    /// Bytes of replies and events queued for one client before the session waits for it to
    /// read (at most 256 lines are queued either way; one longer line still goes out alone).
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20, value_parser = positive)]
    pub max_outbox_bytes: usize,
    /// Positions one batched `agent.act` may carry; more fail with `limit_exceeded`.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = positive)]
    pub max_batch: usize,
    /// Time one batched `agent.act` may spend deciding: a position is started only while the
    /// time spent so far plus the slowest of its calls so far stays within it; the rest get
    /// `limit_exceeded` (a thousand positions of a slow bot would otherwise buy minutes of CPU).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = seconds)]
    pub max_batch_time: Duration,
    /// Longest request line read from a network client that has not given its token yet
    /// (`hello` and `ping` are short); longer ones get `line_too_long` unread, so a stranger
    /// costs no parsing. Capped by --max-line-bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4096, value_parser = positive)]
    pub max_unauthenticated_line_bytes: usize,
}

/// Replies and events queued for one client before the session stops reading its requests
/// (the writer then closes the connection after `write_timeout`).
pub const OUTBOX_LINES: usize = 256;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            idle_timeout: Duration::from_secs(120),
            handshake_timeout: Duration::from_secs(10),
            line_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
            max_agents: 256,
            max_background: 16,
            max_outbox_bytes: 4 << 20,
            max_batch: 1000,
            max_batch_time: Duration::from_secs(5),
            max_unauthenticated_line_bytes: 4096,
        }
    }
}

impl Limits {
    /// A timeout in force, `None` when configured as 0 (never).
    pub fn enabled(timeout: Duration) -> Option<Duration> {
        (!timeout.is_zero()).then_some(timeout)
    }

    /// The `limit_exceeded` error when `in_use` already reaches `limit`.
    pub fn check(in_use: usize, limit: usize, what: &str, flag: &str) -> Result<(), ErrorInfo> {
        if in_use < limit {
            return Ok(());
        }
        Err(ErrorInfo::new(
            ErrorCode::LimitExceeded,
            format!(
                "this session already has {in_use} {what}, the server's limit ({flag} {limit})"
            ),
        ))
    }
}

/// Parses a number of seconds, fractions allowed (`0.5`).
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(value).map_err(|_| format!("`{text}` is not a number of seconds"))
}

/// Parses a count that must be at least 1 (0 would serve no one).
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_take_fractions_and_refuse_negatives() {
        assert_eq!(seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(seconds("0"), Ok(Duration::ZERO));
        assert!(seconds("-1").is_err());
        assert!(seconds("soon").is_err());
    }

    #[test]
    fn positive_counts_refuse_zero() {
        assert_eq!(positive("3"), Ok(3));
        assert!(positive("0").is_err());
        assert!(positive("-1").is_err());
    }

    #[test]
    fn the_limit_counts_what_is_already_in_use() {
        assert!(Limits::check(1, 2, "agents", "--max-agents").is_ok());
        let error = Limits::check(2, 2, "agents", "--max-agents").unwrap_err();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("--max-agents 2"), "{}", error.message);
    }
}
