//! Plugin code runs off the reactor: a bot may think for a long time (or never return) and must
//! never hold up the other clients.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use yomi_plugin::call::{Call, Open};
use yomi_plugin::loader::PluginHandle;
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::registry::PluginEntry;

/// Runs `f` on the blocking pool and flattens a join failure into an internal error.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(ErrorInfo::new(ErrorCode::Internal, format!("plugin call did not finish: {e}")))
    })
}

/// An open plugin handle (agent or game) whose calls run on tokio's blocking pool: a bot may think
/// for a long time and must never hold up the reactor.
#[derive(Clone)]
pub struct BlockingHandle(Arc<Mutex<ClosedOffReactor>>);

/// A plugin handle that is closed on the blocking pool too: closing runs the bot's or game's
/// destructor, which is plugin code like any other call and may be slow (or never return).
struct ClosedOffReactor(Option<PluginHandle>);

impl Drop for ClosedOffReactor {
    fn drop(&mut self) {
        let Some(handle) = self.0.take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || drop(handle))),
            // Outside the runtime (at exit) there is no reactor to protect.
            Err(_) => drop(handle),
        }
    }
}

impl BlockingHandle {
    /// Opens a handle in `plugin` (on the blocking pool too: constructors may be slow).
    pub async fn open(
        plugin: Arc<PluginEntry>,
        request: Open,
    ) -> Result<BlockingHandle, ErrorInfo> {
        let handle = blocking(move || plugin.loaded.open(&request)).await?;
        Ok(BlockingHandle(Arc::new(Mutex::new(ClosedOffReactor(Some(handle))))))
    }

    pub async fn invoke(&self, call: Call) -> Result<Value, ErrorInfo> {
        let handle = self.0.clone();
        blocking(move || {
            // A poisoned lock only means an earlier call panicked on the host side of the boundary;
            // the plugin handle itself is still sound.
            let mut handle = handle.lock().unwrap_or_else(|p| p.into_inner());
            handle.0.as_mut().expect("a handle is open until it is dropped").invoke(&call)
        })
        .await
    }
}
