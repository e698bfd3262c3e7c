//! Plays a tournament's schedule: games in parallel up to the concurrency, each committed to the
//! records before it counts; a resumed tournament plays only the games that have no record.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::mpsc;
use yomi_protocol::ops::tournaments::{Listed, Summary};
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::finished::{finished_of, Finished};
use super::openings;
use super::outcomes::Counts;
use super::quota::WriteBudget;
use super::schedule::{Schedule, Slot, TournamentSpec};
use super::shard::Block;
use super::standings;
use super::store::{GameRow, Store, StoredTournament};
use crate::matches::referee::GameRecord;
use crate::matches::runner::{self, MatchPlan, MatchSpec, PlayedMatch};
use crate::matches::seat::{SeatEnv, SeatPlan, SeatSpec};
use crate::registry::{GameRef, Registry};
use crate::runtime::auth::Role;
use crate::runtime::blocking::blocking;
use crate::runtime::executor::{on_game_thread, Scope};

/// A checked tournament, ready to run.
pub struct Tournament {
    pub id: String,
    pub spec: TournamentSpec,
    pub seats: usize,
    game: GameRef,
    game_options: Options,
    /// Each opening's complete game options, when the tournament has openings.
    openings: Vec<Options>,
    bots: Vec<SeatPlan>,
    /// One distinct name per bot of the spec, for the tables.
    pub labels: Vec<String>,
    pub schedule: Schedule,
}

impl Tournament {
    /// Checks the spec against the plugins: the game exists, every bot plays it, options check,
    /// the schedule has at most `max_games` games.
    pub fn prepare(
        registry: &Registry,
        id: String,
        spec: TournamentSpec,
        max_games: u64,
    ) -> Result<Tournament, ErrorInfo> {
        spec.check()?;
        let game = registry.resolve_game(&spec.game)?;
        let seats = spec.seats.unwrap_or(game.info.min_seats);
        if seats < game.info.min_seats || seats > game.info.max_seats {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!(
                    "`{}` is played by {} to {} seats, not {seats}",
                    spec.game, game.info.min_seats, game.info.max_seats
                ),
            ));
        }
        if spec.bots.len() < seats {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("{seats}-seat games need at least {seats} bots"),
            ));
        }
        let game_options = runner::game_options_for(&game, &spec.game_options, seats)?;
        let openings = match &spec.openings {
            None => Vec::new(),
            Some(openings) => {
                let suite = openings.suite()?;
                let merged = suite.merged(&spec.game_options)?;
                merged
                    .iter()
                    .enumerate()
                    .map(|(i, options)| {
                        runner::game_options_for(&game, options, seats).map_err(|e| {
                            ErrorInfo::new(e.code, format!("{}: {}", suite.place(i), e.message))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
        };
        let bots = spec
            .bots
            .iter()
            .map(|b| SeatPlan::resolve(registry, &spec.game, &SeatSpec::Bot(b.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        let labels = labels(&spec, &bots);
        let schedule = spec.schedule(seats, max_games)?;
        Ok(Tournament { id, spec, seats, game, game_options, openings, bots, labels, schedule })
    }

    /// Starts the game once from every opening, so a position the game refuses stops the
    /// tournament before its first game (see [`openings::check_games`]).
    pub async fn check_openings(&self) -> Result<(), ErrorInfo> {
        match &self.spec.openings {
            Some(openings) => {
                openings::check_games(&self.game, openings.suite()?, &self.openings).await
            }
            None => Ok(()),
        }
    }

    /// The game options of the game in `slot`: its opening's, or the tournament's.
    fn options_of(&self, slot: &Slot) -> &Options {
        match slot.opening {
            Some(opening) => &self.openings[opening as usize],
            None => &self.game_options,
        }
    }

    /// The positions of the games this process plays: the whole schedule, or the shard's block.
    pub fn slots(&self) -> Range<u64> {
        match &self.spec.shard {
            None => 0..self.schedule.total(),
            Some(shard) => self.schedule.block(shard),
        }
    }

    /// How many games this process plays.
    pub fn scheduled(&self) -> u64 {
        let slots = self.slots();
        slots.end - slots.start
    }

    fn plan(&self, slot: &Slot) -> MatchPlan {
        let game_options = self.options_of(slot);
        MatchPlan {
            spec: MatchSpec {
                game: self.spec.game.clone(),
                game_options: game_options.clone(),
                seats: slot
                    .seats
                    .iter()
                    .map(|&b| SeatSpec::Bot(self.spec.bots[b].clone()))
                    .collect(),
                seed: slot.seed,
                games: 1,
                policy: self.spec.policy.clone(),
            },
            game: self.game.clone(),
            game_options: game_options.clone(),
            seats: slot.seats.iter().map(|&b| self.bots[b].clone()).collect(),
            keep_games: true,
            log_as_text: true,
            max_transcript_bytes: None,
        }
    }
}

/// Distinct labels: `plugin/bot`, with the preset and the options an entry changes, so a table
/// says which personality played.
fn labels(spec: &TournamentSpec, bots: &[SeatPlan]) -> Vec<String> {
    let base: Vec<String> = bots.iter().map(SeatPlan::label).collect();
    let mut labels: Vec<String> = base
        .iter()
        .zip(&spec.bots)
        .map(|(name, seat)| {
            let extras: Vec<String> = seat
                .preset
                .iter()
                .map(|p| format!("preset={p}"))
                .chain(seat.options.iter().map(|(k, v)| match v.as_str() {
                    Some(text) => format!("{k}={text}"),
                    None => format!("{k}={v}"),
                }))
                .collect();
            if !extras.is_empty() {
                format!("{name}:{}", extras.join(","))
            } else {
                name.clone()
            }
        })
        .collect();
    for i in 0..labels.len() {
        if labels[..i].contains(&labels[i]) {
            labels[i] = format!("{}#{}", labels[i], i + 1);
        }
    }
    labels
}

/// A fresh tournament id: the start time (ids sort by it) and 64 bits from the OS's random
/// source, so an id cannot be guessed from another.
pub fn new_id() -> String {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).expect("the OS's random source");
    format!("t{}-{:016x}", now.as_secs(), u64::from_le_bytes(random))
}

/// The longest tournament id a client may name for a new tournament.
pub const MAX_ID_CHARS: usize = 64;

/// Room for a shard's suffix (`-shard-99999-of-100000`) on a stored id.
const SHARD_SUFFIX_CHARS: usize = 32;

/// Refuses an id a client names that is empty, longer than `max` or holds anything but letters,
/// digits, `-`, `_` and `.`: ids name lock files and go into logs and listings.
fn check_id(id: &str, max: usize) -> Result<(), ErrorInfo> {
    let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if id.is_empty() || id.len() > max || !id.chars().all(fine) {
        let shown: String = id.chars().take(max).collect();
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!(
                "`{shown}{}` is not a tournament id: 1 to {max} letters, digits, `-`, `_` or `.`",
                if shown.len() < id.len() { "..." } else { "" }
            ),
        ));
    }
    Ok(())
}

/// Plays the tournament's missing games, each with seats started in `env` (its data directory
/// and budgets), and returns the summary. Games are committed in batches;
/// `progress(committed, total)` is called after each batch.
pub async fn run(
    t: Arc<Tournament>,
    store: Arc<Mutex<Store>>,
    env: SeatEnv,
    mut budget: WriteBudget,
    mut progress: impl FnMut(u64, u64) + Send,
) -> Result<Summary, ErrorInfo> {
    let id = t.id.clone();
    let stored = {
        let (store, id) = (store.clone(), id.clone());
        blocking(move || store.lock().unwrap().games(&id)).await?
    };
    let done: HashSet<u64> = stored.iter().map(|g| g.index).collect();
    let mut finished = finished_of(&t.schedule, &stored);
    let total = t.scheduled();
    let todo = Todo { next: t.slots(), done };
    // The SPRT looks at the two bots' outcomes, kept up to date game by game.
    let mut sprt_counts = Counts::default();
    finished.iter().for_each(|g| sprt_counts.add(&SPRT_BOTS, g));
    let stop = StopOnDrop::default();
    let mut decided = sprt_decided(&t, &sprt_counts);
    stop.set_if(decided);
    let mut played_games = start_players(t.clone(), todo, env, stop.0.clone());
    let mut batch = Batch::new(finished.len() as u64);
    loop {
        // Caught up with the players: let their games queue up for a moment, so one wake-up takes
        // many. Waking for every game put this loop on a player's core once per game, and the
        // players of a fast game (rps) spent a quarter of their time preempted.
        if played_games.is_empty() {
            tokio::time::sleep(COLLECT).await;
        }
        let Some(played) = played_games.recv().await else { break };
        // Games that finish after the SPRT decided (they were already being played) are not
        // part of its test: the record ends where the test did.
        if decided {
            continue;
        }
        let PlayedGame { slot, record, transcript } = match played {
            Ok(played) => played,
            Err(e) => {
                // Keep what was played before the failure.
                batch.commit(&store, &id, &mut budget).await?;
                return Err(e);
            }
        };
        let (scores, failures) = (record.scores, record.failures);
        let row = GameRow {
            index: slot.index,
            pair: slot.pair,
            opening: slot.opening,
            seats: json!(slot.seats.iter().map(|&b| t.labels[b].clone()).collect::<Vec<_>>()),
            scores: scores.clone(),
            failures: serde_json::to_value(&failures).expect("failures serialize"),
            forfeit: serde_json::to_value(record.forfeit).expect("forfeits serialize"),
            transcript,
        };
        batch.rows.push(row);
        crate::runtime::metrics::tournament_game(&t.spec.game);
        let game = Finished { slot, scores, failures };
        sprt_counts.add(&SPRT_BOTS, &game);
        finished.push(game);
        decided = sprt_decided(&t, &sprt_counts);
        stop.set_if(decided);
        if batch.is_due() {
            progress(batch.commit(&store, &id, &mut budget).await?, total);
        }
    }
    progress(batch.commit(&store, &id, &mut budget).await?, total);
    let summary = summary(&t, &finished, "finished");
    let result = serde_json::to_value(&summary).expect("summaries serialize");
    let (store, id2) = (store.clone(), id.clone());
    blocking(move || store.lock().unwrap().finish(&id2, &result)).await?;
    Ok(summary)
}

/// Most games committed in one transaction.
const BATCH_GAMES: usize = 64;

/// How long the committing loop lets played games queue up once it has taken them all. An SPRT
/// decision stops the players this much later at most.
const COLLECT: Duration = Duration::from_millis(5);

/// Played games that may wait for the committing loop before the players wait in turn: more than
/// the fastest game's players play in [`COLLECT`].
const QUEUED_GAMES: usize = 1024;

/// Longest a played game waits to be committed.
const BATCH_WAIT: Duration = Duration::from_millis(250);

/// Finished games not yet committed. Games are deterministic by seed, so a game lost to a crash
/// before its batch commits is simply played again, identically, on resume.
struct Batch {
    rows: Vec<GameRow>,
    /// When the oldest uncommitted game finished.
    since: Instant,
    /// Games in the store.
    committed: u64,
}

impl Batch {
    fn new(committed: u64) -> Batch {
        Batch { rows: Vec::new(), since: Instant::now(), committed }
    }

    fn is_due(&self) -> bool {
        self.rows.len() >= BATCH_GAMES || self.since.elapsed() >= BATCH_WAIT
    }

    /// Commits the batch in one transaction, if `budget` lets it be written; returns how many
    /// games the store now holds.
    async fn commit(
        &mut self,
        store: &Arc<Mutex<Store>>,
        id: &str,
        budget: &mut WriteBudget,
    ) -> Result<u64, ErrorInfo> {
        let mut rows = std::mem::take(&mut self.rows);
        self.since = Instant::now();
        if rows.is_empty() {
            return Ok(self.committed);
        }
        let (fit, stop) = budget.admit(id, self.committed, &mut rows);
        rows.truncate(fit);
        let count = rows.len() as u64;
        let (store, id) = (store.clone(), id.to_string());
        blocking(move || store.lock().unwrap().record_games(&id, &rows)).await?;
        self.committed += count;
        stop.map_or(Ok(self.committed), Err)
    }
}

/// One scheduled game, played.
struct PlayedGame {
    slot: Slot,
    record: GameRecord,
    /// The rendered transcript, empty unless the tournament keeps transcripts.
    transcript: String,
}

/// Set when no more games should start (the SPRT decided, or the tournament's task ended).
#[derive(Default)]
struct StopOnDrop(Arc<AtomicBool>);

impl StopOnDrop {
    fn set_if(&self, stop: bool) {
        if stop {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The games still to play: the positions of `next` that have no record, taken in order.
struct Todo {
    next: Range<u64>,
    done: HashSet<u64>,
}

impl Todo {
    fn take(&mut self) -> Option<u64> {
        self.next.by_ref().find(|index| !self.done.contains(index))
    }
}

/// Starts one player per unit of concurrency; each takes the next game of `todo` until none is
/// left, `stop` is set, a game fails, or nobody receives the results any more. A player runs
/// game after game without waiting for the results to be committed. Without a decision deadline a
/// player runs whole on one game thread, its calls made right there (`runtime::executor`):
/// no hand-over between threads per call or per game; with a deadline each call is handed over on
/// its own, so the deadline can cut it short.
fn start_players(
    t: Arc<Tournament>,
    todo: Todo,
    env: SeatEnv,
    stop: Arc<AtomicBool>,
) -> mpsc::Receiver<Result<PlayedGame, ErrorInfo>> {
    let (results, played_games) = mpsc::channel(QUEUED_GAMES);
    let todo = Arc::new(Mutex::new(todo));
    for _ in 0..t.spec.concurrency {
        let deadline = t.spec.policy.deadline();
        let (t, todo, env, stop, results) =
            (t.clone(), todo.clone(), env.clone(), stop.clone(), results.clone());
        let player = move |scope| play_games(t, todo, SeatEnv { scope, ..env }, stop, results);
        match deadline {
            None => drop(tokio::spawn(on_game_thread(player))),
            Some(_) => drop(tokio::spawn(player(Scope::HANDED_OVER))),
        }
    }
    played_games
}

async fn play_games(
    t: Arc<Tournament>,
    todo: Arc<Mutex<Todo>>,
    env: SeatEnv,
    stop: Arc<AtomicBool>,
    results: mpsc::Sender<Result<PlayedGame, ErrorInfo>>,
) -> Result<(), ErrorInfo> {
    while !stop.load(Ordering::Relaxed) {
        let Some(index) = todo.lock().unwrap_or_else(|p| p.into_inner()).take() else { break };
        let played = play_slot(&t, t.schedule.slot(index), &env).await;
        let failed = played.is_err();
        if results.send(played).await.is_err() || failed {
            break;
        }
    }
    Ok(())
}

/// Plays one scheduled game with fresh agents.
async fn play_slot(t: &Tournament, slot: Slot, env: &SeatEnv) -> Result<PlayedGame, ErrorInfo> {
    let plan = t.plan(&slot);
    let env =
        SeatEnv { deadline: t.spec.policy.deadline(), explain: t.spec.explain, ..env.clone() };
    let PlayedMatch { result, log } = runner::play(&plan, &env, |_| {}).await?;
    let record = result.records.into_iter().next().expect("a one-game match has one record");
    let transcript = if t.spec.keep_transcripts { log.into_text() } else { String::new() };
    Ok(PlayedGame { slot, record, transcript })
}

/// The SPRT's two bots (a tournament with an SPRT has exactly two).
const SPRT_BOTS: [usize; 2] = [0, 1];

fn sprt_decided(t: &Tournament, counts: &Counts) -> bool {
    let outcomes = counts.outcomes(t.spec.repeat);
    t.spec.sprt.as_ref().is_some_and(|sprt| sprt.state(outcomes.as_ref()).decision != "continue")
}

/// The tournament's result: id, status, games finished, standings, pairings (and SPRT).
pub fn summary(t: &Tournament, finished: &[Finished], status: &str) -> Summary {
    Summary {
        id: t.id.clone(),
        status: status.into(),
        game: t.spec.game.clone(),
        games: finished.len() as u64,
        scheduled: t.scheduled(),
        shard: t.spec.shard,
        standings: standings::standings(&t.spec, &t.labels, t.seats, finished),
    }
}

/// The id a new tournament gets: `id` if given, else a fresh one; a shard's id is the whole
/// tournament's id (given, or derived from the spec so every shard agrees) with its shard suffix.
pub fn id_for(spec: &TournamentSpec, id: Option<String>) -> Result<String, ErrorInfo> {
    if let Some(id) = &id {
        check_id(id, MAX_ID_CHARS)?;
    }
    Ok(match &spec.shard {
        None => id.unwrap_or_else(new_id),
        Some(s) => s.tournament_id(&id.unwrap_or_else(|| spec.derived_id())),
    })
}

/// Checks a new tournament and records it as running, started by `by`.
fn create_as(
    registry: &Registry,
    store: &Store,
    spec: TournamentSpec,
    id: String,
    max_games: u64,
    by: Role,
) -> Result<Tournament, ErrorInfo> {
    let t = Tournament::prepare(registry, id, spec, max_games)?;
    let spec_json = serde_json::to_value(&t.spec).expect("specs serialize");
    store.create(&t.id, &spec_json, t.scheduled(), by)?;
    Ok(t)
}

/// The stored tournament `id` as `by` may see it: an operator sees every one, a player only the
/// players' (another's is "not there", so its id tells a player nothing).
pub fn stored_for(
    store: &Store,
    id: &str,
    by: Role,
) -> Result<Option<StoredTournament>, ErrorInfo> {
    Ok(store.get(id)?.filter(|t| by == Role::Operator || t.owner == by))
}

/// What to do with a tournament whose id may already be in the records.
pub enum Start {
    Play(Box<Tournament>),
    /// Finished before: nothing left to play (a retried shard of a finished job).
    AlreadyFinished(String),
}

/// Starts the tournament, or resumes it when the records already hold the same tournament under
/// its id: so a shard's command, retried after a crash (as Kubernetes and Slurm retry), carries
/// on where it stopped. A different tournament under the same id is refused.
pub fn create_or_resume(
    registry: &Registry,
    store: &Store,
    spec: TournamentSpec,
    id: Option<String>,
    max_games: u64,
    by: Role,
) -> Result<Start, ErrorInfo> {
    let id = id_for(&spec, id)?;
    let Some(stored) = store.get(&id)? else {
        let t = create_as(registry, store, spec, id, max_games, by)?;
        return Ok(Start::Play(Box::new(t)));
    };
    if stored_for(store, &id, by)?.is_none() {
        return Err(ErrorInfo::new(
            ErrorCode::Conflict,
            format!("the records already hold a tournament `{id}`: choose another id"),
        ));
    }
    let same = serde_json::from_value::<TournamentSpec>(stored.spec)
        .is_ok_and(|s| s.identity() == spec.identity() && s.shard == spec.shard);
    if !same {
        return Err(ErrorInfo::new(
            ErrorCode::Conflict,
            format!("the records already hold a different tournament `{id}`"),
        ));
    }
    if stored.status == "finished" {
        return Ok(Start::AlreadyFinished(id));
    }
    reopen(registry, store, &id, max_games, by).map(|t| Start::Play(Box::new(t)))
}

/// Reopens an interrupted tournament from its stored spec, if `by` may play it.
pub fn reopen(
    registry: &Registry,
    store: &Store,
    id: &str,
    max_games: u64,
    by: Role,
) -> Result<Tournament, ErrorInfo> {
    check_id(id, MAX_ID_CHARS + SHARD_SUFFIX_CHARS)?;
    let stored = stored_for(store, id, by)?.ok_or_else(|| {
        ErrorInfo::new(ErrorCode::NotFound, format!("no tournament `{id}` in the records"))
    })?;
    if stored.status == "finished" {
        return Err(ErrorInfo::new(
            ErrorCode::Conflict,
            format!("tournament `{id}` is already finished ({} games)", stored.games),
        ));
    }
    let spec: TournamentSpec = serde_json::from_value(stored.spec).map_err(|e| {
        ErrorInfo::new(ErrorCode::Internal, format!("stored spec of `{id}` is unreadable: {e}"))
    })?;
    Tournament::prepare(registry, id.to_string(), spec, max_games)
}

/// The stored tournaments, as recorded (see [`liveness::mark_interrupted`]).
pub fn list(store: &Store) -> Result<Vec<Listed>, ErrorInfo> {
    Ok(store.list()?.into_iter().map(list_one).collect())
}

/// One stored tournament as a listing shows it.
pub fn list_one(t: StoredTournament) -> Listed {
    let game = t.spec["game"].as_str().map(String::from);
    Listed { id: t.id, status: t.status, games: t.games, total: t.total, game }
}
