//! Sugoroku's payloads, defined once: the referee ([`crate::game`]) writes them and the `walker`
//! bot reads them.
//!
//! A request's observation flows so: the host hands the bot the JSON the referee wrote from
//! [`Observation`]; the kit's typed adapter (`yomi_plugin::typed`) reads it back into
//! [`Observation`] (a destination's field that is not a count or not true/false is refused
//! naming its path, `observation.destinations[0].trap`) and each `legal` entry into a square,
//! checks them against [`Observation::legal`] (the destinations' squares), and writes the bot's
//! square back. The catalog publishes the three types as JSON Schema.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use yomi_plugin::misfit::{boolean, natural};

/// A square of the board, by its index; an action is the square the move ends on.
pub type Square = u64;

/// One square the move may end on, with what a player sees of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Destination {
    #[serde(deserialize_with = "natural")]
    pub square: Square,
    /// Ending here is a hit: the run ends.
    #[serde(deserialize_with = "boolean")]
    pub trap: bool,
    /// Ending here reaches the goal: the run ends as a success.
    #[serde(deserialize_with = "boolean")]
    pub goal: bool,
    /// Squares from here to the goal.
    #[serde(deserialize_with = "natural")]
    pub to_goal: u64,
    /// Traps within a die's reach ahead of it.
    #[serde(deserialize_with = "natural")]
    pub traps_ahead: u64,
}

/// What the seat to move is shown (everything is public). An external client may send only
/// `destinations`, the one field the bot reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    #[serde(default)]
    pub seat: usize,
    /// The square the move starts from.
    #[serde(default)]
    pub position: usize,
    /// The die's face.
    #[serde(default)]
    pub roll: u8,
    /// This run, from 1.
    #[serde(default)]
    pub run: usize,
    /// Runs each seat plays.
    #[serde(default)]
    pub runs: usize,
    /// The seat's traps hit so far.
    #[serde(default)]
    pub hits: usize,
    /// The seat's runs that reached the goal so far.
    #[serde(default)]
    pub goals: usize,
    /// Where the move may end (several only past a fork).
    pub destinations: Vec<Destination>,
}

/// What a resolved move reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    pub seat: usize,
    /// The die's face.
    pub roll: u8,
    /// The square the move started from.
    pub from: usize,
    /// The square it ended on.
    pub to: usize,
    /// It ended on a trap (the run ends, a hit).
    pub trap: bool,
    /// It reached the goal (the run ends).
    pub goal: bool,
    /// The seat's finished runs after it.
    pub runs: usize,
}

impl yomi_plugin::typed::Observation for Observation {
    type Action = Square;
    type Event = Event;

    /// The destinations' squares, in the observation's order.
    fn legal(&self) -> Vec<Square> {
        self.destinations.iter().map(|d| d.square).collect()
    }
}
