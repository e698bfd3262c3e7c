//! `agent.*`: make an agent, change its personality or its bot, ask it to act, tell it what
//! happened, call its services, drop it, list them.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::de::{self, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::envelope::without_position;
use crate::error::ErrorInfo;
use crate::game::ActReply;
use crate::options::Options;

/// `agent.new`'s parameters.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "AgentNew")]
pub struct New {
    /// `plugin/bot`, or a bare bot name that is unique (among the bots of `game`, if given).
    pub bot: String,
    /// The game the agent will play, to tell apart bots of the same name.
    #[serde(default)]
    pub game: Option<String>,
    /// A named personality of the bot, applied on its defaults before `options`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Option values, checked against the bot's schema; the others keep their defaults.
    #[serde(default)]
    pub options: Options,
    /// Seed of the agent's randomness; the host derives one from its base seed if absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// A plugin generation to pin (see `plugin.list`); the newest by default.
    #[serde(default)]
    pub generation: Option<u32>,
}

/// `agent.configure`'s parameters: the runtime personality swap.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "AgentConfigure")]
pub struct Configure {
    /// The agent's id.
    pub agent: String,
    /// Start again from this preset (on the defaults) before applying `options`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Options to change; the others keep their current values.
    #[serde(default)]
    pub options: Options,
}

/// `agent.swap`'s parameters: another bot, or another build of the same plugin, behind the same id.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "AgentSwap")]
pub struct Swap {
    /// The agent's id.
    pub agent: String,
    /// Another bot; the same bot (at the newest generation of its plugin) when absent.
    #[serde(default)]
    pub bot: Option<String>,
    /// A plugin generation to pin; the newest by default.
    #[serde(default)]
    pub generation: Option<u32>,
    /// A preset of the new bot.
    #[serde(default)]
    pub preset: Option<String>,
    /// Options for the new bot. When neither these nor a preset is given, the current options
    /// that the new bot also has carry over.
    #[serde(default)]
    pub options: Option<Options>,
}

/// `agent.act`'s parameters. The observation and legal actions are kept as the client's JSON
/// text: an agent in the host's process hands them to its plugin as they are, with no `Value`s
/// built only to be written out again.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(rename = "AgentAct")]
pub struct Act<'a> {
    /// The agent's id.
    #[serde(borrow)]
    pub agent: Cow<'a, str>,
    /// What the agent's seat sees now, in the game's own JSON shape.
    #[serde(borrow, default = "json_null")]
    #[schemars(with = "Value")]
    pub observation: &'a RawValue,
    /// The actions the agent may choose from; its answer is one of them.
    #[serde(borrow, default = "empty_json_array", deserialize_with = "json_array")]
    #[schemars(with = "Vec<Value>")]
    pub legal: &'a RawValue,
    /// Ask the bot for an `explain` object with its reasoning.
    #[serde(default)]
    pub explain: bool,
    /// Ask the bot for its `policy`: every action it could play with its probability (for every
    /// position of a batch). A bot that does not say fails with `no_policy`.
    #[serde(default)]
    pub policy: bool,
    /// Many positions at once instead of `observation` and `legal`: one decision each, in order
    /// (each kept as its text and read on its own, so one bad position fails only itself).
    #[serde(borrow, default)]
    #[schemars(with = "Option<Vec<Position<'static>>>")]
    pub positions: Option<Vec<&'a RawValue>>,
}

/// One position of a batched `agent.act`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(rename = "AgentActPosition")]
pub struct Position<'a> {
    /// What the agent's seat sees in this position.
    #[serde(borrow, default = "json_null")]
    #[schemars(with = "Value")]
    pub observation: &'a RawValue,
    /// The actions the agent may choose from in this position.
    #[serde(borrow, default = "empty_json_array", deserialize_with = "json_array")]
    #[schemars(with = "Vec<Value>")]
    pub legal: &'a RawValue,
    /// Answer as a fresh agent of the same bot and options with this seed would: reproducible,
    /// and blind to what the agent has learned.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// `agent.act`'s reply: one decision, or one per position of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Acted {
    /// The decision for the one position asked.
    One(ActReply),
    /// The decisions for a batch's positions, in order.
    Batch {
        /// One per position: its decision, or the error that position alone met.
        decisions: Vec<BatchDecision>,
    },
}

/// One position's outcome in a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BatchDecision {
    /// The bot's decision.
    Decided(ActReply),
    /// What went wrong with this position (unreadable, refused by the bot ...).
    Failed {
        /// The error, as a failed reply would carry it.
        error: ErrorInfo,
    },
}

fn json_null() -> &'static RawValue {
    RawValue::NULL
}

fn empty_json_array() -> &'static RawValue {
    serde_json::from_str("[]").expect("`[]` is JSON")
}

/// A JSON array, kept as its text; anything else is refused with the error reading it into a
/// list would give.
fn json_array<'de, D: Deserializer<'de>>(from: D) -> Result<&'de RawValue, D::Error> {
    let text = <&RawValue>::deserialize(from)?;
    match text.get().starts_with('[') {
        true => Ok(text),
        false => match serde_json::from_str::<Vec<IgnoredAny>>(text.get()) {
            Err(e) => Err(de::Error::custom(without_position(&e))),
            Ok(_) => Ok(text),
        },
    }
}

/// `agent.observe`'s parameters.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "AgentObserve")]
pub struct Observe {
    /// The agent's id.
    pub agent: String,
    /// What happened, in the game's own JSON shape.
    pub event: Value,
}

/// `agent.call`'s parameters: a service request (dice, roles, analysis ...).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "AgentCall")]
pub struct Call {
    /// The agent's id.
    pub agent: String,
    /// One of the bot's `methods` (see `catalog`).
    pub method: String,
    /// The method's parameters; the bounds the bot declares are checked before it is called.
    #[serde(default)]
    pub params: Value,
}

/// `agent.drop`'s parameters.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "AgentDrop")]
pub struct Drop {
    /// The agent's id.
    pub agent: String,
}

/// An agent as `agent.new`, `agent.configure`, `agent.swap` and `agent.list` describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Agent {
    /// The agent's id in this session.
    pub agent: String,
    /// The qualified bot name, `plugin/bot`.
    pub bot: String,
    /// The plugin that serves the bot.
    pub plugin: String,
    /// The plugin's own version.
    pub version: String,
    /// First 12 hex digits of the plugin file's SHA-256: which build serves the agent.
    pub build: String,
    /// The plugin generation serving the agent (see `plugin.list`).
    pub generation: u32,
    /// The agent's complete option set.
    pub options: Options,
    /// The seed of the agent's randomness.
    pub seed: u64,
}

/// `agent.drop`'s reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Dropped {
    /// The id of the agent dropped.
    pub dropped: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::Request;
    use crate::{ErrorCode, ErrorInfo};

    fn act(line: &str) -> Result<Act<'_>, ErrorInfo> {
        Request::parse(line).map_err(|(_, e)| e)?.params()
    }

    #[test]
    fn act_parameters_keep_the_clients_text() {
        let line = r#"{"id":1,"op":"agent.act","agent":"a\u0031","observation":{"x": [1, 2]},"legal":[ "rock" ]}"#;
        let p = act(line).unwrap();
        assert_eq!(p.agent, "a1");
        assert_eq!(p.observation.get(), r#"{"x": [1, 2]}"#);
        assert_eq!(p.legal.get(), r#"[ "rock" ]"#);
        let p = act(r#"{"id":1,"op":"agent.act","agent":"a1"}"#).unwrap();
        assert_eq!((p.observation.get(), p.legal.get()), ("null", "[]"), "the defaults");
    }

    #[test]
    fn legal_actions_that_are_not_a_list_are_refused_as_before() {
        for (legal, got) in [(r#""rock""#, r#"string "rock""#), ("null", "null"), ("{}", "map")] {
            let line = format!(r#"{{"id":1,"op":"agent.act","agent":"a1","legal":{legal}}}"#);
            let error = act(&line).map(|_| ()).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidParams);
            assert_eq!(
                error.message,
                format!("bad parameters for `agent.act`: invalid type: {got}, expected a sequence")
            );
        }
    }
}
