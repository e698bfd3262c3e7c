//! An optional typed layer over [`Agent`]: a bot reads its game's observation and legal actions
//! as its own serde types instead of picking fields out of JSON, and returns a typed action.
//! A request that does not fit the types, or whose `legal` does not fit the observation, is
//! refused by the one rule of [`misfit`](crate::misfit): `invalid_params` naming the field.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use yomi_protocol::envelope::without_position;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options, PolicyEntry};

use crate::api::Agent;
use crate::call::{unreadable, ActText, GameOver};
use crate::misfit;

/// A typed decision: the action and, when asked for, why.
pub struct Choice<A> {
    /// The chosen action.
    pub action: A,
    /// The bot's reasoning, given when the caller asked (`explain`).
    pub explain: Option<Value>,
    /// A suggested think time (see [`crate::think`]).
    pub think_ms: Option<u64>,
}

impl<A> Choice<A> {
    /// A decision without an explanation.
    pub fn new(action: A) -> Choice<A> {
        Choice { action, explain: None, think_ms: None }
    }

    /// A decision with the bot's reasoning beside it.
    pub fn explained(action: A, explain: Value) -> Choice<A> {
        Choice { action, explain: Some(explain), think_ms: None }
    }

    /// The same decision with a suggested think time.
    pub fn think(mut self, think_ms: Option<u64>) -> Choice<A> {
        self.think_ms = think_ms;
        self
    }
}

/// A game bot written against typed observations and actions; wrap it in [`Typed`] to get an
/// [`Agent`].
pub trait TypedAgent: Send {
    /// What the bot sees, read from the game's observation JSON.
    type Observation: DeserializeOwned;
    /// One of the game's actions, read from the legal list and written as the answer.
    type Action: Serialize + DeserializeOwned + PartialEq;

    /// The actions `observation` allows: the adapter refuses a request whose `legal` does not
    /// fit them, or that allows none, and hands them to [`act`](TypedAgent::act) when the caller
    /// listed none.
    fn allowed(&self, observation: &Self::Observation) -> Vec<Self::Action>;

    /// Chooses one of `legal` (checked against the observation, never empty).
    fn act(
        &mut self,
        observation: Self::Observation,
        legal: Vec<Self::Action>,
        explain: bool,
    ) -> Result<Choice<Self::Action>, ErrorInfo>;

    /// The distribution [`act`](TypedAgent::act) draws from over `legal` (checked, never
    /// empty), each action with its probability, leaving the bot as it was (see
    /// [`Agent::policy`]). By default the bot does not say.
    fn policy(
        &self,
        _observation: &Self::Observation,
        _legal: &[Self::Action],
    ) -> Result<Vec<(Self::Action, f64)>, ErrorInfo> {
        Err(crate::policy::not_given())
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
}

/// A [`TypedAgent`] seen as an [`Agent`].
pub struct Typed<T>(pub T);

impl<T: TypedAgent> Typed<T> {
    /// Checks `legal` against the observation, asks the bot, and writes its choice out.
    fn decide(
        &mut self,
        observation: T::Observation,
        legal: Vec<T::Action>,
        explain: bool,
    ) -> Result<ActReply, ErrorInfo> {
        let allowed = self.0.allowed(&observation);
        misfit::check_legal("legal", &legal, &allowed)?;
        let legal = if legal.is_empty() { allowed } else { legal };
        let choice = self.0.act(observation, legal, explain)?;
        let action = write(&choice.action)?;
        Ok(ActReply { action, explain: choice.explain, think_ms: choice.think_ms, policy: None })
    }

    /// Checks `legal` as [`decide`](Typed::decide) does and asks the bot for its policy.
    fn policy_of(
        &self,
        observation: &T::Observation,
        legal: Vec<T::Action>,
    ) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        let allowed = self.0.allowed(observation);
        misfit::check_legal("legal", &legal, &allowed)?;
        let legal = if legal.is_empty() { allowed } else { legal };
        let weights = self.0.policy(observation, &legal)?;
        let entries = weights.iter().map(|(a, p)| Ok((write(a)?, *p)));
        Ok(crate::policy::weighted(entries.collect::<Result<Vec<_>, ErrorInfo>>()?))
    }
}

impl<T: TypedAgent> Agent for Typed<T> {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let (observation, legal) = read_values::<T>(request)?;
        self.decide(observation, legal, request.explain)
    }

    /// Reads the observation and legal actions straight from the call's text into the bot's
    /// types, with the same errors as [`act`](Agent::act).
    fn act_text(&mut self, request: &ActText) -> Result<ActReply, ErrorInfo> {
        let (observation, legal) = read_text::<T>(request)?;
        self.decide(observation, legal, request.explain)
    }

    fn policy(&self, request: &ActRequest) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        let (observation, legal) = read_values::<T>(request)?;
        self.policy_of(&observation, legal)
    }

    fn policy_text(&self, request: &ActText) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        let (observation, legal) = read_text::<T>(request)?;
        self.policy_of(&observation, legal)
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
}

/// The observation and legal actions of a request read into the bot's types.
fn read_values<T: TypedAgent>(
    request: &ActRequest,
) -> Result<(T::Observation, Vec<T::Action>), ErrorInfo> {
    let observation = decode(&request.observation, || "observation".into())?;
    let legal = request
        .legal
        .iter()
        .enumerate()
        .map(|(i, a)| decode(a, || format!("legal[{i}]")))
        .collect::<Result<Vec<T::Action>, _>>()?;
    Ok((observation, legal))
}

/// [`read_values`] from the call's text.
fn read_text<T: TypedAgent>(
    request: &ActText,
) -> Result<(T::Observation, Vec<T::Action>), ErrorInfo> {
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
                .collect::<Result<Vec<T::Action>, _>>()?
        }
    };
    Ok((observation, legal))
}

/// An action written as JSON.
fn write<A: Serialize>(action: &A) -> Result<Value, ErrorInfo> {
    serde_json::to_value(action).map_err(|e| {
        ErrorInfo::new(ErrorCode::Internal, format!("the action does not serialize: {e}"))
    })
}

/// Reads one typed value out of a request; `what` names it in the error (made only then: naming
/// every legal action up front cost more than reading it).
fn decode<T: DeserializeOwned>(
    value: &Value,
    what: impl FnOnce() -> String,
) -> Result<T, ErrorInfo> {
    T::deserialize(value).map_err(|e| does_not_fit(what(), &e))
}

/// [`decode`] from JSON text (the error's position, within that text, left out).
fn decode_text<T: DeserializeOwned>(
    text: &RawValue,
    what: impl FnOnce() -> String,
) -> Result<T, ErrorInfo> {
    serde_json::from_str(text.get()).map_err(|e| does_not_fit(what(), &e))
}

fn does_not_fit(what: String, e: &serde_json::Error) -> ErrorInfo {
    misfit::error(what, format_args!("does not fit this bot: {}", without_position(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize)]
    struct Count {
        n: u32,
    }

    /// A game of counting: the observation `{"n": 3}` allows 1, 2 and 3; the bot plays the
    /// largest.
    struct Largest;

    impl TypedAgent for Largest {
        type Observation = Count;
        type Action = u32;

        fn allowed(&self, obs: &Count) -> Vec<u32> {
            (1..=obs.n).collect()
        }

        fn act(
            &mut self,
            obs: Count,
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
        assert!(refusal(json!({"m": 5}), json!([1])).starts_with("`observation`: does not fit"));
        assert!(refusal(json!({"n": 5}), json!([1, "x"])).starts_with("`legal[1]`: does not fit"));
        assert!(refusal(json!({"n": 2}), json!([1, 2, 3])).starts_with("`legal[2]`: 3 is not"));
        assert!(refusal(json!({"n": 2}), json!([1])).starts_with("`legal`: lacks 2"));
        assert!(
            refusal(json!({"n": 0}), json!([])).starts_with("`observation`: no action is legal")
        );
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
            };
            let from_text = Typed(Largest).act_text(&text);
            let from_values = Typed(Largest).act(&request(observation, legal, explain));
            assert_eq!(from_text, from_values, "{observation_text} {legal_text}");
        }
    }
}
