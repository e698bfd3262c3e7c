//! Plugin code never holds up the reactor: a bot may think for a long time (or never return) and
//! must not keep the other clients waiting.
//!
//! A single call goes to a lane (`runtime::lanes`: a few threads that take calls without being
//! woken from sleep, the blocking pool when they are stuck), or, when its bot has been quick
//! lately and a client's request makes it, runs in line on the reactor thread, with another
//! reactor thread always left free (`runtime::in_line`). Work that makes many calls in a row
//! with nothing to wait for in between (a tournament game) can instead run whole on one blocking
//! thread ([`on_plugin_thread`]), where its calls run right where they are made: one trip to the
//! pool per game instead of one hand-over per call, which cost tiny games most of their time.

use std::cell::Cell;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::runtime::Handle;
use yomi_plugin::call::Open;
use yomi_plugin::loader::PluginHandle;
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::in_line::{self, Pace};
use super::lanes;
use super::registry::PluginEntry;

/// Runs `f` on the blocking pool and flattens a join failure into an internal error.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(ErrorInfo::new(ErrorCode::Internal, format!("plugin call did not finish: {e}")))
    })
}

thread_local! {
    /// Set while this thread runs work for [`on_plugin_thread`]: plugin calls run right here.
    static PLUGIN_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` to completion on one blocking thread, its plugin calls running in line there. Only
/// for work that waits on nothing but its plugin calls, and has no deadline to keep: a call
/// running in line cannot be cut short, so it holds the thread (never the reactor) until it ends.
/// Dropping the returned future does not stop `work`.
pub async fn on_plugin_thread<T: Send + 'static>(
    work: impl Future<Output = Result<T, ErrorInfo>> + Send + 'static,
) -> Result<T, ErrorInfo> {
    let runtime = Handle::current();
    blocking(move || {
        PLUGIN_THREAD.set(true);
        let result = runtime.block_on(work);
        PLUGIN_THREAD.set(false);
        result
    })
    .await
}

/// Runs plugin code `f`: here on a plugin thread, otherwise on a lane (or the blocking pool).
async fn run<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    if PLUGIN_THREAD.get() {
        f()
    } else {
        lanes::run(f).await.unwrap_or_else(|| {
            Err(ErrorInfo::new(ErrorCode::Internal, "plugin call did not finish: it panicked"))
        })
    }
}

/// An open plugin handle (agent or game) whose calls never hold up the reactor: they run on a
/// lane, or in line when they are quick enough to (see `runtime::in_line`).
#[derive(Clone)]
pub struct BlockingHandle(Arc<OpenHandle>);

/// What a handle's clones share: the handle, and how quick its calls have been.
struct OpenHandle {
    handle: Mutex<ClosedOffReactor>,
    pace: Pace,
}

/// A plugin handle that is closed off the reactor too: closing runs the bot's or game's
/// destructor, which is plugin code like any other call and may be slow (or never return).
struct ClosedOffReactor(Option<PluginHandle>);

impl Drop for ClosedOffReactor {
    fn drop(&mut self) {
        let Some(handle) = self.0.take() else { return };
        match Handle::try_current() {
            Ok(runtime) if !PLUGIN_THREAD.get() => {
                drop(runtime.spawn_blocking(move || drop(handle)))
            }
            // On a plugin thread, or outside the runtime (at exit): no reactor to protect.
            _ => drop(handle),
        }
    }
}

impl BlockingHandle {
    /// Opens a handle in `plugin` (constructors are plugin code too, and may be slow).
    pub async fn open(
        plugin: Arc<PluginEntry>,
        request: Open,
    ) -> Result<BlockingHandle, ErrorInfo> {
        let handle = run(move || plugin.loaded.open(&request)).await?;
        let handle = Mutex::new(ClosedOffReactor(Some(handle)));
        Ok(BlockingHandle(Arc::new(OpenHandle { handle, pace: Pace::default() })))
    }

    /// Makes one call (a [`Call`](yomi_plugin::call::Call), or one partly JSON text such as
    /// [`ActText`](yomi_plugin::call::ActText)); its result is read as a `T` (a `Value` for any
    /// JSON). The call is written out here, so it need not outlive this.
    pub async fn invoke<T: DeserializeOwned + Send + 'static>(
        &self,
        call: &(impl Serialize + Sync),
    ) -> Result<T, ErrorInfo> {
        let call = serde_json::to_vec(call)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("unwritable call: {e}")))?;
        if PLUGIN_THREAD.get() {
            // Already off the reactor, with nothing else to run: no pace to keep.
            return invoke_raw(&mut lock(&self.0.handle), &call);
        }
        // In line only if the handle is free: a reactor thread never waits for another call.
        let in_line = in_line::run(&self.0.pace, || {
            try_lock(&self.0.handle).map(|mut handle| invoke_raw(&mut handle, &call))
        });
        if let Some(result) = in_line {
            return result;
        }
        let shared = self.0.clone();
        run(move || {
            let mut handle = lock(&shared.handle);
            let started = Instant::now();
            let result = invoke_raw(&mut handle, &call);
            shared.pace.record(started.elapsed());
            result
        })
        .await
    }

    /// Sends the handle's next calls to the lanes until they have shown again that they are quick
    /// (its options changed, and its speed may have changed with them).
    pub fn forget_pace(&self) {
        self.0.pace.forget();
    }
}

/// A poisoned lock only means an earlier call panicked on the host side of the boundary; the
/// plugin handle itself is still sound.
fn lock(handle: &Mutex<ClosedOffReactor>) -> MutexGuard<'_, ClosedOffReactor> {
    handle.lock().unwrap_or_else(|p| p.into_inner())
}

/// The handle unless another call holds it (a poisoned lock taken as in [`lock`]).
fn try_lock(handle: &Mutex<ClosedOffReactor>) -> Option<MutexGuard<'_, ClosedOffReactor>> {
    match handle.try_lock() {
        Ok(handle) => Some(handle),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

fn invoke_raw<T: DeserializeOwned>(
    handle: &mut ClosedOffReactor,
    call: &[u8],
) -> Result<T, ErrorInfo> {
    handle.0.as_mut().expect("a handle is open until it is dropped").invoke_raw(call)
}
