//! The battle's payloads, defined once: the referee ([`crate::game`]) writes them and every bot
//! reads them.
//!
//! A request flows so: the host hands the bot the JSON the referee wrote from [`Observation`];
//! the kit's typed adapter (`yomi_plugin::typed`) reads it back (a phase that is not a word of
//! the game, or a party set it does not know, is refused naming its path,
//! `observation.rules.parties`), [`Observation::check`] holds it to the rules it carries (every
//! HP within its Pokémon's maximum, the turn in range, the actives in their parties), each
//! `legal` entry is read as an [`Action`] and checked against [`Observation::legal`], and the
//! bot's action is written back. The codec turns these into the engine's compact state and
//! actions, and gives [`Observation`] the kit's `typed::Observation` (its legal actions and check). The catalog publishes the three types as JSON Schema.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use yomi_plugin::misfit;

use crate::rules::{Rules, Type};

/// A position: `{"turn": 3, "hp": [[5,5,5],[5,4,4]], "active": ["A", "D"]}`, party 1 first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Position {
    pub turn: u64,
    /// Each party's current HP, in party order.
    pub hp: [[u64; 3]; 2],
    /// The active Pokémon of party 1 and of party 2, by name.
    pub active: [String; 2],
}

/// Whether the seat chooses a turn's action or replaces a fainted Pokémon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Choose,
    Replace,
}

impl<'de> Deserialize<'de> for Phase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Phase, D::Error> {
        misfit::word(d, &[("choose", Phase::Choose), ("replace", Phase::Replace)])
    }
}

/// What one seat sees: everything (the game has no hidden information), its own side (0: party
/// 1), the rules and the phase. A client's `rules.parties` may name a party set as the game
/// option does (`"parties": "thesis"`) instead of listing six Pokémon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    pub you: usize,
    pub phase: Phase,
    pub state: Position,
    pub rules: Rules,
}

/// One action: `{"move": "water"}` (a move of the active Pokémon, named by its type) or
/// `{"switch": "B"}` (a Pokémon of the seat's party, by name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Move(Type),
    Switch(String),
}

/// Which kind of step resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Both seats chose and the turn resolved.
    Turn,
    /// One seat replaced a fainted Pokémon.
    Replace,
}

/// What the referee reports when a step resolves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    pub kind: Step,
    /// Each seat's action (null for a seat that did not act).
    pub actions: [Option<Action>; 2],
    /// `sides[seat]`: 0 if the seat holds party 1.
    pub sides: [usize; 2],
    pub before: Position,
    pub after: Position,
}

/// How a game ended, in its result: party 1's score, which side each seat held, the last
/// position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub party1_score: f64,
    /// `sides[seat]`: 0 if the seat holds party 1.
    pub sides: [usize; 2],
    #[serde(rename = "final")]
    pub last: Position,
}
