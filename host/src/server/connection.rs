//! One connection: read framed lines, answer each through the session, write replies and events.

use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::{Sink, SinkExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Instant;
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use yomi_protocol::{ErrorCode, ErrorInfo, Reply};

use super::admit::Ticket;
use super::framing::{BoundedLines, Line};
use super::input::{Frames, Input, Next};
use crate::ops;
use crate::runtime::auth::{Access, Role};
use crate::runtime::config::Shared;
use crate::runtime::executor;
use crate::runtime::limits::{Limits, OUTBOX_LINES};
use crate::runtime::outbox::{Outbox, Queue};
use crate::session::Session;

/// How long a request already running at shutdown (or when a TCP client's input ends) may take to
/// finish before it is abandoned.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Who is at the other end of a connection.
#[derive(Debug, Clone)]
pub struct Client {
    /// A network client (idle, line and handshake timeouts apply) rather than the parent
    /// process on stdio.
    pub remote: bool,
    /// What it may do before giving a token.
    pub access: Access,
    /// A network client's address.
    pub address: Option<IpAddr>,
    /// Its connection slot, which a newcomer may take over until it shows a token.
    pub slot: Option<Arc<Ticket>>,
}

impl Client {
    /// The parent process on stdio: an operator, never timed out.
    pub const STDIO: Client = Client {
        remote: false,
        access: Access::Granted(Role::Operator),
        address: None,
        slot: None,
    };
}

/// Keeps the client's slot once it has shown a token (or needed none).
fn trust_once_authenticated(client: &Client, session: &Session) {
    if let (Some(slot), Some(_)) = (&client.slot, session.role()) {
        slot.trust();
    }
}

/// Resolves when `token` is cancelled; never without one.
async fn until_cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Serves one client of a byte stream until it hangs up, breaks a limit, or the server shuts
/// down. A TCP client that sends an HTTP request line or header is cut off at once (a web page
/// posting to the TCP port: the cross-protocol attack).
pub async fn serve<R, W>(
    reader: R,
    writer: W,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    peer: &str,
    client: Client,
) where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let lines = FramedRead::new(reader, BoundedLines::new(shared.config.max_line_bytes));
    let write_timeout = Limits::enabled(shared.config.limits.write_timeout);
    let who = peer.to_string();
    let deliver =
        move |queue, unwritable| write_lines(writer, queue, write_timeout, unwritable, who);
    serve_frames(lines, deliver, shared, shutdown, peer, client).await;
}

/// Serves one client given as its request frames and a task that delivers the outgoing messages
/// (replies and events, in order) from a queue, cancelling the token it is given when the client
/// can take no more. Every transport shares this loop, its limits and its error codes.
pub async fn serve_frames<F, D, Fut>(
    frames: F,
    deliver: D,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    peer: &str,
    client: Client,
) where
    F: Frames,
    D: FnOnce(Queue, CancellationToken) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let limits = shared.config.limits.clone();
    let (outbox, queue) = Outbox::with_bytes(OUTBOX_LINES, limits.max_outbox_bytes);
    // Cancelled when the writer gives up on the client: nothing more can reach it.
    let unwritable = CancellationToken::new();
    let mut writer = tokio::spawn(deliver(queue, unwritable.clone()));
    let max_line = shared.config.max_line_bytes;
    let short_line = limits.max_unauthenticated_line_bytes.min(max_line);
    let mut conn = Conn {
        input: Input::new(frames, &limits, client.remote),
        max_line,
        short_line,
        outbox: outbox.clone(),
        unwritable,
        shutdown,
        grace_start: OnceLock::new(),
        peer,
    };
    let mut session = Session::with_access(shared, outbox, client.access, client.address);
    // Until it gives its token a client may only send short lines (see `short_line`).
    let mut authenticated = session.role().is_some();
    if !authenticated {
        conn.input.limit_lines(short_line);
    }
    // A client without a token gets a short while to give one, so strangers hold no slot.
    let handshake = Limits::enabled(limits.handshake_timeout).filter(|_| client.remote);
    let handshake_end = handshake.map(|limit| Instant::now() + limit);
    let calls = executor::Client::connected();
    let evicted = client.slot.as_ref().map(|slot| slot.evicted());
    trust_once_authenticated(&client, &session);
    tracing::debug!(peer, "session started");
    loop {
        let unauthenticated = handshake_end.filter(|_| session.role().is_none());
        let (next, scope) = calls
            .wait(async {
                tokio::select! {
                    _ = conn.shutdown.cancelled() => None,
                    _ = conn.unwritable.cancelled() => None,
                    _ = until_cancelled(evicted.as_ref()) => Some(Next::Close(
                        "the server is full and a new client took the slot of this connection, \
                         which had given no token"
                            .into(),
                    )),
                    _ = until(unauthenticated) => Some(Next::Close(format!(
                        "no token given within {} s (--handshake-timeout)",
                        handshake.unwrap_or_default().as_secs_f64()
                    ))),
                    next = conn.input.next(|| session.is_idle()) => Some(next),
                }
            })
            .await;
        let step = match next {
            None | Some(Next::HungUp) => Step::Stop,
            Some(Next::Close(reason)) => {
                tracing::warn!(peer, "closing the connection: {reason}");
                Step::Stop
            }
            Some(Next::Line(Line::Text(text))) if text.trim().is_empty() => Step::Next,
            Some(Next::Line(Line::Text(text))) if client.remote && looks_like_http(&text) => {
                tracing::warn!(peer, "closing the connection: it sent HTTP, not JSON lines (a web page posting to the TCP port?)");
                Step::Stop
            }
            Some(Next::Line(Line::Text(text))) if !authenticated && text.len() > short_line => {
                Step::Reply(conn.refusal(Line::TooLong, authenticated))
            }
            Some(Next::Line(Line::Text(text))) => {
                let step = conn.answer(&mut session, scope, &text).await;
                if !authenticated && session.role().is_some() {
                    authenticated = true;
                    conn.input.limit_lines(max_line);
                    trust_once_authenticated(&client, &session);
                }
                step
            }
            Some(Next::Line(unreadable)) => Step::Reply(conn.refusal(unreadable, authenticated)),
        };
        let reply = match step {
            Step::Reply(reply) => reply,
            Step::Next => continue,
            Step::Stop => break,
        };
        if !conn.send(&reply).await {
            break;
        }
        if session.access == Access::Refused {
            tracing::warn!(peer, "closing the connection: it gave a wrong token");
            break;
        }
    }
    session.close().await;
    // The session and the connection hold the queue's senders: both must go for the writer to
    // see the end of the queue.
    drop(session);
    let Conn { shutdown, grace_start, outbox, .. } = conn;
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

/// What the connection loop does after a line.
enum Step {
    /// Send this reply, then read on.
    Reply(Reply),
    /// Nothing to send (a blank line, or a reply that comes later): read on.
    Next,
    /// The connection is over.
    Stop,
}

/// One connection's input and output, beside its session.
struct Conn<'p, F: Frames> {
    input: Input<F>,
    max_line: usize,
    /// The longest line of a client that has not given its token
    /// (`--max-unauthenticated-line-bytes`): it may only say `hello` or `ping`, so a long line
    /// is refused unread and costs no parsing.
    short_line: usize,
    outbox: Outbox,
    /// Cancelled when the writer gives up on the client.
    unwritable: CancellationToken,
    shutdown: CancellationToken,
    /// When this connection first saw the shutdown (see [`grace_expired`]).
    grace_start: OnceLock<Instant>,
    peer: &'p str,
}

impl<F: Frames> Conn<'_, F> {
    /// Answers a request line. While it runs the connection reads on: a cancel is answered at
    /// once (from a client that may make requests at all), other lines wait their turn.
    async fn answer(&mut self, session: &mut Session, scope: executor::Scope, text: &str) -> Step {
        let peer = self.peer;
        let requests = session.requests.clone();
        let may_cancel = session.role().is_some();
        let urgent = |line: &str| may_cancel && ops::cancel::is_cancel(line);
        let mut work = pin!(ops::handle_line(session, text, scope));
        loop {
            tokio::select! {
                // The work first: its first poll registers the request, which a cancel read in
                // the same wake-up must find.
                biased;
                reply = &mut work => return reply.map_or(Step::Next, Step::Reply),
                // A bot that never answers must not keep the server from shutting down ...
                _ = grace_expired(&self.shutdown, &self.grace_start) => {
                    tracing::warn!(peer, "shutting down with a request still running; abandoning it");
                    return Step::Stop;
                }
                ahead = cancel_or_gone(&mut self.input, urgent) => match ahead {
                    Some(cancel) => {
                        let input = &mut self.input;
                        let drop_queued = |pick: &mut dyn FnMut(&str) -> bool| input.drop_queued(pick);
                        for reply in ops::cancel::urgent(&requests, &cancel, drop_queued) {
                            if !self.send(&reply).await {
                                return Step::Stop;
                            }
                        }
                    }
                    // ... nor a gone client's connection slot.
                    None => {
                        tracing::warn!(peer, "client input ended with a request still running; abandoning it");
                        return Step::Stop;
                    }
                },
                _ = self.unwritable.cancelled() => return Step::Stop,
            }
        }
    }

    /// The reply to a line that is not a request's text.
    fn refusal(&self, line: Line, authenticated: bool) -> Reply {
        let error = match line {
            Line::TooLong if authenticated => ErrorInfo::new(
                ErrorCode::LineTooLong,
                format!("line longer than {} bytes; it was skipped", self.max_line),
            ),
            Line::TooLong => ErrorInfo::new(
                ErrorCode::LineTooLong,
                format!(
                    "line longer than {} bytes before a token was given \
                     (--max-unauthenticated-line-bytes); it was skipped: send `hello` first",
                    self.short_line
                ),
            ),
            Line::NotUtf8 => {
                ErrorInfo::new(ErrorCode::MalformedJson, "line is not UTF-8; it was skipped")
            }
            Line::Binary => ErrorInfo::new(
                ErrorCode::InvalidRequest,
                "binary frames are not accepted; send each request as a JSON text frame",
            ),
            Line::Text(_) => unreachable!("a text line is a request"),
        };
        Reply::err(None, error)
    }

    /// Queues a reply. A full outbox means the client is not reading: waits for room (the writer
    /// closes the connection after --write-timeout), but never past shutdown. False when the
    /// client can take nothing more.
    async fn send(&self, reply: &Reply) -> bool {
        tokio::select! {
            biased;
            sent = self.outbox.reply(reply) => sent.is_ok(),
            _ = self.unwritable.cancelled() => false,
            _ = self.shutdown.cancelled() => false,
        }
    }
}

/// Completes at `deadline`, never without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Whether a request line is an HTTP request line (`POST / HTTP/1.1`) or header (`Host: ...`).
/// A JSON request starts with `{`, so that costs one byte's look.
fn looks_like_http(line: &str) -> bool {
    if !line.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let word = line.split([' ', ':']).next().unwrap_or_default();
    let rest = &line[word.len()..];
    let header =
        rest.starts_with(':') && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let request = rest.starts_with(' ') && word.bytes().all(|b| b.is_ascii_uppercase());
    header || request
}

/// Waits for a listener's sessions to end after the shutdown: each has [`SHUTDOWN_GRACE`] to
/// finish its request, but one whose reactor thread a bot holds in line cannot even notice its
/// grace, so the wait is bounded.
pub async fn wait_for_sessions(sessions: &TaskTracker) {
    let bound = SHUTDOWN_GRACE + Duration::from_secs(1);
    if tokio::time::timeout(bound, sessions.wait()).await.is_err() {
        tracing::warn!(
            "{} sessions held by bots that never returned; not waiting for them",
            sessions.len()
        );
    }
}

/// Completes [`SHUTDOWN_GRACE`] after this connection first saw the shutdown, however often it
/// is awaited: the whole connection, not each step of its closing, gets one grace.
async fn grace_expired(shutdown: &CancellationToken, start: &OnceLock<Instant>) {
    shutdown.cancelled().await;
    let start = *start.get_or_init(Instant::now);
    tokio::time::sleep_until(start + SHUTDOWN_GRACE).await;
}

/// Reads ahead while a request runs (see [`Input::read_ahead`]): the next cancel, or `None`
/// [`SHUTDOWN_GRACE`] after a network client's input ended. A half-closed client still gets the
/// replies that are ready within the grace; a gone one frees its slot after it.
async fn cancel_or_gone<F: Frames>(
    input: &mut Input<F>,
    urgent: impl Fn(&str) -> bool,
) -> Option<String> {
    let cancel = input.read_ahead(urgent).await;
    if cancel.is_none() {
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    }
    cancel
}

/// Writes queued lines to a byte stream, one per line; see [`deliver`].
async fn write_lines<W: AsyncWrite + Unpin>(
    writer: W,
    queue: Queue,
    write_timeout: Option<Duration>,
    unwritable: CancellationToken,
    peer: String,
) {
    let lines: FramedWrite<W, LinesCodec> = FramedWrite::new(writer, LinesCodec::new());
    if let Some(mut lines) = deliver(lines, queue, write_timeout, &unwritable, &peer).await {
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, SinkExt::<String>::close(&mut lines)).await;
    }
}

/// Sends queued messages into `sink` until the queue ends (then hands the sink back for its
/// transport's closing), a send fails, or the client has not taken a message for
/// `write_timeout`; in every case cancels `unwritable`, so the session stops. Every transport's
/// writer is this loop.
pub async fn deliver<S>(
    mut sink: S,
    mut queue: Queue,
    write_timeout: Option<Duration>,
    unwritable: &CancellationToken,
    peer: &str,
) -> Option<S>
where
    S: Sink<String> + Unpin,
    S::Error: std::fmt::Display,
{
    let mut ended = true;
    while let Some(message) = queue.recv().await {
        // Flush when nothing else is queued, so pipelined replies go out in one write.
        let flush = queue.is_empty();
        let send = async {
            sink.feed(message).await?;
            if flush {
                sink.flush().await?;
            }
            Ok::<(), S::Error>(())
        };
        let sent = match write_timeout {
            Some(limit) => tokio::time::timeout(limit, send).await,
            None => Ok(send.await),
        };
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(peer, "write failed: {e}");
                ended = false;
                break;
            }
            Err(_) => {
                tracing::warn!(
                    peer,
                    "closing the connection: the client took no reply for {} s and {} more are queued (--write-timeout)",
                    write_timeout.unwrap_or_default().as_secs_f64(),
                    queue.len()
                );
                ended = false;
                break;
            }
        }
    }
    unwritable.cancel();
    ended.then_some(sink)
}

#[cfg(test)]
mod tests {
    use super::looks_like_http;

    #[test]
    fn http_request_lines_and_headers_are_spotted_and_json_is_not() {
        for http in [
            "POST / HTTP/1.1",
            "GET /ws HTTP/1.1",
            "Host: 127.0.0.1:7878",
            "content-type: text/plain",
        ] {
            assert!(looks_like_http(http), "{http}");
        }
        for other in [r#"{"id":1,"op":"ping"}"#, "  {}", "null", "hello world", "Get / x", ":"] {
            assert!(!looks_like_http(other), "{other}");
        }
    }
}
