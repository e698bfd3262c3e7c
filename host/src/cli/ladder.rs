//! `yomi ladder GAME`: every preset's Elo against a fixed reference (the random bot at 0), by a
//! seeded, resumable round robin in the tournament records, fitted as one rating list
//! ([`crate::tournament::ladder`]). `--knob` adds points of a bot's strength curve, `--target`
//! checks the `strength` option against it, `--out` writes the plugin's `ladder.json`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Args;
use serde_json::{json, Value};
use yomi_plugin::ladder::{Knob, Ladder, Rung, LIMIT, STRENGTH};
use yomi_protocol::Options;

use crate::cli::common::Common;
use crate::cli::play::{parse_game_options, runtime};
use crate::cli::progress::bar;
use crate::matches::seat::{BotSeat, SeatEnv};
use crate::registry::Registry;
use crate::tournament::finished;
use crate::tournament::ladder::{Rating, Results};
use crate::tournament::liveness;
use crate::tournament::quota::WriteBudget;
use crate::tournament::runner::{self as tournaments, Start, Tournament};
use crate::tournament::schedule::{Format, TournamentSpec};
use crate::tournament::store::Store;

#[derive(Debug, Args)]
pub struct LadderArgs {
    /// The game whose bots to rate (see `yomi bots`).
    pub game: String,
    /// The bot rated 0 (default: the game plugin's `random`).
    #[arg(long, value_name = "BOT")]
    pub reference: Option<String>,
    /// Points of a strength curve: `BOT:OPTION=V1,V2,...` (repeatable), e.g.
    /// `battle/delta-nash:delta=0,0.1,0.2,0.4`.
    #[arg(long, value_name = "BOT:OPTION=VALUES")]
    pub knob: Vec<String>,
    /// Target Elos to check the `strength` option at: `BOT=E1,E2,...` (repeatable).
    #[arg(long, value_name = "BOT=ELOS")]
    pub target: Vec<String>,
    /// Games per pairing, split evenly over every seat order of each deal.
    #[arg(long, default_value_t = 20)]
    pub games_per_pair: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    pub concurrency: usize,
    /// Seats per game (default: the game's smallest).
    #[arg(long)]
    pub seats: Option<usize>,
    #[arg(long = "game-option", value_name = "NAME=VALUE")]
    pub game_options: Vec<String>,
    /// Write the ladder (the plugin's `ladder.json`) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

/// What one entry of the pool is for.
#[derive(Debug, Clone, PartialEq)]
enum Role {
    Reference,
    Preset,
    Knob { option: String, value: f64 },
    Target(f64),
}

/// `yomi ladder`.
pub fn ladder(common: &Common, args: LadderArgs) -> anyhow::Result<ExitCode> {
    let registry = common.registry()?;
    let (seats, roles) = pool(&registry, &args)?;
    let spec = TournamentSpec {
        game: args.game.clone(),
        game_options: parse_game_options(&args.game_options)?,
        bots: seats.clone(),
        format: Format::RoundRobin,
        seats: args.seats,
        games_per_pair: args.games_per_pair,
        seed: args.seed,
        concurrency: args.concurrency,
        policy: Default::default(),
        sprt: None,
        repeat: false,
        openings: None,
        keep_transcripts: false,
        explain: false,
        shard: None,
    };
    // The same command always names the same records: running it again resumes it.
    let id = format!("ladder-{}-{}", args.game, &spec.derived_id()[2..]);
    let store = Store::open(&common.data_dir()).map_err(|e| anyhow::anyhow!(e.message))?;
    let start = tournaments::create_or_resume(
        &registry,
        &store,
        spec.clone(),
        Some(id.clone()),
        u64::MAX,
        crate::runtime::auth::Role::Operator,
    )
    .map_err(|e| anyhow::anyhow!(e.message))?;
    let store = Arc::new(Mutex::new(store));
    let t = match start {
        Start::Play(t) => {
            let t = Arc::new(*t);
            let _playing = liveness::hold(&common.data_dir(), &t.id)
                .map_err(|e| anyhow::anyhow!(e.message))?;
            eprintln!(
                "ladder {} ({} entries, {} games; run the same command again to resume)",
                t.id,
                seats.len(),
                t.scheduled()
            );
            let bar = bar(t.schedule.total(), "ladder", "games");
            let env = SeatEnv { data_dir: Some(common.data_dir()), ..SeatEnv::default() };
            runtime()?
                .block_on(tournaments::run(
                    t.clone(),
                    store.clone(),
                    env,
                    WriteBudget::unlimited(),
                    |done, _| bar.set_position(done),
                ))
                .map_err(|e| anyhow::anyhow!(e.message))?;
            bar.finish_and_clear();
            t
        }
        Start::AlreadyFinished(id) => Arc::new(
            Tournament::prepare(&registry, id, spec, u64::MAX)
                .map_err(|e| anyhow::anyhow!(e.message))?,
        ),
    };
    let stored = store.lock().unwrap().games(&t.id).map_err(|e| anyhow::anyhow!(e.message))?;
    let finished = finished::finished_of(&t.schedule, &stored);
    let ratings = Results::of(seats.len(), &finished).fit(0);
    let ladder = ladder_file(&args, &seats, &roles, &ratings, &id);
    if let Some(path) = &args.out {
        std::fs::write(path, serde_json::to_string_pretty(&ladder)? + "\n")?;
        eprintln!("wrote {}", path.display());
    }
    let targets = target_rows(&seats, &roles, &ratings);
    if args.json {
        outln!("{}", json!({"ladder": ladder, "targets": targets}))?;
    } else {
        out!("{}", render(&ladder, &targets))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The pool: the reference first, every preset of every bot of the game (a bot without presets
/// with its defaults), then the knob points and the strength targets.
fn pool(registry: &Registry, args: &LadderArgs) -> anyhow::Result<(Vec<BotSeat>, Vec<Role>)> {
    let game = registry.resolve_game(&args.game).map_err(|e| anyhow::anyhow!(e.message))?;
    let reference =
        args.reference.clone().unwrap_or_else(|| format!("{}/random", game.plugin.name()));
    let seat = |bot: &str, preset: Option<&str>, options: Options| BotSeat {
        bot: bot.to_string(),
        preset: preset.map(String::from),
        options,
        isolate: false,
    };
    let mut seats = vec![seat(&reference, None, Options::new())];
    let mut roles = vec![Role::Reference];
    let mut found_reference = false;
    for plugin in registry.latest() {
        for bot in plugin.loaded.manifest.bots.iter().filter(|b| b.games.contains(&args.game)) {
            let name = format!("{}/{}", plugin.name(), bot.name);
            // The reference plays with its defaults; its presets are rated like any other.
            let is_reference = name == reference;
            found_reference |= is_reference;
            if bot.presets.is_empty() && !is_reference {
                seats.push(seat(&name, None, Options::new()));
                roles.push(Role::Preset);
            }
            for preset in &bot.presets {
                seats.push(seat(&name, Some(&preset.name), Options::new()));
                roles.push(Role::Preset);
            }
        }
    }
    if !found_reference {
        anyhow::bail!(
            "no bot `{reference}` plays `{}`; name the reference with --reference BOT",
            args.game
        );
    }
    for knob in &args.knob {
        let (bot, rest) = knob
            .split_once(':')
            .and_then(|(bot, rest)| Some((bot, rest.split_once('=')?)))
            .ok_or_else(|| anyhow::anyhow!("--knob `{knob}` is not BOT:OPTION=V1,V2,..."))?;
        let (option, values) = rest;
        for value in numbers(values, "--knob", knob)? {
            seats.push(seat(bot, None, [(option.to_string(), json!(value))].into_iter().collect()));
            roles.push(Role::Knob { option: option.to_string(), value });
        }
    }
    for target in &args.target {
        let (bot, elos) = target
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--target `{target}` is not BOT=E1,E2,..."))?;
        for elo in numbers(elos, "--target", target)? {
            let options = [
                (LIMIT.to_string(), json!(true)),
                (STRENGTH.to_string(), json!(elo.round() as i64)),
            ];
            seats.push(seat(bot, None, options.into_iter().collect()));
            roles.push(Role::Target(elo));
        }
    }
    Ok((seats, roles))
}

fn numbers(text: &str, flag: &str, whole: &str) -> anyhow::Result<Vec<f64>> {
    text.split(',')
        .map(|v| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| anyhow::anyhow!("{flag} `{whole}`: `{v}` is not a number"))
        })
        .collect()
}

/// The ladder as the plugin keeps it: every rated entry, and the knob curves.
fn ladder_file(
    args: &LadderArgs,
    seats: &[BotSeat],
    roles: &[Role],
    ratings: &[Rating],
    id: &str,
) -> Ladder {
    let rungs = seats
        .iter()
        .zip(ratings)
        .map(|(seat, r)| Rung {
            bot: seat.bot.clone(),
            preset: seat.preset.clone(),
            options: seat.options.clone(),
            elo: round1(r.elo),
            elo_ci95: [round1(r.ci95[0]), round1(r.ci95[1])],
            games: r.games,
        })
        .collect();
    let mut knobs: Vec<Knob> = Vec::new();
    for ((seat, role), r) in seats.iter().zip(roles).zip(ratings) {
        if let Role::Knob { option, value } = role {
            let point = [*value, round1(r.elo)];
            match knobs.iter_mut().find(|k| k.bot == seat.bot && &k.option == option) {
                Some(k) => k.points.push(point),
                None => knobs.push(Knob {
                    bot: seat.bot.clone(),
                    option: option.clone(),
                    points: vec![point],
                }),
            }
        }
    }
    Ladder {
        game: args.game.clone(),
        command: command_line(args, id),
        reference: seats[0].bot.clone(),
        rungs,
        knobs,
    }
}

/// The command that regenerates the ladder.
fn command_line(args: &LadderArgs, id: &str) -> String {
    let mut words = vec![format!("yomi ladder {}", args.game)];
    words.extend(args.reference.iter().map(|r| format!("--reference {r}")));
    words.extend(args.knob.iter().map(|k| format!("--knob {k}")));
    words.extend(args.target.iter().map(|t| format!("--target {t}")));
    words.extend(args.game_options.iter().map(|o| format!("--game-option {o}")));
    words.extend(args.seats.iter().map(|s| format!("--seats {s}")));
    words.push(format!(
        "--games-per-pair {} --seed {}  # records: {id}",
        args.games_per_pair, args.seed
    ));
    words.join(" ")
}

/// Target against achieved Elo for every `--target` entry.
fn target_rows(seats: &[BotSeat], roles: &[Role], ratings: &[Rating]) -> Vec<Value> {
    seats
        .iter()
        .zip(roles)
        .zip(ratings)
        .filter_map(|((seat, role), r)| match role {
            Role::Target(target) => Some(json!({
                "bot": seat.bot, "target": target, "elo": round1(r.elo),
                "elo_ci95": [round1(r.ci95[0]), round1(r.ci95[1])], "error": round1(r.elo - target),
                "games": r.games,
            })),
            _ => None,
        })
        .collect()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The ladder for people: entries by Elo, then the targets.
fn render(ladder: &Ladder, targets: &[Value]) -> String {
    let label = |r: &Rung| {
        let mut extras: Vec<String> = r.preset.iter().map(|p| format!("preset={p}")).collect();
        extras.extend(r.options.iter().map(|(k, v)| format!("{k}={v}")));
        if extras.is_empty() {
            r.bot.clone()
        } else {
            format!("{}:{}", r.bot, extras.join(","))
        }
    };
    let mut rungs: Vec<&Rung> = ladder.rungs.iter().collect();
    rungs.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let width = rungs.iter().map(|r| label(r).chars().count()).max().unwrap_or(5).max(5);
    let mut out = format!(
        "| {:<width$} | {:>7} | {:>17} | {:>5} |\n|{}|---------|-------------------|-------|\n",
        "entry",
        "Elo",
        "95 % interval",
        "games",
        "-".repeat(width + 2)
    );
    for r in rungs {
        let ci = format!("[{:.0}, {:.0}]", r.elo_ci95[0], r.elo_ci95[1]);
        out.push_str(&format!(
            "| {:<width$} | {:>7.0} | {:>17} | {:>5} |\n",
            label(r),
            r.elo,
            ci,
            r.games
        ));
    }
    if !targets.is_empty() {
        out.push_str(
            "\n| bot | target | achieved | 95 % interval | error |\n|---|---|---|---|---|\n",
        );
        for t in targets {
            out.push_str(&format!(
                "| {} | {} | {:.0} | [{:.0}, {:.0}] | {:+.0} |\n",
                t["bot"].as_str().unwrap_or(""),
                t["target"],
                t["elo"].as_f64().unwrap_or(0.0),
                t["elo_ci95"][0].as_f64().unwrap_or(0.0),
                t["elo_ci95"][1].as_f64().unwrap_or(0.0),
                t["error"].as_f64().unwrap_or(0.0),
            ));
        }
    }
    out.push_str(&format!(
        "\nreference {} at 0; regenerate: {}\n",
        ladder.reference, ladder.command
    ));
    out
}
