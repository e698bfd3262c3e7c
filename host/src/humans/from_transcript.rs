//! yomi's own transcripts as human records: a match with a client seat already holds a person's
//! decisions, what they saw and how long they took. Each decision a seat answered (not one
//! played for it after a failure) becomes an import line, checked as any other.

use serde_json::{json, Value};
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::record::{parse_line, Record};

/// Whether `text` is a transcript: its first line is a transcript header.
pub fn is_transcript(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    serde_json::from_str::<Value>(first).is_ok_and(|v| v["type"] == "header")
}

/// The records of a transcript's client seats, or of every seat when it has none (a match of
/// bots recorded as if people had played). A client seat's time to answer is its `think_ms`; a
/// bot's computing time is not a person's, so its records carry none. Plays are labelled by the
/// match seed and game number; events go to the next decision of every seat.
pub fn records(text: &str) -> Result<Vec<Record>, ErrorInfo> {
    let lines = crate::matches::transcript::parse(text)?;
    let header = &lines[0];
    let game = header["game"].as_str().unwrap_or_default().to_string();
    let seats = header["seats"].as_array().cloned().unwrap_or_default();
    let clients: Vec<bool> = seats.iter().map(|s| s.get("client").is_some()).collect();
    let taken = |seat: usize| !clients.contains(&true) || clients.get(seat) == Some(&true);
    let player = |seat: usize| {
        let s = seats.get(seat);
        s.and_then(|s| s.get("client").or_else(|| s.get("bot")))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let seed = header["seed"].clone();
    let mut pending: Vec<Option<Value>> = vec![None; seats.len()];
    let mut unseen: Vec<Vec<Value>> = vec![Vec::new(); seats.len()];
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        let seat = line["seat"].as_u64().map(|s| s as usize);
        match (line["type"].as_str(), seat) {
            (Some("game"), _) => {
                pending.iter_mut().for_each(|p| *p = None);
                unseen.iter_mut().for_each(Vec::clear);
            }
            (Some("decision"), Some(seat)) if seat < seats.len() => {
                pending[seat] = Some(line.clone());
            }
            (Some("action"), Some(seat)) if seat < seats.len() => {
                let Some(decision) = pending[seat].take() else { continue };
                let events = std::mem::take(&mut unseen[seat]);
                if !taken(seat) || !line["failure"].is_null() {
                    continue;
                }
                let mut record = json!({
                    "game": game,
                    "play": format!("{seed}/{}", line["game"]),
                    "seat": seat,
                    "observation": decision["observation"],
                    "legal": decision["legal"],
                    "action": line["action"],
                    "events": events,
                    "player": player(seat),
                });
                if clients[seat] {
                    record["think_ms"] = line["ms"].clone();
                }
                out.push(parse_line(number, &record.to_string())?);
            }
            (Some("event"), _) => unseen.iter_mut().for_each(|u| u.push(line["event"].clone())),
            _ => {}
        }
    }
    if out.is_empty() {
        let message = "the transcript holds no decision a seat answered";
        return Err(ErrorInfo::new(ErrorCode::InvalidParams, message));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = r#"{"type":"header","game":"rps","seed":3,"seats":[{"client":"alice"},{"bot":"example/rps"}]}
{"type":"game","game":0,"seed":1}
{"type":"decision","game":0,"seat":0,"observation":{"round":1},"legal":["rock","paper"]}
{"type":"decision","game":0,"seat":1,"observation":{"round":1},"legal":["rock","paper"]}
{"type":"action","game":0,"seat":0,"action":"paper","failure":null,"ms":830}
{"type":"action","game":0,"seat":1,"action":"rock","failure":null,"ms":0}
{"type":"event","game":0,"event":{"hands":["paper","rock"]}}
{"type":"decision","game":0,"seat":0,"observation":{"round":2},"legal":["rock","paper"]}
{"type":"action","game":0,"seat":0,"action":"rock","failure":"timeout","ms":5000}
{"type":"outcome","game":0,"scores":[1,0]}
"#;

    #[test]
    fn a_client_seats_answered_decisions_become_records_with_its_time() {
        assert!(is_transcript(TRANSCRIPT));
        assert!(!is_transcript(r#"{"game":"rps"}"#));
        let records = records(TRANSCRIPT).unwrap();
        assert_eq!(records.len(), 1, "the bot's seat and the timed-out decision are left out");
        let r = &records[0];
        assert_eq!((r.play.as_str(), r.seat, r.think_ms), ("3/0", 0, Some(830)));
        assert_eq!((r.action.clone(), r.player.as_deref()), (json!("paper"), Some("alice")));
        let bots_only = TRANSCRIPT.replace(r#"{"client":"alice"}"#, r#"{"bot":"example/rps"}"#);
        let all = super::records(&bots_only).unwrap();
        assert_eq!(all.len(), 2, "no client seat: every seat's answered decisions");
        assert!(
            all.iter().all(|r| r.think_ms.is_none()),
            "a bot's computing time is not a person's"
        );
    }

    #[test]
    fn a_bad_transcript_line_is_named() {
        let bad = TRANSCRIPT.replace(r#""action":"paper""#, r#""action":"lizard""#);
        let e = records(&bad).unwrap_err();
        assert_eq!(e.message, "line 5: `action`: \"lizard\" is not one of `legal`");
    }
}
