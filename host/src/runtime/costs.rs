//! What one request may cost the server, bounded before its work starts: how many games a match
//! or tournament schedules, how long a transcript it may keep, how many worker processes and
//! games run at once across every session. Limits an operator sets with `yomi serve` flags;
//! documented in PROTOCOL.md, "Security".

use std::sync::Arc;

use clap::Args;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use yomi_protocol::{ErrorCode, ErrorInfo};

/// The per-request and server-wide cost limits.
#[derive(Debug, Clone, Args)]
pub struct CostLimits {
    /// Most games one `match.run` or `tournament.run` of a player may schedule.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub max_games: u64,
    /// Most games one `match.run` or `tournament.run` of an operator may schedule.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    pub operator_max_games: u64,
    /// Most games of a `match.run` that asks for its transcript in the reply (the transcript is
    /// held in memory until the match ends).
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub max_transcript_games: u64,
    /// `yomi worker` processes (isolated bots) running at once, across every session.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_workers: usize,
    /// Games of matches and tournaments between bots played at once, across every session
    /// (default: four per core); further games wait their turn in arrival order, so one client's
    /// long match cannot hold every core while others wait. Matches with a client seat go at
    /// their player's pace and are not counted.
    #[arg(long, value_name = "N", default_value_t = default_running_games())]
    pub max_running_games: usize,
}

impl Default for CostLimits {
    fn default() -> Self {
        CostLimits {
            max_games: 100_000,
            operator_max_games: 10_000_000,
            max_transcript_games: 1_000,
            max_workers: 64,
            max_running_games: default_running_games(),
        }
    }
}

/// Four games per core: enough to keep every core busy while some games wait on a deadline.
fn default_running_games() -> usize {
    4 * std::thread::available_parallelism().map_or(1, usize::from)
}

impl CostLimits {
    /// The games one request may schedule.
    pub fn games_for(&self, operator: bool) -> u64 {
        if operator {
            self.operator_max_games
        } else {
            self.max_games
        }
    }

    /// Checks every limit is at least 1 (a server that can run nothing is a mistake).
    pub fn check(&self) -> Result<(), String> {
        let all = [
            ("--max-games", self.max_games),
            ("--operator-max-games", self.operator_max_games),
            ("--max-transcript-games", self.max_transcript_games),
            ("--max-workers", self.max_workers as u64),
            ("--max-running-games", self.max_running_games as u64),
        ];
        match all.iter().find(|(_, value)| *value == 0) {
            Some((flag, _)) => Err(format!("{flag} must be at least 1")),
            None => Ok(()),
        }
    }
}

/// The `limit_exceeded` error of a request that asks for more than a limit allows.
pub fn exceeded(what: String, limit: u64, flag: &str) -> ErrorInfo {
    ErrorInfo::new(
        ErrorCode::LimitExceeded,
        format!("{what}: more than the server allows ({flag} {limit})"),
    )
}

/// The server-wide budgets every session draws from: worker processes and running games.
/// Tokio's semaphore serves waiters first come, first served, which is the fairness asked for.
#[derive(Debug, Clone)]
pub struct Budgets {
    workers: Arc<Semaphore>,
    max_workers: usize,
    games: Arc<Semaphore>,
}

impl Budgets {
    pub fn new(limits: &CostLimits) -> Budgets {
        Budgets {
            workers: Arc::new(Semaphore::new(limits.max_workers)),
            max_workers: limits.max_workers,
            games: Arc::new(Semaphore::new(limits.max_running_games)),
        }
    }

    /// Places for the `count` worker processes of one match, held while its agents live. Taken
    /// all at once (two matches each holding part of what they need would wait for ever), in
    /// arrival order; `limit_exceeded` at once when one match alone needs more than the server has.
    pub async fn workers(&self, count: usize) -> Result<Option<OwnedSemaphorePermit>, ErrorInfo> {
        if count == 0 {
            return Ok(None);
        }
        if count > self.max_workers {
            let what = format!("a game with {count} isolated seats");
            return Err(exceeded(what, self.max_workers as u64, "--max-workers"));
        }
        let permit = self.workers.clone().acquire_many_owned(count as u32).await;
        Ok(Some(permit.expect("the workers semaphore is never closed")))
    }

    /// Waits for a turn to play one game.
    pub async fn game(&self) -> OwnedSemaphorePermit {
        self.games.clone().acquire_owned().await.expect("the games semaphore is never closed")
    }
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets::new(&CostLimits::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_get_the_smaller_game_limit() {
        let limits = CostLimits::default();
        assert_eq!(limits.games_for(false), 100_000);
        assert_eq!(limits.games_for(true), 10_000_000);
    }

    #[test]
    fn a_zero_limit_is_refused_naming_its_flag() {
        let limits = CostLimits { max_workers: 0, ..CostLimits::default() };
        assert_eq!(limits.check(), Err("--max-workers must be at least 1".to_string()));
        assert!(CostLimits::default().check().is_ok());
    }

    #[tokio::test]
    async fn worker_places_are_taken_whole_and_given_back() {
        let budgets = Budgets::new(&CostLimits { max_workers: 2, ..CostLimits::default() });
        assert!(budgets.workers(0).await.unwrap().is_none(), "no isolated seat takes no place");
        let error = budgets.workers(3).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("--max-workers 2"), "{}", error.message);
        let first = budgets.workers(2).await.unwrap();
        let waiting = budgets.workers(1);
        tokio::pin!(waiting);
        assert!(futures_util::poll!(&mut waiting).is_pending(), "every place is taken");
        drop(first);
        assert!(waiting.await.unwrap().is_some());
    }
}
