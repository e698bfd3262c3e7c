//! The feature definitions against the paper: a Monte Carlo estimate of every expected value at
//! n = 100 on uniform sequences, and the incremental evaluator against full recomputation.

use proptest::prelude::*;
use yomi_dice::features::{compute, expected, COUNT, NAMES};
use yomi_dice::ranges::Ranges;
use yomi_dice::search::uniform;
use yomi_dice::tracker::Tracker;
use yomi_plugin::rng::seeded;

/// Seed section 5.3: approximate expected values for uniform sequences of length 100.
const SEED_AT_100: [f64; COUNT] =
    [5.0, 5.0, 5.0, 5.0, 5.0, 49.5, 16.5, 2.7, 0.45, 6.7, 1.5, 4.5, 5.6, 1.8, 2.5];

#[test]
fn monte_carlo_reproduces_the_seeds_expected_values_at_100() {
    let samples = 20_000;
    let mut rng = seeded(2024);
    let mut sum = [0.0; COUNT];
    let mut sum_sq = [0.0; COUNT];
    for _ in 0..samples {
        let f = compute(&uniform(100, 6, &mut rng), 6);
        for i in 0..COUNT {
            sum[i] += f[i];
            sum_sq[i] += f[i] * f[i];
        }
    }
    let exact = expected(100, 6);
    for i in 0..COUNT {
        let mean = sum[i] / samples as f64;
        let sd = (sum_sq[i] / samples as f64 - mean * mean).sqrt();
        let se = sd / (samples as f64).sqrt();
        // Within sampling error of the exact value (5 standard errors) ...
        assert!(
            (mean - exact[i]).abs() < 5.0 * se,
            "{}: mean {mean} exact {} se {se}",
            NAMES[i],
            exact[i]
        );
        // ... and the paper's one-decimal figure matches to its rounding (2 % for the small ones).
        let tolerance = (0.05_f64).max(0.02 * SEED_AT_100[i]) + 5.0 * se;
        assert!(
            (mean - SEED_AT_100[i]).abs() < tolerance,
            "{}: mean {mean} vs seed {}",
            NAMES[i],
            SEED_AT_100[i]
        );
    }
}

fn faces(max_len: usize) -> impl Strategy<Value = (u8, Vec<u8>)> {
    (2u8..=8)
        .prop_flat_map(move |sides| (Just(sides), prop::collection::vec(1..=sides, 1..max_len)))
}

proptest! {
    #[test]
    fn incremental_changes_match_full_recomputation(
        (sides, seq) in faces(120),
        changes in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=8), 1..60),
    ) {
        let mut t = Tracker::new(seq.clone(), sides);
        prop_assert_eq!(t.features(), compute(&seq, sides));
        for (index, face) in changes {
            let pos = index.index(seq.len());
            let face = 1 + (face - 1) % sides;
            let proposal = t.propose(pos, face);
            let proposed = t.features_of(&proposal);
            let err_before = Ranges::table2().err(&t.features());
            let mut changed = t.seq().to_vec();
            changed[pos] = face;
            let full = compute(&changed, sides);
            for i in 0..COUNT {
                prop_assert!((proposed[i] - full[i]).abs() < 1e-9, "{} {} vs {}", NAMES[i], proposed[i], full[i]);
            }
            // The Err change from the changed features alone equals the full difference.
            let change = t.err_change(&proposal, &Ranges::table2());
            prop_assert!((err_before + change - Ranges::table2().err(&full)).abs() < 1e-9);
            t.commit(&proposal);
            prop_assert_eq!(t.seq(), &changed[..]);
        }
    }
}
