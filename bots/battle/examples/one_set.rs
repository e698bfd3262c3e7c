//! Solves one all-HP-5 party set of `yomi battle first-move --max-hp` again and again, to profile
//! the slow sets alone: `cargo run --release -p yomi-battle --example one_set -- SEED SET [REPS]
//! [THREADS]` solves the party set that run's `per_set[SET]` timed (no store, no agent).

use std::time::Instant;

use yomi_battle::engine::Engine;
use yomi_battle::first_move::random_parties;
use yomi_battle::rules::{Rules, TURN_LIMIT};
use yomi_battle::solver::Table;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("SEED SET [REPS] [THREADS] are numbers"))
        .collect();
    let (seed, set) = match args[..] {
        [seed, set, ..] => (seed, set),
        _ => panic!("usage: one_set SEED SET [REPS] [THREADS]"),
    };
    let reps = args.get(2).copied().unwrap_or(5);
    let threads = args.get(3).map_or_else(yomi_battle::cache::threads, |&t| t as usize);
    // The same draws as `first_move::measure`: one party set per set, in order.
    let mut rng = yomi_plugin::rng::seeded(seed);
    let mut parties = random_parties(&mut rng, true);
    for _ in 0..set {
        parties = random_parties(&mut rng, true);
    }
    let engine = Engine::new(Rules::new(parties, false, TURN_LIMIT).expect("valid parties"));
    for _ in 0..reps {
        let start = Instant::now();
        let table = Table::solve(engine.clone(), threads);
        let wall = start.elapsed().as_secs_f64() * 1e3;
        println!("{wall:.1} ms wall, {} decision states solved", table.solved);
    }
}
