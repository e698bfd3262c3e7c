//! Games per second for each game with its fast bots: through the full host path (async
//! referee, each game on one game thread, transcript, records) at concurrency 1 and 2,
//! against the same plugin game and agents driven by a plain synchronous loop in this process.
//! The ratio is the host's overhead. Run: `cargo bench -p yomi --bench match_throughput` (after
//! `cargo build --release`). Each measurement plays `YOMI_BENCH_GAMES` games (default 200), or
//! more: as many as the direct loop plays in `YOMI_BENCH_SECS` (default 0.5); each cell is the
//! median of `YOMI_BENCH_ROUNDS` rounds (default 5) taken in turns. Name games after `--` to
//! measure only those.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use yomi_host::matches::seat::{BotSeat, SeatEnv};
use yomi_host::registry::Registry;
use yomi_host::runtime::auth::Role;
use yomi_host::tournament::quota::WriteBudget;
use yomi_host::tournament::runner::{self, Start};
use yomi_host::tournament::schedule::{Format, TournamentSpec};
use yomi_host::tournament::store::Store;
use yomi_plugin::call::{Apply, Call, Observe, Open};
use yomi_plugin::AgentContext;
use yomi_protocol::options::resolve;
use yomi_protocol::{ActReply, Decision, Options};

/// The fastest bot of each game, by name preference.
const FAST: &[&str] = &["random", "greedy", "calling-station", "rps"];

fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Plays `games` games with plugin handles and a synchronous loop: no host in between.
fn direct(registry: &Registry, game: &str, bot: &str, seats: usize, games: u64) -> f64 {
    let g = registry.resolve_game(game).unwrap();
    let b = registry.resolve_bot(bot, Some(game), None).unwrap();
    let bot_plugin = b.plugin().expect("a plugin's bot");
    let game_options = resolve(&g.info.options, &g.info.presets, None, &Options::new()).unwrap();
    let bot_options = resolve(&b.info.options, &b.info.presets, None, &Options::new()).unwrap();
    let start = Instant::now();
    for i in 0..games {
        let mut handle = g
            .plugin
            .loaded
            .open(&Open::Game { game: game.into(), options: game_options.clone(), seed: i })
            .unwrap();
        let mut agents: Vec<_> = (0..seats)
            .map(|s| {
                let context = AgentContext { seed: i * 10 + s as u64, ..AgentContext::default() };
                bot_plugin
                    .loaded
                    .open(&Open::Agent {
                        bot: b.info.name.clone(),
                        options: bot_options.clone(),
                        context,
                        cancel: Default::default(),
                    })
                    .unwrap()
            })
            .collect();
        loop {
            let decisions: Vec<Decision> = handle.invoke(&Call::Decisions).unwrap();
            if decisions.is_empty() {
                break;
            }
            let actions: Vec<(usize, Value)> = decisions
                .into_iter()
                .map(|d| {
                    let request = yomi_protocol::ActRequest::new(d.observation, d.legal);
                    let reply: ActReply = agents[d.seat].invoke(&Call::Act(request)).unwrap();
                    (d.seat, reply.action)
                })
                .collect();
            let event: Value = handle.invoke(&Call::Apply(Apply { actions })).unwrap();
            for a in agents.iter_mut() {
                a.invoke::<Value>(&Call::Observe(Observe { event: event.clone() })).unwrap();
            }
        }
    }
    games as f64 / start.elapsed().as_secs_f64()
}

/// Plays the same games as a tournament through the host, committing each to the records.
fn hosted(
    registry: &Registry,
    game: &str,
    bot: &str,
    seats: usize,
    games: u64,
    concurrency: usize,
) -> f64 {
    let data = std::env::temp_dir()
        .join(format!("yomi-bench-{}-{game}-{concurrency}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let store = Store::open(&data).unwrap();
    let spec = TournamentSpec {
        game: game.into(),
        game_options: Options::new(),
        bots: (0..seats).map(|_| BotSeat::parse(bot).unwrap()).collect(),
        format: Format::RoundRobin,
        seats: Some(seats),
        games_per_pair: games as u32,
        seed: 1,
        concurrency,
        policy: Default::default(),
        repeat: false,
        sprt: None,
        keep_transcripts: true,
        explain: false,
        openings: None,
        shard: None,
    };
    let Ok(Start::Play(t)) =
        runner::create_or_resume(registry, &store, spec, None, u64::MAX, Role::Operator)
    else {
        panic!("a fresh tournament starts")
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let start = Instant::now();
    let summary = rt
        .block_on(runner::run(
            t.into(),
            Arc::new(Mutex::new(store)),
            SeatEnv::default(),
            WriteBudget::unlimited(),
            |_, _| {},
        ))
        .unwrap();
    let rate = summary.games as f64 / start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&data);
    rate
}

fn median(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn main() {
    // Games named on the command line (`cargo bench --bench match_throughput -- rps`), or all.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let registry = Registry::new(&[release_dir()]).expect("the release directory");
    registry.discover();
    let catalog = serde_json::to_value(yomi_host::ops::plugins::catalog(&registry, Role::Operator))
        .expect("the catalog serializes");
    let games: u64 =
        std::env::var("YOMI_BENCH_GAMES").ok().and_then(|g| g.parse().ok()).unwrap_or(200);
    let secs: f64 =
        std::env::var("YOMI_BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(0.5);
    let rounds: usize =
        std::env::var("YOMI_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    println!(
        "{:<10} {:<24} {:>7} {:>12} {:>12} {:>12} {:>10}",
        "game", "bot", "games", "direct g/s", "host c=1", "host c=2", "overhead"
    );
    for game in catalog["games"].as_array().unwrap() {
        let name = game["name"].as_str().unwrap();
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let seats = game["min_seats"].as_u64().unwrap() as usize;
        let plays = |b: &&Value| b["games"].as_array().unwrap().iter().any(|g| g == name);
        let bots: Vec<&Value> = catalog["bots"].as_array().unwrap().iter().filter(plays).collect();
        let Some(bot) = FAST.iter().find_map(|f| bots.iter().find(|b| b["name"] == *f)) else {
            continue;
        };
        let id = bot["id"].as_str().unwrap();
        // The three measurements take turns, so a change in the machine's speed during the run
        // (other work, a neighbour on the host) reaches all of them alike; medians are reported.
        // Enough games for the direct loop to play about `YOMI_BENCH_SECS` (a tournament's fixed
        // costs, opening and closing its records, would otherwise weigh on the fastest games).
        let rate = direct(&registry, name, id, seats, 20);
        let games = games.max((rate * secs) as u64);
        let (mut d, mut h1, mut h2) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            d.push(direct(&registry, name, id, seats, games));
            h1.push(hosted(&registry, name, id, seats, games, 1));
            h2.push(hosted(&registry, name, id, seats, games, 2));
        }
        let (d, h1, h2) = (median(d), median(h1), median(h2));
        println!("{name:<10} {id:<24} {games:>7} {d:>12.1} {h1:>12.1} {h2:>12.1} {:>9.2}x", d / h1);
    }
}
