//! The HTTP listener: the protocol over WebSocket (`GET /ws`), the playground (`GET /`), a health
//! check (`GET /healthz`) and the Prometheus metrics (`GET /metrics`), all on one port.
//!
//! A WebSocket is served by the very same per-connection loop as a TCP client
//! ([`connection::serve_frames`]): each text frame is one request line and each reply or event goes
//! back as one text frame. Limits, error codes, ordering and events are therefore identical on
//! every transport.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::stream::SplitSink;
use futures_util::task::AtomicWaker;
use futures_util::{Sink, SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::framing::Line;
use super::input::WholeFrames;
use super::{connection, web};
use crate::runtime::config::Shared;
use crate::runtime::limits::Limits;
use crate::runtime::metrics;

/// What the HTTP handlers share.
#[derive(Clone)]
struct Http {
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    /// The WebSocket sessions served at once (`--max-connections`, counted apart from TCP's).
    slots: Arc<Semaphore>,
    sessions: TaskTracker,
}

/// Serves HTTP until shutdown, then waits for the open WebSocket sessions to end.
pub async fn serve_http(listener: TcpListener, shared: Arc<Shared>, shutdown: CancellationToken) {
    let slots = Arc::new(Semaphore::new(shared.config.max_connections));
    let state = Http { shared, shutdown: shutdown.clone(), slots, sessions: TaskTracker::new() };
    let sessions = state.sessions.clone();
    let mut app = Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/", get(|| asset("index.html")))
        .route(
            "/*path",
            get(|axum::extract::Path(path): axum::extract::Path<String>| asset_owned(path)),
        )
        .with_state(state);
    match metrics::scrape() {
        Ok(scrape) => app = app.route("/metrics", scrape),
        Err(e) => tracing::warn!("no /metrics on the HTTP port: {e}"),
    }
    // No Nagle delay: a reply frame goes out at once, as on the TCP transport.
    let served = axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .tcp_nodelay(true)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await;
    if let Err(e) = served {
        tracing::warn!("HTTP listener failed: {e}");
    }
    sessions.close();
    connection::wait_for_sessions(&sessions).await;
}

async fn asset_owned(path: String) -> Response {
    asset(&path).await
}

/// One embedded playground file, or 404.
async fn asset(path: &str) -> Response {
    match web::file(path) {
        Some(file) => ([(header::CONTENT_TYPE, file.content_type)], file.body).into_response(),
        None => (StatusCode::NOT_FOUND, format!("no such page: /{path}\n")).into_response(),
    }
}

async fn upgrade(
    ws: WebSocketUpgrade,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    State(http): State<Http>,
) -> Response {
    // Frames far above the line limit are refused by the WebSocket layer itself (the socket is
    // closed with "message too big"); those up to 4× the limit get the protocol's own
    // `line_too_long` reply and the session goes on, as on TCP.
    let frame_limit = http.shared.config.max_line_bytes.saturating_mul(4).max(64 * 1024);
    ws.max_message_size(frame_limit).max_frame_size(frame_limit).on_upgrade(move |socket| {
        let sessions = http.sessions.clone();
        sessions.track_future(async move {
            // Like TCP: a client past the connection limit waits until a session ends.
            let Ok(_slot) = http.slots.clone().acquire_owned().await else { return };
            let _open = metrics::connection("websocket");
            bridge(socket, http.shared, http.shutdown, format!("ws:{peer}")).await;
        })
    })
}

/// Runs one protocol session over a WebSocket until either side ends it: each text frame is one
/// request for the same session loop as a TCP line, each reply or event one text frame.
async fn bridge(socket: WebSocket, shared: Arc<Shared>, shutdown: CancellationToken, peer: String) {
    let limit = shared.config.max_line_bytes;
    let (sink, stream) = socket.split();
    let frames = stream.take_while(|frame| {
        std::future::ready(match frame {
            Ok(Message::Close(_)) => false,
            Ok(_) => true,
            Err(e) => {
                // An abrupt close, or a frame over the WebSocket layer's own size limit.
                tracing::debug!("websocket read ended: {e}");
                false
            }
        })
    });
    let requests = frames.filter_map(move |frame| {
        std::future::ready(match frame {
            Ok(Message::Text(text)) if text.len() > limit => Some(Ok(Line::TooLong)),
            Ok(Message::Text(text)) => Some(Ok(Line::Text(text))),
            Ok(Message::Binary(_)) => Some(Ok(Line::Binary)),
            // Pings are answered by the WebSocket layer itself.
            _ => None,
        })
    });
    let write_timeout = Limits::enabled(shared.config.limits.write_timeout);
    let who = peer.clone();
    let deliver = move |queue, unwritable| send_frames(sink, queue, write_timeout, unwritable, who);
    let requests = WholeFrames(Box::pin(requests));
    connection::serve_frames(requests, deliver, shared, shutdown, &peer, true).await;
}

/// Sends each queued reply or event as a text frame (see [`connection::deliver`]); closes the
/// socket when the session ends.
async fn send_frames(
    sink: SplitSink<WebSocket, Message>,
    queue: mpsc::Receiver<String>,
    write_timeout: Option<Duration>,
    unwritable: CancellationToken,
    peer: String,
) {
    let frames = QuietSink::new(sink)
        .with(|text: String| std::future::ready(Ok::<_, axum::Error>(Message::Text(text))));
    if let Some(frames) =
        connection::deliver(frames, queue, write_timeout, &unwritable, &peer).await
    {
        let close = CloseFrame { code: 1000, reason: "session ended".into() };
        let _ = frames.into_inner().send(Message::Close(Some(close))).await;
    }
}

/// The socket's sending half, woken only while it is waiting for the socket.
///
/// The WebSocket layer (tokio-tungstenite) wakes every task that last touched the socket whenever
/// it becomes readable, so each request frame would also wake the writer task, which finds its
/// queue empty; with two tasks runnable, tokio wakes a second worker thread to steal one, and a
/// round trip pays for cross-thread wake-ups (futex calls). This sink hands the WebSocket layer a
/// waker that passes a wake-up on only while one of its own polls is pending.
struct QuietSink<S> {
    inner: S,
    gate: Arc<Gate>,
}

/// The writer task's waker, and whether the writer is waiting on the socket.
#[derive(Default)]
struct Gate {
    waiting: AtomicBool,
    writer: AtomicWaker,
}

impl Wake for Gate {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.waiting.load(Ordering::SeqCst) {
            self.writer.wake();
        }
    }
}

impl<S> QuietSink<S> {
    fn new(inner: S) -> QuietSink<S> {
        QuietSink { inner, gate: Arc::default() }
    }
}

impl<S: Unpin> QuietSink<S> {
    /// Polls the inner sink under the gate: marked waiting before the poll (so a wake-up racing
    /// with it is passed on), not waiting once it is ready.
    fn gated<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        self.gate.writer.register(cx.waker());
        self.gate.waiting.store(true, Ordering::SeqCst);
        let waker = Waker::from(self.gate.clone());
        let outcome = poll(Pin::new(&mut self.inner), &mut Context::from_waker(&waker));
        if outcome.is_ready() {
            self.gate.waiting.store(false, Ordering::SeqCst);
        }
        outcome
    }
}

impl<S: Sink<Message> + Unpin> Sink<Message> for QuietSink<S> {
    type Error = S::Error;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.get_mut().gated(cx, |inner, cx| inner.poll_ready(cx))
    }

    fn start_send(self: Pin<&mut Self>, message: Message) -> Result<(), S::Error> {
        Pin::new(&mut self.get_mut().inner).start_send(message)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.get_mut().gated(cx, |inner, cx| inner.poll_flush(cx))
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.get_mut().gated(cx, |inner, cx| inner.poll_close(cx))
    }
}
