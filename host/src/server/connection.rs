//! One connection: read framed lines, answer each through the session, write replies and events.

use std::future::Future;
use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;
use yomi_protocol::{ErrorCode, ErrorInfo, Reply};

use super::framing::{BoundedLines, Line};
use crate::ops;
use crate::runtime::config::Shared;
use crate::runtime::outbox::Outbox;
use crate::session::Session;

/// Serves one client of a byte stream (stdio, TCP) until it hangs up or the server shuts down.
pub async fn serve<R, W>(
    reader: R,
    writer: W,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    peer: &str,
) where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let lines = FramedRead::new(reader, BoundedLines::new(shared.config.max_line_bytes));
    serve_lines(lines, |queue| write_lines(writer, queue), shared, shutdown, peer).await;
}

/// Serves one client given as a stream of framed requests and a task that delivers the outgoing
/// messages (replies and events, in order) from a queue; so every transport shares this loop,
/// its limits and its error codes.
pub async fn serve_lines<S, F, Fut>(
    mut lines: S,
    deliver: F,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    peer: &str,
) where
    S: Stream<Item = std::io::Result<Line>> + Unpin,
    F: FnOnce(mpsc::Receiver<String>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (outbox, queue) = Outbox::new(1024);
    let writer = tokio::spawn(deliver(queue));
    let limit = shared.config.max_line_bytes;
    let mut session = Session::new(shared, outbox.clone());
    tracing::debug!(peer, "session started");
    loop {
        let line = tokio::select! {
            _ = shutdown.cancelled() => break,
            line = lines.next() => line,
        };
        let reply = match line {
            None => break,
            Some(Err(e)) => {
                tracing::warn!(peer, "read failed: {e}");
                break;
            }
            Some(Ok(Line::Text(text))) if text.trim().is_empty() => continue,
            Some(Ok(Line::Text(text))) => match tokio::select! {
                reply = ops::handle_line(&mut session, &text) => reply,
                // A bot that never answers must not keep the server from shutting down.
                _ = grace_expired(&shutdown) => {
                    tracing::warn!(peer, "shutting down with a request still running; abandoning it");
                    break;
                }
            } {
                Some(reply) => reply,
                None => continue,
            },
            Some(Ok(Line::TooLong)) => Reply::err(
                None,
                ErrorInfo::new(
                    ErrorCode::LineTooLong,
                    format!("line longer than {limit} bytes; it was skipped"),
                ),
            ),
            Some(Ok(Line::NotUtf8)) => Reply::err(
                None,
                ErrorInfo::new(ErrorCode::MalformedJson, "line is not UTF-8; it was skipped"),
            ),
            Some(Ok(Line::Binary)) => Reply::err(
                None,
                ErrorInfo::new(
                    ErrorCode::InvalidRequest,
                    "binary frames are not accepted; send each request as a JSON text frame",
                ),
            ),
        };
        if outbox.reply(&reply).await.is_err() {
            break;
        }
    }
    session.close().await;
    // The session holds a sender too: both must go for the writer to see the end of the queue.
    drop(session);
    drop(outbox);
    let _ = writer.await;
    tracing::debug!(peer, "session ended");
}

/// How long a request already running at shutdown may take to finish before it is abandoned.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Completes [`SHUTDOWN_GRACE`] after shutdown starts.
async fn grace_expired(shutdown: &CancellationToken) {
    shutdown.cancelled().await;
    tokio::time::sleep(SHUTDOWN_GRACE).await;
}

async fn write_lines<W: AsyncWrite + Unpin>(mut writer: W, mut queue: mpsc::Receiver<String>) {
    while let Some(mut line) = queue.recv().await {
        line.push('\n');
        if writer.write_all(line.as_bytes()).await.is_err() {
            break;
        }
        // Flush when nothing else is queued, so pipelined replies go out in one write.
        if queue.is_empty() && writer.flush().await.is_err() {
            break;
        }
    }
    let _ = writer.shutdown().await;
}
