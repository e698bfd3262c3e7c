//! Time per natural length-50 sequence (the paper's section 6 reports 0.02 s; our target is < 10 us),
//! per streamed roll, per trap-controlled roll, and per one-position incremental evaluation.

use criterion::{criterion_group, criterion_main, Criterion};
use yomi_dice::board::Board;
use yomi_dice::control::TrapControl;
use yomi_dice::ranges::Ranges;
use yomi_dice::search::{generate, uniform, Method, Params};
use yomi_dice::service::Player;
use yomi_dice::stream::{Dice, NaturalStream};
use yomi_dice::tracker::Tracker;
use yomi_plugin::rng::seeded;

fn sequence(c: &mut Criterion) {
    let ranges = Ranges::table2();
    for (name, method) in [
        ("natural_sequence_len50_auto", Method::Auto),
        ("natural_sequence_len50_local", Method::Local),
    ] {
        let params = Params { method, ..Params::default() };
        let mut rng = seeded(1);
        c.bench_function(name, |b| b.iter(|| generate(50, 6, &ranges, &params, &mut rng)));
    }
}

fn stream(c: &mut Criterion) {
    let mut natural = NaturalStream::new(6, 50, Ranges::table2(), Params::default(), 2);
    c.bench_function("streamed_roll_natural", |b| b.iter(|| natural.next_in(None)));
    let mut plain = Dice::plain(6, 2);
    c.bench_function("streamed_roll_plain", |b| b.iter(|| plain.roll()));
    let board = Board::standard();
    let dice = Dice::natural(6, 50, Ranges::table2(), Params::default(), 3);
    let mut player = Player { dice, control: TrapControl::new(10) };
    let mut pos = 0;
    c.bench_function("controlled_roll_standard_board", |b| {
        b.iter(|| {
            let (face, _, _, _) = player.roll_on(&board, pos);
            let dests = board.destinations(pos, face as usize);
            pos = dests.iter().copied().find(|&d| !board.is_trap(d)).unwrap_or(dests[0]);
            if board.is_goal(pos) || board.is_trap(pos) {
                pos = 0;
            }
        })
    });
}

fn incremental(c: &mut Criterion) {
    let mut rng = seeded(4);
    let t = Tracker::new(uniform(50, 6, &mut rng), 6);
    let mut i = 0usize;
    c.bench_function("propose_one_change_len50", |b| {
        b.iter(|| {
            i = (i + 7) % 50;
            t.propose(i, (i % 6) as u8 + 1)
        })
    });
}

criterion_group!(benches, sequence, stream, incremental);
criterion_main!(benches);
