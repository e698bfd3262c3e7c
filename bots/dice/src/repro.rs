//! `yomi repro dice`: the paper's numbers that code can regenerate (sections 5 and 6), beside
//! ours, as [`yomi_plugin::repro::Row`]s. REPRODUCTION.md is generated from the same rows.

use std::time::Instant;

use serde_json::{json, Value};
use yomi_plugin::referee::play;
use yomi_plugin::repro::{mean_ci, percentile_ci, wilson, Row};
use yomi_plugin::rng::{derive_seed, seeded};

use crate::board::Board;
use crate::features::{compute, COUNT, NAMES};
use crate::game::Sugoroku;
use crate::ranges::Ranges;
use crate::search::{generate, uniform, Method, Params};
use crate::stream::{Dice, NaturalStream};
use crate::walker::Walker;
use yomi_plugin::typed::Typed;

/// Seed section 5.3 / table 1 "theory" column (n = 100).
const SEED_THEORY_100: [f64; COUNT] =
    [5.0, 5.0, 5.0, 5.0, 5.0, 49.5, 16.5, 2.7, 0.45, 6.7, 1.5, 4.5, 5.6, 1.8, 2.5];
/// Seed table 2 "theory" column (n = 50).
const SEED_THEORY_50: [f64; COUNT] =
    [5.0, 5.0, 5.0, 5.0, 5.0, 24.7, 8.3, 1.3, 0.2, 3.4, 0.9, 2.2, 2.8, 0.9, 1.2];
/// The sequences the paper prints as the best (Err 2.7) and worst (Err 239.0) of its 300.
pub const PAPER_BEST: &str = "52166232635543316563431216615323356642653154342315";
pub const PAPER_WORST: &str = "31443255533554554656246445561543564454542566656544";

fn digits(s: &str) -> Vec<u8> {
    s.bytes().map(|b| b - b'0').collect()
}

/// Mean feature rows of `count` sequences made by `make`.
fn feature_rows(
    table: &str,
    column: &str,
    paper_col: Option<&[f64; COUNT]>,
    count: usize,
    mut make: impl FnMut(usize) -> Vec<u8>,
) -> Vec<Row> {
    let samples: Vec<[f64; COUNT]> = (0..count).map(|i| compute(&make(i), 6)).collect();
    (0..COUNT)
        .map(|f| {
            let (mean, ci) = mean_ci(&samples.iter().map(|s| s[f]).collect::<Vec<_>>());
            Row::at(table, NAMES[f], column)
                .ours(mean, count as u64)
                .paper(paper_col.map(|c| c[f]))
                .ci(ci)
        })
        .collect()
}

/// Every reproduction row.
pub fn rows() -> Vec<Row> {
    let table2 = Ranges::table2();
    let params = Params::default();
    let mut rows = Vec::new();

    // Table 1's theory column (plain PRNG, n = 100) and our natural sequences at n = 100.
    let mut rng = seeded(100);
    rows.extend(feature_rows("1", "plain PRNG, n=100", Some(&SEED_THEORY_100), 4000, |_| {
        uniform(100, 6, &mut rng)
    }));
    let r100 = Ranges::default_for(100, 6);
    let mut rng = seeded(101);
    rows.extend(feature_rows("1", "natural, n=100", None, 1000, |_| {
        generate(100, 6, &r100, &params, &mut rng).0
    }));

    // Table 2's theory column (n = 50) and our natural sequences at n = 50.
    let mut rng = seeded(50);
    rows.extend(feature_rows("2", "plain PRNG, n=50", Some(&SEED_THEORY_50), 4000, |_| {
        uniform(50, 6, &mut rng)
    }));
    let mut rng = seeded(51);
    rows.extend(feature_rows("2", "natural, n=50", None, 1000, |_| {
        generate(50, 6, &table2, &params, &mut rng).0
    }));

    // Section 6: Err of 300 plain sequences; intervals from 200 further sets of 300.
    let errs = |set: u64| -> Vec<f64> {
        let mut rng = seeded(derive_seed(6, set));
        (0..300).map(|_| table2.err(&compute(&uniform(50, 6, &mut rng), 6))).collect()
    };
    let first = errs(0);
    let sets: Vec<Vec<f64>> = (1..=200).map(errs).collect();
    let stat = |xs: &[f64], which: usize| match which {
        0 => xs.iter().copied().fold(f64::INFINITY, f64::min),
        1 => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        _ => xs.iter().sum::<f64>() / xs.len() as f64,
    };
    for (which, column, seed) in
        [(0, "best Err", Some(2.7)), (1, "worst Err", Some(239.0)), (2, "mean Err", None)]
    {
        let ci = percentile_ci(sets.iter().map(|s| stat(s, which)).collect());
        rows.push(
            Row::at("6", "300 plain length-50 sequences", column)
                .ours(stat(&first, which), 300)
                .paper(seed)
                .ci(ci),
        );
    }
    for (text, row, seed) in [
        (PAPER_BEST, "the paper's printed best sequence", 2.7),
        (PAPER_WORST, "the paper's printed worst sequence", 239.0),
    ] {
        rows.push(
            Row::at("6", row, "Err").ours(table2.err(&compute(&digits(text), 6)), 1).paper(seed),
        );
    }

    // Generation: share reaching Err = 0, steps and time per sequence.
    for (method, name) in
        [(Method::Local, "local search (seed)"), (Method::Auto, "local + annealing (auto)")]
    {
        let p = Params { method, ..params };
        let mut rng = seeded(7);
        let n = 2000;
        let mut seconds = Vec::with_capacity(n);
        let reports: Vec<_> = (0..n)
            .map(|_| {
                let start = Instant::now();
                let report = generate(50, 6, &table2, &p, &mut rng).1;
                seconds.push(start.elapsed().as_secs_f64());
                report
            })
            .collect();
        seconds.sort_by(f64::total_cmp);
        let zero = reports.iter().filter(|r| r.err == 0.0).count() as f64;
        rows.push(Row::at("6", name, "share reaching Err = 0").share(zero, n as u64));
        let (steps, ci) = mean_ci(&reports.iter().map(|r| r.steps as f64).collect::<Vec<_>>());
        rows.push(Row::at("6", name, "steps per sequence").ours(steps, n as u64).ci(ci));
        // Microseconds: the paper's 0.02 s is 20000 us.
        rows.push(
            Row::at("6", name, "us per sequence (median)")
                .ours(seconds[n / 2] * 1e6, n as u64)
                .paper(20_000.0),
        );
        rows.push(
            Row::at("6", name, "us per sequence (p99)").ours(seconds[n * 99 / 100] * 1e6, n as u64),
        );
    }

    // Sections 5.1 / 5.2: the chance of landing on a trap d squares ahead.
    for (table, d, seed) in [("5.1", 9, 0.28), ("5.2 Q9", 6, 0.36)] {
        for natural in [false, true] {
            let mut dice = if natural {
                Dice::natural(6, 50, Ranges::table2(), params, 9)
            } else {
                Dice::plain(6, 9)
            };
            let walks = 20_000u64;
            let hits = (0..walks)
                .filter(|_| {
                    let mut pos = 0;
                    while pos < d {
                        pos += dice.roll() as usize;
                    }
                    pos == d
                })
                .count() as f64;
            let column = if natural { "P(hit), natural dice" } else { "P(hit), plain dice" };
            let row = format!("trap {d} squares ahead");
            rows.push(
                Row::at(table, &row, column).share(hits, walks).paper((!natural).then_some(seed)),
            );
        }
    }

    // Section 6.2 / approach 3: trap hits per 15 runs and the fairness of the faces.
    let experiment = sugoroku_experiment(300, 62).expect("the standard board is valid");
    for kind in ["plain", "natural", "controlled"] {
        let e = &experiment[kind];
        let n = e["sets"].as_u64().unwrap_or(0);
        let get = |k: &str| e[k].as_f64().unwrap_or(f64::NAN);
        let ci = |k: &str| {
            e[k].as_array()
                .map(|a| [a[0].as_f64().unwrap_or(f64::NAN), a[1].as_f64().unwrap_or(f64::NAN)])
        };
        let row = format!("{kind} dice");
        rows.push(
            Row::at("6.2", &row, "trap hits per 15 runs (mean)")
                .ours(get("hits_mean"), n)
                .ci(ci("hits_ci")),
        );
        rows.push(Row::at("6.2", &row, "trap hits per 15 runs (sd)").ours(get("hits_sd"), n));
        let windows = e["windows"].as_u64().unwrap_or(0);
        rows.push(
            Row::at("6.2", &row, "10-pass windows outside the band")
                .ours(get("outside_band"), windows)
                .ci(wilson(get("outside_band") * windows as f64, windows)),
        );
        let exposures = e["exposures"].as_u64().unwrap_or(0);
        rows.push(
            Row::at("6.2", &row, "hits right after a hit (share of hits)")
                .ours(get("back_to_back"), exposures),
        );
        rows.push(
            Row::at("6.2", &row, "face chi-square (5 df)")
                .ours(get("face_chi_square"), e["rolls"].as_u64().unwrap_or(0)),
        );
    }

    // The service stream: long-run fairness and naturalness across block edges.
    let mut stream = NaturalStream::new(6, 50, Ranges::table2(), params, 11);
    let faces: Vec<u8> = (0..60_000).map(|_| stream.next_in(None)).collect();
    rows.push(
        Row::at("stream", "60000 natural rolls", "face chi-square (5 df)")
            .ours(face_chi_square(&faces, 6), faces.len() as u64),
    );
    for (column, offset) in [
        ("mean Err of windows aligned with blocks", 0),
        ("mean Err of windows straddling block edges", 12),
    ] {
        let errs: Vec<f64> = (0..1000)
            .map(|i| table2.err(&compute(&faces[offset + 25 * i..offset + 25 * i + 50], 6)))
            .collect();
        let (mean, ci) = mean_ci(&errs);
        rows.push(
            Row::at("stream", "length-50 windows", column).ours(mean, errs.len() as u64).ci(ci),
        );
    }
    rows.extend(crate::humans::rows());
    rows
}

/// Pearson's chi-square of face counts against uniform.
pub fn face_chi_square(faces: &[u8], sides: u8) -> f64 {
    let mut counts = vec![0f64; sides as usize];
    for &f in faces {
        counts[f as usize - 1] += 1.0;
    }
    let e = faces.len() as f64 / sides as f64;
    counts.iter().map(|c| (c - e) * (c - e) / e).sum()
}

/// Plays `sets` one-seat games of 15 runs on the standard board with the `walker` for each kind
/// of dice and summarises trap hits, band keeping and face fairness.
pub fn sugoroku_experiment(sets: usize, seed: u64) -> Result<Value, String> {
    if sets == 0 || sets > 100_000 {
        return Err(format!("sets must be 1..=100000, got {sets}"));
    }
    let board = Board::standard();
    let mut out = serde_json::Map::new();
    for kind in ["plain", "natural", "controlled"] {
        let mut hits_per_set = Vec::new();
        let mut rolls = Vec::new();
        let (mut windows, mut outside, mut exposures_total, mut hits_total, mut back_to_back) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        for set in 0..sets {
            let options = [
                ("players", json!(1)),
                ("runs", json!(15)),
                ("dice", json!(kind)),
                ("trap_window", json!(10)),
                ("board", Value::Null),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            let mut game =
                Sugoroku::new(&options, derive_seed(seed, set as u64)).map_err(|e| e.message)?;
            let mut walker = Typed(
                Walker::new(&[("route".to_string(), json!("safe"))].into_iter().collect())
                    .map_err(|e| e.message)?,
            );
            let played = play(&mut game, &mut [&mut walker]).map_err(|e| e.message)?;
            hits_per_set.push(game.hits()[0] as f64);
            // Exposures of this set, in order: (p, hit).
            let mut exposures = Vec::new();
            for step in &played.steps {
                let ev = &step.event;
                let (from, roll) = (
                    ev["from"].as_u64().unwrap_or(0) as usize,
                    ev["roll"].as_u64().unwrap_or(1) as u8,
                );
                rolls.push(roll);
                let forced = board.forced_hits(from, 6);
                let p = forced.iter().filter(|&&h| h).count() as f64 / 6.0;
                if p > 0.0 && p < 1.0 {
                    exposures.push((p, ev["trap"].as_bool().unwrap_or(false)));
                }
            }
            for pair in exposures.windows(2) {
                back_to_back += (pair[0].1 && pair[1].1) as u64;
            }
            hits_total += exposures.iter().filter(|e| e.1).count() as u64;
            exposures_total += exposures.len() as u64;
            for w in exposures.windows(10) {
                let mean_p = w.iter().map(|e| e.0).sum::<f64>() / 10.0;
                let (lo, hi) = crate::control::TrapControl::band(10, mean_p);
                let hits = w.iter().filter(|e| e.1).count() as u32;
                windows += 1;
                outside += (hits < lo || hits > hi) as u64;
            }
        }
        let (mean, ci) = mean_ci(&hits_per_set);
        let sd = (hits_per_set.iter().map(|h| (h - mean).powi(2)).sum::<f64>()
            / (hits_per_set.len().max(2) - 1) as f64)
            .sqrt();
        let mut histogram = vec![0u64; 16];
        for &h in &hits_per_set {
            histogram[(h as usize).min(15)] += 1;
        }
        let face_share: Vec<f64> = (1..=6u8)
            .map(|f| rolls.iter().filter(|&&r| r == f).count() as f64 / rolls.len() as f64)
            .collect();
        out.insert(
            kind.to_string(),
            json!({
                "sets": sets, "hits_mean": mean, "hits_ci": ci, "hits_sd": sd, "hits_histogram": histogram,
                "exposures": exposures_total, "windows": windows,
                "outside_band": if windows > 0 { outside as f64 / windows as f64 } else { 0.0 },
                "back_to_back": if hits_total > 0 { back_to_back as f64 / hits_total as f64 } else { 0.0 },
                "rolls": rolls.len(), "face_share": face_share, "face_chi_square": face_chi_square(&rolls, 6),
            }),
        );
    }
    Ok(Value::Object(out))
}
