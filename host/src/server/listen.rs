//! The listeners: stdio (a game or GUI starts yomi as a child process) and TCP (many clients).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use yomi_protocol::{ErrorInfo, Reply};

use super::admit::Admission;
use super::connection::{self, Client};
use crate::runtime::auth::{Access, Auth, MIN_EXPOSED_TOKEN_CHARS};
use crate::runtime::config::Shared;

/// Serves the process's stdin/stdout as one session; returns at EOF or shutdown.
pub async fn serve_stdio(shared: Arc<Shared>, shutdown: CancellationToken) {
    let _open = crate::runtime::metrics::connection("stdio");
    let (stdin, stdout) = (tokio::io::stdin(), tokio::io::stdout());
    connection::serve(stdin, stdout, shared, shutdown, "stdio", Client::STDIO).await;
}

/// Accepts TCP clients until shutdown, as many at once as [`Admission`] lets in: a client
/// beyond that is told why and closed at once. Waits for the open sessions to finish their
/// current request before returning.
pub async fn serve_tcp(listener: TcpListener, shared: Arc<Shared>, shutdown: CancellationToken) {
    let admission = Admission::of(&shared.config);
    let access = open_access(&shared, &listener);
    let sessions = TaskTracker::new();
    loop {
        let Some((stream, peer)) = accept(&listener, &shutdown).await else { break };
        let ticket = match admission.admit(peer.ip()) {
            Ok(ticket) => ticket,
            Err(error) => {
                tokio::spawn(refuse(stream, peer, error));
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (shared, shutdown) = (shared.clone(), shutdown.clone());
        sessions.spawn(async move {
            let _open = crate::runtime::metrics::connection("tcp");
            let (reader, writer) = stream.into_split();
            let slot = Some(Arc::new(ticket));
            let client = Client { remote: true, access, address: Some(peer.ip()), slot };
            connection::serve(reader, writer, shared, shutdown, &peer.to_string(), client).await;
        });
    }
    sessions.close();
    connection::wait_for_sessions(&sessions).await;
}

/// The next client, or `None` at shutdown. Accepting again after a failure (out of file
/// descriptors and the like) waits a little instead of spinning.
pub async fn accept(
    listener: &TcpListener,
    shutdown: &CancellationToken,
) -> Option<(TcpStream, SocketAddr)> {
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return None,
            accepted = listener.accept() => match accepted {
                Ok(client) => return Some(client),
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
            },
        }
    }
}

/// What a client of the TCP `listener` may do before giving a token.
fn open_access(shared: &Shared, listener: &TcpListener) -> Access {
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    shared.config.auth.open_role(loopback).map_or(Access::Pending, Access::Granted)
}

/// Tells a TCP client why it gets no slot, in a line it can read, and closes.
async fn refuse(mut stream: TcpStream, peer: SocketAddr, error: ErrorInfo) {
    tracing::warn!(%peer, "refusing a client: {}", error.message);
    let line = serde_json::to_string(&Reply::err(None, error)).expect("replies serialize");
    let write = async {
        stream.write_all(format!("{line}\n").as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), write).await;
}

/// Refuses an address other machines can reach unless a token is configured or `--insecure`
/// says otherwise (said loudly), as Redis' protected mode does.
pub fn check_exposure(addr: SocketAddr, auth: &Auth) -> anyhow::Result<()> {
    if addr.ip().is_loopback() {
        return Ok(());
    }
    if let [flag, ..] = auth.short_tokens()[..] {
        anyhow::bail!(
            "refusing to listen on {addr}, which other machines can reach, with a token of fewer \
             than {MIN_EXPOSED_TOKEN_CHARS} characters ({flag}): a short token can be guessed; \
             `yomi serve --http` on loopback prints a generated one, or use e.g. `openssl rand -hex 32`"
        );
    }
    if auth.insecure {
        tracing::warn!(
            "INSECURE: {addr} is reachable from other machines and clients without a token are served as players (--insecure)"
        );
    } else if !auth.configured() {
        anyhow::bail!(
            "refusing to listen on {addr}, which other machines can reach, without a token: give \
             --token (or YOMI_TOKEN, --token-file), or --insecure to serve anyone as a player"
        );
    }
    Ok(())
}

/// Binds a TCP address, naming it in the error.
pub async fn bind(addr: SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr).await.map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::AddrInUse => {
                " (another program listens there; choose another port)"
            }
            _ => "",
        };
        anyhow::anyhow!("cannot listen on {addr}: {e}{hint}")
    })
}
