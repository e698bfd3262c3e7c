//! `match.run`, `match.move` and `match.replay`: matches run by the host over the protocol.
//!
//! `match.run` runs in the background: the connection keeps serving (so a client playing a seat
//! can answer `your_turn` events with `match.move`), progress streams as events, and the reply
//! with the request's id comes when the match ends.

use serde::Deserialize;
use serde_json::{json, Value};
use yomi_protocol::{ErrorInfo, Event, RequestId};

use crate::matches::runner::{self, MatchPlan, MatchSpec};
use crate::matches::seat::{ClientLink, SeatEnv};
use crate::matches::transcript;
use crate::server::session::Session;

#[derive(Debug, Deserialize)]
pub struct Run {
    #[serde(flatten)]
    pub spec: MatchSpec,
    /// Include the whole transcript (JSON lines as an array) in the reply.
    #[serde(default)]
    pub transcript: bool,
}

/// Checks the match now (errors reply at once), then plays it in the background.
pub fn run(session: &mut Session, id: RequestId, p: Run) -> Result<(), ErrorInfo> {
    let plan = MatchPlan::new(&session.shared.registry, p.spec)?;
    let match_id = session.next_match();
    let outbox = session.outbox.clone();
    let env = SeatEnv {
        seat: 0,
        data_dir: session.shared.config.data_dir.clone(),
        deadline: plan.spec.policy.deadline(),
        client: Some(ClientLink {
            match_id: match_id.clone(),
            mailbox: session.mailbox.clone(),
            outbox: outbox.clone(),
        }),
    };
    let want_transcript = p.transcript;
    session.spawn("match.run", id, async move {
        let agents = plan.start_agents(&env).await?;
        let mut log = vec![plan.header()];
        send(&outbox, "match.started", json!({"match": match_id, "header": log[0]})).await;
        // Progress is produced inside the synchronous per-game callback; a forwarder streams it.
        let (progress, mut queue) = tokio::sync::mpsc::unbounded_channel::<Value>();
        let forward_box = outbox.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(body) = queue.recv().await {
                send(&forward_box, "match.progress", body).await;
            }
        });
        let games = plan.spec.games;
        let progress_id = match_id.clone();
        let result = runner::run(&plan, &agents, &mut log, |index, record, totals| {
            crate::metrics::match_games(&plan.spec.game, 1);
            let _ = progress.send(json!({"match": progress_id, "game": index + 1, "games": games, "record": record, "scores": totals}));
        })
        .await;
        drop(progress);
        let _ = forwarder.await;
        let result = result?;
        let mut reply = json!({
            "match": match_id, "game": result.game, "seats": result.seats, "games": result.games,
            "scores": result.scores, "failures": result.failures, "forfeits": result.forfeits,
        });
        if want_transcript {
            reply["transcript"] = Value::Array(log);
        }
        Ok(reply)
    });
    Ok(())
}

async fn send(outbox: &crate::server::connection::Outbox, event: &str, body: Value) {
    let _ = outbox
        .send(serde_json::to_string(&Event::new(event, body)).expect("events serialize"))
        .await;
}

#[derive(Debug, Deserialize)]
pub struct Move {
    #[serde(rename = "match")]
    pub match_id: String,
    pub seat: usize,
    pub action: Value,
}

/// A connected client's move for a seat it plays.
pub fn play_move(session: &Session, p: Move) -> Result<Value, ErrorInfo> {
    session.mailbox.deliver(&p.match_id, p.seat, p.action)?;
    Ok(json!({}))
}

#[derive(Debug, Deserialize)]
pub struct Replay {
    /// The transcript as JSON-lines text.
    pub transcript: String,
}

/// Replays a transcript and says whether it played out identically.
pub async fn replay(session: &Session, p: Replay) -> Result<Value, ErrorInfo> {
    let lines = transcript::parse(&p.transcript)?;
    let report = transcript::replay(
        &session.shared.registry,
        &lines,
        session.shared.config.data_dir.clone(),
    )
    .await?;
    Ok(serde_json::to_value(report).expect("reports serialize"))
}
