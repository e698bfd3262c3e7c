//! Transcripts: a match as JSON lines (a header, then every game's decisions, actions, events and
//! outcome, then the result) — reading, parsing and writing the text.

use std::path::Path;

use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// Reads a transcript file into its lines, naming the first line that is not a JSON object.
pub fn read(path: &Path) -> Result<Vec<Value>, ErrorInfo> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ErrorInfo::new(ErrorCode::NotFound, format!("{}: {e}", path.display())))?;
    parse(&text).map_err(|e| ErrorInfo::new(e.code, format!("{}: {}", path.display(), e.message)))
}

/// Parses transcript text.
pub fn parse(text: &str) -> Result<Vec<Value>, ErrorInfo> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line).map_err(|e| {
            ErrorInfo::new(ErrorCode::InvalidParams, format!("line {}: not JSON: {e}", i + 1))
        })?;
        if value.get("type").and_then(Value::as_str).is_none() {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("line {}: a transcript line needs a `type`", i + 1),
            ));
        }
        lines.push(value);
    }
    match lines.first() {
        Some(h) if h["type"] == "header" => Ok(lines),
        _ => Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            "line 1: a transcript starts with its header",
        )),
    }
}

/// Renders transcript lines as JSON-lines text (written straight into one buffer: going through
/// `Display` for each line cost a tournament of tiny games a tenth of its time).
pub fn render(lines: &[Value]) -> String {
    let mut text = Vec::with_capacity(lines.len() * 128);
    for line in lines {
        serde_json::to_writer(&mut text, line).expect("transcript lines serialize");
        text.push(b'\n');
    }
    String::from_utf8(text).expect("JSON is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_transcripts_name_the_line() {
        let e = parse("{\"type\":\"header\"}\n{\"type\":\"game\"}\nnot json\n").unwrap_err();
        assert!(e.message.starts_with("line 3:"), "{}", e.message);
        let e = parse("{\"type\":\"game\"}\n").unwrap_err();
        assert!(e.message.starts_with("line 1:"), "{}", e.message);
        let e = parse("{\"type\":\"header\"}\n[1]\n").unwrap_err();
        assert!(e.message.starts_with("line 2:"), "{}", e.message);
    }
}
