//! Standings from finished games: each bot's score, pairwise record and Elo with its interval,
//! each pairing's score table, failures per bot, and the SPRT where one was asked for.

use serde_json::{json, Value};

use super::rating::PairwiseTally;
use super::schedule::{Schedule, Slot, TournamentSpec};
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

/// Computes the standings JSON for `labels` (one per bot of the spec).
pub fn standings(
    spec: &TournamentSpec,
    labels: &[String],
    seats: usize,
    games: &[Finished],
) -> Value {
    let bots = labels.len();
    let mut tally = vec![PairwiseTally::default(); bots];
    let mut played = vec![0u64; bots];
    let mut score = vec![0.0f64; bots];
    let mut failures = vec![FailureCounts::default(); bots];
    let pairings = spec.pairings(seats);
    let mut pair_games = vec![0u64; pairings.len()];
    let mut pair_scores: Vec<Vec<f64>> = pairings.iter().map(|p| vec![0.0; p.len()]).collect();
    for g in games {
        pair_games[g.slot.pairing] += 1;
        for (seat, &bot) in g.slot.seats.iter().enumerate() {
            played[bot] += 1;
            score[bot] += g.scores[seat];
            failures[bot].merge(&g.failures[seat]);
            if let Some(pos) = pairings[g.slot.pairing].iter().position(|&b| b == bot) {
                pair_scores[g.slot.pairing][pos] += g.scores[seat];
            }
            add_pairwise(&mut tally[bot], bot, g);
        }
    }
    let mut rows: Vec<Value> = (0..bots)
        .map(|b| {
            let (elo, ci) = tally[b].elo();
            json!({
                "bot": labels[b], "games": played[b], "score": score[b],
                "score_rate": if played[b] > 0 { score[b] / played[b] as f64 } else { 0.0 },
                "pairwise": tally[b], "elo": finite(elo), "elo_ci95": [finite(ci[0]), finite(ci[1])],
                "failures": failures[b],
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b["elo"].as_f64().unwrap_or(0.0).total_cmp(&a["elo"].as_f64().unwrap_or(0.0))
    });
    let pairing_table: Vec<Value> = pairings
        .iter()
        .enumerate()
        .map(|(p, members)| {
            json!({
                "bots": members.iter().map(|&b| labels[b].clone()).collect::<Vec<_>>(),
                "games": pair_games[p], "scores": pair_scores[p],
            })
        })
        .collect();
    let mut out = json!({"standings": rows, "pairings": pairing_table});
    if let Some(sprt) = &spec.sprt {
        out["sprt"] = serde_json::to_value(sprt.state(&tally[0])).expect("sprt serializes");
    }
    out
}

/// Adds `bot`'s comparisons against every other bot of one game (nothing if it did not play).
pub fn add_pairwise(tally: &mut PairwiseTally, bot: usize, game: &Finished) {
    let Some(seat) = game.slot.seats.iter().position(|&b| b == bot) else { return };
    for (other_seat, &other) in game.slot.seats.iter().enumerate() {
        if other != bot {
            tally.add(game.scores[seat], game.scores[other_seat]);
        }
    }
}

/// JSON has no infinities: an unbounded interval end becomes null.
fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 10.0).round() / 10.0)
    } else {
        Value::Null
    }
}

/// The standings as a table for people: the bot column as wide as its longest label, and each
/// bot's failures (timeouts, illegal actions, errors, crashes, disconnects) as the JSON has them.
pub fn render(standings: &Value) -> String {
    let empty = vec![];
    let rows = standings["standings"].as_array().unwrap_or(&empty);
    let width = rows.iter().map(|r| r["bot"].as_str().unwrap_or("").chars().count()).max();
    let width = width.unwrap_or(0).max(3);
    let mut out = format!(
        "rank  {:<width$}  games    score   rate      elo  95% CI          failures\n",
        "bot"
    );
    for (i, r) in rows.iter().enumerate() {
        let ci = format!("[{}, {}]", r["elo_ci95"][0], r["elo_ci95"][1]);
        out.push_str(&format!(
            "{:>4}  {:<width$} {:>6} {:>8.1} {:>6.3} {:>8}  {:<15} {}\n",
            i + 1,
            r["bot"].as_str().unwrap_or(""),
            r["games"].as_u64().unwrap_or(0),
            r["score"].as_f64().unwrap_or(0.0),
            r["score_rate"].as_f64().unwrap_or(0.0),
            r["elo"].to_string(), // a Value ignores widths; its text does not
            ci,
            failures_text(&r["failures"]),
        ));
    }
    let pairings = standings["pairings"].as_array().unwrap_or(&empty);
    let names: Vec<String> = pairings
        .iter()
        .map(|p| {
            let bots = p["bots"].as_array().unwrap_or(&empty);
            bots.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" vs ")
        })
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0).max(7);
    out.push_str(&format!("\n{:<width$}  games  scores\n", "pairing"));
    for (p, name) in pairings.iter().zip(&names) {
        let games = p["games"].as_u64().unwrap_or(0);
        out.push_str(&format!("{name:<width$} {games:>6}  {}\n", p["scores"]));
    }
    if let Some(s) = standings.get("sprt") {
        out.push_str(&format!(
            "\nSPRT: LLR {:.3} in [{:.3}, {:.3}]: {}\n",
            s["llr"].as_f64().unwrap_or(0.0),
            s["lower"].as_f64().unwrap_or(0.0),
            s["upper"].as_f64().unwrap_or(0.0),
            s["decision"].as_str().unwrap_or("")
        ));
    }
    out
}

/// A bot's failure counts in words, `-` for none: `3 timeout, 1 illegal`.
fn failures_text(failures: &Value) -> String {
    let counts: Vec<String> = failures
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(kind, n)| n.as_u64().filter(|&n| n > 0).map(|n| format!("{n} {kind}")))
        .collect();
    if counts.is_empty() {
        "-".into()
    } else {
        counts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_labels_keep_the_columns_in_line_and_failures_show() {
        let long = "battle/mc:preset=greedy,playouts=2000";
        let table = render(&json!({
            "standings": [
                {"bot": long, "games": 10, "score": 6.0, "score_rate": 0.6, "elo": 70.4,
                 "elo_ci95": [-50.0, 190.8], "failures": {"timeout": 3, "illegal": 0, "error": 1}},
                {"bot": "battle/nash", "games": 10, "score": 4.0, "score_rate": 0.4, "elo": -70.4,
                 "elo_ci95": [-190.8, 50.0], "failures": {"timeout": 0}},
            ],
            "pairings": [{"bots": [long, "battle/nash"], "games": 10, "scores": [6.0, 4.0]}],
        }));
        let lines: Vec<&str> = table.lines().collect();
        // Every column starts at the same place on the header and on both rows.
        let games_at = lines[0].find("games").unwrap();
        assert_eq!(lines[1].find(" 10 ").map(|i| i + 3), Some(games_at + 5));
        assert_eq!(lines[2].find(" 10 ").map(|i| i + 3), Some(games_at + 5));
        let failures_at = lines[0].find("failures").unwrap();
        assert_eq!(&lines[1][failures_at..], "1 error, 3 timeout");
        assert_eq!(&lines[2][failures_at..], "-");
        assert!(lines[5].starts_with(&format!("{long} vs battle/nash     10")), "{}", lines[5]);
    }
}
