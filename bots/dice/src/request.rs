//! The `dice` service's requests and replies as types: a call's parameters are read once into
//! [`Request`] (a misfit is `invalid_params` naming the field's path, `params.faces[2]`),
//! and each method answers with one of the reply types here, written out as JSON.
//!
//! A request flows so: `agent.call` hands [`crate::service::DiceBot`] its parameters; they are
//! read into [`Request`]; the method takes the fields it needs; its reply type becomes the JSON
//! the client sees (the CLI writes the same types).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_plugin::ErrorInfo;

#[cfg(doc)]
use crate::board::Board;
use crate::control::Window;

/// Every parameter a method reads; each method reads only its own, and a parameter given as
/// `null` counts as not given.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Request {
    /// Whose stream (by default the anonymous player's).
    pub player: Option<String>,
    /// The key of the player's saved profile, as saving it returned.
    pub key: Option<String>,
    /// The board a `roll` is controlled on: `"standard"` or a board's JSON form (read by
    /// [`Board::parse`], which names the square that does not fit).
    pub board: Option<Value>,
    /// The square a controlled roll is made from.
    pub position: Option<u64>,
    /// Faces `rolls` gives.
    pub n: Option<u64>,
    /// Faces of a `sequence`.
    pub length: Option<u64>,
    /// The seed of a `sequence` (by default, the next of the bot's stream).
    pub seed: Option<u64>,
    /// The faces `score` judges.
    pub faces: Option<Vec<u64>>,
    /// The faces a `profile` is saved from.
    pub sequence: Option<Vec<u64>>,
}

impl Request {
    /// A call's parameters (see `yomi_plugin::typed::params`).
    pub fn read(params: &Value) -> Result<Request, ErrorInfo> {
        yomi_plugin::typed::params(params)
    }
}

/// A roll's face, and on a board what controlling it did.
#[derive(Serialize)]
pub struct Roll {
    pub face: u8,
    #[serde(flatten)]
    pub on_board: Option<OnBoard>,
}

/// What a controlled roll did: whether the face forces a trap, the natural chance of that, the
/// control's verdict and its window.
#[derive(Serialize)]
pub struct OnBoard {
    pub trap: bool,
    pub p: f64,
    pub verdict: String,
    pub window: Window,
}

/// A sequence of faces: `rolls`' reply, and `sequence`'s with its Err and search steps.
#[derive(Serialize)]
pub struct Faces {
    pub faces: Vec<u8>,
    #[serde(flatten)]
    pub search: Option<Search>,
}

/// How a searched sequence came out.
#[derive(Serialize)]
pub struct Search {
    pub err: f64,
    pub steps: usize,
}

/// `score`'s reply: each feature of the sequence, and its Err under the personality's ranges.
#[derive(Serialize)]
pub struct Score {
    pub features: BTreeMap<String, f64>,
    pub err: f64,
}

/// `profile`'s reply: the ranges the player's stream uses.
#[derive(Serialize)]
pub struct Profile {
    pub player: String,
    pub saved: bool,
    pub persistent: bool,
    pub ranges: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use serde_json::json;

    #[test]
    fn misfits_name_their_path() {
        let faces = Request::read(&json!({"faces": [1, "x"]})).unwrap_err();
        assert_eq!(faces.code, yomi_plugin::ErrorCode::InvalidParams);
        assert!(faces.message.starts_with("`params.faces[1]`: invalid type"), "{}", faces.message);
        let board = Board::parse(&json!({"squares": [{"next": [1]}, {"next": "x"}]})).unwrap_err();
        assert!(board.starts_with("`board.squares[1].next`: invalid type"), "{board}");
        let cycle = Board::parse(&json!({"squares": [{"next": [1]}, {"next": [0]}]})).unwrap_err();
        assert!(cycle.starts_with("`board`: "), "{cycle}");
        assert_eq!(Request::read(&json!({"seed": null})).unwrap().seed, None);
    }
}
