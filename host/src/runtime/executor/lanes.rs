//! A cheap hand-over for plugin calls: one thread per core (a "lane") takes calls from one queue
//! and keeps looking for the next for a moment before it sleeps.
//!
//! tokio's blocking pool wakes a sleeping thread for every call, and the caller's reactor thread
//! sleeps until the answer wakes it again; on a virtual machine each of those wake-ups costs more
//! than a small bot's whole call. Here a call made while a lane is awake starts at once; under
//! load a lane runs the queued calls one after another without sleeping, and a lone call's caller
//! looks for the answer for a few microseconds before it gives its thread back to the reactor.
//!
//! A bot that never returns holds its lane and nothing else: a call not started within [`RESCUE`]
//! is taken back out of the queue and run on the blocking pool, and while every lane has been
//! busy that long calls go to the pool at once, so no call waits long behind a stuck one. Lanes
//! never run on the reactor's threads.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How long an idle lane keeps looking for its next call before it sleeps: about the gap between
/// a reply and the next request on a busy connection.
const LOOK: Duration = Duration::from_micros(100);

/// How long a lone call's caller looks for the answer before it yields its thread to other
/// tasks: a few calls of a small bot. Bounded whatever the bot does, so a reactor thread is never
/// held longer.
const WAIT: Duration = Duration::from_micros(20);

/// How long a call may wait in the queue before it runs on the blocking pool instead.
const RESCUE: Duration = Duration::from_millis(2);

type Work = Box<dyn FnOnce() + Send>;

/// A call waiting to run: taken once ([`take`]), by a lane, by the blocking pool, or by its
/// caller giving up on it (a call whose caller is gone is never started).
type QueuedCall = Mutex<Option<Work>>;

/// The call's work, unless somebody took it before.
fn take(call: &QueuedCall) -> Option<Work> {
    call.lock().unwrap_or_else(|p| p.into_inner()).take()
}

/// The calls waiting for a lane, and how many lanes and calls are about.
pub struct Lanes {
    queue: Mutex<VecDeque<Arc<QueuedCall>>>,
    wake: Condvar,
    /// Lanes awake without a call: a call queued now starts without a wake-up.
    looking: AtomicUsize,
    /// Calls queued or running.
    in_flight: AtomicUsize,
    /// Per lane, since when it has been running its call (microseconds after `epoch`; 0: idle).
    busy_since: Vec<AtomicU64>,
    epoch: Instant,
    /// How long a call waits for a lane before it goes to the blocking pool.
    rescue: Duration,
}

/// The process's lanes, one per core, started on first use.
pub fn lanes() -> &'static Lanes {
    static LANES: OnceLock<&'static Lanes> = OnceLock::new();
    LANES.get_or_init(|| {
        Lanes::start(std::thread::available_parallelism().map_or(2, |n| n.get()), RESCUE)
    })
}

impl Lanes {
    /// Starts `count` lane threads; they live as long as the process.
    fn start(count: usize, rescue: Duration) -> &'static Lanes {
        let lanes: &'static Lanes = Box::leak(Box::new(Lanes {
            queue: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
            looking: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            busy_since: (0..count).map(|_| AtomicU64::new(0)).collect(),
            epoch: Instant::now(),
            rescue,
        }));
        for index in 0..count {
            std::thread::Builder::new()
                .name(format!("yomi-lane-{index}"))
                .spawn(move || lanes.serve(index))
                .expect("a lane thread starts");
        }
        lanes
    }

    fn serve(&self, index: usize) {
        loop {
            let Some(work) = self.next_call() else { continue };
            let started = self.epoch.elapsed().as_micros().max(1) as u64;
            self.busy_since[index].store(started, Ordering::Relaxed);
            // A host-side panic drops the call's reply sender: its caller gets an error.
            let _ = catch_unwind(AssertUnwindSafe(work));
            self.busy_since[index].store(0, Ordering::Relaxed);
        }
    }

    /// Whether every lane has been running one call for longer than a call may wait for a lane
    /// (bots that never return, or very slow ones): the next call goes straight to the pool
    /// instead of waiting for the rescue.
    fn all_stuck(&self) -> bool {
        let now = self.epoch.elapsed().as_micros() as u64;
        let rescue = self.rescue.as_micros() as u64;
        self.busy_since.iter().all(|since| {
            let since = since.load(Ordering::Relaxed);
            since != 0 && now.saturating_sub(since) >= rescue
        })
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Arc<QueuedCall>>> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next call's work (`None` if it was taken back): looked for for [`LOOK`], then slept
    /// for until one is queued.
    fn next_call(&self) -> Option<Work> {
        // One lane looking is enough to take the next call at once; the others sleep.
        let alone = self.looking.fetch_add(1, Ordering::SeqCst) == 0;
        let give_up = Instant::now() + if alone { LOOK } else { Duration::ZERO };
        let call = loop {
            if let Some(call) = self.queue().pop_front() {
                break call;
            }
            if Instant::now() < give_up {
                std::thread::yield_now();
                continue;
            }
            // `run` reads `looking` after queueing: either it sees this lane asleep and wakes
            // it, or this lane sees its call below.
            self.looking.fetch_sub(1, Ordering::SeqCst);
            let mut queue = self.queue();
            while queue.is_empty() {
                queue = self.wake.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
            self.looking.fetch_add(1, Ordering::SeqCst);
            break queue.pop_front().expect("the queue is not empty");
        };
        self.looking.fetch_sub(1, Ordering::SeqCst);
        take(&call)
    }

    /// Runs `f` on a lane (on the blocking pool if no lane starts it within [`RESCUE`], or at
    /// once when every lane has been busy that long). `None` if `f` panicked. Dropping the
    /// future before `f` starts means `f` never runs.
    pub async fn run<T: Send + 'static>(
        &'static self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (reply, mut answer) = oneshot::channel();
        let work: Work = Box::new(move || {
            let _ = reply.send(f());
        });
        let call = Arc::new(Mutex::new(Some(work)));
        let alone = self.in_flight.fetch_add(1, Ordering::SeqCst) == 0;
        // Lives until the answer (or the caller giving up): see `Ticket`.
        let _ticket = Ticket { lanes: self, call: call.clone() };
        if !self.all_stuck() {
            self.queue().push_back(call.clone());
            let awake = self.looking.load(Ordering::SeqCst) > 0;
            if !awake {
                self.wake.notify_one();
            }
            if awake && alone {
                let give_up = Instant::now() + WAIT;
                while Instant::now() < give_up {
                    match answer.try_recv() {
                        Ok(value) => return Some(value),
                        Err(oneshot::error::TryRecvError::Closed) => return None,
                        Err(oneshot::error::TryRecvError::Empty) => std::hint::spin_loop(),
                    }
                }
            }
            if let Ok(answer) = tokio::time::timeout(self.rescue, &mut answer).await {
                return answer.ok();
            }
        }
        // On the pool, unless a lane took the call meanwhile; still through the ticket, so a
        // caller that gives up before the pool starts the call means it never runs.
        drop(tokio::task::spawn_blocking(move || take(&call).map(|work| work())));
        answer.await.ok()
    }
}

/// One call from queueing to answer: counted in flight, and taken back if its caller gives up.
struct Ticket {
    lanes: &'static Lanes,
    call: Arc<QueuedCall>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        drop(take(&self.call));
        self.lanes.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn answers_come_back_to_their_callers() {
        let answers: Vec<_> =
            (0..64u32).map(|i| tokio::spawn(lanes().run(move || i * 2))).collect();
        for (i, answer) in answers.into_iter().enumerate() {
            assert_eq!(answer.await.unwrap(), Some(i as u32 * 2));
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_call_is_an_error_and_the_lanes_go_on() {
        assert_eq!(lanes().run(|| -> u32 { panic!("a host-side bug") }).await, None);
        assert_eq!(lanes().run(|| 7).await, Some(7));
    }

    /// Holds both of `lanes`'s two lanes in calls that return once the sender is dropped.
    fn stick_both_lanes(lanes: &'static Lanes) -> mpsc::Sender<()> {
        let (release, stuck) = mpsc::channel::<()>();
        let stuck = Arc::new(Mutex::new(stuck));
        let (started, on_lane) = mpsc::channel();
        for _ in 0..2 {
            let (stuck, started) = (stuck.clone(), started.clone());
            tokio::spawn(lanes.run(move || {
                let name = std::thread::current().name().unwrap_or_default().to_string();
                started.send(name.starts_with("yomi-lane")).unwrap();
                let _ = stuck.lock().unwrap().recv();
            }));
            let lane = on_lane.recv_timeout(Duration::from_secs(10)).expect("a call starts");
            assert!(lane, "with no rescue due, a call runs on a lane");
        }
        release
    }

    /// Every lane stuck in a call that never returns: the next call still runs (rescued after
    /// the wait, or at once once the lanes count as stuck).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_behind_stuck_lanes_still_run() {
        let lanes = Lanes::start(2, Duration::from_millis(50));
        let _release = stick_both_lanes(lanes);
        let rescued = tokio::time::timeout(Duration::from_secs(10), lanes.run(|| 42)).await;
        assert_eq!(rescued.expect("a call behind stuck lanes finishes"), Some(42));
        while !lanes.all_stuck() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let direct = tokio::time::timeout(Duration::from_secs(10), lanes.run(|| 43)).await;
        assert_eq!(direct.expect("a call past stuck lanes finishes"), Some(43));
    }

    /// A call whose caller gives up before it starts (a timed-out bot call) never runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_given_up_before_it_starts_never_runs() {
        let lanes = Lanes::start(2, Duration::from_secs(3600));
        let release = stick_both_lanes(lanes);
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = ran.clone();
        let count = move || {
            counter.fetch_add(1, Ordering::SeqCst);
        };
        // Polled once (queued behind the stuck lanes), then dropped.
        let given_up = tokio::time::timeout(Duration::ZERO, lanes.run(count)).await;
        assert!(given_up.is_err(), "the call waited behind stuck lanes");
        drop(release);
        // The lanes are free again and have gone through the queue.
        assert_eq!(lanes.run(|| 1).await, Some(1));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }
}
