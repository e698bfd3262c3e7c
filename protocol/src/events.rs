//! The events the host sends unasked, each kind with its payload as a type.
//!
//! An event line is `{"event": name, ...payload}`: the kind's name beside its payload's fields.
//! One table below names every kind: its [`Event`] variant, its wire name and its payload type
//! (a struct of the variant's name). The enum, [`EVENTS`] and the schema's `events` section
//! ([`crate::schema`]) all come from it, and the host's outbox takes an [`Event`], so a line's
//! name and payload cannot disagree and a payload cannot drift from its schema.
//!
//! The host writes every line through a JSON map (see its outbox), so keys come out sorted by name
//! whatever the order of a payload's fields here.

use schemars::{JsonSchema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::envelope::RequestId;
use crate::failures::{FailureCounts, FailureKind};
use crate::game::Clock;

/// Declares [`Event`], [`EVENTS`], [`Event::name`], a `From` per payload and [`shapes`] from one
/// table of `Variant => "name",` rows, where `Variant` is also the payload's type.
macro_rules! events {
    ($($variant:ident => $name:literal,)*) => {
        /// One event line: the kind's name under `event`, its payload's fields beside it.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "event")]
        pub enum Event {
            $(
                #[doc = concat!("A `", $name, "` line.")]
                #[serde(rename = $name)]
                $variant($variant),
            )*
        }

        /// Every event kind's wire name, in the table's order.
        pub const EVENTS: &[&str] = &[$($name,)*];

        impl Event {
            /// The kind's name on the wire.
            pub const fn name(&self) -> &'static str {
                match self {
                    $(Event::$variant(_) => $name,)*
                }
            }
        }

        $(
            impl From<$variant> for Event {
                fn from(payload: $variant) -> Event {
                    Event::$variant(payload)
                }
            }
        )*

        /// Every event kind's name with the schema of its payload, as the host writes it.
        pub fn shapes(generator: &mut SchemaGenerator) -> Vec<(&'static str, Value)> {
            vec![$(($name, generator.subschema_for::<$variant>().to_value()),)*]
        }
    };
}

events! {
    MatchStarted => "match.started",
    YourTurn => "your_turn",
    MatchEvent => "match.event",
    MatchProgress => "match.progress",
    TournamentStarted => "tournament.started",
    TournamentProgress => "tournament.progress",
    ReplayProgress => "replay.progress",
}

/// A match of `match.run` started: every seat's agent is up. It comes before any other event of
/// the match, so a client learns the match's id before its first `your_turn`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchStarted {
    /// The match's id, which its other events, its reply and `match.move` name.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The match's transcript header: game, plugin and build, game options, seed, games, policy
    /// and seats (PROTOCOL.md, "Transcripts").
    pub header: Value,
}

/// A seat the client plays must decide: answer with `match.move`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct YourTurn {
    /// The match's id.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The seat that decides.
    pub seat: usize,
    /// What the seat sees now; its shape is the game's.
    pub observation: Value,
    /// The actions the seat may choose from; the move must be one of them.
    pub legal: Vec<Value>,
    /// This seat's game clock, when the match has a time control (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
}

/// Something happened in a game of a match, as a seat the client plays sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchEvent {
    /// The match's id.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The seat it is shown to.
    pub seat: usize,
    /// The game's event, the same value a bot's `observe` gets; its shape is the game's.
    pub game_event: Value,
    /// The decisions of the match's `agent` seats that asked to explain, once they can no
    /// longer tell anything the game keeps hidden: a seat with `"explain": "step"` has its
    /// decision here in the event of the step it decided, one with `"explain": "game"` in the
    /// last event of the game (PROTOCOL.md, "Agent seats"). Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explained: Vec<Explained>,
}

/// A bot seat's decision for a step, shown once that step is resolved: the action it played, its
/// reasoning and its suggested think time, as `agent.act` would have answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Explained {
    /// The seat that decided.
    pub seat: usize,
    /// The step of the game it decided in (1 for the first).
    pub step: usize,
    /// The bot's answer: `action`, `explain`, `think_ms`.
    #[serde(flatten)]
    pub reply: crate::ActReply,
}

/// A game of a match ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchProgress {
    /// The match's id.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The games played so far, this one included (1 after the first).
    pub game: u32,
    /// The games the match plays.
    pub games: u32,
    /// How this game ended.
    pub record: GameRecord,
    /// Each seat's scores summed over the games so far.
    pub scores: Vec<f64>,
}

/// How one game of a match ended: what `match.progress` reports, and what a tournament records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameRecord {
    /// Each seat's score (a forfeit scores 0 for its seat, 1 for every other).
    pub scores: Vec<f64>,
    /// The game's own account of the result (its shape is the game's); a forfeit's is
    /// `{"forfeit": {"seat", "kind"}}`.
    pub summary: Value,
    /// Each seat's failures in this game, by kind.
    pub failures: Vec<FailureCounts>,
    /// The seat that forfeited the game, and why; absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<(usize, FailureKind)>,
    /// The steps the game took: each one round of decisions (simultaneous ones count once).
    pub steps: usize,
}

/// A tournament of `tournament.run` started (or resumed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TournamentStarted {
    /// The tournament's id in the records (not a request's id: the line is still an event).
    pub id: String,
    /// The games this process plays (a shard's block, or the whole schedule).
    pub scheduled: u64,
}

/// A tournament recorded more games. A client that reads slowly may miss some of these; the
/// next one says where the tournament stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TournamentProgress {
    /// The tournament's id.
    pub id: String,
    /// Games recorded so far.
    pub games: u64,
    /// Games scheduled in all.
    pub total: u64,
}

/// A `humanlike.run` or `fit.run` replayed more recorded decisions. A client that reads slowly
/// may miss some of these; the next one says where the request stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayProgress {
    /// The request's id.
    pub request: RequestId,
    /// The operation: `humanlike.run` or `fit.run`.
    pub op: String,
    /// Decisions replayed so far.
    pub decisions: u64,
    /// Decisions the request replays at most (a fit may stop sooner).
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_is_the_name_then_the_payload_and_reads_back() {
        let turn = YourTurn {
            match_id: "m1".into(),
            seat: 1,
            observation: json!({"round": 1}),
            legal: vec![json!("rock"), json!("paper")],
            clock: None,
        };
        let text = serde_json::to_string(&Event::from(turn.clone())).unwrap();
        assert_eq!(
            text,
            r#"{"event":"your_turn","match":"m1","seat":1,"observation":{"round":1},"legal":["rock","paper"]}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), Event::YourTurn(turn.clone()));
        let clock = Clock { remaining_ms: 900, increment_ms: 100, moves_to_go: None };
        let timed = YourTurn { clock: Some(clock), ..turn };
        let text = serde_json::to_string(&Event::from(timed.clone())).unwrap();
        assert!(
            text.ends_with(
                r#""legal":["rock","paper"],"clock":{"increment_ms":100,"remaining_ms":900}}"#
            ),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), Event::YourTurn(timed));
    }

    #[test]
    fn each_payload_has_the_fields_the_host_wrote_before() {
        // Before the payloads were types, the host built each one as a JSON map (replay.progress
        // came later, with the same shape of line).
        let record = GameRecord {
            failures: vec![FailureCounts::default()],
            forfeit: Some((0, FailureKind::Timeout)),
            scores: vec![0.0, 1.0],
            steps: 4,
            summary: json!({"forfeit": {"seat": 0, "kind": "timeout"}}),
        };
        let kinds: [(Event, Value); 7] = [
            (
                MatchStarted { header: json!({"type": "header"}), match_id: "m1".into() }.into(),
                json!({"match": "m1", "header": {"type": "header"}}),
            ),
            (
                YourTurn {
                    legal: vec![],
                    match_id: "m2".into(),
                    observation: Value::Null,
                    seat: 2,
                    clock: None,
                }
                .into(),
                json!({"match": "m2", "seat": 2, "observation": null, "legal": []}),
            ),
            (
                MatchEvent {
                    game_event: json!([1]),
                    match_id: "m1".into(),
                    seat: 0,
                    explained: vec![],
                }
                .into(),
                json!({"match": "m1", "seat": 0, "game_event": [1]}),
            ),
            (
                MatchProgress {
                    game: 2,
                    games: 3,
                    match_id: "m1".into(),
                    record: record.clone(),
                    scores: vec![0.5, 1.5],
                }
                .into(),
                json!({"match": "m1", "game": 2, "games": 3, "record": {
                    "failures": [{"timeout": 0, "illegal": 0, "error": 0, "crash": 0, "disconnect": 0}],
                    "forfeit": [0, "timeout"], "scores": [0.0, 1.0], "steps": 4,
                    "summary": {"forfeit": {"seat": 0, "kind": "timeout"}}}, "scores": [0.5, 1.5]}),
            ),
            (
                TournamentStarted { id: "t1".into(), scheduled: 20 }.into(),
                json!({"id": "t1", "scheduled": 20}),
            ),
            (
                TournamentProgress { games: 1, id: "t1".into(), total: 20 }.into(),
                json!({"id": "t1", "games": 1, "total": 20}),
            ),
            (
                ReplayProgress {
                    request: RequestId::Number(7.into()),
                    op: "fit.run".into(),
                    decisions: 300,
                    total: 900,
                }
                .into(),
                json!({"request": 7, "op": "fit.run", "decisions": 300, "total": 900}),
            ),
        ];
        let names: Vec<&str> = kinds.iter().map(|(event, _)| event.name()).collect();
        assert_eq!(names, EVENTS, "one sample per kind");
        for (event, mut before) in kinds {
            let text = serde_json::to_string(&event).unwrap();
            assert!(text.starts_with(&format!(r#"{{"event":"{}","#, event.name())), "{text}");
            before["event"] = json!(event.name());
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), before);
            assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), event);
        }
    }

    #[test]
    fn a_record_without_a_forfeit_has_no_forfeit_field() {
        let record = GameRecord {
            failures: vec![],
            forfeit: None,
            scores: vec![1.0],
            steps: 1,
            summary: Value::Null,
        };
        assert!(serde_json::to_value(&record).unwrap().get("forfeit").is_none());
    }
}
