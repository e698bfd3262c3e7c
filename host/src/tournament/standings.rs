//! Standings from finished games: each bot's score, pairwise record and Elo with its interval,
//! each pairing's score table, failures per bot, and the SPRT where one was asked for.

use serde_json::{json, Value};

use super::rating::PairwiseTally;
use super::schedule::{Slot, TournamentSpec};
use crate::matches::policy::FailureCounts;

/// One finished game, reduced to what standings need.
#[derive(Debug, Clone)]
pub struct Finished {
    pub slot: Slot,
    pub scores: Vec<f64>,
    pub failures: Vec<FailureCounts>,
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

/// The standings as a table for people.
pub fn render(standings: &Value) -> String {
    let mut out =
        String::from("rank  bot                          games    score   rate      elo  95% CI\n");
    let empty = vec![];
    for (i, r) in standings["standings"].as_array().unwrap_or(&empty).iter().enumerate() {
        out.push_str(&format!(
            "{:>4}  {:<26} {:>7} {:>8.1} {:>6.3} {:>8} [{}, {}]\n",
            i + 1,
            r["bot"].as_str().unwrap_or(""),
            r["games"],
            r["score"].as_f64().unwrap_or(0.0),
            r["score_rate"].as_f64().unwrap_or(0.0),
            r["elo"],
            r["elo_ci95"][0],
            r["elo_ci95"][1]
        ));
    }
    out.push_str("\npairing                                            games  scores\n");
    for p in standings["pairings"].as_array().unwrap_or(&empty) {
        let names: Vec<&str> =
            p["bots"].as_array().unwrap_or(&empty).iter().filter_map(Value::as_str).collect();
        out.push_str(&format!("{:<50} {:>6}  {}\n", names.join(" vs "), p["games"], p["scores"]));
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
