//! A child's stderr, copied into this server's log within bounds, its last lines kept for errors.
//!
//! An engine is a program the operator named, but what it writes is not trusted to be small: one
//! that prints a megabyte of stderr at every call would otherwise fill the log and the disk under
//! it. Each line is cut to a length, and the lines logged are rate-limited (so many lines and
//! bytes a second); what does not fit is counted and said in one "N bytes dropped" line. The last
//! few lines are kept whatever the rate, so that an engine that dies says why in the error its
//! client gets (Python's "can't open file", a traceback's last line).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

use crate::registry::engines::StderrLimits;

/// Lines kept for the error of a child that died.
const TAIL_LINES: usize = 20;
/// Bytes kept for the error of a child that died (each line cut to this as well).
const TAIL_BYTES: usize = 4096;

/// The last lines a child wrote on stderr, for the error saying it died.
#[derive(Debug)]
pub struct Tail {
    lines: Mutex<VecDeque<String>>,
    /// Turns true once stderr is at its end (every writer gone).
    ended: watch::Receiver<bool>,
}

impl Tail {
    /// The last lines, oldest first, once stderr ended or `wait` passed (a grandchild may hold
    /// the pipe open).
    pub async fn last_lines(&self, wait: Duration) -> Vec<String> {
        let mut ended = self.ended.clone();
        let _ = tokio::time::timeout(wait, ended.wait_for(|e| *e)).await;
        self.lines.lock().unwrap().iter().cloned().collect()
    }

    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap();
        lines.push_back(line);
        while lines.len() > TAIL_LINES || lines.iter().map(String::len).sum::<usize>() > TAIL_BYTES
        {
            lines.pop_front();
        }
    }
}

/// Copies `stderr` into the log, each line tagged `engine=NAME`, within `limits`; returns the
/// tail it keeps.
pub fn copy_to_log(
    engine: String,
    stderr: impl AsyncRead + Unpin + Send + 'static,
    limits: StderrLimits,
) -> Arc<Tail> {
    let (ended_tx, ended) = watch::channel(false);
    let tail = Arc::new(Tail { lines: Mutex::default(), ended });
    let kept = tail.clone();
    tokio::spawn(async move {
        let mut copier =
            Copier::new(limits, |line: &str| tracing::info!(engine = %engine, "{line}"));
        let mut buf = vec![0u8; 8192];
        let mut stderr = stderr;
        while let Ok(n @ 1..) = stderr.read(&mut buf).await {
            for line in copier.feed(&buf[..n], Instant::now()) {
                kept.push(line);
            }
        }
        if let Some(line) = copier.finish() {
            kept.push(line);
        }
        let _ = ended_tx.send(true);
    });
    tail
}

/// `text` cut to at most `bytes` bytes, at a character's boundary.
fn cut_to(mut text: String, bytes: usize) -> String {
    if text.len() > bytes {
        let mut end = bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// Splits bytes into lines, cuts them, and logs those the rate allows.
struct Copier<L: FnMut(&str)> {
    limits: StderrLimits,
    log: L,
    /// The line being read, at most `line_bytes` of it.
    line: Vec<u8>,
    /// Bytes of the line being read past `line_bytes`.
    cut: usize,
    /// The second the rate is counted in, and what was logged in it.
    second: Option<Instant>,
    lines_logged: u32,
    bytes_logged: usize,
    /// Bytes of whole lines not logged (over the rate) since the last note saying so.
    dropped: usize,
}

impl<L: FnMut(&str)> Copier<L> {
    fn new(limits: StderrLimits, log: L) -> Self {
        Copier {
            limits,
            log,
            line: Vec::new(),
            cut: 0,
            second: None,
            lines_logged: 0,
            bytes_logged: 0,
            dropped: 0,
        }
    }

    /// Takes what was read; returns the lines it ended (cut), for the tail.
    fn feed(&mut self, bytes: &[u8], now: Instant) -> Vec<String> {
        let mut ended = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let (part, newline) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], Some(i)),
                None => (rest, None),
            };
            let room = self.limits.line_bytes.saturating_sub(self.line.len());
            let taken = part.len().min(room);
            self.line.extend_from_slice(&part[..taken]);
            self.cut += part.len() - taken;
            match newline {
                Some(i) => {
                    ended.push(self.end_line(now));
                    rest = &rest[i + 1..];
                }
                None => rest = &[],
            }
        }
        ended
    }

    /// Logs the line read so far, if the rate allows, and starts the next; returns it (cut to
    /// the tail's size) for the tail.
    fn end_line(&mut self, now: Instant) -> String {
        let size = self.line.len() + self.cut;
        let mut text = String::from_utf8_lossy(&self.line).into_owned();
        if text.ends_with('\r') {
            text.pop();
        }
        if self.cut > 0 {
            text.push_str(&format!(" … ({} bytes cut)", self.cut));
        }
        self.line.clear();
        self.cut = 0;
        if self.second.is_none_or(|s| now.duration_since(s) >= Duration::from_secs(1)) {
            self.second = Some(now);
            self.lines_logged = 0;
            self.bytes_logged = 0;
        }
        let fits = self.lines_logged < self.limits.lines_per_second
            && self.bytes_logged + text.len() <= self.limits.bytes_per_second;
        if fits {
            self.note_dropped();
            (self.log)(&text);
            self.lines_logged += 1;
            self.bytes_logged += text.len();
        } else {
            self.dropped += size + 1;
        }
        cut_to(text, TAIL_BYTES)
    }

    /// Says how much was dropped since the last note, if anything.
    fn note_dropped(&mut self) {
        if self.dropped > 0 {
            let limits = self.limits;
            (self.log)(&format!(
                "[{} bytes of stderr dropped: over {} lines or {} bytes a second]",
                self.dropped, limits.lines_per_second, limits.bytes_per_second
            ));
            self.dropped = 0;
        }
    }

    /// At the end of stderr: the last line if it had no newline, and the note of what was dropped.
    fn finish(mut self) -> Option<String> {
        let last = (!self.line.is_empty() || self.cut > 0).then(|| self.end_line(Instant::now()));
        self.note_dropped();
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` at `now` into a copier with `limits`; returns what it logged and the tail.
    fn copy(limits: StderrLimits, input: &[(&[u8], Duration)]) -> (Vec<String>, Vec<String>) {
        let mut logged = Vec::new();
        let mut tail = Vec::new();
        let start = Instant::now();
        let mut copier = Copier::new(limits, |line: &str| logged.push(line.to_string()));
        for (bytes, at) in input {
            tail.extend(copier.feed(bytes, start + *at));
        }
        tail.extend(copier.finish());
        (logged, tail)
    }

    #[test]
    fn a_long_line_is_cut_and_says_how_much() {
        let limits = StderrLimits { line_bytes: 8, ..StderrLimits::default() };
        let (logged, tail) = copy(limits, &[(b"0123456789abc\nshort\r\nlast", Duration::ZERO)]);
        assert_eq!(logged, ["01234567 … (5 bytes cut)", "short", "last"]);
        assert_eq!(tail, logged, "the tail keeps what was logged");
    }

    #[test]
    fn lines_over_the_rate_are_dropped_and_counted_then_logging_resumes() {
        let limits = StderrLimits { line_bytes: 100, lines_per_second: 2, bytes_per_second: 1000 };
        let second = Duration::from_secs(1);
        let (logged, tail) =
            copy(limits, &[(b"a\nb\nccc\ndd\n", Duration::ZERO), (b"e\n", second)]);
        let note = "[7 bytes of stderr dropped: over 2 lines or 1000 bytes a second]";
        assert_eq!(logged, ["a", "b", note, "e"]);
        assert_eq!(tail, ["a", "b", "ccc", "dd", "e"], "the tail keeps every line");
        let bytes = StderrLimits { line_bytes: 100, lines_per_second: 100, bytes_per_second: 5 };
        let (logged, _) = copy(bytes, &[(b"abc\ndefg\n", Duration::ZERO)]);
        assert_eq!(
            logged[..],
            [
                "abc".to_string(),
                "[5 bytes of stderr dropped: over 100 lines or 5 bytes a second]".to_string()
            ]
        );
    }

    #[test]
    fn the_tail_keeps_the_last_twenty_lines_within_four_kilobytes() {
        let tail = Tail { lines: Mutex::default(), ended: watch::channel(true).1 };
        (0..30).for_each(|i| tail.push(format!("line {i}")));
        let lines = tail.lines.lock().unwrap().clone();
        assert_eq!((lines.len(), lines[0].as_str()), (TAIL_LINES, "line 10"));
        (0..3).for_each(|_| tail.push("x".repeat(2000)));
        assert_eq!(tail.lines.lock().unwrap().len(), 2, "two long lines fit in 4 KB");
    }
}
