//! Finished games as the standings, ratings and statistics read them: each game's place in the
//! schedule with its scores and failures.

use super::schedule::{Schedule, Slot};
use super::store::StoredGame;
use crate::matches::policy::FailureCounts;

/// One finished game, reduced to what standings need.
#[derive(Debug, Clone)]
pub struct Finished {
    pub slot: Slot,
    pub scores: Vec<f64>,
    pub failures: Vec<FailureCounts>,
}

/// The stored games of a tournament whose schedule is `schedule`, as standings need them (games
/// the schedule does not hold are left out).
pub fn finished_of(schedule: &Schedule, stored: &[StoredGame]) -> Vec<Finished> {
    stored
        .iter()
        .filter_map(|g| {
            let slot = (g.index < schedule.total()).then(|| schedule.slot(g.index))?;
            let failures = serde_json::from_value(g.failures.clone()).unwrap_or_default();
            Some(Finished { slot, scores: g.scores.clone(), failures })
        })
        .collect()
}
