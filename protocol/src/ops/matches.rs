//! `match.run`, `match.move` and `match.replay`: matches the host plays over the protocol.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::failures::FailureCounts;

/// `match.run`'s parameters. `Spec` is the match itself (game, seats, games, policy), which the
/// host's match runner defines; it sits beside these fields on the wire.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "MatchRun")]
pub struct Run<Spec> {
    /// The match: game, seats, number of games, time and failure policy.
    #[serde(flatten)]
    pub spec: Spec,
    /// The match's seed; drawn from the OS when the client names none (the reply says which).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Include the whole transcript (JSON lines as an array) in the reply.
    #[serde(default)]
    pub transcript: bool,
    /// In a match with a client seat, the server waits each bot's suggested think time
    /// (`think_ms`) before the bot's step resolves, on a timer, within the match's deadline: the
    /// bot plays at a person's pace without the client holding its move back.
    #[serde(default)]
    pub human_pace: bool,
}

/// `match.move`'s parameters: a connected client's move for a seat it plays.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "MatchMove")]
pub struct Move {
    /// The match's id, from `match.started` or `your_turn`.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The seat the move is for.
    pub seat: usize,
    /// The action: one of the `your_turn` event's legal actions.
    pub action: Value,
}

/// `match.replay`'s parameters.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "MatchReplay")]
pub struct Replay {
    /// The transcript as JSON-lines text.
    pub transcript: String,
}

/// `match.run`'s reply: how the match ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "MatchSummary")]
pub struct Summary {
    /// The match's id, as its events named it.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The game played.
    pub game: String,
    /// The match's seed: playing the same spec with it plays the same games.
    pub seed: u64,
    /// Who sat in each seat (`plugin/bot` or `client:NAME`).
    pub seats: Vec<String>,
    /// The number of games played.
    pub games: u32,
    /// Each seat's scores summed over the games.
    pub scores: Vec<f64>,
    /// Each seat's failures, by kind.
    pub failures: Vec<FailureCounts>,
    /// Each seat's forfeited games.
    pub forfeits: Vec<u32>,
    /// The transcript's JSON lines, when the request asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Vec<Value>>,
}

/// `match.replay`'s reply: whether the transcript played out identically.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "MatchReplayed")]
pub struct Replayed {
    /// True when every line (timings aside) came out as recorded.
    pub identical: bool,
    /// The number of lines the replay wrote.
    pub lines: usize,
    /// Each seat's summed scores in the replay.
    pub scores: Vec<f64>,
    /// The first line that differs (1-based `line`), with what the file says (`recorded`) and
    /// what the replay did (`replayed`), or the two line counts when one transcript is longer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Value>,
    /// Plugins whose build differs from the one recorded.
    pub build_changes: Vec<String>,
}
