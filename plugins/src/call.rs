//! The calls a host makes on an open agent or game handle, as JSON. The same shape crosses the C
//! ABI and the pipes of a `yomi worker` child process.

use std::path::PathBuf;

use serde::de::value::MapAccessDeserializer;
use serde::de::DeserializeOwned;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use yomi_protocol::envelope::without_position;
use yomi_protocol::{
    ActReply, ActRequest, Clock, Decision, ErrorCode, ErrorInfo, GameOutcome, Options,
};

use crate::cancel::CancelFlag;

/// What an agent is given at birth besides its options.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AgentContext {
    /// Seed for all of the agent's randomness, so a recorded match replays exactly.
    pub seed: u64,
    /// Where a service may keep state that survives restarts (`--data-dir`), if the host has one.
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
    /// Who the agent works for: an opaque key, the same for every agent of one client address
    /// (or of the parent process on stdio), so a plugin can share a costly budget per client
    /// rather than per agent, which a client can open any number of. `None` on the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The most CPU time, in milliseconds as the bot reckons its own costs, that reporting a
    /// policy ([`ActRequest::policy`]) may add to a decision: a bot that
    /// estimates its policy by sampling its own strategy takes fewer samples under a lower
    /// allowance. The server sets it from `--max-policy-ms`; `None` leaves the bot's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_ms: Option<u64>,
}

/// The end of a game as one seat sees it: which seat the agent played and the outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameOver {
    /// The seat the agent played, so it can read its own score.
    pub seat: usize,
    /// How the game ended for every seat.
    pub outcome: GameOutcome,
}

/// What a plugin answers to a request it cannot read.
pub(crate) fn unreadable(e: &serde_json::Error) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, format!("bad request across the plugin ABI: {e}"))
}

/// A request to open a handle.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Open {
    /// An agent of one of the plugin's bots.
    Agent {
        /// The bot's name within the plugin.
        bot: String,
        /// Its options, complete and checked.
        options: Options,
        /// Its seed and data directory.
        context: AgentContext,
        /// The host's flag for cancelling this agent's calls (see [`crate::cancel`]); never
        /// crosses the boundary as JSON, only lent by address with each call.
        #[serde(skip)]
        cancel: CancelFlag,
    },
    /// A game of one of the plugin's rule sets.
    Game {
        /// The game's name.
        game: String,
        /// Its options, complete and checked.
        options: Options,
        /// Seed of the deal and of every chance event, so a game replays exactly.
        seed: u64,
    },
}

/// A call on an open handle. On the wire one object, its `call` tag first and the variant's
/// fields beside it: `{"call": "act", "observation": .., "legal": [..]}`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    /// Choose an action (an agent).
    Act(ActRequest),
    /// Take in an event of the game (an agent).
    Observe(Observe),
    /// Learn how a game ended (an agent).
    GameOver(GameOver),
    /// Replace the options (an agent).
    Configure(Configure),
    /// Answer a service method (an agent).
    Service(Service),
    /// The pending decisions; none when the game is over (a game).
    Decisions,
    /// Apply the seats' actions (a game).
    Apply(Apply),
    /// The outcome, once the game is over (a game).
    Outcome,
    /// The action played for a seat that failed to answer (a game).
    DefaultAction(DefaultAction),
}

/// An `act` call whose observation and legal actions are still JSON text, as a client sent them:
/// written as [`Call::Act`] with the same values would be (the text as it came, spacing and all),
/// without reading the text into `Value`s only to write them out again.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "call", rename = "act")]
pub struct ActText<'a> {
    /// The observation's JSON text.
    #[serde(borrow)]
    pub observation: &'a RawValue,
    /// A JSON array.
    #[serde(borrow)]
    pub legal: &'a RawValue,
    /// Whether the caller asks for the bot's reasoning.
    #[serde(default)]
    pub explain: bool,
    /// Whether the caller asks for the bot's policy.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub policy: bool,
    /// The deciding seat's game clock, when the match has a time control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
}

/// A call as a plugin reads it: an `act` call whose tag comes first (as every host writes it)
/// keeps its observation and legal actions as text borrowed from the call, for bots that read
/// them straight into their own types ([`Agent::act_text`](crate::Agent::act_text)); any other call is read whole.
pub enum Incoming<'a> {
    /// An `act` call, its values still text.
    Act(ActText<'a>),
    /// Any other call, read whole.
    Other(Call),
}

impl<'de> Deserialize<'de> for Incoming<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Incoming<'de>, D::Error> {
        deserializer.deserialize_map(IncomingVisitor)
    }
}

struct IncomingVisitor;

impl<'de> Visitor<'de> for IncomingVisitor {
    type Value = Incoming<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a call object with a `call` tag")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Incoming<'de>, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Err(de::Error::missing_field("call"));
        };
        if first != "call" {
            return read_with_tag_later(first, map).map(Incoming::Other);
        }
        Ok(match map.next_value::<Tag>()? {
            Tag::Act => Incoming::Act(ActText::deserialize(MapAccessDeserializer::new(map))?),
            tag => Incoming::Other(tag.call(MapAccessDeserializer::new(map))?),
        })
    }
}

impl ActText<'_> {
    /// The same request with its values read.
    pub fn read(&self) -> Result<ActRequest, serde_json::Error> {
        Ok(ActRequest::new(
            serde_json::from_str(self.observation.get())?,
            serde_json::from_str(self.legal.get())?,
        )
        .with_explain(self.explain)
        .with_policy(self.policy)
        .with_clock(self.clock))
    }

    /// [`read`](ActText::read), refused as `agent.act`'s parameters are: text a client sent that
    /// holds a number too large for a float is a bad parameter, whoever reads it first.
    pub fn read_params(&self) -> Result<ActRequest, ErrorInfo> {
        self.read().map_err(|e| {
            let e = without_position(&e);
            ErrorInfo::new(ErrorCode::InvalidParams, format!("bad parameters for `agent.act`: {e}"))
        })
    }

    /// What a bot's `invalid_params` refusal of this request becomes: the parameters' own error
    /// when the text cannot be read at all (a bot's own reader says it does not fit), the bot's
    /// otherwise. So the host passes on what a plugin answers as it is.
    pub fn refusal(&self, error: ErrorInfo) -> ErrorInfo {
        match error.code {
            ErrorCode::InvalidParams => self.read_params().err().unwrap_or(error),
            _ => error,
        }
    }
}

/// An event of the game the agent plays in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Observe {
    /// The event, in the game's own JSON shape.
    pub event: Value,
}

/// A new complete option set for an agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Configure {
    /// Every option of the bot, already checked against its schema.
    pub options: Options,
}

/// A service request (`agent.call`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Service {
    /// The method's name, one of the bot's declared methods.
    pub method: String,
    /// The method's parameters (`null` when none were given).
    #[serde(default)]
    pub params: Value,
}

/// The seats' actions for a game to apply.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Apply {
    /// Each deciding seat with its action.
    pub actions: Vec<(usize, Value)>,
}

/// Asks a game for the action a seat that cannot answer plays.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DefaultAction {
    /// The seat that failed.
    pub seat: usize,
}

/// A call's `call` tag.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Tag {
    Act,
    Observe,
    GameOver,
    Configure,
    Service,
    Decisions,
    Apply,
    Outcome,
    DefaultAction,
}

impl Tag {
    /// The call the fields in `fields` (the object without its tag) make.
    fn call<'de, D: Deserializer<'de>>(self, fields: D) -> Result<Call, D::Error> {
        let unit = |fields: D| IgnoredAny::deserialize(fields).map(|_| ());
        Ok(match self {
            Tag::Act => Call::Act(ActRequest::deserialize(fields)?),
            Tag::Observe => Call::Observe(Observe::deserialize(fields)?),
            Tag::GameOver => Call::GameOver(GameOver::deserialize(fields)?),
            Tag::Configure => Call::Configure(Configure::deserialize(fields)?),
            Tag::Service => Call::Service(Service::deserialize(fields)?),
            Tag::Decisions => unit(fields).map(|()| Call::Decisions)?,
            Tag::Apply => Call::Apply(Apply::deserialize(fields)?),
            Tag::Outcome => unit(fields).map(|()| Call::Outcome)?,
            Tag::DefaultAction => Call::DefaultAction(DefaultAction::deserialize(fields)?),
        })
    }
}

/// Reads a call without buffering it when its tag comes first, as every host writes it: the
/// derived reader of an internally tagged enum copies the whole object into an intermediate tree
/// first, which cost a small bot's call more than everything else the plugin did. An object
/// whose tag comes later is still read, through a `Value`.
impl<'de> Deserialize<'de> for Call {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Call, D::Error> {
        deserializer.deserialize_map(CallVisitor)
    }
}

struct CallVisitor;

impl<'de> Visitor<'de> for CallVisitor {
    type Value = Call;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a call object with a `call` tag")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Call, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Err(de::Error::missing_field("call"));
        };
        if first == "call" {
            let tag: Tag = map.next_value()?;
            return tag.call(MapAccessDeserializer::new(map));
        }
        read_with_tag_later(first, map)
    }
}

/// Reads a call whose first field, `first`, is not its tag: the rest of it into a `Value`, then
/// the call out of that.
fn read_with_tag_later<'de, A: MapAccess<'de>>(
    first: String,
    mut map: A,
) -> Result<Call, A::Error> {
    let mut fields = Map::new();
    fields.insert(first, map.next_value()?);
    while let Some((key, value)) = map.next_entry::<String, Value>()? {
        fields.insert(key, value);
    }
    let tag = fields.remove("call").ok_or_else(|| de::Error::missing_field("call"))?;
    let tag = Tag::deserialize(tag).map_err(de::Error::custom)?;
    tag.call(Value::Object(fields)).map_err(de::Error::custom)
}

/// The reply to any call: the JSON result or an error. The host reads `result` straight into the
/// type it expects (`CallReply<ActReply>` for a decision), without a `Value` in between.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallReply<T = Value> {
    /// True when the call succeeded: then `result` holds its value, else `error` says why.
    pub ok: bool,
    // A missing `Option` field reads as `None` (no `default`, which would ask `T: Default`).
    /// The call's value on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<T>,
    /// Why the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

impl<T> From<Result<T, ErrorInfo>> for CallReply<T> {
    fn from(r: Result<T, ErrorInfo>) -> CallReply<T> {
        match r {
            Ok(v) => CallReply { ok: true, result: Some(v), error: None },
            Err(e) => CallReply { ok: false, result: None, error: Some(e) },
        }
    }
}

impl<T: DeserializeOwned> From<CallReply<T>> for Result<T, ErrorInfo> {
    fn from(r: CallReply<T>) -> Result<T, ErrorInfo> {
        match (r.ok, r.result, r.error) {
            (true, Some(result), _) => Ok(result),
            // A call answered with nothing (or `null`): whatever `T` makes of `null`.
            (true, None, _) => T::deserialize(Value::Null).map_err(|e| {
                ErrorInfo::new(ErrorCode::Internal, format!("plugin replied without a result: {e}"))
            }),
            (false, _, Some(e)) => Err(e),
            (false, _, None) => {
                Err(ErrorInfo::new(ErrorCode::Internal, "plugin replied not-ok without an error"))
            }
        }
    }
}

/// What a call answers on the plugin side. The typed answers stay typed until they are written
/// into the reply: turning them into a `Value` first cost more than the write itself.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// An agent's decision.
    Decision(ActReply),
    /// A game's pending decisions.
    Decisions(Vec<Decision>),
    /// A game's outcome, None while it goes on.
    Outcome(Option<GameOutcome>),
    /// A game's default action for a seat, None when it has none (the seat forfeits).
    DefaultAction(Option<Value>),
    /// Anything else (a service's result, `null` for calls that answer nothing).
    Json(Value),
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use yomi_protocol::GameOutcome;

    use super::*;

    /// Every call, as the host writes it.
    fn every_call() -> Vec<Call> {
        let options: Options = serde_json::from_value(json!({"bias": 0.5})).unwrap();
        vec![
            Call::Act(
                ActRequest::new(json!({"a": [1]}), vec![json!("x")])
                    .with_explain(true)
                    .with_policy(true)
                    .with_clock(Some(Clock {
                        remaining_ms: 1,
                        increment_ms: 0,
                        moves_to_go: None,
                    })),
            ),
            Call::Observe(Observe { event: json!({"kind": "played"}) }),
            Call::GameOver(GameOver {
                seat: 1,
                outcome: GameOutcome { scores: vec![0.0, 1.0], summary: json!({}) },
            }),
            Call::Configure(Configure { options }),
            Call::Service(Service { method: "roll".into(), params: json!({"n": 2}) }),
            Call::Decisions,
            Call::Apply(Apply { actions: vec![(0, json!("rock"))] }),
            Call::Outcome,
            Call::DefaultAction(DefaultAction { seat: 2 }),
        ]
    }

    fn read(json: &str) -> Result<Call, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// A plugin keeps an `act` call's observation and legal actions as text when the tag comes
    /// first, and reads every other call (and an `act` with its tag later) whole.
    #[test]
    fn a_plugin_reads_act_calls_as_text_and_others_whole() {
        let act = r#"{"call":"act","observation":{"a": [1]},"legal":["x", 2],"explain":true}"#;
        match serde_json::from_str::<Incoming>(act).unwrap() {
            Incoming::Act(text) => {
                assert_eq!(
                    (text.observation.get(), text.legal.get(), text.explain),
                    (r#"{"a": [1]}"#, r#"["x", 2]"#, true)
                );
            }
            Incoming::Other(call) => panic!("read whole: {call:?}"),
        }
        let tag_last = r#"{"observation":{"a":[1]},"legal":["x"],"call":"act"}"#;
        assert!(matches!(
            serde_json::from_str::<Incoming>(tag_last).unwrap(),
            Incoming::Other(Call::Act(_))
        ));
        for call in every_call().into_iter().filter(|c| !matches!(c, Call::Act(_))) {
            let text = serde_json::to_string(&call).unwrap();
            match serde_json::from_str::<Incoming>(&text).unwrap() {
                Incoming::Other(read) => assert_eq!(
                    serde_json::to_value(read).unwrap(),
                    serde_json::to_value(&call).unwrap()
                ),
                Incoming::Act(_) => panic!("{text} read as an act"),
            }
        }
        assert!(serde_json::from_str::<Incoming>(r#"{"call":"act","legal":[]}"#).is_err());
    }

    #[test]
    fn an_act_call_from_text_reads_as_the_act_call_of_its_values() {
        for (observation, legal) in [
            (r#"{"opponent_last":"rock"}"#, r#"["rock","paper","scissors"]"#),
            (r#" { "b" : [1, 2.5e3, null], "a": {"\u00e9": "\"q\""} } "#, r#"[ {"x": 1}, [] ]"#),
            ("null", "[]"),
        ] {
            let raw = |text: &'static str| serde_json::from_str::<&RawValue>(text).unwrap();
            let text = ActText {
                observation: raw(observation),
                legal: raw(legal),
                explain: true,
                policy: false,
                clock: Some(Clock { remaining_ms: 700, increment_ms: 50, moves_to_go: Some(4) }),
            };
            let written = serde_json::to_string(&text).unwrap();
            assert!(
                written.starts_with("{\"call\":\"act\","),
                "the tag is written first: {written}"
            );
            let expected = Call::Act(text.read().unwrap());
            let back = read(&written).unwrap();
            assert_eq!(
                serde_json::to_value(back).unwrap(),
                serde_json::to_value(&expected).unwrap()
            );
            if !observation.contains(' ') {
                assert_eq!(
                    written,
                    serde_json::to_string(&expected).unwrap(),
                    "compact text: same bytes"
                );
            }
        }
    }

    #[test]
    fn a_bots_refusal_stands_unless_the_text_cannot_be_read_at_all() {
        let raw = |text: &'static str| serde_json::from_str::<&RawValue>(text).unwrap();
        let misfit = ErrorInfo::new(ErrorCode::InvalidParams, "`observation`: does not fit");
        let readable = ActText {
            observation: raw(r#"{"x": 1}"#),
            legal: raw("[]"),
            explain: false,
            policy: false,
            clock: None,
        };
        assert_eq!(readable.refusal(misfit.clone()), misfit);
        let huge = ActText {
            observation: raw(r#"{"x": 1e400}"#),
            legal: raw("[]"),
            explain: false,
            policy: false,
            clock: None,
        };
        let refused = huge.refusal(misfit);
        assert_eq!(refused.message, "bad parameters for `agent.act`: number out of range");
        let internal = ErrorInfo::new(ErrorCode::Internal, "the bot broke");
        assert_eq!(huge.refusal(internal.clone()), internal, "only a refusal of the text");
    }

    #[test]
    fn every_call_reads_back_as_written_with_its_tag_first_or_last() {
        for call in every_call() {
            let written = serde_json::to_value(&call).unwrap();
            let text = serde_json::to_string(&call).unwrap();
            assert!(text.starts_with("{\"call\":"), "the tag is written first: {text}");
            let back = serde_json::to_value(read(&text).unwrap()).unwrap();
            assert_eq!(back, written, "tag first");
            // The same object with its tag last (a hand-written or foreign caller).
            let mut fields = written.as_object().unwrap().clone();
            let tag = fields.remove("call").unwrap();
            let mut text = Value::Object(fields).to_string();
            text.truncate(text.len() - 1);
            let sep = if text.len() > 1 { "," } else { "" };
            let text = format!("{text}{sep}\"call\":{tag}}}");
            let back = serde_json::to_value(read(&text).unwrap()).unwrap();
            assert_eq!(back, written, "tag last: {text}");
        }
    }

    #[test]
    fn replies_without_a_result_read_as_their_type_makes_null() {
        let read = |json: &str| serde_json::from_str::<CallReply<Value>>(json).unwrap();
        assert_eq!(Result::from(read(r#"{"ok":true}"#)), Ok(Value::Null));
        let error = r#"{"ok":false,"error":{"code":"bot_error","message":"no"}}"#;
        let decision = serde_json::from_str::<CallReply<ActReply>>(error).unwrap();
        assert_eq!(Result::from(decision).unwrap_err().code, ErrorCode::BotError);
        let empty = serde_json::from_str::<CallReply<ActReply>>(r#"{"ok":true}"#).unwrap();
        assert_eq!(Result::from(empty).unwrap_err().code, ErrorCode::Internal);
    }

    #[test]
    fn bad_calls_say_what_is_wrong() {
        let message = |json: &str| read(json).unwrap_err().to_string();
        assert!(message("{}").contains("missing field `call`"));
        assert!(message("{\"legal\": []}").contains("missing field `call`"));
        assert!(message("{\"call\": \"dance\"}").contains("unknown variant `dance`"));
        assert!(message("{\"call\": \"act\", \"legal\": 3}").contains("invalid type"));
        assert!(message("{\"call\": \"default_action\"}").contains("missing field `seat`"));
        assert!(message("[\"act\"]").contains("call object"));
        // Fields a call does not use are ignored, as before.
        assert!(matches!(read("{\"call\": \"outcome\", \"extra\": 1}"), Ok(Call::Outcome)));
    }
}
