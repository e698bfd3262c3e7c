//! The kinds of failure a seat can have in a match, and their counts: what match replies,
//! progress events and standings report per seat.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, ErrorInfo};

/// The kinds of failure, recorded distinctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
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
    /// The seat ran out of its game clock (always a loss on time).
    Time,
}

impl FailureKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [FailureKind; 6] = [
        FailureKind::Timeout,
        FailureKind::Illegal,
        FailureKind::Error,
        FailureKind::Crash,
        FailureKind::Disconnect,
        FailureKind::Time,
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

    /// The kind's wire name.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Illegal => "illegal",
            FailureKind::Error => "error",
            FailureKind::Crash => "crash",
            FailureKind::Disconnect => "disconnect",
            FailureKind::Time => "time",
        }
    }
}

/// Failures of one seat, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FailureCounts {
    /// Decisions not made within the deadline.
    pub timeout: u32,
    /// Actions the game rejected.
    pub illegal: u32,
    /// Errors and panics of the bot.
    pub error: u32,
    /// Deaths of the bot's worker process.
    pub crash: u32,
    /// Departures of a client seat.
    pub disconnect: u32,
    /// Losses on time (the game clock ran out); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time: u32,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

impl FailureCounts {
    /// Counts one failure of `kind`.
    pub fn add(&mut self, kind: FailureKind) {
        *self.slot(kind) += 1;
    }

    /// Adds another seat's (or game's) counts to these.
    pub fn merge(&mut self, other: &FailureCounts) {
        for kind in FailureKind::ALL {
            *self.slot(kind) += other.get(kind);
        }
    }

    /// The count of `kind`.
    pub fn get(&self, kind: FailureKind) -> u32 {
        match kind {
            FailureKind::Timeout => self.timeout,
            FailureKind::Illegal => self.illegal,
            FailureKind::Error => self.error,
            FailureKind::Crash => self.crash,
            FailureKind::Disconnect => self.disconnect,
            FailureKind::Time => self.time,
        }
    }

    fn slot(&mut self, kind: FailureKind) -> &mut u32 {
        match kind {
            FailureKind::Timeout => &mut self.timeout,
            FailureKind::Illegal => &mut self.illegal,
            FailureKind::Error => &mut self.error,
            FailureKind::Crash => &mut self.crash,
            FailureKind::Disconnect => &mut self.disconnect,
            FailureKind::Time => &mut self.time,
        }
    }
}
