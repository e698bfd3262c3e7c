//! `yomi battle first-move`: how long a game waits for the first δ-Nash decision after a party set
//! the process has never seen (the table is solved inside that decision). Each set is drawn from
//! a seeded RNG and goes through the agent path a server uses: a fresh `delta-nash` agent
//! (human-like preset) acting on the initial position.

use std::time::Instant;

use rand::seq::SliceRandom;
use rand::Rng;
use serde::Serialize;
use yomi_plugin::protocol::options::resolve;
use yomi_plugin::typed::{to_json, Typed};
use yomi_plugin::{ActRequest, Agent, AgentContext, ErrorCode, ErrorInfo, Options};

use crate::codec;
use crate::engine::Engine;
use crate::player::{Kind, Player};
use crate::rules::{Pokemon, Rules, Type, MAX_HP, MAX_SPEED, TURN_LIMIT};
use crate::solver::Table;

/// Most party sets one run may solve: the process solves at most
/// [`crate::cache::SOLVES_PER_HOUR`] new rule sets for agents an hour.
pub const MAX_SETS: usize = 50;

const TYPES: [Type; 4] = [Type::Fire, Type::Grass, Type::Electric, Type::Water];

/// Two random parties: each Pokémon a random type, three different move types, HP drawn from
/// 1..=5 (or 5 with `max_hp`, the largest table) and the six speeds all different.
pub fn random_parties(rng: &mut impl Rng, max_hp: bool) -> [[Pokemon; 3]; 2] {
    let mut speeds: Vec<u8> = (1..=MAX_SPEED).collect();
    speeds.shuffle(rng);
    let mut mons = speeds[..6].iter().enumerate().map(|(k, &speed)| {
        let mut moves = TYPES;
        moves.shuffle(rng);
        Pokemon {
            name: format!("P{}", k + 1),
            ty: TYPES[rng.gen_range(0..4)],
            hp: if max_hp { MAX_HP } else { rng.gen_range(1..=MAX_HP) },
            speed,
            moves: [moves[0], moves[1], moves[2]],
        }
    });
    let mut party = || [(); 3].map(|()| mons.next().expect("six Pokémon"));
    [party(), party()]
}

/// The median of `xs` (sorted in place).
fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// The machine's load averages (1, 5, 15 minutes), when Linux says.
fn load_average() -> Option<Vec<f64>> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().take(3).map(|x| x.parse().ok()).collect()
}

/// What `first-move` measured: each set's wall time, CPU time (Linux counts it in 10 ms ticks, so
/// the mean over all sets is the figure to quote) and table size, the walls' median and maximum,
/// and the mean CPU time per set.
#[derive(Debug, Serialize)]
pub struct Report {
    pub sets: usize,
    pub seed: u64,
    pub max_hp: bool,
    pub threads: usize,
    pub median_wall_seconds: f64,
    pub max_wall_seconds: f64,
    pub cpu_seconds_per_set: Option<f64>,
    pub load_average_before: Option<Vec<f64>>,
    pub load_average_after: Option<Vec<f64>>,
    pub per_set: Vec<PerSet>,
}

/// One party set's first decision.
#[derive(Debug, Serialize)]
pub struct PerSet {
    pub wall_seconds: f64,
    pub cpu_seconds: Option<f64>,
    pub table_entries: usize,
}

/// Times the first decision after each of `sets` fresh party sets (see [`Report`]).
pub fn measure(
    sets: usize,
    seed: u64,
    max_hp: bool,
    data_dir: Option<&std::path::Path>,
) -> Result<Report, ErrorInfo> {
    if !(1..=MAX_SETS).contains(&sets) {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("--sets must be 1 to {MAX_SETS} (each is a new table to solve)"),
        ));
    }
    let kind = Kind::DeltaNash;
    let options = resolve(&kind.options(), &kind.presets(), Some("human-like"), &Options::new())
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
    let mut rng = yomi_plugin::rng::seeded(seed);
    let load_before = load_average();
    let cpu_before = crate::usage::cpu_seconds();
    let (mut walls, mut rows) = (Vec::new(), Vec::new());
    for k in 0..sets {
        let rules = Rules::new(random_parties(&mut rng, max_hp), false, TURN_LIMIT)?;
        let engine = Engine::new(rules);
        let state = engine.initial([0, 0]);
        let legal = engine.legal(&state, 0);
        let request = ActRequest::new(
            to_json(&codec::observation(&engine, &state, 0, false)),
            codec::named(&engine, 0, &state, &legal).iter().map(to_json).collect(),
        );
        let ctx = AgentContext {
            seed: seed + k as u64,
            data_dir: data_dir.map(Into::into),
            ..AgentContext::default()
        };
        let mut agent = Typed(Player::new(kind, &options, &ctx)?);
        let (start, cpu_start) = (Instant::now(), crate::usage::cpu_seconds());
        agent.act(&request)?;
        let wall = start.elapsed().as_secs_f64();
        let cpu = crate::usage::cpu_seconds().zip(cpu_start).map(|(b, a)| b - a);
        // The table is stored after the decision; that write is not the next set's to wait for.
        crate::cache::wait_for_stores();
        walls.push(wall);
        let (layers, layer_len) = Table::shape(engine);
        rows.push(PerSet {
            wall_seconds: wall,
            cpu_seconds: cpu,
            table_entries: layers * layer_len,
        });
    }
    let cpu = crate::usage::cpu_seconds().zip(cpu_before).map(|(b, a)| (b - a) / sets as f64);
    let max = walls.iter().copied().fold(0.0, f64::max);
    Ok(Report {
        sets,
        seed,
        max_hp,
        threads: crate::cache::threads(),
        median_wall_seconds: median(&mut walls),
        max_wall_seconds: max,
        cpu_seconds_per_set: cpu,
        load_average_before: load_before,
        load_average_after: load_average(),
        per_set: rows,
    })
}
