//! `yomi records import NAME FILE`: human records into the data directory (README, "Human
//! records"); `yomi humanlike`: how likely a bot finds them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::json;

use crate::cli::common::Common;
use crate::humans::fit as fitting;
use crate::humans::from_transcript;
use crate::humans::likeness::{breakdown, score_uniform, summarise, Settings};
use crate::humans::record::Record;
use crate::humans::replay::{score_bot, Prepared, Running, Scored};
use crate::humans::store;
use crate::matches::seat::{BotSeat, SeatPlan, SeatSpec};
use crate::registry::fitted as presets;

#[derive(Debug, Args)]
pub struct RecordsArgs {
    #[command(subcommand)]
    pub command: RecordsCommand,
}

#[derive(Debug, Subcommand)]
pub enum RecordsCommand {
    /// Check every line of FILE (a yomi transcript, or JSON lines of decisions) and add them to
    /// record set NAME in the data directory; a bad line is named and nothing is added.
    Import {
        /// The set's name: letters, digits, `-` and `_`.
        name: String,
        /// The file to read.
        file: PathBuf,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

pub fn records(common: &Common, args: RecordsArgs) -> anyhow::Result<ExitCode> {
    let RecordsCommand::Import { name, file, json } = args.command;
    let fail = |e: yomi_protocol::ErrorInfo| anyhow::anyhow!("{}: {}", file.display(), e.message);
    store::check_name(&name).map_err(|e| anyhow::anyhow!(e.message))?;
    let text =
        std::fs::read_to_string(&file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let registry = common.registry()?;
    let records = store::read(&text, |game| registry.resolve_game(game).is_ok()).map_err(fail)?;
    let game = registry.resolve_game(&records[0].game).map_err(fail)?;
    if let Some(payload) = &game.info.payload {
        fits_payload(&text, &records, payload).map_err(fail)?;
    }
    let done = store::import(&common.data_dir(), &name, records).map_err(fail)?;
    if json {
        outln!("{}", serde_json::to_value(&done)?)?;
    } else {
        outln!(
            "{} decisions in {} plays of {} added to `{}` ({} decisions in all)",
            done.decisions,
            done.plays,
            done.game,
            done.records,
            done.total
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks each record's observation and action against its game's payload schemas (PROTOCOL.md,
/// "Payload schemas"), naming the line (of JSON lines; of a transcript, the decision) and the
/// field that does not fit.
fn fits_payload(
    text: &str,
    records: &[Record],
    payload: &serde_json::Value,
) -> Result<(), yomi_protocol::ErrorInfo> {
    let transcript = from_transcript::is_transcript(text);
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    for (i, record) in records.iter().enumerate() {
        let place = match lines.next() {
            Some((line, _)) if !transcript => format!("line {}", line + 1),
            _ => format!("decision {} of the transcript", i + 1),
        };
        for (field, value) in [("observation", &record.observation), ("action", &record.action)] {
            yomi_protocol::validate::check(&payload[field], value, field).map_err(|e| {
                let code = yomi_protocol::ErrorCode::InvalidParams;
                yomi_protocol::ErrorInfo::new(code, format!("{place}: {e}"))
            })?;
        }
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct HumanlikeArgs {
    /// The bot: `bot[:option=value,...]` (`preset=NAME` as in `yomi match`).
    pub bot: String,
    /// The record set to replay (see `yomi records import`).
    #[arg(long)]
    pub records: String,
    /// The least probability a decision counts with: ln of it is the log-likelihood of an
    /// action the bot would never play.
    #[arg(long, default_value_t = 1e-6)]
    pub floor: f64,
    /// Bootstrap resamples of the plays for the 95 % intervals.
    #[arg(long, default_value_t = 1000)]
    pub resamples: usize,
    /// Seed of the agents and of the bootstrap.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
}

/// `yomi humanlike`: the bot, the uniform baseline and the bot's best preset on a record set.
pub fn humanlike(common: &Common, args: HumanlikeArgs) -> anyhow::Result<ExitCode> {
    let err = |e: yomi_protocol::ErrorInfo| anyhow::anyhow!(e.message);
    if !(args.floor > 0.0 && args.floor < 1.0) || args.resamples == 0 {
        anyhow::bail!("--floor is a probability above 0 and below 1, --resamples at least 1");
    }
    let records = store::load(&common.data_dir(), &args.records).map_err(err)?;
    let plays = store::plays(&records);
    let game = records[0].game.clone();
    let registry = common.registry()?;
    let resolve = |seat: BotSeat| SeatPlan::resolve(&registry, &game, &SeatSpec::Bot(seat));
    let seat = BotSeat::parse(&args.bot).map_err(err)?;
    let plan = resolve(seat.clone()).map_err(err)?;
    let settings = Settings { floor: args.floor, resamples: args.resamples, seed: args.seed };
    let ll = |scored: &[Vec<Scored>]| summarise(scored, &|_, _| true, &settings).log_likelihood;
    let SeatPlan::Bot { bot, options, .. } = &plan else {
        anyhow::bail!("not a bot: {}", args.bot)
    };
    let runtime = super::play::runtime()?;
    let (prepared, running) = (Prepared::new(&plays), Running::local());
    let score = |plan: &SeatPlan| runtime.block_on(score_bot(plan, &prepared, args.seed, &running));
    let mut models = vec![("bot".to_string(), score(&plan).map_err(err)?)];
    models.push(("uniform".to_string(), score_uniform(&plays)));
    let mut presets = serde_json::Map::new();
    let mut best: Option<(String, Vec<Vec<Scored>>)> = None;
    for preset in &bot.info.presets {
        let seat = BotSeat {
            preset: Some(preset.name.clone()),
            options: Default::default(),
            ..seat.clone()
        };
        let scored = score(&resolve(seat).map_err(err)?).map_err(err)?;
        presets.insert(preset.name.clone(), json!(ll(&scored)));
        if best.as_ref().is_none_or(|(_, b)| ll(&scored) > ll(b)) {
            best = Some((preset.name.clone(), scored));
        }
    }
    let best_name = best.as_ref().map(|(name, _)| name.clone());
    models.extend(best.map(|(_, scored)| ("best_preset".to_string(), scored)));
    let report = breakdown(&plays, &models, &settings);
    let out = json!({
        "bot": bot.qualified(), "options": options, "records": args.records, "game": game,
        "plays": store::games(&plays), "seat_plays": plays.len(), "decisions": records.len(), "settings": settings,
        "best_preset": best_name, "presets_log_likelihood": presets,
        "all": report.all, "by_stage": report.by_stage, "by_kind": report.by_kind,
    });
    if args.json {
        outln!("{out}")?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} on `{}`: {} decisions in {} plays of {}",
        bot.qualified(),
        args.records,
        records.len(),
        store::games(&plays),
        game
    )?;
    for (name, s) in &report.all {
        let label = match (name.as_str(), &best_name) {
            ("best_preset", Some(preset)) => format!("preset {preset}"),
            _ => name.clone(),
        };
        outln!(
            "  {label:<20} top-1 {:.3} [{:.3}, {:.3}]  log-likelihood {:.3} [{:.3}, {:.3}]  zero-probability {}",
            s.accuracy, s.accuracy_ci95[0], s.accuracy_ci95[1],
            s.log_likelihood, s.log_likelihood_ci95[0], s.log_likelihood_ci95[1], s.zero_probability
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct FitArgs {
    /// The bot: `bot[:option=value,...]`; the options it sets are the fit's starting point.
    pub bot: String,
    /// The record set to fit to (see `yomi records import`).
    #[arg(long)]
    pub records: String,
    /// The options to fit, comma-separated (default: every bounded number, boolean and choice).
    #[arg(long, value_delimiter = ',')]
    pub fit: Vec<String>,
    /// The preset's name in the data directory (default: the record set's name).
    #[arg(long)]
    pub preset: Option<String>,
    /// The least probability a decision counts with, as in `yomi humanlike`.
    #[arg(long, default_value_t = 1e-6)]
    pub floor: f64,
    /// Most Nelder–Mead iterations per combination of discrete options.
    #[arg(long, default_value_t = 100)]
    pub iterations: u64,
    /// Seed of the agents.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
}

/// `yomi fit`: the bot's options fitted on four plays in five, judged on the fifth against the
/// uniform baseline and every shipped preset, and written as a preset in the data directory.
pub fn fit(common: &Common, args: FitArgs) -> anyhow::Result<ExitCode> {
    let err = |e: yomi_protocol::ErrorInfo| anyhow::anyhow!(e.message);
    if !(args.floor > 0.0 && args.floor < 1.0) || args.iterations == 0 {
        anyhow::bail!("--floor is a probability above 0 and below 1, --iterations at least 1");
    }
    let name = args.preset.clone().unwrap_or_else(|| args.records.clone());
    store::check_file_name(&name, "a preset's name").map_err(err)?;
    let records = store::load(&common.data_dir(), &args.records).map_err(err)?;
    let plays = store::plays(&records);
    let (train, held) = store::hold_out_fifth(&plays);
    if held.is_empty() {
        anyhow::bail!(
            "`{}` has {} plays: at least 5 are needed (one in five is held out)",
            args.records,
            store::games(&plays)
        );
    }
    let game = records[0].game.clone();
    let registry = common.registry()?;
    let seat = BotSeat::parse(&args.bot).map_err(err)?;
    let make = |options: &yomi_protocol::Options| {
        let seat = BotSeat { options: options.clone(), preset: None, ..seat.clone() };
        SeatPlan::resolve(&registry, &game, &SeatSpec::Bot(seat))
    };
    let SeatPlan::Bot { bot, options: start, .. } =
        SeatPlan::resolve(&registry, &game, &SeatSpec::Bot(seat.clone())).map_err(err)?
    else {
        anyhow::bail!("not a bot: {}", args.bot)
    };
    let space = fitting::Space::new(&bot.info.options, &args.fit).map_err(err)?;
    let runtime = super::play::runtime()?;
    let running = Running::local();
    let (train_set, held_set) = (Prepared::new(&train), Prepared::new(&held));
    let objective = |plays| fitting::Replay {
        runtime: runtime.handle(),
        make: &make,
        plays,
        running: &running,
        floor: args.floor,
        seed: args.seed,
    };
    let clock = std::time::Instant::now();
    let result =
        fitting::fit(&objective(&train_set), &space, &start, args.iterations).map_err(err)?;
    let seconds = clock.elapsed().as_secs_f64();
    let per_decision = |ll: f64| ll / held_set.decisions().max(1) as f64;
    let held_ll = |o: &yomi_protocol::Options| -> anyhow::Result<f64> {
        Ok(per_decision(fitting::Objective::log_likelihood(&objective(&held_set), o).map_err(err)?))
    };
    let uniform = per_decision(fitting::total_log_likelihood(&score_uniform(&held), args.floor));
    let mut presets = serde_json::Map::new();
    for preset in &bot.info.presets {
        let seat = BotSeat {
            preset: Some(preset.name.clone()),
            options: Default::default(),
            ..seat.clone()
        };
        let plan = SeatPlan::resolve(&registry, &game, &SeatSpec::Bot(seat)).map_err(err)?;
        let SeatPlan::Bot { options, .. } = plan else { continue };
        presets.insert(preset.name.clone(), json!(held_ll(&options)?));
    }
    let fitted_ll = held_ll(&result.options)?;
    let description = format!(
        "records `{}` ({} decisions), {:.3} log-likelihood per held-out decision",
        args.records,
        records.len(),
        fitted_ll
    );
    let path =
        presets::write(&common.data_dir(), &bot.qualified(), &name, &description, &result.options)
            .map_err(err)?;
    let out = json!({
        "bot": bot.qualified(), "records": args.records, "game": game, "preset": name,
        "file": path.display().to_string(), "plays": {"fit": store::games(&train), "held_out": store::games(&held)},
        "fitted": result.fitted, "options": result.options,
        "interval": "likelihood ratio (χ²₁, 95 %), other options at their fit",
        "fit_log_likelihood": result.log_likelihood, "evaluations": result.evaluations,
        "seconds": seconds,
        "held_out_log_likelihood": {"fitted": fitted_ll, "uniform": uniform, "presets": presets},
    });
    if args.json {
        outln!("{out}")?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} fitted to `{}` ({} plays, {} replays of the records in {seconds:.1} s):",
        bot.qualified(),
        args.records,
        store::games(&train),
        result.evaluations
    )?;
    for f in &result.fitted {
        match f.ci95 {
            Some([lo, hi]) => outln!("  {} = {}  95 % [{lo:.3}, {hi:.3}]", f.name, f.value)?,
            None => outln!("  {} = {}", f.name, f.value)?,
        }
    }
    outln!("held-out log-likelihood per decision ({} plays):", store::games(&held))?;
    outln!("  fitted              {fitted_ll:.4}")?;
    outln!("  uniform             {uniform:.4}")?;
    for (preset, ll) in &presets {
        outln!("  preset {preset:<12} {:.4}", ll.as_f64().unwrap_or(f64::NAN))?;
    }
    outln!("preset `{name}` written to {} (use {}:preset={name})", path.display(), bot.info.name)?;
    Ok(ExitCode::SUCCESS)
}
