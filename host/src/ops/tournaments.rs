//! `tournament.run` and `tournament.list` over the protocol.

use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{json, Value};
use yomi_protocol::{ErrorCode, ErrorInfo, RequestId};

use crate::session::Session;
use crate::tournament::liveness;
use crate::tournament::runner::{self, Start, Tournament};
use crate::tournament::schedule::TournamentSpec;
use crate::tournament::store::Store;

#[derive(Debug, Deserialize)]
pub struct Run {
    /// Resume this interrupted tournament instead of starting one.
    #[serde(default)]
    pub resume: Option<String>,
    /// The new tournament's id (running an id again resumes it); a fresh one by default.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(flatten)]
    pub spec: Option<TournamentSpec>,
}

fn store(session: &Session) -> Result<Store, ErrorInfo> {
    let dir =
        session.shared.config.data_dir.clone().ok_or_else(|| {
            ErrorInfo::new(ErrorCode::Internal, "the server has no data directory")
        })?;
    Store::open(&dir)
}

/// Checks and records the tournament now, then plays it in the background with
/// `tournament.progress` events; the reply is the summary.
pub fn run(session: &mut Session, id: RequestId, p: Run) -> Result<(), ErrorInfo> {
    let store = store(session)?;
    let registry = &session.shared.registry;
    let t: Tournament = match (p.resume, p.spec) {
        (Some(resume), _) => runner::reopen(registry, &store, &resume)?,
        (None, Some(spec)) => match runner::create_or_resume(registry, &store, spec, p.id)? {
            Start::Play(t) => *t,
            Start::AlreadyFinished(id) => {
                return Err(ErrorInfo::new(
                    ErrorCode::Conflict,
                    format!("tournament `{id}` is already finished"),
                ))
            }
        },
        (None, None) => {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                "give a tournament spec or `resume`",
            ))
        }
    };
    let t = Arc::new(t);
    let outbox = session.outbox.clone();
    let data_dir = session.shared.config.data_dir.clone();
    let tid = t.id.clone();
    // Held while it plays, so a listing tells it from a tournament whose process died.
    let playing = data_dir.as_deref().map(|dir| liveness::hold(dir, &tid)).transpose()?;
    session.spawn("tournament.run", id, async move {
        let _playing = playing;
        let started = json!({"id": tid, "scheduled": t.slots().len()});
        let _ = outbox.event("tournament.started", started).await;
        runner::run(t, Arc::new(Mutex::new(store)), data_dir, move |games, total| {
            let progress = json!({"id": tid, "games": games, "total": total});
            outbox.try_event("tournament.progress", progress);
        })
        .await
    });
    Ok(())
}

pub fn list(session: &Session) -> Result<Value, ErrorInfo> {
    let mut list = runner::list(&store(session)?)?;
    if let Some(dir) = &session.shared.config.data_dir {
        liveness::mark_interrupted(&mut list, dir);
    }
    Ok(list)
}
