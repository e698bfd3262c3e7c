//! Where a match's transcript lines go while it plays: kept as values (a `match.run` reply, a
//! replay's comparison), or written straight into JSON-lines text when only the text is wanted
//! (tournament records, `yomi match --transcript`). Building a `Value` map for every decision,
//! action and event only to render it afterwards cost a tournament of tiny games about a
//! seventh of its time.

use serde::Serialize;
use serde_json::Value;

use super::transcript;

/// A transcript being written.
pub enum Log {
    Values(Vec<Value>),
    Text {
        text: Vec<u8>,
        /// Where the header line ends (what [`Log::keep_header_only`] keeps).
        header_end: usize,
    },
}

impl Log {
    /// An empty log of the kind asked for.
    pub fn new(as_text: bool) -> Log {
        if as_text {
            Log::Text { text: Vec::with_capacity(4096), header_end: 0 }
        } else {
            Log::Values(Vec::new())
        }
    }

    /// Appends a line. Its fields serialize in the order a `Value` map sorts them, so both kinds
    /// give the same text.
    pub fn push(&mut self, line: &impl Serialize) {
        match self {
            Log::Values(lines) => {
                lines.push(serde_json::to_value(line).expect("transcript lines serialize"))
            }
            Log::Text { text, .. } => {
                serde_json::to_writer(&mut *text, line).expect("transcript lines serialize");
                text.push(b'\n');
            }
        }
    }

    /// Appends a line already built as a value.
    pub fn push_value(&mut self, line: Value) {
        match self {
            Log::Values(lines) => lines.push(line),
            Log::Text { .. } => self.push(&line),
        }
    }

    /// Marks the lines so far as the header.
    pub fn end_header(&mut self) {
        if let Log::Text { text, header_end, .. } = self {
            *header_end = text.len();
        }
    }

    /// Drops every line after the header.
    pub fn keep_header_only(&mut self) {
        match self {
            Log::Values(lines) => lines.truncate(1),
            Log::Text { text, header_end } => text.truncate(*header_end),
        }
    }

    /// Where the log ends now: what [`Log::leave_out_since`] cuts back to.
    pub fn mark(&self) -> usize {
        match self {
            Log::Values(lines) => lines.len(),
            Log::Text { text, .. } => text.len(),
        }
    }

    /// Bytes of text written so far (a log of values is not measured: its text does not exist).
    pub fn text_bytes(&self) -> Option<u64> {
        match self {
            Log::Values(_) => None,
            Log::Text { text, .. } => Some(text.len() as u64),
        }
    }

    /// Replaces the lines written since `mark` (one game's) by one [`omitted`] line.
    pub fn leave_out_since(&mut self, mark: usize, limit: u64, why: &str) {
        let bytes = match self {
            Log::Values(lines) => {
                lines.truncate(mark);
                None
            }
            Log::Text { text, .. } => {
                let bytes = text.len() - mark;
                text.truncate(mark);
                Some(bytes)
            }
        };
        self.push_value(omitted(bytes, limit, why));
    }

    /// The lines as values.
    pub fn into_values(self) -> Vec<Value> {
        match self {
            Log::Values(lines) => lines,
            Log::Text { text, .. } => text
                .split(|&b| b == b'\n')
                .filter(|line| !line.is_empty())
                .map(|line| serde_json::from_slice(line).expect("the log wrote JSON"))
                .collect(),
        }
    }

    /// The lines as JSON-lines text.
    pub fn into_text(self) -> String {
        match self {
            Log::Values(lines) => transcript::render(&lines),
            Log::Text { text, .. } => String::from_utf8(text).expect("JSON is UTF-8"),
        }
    }
}

/// The line that stands for a game's transcript left out to keep a limit: how long it was (when
/// known), the limit and why (naming the flag that sets it), so a reader knows what to raise.
pub fn omitted(bytes: Option<usize>, limit: u64, why: &str) -> Value {
    let mut line = serde_json::json!({"type": "omitted", "limit": limit, "why": why});
    if let Some(bytes) = bytes {
        line["bytes"] = bytes.into();
    }
    line
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A line struct with its fields in sorted order, as the referee writes them.
    #[derive(Serialize)]
    struct Line<'a> {
        game: u32,
        observation: &'a Value,
        seat: usize,
        #[serde(rename = "type")]
        kind: &'static str,
    }

    #[test]
    fn both_kinds_write_the_same_transcript() {
        let observation = json!({"z": 1, "a": [1.5, null, "x"]});
        let write = |log: &mut Log| {
            log.push_value(json!({"type": "header", "games": 2}));
            log.end_header();
            log.push(&Line { game: 0, observation: &observation, seat: 1, kind: "decision" });
            log.push_value(json!({"type": "outcome", "scores": [0.5, 1e300]}));
        };
        let (mut values, mut text) = (Log::new(false), Log::new(true));
        write(&mut values);
        write(&mut text);
        let rendered = values.into_text();
        assert_eq!(rendered, text.into_text());
        assert!(rendered.contains(
            r#"{"game":0,"observation":{"a":[1.5,null,"x"],"z":1},"seat":1,"type":"decision"}"#
        ));

        let (mut values, mut text) = (Log::new(false), Log::new(true));
        write(&mut values);
        write(&mut text);
        values.keep_header_only();
        text.keep_header_only();
        assert_eq!(values.into_values(), text.into_values());
    }
}
