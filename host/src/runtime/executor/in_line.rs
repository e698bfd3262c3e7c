//! Quick plugin calls run in line, on the reactor thread whose request asked for them.
//!
//! Handing a call to a lane and its answer back costs two wake-ups across threads, which on a
//! virtual machine is more than a small bot's whole call (BENCHMARKS.md, "Quick calls in line").
//! A call runs in line only when all of these hold:
//! - its bot has been quick lately (its [`Pace`]): a bot that thinks stays on the lanes, and
//!   one that turns slow goes back to them after one slow call;
//! - all but one of the runtime's reactor threads are free of such calls: one is always left to
//!   poll the I/O driver and run every other task, even when a quick bot hangs in line for good;
//! - the call is made for a client's request that its connection had to wait for (so the request
//!   has woken no task into this thread's own run slot, where no other thread could take it while
//!   the bot runs: the e2e test `replies_before_a_pipelined_hang_are_written` fails without this
//!   rule): [`Client::wait`] gives the request the [`Scope`] of the call it makes before its
//!   first wait (`agent.act` of one position);
//! - more than one client is connected: a lone client is answered sooner through a lane, whose
//!   look for the next call keeps the processors from idling between its requests.
//!
//! A reactor thread held in line does not poll the I/O driver, and the free one may be asleep,
//! waiting to be told of work: a watchdog thread spawns an empty task on the runtime once a call
//! has been in line for a tick, which wakes the free thread, and it takes over the driver. A bot
//! that hangs in line holds its thread for good (plugin code cannot be stopped), so its
//! connection never sees the shutdown's grace: `server::connection::wait_for_sessions` is bounded.

use std::collections::HashMap;
use std::future::{poll_fn, Future};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use tokio::runtime::Handle;

use yomi_protocol::ops::plugins::BotPace;
use yomi_protocol::ErrorInfo;

use super::{panicked, ways, Place, Scope};

/// A call under this is quick; a slower one costs as many credits as its time holds this budget.
const BUDGET: Duration = Duration::from_micros(50);
/// Credits a handle needs for its calls to run in line: that many quick calls in a row.
const QUICK: u32 = 16;
/// The most credits a handle keeps, so one slow call after a long quick run still counts.
const CAP: u32 = 64;

/// How quick a bot's calls have been lately, in credits: each quick call earns one, a slower one
/// costs one per [`BUDGET`] it took. Wall time also counts the operating system's preemptions;
/// the credits make one preempted call cost a few quick calls, not the bot's place in line. Its
/// calls and their recent time are counted for the catalog.
#[derive(Debug, Default)]
pub struct Pace {
    credits: AtomicU32,
    calls: AtomicU64,
    /// A moving average of the latest calls' times, in nanoseconds.
    recent: AtomicU64,
}

/// Every bot's pace, by `plugin/bot`.
fn paces() -> MutexGuard<'static, HashMap<String, Arc<Pace>>> {
    static PACES: OnceLock<Mutex<HashMap<String, Arc<Pace>>>> = OnceLock::new();
    PACES.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner())
}

/// The pace of `bot` (`plugin/bot`) as the catalog shows it; none before its first timed call.
pub fn pace_of(bot: &str) -> Option<BotPace> {
    let pace = paces().get(bot).cloned()?;
    let (calls, in_line) = (pace.calls.load(Ordering::Relaxed), ways().in_line && pace.is_quick());
    let recent_call_ms = pace.recent.load(Ordering::Relaxed) as f64 / 1e6;
    (calls > 0).then_some(BotPace { in_line, calls, recent_call_ms })
}

impl Pace {
    /// The pace shared by every agent of `bot` (`plugin/bot`).
    pub fn of_bot(bot: &str) -> Arc<Pace> {
        paces().entry(bot.to_string()).or_default().clone()
    }

    fn is_quick(&self) -> bool {
        self.credits.load(Ordering::Relaxed) >= QUICK
    }

    /// Counts one call of the bot that took `took`.
    pub fn record(&self, took: Duration) {
        let credit = self.credits.load(Ordering::Relaxed);
        let credit = if took < BUDGET {
            (credit + 1).min(CAP)
        } else {
            let cost = (took.as_micros() / BUDGET.as_micros()).min(u128::from(CAP)) as u32;
            credit.saturating_sub(cost)
        };
        self.credits.store(credit, Ordering::Relaxed);
        let took = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        let recent = match self.calls.fetch_add(1, Ordering::Relaxed) {
            0 => took,
            _ => (self.recent.load(Ordering::Relaxed) / 8 * 7).saturating_add(took / 8),
        };
        self.recent.store(recent, Ordering::Relaxed);
    }

    /// Starts over, as for a new bot: its options changed, and its speed with them.
    pub fn forget(&self) {
        self.credits.store(0, Ordering::Relaxed);
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

/// A connected client, counted until dropped: the connection waits for each request through
/// [`Client::wait`], which gives it its [`Scope`].
pub struct Client {
    /// How many calls may run in line at once on the client's runtime: all of its reactor
    /// threads but one (none on a runtime with one thread, or outside a runtime).
    limit: usize,
}

impl Client {
    /// Counts a client of the current runtime, which becomes the one the watchdog wakes.
    pub fn connected() -> Client {
        let limit = Handle::try_current().map_or(0, |runtime| {
            let limit = runtime.metrics().num_workers() - 1;
            if limit > 0 {
                watchdog().runtime.lock().unwrap_or_else(|p| p.into_inner()).replace(runtime);
            }
            limit
        });
        Client::counted(limit)
    }

    fn counted(limit: usize) -> Client {
        CLIENTS.fetch_add(1, Ordering::Relaxed);
        Client { limit }
    }

    /// Waits for the connection's next input (`f`), with the scope of a request read from it:
    /// it may go in line only if the connection had to wait for it (see the module doc).
    pub async fn wait<F: Future>(&self, f: F) -> (F::Output, Scope) {
        let (mut f, mut waited) = (pin!(f), false);
        let output = poll_fn(|cx| {
            let polled = f.as_mut().poll(cx);
            waited |= polled.is_pending();
            polled
        })
        .await;
        (output, self.scope(waited))
    }

    fn scope(&self, waited: bool) -> Scope {
        Scope(if waited { Place::Request { limit: self.limit } } else { Place::Reactor })
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
}

/// A place in line for one call of a bot of pace `pace` made in `scope`, if the rules in the
/// module doc allow it now. Dropped unused (the handle was busy), it counts nothing.
pub fn admit(pace: &Pace, scope: Scope) -> Option<Slot> {
    let Place::Request { limit } = scope.0 else { return None };
    if limit == 0 || CLIENTS.load(Ordering::Relaxed) < 2 || !pace.is_quick() {
        return None;
    }
    // Counted at once; a place over the limit is given back as it drops.
    let in_line_before = IN_LINE.fetch_add(1, Ordering::SeqCst);
    let slot = Slot(());
    (in_line_before < limit).then_some(slot)
}

/// A call's place in line, held from [`admit`] until the call ends.
pub struct Slot(());

impl Slot {
    /// Runs the plugin call `f` here, in line. A host-side panic in `f` is an internal error,
    /// as on a lane.
    pub fn run<T>(self, f: impl FnOnce() -> Result<T, ErrorInfo>) -> Result<T, ErrorInfo> {
        STARTED.fetch_add(1, Ordering::SeqCst);
        // Makes sure the watchdog is awake.
        if watchdog().asleep.load(Ordering::SeqCst) {
            watchdog().thread.unpark();
        }
        catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(panicked()))
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
    use yomi_protocol::ErrorCode;

    const QUICK_CALL: Duration = Duration::from_micros(5);

    /// Records `calls` quick calls into `pace`.
    fn quick_calls(pace: &Pace, calls: u32) -> &Pace {
        (0..calls).for_each(|_| pace.record(QUICK_CALL));
        pace
    }

    #[test]
    fn a_bot_earns_its_place_in_line_by_quick_calls_and_loses_it_by_slow_ones() {
        let pace = &Pace::default();
        assert!(!quick_calls(pace, QUICK - 1).is_quick(), "one quick call short");
        assert!(quick_calls(pace, 1).is_quick());
        // A call preempted for a millisecond costs 20 quick calls, not the place.
        quick_calls(pace, CAP).record(Duration::from_millis(1));
        assert!(pace.is_quick());
        // A bot that thinks for a tenth of a second loses it at once.
        pace.record(Duration::from_millis(100));
        assert!(!pace.is_quick());
        quick_calls(pace, QUICK).forget();
        assert!(!pace.is_quick());
    }

    #[test]
    fn the_catalog_shows_a_bots_pace_once_one_of_its_calls_is_timed() {
        let pace = Pace::of_bot("tests/quick");
        assert_eq!(pace_of("tests/quick"), None);
        quick_calls(&pace, QUICK);
        let shown = BotPace { in_line: true, calls: u64::from(QUICK), recent_call_ms: 0.005 };
        assert_eq!(pace_of("tests/quick"), Some(shown));
        pace.record(Duration::from_millis(8));
        let shown = pace_of("tests/quick").unwrap();
        assert_eq!((shown.in_line, shown.recent_call_ms), (false, 1_004_375. / 1e6));
    }

    /// Runs a call in line if admitted: the thread it ran on.
    fn in_line(pace: &Pace, scope: Scope) -> Option<Result<std::thread::ThreadId, ErrorInfo>> {
        admit(pace, scope).map(|slot| slot.run(|| Ok(std::thread::current().id())))
    }

    /// Every rule in one test: the counters are the process's, so tests of them must not run
    /// side by side.
    #[test]
    fn a_call_runs_in_line_only_when_every_rule_allows() {
        let quick = Pace::default();
        quick_calls(&quick, QUICK);
        let one = Client::counted(1);
        assert!(in_line(&quick, one.scope(true)).is_none(), "a lone client");
        let two = Client::counted(1);
        let ran = in_line(&quick, two.scope(true));
        assert_eq!(ran.unwrap().unwrap(), std::thread::current().id());
        assert!(in_line(&quick, two.scope(false)).is_none(), "not waited for");
        let waited = two.scope(true);
        assert!(in_line(&quick, Client::counted(0).scope(true)).is_none(), "one thread");
        assert!(in_line(&quick, Scope::HANDED_OVER).is_none(), "not a client's request");
        assert!(in_line(&Pace::default(), waited).is_none(), "not quick");
        // All but one reactor thread in line already: the next call goes to a lane.
        let slot = admit(&quick, waited).expect("the first call goes in line");
        let nested = slot.run(|| Ok(in_line(&quick, one.scope(true)).is_none()));
        assert!(nested.unwrap(), "only one call in line at once with a limit of one");
        // A place given back unused (the handle was busy) counts nothing.
        drop(admit(&quick, waited).expect("admitted"));
        assert_eq!(IN_LINE.load(Ordering::SeqCst), 0);
        // A host-side panic is an internal error, and frees the place in line.
        let slot = admit(&quick, waited).expect("admitted");
        let panicked = slot.run(|| -> Result<(), _> { panic!("a host bug") });
        assert_eq!(panicked.unwrap_err().code, ErrorCode::Internal);
        assert_eq!(IN_LINE.load(Ordering::SeqCst), 0);
    }
}
