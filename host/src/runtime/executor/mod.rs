//! The one owner of plugin calls. Every call into a plugin loaded in this process (a bot's or a
//! game's) is made through a [`Handle`], and [`choose`] alone decides where it runs. Plugin code
//! may think for a long time, or never return: it must never keep other clients waiting.
//!
//! The ways a call runs, why each is kept, and what it earned against the others (BENCHMARKS.md,
//! "Each way of the executor against the others": `agent.act` requests per second over TCP with
//! each way left out in turn, medians of interleaved runs of one build; and "One executor for
//! plugin calls" for tournament games per second against a direct loop). A simpler executor with
//! only the pool and one of in line or lanes loses 46–76 % where the other carries the load:
//! - **on a game thread**, right where it is made ([`on_game_thread`]): a tournament game without a
//!   decision deadline runs whole on one blocking thread, so a tiny game pays one trip to the
//!   pool per player, not a hand-over per call. Host overhead against a direct loop, rps: about
//!   2× with it, 3.9–29× with every call handed over (loaded machine).
//! - **in line** on the reactor thread of a client's request (`in_line`), when its bot has been
//!   quick lately and other reactor threads are left free: no wake-up across threads at all.
//!   `agent.act` at 10 and 100 connections on a quiet machine: 79,000 and 84,700 req/s with
//!   every way, 42,300 and 77,400 without it (lanes and pool only), 52,500 and 49,700 on the pool
//!   alone. It rests on two things tokio does not promise (the run slot a
//!   request's wake-up lands in, and a free thread taking over the I/O driver once woken): the
//!   e2e tests of `tests/tests/concurrency.rs` with quick bots that hang fail if a tokio upgrade
//!   breaks either.
//! - **on a lane** (`lanes`): threads that look for the next call before they sleep, so a call
//!   starts without a wake-up. They serve a lone client, whose processors would otherwise halt
//!   between its requests: on a quiet machine one connection's `agent.act` runs at 48,600 req/s
//!   with every way and 11,600 without the lanes, while at 10 and 100 connections in line
//!   carries the load (within the runs' spread without lanes). On a loaded machine they cost more
//!   than they give, which is why a removal measured there once looked right.
//! - **on tokio's blocking pool**: a lane's rescue when every lane is stuck in a bot that never
//!   returns, and the close of every handle (a destructor may never return either).
//!
//! An isolated bot's calls are not made here: they are messages to its worker process
//! (`agents::worker`).
//!
//! `YOMI_EXECUTOR` (a comma-separated list of `game-thread`, `in-line`, `lanes`; unset: all three)
//! names the ways a process may use besides the pool, so one build can be measured against
//! itself with each way left out.

use std::cell::Cell;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;
use yomi_plugin::call::Open;
use yomi_plugin_engine::PluginHandle;
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::blocking::blocking;
use crate::registry::PluginEntry;

mod in_line;
mod lanes;

pub use in_line::Client;
use in_line::{Pace, Slot};

thread_local! {
    /// Set while this thread runs work for [`on_game_thread`]: plugin calls run right here.
    static GAME_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// The ways a call may run besides the blocking pool (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ways {
    game_thread: bool,
    in_line: bool,
    lanes: bool,
}

impl Ways {
    const ALL: Ways = Ways { game_thread: true, in_line: true, lanes: true };

    /// Reads a `YOMI_EXECUTOR` value.
    fn parse(text: &str) -> Result<Ways, String> {
        let mut ways = Ways { game_thread: false, in_line: false, lanes: false };
        for name in text.split(',').map(str::trim).filter(|name| !name.is_empty()) {
            match name {
                "game-thread" => ways.game_thread = true,
                "in-line" => ways.in_line = true,
                "lanes" => ways.lanes = true,
                "pool" => {}
                other => {
                    return Err(format!(
                        "YOMI_EXECUTOR: unknown way '{other}' (known: game-thread, in-line, lanes, pool)"
                    ))
                }
            }
        }
        Ok(ways)
    }
}

/// This process's ways, read from `YOMI_EXECUTOR` once; a bad value is logged and all are used.
fn ways() -> Ways {
    static WAYS: OnceLock<Ways> = OnceLock::new();
    *WAYS.get_or_init(|| match std::env::var("YOMI_EXECUTOR") {
        Err(_) => Ways::ALL,
        Ok(text) => Ways::parse(&text).unwrap_or_else(|e| {
            tracing::error!("{e}; using every way");
            Ways::ALL
        }),
    })
}

/// Where one call runs.
enum Way<'a> {
    /// Right here: this thread is a game thread.
    Here,
    /// In line on this reactor thread, with the handle already taken.
    InLine(Slot, MutexGuard<'a, Closing>),
    /// Handed over: to a lane when `lanes`, otherwise to the blocking pool.
    Elsewhere { lanes: bool },
}

/// The one place that decides how a plugin call runs. `open` is the handle the call is made on
/// (none while opening one), with how quick its calls have been.
fn choose<'a>(open: Option<&'a OpenHandle>) -> Way<'a> {
    if GAME_THREAD.get() {
        return Way::Here;
    }
    let ways = ways();
    if let Some(open) = open.filter(|_| ways.in_line) {
        // In line only if the handle is free: a reactor thread never waits for another call.
        if let Some(slot) = in_line::admit(&open.pace) {
            if let Some(handle) = try_lock(&open.handle) {
                return Way::InLine(slot, handle);
            }
        }
    }
    Way::Elsewhere { lanes: ways.lanes }
}

/// Runs plugin code `f` off the reactor: on a lane, or on the blocking pool.
async fn elsewhere<T: Send + 'static>(
    lanes: bool,
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    if !lanes {
        return blocking(f).await;
    }
    lanes::run(f).await.unwrap_or_else(|| {
        Err(ErrorInfo::new(ErrorCode::Internal, "plugin call did not finish: it panicked"))
    })
}

/// Runs `work` to completion on one game thread (a blocking thread whose plugin calls run right
/// there), or as it is when the process does not use game threads. Only for work that waits on
/// nothing but its plugin calls, and has no deadline to keep: a call on a game thread cannot be
/// cut short, so it holds the thread (never the reactor) until it ends. On a game thread,
/// dropping the returned future does not stop `work`.
pub async fn on_game_thread<T: Send + 'static>(
    work: impl Future<Output = Result<T, ErrorInfo>> + Send + 'static,
) -> Result<T, ErrorInfo> {
    if !ways().game_thread {
        return work.await;
    }
    let runtime = tokio::runtime::Handle::current();
    blocking(move || {
        GAME_THREAD.set(true);
        let result = runtime.block_on(work);
        GAME_THREAD.set(false);
        result
    })
    .await
}

/// An open plugin handle (agent or game) whose calls never hold up the reactor.
#[derive(Clone)]
pub struct Handle(Arc<OpenHandle>);

/// What a handle's clones share: the handle, and how quick its calls have been.
struct OpenHandle {
    handle: Mutex<Closing>,
    pace: Pace,
}

/// A plugin handle that is closed off the reactor: closing runs the bot's or game's destructor,
/// which is plugin code like any other call and may be slow (or never return).
struct Closing(Option<PluginHandle>);

impl Drop for Closing {
    fn drop(&mut self) {
        let Some(handle) = self.0.take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if !GAME_THREAD.get() => drop(runtime.spawn_blocking(move || drop(handle))),
            // On a game thread, or outside the runtime (at exit): no reactor to protect.
            _ => drop(handle),
        }
    }
}

impl Handle {
    /// Opens a handle in `plugin` (constructors are plugin code too, and may be slow).
    pub async fn open(plugin: Arc<PluginEntry>, request: Open) -> Result<Handle, ErrorInfo> {
        let open = move || plugin.loaded.open(&request);
        let handed_over = match choose(None) {
            Way::Elsewhere { lanes } => Some(lanes),
            Way::Here | Way::InLine(..) => None,
        };
        let handle = match handed_over {
            Some(lanes) => elsewhere(lanes, open).await?,
            None => open()?,
        };
        let handle = Mutex::new(Closing(Some(handle)));
        Ok(Handle(Arc::new(OpenHandle { handle, pace: Pace::default() })))
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
        let lanes = match choose(Some(&self.0)) {
            // A game thread has nothing else to run: no pace to keep.
            Way::Here => return invoke_raw(&mut lock(&self.0.handle), &call),
            Way::InLine(slot, mut handle) => {
                return slot.run(&self.0.pace, || invoke_raw(&mut handle, &call))
            }
            Way::Elsewhere { lanes } => lanes,
        };
        let shared = self.0.clone();
        elsewhere(lanes, move || {
            let mut handle = lock(&shared.handle);
            let started = Instant::now();
            let result = invoke_raw(&mut handle, &call);
            shared.pace.record(started.elapsed());
            result
        })
        .await
    }

    /// Hands the handle's next calls over until they have shown again that they are quick (its
    /// options changed, and its speed may have changed with them).
    pub fn forget_pace(&self) {
        self.0.pace.forget();
    }
}

/// A poisoned lock only means an earlier call panicked on the host side of the boundary; the
/// plugin handle itself is still sound.
fn lock(handle: &Mutex<Closing>) -> MutexGuard<'_, Closing> {
    handle.lock().unwrap_or_else(|p| p.into_inner())
}

/// The handle unless another call holds it (a poisoned lock taken as in [`lock`]).
fn try_lock(handle: &Mutex<Closing>) -> Option<MutexGuard<'_, Closing>> {
    match handle.try_lock() {
        Ok(handle) => Some(handle),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

fn invoke_raw<T: DeserializeOwned>(handle: &mut Closing, call: &[u8]) -> Result<T, ErrorInfo> {
    handle.0.as_mut().expect("a handle is open until it is dropped").invoke_raw(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ways_are_named_in_yomi_executor() {
        assert_eq!(Ways::parse("game-thread, in-line,lanes"), Ok(Ways::ALL));
        let pool_only = Ways { game_thread: false, in_line: false, lanes: false };
        assert_eq!(Ways::parse("pool"), Ok(pool_only));
        assert_eq!(Ways::parse(""), Ok(pool_only));
        assert_eq!(Ways::parse("lanes"), Ok(Ways { lanes: true, ..pool_only }));
        let err = Ways::parse("lanes,inline").unwrap_err();
        assert!(err.contains("unknown way 'inline'"), "{err}");
    }

    #[test]
    fn a_call_runs_right_here_only_on_a_game_thread() {
        assert!(matches!(choose(None), Way::Elsewhere { .. }));
        GAME_THREAD.set(true);
        assert!(matches!(choose(None), Way::Here));
        GAME_THREAD.set(false);
    }
}
