//! Quick plugin calls run in line, on the reactor thread whose request asked for them.
//!
//! Handing a call to a lane and its answer back costs two wake-ups across threads, which on a
//! virtual machine is more than a small bot's whole call (BENCHMARKS.md, "Quick calls in line").
//! A call runs in line only when all of these hold:
//! - its handle has been quick lately (its [`Pace`]): a bot that thinks stays on the lanes, and
//!   one that turns slow goes back to them after one slow call;
//! - all but one of the runtime's reactor threads are free of such calls: one is always left to
//!   poll the I/O driver and run every other task, even when a quick bot hangs in line for good;
//! - the call is made during the first poll of a client's request, before which the connection
//!   had nothing to read (so the request has woken no task into this thread's own run slot,
//!   where no other thread could take it while the bot runs: the e2e test
//!   `replies_before_a_pipelined_hang_are_written` fails without this rule);
//! - more than one client is connected: a lone client is answered sooner through a lane, whose
//!   look for the next call keeps the processors from idling between its requests.
//!
//! A reactor thread held in line does not poll the I/O driver, and the free one may be asleep,
//! waiting to be told of work: a watchdog thread spawns an empty task on the runtime once a call
//! has been in line for a tick, which wakes the free thread, and it takes over the driver.

use std::cell::Cell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll};
use std::thread::Thread;
use std::time::{Duration, Instant};

use tokio::runtime::Handle;

use yomi_protocol::{ErrorCode, ErrorInfo};

/// A call under this is quick; a slower one costs as many credits as its time holds this budget.
const BUDGET: Duration = Duration::from_micros(50);
/// Credits a handle needs for its calls to run in line: that many quick calls in a row.
const QUICK: u32 = 16;
/// The most credits a handle keeps, so one slow call after a long quick run still counts.
const CAP: u32 = 64;

/// How quick a plugin handle's calls have been lately, in credits: each quick call earns one,
/// a slower one costs one per [`BUDGET`] it took. Wall time also counts the operating system's
/// preemptions; the credits make one preempted call cost a few quick calls, not the handle's
/// place in line.
#[derive(Debug, Default)]
pub struct Pace(AtomicU32);

impl Pace {
    fn is_quick(&self) -> bool {
        self.0.load(Ordering::Relaxed) >= QUICK
    }

    /// Counts one call of the handle that took `took`.
    pub fn record(&self, took: Duration) {
        let credit = self.0.load(Ordering::Relaxed);
        let credit = if took < BUDGET {
            (credit + 1).min(CAP)
        } else {
            let cost = (took.as_micros() / BUDGET.as_micros()).min(u128::from(CAP)) as u32;
            credit.saturating_sub(cost)
        };
        self.0.store(credit, Ordering::Relaxed);
    }

    /// Starts over, as for a new handle: its options changed, and its speed with them.
    pub fn forget(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

/// How often the watchdog looks at the calls in line while there are any.
const TICK: Duration = Duration::from_millis(1);
/// How long the watchdog goes on looking after the last call in line before it sleeps until the
/// next.
const WATCH: Duration = Duration::from_millis(100);

/// Calls running in line now, over all runtimes of the process.
static IN_LINE: AtomicUsize = AtomicUsize::new(0);
/// Calls started in line so far: the watchdog tells a call that spans a tick from a new one.
static STARTED: AtomicUsize = AtomicUsize::new(0);
/// Clients connected now.
static CLIENTS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// While a request's first poll runs on this thread: how many calls may run in line at once
    /// (0: none may, at any other time).
    static ALLOWED: Cell<usize> = const { Cell::new(0) };
}

/// A connected client, counted until dropped; its requests are scoped by [`Client::request`].
pub struct Client {
    /// How many calls may run in line at once on the client's runtime: all of its reactor
    /// threads but one (none on a runtime with one thread, or outside a runtime).
    limit: usize,
}

impl Client {
    /// Counts a client of the current runtime, which becomes the one the watchdog wakes.
    pub fn connected() -> Client {
        let Ok(runtime) = Handle::try_current() else { return Client::counted(0) };
        let limit = runtime.metrics().num_workers() - 1;
        if limit > 0 {
            watchdog().runtime.lock().unwrap_or_else(|p| p.into_inner()).replace(runtime);
        }
        Client::counted(limit)
    }

    fn counted(limit: usize) -> Client {
        CLIENTS.fetch_add(1, Ordering::Relaxed);
        Client { limit }
    }

    /// The scope of one request's `work`: its first poll may run quick calls in line when
    /// `fresh` (the connection had nothing to read before this request, see the module doc).
    pub fn request<'a, F: Future + ?Sized>(
        &self,
        fresh: bool,
        work: Pin<&'a mut F>,
    ) -> Request<'a, F> {
        Request { work, allowed: if fresh { self.limit } else { 0 } }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        CLIENTS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The thread that keeps a runtime's I/O going while a call holds one of its threads in line.
struct Watchdog {
    thread: Thread,
    /// Asleep until the next call in line.
    asleep: AtomicBool,
    /// The runtime serving the clients (the last one to ask for the limit).
    runtime: Mutex<Option<Handle>>,
}

fn watchdog() -> &'static Watchdog {
    static WATCHDOG: OnceLock<Watchdog> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let thread = std::thread::Builder::new()
            .name("yomi-in-line-watch".into())
            .spawn(|| watchdog().watch())
            .expect("the watchdog thread starts")
            .thread()
            .clone();
        Watchdog { thread, asleep: AtomicBool::new(false), runtime: Mutex::new(None) }
    })
}

impl Watchdog {
    fn watch(&self) {
        let (mut seen_in_line, mut seen_started) = (0, 0);
        // The calls in line counted by `STARTED` when the watchdog last woke the runtime.
        let mut nudged = usize::MAX;
        let mut last_call = Instant::now();
        loop {
            // Asleep until the next call goes in line when none has for a while, or when the
            // runtime has been woken for the calls in line now (one that never returns included);
            // looking every tick otherwise.
            if last_call.elapsed() > WATCH || (seen_in_line > 0 && nudged == seen_started) {
                self.asleep.store(true, Ordering::SeqCst);
                if STARTED.load(Ordering::SeqCst) == seen_started {
                    std::thread::park();
                }
                self.asleep.store(false, Ordering::SeqCst);
            } else {
                std::thread::sleep(TICK);
            }
            let (in_line, started) =
                (IN_LINE.load(Ordering::SeqCst), STARTED.load(Ordering::SeqCst));
            if in_line > 0 && seen_in_line > 0 && started == seen_started && nudged != started {
                // A call has been in line for a whole tick: wake a free reactor thread.
                if let Some(runtime) = &*self.runtime.lock().unwrap_or_else(|p| p.into_inner()) {
                    drop(runtime.spawn(async {}));
                }
                nudged = started;
            }
            if in_line > 0 || started != seen_started {
                last_call = Instant::now();
            }
            (seen_in_line, seen_started) = (in_line, started);
        }
    }

    /// Makes sure the watchdog is awake: a call is going in line.
    fn wake(&self) {
        if self.asleep.load(Ordering::SeqCst) {
            self.thread.unpark();
        }
    }
}

/// One request's work, scoped by [`Client::request`].
pub struct Request<'a, F: ?Sized> {
    work: Pin<&'a mut F>,
    /// Calls allowed in line during the next poll; 0 after the first.
    allowed: usize,
}

impl<F: Future + ?Sized> Future for Request<'_, F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let allowed = std::mem::take(&mut self.allowed);
        let before = ALLOWED.replace(allowed);
        let polled = self.work.as_mut().poll(cx);
        ALLOWED.set(before);
        polled
    }
}

/// A place in line for one call of a handle of pace `pace`, if the rules in the module doc
/// allow it now. Dropped unused (the handle was busy), it counts nothing.
pub fn admit(pace: &Pace) -> Option<Slot> {
    let limit = ALLOWED.get();
    if limit == 0 || CLIENTS.load(Ordering::Relaxed) < 2 || !pace.is_quick() {
        return None;
    }
    if IN_LINE.fetch_add(1, Ordering::SeqCst) >= limit {
        IN_LINE.fetch_sub(1, Ordering::SeqCst);
        return None;
    }
    Some(Slot(()))
}

/// A call's place in line, held from [`admit`] until the call ends.
pub struct Slot(());

impl Slot {
    /// Runs the plugin call `f` here, in line, and counts its time in `pace`. A host-side panic
    /// in `f` is an internal error, as on a lane.
    pub fn run<T>(
        self,
        pace: &Pace,
        f: impl FnOnce() -> Result<T, ErrorInfo>,
    ) -> Result<T, ErrorInfo> {
        STARTED.fetch_add(1, Ordering::SeqCst);
        watchdog().wake();
        let started = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
            Err(ErrorInfo::new(ErrorCode::Internal, "plugin call did not finish: it panicked"))
        });
        pace.record(started.elapsed());
        result
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        IN_LINE.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick_pace() -> Pace {
        let pace = Pace::default();
        for _ in 0..QUICK {
            pace.record(Duration::from_micros(5));
        }
        pace
    }

    #[test]
    fn a_handle_earns_its_place_in_line_by_quick_calls_and_loses_it_by_slow_ones() {
        let pace = Pace::default();
        for _ in 0..QUICK - 1 {
            pace.record(Duration::from_micros(5));
        }
        assert!(!pace.is_quick(), "one quick call short");
        pace.record(Duration::from_micros(5));
        assert!(pace.is_quick());
        for _ in 0..CAP {
            pace.record(Duration::from_micros(5));
        }
        // A call preempted for a millisecond costs 20 quick calls, not the place.
        pace.record(Duration::from_millis(1));
        assert!(pace.is_quick());
        // A bot that thinks for a tenth of a second loses it at once.
        pace.record(Duration::from_millis(100));
        assert!(!pace.is_quick());
        let pace = quick_pace();
        pace.forget();
        assert!(!pace.is_quick());
    }

    /// Polls `work` once as the first poll of a request of `client`.
    fn first_poll_of<T>(client: &Client, fresh: bool, work: impl FnOnce() -> T) -> T {
        let work = std::pin::pin!(async move { work() });
        let mut polled = std::pin::pin!(client.request(fresh, work));
        let mut cx = Context::from_waker(futures_util::task::noop_waker_ref());
        match polled.as_mut().poll(&mut cx) {
            Poll::Ready(value) => value,
            Poll::Pending => unreachable!("the work never waits"),
        }
    }

    /// Runs a call in line if admitted: the thread it ran on.
    fn in_line(pace: &Pace) -> Option<Result<std::thread::ThreadId, ErrorInfo>> {
        admit(pace).map(|slot| slot.run(pace, || Ok(std::thread::current().id())))
    }

    /// Every rule in one test: the counters are the process's, so tests of them must not run
    /// side by side.
    #[test]
    fn a_call_runs_in_line_only_when_every_rule_allows() {
        let quick = quick_pace();
        let one = Client::counted(1);
        assert!(first_poll_of(&one, true, || in_line(&quick)).is_none(), "a lone client");
        let two = Client::counted(1);
        let ran = first_poll_of(&two, true, || in_line(&quick));
        assert_eq!(ran.unwrap().unwrap(), std::thread::current().id());
        assert!(first_poll_of(&two, false, || in_line(&quick)).is_none(), "not fresh");
        let single_thread = Client::counted(0);
        assert!(first_poll_of(&single_thread, true, || in_line(&quick)).is_none(), "one thread");
        assert!(in_line(&quick).is_none(), "outside a request's first poll");
        assert!(first_poll_of(&two, true, || in_line(&Pace::default())).is_none(), "not quick");
        // All but one reactor thread in line already: the next call goes to a lane.
        let nested = first_poll_of(&two, true, || {
            let slot = admit(&quick).expect("the first call goes in line");
            slot.run(&quick, || Ok(first_poll_of(&one, true, || in_line(&quick)).is_none()))
        });
        assert!(nested.unwrap(), "only one call in line at once with a limit of one");
        // A place given back unused (the handle was busy) counts nothing.
        first_poll_of(&two, true, || drop(admit(&quick).expect("admitted")));
        assert_eq!(IN_LINE.load(Ordering::SeqCst), 0);
        // A host-side panic is an internal error, and frees the place in line.
        let panicked = first_poll_of(&two, true, || {
            admit(&quick)
                .expect("admitted")
                .run(&quick, || -> Result<(), _> { panic!("a host bug") })
        });
        assert_eq!(panicked.unwrap_err().code, ErrorCode::Internal);
        assert_eq!(IN_LINE.load(Ordering::SeqCst), 0);
    }
}
