//! A tournament's rating history for the playground's chart: the standings refitted after every
//! few finished games, at most a fixed number of times so the cost stays bounded.

use yomi_protocol::ops::tournaments::{RatingPoint, MAX_HISTORY_POINTS};

use super::finished::Finished;
use super::schedule::TournamentSpec;
use super::standings::standings;

/// Each bot's Elo and interval after the first `k` finished games (in the order they are given)
/// for up to [`MAX_HISTORY_POINTS`] evenly spaced `k`, the last being all of them.
pub fn history(
    spec: &TournamentSpec,
    labels: &[String],
    seats: usize,
    finished: &[Finished],
) -> Vec<RatingPoint> {
    let n = finished.len();
    let points = n.min(MAX_HISTORY_POINTS);
    (1..=points)
        .map(|i| {
            let k = n * i / points;
            let fit = standings(spec, labels, seats, &finished[..k]);
            let row = |label: &String| fit.standings.iter().find(|s| &s.bot == label);
            RatingPoint {
                games: k as u64,
                elo: labels.iter().map(|l| row(l).and_then(|s| s.elo)).collect(),
                elo_ci95: labels
                    .iter()
                    .map(|l| row(l).map_or([None, None], |s| s.elo_ci95))
                    .collect(),
            }
        })
        .collect()
}
