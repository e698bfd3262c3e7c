//! The HTTP listener: the protocol over WebSocket (`GET /ws`), the playground (`GET /`) with the
//! loaded plugins' views (`GET /plugins/<name>/view.js`), a health check (`GET /healthz`) and
//! the Prometheus metrics (`GET /metrics`), all on one port.
//!
//! A WebSocket is served by the very same per-connection loop as a TCP client
//! ([`connection::serve_frames`]): each text frame is one request line and each reply or event goes
//! back as one text frame. Limits, error codes, ordering and events are therefore identical on
//! every transport.
//!
//! The listener accepts its own connections (rather than `axum::serve`) to bound them: at most
//! `--max-connections` at once, a client beyond that told the server is full, and request
//! headers that must arrive within `--handshake-timeout`.

use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::stream::SplitSink;
use futures_util::task::AtomicWaker;
use futures_util::{Sink, SinkExt, StreamExt};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use yomi_protocol::Reply;

use super::admit::{full_error, Admission};
use super::connection::{self, Client, SHUTDOWN_GRACE};
use super::framing::Line;
use super::input::WholeFrames;
use super::listen;
use super::{gate, web};
use crate::runtime::auth::{Access, Role};
use crate::runtime::config::Shared;
use crate::runtime::limits::Limits;
use crate::runtime::metrics;
use crate::runtime::outbox::Queue;

/// What the HTTP handlers share.
#[derive(Clone)]
struct Http {
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    /// The WebSocket sessions served at once (`--max-connections`, counted apart from TCP's).
    slots: Arc<Semaphore>,
    sessions: TaskTracker,
    /// The cookie holding the token, named for the port: browsers share cookies across ports.
    cookie: Arc<str>,
    /// What a client that gives no token may do (a player with `--insecure`, else nothing).
    open: Option<Role>,
}

impl Http {
    /// What a request's token grants: one in the query string or an `Authorization: Bearer`
    /// header (a wrong one is refused, and counts against `peer`), else the cookie's (a stale
    /// one, from an earlier launch, counts as none), else the open role.
    fn access(
        &self,
        peer: SocketAddr,
        headers: &HeaderMap,
        query: Option<&str>,
    ) -> Result<Access, StatusCode> {
        let auth = &self.shared.config.auth;
        if let Some(token) = gate::query_value(query, "token").or_else(|| bearer(headers)) {
            return auth.role_for(Some(peer.ip()), &token).map(Access::Granted).map_err(|e| {
                tracing::debug!(%peer, "refusing an HTTP request: {}", e.message);
                StatusCode::UNAUTHORIZED
            });
        }
        let cookies = headers.get(header::COOKIE).and_then(|v| v.to_str().ok());
        let from_cookie = gate::cookie_value(cookies, &self.cookie)
            .and_then(|token| auth.role_for(Some(peer.ip()), &token).ok());
        Ok(from_cookie.or(self.open).map_or(Access::Pending, Access::Granted))
    }
}

/// The token of an `Authorization: Bearer TOKEN` header (how Prometheus and scripts give it).
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_string())
}

/// Says where the playground is. A token generated at launch goes in the URL (printed on
/// stderr, not logged: only the person who started the server needs it); a configured one is
/// the operator's to add.
pub fn announce(local: SocketAddr, generated: Option<&str>) {
    let ip = match local.ip() {
        ip if ip.is_unspecified() && ip.is_ipv4() => "127.0.0.1".to_string(),
        ip if ip.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        ip => ip.to_string(),
    };
    let base = format!("http://{ip}:{}/", local.port());
    match generated {
        Some(token) => eprintln!("yomi: open the playground at {base}?token={token}"),
        None => eprintln!("yomi: open the playground at {base}?token=<your token>"),
    }
}

/// Serves HTTP until shutdown, then waits for the open WebSocket sessions to end.
pub async fn serve_http(listener: TcpListener, shared: Arc<Shared>, shutdown: CancellationToken) {
    let max = shared.config.max_connections;
    let admission = Admission::of(&shared.config);
    let port = listener.local_addr().map_or(0, |a| a.port());
    let header_timeout = Limits::enabled(shared.config.limits.handshake_timeout);
    let state = Http {
        open: shared.config.auth.open_role(false),
        shared,
        shutdown: shutdown.clone(),
        slots: Arc::new(Semaphore::new(max)),
        sessions: TaskTracker::new(),
        cookie: format!("yomi-token-{port}").into(),
    };
    let sessions = state.sessions.clone();
    let app = router(state);
    let connections = TaskTracker::new();
    loop {
        let Some((stream, peer)) = listen::accept(&listener, &shutdown).await else { break };
        let ticket = match admission.admit(peer.ip()) {
            Ok(ticket) => ticket,
            Err(error) => {
                tokio::spawn(refuse(stream, peer, error.message));
                continue;
            }
        };
        // No Nagle delay: a reply frame goes out at once, as on the TCP transport.
        let _ = stream.set_nodelay(true);
        // An HTTP connection shows no token of its own: under pressure the oldest gives way.
        let evicted = ticket.evicted();
        let served = serve_connection(stream, peer, app.clone(), header_timeout, shutdown.clone());
        connections.spawn(async move {
            tokio::select! {
                _ = served => {}
                _ = evicted.cancelled() => tracing::debug!(
                    %peer,
                    "closing an HTTP connection: the server is full and a new client took its slot"
                ),
            }
            drop(ticket);
        });
    }
    connections.close();
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, connections.wait()).await;
    sessions.close();
    connection::wait_for_sessions(&sessions).await;
}

/// The routes, every one behind the `Host` check.
/// Only `/healthz` answers without the token; `/` trades a token for a cookie and `/ws` may get
/// its token in `hello`, so each checks for itself; every other path is behind [`token_gate`].
fn router(state: Http) -> Router {
    let hosts = Arc::new(state.shared.config.allow_hosts.clone());
    let mut gated = Router::new()
        .route("/plugins/:plugin/view.js", get(plugin_view))
        .route("/*path", get(|Path(path): Path<String>| asset_owned(path)))
        .with_state(state.clone());
    match metrics::scrape() {
        Ok(scrape) => gated = gated.route("/metrics", scrape),
        Err(e) => tracing::warn!("no /metrics on the HTTP port: {e}"),
    }
    let gated = gated.route_layer(middleware::from_fn_with_state(state.clone(), token_gate));
    Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/", get(index))
        .with_state(state)
        .merge(gated)
        .layer(middleware::from_fn_with_state(hosts, check_host))
}

/// Lets a request through only with the token (query, bearer header or the playground's
/// cookie): the page's files, plugin views and metrics tell a stranger what this server runs.
async fn token_gate(
    State(http): State<Http>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    match http.access(peer, request.headers(), request.uri().query()) {
        Ok(Access::Granted(_)) => next.run(request).await,
        Ok(Access::Pending | Access::Refused) => needs_token(),
        Err(status) => (status, "wrong token\n").into_response(),
    }
}

/// Serves one HTTP connection (and hands an upgraded one to its WebSocket task).
async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    header_timeout: Option<Duration>,
    shutdown: CancellationToken,
) {
    let (stream, spoke) = Spoke::new(stream);
    let app = TowerToHyperService::new(app);
    let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        hyper::service::Service::call(&app, request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let mut conn = pin!(builder.serve_connection(TokioIo::new(stream), service).with_upgrades());
    tokio::select! {
        served = conn.as_mut() => match served {
            // A browser opens sockets it may never use (preconnect): one that sent nothing is
            // no news.
            Err(e) if e.is_timeout() && !spoke.load(Ordering::Relaxed) => tracing::debug!(
                %peer,
                "closing an HTTP connection that sent nothing within {} s (--handshake-timeout)",
                header_timeout.unwrap_or_default().as_secs_f64()
            ),
            Err(e) if e.is_timeout() => tracing::warn!(
                %peer,
                "closing the HTTP connection: no complete request headers within {} s (--handshake-timeout)",
                header_timeout.unwrap_or_default().as_secs_f64()
            ),
            Err(e) => tracing::debug!(%peer, "HTTP connection ended: {e}"),
            Ok(()) => {}
        },
        _ = shutdown.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn).await;
        }
    }
}

/// A connection's stream that notes whether the client has sent a byte.
struct Spoke {
    stream: TcpStream,
    spoke: Arc<AtomicBool>,
}

impl Spoke {
    fn new(stream: TcpStream) -> (Spoke, Arc<AtomicBool>) {
        let spoke = Arc::new(AtomicBool::new(false));
        (Spoke { stream, spoke: spoke.clone() }, spoke)
    }
}

impl tokio::io::AsyncRead for Spoke {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.spoke.store(true, Ordering::Relaxed);
        }
        polled
    }
}

impl tokio::io::AsyncWrite for Spoke {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Answers a client that gets no slot with a 503 it can read (saying why), and closes.
async fn refuse(mut stream: TcpStream, peer: SocketAddr, why: String) {
    tracing::warn!(%peer, "refusing an HTTP client: {why}");
    let body = format!("{why}\n");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let answer = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await?;
        // Read what the client sent, so closing does not reset the connection (and lose the
        // answer) over unread bytes.
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        std::io::Result::Ok(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), answer).await;
}

/// Refuses requests named for a host this server does not serve (DNS rebinding).
async fn check_host(
    State(allowed): State<Arc<Vec<String>>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok());
    if !gate::host_allowed(host, &allowed) {
        let host = host.unwrap_or("(none)").to_string();
        tracing::warn!(
            host,
            "refusing an HTTP request for a host name this server does not serve (--allow-host)"
        );
        let message = format!("this server does not answer for the host `{host}` (--allow-host)\n");
        return (StatusCode::FORBIDDEN, message).into_response();
    }
    next.run(request).await
}

/// The playground. `/?token=T` trades the token for a cookie and sends the browser on to `/`, so
/// the token leaves the address bar; without a valid token the page says how to get in.
async fn index(
    State(http): State<Http>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let token = gate::query_value(uri.query(), "token");
    match (http.access(peer, &headers, uri.query()), token) {
        (Ok(_), Some(token)) => (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, "/".to_string()),
                (header::SET_COOKIE, gate::token_cookie(&http.cookie, &token)),
                (header::REFERRER_POLICY, "no-referrer".to_string()),
            ],
        )
            .into_response(),
        (Ok(Access::Granted(_)), None) => asset("index.html").await,
        (Ok(Access::Pending | Access::Refused), None) => needs_token(),
        (Err(status), _) => (status, "wrong token\n").into_response(),
    }
}

/// The answer to a browser without the token: how to get in.
fn needs_token() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        "yomi needs its token: open the playground URL `yomi serve --http` printed \
         (http://HOST:PORT/?token=...)\n",
    )
        .into_response()
}

/// A loaded plugin's view module, looked up by the plugin's name among the loaded plugins (the
/// newest build), never read from a path.
async fn plugin_view(State(http): State<Http>, Path(plugin): Path<String>) -> Response {
    let view = http
        .shared
        .registry
        .plugin(&plugin, None)
        .ok()
        .and_then(|p| p.loaded.manifest.view.clone());
    match view {
        // Revalidated on each load: a newer build of the plugin may bring a newer view.
        Some(module) => {
            ([(header::CONTENT_TYPE, web::JS), (header::CACHE_CONTROL, "no-cache")], module)
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, format!("no loaded plugin `{plugin}` has a view\n"))
            .into_response(),
    }
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
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let (origin, host) = (text(header::ORIGIN), text(header::HOST));
    if !gate::origin_allowed(origin, host, &http.shared.config.allow_origins) {
        let origin = origin.unwrap_or_default().to_string();
        tracing::warn!(%peer, origin, "refusing a WebSocket opened by another site's page (--allow-origin)");
        return (StatusCode::FORBIDDEN, "this page's origin may not open a WebSocket here\n")
            .into_response();
    }
    let access = match http.access(peer, &headers, uri.query()) {
        Ok(access) => access,
        Err(status) => return (status, "wrong token\n").into_response(),
    };
    // Frames far above the line limit are refused by the WebSocket layer itself (the socket is
    // closed with 1009, "message too big"); those up to 4× the limit get the protocol's own
    // `line_too_long` reply and the session goes on, as on TCP.
    let frame_limit = http.shared.config.max_line_bytes.saturating_mul(4).max(64 * 1024);
    ws.max_message_size(frame_limit).max_frame_size(frame_limit).on_upgrade(move |socket| {
        let sessions = http.sessions.clone();
        sessions.track_future(async move {
            let Ok(_slot) = http.slots.clone().try_acquire_owned() else {
                refuse_full_socket(socket, peer, http.shared.config.max_connections).await;
                return;
            };
            let _open = metrics::connection("websocket");
            let client = Client { remote: true, access, address: Some(peer.ip()), slot: None };
            bridge(socket, http.shared, http.shutdown, format!("ws:{peer}"), client).await;
        })
    })
}

/// Tells a WebSocket client the server is full, in a frame it can read, and closes (1013, try
/// again later).
async fn refuse_full_socket(mut socket: WebSocket, peer: SocketAddr, max: usize) {
    tracing::warn!(%peer, "refusing a WebSocket client: the server is full (--max-connections {max})");
    let line =
        serde_json::to_string(&Reply::err(None, full_error(max))).expect("replies serialize");
    let close = CloseFrame { code: 1013, reason: "server full".into() };
    let refuse = async {
        socket.send(Message::Text(line)).await?;
        socket.send(Message::Close(Some(close))).await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), refuse).await;
}

/// Runs one protocol session over a WebSocket until either side ends it: each text frame is one
/// request for the same session loop as a TCP line, each reply or event one text frame.
async fn bridge(
    socket: WebSocket,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    peer: String,
    client: Client,
) {
    let limit = shared.config.max_line_bytes;
    let (sink, stream) = socket.split();
    // Set when the client sent a frame over the WebSocket layer's limit: the close says so.
    let too_big = Arc::new(AtomicBool::new(false));
    let noted = too_big.clone();
    let frames = stream.take_while(move |frame| {
        std::future::ready(match frame {
            Ok(Message::Close(_)) => false,
            Ok(_) => true,
            Err(e) => {
                noted.store(is_too_big(e), Ordering::Relaxed);
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
    let deliver =
        move |queue, unwritable| send_frames(sink, queue, write_timeout, unwritable, who, too_big);
    let requests = WholeFrames(Box::pin(requests));
    connection::serve_frames(requests, deliver, shared, shutdown, &peer, client).await;
}

/// Whether a read error is a frame over the size limit.
fn is_too_big(error: &axum::Error) -> bool {
    let inner = std::error::Error::source(error);
    matches!(
        inner.and_then(|e| e.downcast_ref::<tungstenite::Error>()),
        Some(tungstenite::Error::Capacity(_))
    )
}

/// Sends each queued reply or event as a text frame (see [`connection::deliver`]); closes the
/// socket when the session ends: 1009 after a frame over the limit, else 1000.
async fn send_frames(
    sink: SplitSink<WebSocket, Message>,
    queue: Queue,
    write_timeout: Option<Duration>,
    unwritable: CancellationToken,
    peer: String,
    too_big: Arc<AtomicBool>,
) {
    let frames = QuietSink::new(sink)
        .with(|text: String| std::future::ready(Ok::<_, axum::Error>(Message::Text(text))));
    if let Some(frames) =
        connection::deliver(frames, queue, write_timeout, &unwritable, &peer).await
    {
        let close = if too_big.load(Ordering::Relaxed) {
            CloseFrame { code: 1009, reason: "message too big".into() }
        } else {
            CloseFrame { code: 1000, reason: "session ended".into() }
        };
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
