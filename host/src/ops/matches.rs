//! `match.run`, `match.move` and `match.replay`: matches run by the host over the protocol.
//!
//! `match.run` runs in the background: the connection keeps serving (so a client playing a seat
//! can answer `your_turn` events with `match.move`), progress streams as events, and the reply
//! with the request's id comes when the match ends.

use yomi_protocol::events::{Event, MatchProgress, MatchStarted};
use yomi_protocol::ops as wire;
use yomi_protocol::ops::matches::{Move, Replay, Replayed, Run, Summary};
use yomi_protocol::ops::meta::Done;
use yomi_protocol::{ErrorCode, ErrorInfo, RequestId};

use crate::agents::client::ClientLink;
use crate::humans::recording;
use crate::matches::runner::{self, MatchPlan, MatchSpec, PlayedMatch, Progress};
use crate::matches::seat::{ClientSeats, SeatEnv, SeatPlan, SessionAgent};
use crate::matches::served::Pace;
use crate::matches::{replay, transcript};
use crate::runtime::costs::exceeded;
use crate::runtime::metrics;
use crate::session::{fresh_seed, Session};

/// Checks the match and its cost now (errors reply at once), then plays it in the background.
pub fn run(session: &mut Session, id: RequestId, mut p: Run<MatchSpec>) -> Result<(), ErrorInfo> {
    let costs = &session.shared.config.costs;
    let games = u64::from(p.spec.games);
    let max_games = costs.games_for(session.is_operator());
    if games > max_games {
        return Err(exceeded(format!("a match of {games} games"), max_games, "--max-games"));
    }
    if p.transcript && games > costs.max_transcript_games {
        let what = format!("the transcript of a match of {games} games in the reply");
        return Err(exceeded(what, costs.max_transcript_games, "--max-transcript-games"));
    }
    p.spec.seed = p.seed.unwrap_or_else(fresh_seed);
    let mut plan = MatchPlan::new(&session.shared.registry, p.spec)?;
    bind_agents(session, &mut plan)?;
    let recording = people_recording(session, &plan);
    let keep = p.transcript || recording.is_some();
    plan.keep_games = keep;
    // Kept as text, so the transcript is measured as it grows and bounded.
    plan.log_as_text = keep;
    plan.max_transcript_bytes =
        Some(costs.max_match_transcript_bytes).filter(|&limit| keep && limit > 0);
    // A person's pace only matters to a person: a match of bots alone plays at full speed.
    let pace = (p.human_pace && plan.seats.iter().any(SeatPlan::is_client))
        .then(|| Pace { deadline: plan.spec.policy.deadline() });
    let match_id = session.next_match();
    let outbox = session.outbox.clone();
    let env = SeatEnv {
        data_dir: session.shared.config.data_dir.clone(),
        client: session.client.clone(),
        deadline: plan.spec.policy.deadline(),
        clients: ClientSeats::Connected(ClientLink {
            match_id: match_id.clone(),
            mailbox: session.mailbox.clone(),
            outbox: outbox.clone(),
        }),
        budgets: Some(session.budgets()),
        pace,
        ..SeatEnv::default()
    };
    let want_transcript = p.transcript;
    session.spawn("match.run", id, async move {
        // Progress is produced inside a synchronous callback; a forwarder streams it in order.
        let (events, mut queue) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let forward_box = outbox.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(event) = queue.recv().await {
                let _ = forward_box.event(event).await;
            }
        });
        let games = plan.spec.games;
        let progress_id = match_id.clone();
        let played = runner::play(&plan, &env, |progress| {
            let event = match progress {
                Progress::Started(header) => {
                    let started =
                        MatchStarted { header: header.clone(), match_id: progress_id.clone() };
                    // Queued at once, before any seat can send `your_turn`: a client learns the
                    // match id before its first turn. Only a client that stopped reading (a full
                    // queue) gets it through the forwarder instead.
                    if outbox.try_event(started.clone()) {
                        return;
                    }
                    started.into()
                }
                Progress::Game { index, record, totals } => {
                    metrics::match_games(&plan.spec.game, 1);
                    MatchProgress {
                        game: index + 1,
                        games,
                        match_id: progress_id.clone(),
                        record: record.clone(),
                        scores: totals.to_vec(),
                    }
                    .into()
                }
            };
            let _ = events.send(event);
        })
        .await;
        drop(events);
        let _ = forwarder.await;
        let PlayedMatch { result, log } = played?;
        let transcript = match recording {
            Some(recording) => {
                let text = recording.keep(log.into_text()).await;
                want_transcript.then(|| transcript::parse(&text)).transpose()?
            }
            None => want_transcript.then(|| log.into_values()),
        };
        super::reply::<wire::MatchRun>(Summary {
            match_id,
            game: result.game,
            seed: plan.spec.seed,
            seats: result.seats,
            games: result.games,
            scores: result.scores,
            failures: result.failures,
            forfeits: result.forfeits,
            transcript,
        })
    });
    Ok(())
}

/// Where a match's people's decisions go when the operator keeps them (`--record-people`).
struct PeopleRecording {
    data_dir: std::path::PathBuf,
    name: String,
    max_data_bytes: u64,
}

/// The recording of `plan`'s client seats, when the server keeps people's games and it has one.
fn people_recording(session: &Session, plan: &MatchPlan) -> Option<PeopleRecording> {
    let config = &session.shared.config;
    let (name, data_dir) = (config.record_people.clone()?, config.data_dir.clone()?);
    plan.seats.iter().any(SeatPlan::is_client).then_some(PeopleRecording {
        data_dir,
        name,
        max_data_bytes: config.costs.max_data_bytes,
    })
}

impl PeopleRecording {
    /// Adds the people's decisions of the match's `transcript` to their record set, off the
    /// reactor, and hands the transcript back; a match whose people answered nothing, or a full
    /// data directory, is logged, never the match's error.
    async fn keep(self, transcript: String) -> String {
        let (kept, transcript) = crate::runtime::blocking::blocking(move || {
            let kept =
                recording::keep(&self.data_dir, &self.name, self.max_data_bytes, &transcript);
            Ok((kept, transcript))
        })
        .await
        .unwrap_or_else(|e| (Err(e), String::new()));
        match kept {
            Ok((set, added)) => tracing::info!(set, added, "kept people's decisions"),
            Err(e) => tracing::warn!("people's decisions not kept: {}", e.message),
        }
        transcript
    }
}

/// Binds each agent seat to the session's agent it names, which must play the match's game.
fn bind_agents(session: &Session, plan: &mut MatchPlan) -> Result<(), ErrorInfo> {
    let game = plan.game.info.name.clone();
    for seat in &mut plan.seats {
        let SeatPlan::Agent { id, bound, .. } = seat else { continue };
        let slot = session.agent(id)?;
        let plays = &slot.bot.info.games;
        if !plays.contains(&game) {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("agent `{id}` is {}, which does not play `{game}`", slot.bot.qualified()),
            ));
        }
        *bound = Some(SessionAgent { bot: slot.bot.clone(), agent: slot.agent.clone() });
    }
    Ok(())
}

/// A connected client's move for a seat it plays.
pub fn play_move(session: &Session, p: Move) -> Result<Done, ErrorInfo> {
    session.mailbox.deliver(&p.match_id, p.seat, p.action)?;
    Ok(Done {})
}

/// Replays a transcript and says whether it played out identically.
pub async fn replay(session: &Session, p: Replay) -> Result<Replayed, ErrorInfo> {
    let lines = transcript::parse(&p.transcript)?;
    let data_dir = session.shared.config.data_dir.clone();
    replay::replay(&session.shared.registry, &lines, data_dir).await
}
