//! What one request may cost the server, bounded before its work starts: how many games a match
//! or tournament schedules, how long a transcript it may keep, how many worker processes and
//! games run at once across every session. Limits an operator sets with `yomi serve` flags;
//! documented in PROTOCOL.md, "Security".

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use clap::Args;
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};
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
    /// Most bytes of transcript a `match.run` reply holds (0: no limit): a game that would carry
    /// it past is left out of the transcript, one `omitted` line in its place (its result kept).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MATCH_TRANSCRIPT_BYTES)]
    pub max_match_transcript_bytes: u64,
    /// `yomi worker` processes (isolated bots) running at once, across every session.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_workers: usize,
    /// Games of matches and tournaments between bots played at once, across every session
    /// (default: four per core); further games wait their turn, the clients served in rotation,
    /// so one client's long matches cannot hold every core while others wait. Matches with a client seat go at
    /// their player's pace and are not counted.
    #[arg(long, value_name = "N", default_value_t = default_running_games())]
    pub max_running_games: usize,
    /// Positions of batched `agent.act` requests decided at once, across every session
    /// (default: one per core); further positions wait their turn, the clients served in
    /// rotation, so a client's batch of slow positions cannot keep every core from others'.
    #[arg(long, value_name = "N", default_value_t = default_batch_calls())]
    pub max_batch_calls: usize,
    /// Most CPU time, in milliseconds as the bot reckons its costs, that an `agent.act` asking for
    /// `policy` may add to the decision: bots that estimate their policy by sampling their own
    /// strategy (battle's δ-Nash, Monte Carlo and exploiter) take fewer samples under a lower
    /// limit, never fewer than one, so a policy costs at most one decision plus this much.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MAX_POLICY_MS)]
    pub max_policy_ms: u64,
    /// Most recorded decisions one `humanlike.run` or `fit.run` may replay through a bot, counted
    /// before it starts (records' decisions × replays; a fit's replays at most what its
    /// iterations allow).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REPLAYED_DECISIONS)]
    pub max_replayed_decisions: u64,
    /// The data directory's quota in bytes (0: none): a tournament of the server that would
    /// write past it stops, keeping its recorded games, until space is freed.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_DATA_BYTES)]
    pub max_data_bytes: u64,
    /// Most bytes of records one player's `tournament.run` may write (0: no limit).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_TOURNAMENT_BYTES)]
    pub max_tournament_bytes: u64,
    /// Longest transcript one game of a player's tournament keeps (0: no limit); a longer one
    /// is left out (the game's result is kept). A tournament that asks for transcripts is
    /// counted at this much a game before it starts.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_GAME_TRANSCRIPT_BYTES)]
    pub max_game_transcript_bytes: u64,
}

/// 32 MiB of a `match.run` reply's transcript: hundreds of short games, or about fifteen rps
/// games of 300 rounds; held as text while the match plays.
pub const DEFAULT_MAX_MATCH_TRANSCRIPT_BYTES: u64 = 32 << 20;

/// Two seconds: battle's δ-Nash policy from 5,000 draws of its noisy equilibria.
pub const DEFAULT_MAX_POLICY_MS: u64 = 2_000;

/// A hundred million decisions: a battle or Sevens bot replays 100,000 in about 10 s, so under
/// three hours of one core; enough for a fit on thousands of games at its default iterations.
pub const DEFAULT_MAX_REPLAYED_DECISIONS: u64 = 100_000_000;

/// 8 GiB: room for millions of games without transcripts, and for every battle table.
pub const DEFAULT_MAX_DATA_BYTES: u64 = 8 << 30;

/// 256 MiB of one player's tournament: a million games' results, or thousands with transcripts.
pub const DEFAULT_MAX_TOURNAMENT_BYTES: u64 = 256 << 20;

/// 1 MiB: a long game's transcript (an rps game of 300 rounds takes about 1.9 MB).
pub const DEFAULT_MAX_GAME_TRANSCRIPT_BYTES: u64 = 1 << 20;

impl Default for CostLimits {
    fn default() -> Self {
        CostLimits {
            max_games: 100_000,
            operator_max_games: 10_000_000,
            max_transcript_games: 1_000,
            max_match_transcript_bytes: DEFAULT_MAX_MATCH_TRANSCRIPT_BYTES,
            max_workers: 64,
            max_running_games: default_running_games(),
            max_batch_calls: default_batch_calls(),
            max_policy_ms: DEFAULT_MAX_POLICY_MS,
            max_replayed_decisions: DEFAULT_MAX_REPLAYED_DECISIONS,
            max_data_bytes: DEFAULT_MAX_DATA_BYTES,
            max_tournament_bytes: DEFAULT_MAX_TOURNAMENT_BYTES,
            max_game_transcript_bytes: DEFAULT_MAX_GAME_TRANSCRIPT_BYTES,
        }
    }
}

/// One batched decision per core: a batch is CPU, not waiting.
fn default_batch_calls() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
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
            ("--max-batch-calls", self.max_batch_calls as u64),
            ("--max-replayed-decisions", self.max_replayed_decisions),
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

/// The server-wide budgets every session draws from: worker processes (first come, first
/// served: tokio's semaphore) and turns to play a game (shared among the clients in turn, see
/// [`Turns`]).
#[derive(Debug, Clone)]
pub struct Budgets {
    workers: Arc<Semaphore>,
    max_workers: usize,
    games: Arc<Turns>,
    batch_calls: Arc<Turns>,
    /// The client whose games and batches these are.
    client: u64,
}

impl Budgets {
    pub fn new(limits: &CostLimits) -> Budgets {
        Budgets {
            workers: Arc::new(Semaphore::new(limits.max_workers)),
            max_workers: limits.max_workers,
            games: Arc::new(Turns::new(limits.max_running_games)),
            batch_calls: Arc::new(Turns::new(limits.max_batch_calls)),
            client: 0,
        }
    }

    /// The same budgets, drawn on by `client` (a session's number): its games wait their turn
    /// among other clients', not behind all of them.
    pub fn for_client(&self, client: u64) -> Budgets {
        Budgets { client, ..self.clone() }
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

    /// A place for one process that an agent holds while it lives (an engine's, for `agent.new`):
    /// at once, or `limit_exceeded` while every place is taken, since the agent would hold its
    /// session's requests for as long as it waited.
    pub fn worker_now(&self) -> Result<OwnedSemaphorePermit, ErrorInfo> {
        self.workers.clone().try_acquire_owned().map_err(|_| {
            let what = "an agent in a process of its own, while every place is taken".to_string();
            exceeded(what, self.max_workers as u64, "--max-workers")
        })
    }

    /// Waits for a turn to play one game.
    pub async fn game(&self) -> Turn {
        Turns::take(&self.games, self.client).await
    }

    /// Waits for a turn to decide one position of a batched `agent.act`.
    pub async fn batch_call(&self) -> Turn {
        Turns::take(&self.batch_calls, self.client).await
    }
}

/// Turns to play a game (or decide a batch's position), `places` at a time, handed to the
/// waiting clients in rotation: a client running sixteen long matches gets one turn in every
/// round, like a client running one, instead of sixteen turns to its one as a first-come queue
/// would give.
#[derive(Debug)]
pub struct Turns {
    state: Mutex<TurnState>,
}

#[derive(Debug)]
struct TurnState {
    /// Places no game holds.
    free: usize,
    /// Each waiting client's waiters, in arrival order.
    waiting: HashMap<u64, VecDeque<oneshot::Sender<()>>>,
    /// The clients with waiters, the next to be served first.
    rotation: VecDeque<u64>,
}

/// A turn to play one game; the place goes to the next client in rotation when it is dropped.
#[derive(Debug)]
pub struct Turn {
    turns: Arc<Turns>,
}

impl Turns {
    pub fn new(places: usize) -> Turns {
        let state = TurnState { free: places, waiting: HashMap::new(), rotation: VecDeque::new() };
        Turns { state: Mutex::new(state) }
    }

    async fn take(turns: &Arc<Turns>, client: u64) -> Turn {
        let waiter = {
            let mut guard = turns.state.lock().expect("turns never poisoned");
            let state = &mut *guard;
            if state.free > 0 && state.rotation.is_empty() {
                state.free -= 1;
                return Turn { turns: turns.clone() };
            }
            let (tell, told) = oneshot::channel();
            let queue = state.waiting.entry(client).or_default();
            if queue.is_empty() {
                state.rotation.push_back(client);
            }
            queue.push_back(tell);
            told
        };
        // The sender is kept until a turn is handed over: an error cannot happen while the
        // state lives, and the state lives as long as `turns`.
        waiter.await.expect("a waiter is told, never dropped");
        Turn { turns: turns.clone() }
    }

    /// Hands a place to the next client in rotation, skipping waiters that gave up; frees it
    /// when nobody waits.
    fn give_back(&self) {
        let mut guard = self.state.lock().expect("turns never poisoned");
        let state = &mut *guard;
        while let Some(client) = state.rotation.pop_front() {
            let queue = state.waiting.get_mut(&client).expect("a client in rotation waits");
            let tell = queue.pop_front().expect("a client in rotation has a waiter");
            if queue.is_empty() {
                state.waiting.remove(&client);
            } else {
                state.rotation.push_back(client);
            }
            if tell.send(()).is_ok() {
                return;
            }
        }
        state.free += 1;
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.turns.give_back();
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
    async fn turns_go_round_the_clients_not_first_come() {
        let budgets = Budgets::new(&CostLimits { max_running_games: 1, ..CostLimits::default() });
        let (greedy, modest) = (budgets.for_client(1), budgets.for_client(2));
        let playing = greedy.game().await;
        // The greedy client queues five games, then the modest one queues one.
        let (order, played) = tokio::sync::mpsc::unbounded_channel();
        let mut waiting = Vec::new();
        for (client, name) in [(&greedy, "greedy"); 5].into_iter().chain([(&modest, "modest")]) {
            let (client, order) = (client.clone(), order.clone());
            waiting.push(tokio::spawn(async move {
                let _turn = client.game().await;
                order.send(name).unwrap();
            }));
            tokio::task::yield_now().await;
        }
        drop((playing, order));
        for task in waiting {
            task.await.unwrap();
        }
        let order: Vec<&str> = std::iter::from_fn({
            let mut played = played;
            move || played.try_recv().ok()
        })
        .collect();
        assert_eq!(order, ["greedy", "modest", "greedy", "greedy", "greedy", "greedy"]);
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_passes_its_turn_on() {
        let budgets = Budgets::new(&CostLimits { max_running_games: 1, ..CostLimits::default() });
        let playing = budgets.for_client(1).game().await;
        let gave_up = budgets.for_client(2);
        let mut waiting = Box::pin(gave_up.game());
        assert!(futures_util::poll!(&mut waiting).is_pending());
        drop(waiting);
        drop(playing);
        // The place was not lost with the waiter that left.
        let _next = budgets.for_client(3).game().await;
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
