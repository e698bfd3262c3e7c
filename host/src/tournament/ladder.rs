//! Ratings for a ladder: one Elo per bot of a round robin, fitted to every pairwise result at once
//! (the Bradley–Terry model by maximum likelihood, as BayesElo and Ordo rate chess engines), with
//! the reference bot held at 0 and a 95 % interval from the fit's curvature.
//!
//! A rating against the reference alone saturates (a strong bot beats the random bot in nearly
//! every game), so every entry meets every other: a strong bot's rating comes from how it does
//! against the others, and the chain of results ties it to the reference. A prior of one virtual
//! draw between every bot and the reference (BayesElo's device) keeps a bot that never lost finite.

use super::finished::Finished;
use super::rating::Tally;
use yomi_protocol::ops::tournaments::Pairwise;

/// Natural log-odds to Elo.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Virtual draws between every bot and the reference.
const PRIOR_DRAWS: f64 = 1.0;

/// One bot's fitted rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub elo: f64,
    pub ci95: [f64; 2],
    pub games: u64,
}

/// Pairwise results of `bots` bots: `score[i][j]` is i's points against j (win 1, draw ½),
/// `n[i][j]` their comparisons.
#[derive(Debug, Clone)]
pub struct Results {
    score: Vec<Vec<f64>>,
    n: Vec<Vec<f64>>,
    games: Vec<u64>,
}

impl Results {
    /// The pairwise comparisons of finished games (multi-seat games reduced to pairs, as in
    /// [`super::rating`]).
    pub fn of(bots: usize, finished: &[Finished]) -> Results {
        let mut r = Results {
            score: vec![vec![0.0; bots]; bots],
            n: vec![vec![0.0; bots]; bots],
            games: vec![0; bots],
        };
        for game in finished {
            let seats = &game.slot.seats;
            for (seat_i, &i) in seats.iter().enumerate() {
                r.games[i] += 1;
                for (seat_j, &j) in seats.iter().enumerate().filter(|&(_, &j)| j != i) {
                    let mut t = Pairwise::default();
                    t.add(game.scores[seat_i], game.scores[seat_j]);
                    r.score[i][j] += t.score();
                    r.n[i][j] += 1.0;
                }
            }
        }
        r
    }

    /// Bot `i`'s points against bot `j` and their comparisons, as counted.
    pub fn head_to_head(&self, i: usize, j: usize) -> (f64, u64) {
        (self.score[i][j], self.n[i][j] as u64)
    }

    /// Every bot's Elo with bot `reference` at 0.
    pub fn fit(&self, reference: usize) -> Vec<Rating> {
        let k = self.n.len();
        let (mut score, mut n) = (self.score.clone(), self.n.clone());
        for i in (0..k).filter(|&i| i != reference) {
            for (a, b) in [(i, reference), (reference, i)] {
                score[a][b] += PRIOR_DRAWS / 2.0;
                n[a][b] += PRIOR_DRAWS;
            }
        }
        let free: Vec<usize> = (0..k).filter(|&i| i != reference).collect();
        let mut theta = vec![0.0f64; k];
        let mut info = vec![vec![0.0; free.len()]; free.len()];
        for _ in 0..100 {
            // Newton's method on the log-likelihood: gradient and observed information.
            let mut grad = vec![0.0; free.len()];
            for row in info.iter_mut() {
                row.iter_mut().for_each(|x| *x = 0.0);
            }
            for (a, &i) in free.iter().enumerate() {
                for j in 0..k {
                    if n[i][j] == 0.0 || i == j {
                        continue;
                    }
                    let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
                    grad[a] += score[i][j] - n[i][j] * p;
                    let w = n[i][j] * p * (1.0 - p);
                    info[a][a] += w;
                    if let Some(b) = free.iter().position(|&f| f == j) {
                        info[a][b] -= w;
                    }
                }
            }
            let Some(step) = solve(&info, &grad) else { break };
            let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
            let damp = if largest > 2.0 { 2.0 / largest } else { 1.0 };
            for (a, &i) in free.iter().enumerate() {
                theta[i] += damp * step[a];
            }
            if largest < 1e-9 {
                break;
            }
        }
        let covariance = invert(&info);
        (0..k)
            .map(|i| {
                let elo = theta[i] * ELO_PER_NAT;
                let sd = match free.iter().position(|&f| f == i) {
                    Some(a) => {
                        covariance.as_ref().map_or(f64::INFINITY, |c| c[a][a].max(0.0).sqrt())
                    }
                    None => 0.0,
                };
                let half = 1.959_963_984_540_054 * sd * ELO_PER_NAT;
                Rating { elo, ci95: [elo - half, elo + half], games: self.games[i] }
            })
            .collect()
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; None when `a` is singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> =
        a.iter().zip(b).map(|(row, &y)| row.iter().copied().chain([y]).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        let pivot_row = m[col].clone();
        for (_, row) in m.iter_mut().enumerate().filter(|(r, _)| *r != col) {
            let f = row[col] / pivot_row[col];
            row.iter_mut().zip(&pivot_row).skip(col).for_each(|(x, p)| *x -= f * p);
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

/// The inverse of `a` (column by column), None when singular.
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let columns: Option<Vec<Vec<f64>>> = (0..n)
        .map(|c| solve(a, &(0..n).map(|r| if r == c { 1.0 } else { 0.0 }).collect::<Vec<_>>()))
        .collect();
    let columns = columns?;
    Some((0..n).map(|r| (0..n).map(|c| columns[c][r]).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::schedule::Slot;

    fn game(a: usize, b: usize, score_a: f64) -> Finished {
        let slot = Slot {
            index: 0,
            pairing: 0,
            seats: vec![a, b],
            deal: 0,
            seed: 0,
            pair: None,
            opening: None,
        };
        Finished { slot, scores: vec![score_a, 1.0 - score_a], failures: vec![] }
    }

    /// Results drawn from known ratings come back as those ratings, within their intervals.
    #[test]
    fn the_fit_recovers_known_ratings_with_the_reference_at_zero() {
        let truth = [0.0, 200.0, 400.0];
        let mut games = Vec::new();
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let p = 1.0 / (1.0 + 10f64.powf((truth[j] - truth[i]) / 400.0));
            // 1000 games with exactly the expected share of wins.
            let wins = (p * 1000.0).round() as usize;
            games.extend((0..1000).map(|g| game(i, j, if g < wins { 1.0 } else { 0.0 })));
        }
        let ratings = Results::of(3, &games).fit(0);
        assert_eq!(ratings[0].elo, 0.0);
        for (r, t) in ratings.iter().zip(truth) {
            assert!((r.elo - t).abs() < 8.0, "{} vs {t}", r.elo);
            assert!(r.ci95[0] <= t && t <= r.ci95[1], "{r:?} holds {t}");
        }
        assert_eq!(ratings[1].games, 2000);
    }

    /// A bot that never lost is rated finitely (the prior's draws), above the ones it beat.
    #[test]
    fn a_bot_that_never_lost_stays_finite() {
        let mut games: Vec<Finished> = (0..50).map(|_| game(1, 0, 1.0)).collect();
        games.extend((0..50).map(|g| game(2, 1, if g % 4 == 0 { 0.0 } else { 1.0 })));
        let ratings = Results::of(3, &games).fit(0);
        assert!(ratings.iter().all(|r| r.elo.is_finite() && r.ci95[1].is_finite()));
        assert!(0.0 < ratings[1].elo && ratings[1].elo < ratings[2].elo, "{ratings:?}");
    }
}
