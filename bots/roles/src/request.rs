//! The service's requests and replies as types: a call's parameters are read once into
//! [`Params`] (a misfit is `invalid_params` naming the field's path, `params.history[0].ann`), and
//! each method answers with one of the reply types here, written out as JSON.
//!
//! A request flows so: `agent.call` or the CLI hands [`crate::service::Service`] its parameters;
//! they are read into [`Params`]; the method takes the fields it needs ([`Params::required`] says
//! which one is missing); its reply type becomes the JSON the client sees.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use yomi_plugin::{misfit, ErrorInfo};

use crate::analysis::NeverEstimate;
use crate::model::{PastGame, Roles};

/// Every parameter a method reads; each method reads only its own, and a parameter given as
/// `null` counts as not given.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Params {
    /// The stored group the call is about.
    pub group: Option<String>,
    /// The group's key, as `create` returned it (a network client's proof it holds the group).
    pub key: Option<String>,
    /// Player names: a list, or one comma-separated string.
    #[serde(deserialize_with = "names")]
    pub players: Option<Vec<String>>,
    /// Role counts: `"werewolf=1,villager=3"` or `{"werewolf": 1, "villager": 3}`.
    #[serde(deserialize_with = "roles")]
    pub roles: Option<Roles>,
    /// Past games, each an object player → role.
    pub history: Option<Vec<PastGame>>,
    /// A game id of the group.
    pub game: Option<i64>,
    /// The player asking for their role.
    pub player: Option<String>,
    /// The seed of the draw (by default, the next of the bot's stream).
    pub seed: Option<u64>,
    /// Assignments `sample` draws.
    pub count: Option<u64>,
    /// Per-request overrides of the bot's options (see [`crate::settings`]).
    pub beta: Option<f64>,
    pub sampler: Option<String>,
    pub burn_in: Option<i64>,
    pub thin: Option<i64>,
    pub role: Option<String>,
    pub games: Option<i64>,
    pub runs: Option<i64>,
}

impl Params {
    /// A call's parameters (see `yomi_plugin::typed::params`).
    pub fn read(params: &Value) -> Result<Params, ErrorInfo> {
        yomi_plugin::typed::params(params)
    }

    /// A parameter the method cannot do without.
    pub fn required<'a, T>(field: &'a Option<T>, name: &str) -> Result<&'a T, ErrorInfo> {
        field.as_ref().ok_or_else(|| misfit::error(format_args!("params.{name}"), "missing"))
    }
}

/// Splits a comma-separated list of names (empty entries dropped).
pub fn split_names(text: &str) -> Vec<String> {
    text.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

fn names<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        Text(String),
        List(Vec<String>),
    }
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match serde_json::from_value(v) {
            Ok(Names::Text(text)) => Ok(Some(split_names(&text))),
            Ok(Names::List(list)) => Ok(Some(list)),
            Err(_) => Err(misfit::rule("must be a list of names or a comma-separated string")),
        },
    }
}

fn roles<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Roles>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => Roles::from_json(&v).map(Some).map_err(|e| misfit::rule(e.message)),
    }
}

/// `groups`' reply.
#[derive(Serialize)]
pub struct Groups {
    pub groups: Vec<String>,
}

/// The reply of `create`, `join` and `leave`: who is in the group now (and, from `create`, the
/// group's key).
#[derive(Serialize)]
pub struct Members<'a> {
    pub group: &'a str,
    pub players: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `players`' reply.
#[derive(Serialize)]
pub struct Presence<'a> {
    pub group: &'a str,
    pub players: Vec<String>,
    /// The pending game's id, if one is dealt.
    pub pending: Option<i64>,
    /// Committed games.
    pub games: usize,
}

/// `history`'s reply: the committed games and, per player, how often each role came.
#[derive(Serialize)]
pub struct History<'a, G: Serialize> {
    pub group: &'a str,
    pub games: G,
    pub counts: BTreeMap<String, BTreeMap<String, u64>>,
}

/// `assign`'s reply: the dealt (pending) game.
#[derive(Serialize)]
pub struct Dealt<'a> {
    pub group: &'a str,
    pub game: i64,
    pub assignment: BTreeMap<String, String>,
    pub beta: f64,
    pub sampler: &'a str,
    pub seed: u64,
}

/// `role`'s reply: one player's own role.
#[derive(Serialize)]
pub struct OwnRole<'a> {
    pub group: &'a str,
    pub game: i64,
    pub player: &'a str,
    pub role: &'a str,
}

/// `analyze`'s reply.
#[derive(Serialize)]
pub struct Analysis<'a> {
    pub group: Option<&'a str>,
    pub beta: f64,
    pub players: &'a [String],
    /// Role → how many players get it.
    pub roles: BTreeMap<String, usize>,
    /// Player → role → the probability of the next deal giving it.
    pub probabilities: BTreeMap<String, BTreeMap<String, f64>>,
    pub guessability: Guessability<'a>,
    pub never: NeverEstimate,
    pub seed: u64,
}

/// The player likeliest to hold the analysed role, beside a uniform deal's chance.
#[derive(Serialize)]
pub struct Guessability<'a> {
    pub role: &'a str,
    pub player: &'a str,
    pub probability: f64,
    pub uniform: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refusal(params: Value) -> String {
        let e = Params::read(&params).unwrap_err();
        assert_eq!(e.code, yomi_plugin::ErrorCode::InvalidParams);
        e.message
    }

    #[test]
    fn parameters_are_read_once_and_misfits_name_their_path() {
        let p =
            Params::read(&json!({"players": " a, b,,c", "roles": {"werewolf": 1}, "game": null}))
                .unwrap();
        assert_eq!(p.players.unwrap(), ["a", "b", "c"]);
        assert_eq!(p.roles.unwrap().names, ["werewolf"]);
        assert_eq!(p.game, None, "null is not given");
        assert!(Params::read(&Value::Null).unwrap().group.is_none());
        let history = refusal(json!({"history": [{"a": "seer"}, {"b": 2}]}));
        assert!(
            history.starts_with("`params.history[1].b`: invalid type: integer `2`"),
            "{history}"
        );
        assert_eq!(
            refusal(json!({"roles": "werewolf=1,werewolf=2"})),
            "`params.roles`: role `werewolf` is given twice"
        );
        assert_eq!(
            refusal(json!({"players": 3})),
            "`params.players`: must be a list of names or a comma-separated string"
        );
        assert!(refusal(json!({"seed": -1})).starts_with("`params.seed`: invalid value"));
        assert_eq!(refusal(json!([1])), "`params`: must be a JSON object");
        let none = Params::default();
        assert_eq!(
            Params::required(&none.group, "group").unwrap_err().message,
            "`params.group`: missing"
        );
    }
}
