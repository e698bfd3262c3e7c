//! Request, reply and event envelopes: one JSON object per line each way.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ErrorInfo};

/// A request id as the client sent it: any JSON scalar except null, echoed verbatim in the reply
/// so clients can use whatever correlation scheme they already have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(serde_json::Number),
    String(String),
    Bool(bool),
}

/// A parsed request line: `{"id": .., "op": "..", ...params}`.
///
/// The operation's parameters are the remaining fields of the same object (flat, so a person can
/// type them), kept as a map until the operation's own parser takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: RequestId,
    pub op: String,
    pub params: Map<String, Value>,
}

impl Request {
    /// Parses one line. On failure the error carries whatever id could be recovered, so the reply
    /// can still be correlated.
    pub fn parse(line: &str) -> Result<Request, (Option<RequestId>, ErrorInfo)> {
        let value: Value = serde_json::from_str(line).map_err(|e| {
            (None, ErrorInfo::new(ErrorCode::MalformedJson, format!("line is not valid JSON: {e}")))
        })?;
        Self::from_value(value)
    }

    /// Builds a request from an already-parsed JSON value.
    pub fn from_value(value: Value) -> Result<Request, (Option<RequestId>, ErrorInfo)> {
        let Value::Object(mut map) = value else {
            return Err((
                None,
                ErrorInfo::new(ErrorCode::InvalidRequest, "a request must be a JSON object"),
            ));
        };
        let id = match map.remove("id") {
            None | Some(Value::Null) => {
                return Err((
                    None,
                    ErrorInfo::new(
                        ErrorCode::InvalidRequest,
                        "request has no `id` (a string or number)",
                    ),
                ))
            }
            Some(v) => match serde_json::from_value::<RequestId>(v) {
                Ok(id) => id,
                Err(_) => {
                    return Err((
                        None,
                        ErrorInfo::new(
                            ErrorCode::InvalidRequest,
                            "`id` must be a string, number or bool, not an array or object",
                        ),
                    ))
                }
            },
        };
        let op = match map.remove("op") {
            Some(Value::String(op)) => op,
            Some(_) => {
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
        Ok(Request { id, op, params: map })
    }

    /// Deserializes the parameters into an operation's typed parameter struct. Consumes the
    /// request, so the parameter map moves into the struct instead of being copied.
    pub fn params<T: serde::de::DeserializeOwned>(self) -> Result<T, ErrorInfo> {
        serde_json::from_value(Value::Object(self.params)).map_err(|e| {
            ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("bad parameters for `{}`: {e}", self.op),
            )
        })
    }

    /// The request as one JSON object (the inverse of [`Request::from_value`]).
    pub fn to_value(&self) -> Value {
        let mut map = self.params.clone();
        map.insert("id".into(), serde_json::to_value(&self.id).expect("ids serialize"));
        map.insert("op".into(), Value::String(self.op.clone()));
        Value::Object(map)
    }
}

/// A reply to one request. `id` is `null` only when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: Option<RequestId>,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

impl Reply {
    pub fn ok(id: RequestId, result: Value) -> Reply {
        Reply { id: Some(id), ok: true, result: Some(result), error: None }
    }

    pub fn err(id: Option<RequestId>, error: ErrorInfo) -> Reply {
        Reply { id, ok: false, result: None, error: Some(error) }
    }
}

/// An unsolicited message from the host (match progress, a seat's turn...). Events have no id;
/// `event` names the kind and the other fields are its payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub event: String,
    #[serde(flatten)]
    pub body: Map<String, Value>,
}

impl Event {
    /// Builds an event from a name and a JSON object payload (a non-object payload is put under `data`).
    pub fn new(event: impl Into<String>, body: Value) -> Event {
        let body = match body {
            Value::Object(map) => map,
            other => {
                let mut map = Map::new();
                map.insert("data".into(), other);
                map
            }
        };
        Event { event: event.into(), body }
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
        assert_eq!(req.params["agent"], json!("a1"));
        let again = Request::from_value(req.to_value()).unwrap();
        assert_eq!(again, req);
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

    #[test]
    fn events_flatten_their_body() {
        let ev = Event::new("match.progress", json!({"games": 3}));
        let text = serde_json::to_string(&ev).unwrap();
        assert_eq!(text, r#"{"event":"match.progress","games":3}"#);
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), ev);
    }
}
