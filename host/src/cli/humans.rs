//! `yomi records import NAME FILE`: human records into the data directory (README, "Human
//! records"); `yomi humanlike`: how likely a bot finds them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use yomi_protocol::ops::humans::{
    Fit, Humanlike, DEFAULT_FLOOR, DEFAULT_ITERATIONS, DEFAULT_RESAMPLES,
};

use crate::cli::common::Common;
use crate::cli::progress::{bar, following, spinner};
use crate::humans::from_transcript;
use crate::humans::record::Record;
use crate::humans::replay::Running;
use crate::humans::report::{FitJob, HumanlikeJob};
use crate::humans::store;

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
        let observation = serde_json::from_str(record.observation.get()).map_err(|e| {
            yomi_protocol::ErrorInfo::new(yomi_protocol::ErrorCode::Internal, e.to_string())
        })?;
        for (field, value) in [("observation", &observation), ("action", &record.action)] {
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
    #[arg(long, default_value_t = DEFAULT_FLOOR)]
    pub floor: f64,
    /// Bootstrap resamples of the plays for the 95 % intervals (1 to 10,000).
    #[arg(long, default_value_t = DEFAULT_RESAMPLES)]
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
    let p = Humanlike {
        bot: args.bot,
        records: args.records,
        floor: args.floor,
        resamples: args.resamples,
        seed: args.seed,
    };
    let job = HumanlikeJob::prepare(&*common.registry()?, &common.data_dir(), p).map_err(err)?;
    let (running, bar) = (Running::local(), bar(job.cost(), "humanlike", "decisions"));
    let runtime = super::play::runtime()?;
    let out = following(
        &bar,
        running.replayed.clone(),
        |bar, n| bar.set_position(n),
        || runtime.block_on(job.run(&running)),
    );
    let out = out.map_err(err)?;
    if args.json {
        outln!("{out}")?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} on `{}`: {} decisions in {} plays of {}",
        text(&out["bot"]),
        text(&out["records"]),
        out["decisions"],
        out["plays"],
        text(&out["game"])
    )?;
    let all = out["all"].as_object().into_iter().flatten();
    for (name, s) in all {
        let label = match (name.as_str(), out["best_preset"].as_str()) {
            ("best_preset", Some(preset)) => format!("preset {preset}"),
            _ => name.clone(),
        };
        let f = |key: &str| s[key].as_f64().unwrap_or(f64::NAN);
        let ci = |key: &str, i: usize| s[key][i].as_f64().unwrap_or(f64::NAN);
        outln!(
            "  {label:<20} top-1 {:.3} [{:.3}, {:.3}]  log-likelihood {:.3} [{:.3}, {:.3}]  zero-probability {}",
            f("accuracy"), ci("accuracy_ci95", 0), ci("accuracy_ci95", 1),
            f("log_likelihood"), ci("log_likelihood_ci95", 0), ci("log_likelihood_ci95", 1), s["zero_probability"]
        )?;
    }
    let think = &out["think"];
    if !think.is_null() {
        let f = |key: &str| think[key].as_f64().unwrap_or(f64::NAN);
        let ci = |i: usize| think["log_likelihood_ci95"][i].as_f64().unwrap_or(f64::NAN);
        outln!(
            "  think time on {} timed decisions: log-likelihood {:.3} [{:.3}, {:.3}] per ms (one log-normal of the records' times: {:.3}); the records fit think_scale × {:.2}",
            think["decisions"], f("log_likelihood"), ci(0), ci(1), f("baseline_log_likelihood"), f("scale_factor")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A JSON string's text.
fn text(value: &serde_json::Value) -> &str {
    value.as_str().unwrap_or_default()
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
    #[arg(long, default_value_t = DEFAULT_FLOOR)]
    pub floor: f64,
    /// Most Nelder–Mead iterations per combination of discrete options.
    #[arg(long, default_value_t = DEFAULT_ITERATIONS)]
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
    let bot_name = args.bot.split(':').next().unwrap_or_default().to_string();
    let p = Fit {
        bot: args.bot,
        records: args.records,
        fit: args.fit,
        preset: args.preset,
        floor: args.floor,
        iterations: args.iterations,
        seed: args.seed,
    };
    let data_dir = common.data_dir();
    let job = FitJob::prepare(common.registry()?, &data_dir, p).map_err(err)?;
    let runtime = super::play::runtime()?;
    let (running, fitting) = (Running::local(), job.fitting_decisions().max(1));
    let show = move |line: &indicatif::ProgressBar, n| {
        let replays = n as f64 / fitting as f64;
        line.set_message(format!("about {replays:.1} replays of {fitting} decisions"))
    };
    let out = following(&spinner("fit"), running.replayed.clone(), show, || {
        job.run(&data_dir, runtime.handle(), &running)
    });
    let out = out.map_err(err)?;
    if args.json {
        outln!("{out}")?;
        return Ok(ExitCode::SUCCESS);
    }
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    outln!(
        "{} fitted to `{}` ({} plays, {} replays of the records in {:.1} s):",
        text(&out["bot"]),
        text(&out["records"]),
        out["plays"]["fit"],
        out["evaluations"],
        f(&out["seconds"])
    )?;
    for fitted in out["fitted"].as_array().into_iter().flatten() {
        let (name, value) = (text(&fitted["name"]), &fitted["value"]);
        match fitted["ci95"].as_array() {
            Some(ci) => outln!("  {name} = {value}  95 % [{:.3}, {:.3}]", f(&ci[0]), f(&ci[1]))?,
            None => outln!("  {name} = {value}")?,
        }
    }
    let held = &out["held_out_log_likelihood"];
    outln!("held-out log-likelihood per decision ({} plays):", out["plays"]["held_out"])?;
    outln!("  fitted              {:.4}", f(&held["fitted"]))?;
    outln!("  uniform             {:.4}", f(&held["uniform"]))?;
    for (preset, ll) in held["presets"].as_object().into_iter().flatten() {
        outln!("  preset {preset:<12} {:.4}", f(ll))?;
    }
    let name = text(&out["preset"]);
    outln!("preset `{name}` written to {} (use {bot_name}:preset={name})", text(&out["file"]))?;
    Ok(ExitCode::SUCCESS)
}
