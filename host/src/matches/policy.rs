//! The time and failure policy of a match, as the ACPC dealer has one: a per-decision deadline, and
//! for each kind of failure either a forfeit of the game or the game's default action. Every
//! failure is counted per seat and kind, whatever the policy does about it.

use serde::{Deserialize, Serialize};

use super::clock::TimeControl;
pub use yomi_protocol::failures::{FailureCounts, FailureKind};

/// What a failure costs the seat.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// The seat loses the game (score 0; every other seat scores 1).
    Forfeit,
    /// The game's default action is played for the seat (forfeit if the game has none).
    Default,
}

/// The policy of a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// A game clock per seat, `[moves/]base[+inc]` in seconds (`40/60+0.6`); none means no clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub tc: Option<TimeControl>,
    /// Charge a human-paced bot's `think_ms` to its clock when longer than its measured time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tc_counts_think: bool,
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
            tc: None,
            tc_counts_think: false,
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
            FailureKind::Time => OnFailure::Forfeit,
        }
    }

    pub fn deadline(&self) -> Option<std::time::Duration> {
        self.deadline_ms.map(std::time::Duration::from_millis)
    }
}
