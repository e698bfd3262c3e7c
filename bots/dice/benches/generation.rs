//! Time per natural length-50 sequence (seed section 6 reports 0.02 s; our target is < 10 us)
//! and per streamed roll.

use criterion::{criterion_group, criterion_main, Criterion};
use yomi_dice::ranges::Ranges;
use yomi_dice::search::{generate, Params};
use yomi_plugin::rng::seeded;

fn sequence(c: &mut Criterion) {
    let ranges = Ranges::table2();
    let params = Params::default();
    let mut rng = seeded(1);
    c.bench_function("natural_sequence_len50", |b| b.iter(|| generate(50, 6, &ranges, &params, &mut rng)));
}

criterion_group!(benches, sequence);
criterion_main!(benches);
