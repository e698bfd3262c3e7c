//! One connection: read framed lines, answer each through the session, write replies and events.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use yomi_protocol::{ErrorCode, ErrorInfo, Reply};

use super::framing::Line;
use super::input::{Input, Next};
use crate::ops;
use crate::runtime::config::Shared;
use crate::runtime::limits::{Limits, OUTBOX_LINES};
use crate::runtime::outbox::Outbox;
use crate::session::Session;

/// How long a request already running at shutdown (or when a TCP client's input ends) may take to
/// finish before it is abandoned.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Serves one client until it hangs up, breaks a limit, or the server shuts down. `remote`: a TCP
/// client (idle and line timeouts apply) rather than the parent process on stdio.
pub async fn serve<R, W>(
    reader: R,
    writer: W,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    peer: &str,
    remote: bool,
) where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let limits = shared.config.limits.clone();
    let max_line = shared.config.max_line_bytes;
    let (outbox, queue) = Outbox::new(OUTBOX_LINES);
    // Cancelled when the writer gives up on the client: nothing more can reach it.
    let unwritable = CancellationToken::new();
    let mut writer = tokio::spawn(write_lines(
        writer,
        queue,
        Limits::enabled(limits.write_timeout),
        unwritable.clone(),
        peer.to_string(),
    ));
    let mut input = Input::new(reader, max_line, &limits, remote);
    let grace_start = OnceLock::new();
    let mut session = Session::new(shared, outbox.clone());
    tracing::debug!(peer, "session started");
    loop {
        let next = tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = unwritable.cancelled() => break,
            next = input.next(|| session.is_idle()) => next,
        };
        let reply = match next {
            Next::HungUp => break,
            Next::Close(reason) => {
                tracing::warn!(peer, "closing the connection: {reason}");
                break;
            }
            Next::Line(Line::Text(text)) if text.trim().is_empty() => continue,
            Next::Line(Line::Text(text)) => {
                let work = ops::handle_line(&mut session, &text);
                tokio::select! {
                    reply = work => match reply {
                        Some(reply) => reply,
                        None => continue,
                    },
                    // A bot that never answers must not keep the server from shutting down ...
                    _ = grace_expired(&shutdown, &grace_start) => {
                        tracing::warn!(peer, "shutting down with a request still running; abandoning it");
                        break;
                    }
                    // ... nor a gone client's connection slot.
                    _ = ended_beyond_grace(&mut input) => {
                        tracing::warn!(peer, "client input ended with a request still running; abandoning it");
                        break;
                    }
                    _ = unwritable.cancelled() => break,
                }
            }
            Next::Line(Line::TooLong) => Reply::err(
                None,
                ErrorInfo::new(
                    ErrorCode::LineTooLong,
                    format!("line longer than {max_line} bytes; it was skipped"),
                ),
            ),
            Next::Line(Line::NotUtf8) => Reply::err(
                None,
                ErrorInfo::new(ErrorCode::MalformedJson, "line is not UTF-8; it was skipped"),
            ),
        };
        // A full outbox means the client is not reading: wait for room (the writer closes the
        // connection after --write-timeout), but never past shutdown.
        let sent = tokio::select! {
            biased;
            sent = outbox.reply(&reply) => sent.is_ok(),
            _ = unwritable.cancelled() => false,
            _ = shutdown.cancelled() => false,
        };
        if !sent {
            break;
        }
    }
    session.close().await;
    // The session holds a sender too: both must go for the writer to see the end of the queue.
    drop(session);
    drop(outbox);
    // Replies already queued still go out, unless the client does not take them by the end of
    // the shutdown grace.
    tokio::select! {
        _ = &mut writer => {}
        _ = grace_expired(&shutdown, &grace_start) => {
            tracing::warn!(peer, "shutting down with replies the client has not read; dropping them");
            writer.abort();
        }
    }
    tracing::debug!(peer, "session ended");
}

/// Completes [`SHUTDOWN_GRACE`] after this connection first saw the shutdown, however often it
/// is awaited: the whole connection, not each step of its closing, gets one grace.
async fn grace_expired(shutdown: &CancellationToken, start: &OnceLock<Instant>) {
    shutdown.cancelled().await;
    let start = *start.get_or_init(Instant::now);
    tokio::time::sleep_until(start + SHUTDOWN_GRACE).await;
}

/// Completes [`SHUTDOWN_GRACE`] after a TCP client's input ended. A half-closed client still gets
/// the replies that are ready within the grace; a gone one frees its slot after it.
async fn ended_beyond_grace<R: AsyncRead + Unpin>(input: &mut Input<R>) {
    input.until_ended().await;
    tokio::time::sleep(SHUTDOWN_GRACE).await;
}

/// Writes queued lines until the queue ends, a write fails, or the client has not taken a line
/// for `write_timeout`; then cancels `unwritable`.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queue: mpsc::Receiver<String>,
    write_timeout: Option<Duration>,
    unwritable: CancellationToken,
    peer: String,
) {
    while let Some(mut line) = queue.recv().await {
        line.push('\n');
        // Flush when nothing else is queued, so pipelined replies go out in one write.
        let flush = queue.is_empty();
        let write = async {
            writer.write_all(line.as_bytes()).await?;
            if flush {
                writer.flush().await?;
            }
            std::io::Result::Ok(())
        };
        let written = match write_timeout {
            Some(limit) => tokio::time::timeout(limit, write).await,
            None => Ok(write.await),
        };
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(peer, "write failed: {e}");
                break;
            }
            Err(_) => {
                tracing::warn!(
                    peer,
                    "closing the connection: the client took no reply for {} s and {} more are queued (--write-timeout)",
                    write_timeout.unwrap_or_default().as_secs_f64(),
                    queue.len()
                );
                break;
            }
        }
    }
    unwritable.cancel();
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, writer.shutdown()).await;
}
