//! Sevens' payloads, defined once: the referee ([`crate::game`]) writes them and every bot of the
//! game reads them.
//!
//! A request's observation flows so: the host hands a bot the JSON the referee wrote from
//! [`Observation`]; the kit's typed adapter (`yomi_plugin::typed`) reads it back into
//! [`Observation`] and each `legal` entry into an [`Action`] (a card's own words, "`7X` is not a
//! card", after the field's path), checks the seat lists ([`Observation::check`]) and the legal
//! list against [`Observation::legal`], and hands both to the bot (every bot of the game is a
//! `TypedAgent`, [`crate::bots`]); the bot sees them as a [`View`](crate::view::View) and
//! answers an [`Action`] (its policy, actions with weights), written back as `"7S"` or `"pass"`.
//! The catalog publishes the three types as JSON Schema.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use yomi_plugin::misfit::{self, rule};
use yomi_plugin::ErrorInfo;

use crate::card::{Card, CardSet};
use crate::rules::OutOfPasses;
use crate::table::Table;

/// The action string for a pass.
pub const PASS: &str = "pass";

/// One action: a card to play, or a pass. In JSON, `"7S"` or `"pass"`; `"7s"` reads as `"7S"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Play(Card),
    Pass,
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Action::Play(c) => c.serialize(s),
            Action::Pass => s.serialize_str(PASS),
        }
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        match Value::deserialize(d)? {
            Value::String(text) if text == PASS => Ok(Action::Pass),
            Value::String(text) => {
                Card::parse(&text).map(Action::Play).map_err(|e| rule(e.message))
            }
            _ => Err(rule("not a string")),
        }
    }
}

impl JsonSchema for Action {
    fn schema_name() -> Cow<'static, str> {
        "Action".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"anyOf": [generator.subschema_for::<Card>(), {"const": PASS}]})
    }
}

/// What the seat to move is shown: its own hand, and the public facts of everyone. An external
/// client may leave out the fields the bots do not read (`players`, `move`, `ends`,
/// `passes_used`, `pass_limit`, `went_out`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    /// The seat to move.
    pub seat: usize,
    /// Seats in the game.
    #[serde(default)]
    pub players: usize,
    /// Moves made so far.
    #[serde(default, rename = "move")]
    pub moves: u32,
    /// The seat's own cards.
    pub hand: CardSet,
    /// The cards on the table (the four 7s from the start).
    pub table: Table,
    /// Each suit's unbroken row through its 7, lowest and highest rank, by suit letter.
    #[serde(default)]
    pub ends: BTreeMap<char, [u8; 2]>,
    /// Cards in each seat's hand.
    pub hand_sizes: Vec<usize>,
    /// Passes each seat has made.
    #[serde(default)]
    pub passes_used: Vec<u32>,
    /// Passes each seat may still make without going out.
    pub passes_left: Vec<u32>,
    /// Passes allowed in a game.
    #[serde(default)]
    pub pass_limit: u32,
    /// What a pass with none left does (the game option of that name).
    pub out_of_passes: OutOfPasses,
    /// Each seat's finishing place, or null while it still holds cards.
    pub ranks: Vec<Option<usize>>,
    /// Which seats went out on passes.
    #[serde(default)]
    pub went_out: Vec<bool>,
}

/// What a resolved move reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// The seat that moved.
    pub seat: usize,
    /// Its move.
    pub action: Action,
    /// Its passes so far.
    pub passes_used: u32,
    /// Whether this pass put it out.
    pub went_out: bool,
    /// The hand it laid on the table on going out (otherwise empty).
    pub placed: CardSet,
    /// Its finishing place, when the move finished it.
    pub finished: Option<usize>,
    /// Cards in each seat's hand after the move.
    pub hand_sizes: Vec<usize>,
    /// The seat to move next; none when the game is over.
    pub next: Option<usize>,
}

impl Observation {
    /// Passes the seat to move may still make.
    pub fn my_passes(&self) -> u32 {
        self.passes_left[self.seat]
    }
}

impl yomi_plugin::typed::Observation for Observation {
    type Action = Action;
    type Event = Event;

    /// The hand's cards playable on the table, then a pass when the rules
    /// (`out_of_passes`), the passes left or an unplayable hand allow one.
    fn legal(&self) -> Vec<Action> {
        let playable = CardSet(self.table.playable().0 & self.hand.0);
        let mut legal: Vec<Action> = playable.iter().map(Action::Play).collect();
        if self.out_of_passes == OutOfPasses::Out || self.my_passes() > 0 || playable.is_empty() {
            legal.push(Action::Pass);
        }
        legal
    }

    /// The per-seat lists are one entry a seat, and the seat is one of them.
    fn check(&self) -> Result<(), ErrorInfo> {
        let players = self.hand_sizes.len();
        let (passes, ranks) = (self.passes_left.len(), self.ranks.len());
        if self.seat >= players || passes != players || ranks != players {
            return Err(misfit::error(
                "observation",
                format_args!(
                    "seat {} and per-seat lists of {players}, {passes}, {ranks} entries disagree",
                    self.seat
                ),
            ));
        }
        Ok(())
    }
}

/// How a game ended, in its result: the seats in finishing order, each seat's rank, who went out
/// on passes, the passes each used, each starting hand's D total, the dealer, the first to move
/// and the moves played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub order: Vec<usize>,
    pub ranks: Vec<usize>,
    pub went_out: Vec<bool>,
    pub passes_used: Vec<u32>,
    pub start_hand_d: Vec<u32>,
    pub dealer: usize,
    pub first: usize,
    pub moves: u32,
}
