//! The paper's people beside our generators: how close each rated group of sequences (table 3:
//! A plain, B the worst fifth of plain by Err, C adjusted to Err = 0) comes to the sequences the
//! subjects wrote by hand (table 1), and where the two printed hand-written prefixes (section 5.3)
//! fall among plain and natural sequences of their length. The ratings themselves cannot be
//! regenerated; whether closeness to the people orders the groups as their ratings do can be.

use rand::Rng;
use yomi_plugin::repro::{mean_ci, percentile_ci, Row};
use yomi_plugin::rng::{derive_seed, seeded};

use crate::features::{compute, expected, COUNT, NAMES};
use crate::ranges::Ranges;
use crate::search::{generate, uniform, Params};

/// Table 1's features (F3–F5 are left out there: "about the same as F2").
const REPORTED: [usize; 12] = [0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];

/// Table 1, "mean" column: the 16 subjects' hand-written sequences of 100 faces, in
/// [`REPORTED`] order.
const SUBJECTS_MEAN_100: [f64; 12] =
    [2.4, 2.2, 55.6, 10.9, 0.8, 0.06, 3.3, 0.4, 1.4, 1.8, 0.3, 0.5];

/// Section 5.3's two printed hand-written prefixes (40 faces each): the first has doubles and a
/// triple, the second no double at all.
pub const SUBJECT_PREFIXES: [&str; 2] =
    ["4525143326144641355542665654121422351611", "1523645326413253412156362436152342615243"];

/// Table 3's mean ratings (1 "surely biased" … 5 "surely an ordinary PRNG") of groups A, B, C.
const RATINGS: [(&str, f64); 3] =
    [("A plain", 2.58), ("B worst fifth", 1.96), ("C adjusted", 3.21)];

/// Sequences of each group measured.
const GROUP_SIZE: usize = 1000;

/// Bootstrap resamples of a group's distance.
const RESAMPLES: usize = 200;

/// The subjects' table-1 means carried to `n` faces by the ratio of expected values, as a
/// player's profile is (`profile::derive`).
fn subjects_at(n: usize) -> [f64; 12] {
    let (at_100, at_n) = (expected(100, 6), expected(n, 6));
    std::array::from_fn(|k| SUBJECTS_MEAN_100[k] * at_n[REPORTED[k]] / at_100[REPORTED[k]])
}

/// Root mean square of the reported features' gaps between `mean` and the subjects, each gap in
/// units of plain sequences' standard deviation of that feature: 0 is "writes like the people".
fn distance(mean: &[f64; COUNT], subjects: &[f64; 12], plain_sd: &[f64; COUNT]) -> f64 {
    let squares: f64 =
        REPORTED.iter().zip(subjects).map(|(&f, s)| ((mean[f] - s) / plain_sd[f]).powi(2)).sum();
    (squares / REPORTED.len() as f64).sqrt()
}

fn mean_of(samples: &[[f64; COUNT]]) -> [f64; COUNT] {
    std::array::from_fn(|f| samples.iter().map(|s| s[f]).sum::<f64>() / samples.len() as f64)
}

fn sd_of(samples: &[[f64; COUNT]]) -> [f64; COUNT] {
    let mean = mean_of(samples);
    std::array::from_fn(|f| {
        let var = samples.iter().map(|s| (s[f] - mean[f]).powi(2)).sum::<f64>()
            / (samples.len() - 1) as f64;
        var.sqrt()
    })
}

/// The three rated groups at table 2's length (50), made as section 6.1 made them.
fn groups() -> [Vec<[f64; COUNT]>; 3] {
    let table2 = Ranges::table2();
    let mut rng = seeded(310);
    let plain: Vec<[f64; COUNT]> =
        (0..GROUP_SIZE).map(|_| compute(&uniform(50, 6, &mut rng), 6)).collect();
    // B: of every 300 plain sequences, the 60 with the largest Err.
    let mut worst = Vec::with_capacity(GROUP_SIZE);
    for set in 0u64.. {
        let mut rng = seeded(derive_seed(311, set));
        let mut three_hundred: Vec<[f64; COUNT]> =
            (0..300).map(|_| compute(&uniform(50, 6, &mut rng), 6)).collect();
        three_hundred.sort_by(|a, b| table2.err(b).total_cmp(&table2.err(a)));
        worst.extend_from_slice(&three_hundred[..60]);
        if worst.len() >= GROUP_SIZE {
            break;
        }
    }
    let params = Params::default();
    let mut rng = seeded(312);
    let adjusted = (0..GROUP_SIZE)
        .map(|_| compute(&generate(50, 6, &table2, &params, &mut rng).0, 6))
        .collect();
    [plain, worst, adjusted]
}

/// Spearman's rank correlation of two short lists without ties.
fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let rank = |v: &[f64]| -> Vec<f64> {
        v.iter().map(|a| v.iter().filter(|b| *b < a).count() as f64).collect()
    };
    let (rx, ry) = (rank(x), rank(y));
    let n = x.len() as f64;
    let d2: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - b).powi(2)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

/// The rows of the comparison (table "H" in REPRODUCTION.md).
pub fn rows() -> Vec<Row> {
    let groups = groups();
    let subjects = subjects_at(50);
    let plain_sd = sd_of(&groups[0]);
    let mut rows = Vec::new();
    let mut distances = Vec::new();
    for (g, ((name, rating), samples)) in RATINGS.iter().zip(&groups).enumerate() {
        let d = distance(&mean_of(samples), &subjects, &plain_sd);
        let mut rng = seeded(derive_seed(313, g as u64));
        let boot: Vec<f64> = (0..RESAMPLES)
            .map(|_| {
                let resample: Vec<[f64; COUNT]> =
                    (0..samples.len()).map(|_| samples[rng.gen_range(0..samples.len())]).collect();
                distance(&mean_of(&resample), &subjects, &plain_sd)
            })
            .collect();
        let ci = percentile_ci(boot);
        let row = format!("group {name} (rated {rating}), n=50: distance to the subjects");
        rows.push(Row::at("H", &row, "RMS gap / plain sd").ours(d, GROUP_SIZE as u64).ci(ci));
        distances.push(d);
    }
    let closeness: Vec<f64> = distances.iter().map(|d| -d).collect();
    let ratings: Vec<f64> = RATINGS.iter().map(|(_, r)| *r).collect();
    rows.push(
        Row::at(
            "H",
            "closeness to the subjects vs table 3's mean rating, groups A B C",
            "Spearman",
        )
        .ours(spearman(&closeness, &ratings), 3),
    );
    rows.extend(prefix_rows());
    rows
}

/// Where each printed prefix's doubles (F7) and parity changes (F6) fall among plain and natural
/// sequences of 40 faces: the share of those with at most as many.
fn prefix_rows() -> Vec<Row> {
    let params = Params::default();
    let ranges = Ranges::default_for(40, 6);
    let mut rng = seeded(314);
    let plain: Vec<[f64; COUNT]> =
        (0..GROUP_SIZE).map(|_| compute(&uniform(40, 6, &mut rng), 6)).collect();
    let natural: Vec<[f64; COUNT]> = (0..GROUP_SIZE)
        .map(|_| compute(&generate(40, 6, &ranges, &params, &mut rng).0, 6))
        .collect();
    let mut rows = Vec::new();
    for (i, prefix) in SUBJECT_PREFIXES.iter().enumerate() {
        let faces: Vec<u8> = prefix.bytes().map(|b| b - b'0').collect();
        let own = compute(&faces, 6);
        for f in [6, 5] {
            for (name, samples) in [("plain", &plain), ("natural", &natural)] {
                let at_most: Vec<f64> =
                    samples.iter().map(|s| f64::from(u8::from(s[f] <= own[f]))).collect();
                let (share, ci) = mean_ci(&at_most);
                let row = format!("subject {} prefix ({} = {})", i + 1, NAMES[f], own[f]);
                let column = format!("share of {name} n=40 at most");
                rows.push(Row::at("H", &row, &column).ours(share, GROUP_SIZE as u64).ci(ci));
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_matches_its_definition_on_three_points() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[30.0, 20.0, 10.0]), -1.0);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[20.0, 10.0, 30.0]), 0.5);
    }

    #[test]
    fn the_subjects_at_their_own_length_are_table_one() {
        for (ours, table) in subjects_at(100).iter().zip(SUBJECTS_MEAN_100) {
            assert!((ours - table).abs() < 1e-9, "{ours} vs {table}");
        }
        // At 50 faces the counts roughly halve (F6 49.5 → 24.7 in theory).
        let half = subjects_at(50);
        assert!((half[2] - 55.6 * 24.5 / 49.5).abs() < 1.0, "{half:?}");
    }

    #[test]
    fn a_group_at_the_subjects_means_is_at_distance_zero() {
        let subjects = subjects_at(50);
        let mut mean = [0.0; COUNT];
        for (k, &f) in REPORTED.iter().enumerate() {
            mean[f] = subjects[k];
        }
        assert_eq!(distance(&mean, &subjects, &[1.0; COUNT]), 0.0);
        mean[6] += 2.0;
        let expected = (4.0 / 12.0f64).sqrt();
        assert!((distance(&mean, &subjects, &[1.0; COUNT]) - expected).abs() < 1e-12);
    }
}
