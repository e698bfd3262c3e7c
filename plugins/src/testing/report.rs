//! What a check found: one line per check with its status and why, the decision times, and the
//! same as text for people and as JSON for scripts.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The bot did what the check asks.
    Pass,
    /// It did not; the line's detail says how.
    Fail,
    /// The check does not apply (a service plays no game) or could not be measured.
    Skip,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        })
    }
}

/// One check's result: its name, status and the reason, in a sentence.
#[derive(Debug, Clone, Serialize)]
pub struct Line {
    /// The check's name (`legal play`, `deterministic` ...).
    pub check: &'static str,
    /// How it ended.
    pub status: Status,
    /// Why, in a sentence a bot author can act on.
    pub detail: String,
}

impl Line {
    /// A check passed.
    pub fn pass(check: &'static str, detail: impl Into<String>) -> Line {
        Line { check, status: Status::Pass, detail: detail.into() }
    }

    /// A check failed.
    pub fn fail(check: &'static str, detail: impl Into<String>) -> Line {
        Line { check, status: Status::Fail, detail: detail.into() }
    }

    /// A check that does not apply.
    pub fn skip(check: &'static str, detail: impl Into<String>) -> Line {
        Line { check, status: Status::Skip, detail: detail.into() }
    }
}

/// The bot's decision times over the games against random players, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Latency {
    /// Decisions timed.
    pub decisions: usize,
    /// Median decision time.
    pub p50_ms: f64,
    /// 99th percentile: what a game's frame budget must allow.
    pub p99_ms: f64,
    /// The slowest decision.
    pub max_ms: f64,
}

impl Latency {
    /// The nearest-rank percentiles of `times`; `None` without any.
    pub(crate) fn of(times: &[Duration]) -> Option<Latency> {
        let mut sorted = times.to_vec();
        sorted.sort();
        let at = |p: f64| {
            let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            sorted[rank - 1].as_secs_f64() * 1e3
        };
        let max = sorted.last()?.as_secs_f64() * 1e3;
        Some(Latency { decisions: sorted.len(), p50_ms: at(0.50), p99_ms: at(0.99), max_ms: max })
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms over {} decisions",
            self.p50_ms, self.p99_ms, self.max_ms, self.decisions
        )
    }
}

/// Everything one bot's check found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `plugin/bot`.
    pub bot: String,
    /// Whether no check failed (a skipped check does not fail).
    pub passed: bool,
    /// The seed the games derive from, to replay a failure.
    pub seed: u64,
    /// Games played in each seating.
    pub games: usize,
    /// One line per check, in the order they ran.
    pub checks: Vec<Line>,
    /// Decision times, when the bot plays a game.
    pub latency: Option<Latency>,
}

impl Report {
    /// An empty report (a host adds checks of its own, such as an engine's handshake).
    pub fn new(bot: String, seed: u64, games: usize) -> Report {
        Report { bot, passed: true, seed, games, checks: Vec::new(), latency: None }
    }

    /// Adds a check's line; a failed one fails the report.
    pub fn add(&mut self, line: Line) {
        self.passed &= line.status != Status::Fail;
        self.checks.push(line);
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &Line> {
        self.checks.iter().filter(|l| l.status == Status::Fail)
    }

    /// The line of one check, by name.
    pub fn line(&self, check: &str) -> Option<&Line> {
        self.checks.iter().find(|l| l.check == check)
    }
}

/// `plugin/bot: PASS` and one indented line per check.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let verdict = if self.passed { "PASS" } else { "FAIL" };
        writeln!(
            f,
            "{}: {verdict} (seed {}, {} games a seating)",
            self.bot, self.seed, self.games
        )?;
        for line in &self.checks {
            writeln!(f, "  {}  {:<16} {}", line.status, line.check, line.detail)?;
        }
        Ok(())
    }
}
