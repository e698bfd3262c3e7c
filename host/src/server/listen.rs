//! The listeners: stdio (a game or GUI starts yomi as a child process) and TCP (many clients).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::connection;
use crate::runtime::config::Shared;

/// Serves the process's stdin/stdout as one session; returns at EOF or shutdown.
pub async fn serve_stdio(shared: Arc<Shared>, shutdown: CancellationToken) {
    let _open = crate::runtime::metrics::connection("stdio");
    connection::serve(tokio::io::stdin(), tokio::io::stdout(), shared, shutdown, "stdio", false)
        .await;
}

/// Accepts TCP clients until shutdown, at most `max_connections` served at once. Waits for the
/// open sessions to finish their current request before returning.
pub async fn serve_tcp(listener: TcpListener, shared: Arc<Shared>, shutdown: CancellationToken) {
    let limit = Arc::new(Semaphore::new(shared.config.max_connections));
    let sessions = TaskTracker::new();
    loop {
        let permit = tokio::select! {
            _ = shutdown.cancelled() => break,
            permit = limit.clone().acquire_owned() => permit.expect("semaphore never closed"),
        };
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Running out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let (shared, shutdown) = (shared.clone(), shutdown.clone());
        sessions.spawn(async move {
            let _open = crate::runtime::metrics::connection("tcp");
            let (reader, writer) = stream.into_split();
            connection::serve(reader, writer, shared, shutdown, &peer.to_string(), true).await;
            drop(permit);
        });
    }
    sessions.close();
    connection::wait_for_sessions(&sessions).await;
}

/// Binds a TCP address, refusing nothing but saying clearly when it is not loopback.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    if !addr.ip().is_loopback() {
        tracing::warn!("listening on {addr}, which is reachable from other machines; yomi has no authentication");
    }
    TcpListener::bind(addr).await
}
