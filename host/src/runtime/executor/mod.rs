//! The one owner of plugin calls. Every call into a plugin loaded in this process (a bot's or a
//! game's) is made through a [`Handle`], and [`OpenHandle::here`] alone decides where it runs.
//! Plugin code may think long or never return: it must never keep other clients waiting.
//!
//! How a request flows, with no state hidden in threads: the connection reads it through
//! [`Client::wait`], which gives it a [`Scope`] (may its call run in line?); `ops` passes the
//! scope to the agent's `act_text`, which makes the call with [`Handle::invoke`]. Work on a game
//! thread gets its scope from [`on_game_thread`]; every other call is [`Scope::HANDED_OVER`].
//! [`OpenHandle::here`] picks the way from the scope and the bot's pace (how quick its calls
//! have been, over all its agents), which each call feeds once, however it ran, as it does the
//! bot's `yomi_plugin_call_seconds`; the catalog shows the pace ([`pace_of`]).
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
//!   alone. It rests on two things tokio does not promise (the run slot a request's wake-up
//!   lands in, and a free thread taking over the I/O driver once woken): the e2e tests of
//!   `tests/tests/concurrency.rs` with quick bots that hang fail if a tokio upgrade breaks either.
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
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
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

use in_line::Pace;
pub use in_line::{pace_of, Client};

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
const NAMES: &str = "game-thread, in-line, lanes, pool";

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
                _ => return Err(format!("YOMI_EXECUTOR: unknown way '{name}' (known: {NAMES})")),
            } = true;
        }
        Ok(ways)
    }
}

/// This process's ways, read from `YOMI_EXECUTOR` once; a bad value is logged and all are used.
fn ways() -> Ways {
    static WAYS: OnceLock<Ways> = OnceLock::new();
    *WAYS.get_or_init(|| {
        let text = std::env::var("YOMI_EXECUTOR").unwrap_or_else(|_| NAMES.into());
        Ways::parse(&text).unwrap_or_else(|e| {
            tracing::error!("{e}; using every way");
            Ways::ALL
        })
    })
}

/// Runs plugin code `f` off the reactor: on a lane, or on the blocking pool when the process
/// uses no lanes.
async fn elsewhere<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    if !ways().lanes {
        return blocking(f).await;
    }
    lanes::lanes().run(f).await.unwrap_or_else(|| Err(panicked()))
}

/// The error of a call that panicked on the host side of the boundary, on a lane or in line.
fn panicked() -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, "plugin call did not finish: it panicked")
}

/// Runs `work` to completion on one game thread (a blocking thread whose plugin calls run right
/// there), or as it is when the process does not use game threads. `work` is given the scope it
/// opens its handles in and makes its calls in. Only for work that waits on nothing but its
/// plugin calls, and has no deadline to keep: a call on a game thread cannot be cut short. On a
/// game thread, dropping the returned future does not stop `work`.
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
/// thread's, for a handle opened there), and where its calls' times go: each call is timed once,
/// however it ran, into its bot's pace (shared by all its agents) and call-time histogram.
struct OpenHandle {
    handle: Mutex<Option<PluginHandle>>,
    scope: Scope,
    pace: Arc<Pace>,
    calls: Option<PluginCalls>,
}

type Locked<'a> = MutexGuard<'a, Option<PluginHandle>>;

impl OpenHandle {
    /// The one place that decides where a call made in `scope` runs: right here on a game thread,
    /// or in line when `in_line` admits it and the handle is free (a reactor thread never waits
    /// for another call); `None` when it must be handed over ([`elsewhere`]).
    fn here<T: DeserializeOwned>(&self, scope: Scope, call: &[u8]) -> Option<Result<T, ErrorInfo>> {
        match scope.0 {
            Place::GameThread => Some(self.call(&mut lock(&self.handle), call)),
            Place::Request { .. } if ways().in_line => {
                let slot = in_line::admit(&self.pace, scope)?;
                // Never a handle another call holds (nor one poisoned, see [`lock`]).
                let mut handle = self.handle.try_lock().ok()?;
                Some(slot.run(|| self.call(&mut handle, call)))
            }
            _ => None,
        }
    }

    /// Makes one call on `handle` (this handle, locked) and times it.
    fn call<T: DeserializeOwned>(&self, handle: &mut Locked, call: &[u8]) -> Result<T, ErrorInfo> {
        let started = Instant::now();
        let result =
            handle.as_mut().expect("a handle is open until it is dropped").invoke_raw(call);
        let took = started.elapsed();
        self.pace.record(took);
        if let Some(calls) = &self.calls {
            calls.record(took);
        }
        result
    }
}

/// A plugin handle is closed off the reactor (unless it was opened on a game thread): closing
/// runs the bot's or game's destructor, which is plugin code too and may never return.
impl Drop for OpenHandle {
    fn drop(&mut self) {
        let handle = self.handle.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if self.scope != Scope(Place::GameThread) => {
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
        let (pace, calls) =
            (bot.map_or_else(Arc::default, Pace::of_bot), bot.map(metrics::plugin_calls));
        let open = move || plugin.loaded.open(&request);
        let handle = match scope.0 {
            Place::GameThread => open()?,
            _ => elsewhere(open).await?,
        };
        Ok(Handle(Arc::new(OpenHandle { handle: Mutex::new(Some(handle)), scope, pace, calls })))
    }

    /// Makes one call (a [`Call`](yomi_plugin::call::Call), or a partly JSON text such as
    /// [`ActText`](yomi_plugin::call::ActText)) in `scope` (a client's request's or a game
    /// thread's), or else in the handle's own; its result is read as a `T` (a `Value` for any
    /// JSON). The call is written out here, so it need not outlive this.
    pub async fn invoke<T: DeserializeOwned + Send + 'static>(
        &self,
        call: &(impl Serialize + Sync),
        scope: Option<Scope>,
    ) -> Result<T, ErrorInfo> {
        let call = serde_json::to_vec(call)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("unwritable call: {e}")))?;
        if let Some(result) = self.0.here(scope.unwrap_or(self.0.scope), &call) {
            return result;
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

/// A poisoned lock only means an earlier call panicked on the host side of the boundary: the
/// plugin handle itself is still sound, but its calls no longer go in line.
fn lock(handle: &Mutex<Option<PluginHandle>>) -> Locked<'_> {
    handle.lock().unwrap_or_else(|p| p.into_inner())
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_on_a_game_thread_is_given_its_scope() {
        let scope = on_game_thread(|scope| async move { Ok(scope) }).await.unwrap();
        assert_eq!(scope, Scope(Place::GameThread));
    }
}
