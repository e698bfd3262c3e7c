//! An optional typed layer over [`Agent`]: a game's crate defines its payloads once — the
//! [`Observation`] a seat is shown, its `Action` and its `Event` — and every bot of the game reads
//! them as those types instead of picking fields out of JSON, and answers with a typed action.
//!
//! A request flows so: the observation's JSON (or, on the plugin's fast path, its text) is read
//! into the game's `Observation`, each entry of `legal` into its `Action`; the observation's own
//! [`legal`](Observation::legal) list checks the request's, and the bot chooses among them; its
//! action is written back as JSON. A request that does not fit the types, or whose `legal` does
//! not fit the observation, is refused by the one rule of [`misfit`](crate::misfit):
//! `invalid_params` naming the field (a payload type's own words, through
//! [`misfit::rule`](crate::misfit::rule), come after the field's full path). [`schema`] is the
//! same types as JSON Schema, for the catalog.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use yomi_protocol::envelope::without_position;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options, PolicyEntry, Think};

use crate::api::Agent;
use crate::call::{unreadable, ActText, GameOver};
use crate::declare::GameEntry;
use crate::misfit;

/// A game's observation, with the game's other payloads: the one definition its referee writes
/// and its bots read.
pub trait Observation: Serialize + DeserializeOwned + JsonSchema {
    /// One of the game's actions, as a legal list holds it and a bot answers it.
    type Action: Serialize + DeserializeOwned + PartialEq + JsonSchema;
    /// What the referee reports when a turn resolves (`Game::apply`), as bots observe it.
    type Event: Serialize + DeserializeOwned + JsonSchema;

    /// Every action this observation allows, in the game's order: what the adapter checks a
    /// request's `legal` against, and hands the bot when the caller listed none.
    fn legal(&self) -> Vec<Self::Action>;

    /// Checks what the fields' types cannot say (lists as long as the seats, a seat that exists),
    /// refusing by the kit's rule (`misfit::error`); by default, nothing more to check.
    fn check(&self) -> Result<(), ErrorInfo> {
        Ok(())
    }
}

/// The action type of a typed bot's game.
pub type ActionOf<T> = <<T as TypedAgent>::Observation as Observation>::Action;

/// The JSON Schemas of a game's payloads, as the catalog publishes them (`GameInfo::payload`):
/// `observation`, `action` and `event`, each a draft 2020-12 document read as the bots read it.
pub fn schema<O: Observation>() -> Value {
    let generator = || schemars::generate::SchemaSettings::draft2020_12().into_generator();
    serde_json::json!({
        "observation": generator().into_root_schema_for::<O>(),
        "action": generator().into_root_schema_for::<O::Action>(),
        "event": generator().into_root_schema_for::<O::Event>(),
    })
}

/// A declared game with its payload schemas (see [`schema`]).
pub fn declared<O: Observation>(mut entry: GameEntry) -> GameEntry {
    entry.info.payload = Some(schema::<O>());
    entry
}

/// A payload as the JSON a referee hands out (a `Decision`'s observation and legal actions, an
/// event). Field order does not matter: an object's keys come out sorted, as `json!` writes them.
pub fn to_json<T: Serialize>(payload: &T) -> Value {
    serde_json::to_value(payload).expect("a payload type serializes to JSON")
}

/// Reads a decision request as its game's types: the observation, and the actions to choose among
/// (the request's `legal`, checked against the observation's, or the observation's when the
/// caller listed none).
pub fn decision<O: Observation>(request: &ActRequest) -> Result<(O, Vec<O::Action>), ErrorInfo> {
    let observation = decode(&request.observation, || "observation".into())?;
    let legal = request
        .legal
        .iter()
        .enumerate()
        .map(|(i, a)| decode(a, || format!("legal[{i}]")))
        .collect::<Result<Vec<O::Action>, _>>()?;
    checked(observation, legal)
}

/// [`decision`] read straight from the call's text.
fn decision_text<O: Observation>(request: &ActText) -> Result<(O, Vec<O::Action>), ErrorInfo> {
    let observation = decode_text(request.observation, || "observation".into())?;
    // All at once; only when that fails, one by one, to name the action that does not fit.
    let legal = match serde_json::from_str(request.legal.get()) {
        Ok(legal) => legal,
        Err(_) => {
            let each: Vec<&RawValue> =
                serde_json::from_str(request.legal.get()).map_err(|e| unreadable(&e))?;
            each.iter()
                .enumerate()
                .map(|(i, a)| decode_text(a, || format!("legal[{i}]")))
                .collect::<Result<Vec<O::Action>, _>>()?
        }
    };
    checked(observation, legal)
}

/// The decision of `observation` among `legal`, once both fit the game's types.
fn checked<O: Observation>(
    observation: O,
    legal: Vec<O::Action>,
) -> Result<(O, Vec<O::Action>), ErrorInfo> {
    observation.check()?;
    let allowed = observation.legal();
    misfit::check_legal("legal", &legal, &allowed)?;
    Ok((observation, if legal.is_empty() { allowed } else { legal }))
}

/// A typed decision: the action and, when asked for, why.
pub struct Choice<A> {
    /// The chosen action.
    pub action: A,
    /// The bot's reasoning, given when the caller asked (`explain`).
    pub explain: Option<Value>,
    /// A suggested think time and its distribution (see [`crate::think`]).
    pub think: Option<Think>,
}

impl<A> Choice<A> {
    /// A decision without an explanation.
    pub fn new(action: A) -> Choice<A> {
        Choice { action, explain: None, think: None }
    }

    /// A decision with the bot's reasoning beside it.
    pub fn explained(action: A, explain: Value) -> Choice<A> {
        Choice { action, explain: Some(explain), think: None }
    }

    /// The same decision with a suggested think time.
    pub fn think(mut self, think: Option<Think>) -> Choice<A> {
        self.think = think;
        self
    }
}

/// A game bot written against typed observations and actions; wrap it in [`Typed`] to get an
/// [`Agent`].
pub trait TypedAgent: Send {
    /// What the bot sees: its game's observation type.
    type Observation: Observation;

    /// Chooses one of `legal` (checked against the observation, never empty; in the caller's
    /// order when it listed them, so a seeded choice among them is the caller's).
    fn act(
        &mut self,
        observation: &Self::Observation,
        legal: Vec<ActionOf<Self>>,
        explain: bool,
    ) -> Result<Choice<ActionOf<Self>>, ErrorInfo>;

    /// The distribution [`act`](TypedAgent::act) draws from over `legal` (checked, never
    /// empty), each action with its probability, leaving the bot as it was (see
    /// [`Agent::policy`]). By default the bot does not say.
    fn policy(
        &self,
        _observation: &Self::Observation,
        _legal: &[ActionOf<Self>],
    ) -> Result<Vec<(ActionOf<Self>, f64)>, ErrorInfo> {
        Err(crate::policy::not_given())
    }

    /// [`policy`](TypedAgent::policy), then [`act`](TypedAgent::act), of one decision: what a
    /// caller asking for both (`"policy": true`) gets. The default asks the two in turn; a bot
    /// whose decision and policy share costly work (the stud player's estimate) overrides it to
    /// do that work once, with the same policy and the same action as the two calls.
    #[allow(clippy::type_complexity)]
    fn act_with_policy(
        &mut self,
        observation: &Self::Observation,
        legal: Vec<ActionOf<Self>>,
        explain: bool,
    ) -> Result<(Choice<ActionOf<Self>>, Vec<(ActionOf<Self>, f64)>), ErrorInfo> {
        let policy = self.policy(observation, &legal)?;
        Ok((self.act(observation, legal, explain)?, policy))
    }

    /// Takes a new complete option set (checked against the bot's schema).
    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo>;

    /// Takes in an event of the game; by default the bot ignores events.
    fn observe(&mut self, _event: &Value) -> Result<(), ErrorInfo> {
        Ok(())
    }

    /// Learns how a game ended; by default the bot ignores it.
    fn game_over(&mut self, _over: &GameOver) -> Result<(), ErrorInfo> {
        Ok(())
    }

    /// A service request (`agent.call`); by default the bot has none.
    fn call(&mut self, method: &str, _params: &Value) -> Result<Value, ErrorInfo> {
        Err(ErrorInfo::new(ErrorCode::UnknownMethod, format!("this bot has no method `{method}`")))
    }
}

/// A [`TypedAgent`] seen as an [`Agent`].
pub struct Typed<T>(pub T);

impl<T: TypedAgent> Typed<T> {
    /// Asks the bot about a checked decision, and writes its choice out.
    fn decide(
        &mut self,
        (observation, legal): (T::Observation, Vec<ActionOf<T>>),
        explain: bool,
    ) -> Result<ActReply, ErrorInfo> {
        write_choice(self.0.act(&observation, legal, explain)?)
    }

    /// Asks the bot for its policy over a checked decision.
    fn policy_of(
        &self,
        (observation, legal): (T::Observation, Vec<ActionOf<T>>),
    ) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        write_policy(self.0.policy(&observation, &legal)?)
    }
}

/// A typed choice as the reply of a call.
fn write_choice<A: Serialize>(choice: Choice<A>) -> Result<ActReply, ErrorInfo> {
    let action = write(&choice.action)?;
    let reply = match choice.explain {
        Some(explain) => ActReply::explained(action, explain),
        None => ActReply::new(action),
    };
    Ok(reply.with_think_ms(choice.think))
}

/// A typed policy as the entries of a reply.
fn write_policy<A: Serialize>(weights: Vec<(A, f64)>) -> Result<Vec<PolicyEntry>, ErrorInfo> {
    let entries = weights.iter().map(|(a, p)| Ok((write(a)?, *p)));
    Ok(crate::policy::weighted(entries.collect::<Result<Vec<_>, ErrorInfo>>()?))
}

impl<T: TypedAgent> Agent for Typed<T> {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        self.decide(decision(request)?, request.explain)
    }

    /// Reads the observation and legal actions straight from the call's text into the bot's
    /// types, with the same errors as [`act`](Agent::act).
    fn act_text(&mut self, request: &ActText) -> Result<ActReply, ErrorInfo> {
        self.decide(decision_text(request)?, request.explain)
    }

    fn policy(&self, request: &ActRequest) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        self.policy_of(decision(request)?)
    }

    fn policy_text(&self, request: &ActText) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        self.policy_of(decision_text(request)?)
    }

    /// Reads the request once and asks the bot for both at once
    /// ([`TypedAgent::act_with_policy`]).
    fn act_with_policy_text(
        &mut self,
        request: &ActText,
    ) -> Result<(ActReply, Vec<PolicyEntry>), ErrorInfo> {
        let (observation, legal) = decision_text::<T::Observation>(request)?;
        let (choice, policy) = self.0.act_with_policy(&observation, legal, request.explain)?;
        Ok((write_choice(choice)?, write_policy(policy)?))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.0.configure(options)
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        self.0.observe(event)
    }

    fn game_over(&mut self, over: &GameOver) -> Result<(), ErrorInfo> {
        self.0.game_over(over)
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        self.0.call(method, params)
    }
}

/// An action written as JSON.
fn write<A: Serialize>(action: &A) -> Result<Value, ErrorInfo> {
    serde_json::to_value(action).map_err(|e| {
        ErrorInfo::new(ErrorCode::Internal, format!("the action does not serialize: {e}"))
    })
}

/// Reads one typed value out of a request; `what` names it in the error (made only then: naming
/// every legal action up front cost more than reading it). Read plainly first and once more,
/// tracking the path, only when it does not fit: a request that fits (nearly all) skips the
/// tracking's cost.
fn decode<T: DeserializeOwned>(
    value: &Value,
    what: impl FnOnce() -> String,
) -> Result<T, ErrorInfo> {
    T::deserialize(value).or_else(|_| {
        serde_path_to_error::deserialize(value).map_err(|e| does_not_fit(what(), e, false))
    })
}

/// Reads a request value that is not an observation (a service call's parameters, a record's
/// line) as `T`. A misfit is `invalid_params` naming the full path of the field that does not
/// fit, below `what` (`params.players[2]`, `params.history[0].ann`), with serde's or the type's own words.
pub fn read<T: DeserializeOwned>(value: &Value, what: &str) -> Result<T, ErrorInfo> {
    serde_path_to_error::deserialize(value).map_err(|e| does_not_fit(what.to_string(), e, true))
}

/// A service call's parameters (`agent.call`'s `params`) as `T`, read by [`read`]; none given
/// (`null`) reads as `T`'s default, anything but an object is refused.
pub fn params<T: DeserializeOwned + Default>(value: &Value) -> Result<T, ErrorInfo> {
    match value {
        Value::Null => Ok(T::default()),
        Value::Object(_) => read(value, "params"),
        _ => Err(misfit::error("params", "must be a JSON object")),
    }
}

/// [`decode`] from JSON text (the error's position, within that text, left out).
fn decode_text<T: DeserializeOwned>(
    text: &RawValue,
    what: impl FnOnce() -> String,
) -> Result<T, ErrorInfo> {
    serde_json::from_str(text.get()).or_else(|_| {
        let mut reader = serde_json::Deserializer::from_str(text.get());
        serde_path_to_error::deserialize(&mut reader).map_err(|e| does_not_fit(what(), e, false))
    })
}

/// The error for a value that does not fit its type: a payload type's own rule after the path
/// of its field (`observation.hand[3]`: ...), a missing field named with its path
/// (`observation.hand`: missing), anything else after `what` alone, as serde says it (after the
/// field's path too when `named`).
fn does_not_fit(
    what: String,
    e: serde_path_to_error::Error<serde_json::Error>,
    named: bool,
) -> ErrorInfo {
    let path = e.path().to_string();
    let message = without_position(e.inner());
    let at = |field: &str| match field {
        "." => what.clone(),
        _ if field.starts_with('[') => format!("{what}{field}"),
        _ => format!("{what}.{field}"),
    };
    if let Some(rule) = message.strip_prefix(misfit::RULE) {
        return misfit::error(at(&path), rule);
    }
    let missing = message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`'));
    match missing {
        Some(field) if path == "." => misfit::error(at(field), "missing"),
        Some(field) => misfit::error(format_args!("{}.{field}", at(&path)), "missing"),
        None if named => misfit::error(at(&path), message),
        None => misfit::error(what, format_args!("does not fit this bot: {message}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// A game of counting: the observation `{"n": 3}` allows 1, 2 and 3.
    #[derive(Serialize, Deserialize, JsonSchema)]
    struct Count {
        n: u32,
        /// A word read by the kit's rule, so a typo is named with its path.
        #[serde(default, deserialize_with = "mode")]
        #[schemars(with = "String")]
        mode: bool,
    }

    fn mode<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        misfit::word(d, &[("up", true), ("down", false)])
    }

    impl Observation for Count {
        type Action = u32;
        type Event = Value;

        fn legal(&self) -> Vec<u32> {
            (1..=self.n).collect()
        }
    }

    /// The bot plays the largest count.
    struct Largest;

    impl TypedAgent for Largest {
        type Observation = Count;

        fn act(
            &mut self,
            obs: &Count,
            legal: Vec<u32>,
            explain: bool,
        ) -> Result<Choice<u32>, ErrorInfo> {
            let best = legal.into_iter().max().expect("the adapter never passes an empty list");
            Ok(if explain {
                Choice::explained(best, json!({"n": obs.n}))
            } else {
                Choice::new(best)
            })
        }

        fn configure(&mut self, _: &Options) -> Result<(), ErrorInfo> {
            Ok(())
        }
    }

    fn request(observation: Value, legal: Value, explain: bool) -> ActRequest {
        serde_json::from_value(
            json!({"observation": observation, "legal": legal, "explain": explain}),
        )
        .unwrap()
    }

    fn refusal(observation: Value, legal: Value) -> String {
        let error = Typed(Largest).act(&request(observation, legal, false)).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidParams, "{}", error.message);
        error.message
    }

    #[test]
    fn typed_requests_round_trip_and_misfits_are_invalid_params_naming_the_field() {
        let mut agent = Typed(Largest);
        let reply = agent.act(&request(json!({"n": 3}), json!([2, 3, 1]), true)).unwrap();
        assert_eq!(reply.action, json!(3));
        assert_eq!(reply.explain, Some(json!({"n": 3})));
        let unlisted = agent.act(&request(json!({"n": 2}), json!([]), false)).unwrap();
        assert_eq!(unlisted.action, json!(2), "no list given: what the observation allows");
        assert!(refusal(json!({"n": "5"}), json!([1])).starts_with("`observation`: does not fit"));
        assert!(refusal(json!({"n": 5}), json!([1, "x"])).starts_with("`legal[1]`: does not fit"));
        assert!(refusal(json!({"n": 2}), json!([1, 2, 3])).starts_with("`legal[2]`: 3 is not"));
        assert!(refusal(json!({"n": 2}), json!([1])).starts_with("`legal`: lacks 2"));
        assert!(
            refusal(json!({"n": 0}), json!([])).starts_with("`observation`: no action is legal")
        );
        assert_eq!(refusal(json!({"mode": "up"}), json!([])), "`observation.n`: missing");
        assert_eq!(
            refusal(json!({"n": 2, "mode": "upp"}), json!([])),
            "`observation.mode`: must be one of `up`, `down`, not \"upp\""
        );
    }

    #[test]
    fn the_schema_is_each_payload_type() {
        let schema = schema::<Count>();
        assert_eq!(schema["observation"]["required"], json!(["n"]), "{schema}");
        assert_eq!(schema["action"]["type"], json!("integer"));
        assert_eq!(schema["event"]["title"], json!("AnyValue"), "a JSON value is any JSON");
    }

    /// The call's text read straight into the bot's types: the same answers and the same errors
    /// as through values.
    #[test]
    fn requests_read_from_text_act_as_requests_read_from_values() {
        let cases = [
            (json!({"n": 3}), json!([1, 2, 3]), true),
            (json!({"m": 5}), json!([1]), false),
            (json!({"n": 5}), json!([1, "x"]), false),
            (json!({"n": -1}), json!([]), false),
            (json!({"n": 2}), json!([1, 7]), false),
            (json!({"n": 2, "mode": 1}), json!([1, 2]), false),
            (json!("?"), json!([1]), false),
        ];
        for (observation, legal, explain) in cases {
            let (observation_text, legal_text) = (observation.to_string(), legal.to_string());
            let raw = |text: &str| serde_json::from_str::<&RawValue>(text).map(|r| r.to_owned());
            let (observation_raw, legal_raw) =
                (raw(&observation_text).unwrap(), raw(&legal_text).unwrap());
            let text = ActText {
                observation: &observation_raw,
                legal: &legal_raw,
                explain,
                policy: false,
                clock: None,
            };
            let from_text = Typed(Largest).act_text(&text);
            let from_values = Typed(Largest).act(&request(observation, legal, explain));
            assert_eq!(from_text, from_values, "{observation_text} {legal_text}");
        }
    }
}
