//! Blocking work kept off the reactor: reading and writing the records, loading a plugin library.
//! Calls into plugin code go through `runtime::executor`, which decides where each runs.

use yomi_protocol::{ErrorCode, ErrorInfo};

/// Runs `f` on the blocking pool and flattens a join failure into an internal error.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(ErrorInfo::new(ErrorCode::Internal, format!("plugin call did not finish: {e}")))
    })
}
