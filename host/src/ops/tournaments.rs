//! `tournament.run` and `tournament.list` over the protocol.

use std::path::Path;
use std::sync::{Arc, Mutex};

use yomi_protocol::events::{TournamentProgress, TournamentStarted};
use yomi_protocol::ops as wire;
use yomi_protocol::ops::tournaments::{
    Game, GameEntry, GameRecord, Games, GamesPage, Listed, Run, Show, Shown, SuiteListed,
    MAX_GAMES_PAGE,
};
use yomi_protocol::{ErrorCode, ErrorInfo, RequestId};

use crate::matches::seat::SeatEnv;
use crate::runtime::auth::Role;
use crate::runtime::blocking::blocking;
use crate::session::Session;
use crate::tournament::finished::finished_of;
use crate::tournament::history::history;
use crate::tournament::liveness;
use crate::tournament::openings::{self, Openings};
use crate::tournament::quota::WriteBudget;
use crate::tournament::runner::{self, Start, Tournament};
use crate::tournament::schedule::TournamentSpec;
use crate::tournament::standings::standings;
use crate::tournament::store::{GameRow, Store, StoredTournament};

/// Checks and records the tournament now (on a blocking thread: the records are a file, and
/// even a schedule within the limits takes a moment to check), then plays it in the background
/// with `tournament.progress` events; the reply is the summary.
pub async fn run(
    session: &mut Session,
    id: RequestId,
    p: Run<TournamentSpec>,
) -> Result<(), ErrorInfo> {
    let dir = session.data_dir()?;
    let registry = session.shared.registry.clone();
    let max_games = session.shared.config.costs.games_for(session.is_operator());
    let by = session.role().unwrap_or(Role::Player);
    let budget = write_budget(session, by);
    let plan = budget.clone();
    let spec = p.spec.map(|spec| with_openings(spec, &dir)).transpose()?;
    // A new tournament is measured and its openings tried before it is recorded, so a refused
    // plan or a bad opening leaves nothing behind.
    if let (None, Some(spec)) = (&p.resume, &spec) {
        let (registry, spec, plan) = (registry.clone(), spec.clone(), plan.clone());
        let planned = blocking(move || {
            let planned = Tournament::prepare(&registry, String::new(), spec, max_games)?;
            plan.check_plan(planned.scheduled(), planned.spec.keep_transcripts)?;
            Ok(planned)
        })
        .await?;
        planned.check_openings().await?;
    }
    let (t, store) = blocking(move || {
        let store = Store::open(&dir)?;
        let t = match (p.resume, spec) {
            (Some(resume), _) => {
                let t = runner::reopen(&registry, &store, &resume, max_games, by)?;
                plan.check_plan(t.scheduled(), t.spec.keep_transcripts)?;
                t
            }
            (None, Some(spec)) => {
                match runner::create_or_resume(
                    &registry,
                    &store,
                    spec,
                    p.tournament,
                    max_games,
                    by,
                )? {
                    Start::Play(t) => *t,
                    Start::AlreadyFinished(id) => {
                        return Err(ErrorInfo::new(
                            ErrorCode::Conflict,
                            format!("tournament `{id}` is already finished"),
                        ))
                    }
                }
            }
            (None, None) => {
                return Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    "give a tournament spec or `resume`",
                ))
            }
        };
        Ok((t, store))
    })
    .await?;
    let t = Arc::new(t);
    let outbox = session.outbox.clone();
    let env = SeatEnv {
        data_dir: session.shared.config.data_dir.clone(),
        client: session.client.clone(),
        budgets: Some(session.budgets()),
        ..SeatEnv::default()
    };
    let tid = t.id.clone();
    // Held while it plays, so a listing tells it from a tournament whose process died.
    let playing = env.data_dir.as_deref().map(|dir| liveness::hold(dir, &tid)).transpose()?;
    session.spawn("tournament.run", id, async move {
        let _playing = playing;
        let _ = outbox.event(TournamentStarted { id: tid.clone(), scheduled: t.scheduled() }).await;
        let summary =
            runner::run(t, Arc::new(Mutex::new(store)), env, budget, move |games, total| {
                outbox.try_event(TournamentProgress { games, id: tid.clone(), total });
            });
        super::reply::<wire::TournamentRun>(summary.await?)
    });
    Ok(())
}

/// The spec with its openings read: a request names a suite of the data directory's
/// `openings/` (or a shipped one), never a path and never the openings themselves.
fn with_openings(mut spec: TournamentSpec, dir: &Path) -> Result<TournamentSpec, ErrorInfo> {
    spec.openings =
        match spec.openings.take() {
            None => None,
            Some(Openings::Read(_)) => return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                "`openings` names a suite of the server's openings (a string), not the openings",
            )),
            Some(named) => Some(named.read(Some(dir), false)?),
        };
    Ok(spec)
}

/// What a tournament of `by` may write: the data directory's quota for everyone, and a
/// player's own limits on its records and on each game's transcript.
fn write_budget(session: &Session, by: Role) -> WriteBudget {
    let costs = &session.shared.config.costs;
    let data_dir = session.shared.config.data_dir.as_deref();
    if by == Role::Operator {
        return WriteBudget::new(data_dir, costs.max_data_bytes, 0);
    }
    WriteBudget::new(data_dir, costs.max_data_bytes, costs.max_tournament_bytes)
        .with_game_transcript_limit(costs.max_game_transcript_bytes)
}

pub async fn list(session: &Session) -> Result<Vec<Listed>, ErrorInfo> {
    let dir = session.data_dir()?;
    blocking(move || {
        let mut list = runner::list(&Store::open(&dir)?)?;
        liveness::mark_interrupted(&mut list, &dir);
        Ok(list)
    })
    .await
}

/// The stored tournament `id` if this session may see it (an operator every one, a player the
/// players'); another's is "not there", so its id tells a player nothing.
fn visible(store: &Store, id: &str, by: Role) -> Result<StoredTournament, ErrorInfo> {
    runner::stored_for(store, id, by)?.ok_or_else(|| {
        ErrorInfo::new(ErrorCode::NotFound, format!("no tournament `{id}` in the records"))
    })
}

/// `tournament.show`: the stored tournament with its standings, crosstable and rating history.
pub async fn show(session: &Session, p: Show) -> Result<Shown, ErrorInfo> {
    let dir = session.data_dir()?;
    let by = session.role().unwrap_or(Role::Player);
    let registry = session.shared.registry.clone();
    blocking(move || {
        let store = Store::open(&dir)?;
        let stored = visible(&store, &p.tournament, by)?;
        let spec: TournamentSpec = serde_json::from_value(stored.spec.clone()).map_err(|e| {
            ErrorInfo::new(
                ErrorCode::Internal,
                format!("stored spec of `{}` is unreadable: {e}", stored.id),
            )
        })?;
        // Its schedule was measured against the limits when it was recorded.
        let t = Tournament::prepare(&registry, stored.id.clone(), spec, u64::MAX)?;
        let finished = finished_of(&t.schedule, &store.games(&stored.id)?);
        let mut listed = runner::list_one(stored.clone());
        liveness::mark_interrupted(std::slice::from_mut(&mut listed), &dir);
        Ok(Shown {
            history: history(&t.spec, &t.labels, t.seats, &finished),
            standings: standings(&t.spec, &t.labels, t.seats, &finished),
            labels: t.labels.clone(),
            spec: stored.spec,
            listed,
        })
    })
    .await
}

/// `openings.list`: the suites a tournament may name, the data directory's and yomi's.
pub async fn openings(session: &Session) -> Result<Vec<SuiteListed>, ErrorInfo> {
    let dir = session.shared.config.data_dir.clone();
    blocking(move || Ok(openings::list(dir.as_deref()))).await
}

/// `tournament.games`: a page of a tournament's recorded games, at most [`MAX_GAMES_PAGE`].
pub async fn games(session: &Session, p: Games) -> Result<GamesPage, ErrorInfo> {
    if p.limit == 0 || p.limit > MAX_GAMES_PAGE {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("`limit` is {}: a page holds 1 to {MAX_GAMES_PAGE} games", p.limit),
        ));
    }
    let dir = session.data_dir()?;
    let by = session.role().unwrap_or(Role::Player);
    blocking(move || {
        let store = Store::open(&dir)?;
        visible(&store, &p.tournament, by)?;
        let (total, page) = store.page(&p.tournament, p.offset, p.limit)?;
        let games = page.into_iter().map(|(row, kept)| entry(row, kept)).collect();
        Ok(GamesPage { total, games })
    })
    .await
}

/// `tournament.game`: one recorded game with its transcript, for the replay viewer.
pub async fn game(session: &Session, p: Game) -> Result<GameRecord, ErrorInfo> {
    let dir = session.data_dir()?;
    let by = session.role().unwrap_or(Role::Player);
    blocking(move || {
        let store = Store::open(&dir)?;
        visible(&store, &p.tournament, by)?;
        let not_there = || {
            ErrorInfo::new(
                ErrorCode::NotFound,
                format!("tournament `{}` has no recorded game {}", p.tournament, p.game),
            )
        };
        let (_, mut page) = store.page(&p.tournament, p.game, 1)?;
        let (row, kept) =
            page.pop().filter(|(row, _)| row.index == p.game).ok_or_else(not_there)?;
        let transcript = store.transcript(&p.tournament, p.game)?.unwrap_or_default();
        Ok(GameRecord { entry: entry(row, kept), transcript })
    })
    .await
}

fn entry(row: GameRow, transcript: bool) -> GameEntry {
    GameEntry {
        index: row.index,
        seats: row.seats,
        scores: row.scores,
        opening: row.opening,
        transcript,
    }
}
