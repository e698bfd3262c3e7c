//! The HTTP listener: the protocol over WebSocket (`GET /ws`), the playground (`GET /`) and a
//! health check (`GET /healthz`), all on one port.
//!
//! A WebSocket is bridged onto the very same per-connection loop as a TCP client
//! ([`connection::serve`]) through an in-memory pipe: each text frame becomes one request line and
//! each reply or event line goes back as one text frame. Limits, error codes, ordering and events
//! are therefore identical on every transport.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use yomi_protocol::{ErrorCode, ErrorInfo, Reply};

use super::{connection, web, Shared};

/// Bytes buffered in each direction of the pipe between a WebSocket and its session.
const PIPE_BYTES: usize = 64 * 1024;

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
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/", get(|| asset("index.html")))
        .route(
            "/*path",
            get(|axum::extract::Path(path): axum::extract::Path<String>| asset_owned(path)),
        )
        .with_state(state);
    // No Nagle delay: a reply frame goes out at once, as on the TCP transport.
    let served = axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .tcp_nodelay(true)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await;
    if let Err(e) = served {
        tracing::warn!("HTTP listener failed: {e}");
    }
    sessions.close();
    sessions.wait().await;
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
            bridge(socket, http.shared, http.shutdown, format!("ws:{peer}")).await;
        })
    })
}

/// Runs one protocol session over a WebSocket until either side ends it.
async fn bridge(socket: WebSocket, shared: Arc<Shared>, shutdown: CancellationToken, peer: String) {
    let (client_end, session_end) = tokio::io::duplex(PIPE_BYTES);
    let (session_in, session_out) = tokio::io::split(session_end);
    let session = tokio::spawn(async move {
        connection::serve(session_in, session_out, shared, shutdown, &peer).await;
    });
    let (client_out, mut client_in) = tokio::io::split(client_end);
    let (sink, stream) = socket.split();
    // Replies about frames the session never sees (binary frames) join the outgoing frames.
    let (notes, notes_queue) = mpsc::channel::<String>(16);
    let sender = tokio::spawn(send_frames(sink, client_out, notes_queue));
    let receiver = tokio::spawn(async move {
        receive_frames(stream, &mut client_in, notes).await;
        // End of input for the session: it answers what it has, then ends.
        let _ = client_in.shutdown().await;
    });
    // The session ends at the client's close or the server's shutdown; then the sender drains the
    // last replies and closes the socket.
    let _ = session.await;
    receiver.abort();
    let _ = sender.await;
}

/// Turns incoming frames into request lines for the session.
async fn receive_frames<W>(
    mut stream: futures_util::stream::SplitStream<WebSocket>,
    lines: &mut W,
    notes: mpsc::Sender<String>,
) where
    W: tokio::io::AsyncWrite + Unpin,
{
    while let Some(frame) = stream.next().await {
        let text = match frame {
            Ok(Message::Text(text)) => text,
            Ok(Message::Binary(_)) => {
                let reply = Reply::err(
                    None,
                    ErrorInfo::new(
                        ErrorCode::InvalidRequest,
                        "binary frames are not accepted; send each request as a JSON text frame",
                    ),
                );
                let _ = notes.send(serde_json::to_string(&reply).expect("replies serialize")).await;
                continue;
            }
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            Ok(Message::Close(_)) => break,
            Err(e) => {
                // An abrupt close or a frame over the WebSocket size limit.
                tracing::debug!("websocket read ended: {e}");
                break;
            }
        };
        if lines.write_all(one_line(&text).as_bytes()).await.is_err() {
            break;
        }
    }
}

/// One frame as one request line. Raw line breaks can only be JSON whitespace (a JSON string
/// cannot hold one), so pretty-printed JSON in a frame stays one request.
fn one_line(frame: &str) -> String {
    let mut line: String =
        frame.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    line.push('\n');
    line
}

/// Sends each line the session writes (and each note) as a text frame; closes the socket at the
/// end of the session's output.
async fn send_frames<R>(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    output: R,
    mut notes: mpsc::Receiver<String>,
) where
    R: tokio::io::AsyncRead + Unpin,
{
    let mut lines = BufReader::new(output).lines();
    let mut open = true;
    loop {
        let text = tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(line)) => line,
                _ => break,
            },
            Some(note) = notes.recv() => note,
        };
        // After the client is gone keep reading, so the session never blocks on a full pipe.
        if open && sink.send(Message::Text(text)).await.is_err() {
            open = false;
        }
    }
    if open {
        let close = CloseFrame { code: 1000, reason: "session ended".into() };
        let _ = sink.send(Message::Close(Some(close))).await;
    }
}
