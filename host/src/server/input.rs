//! Reading one client's request lines under the idle and line timeouts, and noticing a hang-up
//! while a request is still running (so a stuck bot call does not keep the connection's slot).

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use tokio::io::AsyncRead;
use tokio::time::Instant;
use tokio_util::codec::FramedRead;

use super::framing::{BoundedLines, Line};
use crate::runtime::limits::{Limits, OUTBOX_LINES};

/// A client's requests as frames: the lines of a byte stream (stdio, TCP) or the text messages of
/// a WebSocket.
pub trait Frames: Stream<Item = std::io::Result<Line>> + Unpin {
    /// Part of a request has arrived but not its end (what the line timeout watches).
    fn has_partial(&self) -> bool;

    /// Reads lines of at most `limit` bytes from now on, where the transport frames them itself
    /// (a WebSocket's messages arrive whole, under its own frame limit).
    fn limit_lines(&mut self, limit: usize);
}

impl<R: AsyncRead + Unpin> Frames for FramedRead<R, BoundedLines> {
    fn has_partial(&self) -> bool {
        !self.read_buffer().is_empty()
    }

    fn limit_lines(&mut self, limit: usize) {
        self.decoder_mut().set_limit(limit);
    }
}

/// Frames that arrive whole (WebSocket messages): a request is never partial.
pub struct WholeFrames<S>(pub S);

impl<S: Stream<Item = std::io::Result<Line>> + Unpin> Stream for WholeFrames<S> {
    type Item = std::io::Result<Line>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_next_unpin(cx)
    }
}

impl<S: Stream<Item = std::io::Result<Line>> + Unpin> Frames for WholeFrames<S> {
    fn has_partial(&self) -> bool {
        false
    }

    fn limit_lines(&mut self, _limit: usize) {}
}

/// What reading produced next.
#[derive(Debug)]
pub enum Next {
    Line(Line),
    /// The client hung up (clean end of input).
    HungUp,
    /// The connection must close; the reason goes to the log.
    Close(String),
}

/// How often a waiting reader looks at its timers. Bounds how late a timeout fires.
const TICK: Duration = Duration::from_millis(250);

/// The request lines of one connection.
pub struct Input<F> {
    lines: F,
    /// Lines that arrived while a request was running, answered next in order.
    early: VecDeque<Line>,
    /// Their bytes, bounded like the outgoing queue's (`--max-outbox-bytes`).
    early_bytes: usize,
    max_early_bytes: usize,
    /// The end of input, seen while a request was running.
    ended: Option<Next>,
    idle_timeout: Option<Duration>,
    line_timeout: Option<Duration>,
    /// A TCP client rather than the parent process on stdio.
    remote: bool,
}

impl<F: Frames> Input<F> {
    /// `remote`: a network client, to which the idle and line timeouts of `limits` apply (the
    /// parent process on stdio owns its pipe and may keep it quiet as long as it likes).
    pub fn new(lines: F, limits: &Limits, remote: bool) -> Input<F> {
        let timeout = |t| if remote { Limits::enabled(t) } else { None };
        Input {
            lines,
            early: VecDeque::new(),
            early_bytes: 0,
            max_early_bytes: limits.max_outbox_bytes,
            ended: None,
            idle_timeout: timeout(limits.idle_timeout),
            line_timeout: timeout(limits.line_timeout),
            remote,
        }
    }

    /// The next line. `may_idle_out` says whether the idle timeout applies right now (not while
    /// the session has matches or tournaments running).
    pub async fn next(&mut self, may_idle_out: impl Fn() -> bool) -> Next {
        if let Some(line) = self.early.pop_front() {
            self.early_bytes -= line_bytes(&line);
            return Next::Line(line);
        }
        if let Some(end) = self.ended.take() {
            return end;
        }
        if self.idle_timeout.is_none() && self.line_timeout.is_none() {
            return read(&mut self.lines).await;
        }
        let waiting_since = Instant::now();
        let mut partial_since: Option<Instant> = None;
        loop {
            tokio::select! {
                next = read(&mut self.lines) => return next,
                _ = tokio::time::sleep(TICK) => {}
            }
            let now = Instant::now();
            if !self.lines.has_partial() {
                partial_since = None;
                if let Some(idle) = self.idle_timeout {
                    if now - waiting_since >= idle && may_idle_out() {
                        return Next::Close(format!(
                            "no request for {} s (--idle-timeout)",
                            idle.as_secs_f64()
                        ));
                    }
                }
            } else if let Some(limit) = self.line_timeout {
                // A line has begun: it must end within the limit of when it was first seen.
                if now - *partial_since.get_or_insert(now) >= limit {
                    return Next::Close(format!(
                        "a request line was not finished within {} s (--line-timeout)",
                        limit.as_secs_f64()
                    ));
                }
            }
        }
    }

    /// Reads ahead while a request runs; lines that arrive meanwhile are kept for [`Input::next`],
    /// except those `urgent` picks (a `cancel`), which are returned at once to be answered before
    /// the queue. Completes with `None` only when a network client's input ended (hung up, or
    /// half-closed: the two look alike) or failed; the parent process on stdio may close its
    /// end and still get its answers. Stops reading once [`OUTBOX_LINES`] lines or
    /// `--max-outbox-bytes` bytes wait, so a pipelining client cannot grow them without bound.
    pub async fn read_ahead(&mut self, urgent: impl Fn(&str) -> bool) -> Option<String> {
        loop {
            if self.ended.is_some() {
                return match self.remote {
                    true => None,
                    false => std::future::pending().await,
                };
            }
            if self.early.len() >= OUTBOX_LINES || self.early_bytes >= self.max_early_bytes {
                return std::future::pending().await;
            }
            match read(&mut self.lines).await {
                Next::Line(Line::Text(text)) if urgent(&text) => return Some(text),
                Next::Line(line) => {
                    self.early_bytes += line_bytes(&line);
                    self.early.push_back(line);
                }
                end => self.ended = Some(end),
            }
        }
    }

    /// Reads request lines of at most `limit` bytes from now on (see [`Frames::limit_lines`]).
    pub fn limit_lines(&mut self, limit: usize) {
        self.lines.limit_lines(limit);
    }

    /// Removes the queued request lines `drop` picks (a cancel's targets).
    pub fn drop_queued(&mut self, drop: &mut dyn FnMut(&str) -> bool) {
        let mut dropped = 0;
        self.early.retain(|line| match line {
            Line::Text(text) if drop(text) => {
                dropped += text.len();
                false
            }
            _ => true,
        });
        self.early_bytes -= dropped;
    }
}

/// What a line read ahead holds in memory.
fn line_bytes(line: &Line) -> usize {
    match line {
        Line::Text(text) => text.len(),
        _ => 0,
    }
}

/// One frame, as a [`Next`]. Cancel-safe: a partial line stays in the framed reader's buffer.
async fn read<F: Frames>(lines: &mut F) -> Next {
    match lines.next().await {
        None => Next::HungUp,
        Some(Ok(line)) => Next::Line(line),
        Some(Err(e)) => Next::Close(format!("read failed: {e}")),
    }
}
