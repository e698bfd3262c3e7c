//! An optional typed layer over [`Agent`]: a bot reads its game's observation and legal actions
//! as its own serde types instead of picking fields out of JSON, and returns a typed action.
//! A request that does not fit the types is refused with `invalid_params` naming the field.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use crate::api::{Agent, GameOver};

/// A typed decision: the action and, when asked for, why.
pub struct Choice<A> {
    pub action: A,
    pub explain: Option<Value>,
}

impl<A> Choice<A> {
    pub fn new(action: A) -> Choice<A> {
        Choice { action, explain: None }
    }

    pub fn explained(action: A, explain: Value) -> Choice<A> {
        Choice { action, explain: Some(explain) }
    }
}

/// A game bot written against typed observations and actions; wrap it in [`Typed`] to get an
/// [`Agent`].
pub trait TypedAgent: Send {
    type Observation: DeserializeOwned;
    type Action: Serialize + DeserializeOwned;

    /// Chooses one of `legal` (empty when the caller did not list them).
    fn act(
        &mut self,
        observation: Self::Observation,
        legal: Vec<Self::Action>,
        explain: bool,
    ) -> Result<Choice<Self::Action>, ErrorInfo>;

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo>;

    fn observe(&mut self, _event: &Value) -> Result<(), ErrorInfo> {
        Ok(())
    }

    fn game_over(&mut self, _over: &GameOver) -> Result<(), ErrorInfo> {
        Ok(())
    }
}

/// A [`TypedAgent`] seen as an [`Agent`].
pub struct Typed<T>(pub T);

impl<T: TypedAgent> Agent for Typed<T> {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let observation = decode(&request.observation, || "observation".into())?;
        let legal = request
            .legal
            .iter()
            .enumerate()
            .map(|(i, a)| decode(a, || format!("legal[{i}]")))
            .collect::<Result<Vec<T::Action>, _>>()?;
        let choice = self.0.act(observation, legal, request.explain)?;
        let action = serde_json::to_value(&choice.action).map_err(|e| {
            ErrorInfo::new(ErrorCode::Internal, format!("the action does not serialize: {e}"))
        })?;
        Ok(ActReply { action, explain: choice.explain })
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

/// Reads one typed value out of a request; `what` names it in the error (made only then: naming
/// every legal action up front cost more than reading it).
fn decode<T: DeserializeOwned>(
    value: &Value,
    what: impl FnOnce() -> String,
) -> Result<T, ErrorInfo> {
    T::deserialize(value).map_err(|e| {
        ErrorInfo::new(ErrorCode::InvalidParams, format!("{} does not fit this bot: {e}", what()))
    })
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

    /// Plays the largest legal number not above the observed `n`.
    struct AtMost;

    impl TypedAgent for AtMost {
        type Observation = Count;
        type Action = u32;

        fn act(
            &mut self,
            obs: Count,
            legal: Vec<u32>,
            explain: bool,
        ) -> Result<Choice<u32>, ErrorInfo> {
            let best = legal.into_iter().filter(|a| *a <= obs.n).max().unwrap_or(0);
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

    #[test]
    fn typed_requests_round_trip_and_misfits_are_invalid_params() {
        let mut agent = Typed(AtMost);
        let reply = agent.act(&request(json!({"n": 5}), json!([1, 4, 7]), true)).unwrap();
        assert_eq!(reply.action, json!(4));
        assert_eq!(reply.explain, Some(json!({"n": 5})));
        let bad = agent.act(&request(json!({"m": 5}), json!([1]), false)).unwrap_err();
        assert_eq!(bad.code, ErrorCode::InvalidParams);
        assert!(bad.message.starts_with("observation"), "{}", bad.message);
        let bad = agent.act(&request(json!({"n": 5}), json!([1, "x"]), false)).unwrap_err();
        assert!(bad.message.starts_with("legal[1]"), "{}", bad.message);
    }
}
