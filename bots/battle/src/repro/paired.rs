//! `yomi repro battle --paired`: table 6.2's attack-bias grid played with common random numbers.
//! Game g of every α at one δ shares its game seed (parties, starting actives) and both agents'
//! seeds, and a δ-Nash agent draws the same number of noise values whatever α is, so the three
//! players of a game meet the same noise until their sampled actions part. The per-game score
//! differences between two α then carry far less variance than two independent samples, which is
//! what the paper's claim 「ノイズが大きくなると α が高い方が勝率が良い」 needs to be told apart
//! from sampling variation. The same games split the unbiased player's attack rate into positions
//! whose true matrix is constant (every action pair has one value, the game is decided) and the
//! contested rest, beside the Nash player's, to locate where the δ-Nash baseline attacks less.

use serde_json::json;
use yomi_plugin::referee;
use yomi_plugin::repro::{mean_ci, wilson, Row};
use yomi_plugin::rng::derive_seed;
use yomi_plugin::typed;
use yomi_plugin::{AgentContext, ErrorInfo, Options, Plugin};

use super::{delta_nash, fan_out, game_options, options_for, spec, Spec, NOISY};
use crate::codec;
use crate::engine::{Action, Engine};
use crate::payload::{Event, Step};
use crate::rules::Rules;
use crate::solver::Table;
use crate::BattlePlugin;

const ALPHAS: [f64; 3] = [0.0, 0.03, 0.06];
const DELTAS: [f64; 3] = [0.05, 0.1, 0.2];
/// The paper's table 6.2 (win rate, attack selection rate) by α (outer) and δ (inner).
const PAPER: [[(f64, f64); 3]; 3] = [
    [(0.456, 0.768), (0.400, 0.777), (0.316, 0.799)],
    [(0.470, 0.851), (0.424, 0.848), (0.326, 0.849)],
    [(0.446, 0.875), (0.404, 0.885), (0.382, 0.889)],
];

/// Seat 0's result in one game: its score and, for contested (index 0) and decided (index 1)
/// positions, its free decisions and how many were moves.
#[derive(Debug, Clone, Copy, Default)]
struct Game {
    score: f64,
    decisions: [u64; 2],
    attacks: [u64; 2],
}

impl Game {
    fn all_decisions(&self) -> u64 {
        self.decisions[0] + self.decisions[1]
    }

    fn all_attacks(&self) -> u64 {
        self.attacks[0] + self.attacks[1]
    }
}

/// Whether every entry of `s`'s true matrix is the same (any action is as good as any other).
fn decided(table: &Table, s: &crate::engine::State) -> bool {
    let w = table.matrix(s);
    let first = w.w[0][0];
    (0..w.rows).all(|i| (0..w.cols).all(|j| w.w[i][j] == first))
}

/// One game of `a` (seat 0, options `oa`) against Nash (`ob`) from game seed `gs`.
fn play(
    table: &Table,
    options: [&Options; 3],
    bots: [&str; 2],
    gs: u64,
) -> Result<Game, ErrorInfo> {
    let [oa, ob, og] = options;
    let context = |k| AgentContext { seed: derive_seed(gs, k), ..AgentContext::default() };
    let mut pa = BattlePlugin.new_agent(bots[0], oa, &context(1))?;
    let mut pb = BattlePlugin.new_agent(bots[1], ob, &context(2))?;
    let mut game = BattlePlugin.new_game("battle", og, gs)?;
    let played = referee::play(game.as_mut(), &mut [pa.as_mut(), pb.as_mut()])?;
    let mut g = Game { score: played.outcome.scores[0], ..Game::default() };
    let engine: &Engine = &table.engine;
    for step in &played.steps {
        let event = typed::read::<Event>(&step.event, "event")?;
        if event.kind != Step::Turn {
            continue;
        }
        let (_, before, action) = codec::decision(engine, &event, 0)?;
        let k = decided(table, &before) as usize;
        g.decisions[k] += 1;
        g.attacks[k] += matches!(action, Action::Move(_)) as u64;
    }
    Ok(g)
}

/// Games 0..`games` of each player in `players` against Nash, game g of every player from the
/// same seeds; `out[g][p]` is player p's game g.
fn paired_games(
    table: &Table,
    players: &[Spec],
    games: usize,
    seed: u64,
) -> Result<Vec<Vec<Game>>, ErrorInfo> {
    let og = game_options()?;
    let ob = options_for(&spec("nash", json!({})))?;
    let oa: Vec<Options> = players.iter().map(options_for).collect::<Result<_, _>>()?;
    fan_out(games, |g| {
        let gs = derive_seed(seed, g as u64);
        players
            .iter()
            .zip(&oa)
            .map(|(p, o)| play(table, [o, &ob, &og], [p.bot, "nash"], gs))
            .collect::<Result<Vec<Game>, ErrorInfo>>()
    })
}

/// A ratio of sums over games (attacks per decision) with a game-clustered 95 % interval: the
/// decisions of one game are not independent, so the delta-method variance of the ratio
/// estimator is taken over games, not decisions.
fn clustered_rate(pairs: &[(u64, u64)]) -> (f64, [f64; 2], u64) {
    let (hits, total): (u64, u64) = pairs.iter().fold((0, 0), |(h, t), (a, d)| (h + a, t + d));
    let n = pairs.len() as f64;
    if total == 0 || pairs.len() < 2 {
        return (0.0, [0.0, 1.0], total);
    }
    let r = hits as f64 / total as f64;
    let mean_d = total as f64 / n;
    let ss: f64 = pairs.iter().map(|&(a, d)| (a as f64 - r * d as f64).powi(2)).sum();
    let half = 1.959_963_984_540_054 * (ss / (n * (n - 1.0))).sqrt() / mean_d;
    (r, [r - half, r + half], total)
}

fn rate_row(at: (&str, &str, &str), pairs: &[(u64, u64)]) -> Row {
    let (r, ci, n) = clustered_rate(pairs);
    Row::at(at.0, at.1, at.2).ours(r, n).ci(ci)
}

/// Every row of the paired run, `games` games per cell.
pub fn rows(games: usize) -> Result<Vec<Row>, ErrorInfo> {
    let table = crate::cache::table(&Rules::preset("thesis")?, None);
    let mut rows = Vec::new();
    let tag = |alpha: f64, row: Row| if alpha > 0.0 { row.reading(NOISY) } else { row };
    for (k, delta) in DELTAS.into_iter().enumerate() {
        let players: Vec<Spec> = ALPHAS
            .iter()
            .map(|&a| {
                delta_nash("normal-variable", delta, if a > 0.0 { "attack" } else { "none" }, a)
            })
            .collect();
        let games_by = paired_games(&table, &players, games, derive_seed(0x00A1_FA62, k as u64))?;
        for (p, alpha) in ALPHAS.into_iter().enumerate() {
            let column = format!("α = {alpha}, δ = {delta}");
            let score: f64 = games_by.iter().map(|g| g[p].score).sum();
            let (win, attack) = PAPER[p][k];
            rows.push(tag(
                alpha,
                Row::at("6.2 paired", "win rate", &column)
                    .ours(score / games as f64, games as u64)
                    .ci(wilson(score, games as u64))
                    .paper(win),
            ));
            let all: Vec<(u64, u64)> =
                games_by.iter().map(|g| (g[p].all_attacks(), g[p].all_decisions())).collect();
            rows.push(tag(
                alpha,
                rate_row(("6.2 paired", "attack selection rate (game-clustered)", &column), &all)
                    .paper(attack),
            ));
        }
        for (hi, lo) in [(2, 0), (1, 0), (2, 1)] {
            let diffs: Vec<f64> = games_by.iter().map(|g| g[hi].score - g[lo].score).collect();
            let (mean, ci) = mean_ci(&diffs);
            // The paper's difference, at its three printed decimals.
            let paper = ((PAPER[hi][k].0 - PAPER[lo][k].0) * 1000.0).round() / 1000.0;
            let column = format!("α {} − α {}, δ = {delta}", ALPHAS[hi], ALPHAS[lo]);
            rows.push(
                Row::at("6.2 paired", "win rate difference, same games", &column)
                    .ours(mean, games as u64)
                    .ci(ci)
                    .paper(paper)
                    .reading(NOISY),
            );
            // The same difference as if the two cells were independent samples (the paper's
            // design), for the width the pairing saves.
            let (p1, p2) = (
                games_by.iter().map(|g| g[hi].score).sum::<f64>() / games as f64,
                games_by.iter().map(|g| g[lo].score).sum::<f64>() / games as f64,
            );
            let half =
                1.959_963_984_540_054 * ((p1 * (1.0 - p1) + p2 * (1.0 - p2)) / games as f64).sqrt();
            rows.push(
                Row::at("6.2 paired", "win rate difference, independent-sample interval", &column)
                    .ours(mean, games as u64)
                    .ci([mean - half, mean + half])
                    .paper(paper)
                    .reading(NOISY),
            );
        }
        // Where the unbiased player's attacks go: decided and contested positions.
        for (class, name) in [(0, "contested positions"), (1, "decided positions")] {
            let column = format!("δ-Nash α = 0, δ = {delta}");
            let pairs: Vec<(u64, u64)> =
                games_by.iter().map(|g| (g[0].attacks[class], g[0].decisions[class])).collect();
            rows.push(rate_row(("6.2 baseline", &format!("attack rate, {name}"), &column), &pairs));
            let share: Vec<(u64, u64)> =
                games_by.iter().map(|g| (g[0].decisions[class], g[0].all_decisions())).collect();
            rows.push(rate_row(
                ("6.2 baseline", &format!("share of decisions, {name}"), &column),
                &share,
            ));
        }
    }
    rows.extend(nash_rows(&table, games)?);
    Ok(rows)
}

/// The Nash player's own attack rate against Nash, split the same way (its ties are broken by
/// the simplex, so in decided positions it always plays its first move).
fn nash_rows(table: &Table, games: usize) -> Result<Vec<Row>, ErrorInfo> {
    let nash = [spec("nash", json!({}))];
    let games_by = paired_games(table, &nash, games, 0xA1FA_6200)?;
    let split = |f: &dyn Fn(&Game) -> (u64, u64)| -> Vec<(u64, u64)> {
        games_by.iter().map(|g| f(&g[0])).collect()
    };
    let column = "nash";
    let mut rows = vec![rate_row(
        ("6.2 baseline", "attack rate, all positions", column),
        &split(&|g| (g.all_attacks(), g.all_decisions())),
    )];
    for (class, name) in [(0, "contested positions"), (1, "decided positions")] {
        rows.push(rate_row(
            ("6.2 baseline", &format!("attack rate, {name}"), column),
            &split(&|g| (g.attacks[class], g.decisions[class])),
        ));
        rows.push(rate_row(
            ("6.2 baseline", &format!("share of decisions, {name}"), column),
            &split(&|g| (g.decisions[class], g.all_decisions())),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clustered_rate_matches_the_pooled_ratio_and_widens_for_clumped_games() {
        // Two games with the same rate: the pooled ratio, and an interval of width 0.
        let (r, ci, n) = clustered_rate(&[(3, 4), (6, 8)]);
        assert_eq!((r, n), (0.75, 12));
        assert!((ci[0] - 0.75).abs() < 1e-12 && (ci[1] - 0.75).abs() < 1e-12);
        // Games all-or-nothing: the same ratio, a wide interval.
        let (r, ci, _) = clustered_rate(&[(4, 4), (0, 4), (4, 4), (0, 4)]);
        assert_eq!(r, 0.5);
        assert!(ci[1] - ci[0] > 0.5, "{ci:?}");
    }

    #[test]
    fn a_game_replays_exactly_from_its_seed_and_counts_every_free_decision() {
        let table = crate::cache::table(&Rules::preset("thesis").unwrap(), None);
        let player = delta_nash("normal-variable", 0.2, "attack", 0.06);
        let a = paired_games(&table, std::slice::from_ref(&player), 4, 9).unwrap();
        let b = paired_games(&table, std::slice::from_ref(&player), 4, 9).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x[0].score, y[0].score);
            assert_eq!((x[0].decisions, x[0].attacks), (y[0].decisions, y[0].attacks));
            assert!(x[0].all_decisions() >= 1 && x[0].all_attacks() <= x[0].all_decisions());
        }
    }
}
