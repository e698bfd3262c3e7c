//! This host's specs in the protocol's operation table, and the protocol's JSON Schema with them
//! and with each served game's payload schemas: what `yomi schema` prints and
//! `protocol/schema.json` holds (a test here keeps the protocol's part current, the e2e suite the
//! games').

use serde_json::{Map, Value};
use yomi_protocol::ops::Specs;

use crate::matches::runner::MatchSpec;
use crate::tournament::schedule::TournamentSpec;

/// The match and tournament specs `match.run` and `tournament.run` carry here.
pub struct HostSpecs;

impl Specs for HostSpecs {
    type Match = MatchSpec;
    type Tournament = TournamentSpec;
}

/// The schema document (see `yomi_protocol::schema`).
pub fn document() -> Value {
    yomi_protocol::schema::document::<HostSpecs>()
}

/// The document with `games`: each game's name with its payload schemas (`observation`,
/// `action`, `event`; PROTOCOL.md, "Payload schemas"), for the games that publish them.
pub fn with_games<'a>(games: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Value {
    let mut document = document();
    let games: Map<String, Value> =
        games.into_iter().map(|(name, payload)| (name.to_string(), payload.clone())).collect();
    document["games"] = Value::Object(games);
    document
}

/// A document as `yomi schema` prints it and the repository keeps it: pretty, one final newline.
pub fn text(document: &Value) -> String {
    let mut text = serde_json::to_string_pretty(document).expect("schemas serialize");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file clients test themselves against is the schema of these types (its `games`, of
    /// the plugins, is checked by the e2e suite, which has them built).
    #[test]
    fn the_checked_in_schema_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../protocol/schema.json");
        let mut checked_in: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_default())
                .unwrap_or_default();
        let games = checked_in.as_object_mut().and_then(|o| o.remove("games"));
        assert!(games.is_some_and(|g| g.is_object()), "protocol/schema.json has `games`");
        assert!(
            text(&checked_in) == text(&document()),
            "protocol/schema.json is not the schema of the protocol's types; regenerate it with \
             `./target/release/yomi schema > protocol/schema.json` and commit it"
        );
    }

    /// The schema's `section`, after checking that it has an entry for each of `names` and no other.
    fn section<'a>(schema: &'a Value, section: &str, names: &[&str]) -> &'a Map<String, Value> {
        let entries = schema[section].as_object().unwrap();
        let mut expected = names.to_vec();
        expected.sort_unstable();
        assert!(entries.keys().eq(expected), "{section}: {:?}", entries.keys());
        entries
    }

    #[test]
    fn every_event_kind_is_in_the_schema_with_its_payload() {
        let schema = document();
        for (name, payload) in section(&schema, "events", yomi_protocol::EVENTS) {
            assert!(payload["$ref"].is_string(), "{name}: the payload is a named type");
        }
        // Every field the host always writes is required: what a client may count on.
        let your_turn = schema.pointer("/$defs/results/YourTurn/required").unwrap();
        assert_eq!(your_turn, &serde_json::json!(["match", "seat", "observation", "legal"]));
    }

    #[test]
    fn every_operation_and_error_code_is_in_the_schema() {
        let schema = document();
        for (name, shape) in section(&schema, "operations", yomi_protocol::OPERATIONS) {
            assert!(shape["params"]["$ref"].is_string(), "{name}: params are a named type");
            // `true` is the schema of any JSON: `agent.call`'s result is the bot's own.
            assert!(shape["result"].is_object() || shape["result"] == true, "{name}");
        }
        assert_eq!(
            schema["errors"].as_array().unwrap().len(),
            yomi_protocol::error::ALL_CODES.len()
        );
        // Every reference resolves to a definition.
        let text = schema.to_string();
        for reference in text.split("\"$ref\":\"#/").skip(1) {
            let pointer = &reference[..reference.find('"').unwrap()];
            let pointer = format!("/{}", pointer.replace("~1", "/"));
            assert!(schema.pointer(&pointer).is_some(), "dangling $ref {pointer}");
        }
    }
}
