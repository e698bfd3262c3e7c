//! Progress on a terminal's stderr for the commands that run long: matches, tournaments and
//! ladders count games; `humanlike` and `fit` count the recorded decisions they replay (a
//! 2,000-game `delta-nash` fit replays for many minutes). Hidden when stderr is not a terminal,
//! so scripts and logs see only the result.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How often a followed counter is read.
const POLL: Duration = Duration::from_millis(200);

fn on_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// A bar towards `total` `unit`s, labelled `what`.
pub(crate) fn bar(total: u64, what: &str, unit: &str) -> ProgressBar {
    if !on_terminal() {
        return ProgressBar::hidden();
    }
    styled(
        ProgressBar::new(total),
        &format!("{what} {{bar:30}} {{pos}}/{{len}} {unit}, {{elapsed}} (eta {{eta}})"),
    )
}

/// A line without a known end, labelled `what`, whose message the caller sets.
pub(crate) fn spinner(what: &str) -> ProgressBar {
    if !on_terminal() {
        return ProgressBar::hidden();
    }
    let line = ProgressBar::new_spinner().with_message("starting");
    let line = styled(line, &format!("{what} {{spinner}} {{msg}}, {{elapsed}}"));
    line.enable_steady_tick(POLL);
    line
}

fn styled(bar: ProgressBar, template: &str) -> ProgressBar {
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Runs `work` while `show` draws `counter` (advanced by work on other threads) on `line`
/// every [`POLL`], then clears the line.
pub(crate) fn following<T>(
    line: &ProgressBar,
    counter: Arc<AtomicU64>,
    show: impl Fn(&ProgressBar, u64) + Send + 'static,
    work: impl FnOnce() -> T,
) -> T {
    let follow = {
        let line = line.clone();
        Follow::new(counter, move |n| show(&line, n))
    };
    let out = work();
    drop(follow);
    line.finish_and_clear();
    out
}

/// Reads a counter every [`POLL`] until dropped (and once more then), also when the work it
/// follows panics.
struct Follow {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Follow {
    fn new(counter: Arc<AtomicU64>, show: impl Fn(u64) + Send + 'static) -> Follow {
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let thread = std::thread::spawn(move || loop {
            show(counter.load(Ordering::Relaxed));
            if stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::park_timeout(POLL);
        });
        Follow { done, thread: Some(thread) }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
