//! Criterion benches of the solver: one 5×5 matrix game, and the full backward induction on all
//! cores against single-threaded baselines (the same table on one thread, and the plain memoised
//! recursion of `reference`) in the same run; the largest default-limit table (every HP 5) too.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::Rng;
use yomi_battle::engine::Engine;
use yomi_battle::lp::{self, Matrix};
use yomi_battle::reference::Memo;
use yomi_battle::rules::Rules;
use yomi_battle::solver::Table;

/// Random 5×5 matrices (mixed equilibria almost always) and the game's own matrices.
fn lp_bench(c: &mut Criterion) {
    let mut rng = yomi_plugin::rng::seeded(7);
    let random: Vec<Matrix> = (0..256)
        .map(|_| {
            let rows: Vec<Vec<f64>> =
                (0..5).map(|_| (0..5).map(|_| rng.gen::<f64>()).collect()).collect();
            Matrix::from_rows(&rows)
        })
        .collect();
    let mut k = 0;
    c.bench_function("lp 5x5 random (mixed)", |b| {
        b.iter(|| {
            k = (k + 1) % random.len();
            lp::solve(std::hint::black_box(&random[k]))
        })
    });
    let table = Table::solve(Engine::new(Rules::preset("thesis").unwrap()), 2);
    let game: Vec<Matrix> = (0..3u8)
        .flat_map(|a| (0..3u8).map(move |b| [a, b]))
        .map(|active| table.matrix(&table.engine.initial(active)))
        .collect();
    c.bench_function("lp 5x5 initial positions of the game", |b| {
        b.iter(|| {
            k = (k + 1) % game.len();
            lp::solve(std::hint::black_box(&game[k]))
        })
    });
}

fn full_solve(c: &mut Criterion) {
    let engine = Engine::new(Rules::preset("thesis").unwrap());
    let mut g = table_on_one_and_two_threads(c, "full solve (thesis parties)", &engine);
    g.bench_function("baseline: memoised recursion from the 9 starts, 1 thread", |b| {
        b.iter(|| {
            let mut memo = Memo::new(&engine);
            for a in 0..3u8 {
                for d in 0..3u8 {
                    memo.value(&engine.initial([a, d]));
                }
            }
            memo.positions()
        })
    });
    g.finish();
}

/// The largest table at the default turn limit (every HP 5: the delta-experiment parties), the
/// one a first decision after new all-HP-5 parties waits for (BENCHMARKS.md, issue 30).
fn every_hp_five(c: &mut Criterion) {
    let engine = Engine::new(Rules::preset("delta-experiment").unwrap());
    table_on_one_and_two_threads(c, "full solve (every HP 5)", &engine).finish();
}

/// A group `name` timing `engine`'s table solved on 2 threads and on 1, for more to be added.
fn table_on_one_and_two_threads<'a>(
    c: &'a mut Criterion,
    name: &str,
    engine: &Engine,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.bench_function("table, 2 threads", |b| b.iter(|| Table::solve(engine.clone(), 2)));
    g.bench_function("table, 1 thread", |b| b.iter(|| Table::solve(engine.clone(), 1)));
    g
}

criterion_group!(benches, lp_bench, full_solve, every_hp_five);
criterion_main!(benches);
