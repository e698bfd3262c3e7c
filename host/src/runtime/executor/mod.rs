//! The one owner of plugin calls. Every call into a plugin loaded in this process (a bot's or a
//! game's) is made through a [`Handle`], and [`choose`] alone decides where it runs. Plugin code
//! may think for a long time, or never return: it must never keep other clients waiting.
//!
//! How a request's call flows, with no state hidden in threads: the connection waits for each
//! request line through its [`Client`], which gives the request a [`Scope`] (may its call run in
//! line?); `ops` hands the scope, as an argument, to the agent's `act_text`, which makes the call
//! with [`Handle::invoke_in`]. Work on a game thread gets its scope from [`on_game_thread`] and
//! opens its handles with it; every other call is [`Scope::HANDED_OVER`]. [`choose`] picks the way
//! from the scope and the bot's pace (how quick its calls have been: a per-bot decision, see
//! [`Timing`]); the call is timed once, however it ran, into that pace and the bot's call-time
//! histogram (`yomi_plugin_call_seconds`).
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

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;
use yomi_plugin::call::Open;
use yomi_plugin_engine::PluginHandle;
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::blocking::blocking;
use super::metrics::{self, PluginCalls};
use crate::registry::PluginEntry;

mod in_line;
mod lanes;

pub use in_line::{pace_of, Client};
use in_line::{Pace, Slot};

/// What the maker of a plugin call knows about the thread it makes it on, handed down with the
/// call: made by a connection for each request ([`Client::wait`]), by [`on_game_thread`] for its
/// work, and [`Scope::HANDED_OVER`] (the default) for every other call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope(Place);

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Place {
    /// A reactor thread that must not be held: the call is handed over.
    #[default]
    Reactor,
    /// A reactor thread serving a client's request that its connection waited for: the call may
    /// run in line while fewer than `limit` calls are (see `in_line`).
    Request { limit: usize },
    /// A game thread: nothing else runs here, so the call runs right here.
    GameThread,
}

impl Scope {
    /// A call that is always handed over.
    pub const HANDED_OVER: Scope = Scope(Place::Reactor);
}

/// The ways a call may run besides the blocking pool (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Ways {
    game_thread: bool,
    in_line: bool,
    lanes: bool,
}

/// Every way's name in `YOMI_EXECUTOR`.
const ALL_WAYS: &str = "game-thread, in-line, lanes, pool";

impl Ways {
    const ALL: Ways = Ways { game_thread: true, in_line: true, lanes: true };

    /// Reads a `YOMI_EXECUTOR` value.
    fn parse(text: &str) -> Result<Ways, String> {
        let mut ways = Ways::default();
        for name in text.split(',').map(str::trim).filter(|name| !name.is_empty()) {
            *match name {
                "game-thread" => &mut ways.game_thread,
                "in-line" => &mut ways.in_line,
                "lanes" => &mut ways.lanes,
                "pool" => continue,
                _ => {
                    return Err(format!("YOMI_EXECUTOR: unknown way '{name}' (known: {ALL_WAYS})"))
                }
            } = true;
        }
        Ok(ways)
    }
}

/// This process's ways, read from `YOMI_EXECUTOR` once; a bad value is logged and all are used.
fn ways() -> Ways {
    static WAYS: OnceLock<Ways> = OnceLock::new();
    *WAYS.get_or_init(|| {
        let text = std::env::var("YOMI_EXECUTOR").unwrap_or_else(|_| ALL_WAYS.into());
        Ways::parse(&text).unwrap_or_else(|e| {
            tracing::error!("{e}; using every way");
            Ways::ALL
        })
    })
}

/// Where one call runs.
enum Way<'a> {
    /// Right here: this thread is a game thread.
    Here,
    /// In line on this reactor thread, with the handle already taken.
    InLine(Slot, MutexGuard<'a, Closing>),
    /// Handed over: to a lane, or to the blocking pool (see [`elsewhere`]).
    Elsewhere,
}

/// The one place that decides how a plugin call made in `scope` runs. `open` is the handle the
/// call is made on (none while opening one), with how quick its bot's calls have been.
fn choose(scope: Scope, open: Option<&OpenHandle>) -> Way<'_> {
    match (scope.0, open) {
        (Place::GameThread, _) => Way::Here,
        // In line only if the handle is free: a reactor thread never waits for another call.
        (Place::Request { .. }, Some(open)) if ways().in_line => in_line::admit(&open.pace, scope)
            .and_then(|slot| Some(Way::InLine(slot, try_lock(&open.handle)?)))
            .unwrap_or(Way::Elsewhere),
        _ => Way::Elsewhere,
    }
}

/// Runs plugin code `f` off the reactor: on a lane, or on the blocking pool when the process
/// uses no lanes.
async fn elsewhere<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    if !ways().lanes {
        return blocking(f).await;
    }
    lanes::lanes().run(f).await.unwrap_or_else(|| {
        Err(ErrorInfo::new(ErrorCode::Internal, "plugin call did not finish: it panicked"))
    })
}

/// Runs `work` to completion on one game thread (a blocking thread whose plugin calls run right
/// there), or as it is when the process does not use game threads. `work` is given the scope of
/// its calls: it opens its handles with it (and passes it to calls made with a scope), so they
/// run right here on a game thread. Only for work that waits on nothing but its plugin calls, and
/// has no deadline to keep: a call on a game thread cannot be cut short, so it holds the thread
/// (never the reactor) until it ends. On a game thread, dropping the returned future does not
/// stop `work`.
pub async fn on_game_thread<T, F>(
    work: impl FnOnce(Scope) -> F + Send + 'static,
) -> Result<T, ErrorInfo>
where
    T: Send + 'static,
    F: Future<Output = Result<T, ErrorInfo>> + Send + 'static,
{
    if !ways().game_thread {
        return work(Scope::HANDED_OVER).await;
    }
    let runtime = tokio::runtime::Handle::current();
    blocking(move || runtime.block_on(work(Scope(Place::GameThread)))).await
}

/// An open plugin handle (agent or game) whose calls never hold up the reactor.
#[derive(Clone)]
pub struct Handle(Arc<OpenHandle>);

/// What a handle's clones share: the handle, the scope of the calls made without one (a game
/// thread's, for a handle opened there), and where its calls' times go. Each call is timed once,
/// however it ran: into its bot's pace, which decides whether the bot's calls may run in line
/// (a bot's, not an agent's: every agent of a bot shares what its calls have shown, and the
/// catalog shows it), and into the bot's call-time histogram.
struct OpenHandle {
    handle: Mutex<Closing>,
    scope: Scope,
    pace: Arc<Pace>,
    calls: Option<PluginCalls>,
}

impl OpenHandle {
    /// Makes one call on `handle` (this handle, locked) and times it.
    fn call<T: DeserializeOwned>(&self, handle: &mut Closing, call: &[u8]) -> Result<T, ErrorInfo> {
        let started = Instant::now();
        let result =
            handle.0.as_mut().expect("a handle is open until it is dropped").invoke_raw(call);
        let took = started.elapsed();
        self.pace.record(took);
        if let Some(calls) = &self.calls {
            calls.record(took);
        }
        result
    }
}

/// A plugin handle that is closed off the reactor (unless it was opened on a game thread):
/// closing runs the bot's or game's destructor, which is plugin code like any other call and
/// may be slow (or never return).
struct Closing(Option<PluginHandle>, Scope);

impl Drop for Closing {
    fn drop(&mut self) {
        let Some(handle) = self.0.take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if self.1 != Scope(Place::GameThread) => {
                drop(runtime.spawn_blocking(move || drop(handle)))
            }
            // On a game thread, or outside the runtime (at exit): no reactor to protect.
            _ => drop(handle),
        }
    }
}

impl Handle {
    /// Opens a handle in `plugin` (constructors are plugin code too, and may be slow) in `scope`,
    /// which is also the scope of its calls made without one. A bot's handle (`bot`:
    /// `plugin/bot`) has its calls timed into the bot's pace and histogram; a game's is not.
    pub async fn open(
        plugin: Arc<PluginEntry>,
        request: Open,
        bot: Option<&str>,
        scope: Scope,
    ) -> Result<Handle, ErrorInfo> {
        let (pace, calls) = match bot {
            Some(bot) => (Pace::of_bot(bot), Some(metrics::plugin_calls(bot))),
            None => (Arc::default(), None),
        };
        let open = move || plugin.loaded.open(&request);
        // Decided before the wait: a `Way` may hold a lock, which a task cannot keep across it.
        let here = matches!(choose(scope, None), Way::Here);
        let handle = if here { open()? } else { elsewhere(open).await? };
        let handle = Mutex::new(Closing(Some(handle), scope));
        Ok(Handle(Arc::new(OpenHandle { handle, scope, pace, calls })))
    }

    /// Makes one call (a [`Call`](yomi_plugin::call::Call), or one partly JSON text such as
    /// [`ActText`](yomi_plugin::call::ActText)) in `scope` (a client's request's, which may let
    /// the call run in line, or a game thread's), or in the handle's own scope when `None`; its
    /// result is read as a `T` (a `Value` for any JSON). The call is written out here, so it need
    /// not outlive this.
    pub async fn invoke<T: DeserializeOwned + Send + 'static>(
        &self,
        call: &(impl Serialize + Sync),
        scope: Option<Scope>,
    ) -> Result<T, ErrorInfo> {
        let call = serde_json::to_vec(call)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("unwritable call: {e}")))?;
        match choose(scope.unwrap_or(self.0.scope), Some(&self.0)) {
            Way::Here => return self.0.call(&mut lock(&self.0.handle), &call),
            Way::InLine(slot, mut handle) => return slot.run(|| self.0.call(&mut handle, &call)),
            Way::Elsewhere => {}
        }
        let shared = self.0.clone();
        elsewhere(move || shared.call(&mut lock(&shared.handle), &call)).await
    }

    /// Hands the bot's next calls over until they have shown again that they are quick (its
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
    fn a_call_runs_right_here_only_in_a_game_threads_scope() {
        assert!(matches!(choose(Scope::HANDED_OVER, None), Way::Elsewhere { .. }));
        assert!(matches!(choose(Scope(Place::Request { limit: 1 }), None), Way::Elsewhere { .. }));
        assert!(matches!(choose(Scope(Place::GameThread), None), Way::Here));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_on_a_game_thread_is_given_its_scope() {
        let scope = on_game_thread(|scope| async move { Ok(scope) }).await.unwrap();
        assert_eq!(scope, Scope(Place::GameThread));
    }
}
