//! Criterion benches: one exact draw for 15 players and 5 role types (target under 5 µs), the MH
//! run that brings the marginals' TV distance under 0.01 for the same game, and enumeration of the
//! the paper's 11-player example. Figures are recorded in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use yomi_plugin::rng::seeded;
use yomi_roles::convergence::mh_steps_to;
use yomi_roles::enumerate::enumerate;
use yomi_roles::exact::ExactSampler;
use yomi_roles::examples::{fifteen, seed_eleven};
use yomi_roles::repro::BURN_IN;

fn exact_draw(c: &mut Criterion) {
    let problem = fifteen(1.0);
    let sampler = ExactSampler::new(&problem).unwrap();
    let mut rng = seeded(1);
    c.bench_function("exact draw, 15 players x 5 roles (prepared table)", |b| {
        b.iter(|| black_box(sampler.draw(&mut rng)))
    });
    c.bench_function("exact table build, 15 players x 5 roles", |b| {
        b.iter(|| black_box(ExactSampler::new(black_box(&problem)).unwrap()))
    });
    c.bench_function("exact table build + one draw, 15 players x 5 roles", |b| {
        b.iter(|| black_box(ExactSampler::new(black_box(&problem)).unwrap().draw(&mut rng)))
    });
}

fn mh_to_tv(c: &mut Criterion) {
    let problem = fifteen(1.0);
    let exact = ExactSampler::new(&problem).unwrap().marginals();
    let mut group = c.benchmark_group("mh");
    group.sample_size(10);
    let mut seed = 0;
    group.bench_function("MH chain until marginal TV < 0.01, 15 players x 5 roles", |b| {
        b.iter(|| {
            seed += 1;
            black_box(mh_steps_to(
                &problem,
                &exact,
                0.01,
                BURN_IN,
                1000,
                100_000_000,
                &mut seeded(seed),
            ))
        })
    });
    group.finish();
}

fn enumeration(c: &mut Criterion) {
    let problem = seed_eleven(1.0);
    let mut group = c.benchmark_group("enumerate");
    group.sample_size(10);
    group.bench_function("enumerate 55,440 assignments, 11-player example", |b| {
        b.iter(|| black_box(enumerate(black_box(&problem)).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, exact_draw, mh_to_tv, enumeration);
criterion_main!(benches);
