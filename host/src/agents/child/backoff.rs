//! Crash-loop back-off shared by every agent of one bot: a bot whose processes keep dying soon
//! after they start is started ever more slowly, as service managers space out a crash loop, so
//! it cannot spend the machine on starting processes while other clients wait. It is counted per
//! bot, not per agent: thirty `agent.new` of an engine that dies at its handshake start a handful
//! of processes, not thirty at once. A new agent of a bot whose last few starts failed is
//! refused until the pause is over (its client is told when to try again); otherwise a start
//! waits its turn (one failure may be the options', not the bot's).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// A child that dies within this long of starting counts as crash-looping.
pub const QUICK_DEATH: Duration = Duration::from_secs(1);

/// The pause before the next start after `quick_deaths` quick deaths in a row: none for a child
/// that ran a while, then 10 ms doubling up to 1 s.
pub fn pause(quick_deaths: u32) -> Duration {
    match quick_deaths {
        0 => Duration::ZERO,
        n => Duration::from_millis(10 << (n - 1).min(7)).min(Duration::from_secs(1)),
    }
}

/// Failed starts in a row after which a new agent is refused during the pause.
pub const REFUSE_AFTER: u32 = 3;

/// One bot's crash loop.
#[derive(Debug, Default)]
pub struct Backoff {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Processes in a row that died soon after starting.
    quick_deaths: u32,
    /// Starts in a row that failed (the process died or refused before it was open).
    failed_starts: u32,
    /// No process starts before this.
    next_start: Option<Instant>,
}

/// Every bot's back-off, by its label (`engine/NAME`, `plugin/bot`).
static BY_BOT: LazyLock<Mutex<HashMap<String, Arc<Backoff>>>> = LazyLock::new(Mutex::default);

impl Backoff {
    /// The back-off of `bot`, shared by all its agents.
    pub fn of(bot: &str) -> Arc<Backoff> {
        BY_BOT.lock().unwrap().entry(bot.to_string()).or_default().clone()
    }

    /// Whether a new agent may wait for its turn: not while the bot's last [`REFUSE_AFTER`]
    /// starts or more failed and the pause is not over (then: how many failed, and how long is
    /// left).
    pub fn admit(&self) -> Result<(), (u32, Duration)> {
        let state = self.state.lock().unwrap();
        let now = Instant::now();
        match state.next_start {
            Some(at) if at > now && state.failed_starts >= REFUSE_AFTER => {
                Err((state.failed_starts, at - now))
            }
            _ => Ok(()),
        }
    }

    /// Waits for this bot's turn to start a process. A start takes the pause of the crash loop
    /// so far for itself: the next start waits that long after it, however many wait at once.
    pub async fn turn(&self) {
        loop {
            let wait = {
                let mut state = self.state.lock().unwrap();
                let now = Instant::now();
                match state.next_start {
                    Some(at) if at > now => at - now,
                    _ => {
                        state.next_start = Some(now + pause(state.quick_deaths));
                        return;
                    }
                }
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// A start of this bot failed after `lived`, or it succeeded.
    pub fn started(&self, ok: bool, lived: Duration) {
        match ok {
            true => self.state.lock().unwrap().failed_starts = 0,
            false => {
                self.state.lock().unwrap().failed_starts += 1;
                self.ended(lived);
            }
        }
    }

    /// A process of this bot ended after living `lived`.
    pub fn ended(&self, lived: Duration) {
        let mut state = self.state.lock().unwrap();
        if lived < QUICK_DEATH {
            state.quick_deaths = state.quick_deaths.saturating_add(1);
            let next = Instant::now() + pause(state.quick_deaths);
            state.next_start = Some(state.next_start.map_or(next, |at| at.max(next)));
        } else {
            state.quick_deaths = 0;
        }
    }

    /// A process of this bot answered after living long enough: the crash loop, if any, is over.
    pub fn lived(&self) {
        self.state.lock().unwrap().quick_deaths = 0;
    }

    /// Quick deaths in a row so far.
    #[cfg(test)]
    fn quick_deaths(&self) -> u32 {
        self.state.lock().unwrap().quick_deaths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_loop_is_restarted_ever_more_slowly_up_to_a_second() {
        let pauses: Vec<u64> = (0..10).map(|n| pause(n).as_millis() as u64).collect();
        assert_eq!(pauses, [0, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        assert_eq!(pause(u32::MAX), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn agents_of_one_bot_wait_their_turn_together() {
        let backoff = Backoff::of("test/crashing");
        let start = Instant::now();
        // Ten starts at once, each dying at once: spaced by the growing pause, not all at once.
        let mut starts = Vec::new();
        for _ in 0..10 {
            backoff.turn().await;
            starts.push(start.elapsed());
            backoff.ended(Duration::ZERO);
        }
        assert_eq!(backoff.quick_deaths(), 10);
        let millis: Vec<u128> = starts.iter().map(Duration::as_millis).collect();
        assert_eq!(millis, [0, 10, 30, 70, 150, 310, 630, 1270, 2270, 3270]);
        assert!(Arc::ptr_eq(&backoff, &Backoff::of("test/crashing")), "one per bot");
        // Failed starts: a new agent waits its turn after one or two, is refused after three.
        let starts = Backoff::of("test/failing");
        for failed in 1..=REFUSE_AFTER {
            assert!(starts.admit().is_ok(), "after {} failed starts", failed - 1);
            starts.turn().await;
            starts.started(false, Duration::ZERO);
        }
        let (failed, left) = starts.admit().unwrap_err();
        assert_eq!((failed, left), (REFUSE_AFTER, pause(REFUSE_AFTER)));
        tokio::time::advance(left).await;
        assert!(starts.admit().is_ok(), "once the pause is over");
        // A process that lived ends the loop: the next start is at once.
        backoff.ended(QUICK_DEATH);
        assert_eq!(backoff.quick_deaths(), 0);
    }
}
