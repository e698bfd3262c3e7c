//! How fast a record set is scored: decisions a second when `yomi humanlike` and `yomi fit`
//! replay records through a bot asking for its policy (issue 41's target: 100,000 decisions in
//! at most 10 s on 2 cores for the battle and Sevens bots). The records are a synthetic
//! population played by `target/release/yomi match` (Sevens: `YOMI_BENCH_GAMES` games of three
//! `dvalue:temperature=2`, default 300; battle: `YOMI_BENCH_BATTLE_GAMES` games of two
//! `delta-nash`, default a tenth as many, about 4,000 for the target's 100,000 decisions), read
//! and prepared as the commands do. Each bot scores `YOMI_BENCH_ROUNDS` populations (default 3),
//! each played from a seed of its own: a plugin may remember what it computed for a position
//! (battle's policy estimates), so scoring the same records again would time its memory instead.
//! The median round is printed with the time 100,000 decisions would take at that rate.
//! Run: `cargo build --release --workspace && cargo bench -p yomi --bench humanlike` (name bots
//! after `--` to measure only those whose spec contains one of the names).

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use yomi_host::humans::replay::{score_bot, Prepared, Running};
use yomi_host::humans::{from_transcript, store};
use yomi_host::matches::seat::{BotSeat, SeatPlan, SeatSpec};
use yomi_host::registry::Registry;

fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The records of `games` seeded games of `seats` copies of `bot`, as `records import` reads them.
fn population(game: &str, bot: &str, seats: usize, games: u64, seed: u64) -> Arc<Prepared> {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.jsonl");
    let mut command = Command::new(release_dir().join("yomi"));
    command.args(["--data-dir"]).arg(dir.path()).args(["match", "--game", game]);
    for _ in 0..seats {
        command.args(["--bot", bot]);
    }
    let (games, seed) = (games.to_string(), seed.to_string());
    command.args(["--games", &games, "--seed", &seed, "--transcript"]).arg(&transcript);
    let out = command.output().expect("target/release/yomi (cargo build --release --workspace)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&transcript).unwrap();
    let records = from_transcript::records(&text).unwrap();
    Prepared::new(&store::plays(&records))
}

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let games = env_or("YOMI_BENCH_GAMES", 300);
    let rounds = env_or("YOMI_BENCH_ROUNDS", 3).max(1);
    let registry = Registry::new(&[release_dir()]).expect("the release directory");
    registry.discover();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let populations = |game: &str, bot: &str, seats: usize, games: u64| -> Vec<Arc<Prepared>> {
        (1..=rounds).map(|seed| population(game, bot, seats, games, seed)).collect()
    };
    let sevens = populations("sevens", "sevens/dvalue:temperature=2", 3, games);
    let battle_games = env_or("YOMI_BENCH_BATTLE_GAMES", (games / 10).max(1));
    let battle = populations("battle", "battle/delta-nash", 2, battle_games);
    let cases = [
        ("sevens", &sevens, "sevens/dvalue:temperature=2"),
        ("sevens", &sevens, "sevens/student"),
        ("battle", &battle, "battle/nash"),
        ("battle", &battle, "battle/delta-nash"),
    ];
    println!("bot | decisions | median decisions/s | 100,000 decisions");
    for (game, populations, spec) in cases {
        if !wanted.is_empty() && !wanted.iter().any(|w| spec.contains(w.as_str())) {
            continue;
        }
        let seat = BotSeat::parse(spec).unwrap();
        let plan = SeatPlan::resolve(&registry, game, &SeatSpec::Bot(seat)).unwrap();
        let mut rates: Vec<f64> = populations
            .iter()
            .map(|prepared| {
                let start = Instant::now();
                runtime.block_on(score_bot(&plan, prepared, 0, &Running::local())).unwrap();
                prepared.decisions() as f64 / start.elapsed().as_secs_f64()
            })
            .collect();
        rates.sort_by(f64::total_cmp);
        let rate = rates[rates.len() / 2];
        let decisions: usize = populations.iter().map(|p| p.decisions()).sum();
        println!("{spec} | {decisions} in {rounds} | {rate:.0} | {:.1} s", 100_000.0 / rate);
    }
}
