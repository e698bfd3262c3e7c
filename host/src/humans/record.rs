//! One recorded decision of a person (README, "Human records"): what the seat saw, what it could
//! do, what it did. Every line of an import is checked here, by hand rather than by serde, so
//! that each refusal names the line and the field.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use yomi_protocol::{ErrorCode, ErrorInfo};

/// The longest line an import reads: an observation of any shipped game is a few KiB.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The longest player label.
const MAX_LABEL_CHARS: usize = 200;

/// A decision as the data directory stores it. What the bot is handed (the observation, the
/// legal list, the events) is kept as JSON text: `humanlike` and `fit` hold a whole record set
/// while they replay it, and parsed into values a battle decision's took about 24 KB, as text
/// about 1 KB.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// The game's name, as `yomi bots` lists it.
    pub game: String,
    /// Which played game the decision belongs to; a play's decisions are stored in order.
    pub play: String,
    /// The seat that decided.
    pub seat: usize,
    /// What the seat saw, in the game's own JSON shape.
    pub observation: Box<RawValue>,
    /// The actions it could take.
    pub legal: Vec<Box<RawValue>>,
    /// The action it took.
    pub action: Value,
    /// The public events of the play since the seat's previous decision (what a bot in its seat
    /// would have been told), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Box<RawValue>>,
    /// How long the person took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_ms: Option<u64>,
    /// Who decided (a player name, a rating band ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
}

/// The fields an import line may have.
const FIELDS: &[&str] =
    &["game", "play", "seat", "observation", "legal", "action", "events", "think_ms", "player"];

/// The error for field `field` of line `line`.
fn bad(line: usize, field: &str, what: impl std::fmt::Display) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, format!("line {line}: `{field}`: {what}"))
}

/// Reads and checks one import line (`line` counts from 1). A line without `play` is a play of
/// its own, labelled by its line number.
pub fn parse_line(line: usize, text: &str) -> Result<Record, ErrorInfo> {
    if text.len() > MAX_LINE_BYTES {
        let message = format!("line {line}: longer than {MAX_LINE_BYTES} bytes");
        return Err(ErrorInfo::new(ErrorCode::LimitExceeded, message));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        ErrorInfo::new(ErrorCode::InvalidParams, format!("line {line}: not JSON: {e}"))
    })?;
    let Value::Object(mut fields) = value else {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("line {line}: a record is a JSON object"),
        ));
    };
    if let Some(unknown) = fields.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        let known = FIELDS.join(", ");
        return Err(bad(line, unknown, format_args!("not a record field (known: {known})")));
    }
    let mut take = |field: &str| fields.remove(field);
    let game = match take("game") {
        Some(Value::String(g)) if !g.is_empty() => g,
        Some(other) => return Err(bad(line, "game", format_args!("a game's name, not {other}"))),
        None => return Err(bad(line, "game", "missing")),
    };
    let play = match take("play") {
        None => format!("line{line}"),
        Some(Value::String(p)) if !p.is_empty() => p,
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(bad(line, "play", format_args!("a string or number, not {other}")))
        }
    };
    let seat = match take("seat") {
        None => 0,
        Some(v) => v
            .as_u64()
            .map(|s| s as usize)
            .ok_or_else(|| bad(line, "seat", format_args!("a seat number (0, 1 ...), not {v}")))?,
    };
    let observation = take("observation").ok_or_else(|| bad(line, "observation", "missing"))?;
    let legal = match take("legal") {
        Some(Value::Array(l)) if !l.is_empty() => l,
        Some(Value::Array(_)) => return Err(bad(line, "legal", "empty; a decision has a choice")),
        Some(other) => return Err(bad(line, "legal", format_args!("a list, not {other}"))),
        None => return Err(bad(line, "legal", "missing")),
    };
    let action = take("action").ok_or_else(|| bad(line, "action", "missing"))?;
    if !legal.iter().any(|entry| allows(entry, &action)) {
        return Err(bad(line, "action", format_args!("{action} is not one of `legal`")));
    }
    let events = match take("events") {
        None => Vec::new(),
        Some(Value::Array(e)) => e,
        Some(other) => return Err(bad(line, "events", format_args!("a list, not {other}"))),
    };
    let think_ms = match take("think_ms") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_f64().filter(|ms| *ms >= 0.0 && ms.is_finite()).ok_or_else(|| {
            bad(line, "think_ms", format_args!("milliseconds (a number from 0), not {v}"))
        })? as u64),
    };
    let player = match take("player") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.chars().count() <= MAX_LABEL_CHARS => Some(p),
        Some(other) => {
            let what = format!("a label of at most {MAX_LABEL_CHARS} characters, not {other}");
            return Err(bad(line, "player", what));
        }
    };
    let texts = |values: &[Value]| values.iter().map(raw).collect();
    let (observation, legal, events) = (raw(&observation), texts(&legal), texts(&events));
    Ok(Record { game, play, seat, observation, legal, action, events, think_ms, player })
}

/// A value as the JSON text a record keeps and a bot is handed (what `Call::Act` would write of
/// it).
pub fn raw(value: &impl Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("JSON values serialize")
}

/// Whether two concrete actions are the same move: equal, or one names the fixed amount the
/// other leaves out (a stud call, which its bots answer without the amount and a person's client
/// may send with it), so a recorded move is found in a bot's policy either way.
pub fn same_move(a: &Value, b: &Value) -> bool {
    allows(a, b) || allows(b, a)
}

/// Whether the legal entry `entry` allows `action`: it is the action; or it has a fixed
/// `amount` and the action is that object without it (stud's call, whose amount is the one due,
/// as its bots answer it); or it is a range (an object with numbers `min` and `max`, as stud's
/// bets) and the action is that object with an `amount` within it in their place.
pub fn allows(entry: &Value, action: &Value) -> bool {
    if entry == action {
        return true;
    }
    let (Value::Object(range), Value::Object(chosen)) = (entry, action) else { return false };
    let rest = |m: &Map<String, Value>, skip: &[&str]| -> Map<String, Value> {
        m.iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    if range.contains_key("amount") && !chosen.contains_key("amount") {
        return rest(range, &["amount"]) == *chosen;
    }
    let (Some(min), Some(max)) =
        (range.get("min").and_then(Value::as_f64), range.get("max").and_then(Value::as_f64))
    else {
        return false;
    };
    let Some(amount) = chosen.get("amount").and_then(Value::as_f64) else { return false };
    (min..=max).contains(&amount) && rest(range, &["min", "max"]) == rest(chosen, &["amount"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(value: Value) -> Result<Record, ErrorInfo> {
        parse_line(7, &value.to_string())
    }

    fn message(value: Value) -> String {
        line(value).unwrap_err().message
    }

    fn good() -> Value {
        json!({"game": "rps", "observation": {}, "legal": ["rock", "paper"], "action": "paper"})
    }

    #[test]
    fn a_minimal_line_is_a_play_of_its_own_at_seat_0() {
        let r = line(good()).unwrap();
        assert_eq!((r.play.as_str(), r.seat, r.think_ms, r.player), ("line7", 0, None, None));
        let mut full = good();
        full["play"] = json!(12);
        full["seat"] = json!(1);
        full["think_ms"] = json!(1500.4);
        full["player"] = json!("alice");
        full["events"] = json!([{"hands": ["rock", "rock"]}]);
        let r = line(full).unwrap();
        assert_eq!((r.play.as_str(), r.seat, r.think_ms), ("12", 1, Some(1500)));
        assert_eq!((r.player.as_deref(), r.events.len()), (Some("alice"), 1));
    }

    #[test]
    fn each_bad_line_is_refused_naming_its_line_and_field() {
        let with = |field: &str, value: Value| {
            let mut v = good();
            v[field] = value;
            message(v)
        };
        let without = |field: &str| {
            let mut v = good();
            v.as_object_mut().unwrap().remove(field);
            message(v)
        };
        assert_eq!(without("game"), "line 7: `game`: missing");
        assert_eq!(without("observation"), "line 7: `observation`: missing");
        assert_eq!(without("legal"), "line 7: `legal`: missing");
        assert_eq!(without("action"), "line 7: `action`: missing");
        assert_eq!(with("game", json!(3)), "line 7: `game`: a game's name, not 3");
        assert_eq!(with("legal", json!("rock")), "line 7: `legal`: a list, not \"rock\"");
        assert!(with("legal", json!([])).starts_with("line 7: `legal`: empty"));
        assert_eq!(
            with("action", json!("lizard")),
            "line 7: `action`: \"lizard\" is not one of `legal`"
        );
        assert!(with("seat", json!(-1)).starts_with("line 7: `seat`: a seat number"));
        assert!(with("think_ms", json!("slow")).starts_with("line 7: `think_ms`: milliseconds"));
        assert!(with("player", json!("x".repeat(201))).starts_with("line 7: `player`: a label"));
        assert!(with("events", json!({})).starts_with("line 7: `events`: a list"));
        assert!(with("legals", json!([])).starts_with("line 7: `legals`: not a record field"));
        assert!(parse_line(3, "{nope").unwrap_err().message.starts_with("line 3: not JSON"));
        assert_eq!(parse_line(3, "[1]").unwrap_err().message, "line 3: a record is a JSON object");
        let long = format!("\"{}\"", "x".repeat(MAX_LINE_BYTES));
        assert_eq!(parse_line(4, &long).unwrap_err().code, ErrorCode::LimitExceeded);
    }

    #[test]
    fn an_amount_within_a_listed_range_is_allowed() {
        let open = json!({"act": "open", "min": 1, "max": 36});
        assert!(allows(&open, &json!({"act": "open", "amount": 36})));
        assert!(!allows(&open, &json!({"act": "open", "amount": 37})));
        assert!(!allows(&open, &json!({"act": "raise", "amount": 3})));
        assert!(!allows(&json!({"act": "drop"}), &json!({"act": "drop", "amount": 1})));
        // A call may leave out the amount it must pay, as stud's bots answer it.
        let call = json!({"act": "call", "amount": 5});
        assert!(allows(&call, &json!({"act": "call"})));
        assert!(!allows(&call, &json!({"act": "call", "amount": 4})));
        assert!(!allows(&call, &json!({"act": "raise"})));
        assert!(
            same_move(&json!({"act": "call"}), &call) && same_move(&call, &json!({"act": "call"}))
        );
        assert!(!same_move(&json!({"act": "call", "amount": 4}), &call));
    }
}
