//! What crosses between a referee, the host and a playing agent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One seat's pending decision: what it sees and what it may do. The observation holds only what
/// that seat is allowed to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub seat: usize,
    pub observation: Value,
    /// The legal actions. For actions with a free parameter (a bet amount) an entry may describe a
    /// range; the game's README says how.
    pub legal: Vec<Value>,
}

/// An agent's decision request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActRequest {
    pub observation: Value,
    pub legal: Vec<Value>,
    /// Ask the bot to return an `explain` object with its reasoning.
    #[serde(default)]
    pub explain: bool,
}

/// An agent's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActReply {
    pub action: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Value>,
}

impl ActReply {
    pub fn new(action: Value) -> ActReply {
        ActReply { action, explain: None }
    }

    pub fn explained(action: Value, explain: Value) -> ActReply {
        ActReply { action, explain: Some(explain) }
    }
}

/// The end of a game: a score per seat (higher is better; a win/loss game uses 1, 0.5, 0) and a
/// game-specific summary (chips won, finishing order ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameOutcome {
    pub scores: Vec<f64>,
    #[serde(default)]
    pub summary: Value,
}
