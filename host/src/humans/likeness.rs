//! How human-like a bot is on a record set (README, "How human-like is a bot"): every recorded
//! play replayed through a fresh agent, in order, asking at each decision for the bot's policy
//! (`agent.act` with `policy`, see [`super::replay`]), and scored by how likely the bot found
//! what the person did.
//!
//! Per decision, with p the probability the bot's policy gives the recorded action:
//! - top-1 match: 1 when the recorded action is the policy's most likely one, 1/k when it ties
//!   with k − 1 others for most likely (what a random tie-break matches on average), else 0;
//! - log-likelihood: ln max(p, floor); the floor (default 1e-6) keeps one action the bot would
//!   never play from making the mean −∞, and the count of such decisions is reported.
//!
//! The uniform baseline gives each of the n legal actions (a range entry counting each of its
//! amounts) 1/n: match 1/n, log-likelihood −ln n. Means are over decisions; their 95 % intervals
//! are percentiles of a bootstrap over the seats' plays (a seat's decisions in one play drawn whole,
//! with replacement, seeded).

use std::collections::BTreeMap;

use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use yomi_plugin::repro::percentile_ci;
use yomi_plugin::rng::seeded;

use super::record::Record;
use super::replay::Scored;

/// The uniform baseline's score of every decision.
pub fn score_uniform(plays: &[Vec<&Record>]) -> Vec<Vec<Scored>> {
    let each = |r: &Record| {
        let n = concrete_actions(&r.legal).max(1.0);
        Scored { p: 1.0 / n, top: 1.0 / n, think: None }
    };
    plays.iter().map(|play| play.iter().map(|r| each(r)).collect()).collect()
}

/// How many concrete actions a legal list stands for.
fn concrete_actions(legal: &[Box<RawValue>]) -> f64 {
    legal.iter().map(|entry| concrete_count(entry)).sum()
}

/// How many concrete actions a legal entry stands for: a range's whole amounts (an object with
/// numbers `min` and `max`), else one.
fn concrete_count(entry: &RawValue) -> f64 {
    #[derive(Deserialize)]
    struct Range {
        min: f64,
        max: f64,
    }
    match serde_json::from_str::<Range>(entry.get()) {
        Ok(Range { min: lo, max: hi }) if hi >= lo => (hi.floor() - lo.ceil() + 1.0).max(1.0),
        _ => 1.0,
    }
}

/// The stage of decision `i` of a play of `n`: its first, middle or last third.
fn stage(i: usize, n: usize) -> &'static str {
    match (3 * i) / n.max(1) {
        0 => "early",
        1 => "middle",
        _ => "late",
    }
}

/// A decision's kind: `forced` with one legal action; else the recorded action's shape, the keys
/// of an object action (`act`, `move`, `switch`, `reveal` ...) or `choice` for a plain one.
fn kind(record: &Record) -> String {
    if concrete_actions(&record.legal) <= 1.0 {
        return "forced".into();
    }
    match &record.action {
        Value::Object(fields) => {
            let keys: Vec<&str> =
                fields.keys().map(String::as_str).filter(|k| *k != "amount").collect();
            keys.join("+")
        }
        _ => "choice".into(),
    }
}

/// The report's settings.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Settings {
    /// The least probability a decision is counted with (see the module documentation).
    pub floor: f64,
    /// Bootstrap resamples of the plays.
    pub resamples: usize,
    /// The bootstrap's and the agents' seed.
    pub seed: u64,
}

/// A model's means with their 95 % intervals.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub decisions: usize,
    pub accuracy: f64,
    pub accuracy_ci95: [f64; 2],
    pub log_likelihood: f64,
    pub log_likelihood_ci95: [f64; 2],
    /// Decisions whose recorded action the model gave no probability (counted at the floor).
    pub zero_probability: usize,
}

/// Summarises `scored` (per play, per decision), keeping only the decisions `keep` selects, by
/// play number and decision number.
pub fn summarise(
    scored: &[Vec<Scored>],
    keep: &dyn Fn(usize, usize) -> bool,
    settings: &Settings,
) -> Summary {
    // Per play: decisions kept, sum of matches, sum of log-likelihoods.
    let totals: Vec<(f64, f64, f64)> = scored
        .iter()
        .enumerate()
        .map(|(play, decisions)| {
            let kept = decisions.iter().enumerate().filter(|(i, _)| keep(play, *i));
            kept.fold((0.0, 0.0, 0.0), |(n, top, ll), (_, s)| {
                (n + 1.0, top + s.top, ll + s.p.max(settings.floor).ln())
            })
        })
        .collect();
    let zero_probability = scored
        .iter()
        .enumerate()
        .flat_map(|(play, d)| d.iter().enumerate().map(move |(i, s)| (play, i, s)))
        .filter(|(play, i, s)| keep(*play, *i) && s.p <= 0.0)
        .count();
    let means = |picked: &mut dyn Iterator<Item = &(f64, f64, f64)>| {
        let (n, top, ll) =
            picked.fold((0.0, 0.0, 0.0), |(n, t, l), (a, b, c)| (n + a, t + b, l + c));
        (n, top / n.max(1.0), ll / n.max(1.0))
    };
    let (n, accuracy, log_likelihood) = means(&mut totals.iter());
    let mut rng = seeded(settings.seed);
    let mut draws: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    for _ in 0..settings.resamples {
        let mut picked = (0..totals.len()).map(|_| &totals[rng.gen_range(0..totals.len())]);
        let (k, top, ll) = means(&mut picked);
        if k > 0.0 {
            draws.0.push(top);
            draws.1.push(ll);
        }
    }
    Summary {
        decisions: n as usize,
        accuracy,
        accuracy_ci95: interval(draws.0),
        log_likelihood,
        log_likelihood_ci95: interval(draws.1),
        zero_probability,
    }
}

/// The bootstrap's 95 % interval (`yomi_plugin::repro::percentile_ci`); NaN for no draws.
fn interval(values: Vec<f64>) -> [f64; 2] {
    match values.is_empty() {
        true => [f64::NAN; 2],
        false => percentile_ci(values),
    }
}

/// Each model's summary over every decision, per stage and per kind.
#[derive(Debug, Clone, Serialize)]
pub struct Breakdown {
    pub all: BTreeMap<String, Summary>,
    pub by_stage: BTreeMap<String, BTreeMap<String, Summary>>,
    pub by_kind: BTreeMap<String, BTreeMap<String, Summary>>,
}

/// Summarises every model of `models` (name, scores) over `plays`, overall, per stage and per
/// decision kind.
pub fn breakdown(
    plays: &[Vec<&Record>],
    models: &[(String, Vec<Vec<Scored>>)],
    settings: &Settings,
) -> Breakdown {
    let for_all = |keep: &dyn Fn(usize, usize) -> bool| -> BTreeMap<String, Summary> {
        models.iter().map(|(name, s)| (name.clone(), summarise(s, keep, settings))).collect()
    };
    let all = for_all(&|_, _| true);
    let by_stage = ["early", "middle", "late"]
        .into_iter()
        .map(|st| (st.to_string(), for_all(&|p, i| stage(i, plays[p].len()) == st)))
        .collect();
    let mut kinds: Vec<String> = plays.iter().flatten().map(|r| kind(r)).collect();
    kinds.sort();
    kinds.dedup();
    let by_kind = kinds
        .into_iter()
        .map(|k| {
            let f = for_all(&|p, i| kind(plays[p][i]) == k);
            (k, f)
        })
        .collect();
    Breakdown { all, by_stage, by_kind }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::humans::record::parse_line;
    use serde_json::json;

    fn settings() -> Settings {
        Settings { floor: 1e-6, resamples: 200, seed: 1 }
    }

    #[test]
    fn means_floor_and_intervals_are_over_decisions_and_plays() {
        let s = |p: f64, top: f64| Scored { p, top, think: None };
        let scored = vec![vec![s(0.5, 1.0), s(0.0, 0.0)], vec![s(0.25, 0.5)]];
        let summary = summarise(&scored, &|_, _| true, &settings());
        assert_eq!((summary.decisions, summary.zero_probability), (3, 1));
        assert!((summary.accuracy - 0.5).abs() < 1e-12);
        let ll = (0.5f64.ln() + 1e-6f64.ln() + 0.25f64.ln()) / 3.0;
        assert!((summary.log_likelihood - ll).abs() < 1e-12);
        let [lo, hi] = summary.accuracy_ci95;
        assert!(lo <= summary.accuracy && summary.accuracy <= hi && lo >= 0.0 && hi <= 1.0);
        let only_second = summarise(&scored, &|p, _| p == 1, &settings());
        assert_eq!(only_second.accuracy_ci95, [0.5, 0.5], "one play: no spread");
    }

    #[test]
    fn the_uniform_baseline_counts_a_ranges_amounts() {
        let record = |legal: Value, action: Value| {
            let line = json!({"game": "g", "observation": {}, "legal": legal, "action": action});
            parse_line(1, &line.to_string()).unwrap()
        };
        let bet = record(
            json!([{"act": "drop"}, {"act": "open", "min": 1, "max": 4}]),
            json!({"act": "open", "amount": 2}),
        );
        let only = record(json!(["pass"]), json!("pass"));
        let plays = vec![vec![&bet, &only]];
        assert_eq!(score_uniform(&plays)[0][0], Scored { p: 0.2, top: 0.2, think: None });
        assert_eq!((kind(&bet), kind(&only)), ("act".to_string(), "forced".to_string()));
        assert_eq!([stage(0, 3), stage(1, 3), stage(2, 3)], ["early", "middle", "late"]);
    }
}
