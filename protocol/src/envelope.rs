//! Request and reply envelopes: one JSON object per line each way (events are in
//! [`crate::events`]).

use std::borrow::Cow;
use std::collections::HashMap;

use schemars::JsonSchema;
use serde::de::value::MapDeserializer;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::error::Category;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ErrorInfo};

/// A request id as the client sent it: any JSON scalar except null, echoed verbatim in the reply
/// so clients can use whatever correlation scheme they already have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RequestId {
    /// An id sent as a JSON number, echoed with its digits unchanged.
    Number(serde_json::Number),
    /// An id sent as a JSON string.
    String(String),
    /// An id sent as `true` or `false`.
    Bool(bool),
}

/// A parsed request line: `{"id": .., "op": "..", ...params}`.
///
/// The operation's parameters are the remaining fields of the same object (flat, so a person can
/// type them). Each is kept as its JSON text, borrowed from the line, until the operation's own
/// parameter type reads it: a parameter is parsed once, straight into its type, instead of into a
/// `Value` tree that is then copied into the type (for a small `agent.act` that tree was a third
/// of the host's work).
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The client's correlation id, echoed in the reply and in nothing else.
    pub id: RequestId,
    /// The operation's name, e.g. `agent.act` (see [`crate::OPERATIONS`]).
    pub op: String,
    params: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> Request<'a> {
    /// Parses one line. On failure the error carries whatever id could be recovered, so the reply
    /// can still be correlated.
    pub fn parse(line: &'a str) -> Result<Request<'a>, (Option<RequestId>, ErrorInfo)> {
        // Nesting deeper than the limit takes twice as many brackets; short lines skip the scan.
        if line.len() > 2 * MAX_NESTING && nesting(line) > MAX_NESTING {
            let message =
                format!("line is not valid JSON: nested deeper than {MAX_NESTING} levels");
            return Err((None, ErrorInfo::new(ErrorCode::MalformedJson, message)));
        }
        let Fields(mut fields) = serde_json::from_str(line).map_err(|e| {
            let error = match e.classify() {
                Category::Data => {
                    ErrorInfo::new(ErrorCode::InvalidRequest, "a request must be a JSON object")
                }
                _ => {
                    ErrorInfo::new(ErrorCode::MalformedJson, format!("line is not valid JSON: {e}"))
                }
            };
            (None, error)
        })?;
        let mut take = |name: &str| {
            let at = fields.iter().position(|(key, _)| key == name)?;
            Some(fields.remove(at).1)
        };
        let (id, op) = (take("id"), take("op"));
        let id = match id.map(RawValue::get) {
            None | Some("null") => {
                return Err((
                    None,
                    ErrorInfo::new(
                        ErrorCode::InvalidRequest,
                        "request has no `id` (a string or number)",
                    ),
                ))
            }
            Some(id) => serde_json::from_str::<RequestId>(id).map_err(|_| {
                let message = "`id` must be a string, number or bool, not an array or object";
                (None, ErrorInfo::new(ErrorCode::InvalidRequest, message))
            })?,
        };
        let op = match op.map(|op| serde_json::from_str::<String>(op.get())) {
            Some(Ok(op)) => op,
            Some(Err(_)) => {
                return Err((
                    Some(id),
                    ErrorInfo::new(ErrorCode::InvalidRequest, "`op` must be a string"),
                ))
            }
            None => {
                return Err((
                    Some(id),
                    ErrorInfo::new(ErrorCode::InvalidRequest, "request has no `op`"),
                ))
            }
        };
        Ok(Request { id, op, params: fields })
    }

    /// Deserializes the parameters into an operation's typed parameter struct, each field read
    /// from its text. Unknown fields are ignored, as they always were.
    pub fn params<T: serde::Deserialize<'a>>(self) -> Result<T, ErrorInfo> {
        T::deserialize(MapDeserializer::<_, serde_json::Error>::new(self.params.into_iter()))
            .map_err(|e| {
                ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    format!("bad parameters for `{}`: {}", self.op, without_position(&e)),
                )
            })
    }

    /// The request as one JSON object.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        for (key, value) in &self.params {
            let value = serde_json::from_str(value.get()).expect("a parameter is valid JSON");
            map.insert(key.to_string(), value);
        }
        map.insert("id".into(), serde_json::to_value(&self.id).expect("ids serialize"));
        map.insert("op".into(), Value::String(self.op.clone()));
        Value::Object(map)
    }
}

/// The deepest nesting a request may have: what reading it into a `Value` allowed (serde_json's
/// recursion limit). Fields kept as text are only skipped over, which has no such limit.
const MAX_NESTING: usize = 128;

/// How deeply arrays and objects nest in `json` (outside strings); a quick scan, before parsing.
fn nesting(json: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for byte in json.bytes() {
        match (in_string, byte) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A JSON error's message without its position, which would count within a parameter's own text
/// rather than the line.
pub fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.line() == 0 {
        return text;
    }
    let position = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&position).map_or(text.clone(), str::to_string)
}

/// A request object's fields in order, each value as its text; a repeated field keeps its last
/// value, as a JSON object read into a map does.
struct Fields<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Fields<'de>, D::Error> {
        deserializer.deserialize_map(FieldsVisitor)
    }
}

struct FieldsVisitor;

/// How many fields a request may have before repeats are looked up in an index: requests have a
/// handful, for which a scan is quicker than hashing.
const SCANNED_FIELDS: usize = 16;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    /// A repeated field is found by a scan of the few fields a request has, and through an
    /// index once there are more than [`SCANNED_FIELDS`]: a scan alone made a line of many
    /// unknown fields cost time quadratic in their number (seconds for a 650 KB line).
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
        let mut fields: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
        let mut index: Option<HashMap<Cow<'de, str>, usize>> = None;
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value()?;
            let seen = match &index {
                Some(index) => index.get(&key).copied(),
                None => fields.iter().position(|(k, _)| *k == key),
            };
            if let Some(at) = seen {
                fields[at].1 = value;
                continue;
            }
            if let Some(index) = &mut index {
                index.insert(key.clone(), fields.len());
            }
            fields.push((key, value));
            if index.is_none() && fields.len() > SCANNED_FIELDS {
                let keys = fields.iter().enumerate().map(|(at, (key, _))| (key.clone(), at));
                index = Some(keys.collect());
            }
        }
        Ok(Fields(fields))
    }
}

/// A field name, borrowed from the line unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_string())))
    }
}

/// A reply to one request. `id` is `null` only when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    /// The request's id, so a client with many requests in flight can match the reply.
    pub id: Option<RequestId>,
    /// True on success: then `result` is set, else `error` is.
    pub ok: bool,
    /// What the operation returned; present only when `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why the request failed; present only when not `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

impl Reply {
    /// A success carrying the operation's result.
    pub fn ok(id: RequestId, result: Value) -> Reply {
        Reply { id: Some(id), ok: true, result: Some(result), error: None }
    }

    /// A failure; `id` is None when the request's own id could not be read.
    pub fn err(id: Option<RequestId>, error: ErrorInfo) -> Reply {
        Reply { id, ok: false, result: None, error: Some(error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_round_trips() {
        let req =
            Request::parse(r#"{"id":7,"op":"agent.act","agent":"a1","legal":[1,2]}"#).unwrap();
        assert_eq!(req.op, "agent.act");
        let value = req.to_value();
        assert_eq!(value["agent"], json!("a1"));
        let text = value.to_string();
        assert_eq!(Request::parse(&text).unwrap().to_value(), value);
    }

    #[test]
    fn parameters_are_typed_from_their_text_with_errors_as_before() {
        #[derive(Debug, Deserialize)]
        struct Act {
            agent: String,
            #[serde(default)]
            legal: Vec<Value>,
        }
        let line =
            r#"{"id":1,"op":"agent.act","agent":"a\u0031","legal":[1,{"a":[]}],"agent":"a2"}"#;
        let act: Act = Request::parse(line).unwrap().params().unwrap();
        assert_eq!(act.agent, "a2", "a repeated field keeps its last value");
        assert_eq!(act.legal, vec![json!(1), json!({"a": []})]);
        let escaped = r#"{"id":1,"op":"agent.act","\u0061gent":"a1"}"#;
        assert_eq!(Request::parse(escaped).unwrap().params::<Act>().unwrap().agent, "a1");
        let message =
            |line: &str| Request::parse(line).unwrap().params::<Act>().unwrap_err().message;
        assert_eq!(
            message(r#"{"id":1,"op":"agent.act","agent":5}"#),
            "bad parameters for `agent.act`: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            message(r#"{"id":1,"op":"agent.act"}"#),
            "bad parameters for `agent.act`: missing field `agent`"
        );
    }

    #[test]
    fn many_fields_keep_the_last_of_each_repeat_past_the_index() {
        #[derive(Debug, Deserialize)]
        struct Agent {
            agent: String,
        }
        let mut line = String::from(r#"{"id":1,"op":"agent.act","agent":"first""#);
        for key in 0..100 {
            line.push_str(&format!(r#","k{key}":{key},"k{}":0"#, key % 7));
        }
        line.push_str(r#","agent":"last"}"#);
        let request = Request::parse(&line).unwrap();
        assert_eq!(request.params.len(), 101, "agent and k0..k99, each once");
        let k3 = request.params.iter().find(|(key, _)| key == "k3").unwrap().1.get();
        assert_eq!(k3, "0", "the last of k3's repeats");
        assert_eq!(request.params::<Agent>().unwrap().agent, "last");
    }

    #[test]
    fn nesting_counts_brackets_outside_strings() {
        assert_eq!(nesting(r#"{"a":[1,{"b":"[[[{"}],"c":"\\\"{"}"#), 3);
        assert_eq!(nesting("[]"), 1);
        assert_eq!(nesting("1"), 0);
        let deep =
            format!("{{\"id\":1,\"op\":\"ping\",\"x\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(Request::parse(&deep).unwrap_err().1.code, ErrorCode::MalformedJson);
    }

    #[test]
    fn string_ids_are_echoed() {
        let req = Request::parse(r#"{"id":"abc","op":"ping"}"#).unwrap();
        let reply = Reply::ok(req.id, json!({}));
        let text = serde_json::to_string(&reply).unwrap();
        assert_eq!(text, r#"{"id":"abc","ok":true,"result":{}}"#);
    }

    #[test]
    fn bad_lines_get_codes() {
        assert_eq!(Request::parse("{nope").unwrap_err().1.code, ErrorCode::MalformedJson);
        assert_eq!(Request::parse("[1]").unwrap_err().1.code, ErrorCode::InvalidRequest);
        assert_eq!(
            Request::parse(r#"{"op":"ping"}"#).unwrap_err().1.code,
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            Request::parse(r#"{"id":[1],"op":"ping"}"#).unwrap_err().1.code,
            ErrorCode::InvalidRequest
        );
        let (id, err) = Request::parse(r#"{"id":3,"op":5}"#).unwrap_err();
        assert_eq!(id, Some(RequestId::Number(3.into())));
        assert_eq!(err.code, ErrorCode::InvalidRequest);
    }

    #[test]
    fn error_reply_round_trips() {
        let reply = Reply::err(None, ErrorInfo::new(ErrorCode::UnknownOp, "no such op"));
        let text = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply>(&text).unwrap(), reply);
        assert!(text.contains(r#""code":"unknown_op""#));
    }
}
