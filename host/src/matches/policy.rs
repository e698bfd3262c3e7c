//! The time and failure policy of a match, as the ACPC dealer has one: a per-decision deadline, and
//! for each kind of failure either a forfeit of the game or the game's default action. Every
//! failure is counted per seat and kind, whatever the policy does about it.

use serde::{Deserialize, Serialize};
use yomi_protocol::{ErrorCode, ErrorInfo};

/// What a failure costs the seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// The seat loses the game (score 0; every other seat scores 1).
    Forfeit,
    /// The game's default action is played for the seat (forfeit if the game has none).
    Default,
}

/// The kinds of failure, recorded distinctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No answer within the deadline.
    Timeout,
    /// An answer the game rejected.
    Illegal,
    /// The bot returned an error or panicked.
    Error,
    /// The bot's worker process died.
    Crash,
    /// A client seat's connection went away.
    Disconnect,
}

impl FailureKind {
    pub const ALL: [FailureKind; 5] = [
        FailureKind::Timeout,
        FailureKind::Illegal,
        FailureKind::Error,
        FailureKind::Crash,
        FailureKind::Disconnect,
    ];

    /// Classifies an agent's error.
    pub fn of(error: &ErrorInfo) -> FailureKind {
        match error.code {
            ErrorCode::Timeout => FailureKind::Timeout,
            ErrorCode::Crashed => FailureKind::Crash,
            ErrorCode::Disconnected => FailureKind::Disconnect,
            ErrorCode::IllegalAction => FailureKind::Illegal,
            _ => FailureKind::Error,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Illegal => "illegal",
            FailureKind::Error => "error",
            FailureKind::Crash => "crash",
            FailureKind::Disconnect => "disconnect",
        }
    }
}

/// Failures of one seat, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureCounts {
    pub timeout: u32,
    pub illegal: u32,
    pub error: u32,
    pub crash: u32,
    pub disconnect: u32,
}

impl FailureCounts {
    pub fn add(&mut self, kind: FailureKind) {
        *self.slot(kind) += 1;
    }

    pub fn merge(&mut self, other: &FailureCounts) {
        for kind in FailureKind::ALL {
            *self.slot(kind) += other.get(kind);
        }
    }

    pub fn get(&self, kind: FailureKind) -> u32 {
        match kind {
            FailureKind::Timeout => self.timeout,
            FailureKind::Illegal => self.illegal,
            FailureKind::Error => self.error,
            FailureKind::Crash => self.crash,
            FailureKind::Disconnect => self.disconnect,
        }
    }

    fn slot(&mut self, kind: FailureKind) -> &mut u32 {
        match kind {
            FailureKind::Timeout => &mut self.timeout,
            FailureKind::Illegal => &mut self.illegal,
            FailureKind::Error => &mut self.error,
            FailureKind::Crash => &mut self.crash,
            FailureKind::Disconnect => &mut self.disconnect,
        }
    }
}

/// The policy of a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    /// Per-decision deadline in milliseconds; none means wait forever.
    #[serde(default)]
    pub deadline_ms: Option<u64>,
    #[serde(default = "forfeit")]
    pub on_timeout: OnFailure,
    #[serde(default = "forfeit")]
    pub on_illegal: OnFailure,
    #[serde(default = "forfeit")]
    pub on_error: OnFailure,
}

fn forfeit() -> OnFailure {
    OnFailure::Forfeit
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            deadline_ms: None,
            on_timeout: OnFailure::Forfeit,
            on_illegal: OnFailure::Forfeit,
            on_error: OnFailure::Forfeit,
        }
    }
}

impl Policy {
    /// What to do about a failure of this kind (crashes and disconnects follow `on_error`).
    pub fn response(&self, kind: FailureKind) -> OnFailure {
        match kind {
            FailureKind::Timeout => self.on_timeout,
            FailureKind::Illegal => self.on_illegal,
            FailureKind::Error | FailureKind::Crash | FailureKind::Disconnect => self.on_error,
        }
    }

    pub fn deadline(&self) -> Option<std::time::Duration> {
        self.deadline_ms.map(std::time::Duration::from_millis)
    }
}
