//! The command-line side of matches, tournaments and replays.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::{Args, Subcommand};
use serde_json::{json, Value};
use yomi_protocol::ops::tournaments::Summary;
use yomi_protocol::Options;

use crate::cli::common::Common;
use crate::cli::progress::bar;
use crate::cli::records;
use crate::matches::clock::TimeControl;
use crate::matches::policy::{OnFailure, Policy};
use crate::matches::runner::{self, MatchPlan, MatchSpec, PlayedMatch, Progress};
use crate::matches::seat::{BotSeat, SeatEnv, SeatSpec};
use crate::matches::{replay, transcript};
use crate::registry::Registry;
use crate::runtime::auth::Role;
use crate::tournament::merge;
use crate::tournament::openings::Openings;
use crate::tournament::quota::WriteBudget;
use crate::tournament::rating::SprtSpec;
use crate::tournament::runner::{self as tournaments, Start, Tournament};
use crate::tournament::schedule::{Format, TournamentSpec};
use crate::tournament::shard;
use crate::tournament::stats::SprtModel;
use crate::tournament::store::Store;
use crate::tournament::{liveness, standings};

/// The failure policy flags shared by `match` and `tournament`.
#[derive(Debug, Args, Clone)]
pub struct PolicyArgs {
    /// Per-decision deadline in milliseconds (none by default).
    #[arg(long)]
    pub deadline_ms: Option<u64>,
    /// What a timeout costs the seat.
    #[arg(long, value_enum, default_value = "forfeit")]
    pub on_timeout: OnFailure,
    /// What an illegal action costs the seat.
    #[arg(long, value_enum, default_value = "forfeit")]
    pub on_illegal: OnFailure,
    /// What a bot error, crash or disconnect costs the seat.
    #[arg(long, value_enum, default_value = "forfeit")]
    pub on_error: OnFailure,
    /// A game clock per seat, `[moves/]base[+inc]` in seconds (`40/60+0.6`); running out loses.
    #[arg(long)]
    pub tc: Option<TimeControl>,
    /// Charge a human-paced bot's `think_ms` to its clock when longer than its measured time.
    #[arg(long)]
    pub tc_counts_think: bool,
}

impl PolicyArgs {
    fn policy(&self) -> Policy {
        Policy {
            deadline_ms: self.deadline_ms,
            on_timeout: self.on_timeout,
            on_illegal: self.on_illegal,
            on_error: self.on_error,
            tc: self.tc,
            tc_counts_think: self.tc_counts_think,
        }
    }
}

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The game (see `yomi bots`).
    #[arg(long)]
    pub game: String,
    /// A seat: `bot[:option=value,...]`, one per seat in seat order (`preset=NAME`, `isolate=true`).
    #[arg(long = "bot", value_name = "SPEC", required = true)]
    pub bots: Vec<String>,
    /// A game option `name=value` (repeatable); `name=@FILE` sends a local file's text.
    #[arg(long = "game-option", value_name = "NAME=VALUE")]
    pub game_options: Vec<String>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Games in the match; the agents keep what they learned from game to game.
    #[arg(long, default_value_t = 1)]
    pub games: u32,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Write the transcript (JSON lines) to this file.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TournamentArgs {
    #[command(subcommand)]
    pub action: Option<TournamentAction>,
    /// Resume an interrupted tournament by id.
    #[arg(long, value_name = "ID", conflicts_with_all = ["game", "list"])]
    pub resume: Option<String>,
    /// List the tournaments in the records: running, interrupted or finished.
    #[arg(long)]
    pub list: bool,
    /// Print a tournament's standings again from the records (so far, if it is not finished).
    #[arg(long, value_name = "ID", conflicts_with_all = ["game", "list", "resume"])]
    pub show: Option<String>,
    /// With the standings' table, the crosstable: each bot's points against each.
    #[arg(long)]
    pub crosstable: bool,
    /// Print the stored transcript of one game, `ID:INDEX`, for `yomi replay`.
    #[arg(long, value_name = "ID:INDEX", conflicts_with_all = ["game", "list", "resume", "show"])]
    pub transcript: Option<String>,
    #[arg(long, required_unless_present_any = ["resume", "list", "show", "transcript"])]
    pub game: Option<String>,
    /// A participant: `bot[:option=value,...]` (repeatable; at least two).
    #[arg(long = "bot", value_name = "SPEC")]
    pub bots: Vec<String>,
    #[arg(long = "game-option", value_name = "NAME=VALUE")]
    pub game_options: Vec<String>,
    /// Games per pairing, split evenly over every seat order of each deal.
    #[arg(long, default_value_t = 2)]
    pub games_per_pair: u32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Games played at once (1 to 64).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Gauntlet: the first bot meets the others; otherwise round robin.
    #[arg(long)]
    pub gauntlet: bool,
    /// Seats per game (default: the game's smallest).
    #[arg(long)]
    pub seats: Option<usize>,
    /// Stop when the SPRT decides: `elo0,elo1[,alpha,beta]` (two bots only), on the pairs'
    /// pentanomial outcomes with --repeat, else on the games' trinomial ones.
    #[arg(long)]
    pub sprt: Option<String>,
    /// How the SPRT reads elo0 and elo1: logistic Elo or normalized Elo (as fishtest does).
    #[arg(long, value_enum, default_value = "logistic", requires = "sprt")]
    pub sprt_model: SprtModel,
    /// Play each deal twice in a row with the seats swapped, recorded as a pair (two-seat
    /// games; --games-per-pair must be even). The standings then count pentanomial outcomes.
    #[arg(long)]
    pub repeat: bool,
    /// Start deal d of every pairing from opening d mod len of a suite: a suite's NAME in the
    /// data directory's `openings/` or shipped with yomi (`stud-table-4-1`, `battle-thesis` ...),
    /// or a FILE (a path with a `/`), one JSON object of game options per line.
    #[arg(long, value_name = "NAME|FILE")]
    pub openings: Option<String>,
    /// Do not keep game transcripts in the records.
    #[arg(long)]
    pub no_transcripts: bool,
    /// The tournament's id (default: a fresh one; with --shard, one derived from the spec, the
    /// same in every shard). Running an id again resumes it.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Play only shard I of N of the schedule, counted from 0: `I/N`, or `I` with --shards N
    /// (`--shard $JOB_COMPLETION_INDEX --shards 4`). Merge the shards with `tournament merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// The number of shards, when --shard gives only the index.
    #[arg(long, value_name = "N", requires = "shard")]
    pub shards: Option<u32>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum TournamentAction {
    /// Merge the shards of one tournament, each played into its own data directory, into one
    /// finished tournament in --data-dir: `yomi tournament merge a/ b/ c/ d/ --data-dir all/`.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' data directories.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A transcript written by `yomi match --transcript`.
    pub file: PathBuf,
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn parse_game_options(pairs: &[String]) -> anyhow::Result<Options> {
    let mut options = Options::new();
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--game-option `{pair}` is not NAME=VALUE"))?;
        // `@FILE`: the CLI reads its own file and sends the text (stud's `deals`), since a game
        // never opens a path named in its options.
        let value = match v.strip_prefix('@') {
            Some(path) => Value::String(
                std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("--game-option {k}: {path}: {e}"))?,
            ),
            None => serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string())),
        };
        options.insert(k.to_string(), value);
    }
    Ok(options)
}

fn bot_seats(specs: &[String]) -> anyhow::Result<Vec<BotSeat>> {
    specs.iter().map(|s| BotSeat::parse(s).map_err(|e| anyhow::anyhow!(e.message))).collect()
}

pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().enable_all().build()?)
}

/// `yomi match`.
pub fn play_match(common: &Common, args: MatchArgs) -> anyhow::Result<ExitCode> {
    let registry = common.registry()?;
    let spec = MatchSpec {
        game: args.game.clone(),
        game_options: parse_game_options(&args.game_options)?,
        seats: bot_seats(&args.bots)?.into_iter().map(SeatSpec::Bot).collect(),
        seed: args.seed,
        games: args.games,
        policy: args.policy.policy(),
    };
    let mut plan = MatchPlan::new(&registry, spec).map_err(|e| anyhow::anyhow!(e.message))?;
    plan.keep_games = args.transcript.is_some();
    plan.log_as_text = true;
    let bar = bar(plan.spec.games as u64, "match", "games");
    let data_dir = Some(common.data_dir());
    let env = SeatEnv { data_dir, deadline: plan.spec.policy.deadline(), ..SeatEnv::default() };
    let PlayedMatch { result, log } = runtime()?
        .block_on(runner::play(&plan, &env, |progress| {
            if let Progress::Game { .. } = progress {
                bar.inc(1)
            }
        }))
        .map_err(|e| anyhow::anyhow!(e.message))?;
    bar.finish_and_clear();
    if let Some(path) = &args.transcript {
        std::fs::write(path, log.into_text())?;
    }
    let summary = json!({
        "game": result.game, "seats": result.seats, "games": result.games, "scores": result.scores,
        "failures": result.failures, "forfeits": result.forfeits,
    });
    if args.json {
        outln!("{summary}")?;
    } else {
        outln!("{} games of {}", result.games, result.game)?;
        for (i, seat) in result.seats.iter().enumerate() {
            let f = &result.failures[i];
            outln!(
                "  seat {i}  {seat:<28} score {:>8.1}  ({:.3}/game)  forfeits {}  timeouts {} illegal {} errors {} crashes {}",
                result.scores[i], result.scores[i] / result.games as f64, result.forfeits[i], f.timeout, f.illegal, f.error, f.crash
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `yomi tournament`.
pub fn tournament(common: &Common, args: TournamentArgs) -> anyhow::Result<ExitCode> {
    if let Some(TournamentAction::Merge(merge)) = args.action {
        return merge_shards(common, merge);
    }
    let store = Store::open(&common.data_dir()).map_err(|e| anyhow::anyhow!(e.message))?;
    if args.list {
        out!("{}", records::list(common, &store, args.json)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(id) = &args.show {
        print_summary(&records::show(common, &store, id)?, args.json, args.crosstable)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(which) = &args.transcript {
        let (id, index) = which
            .rsplit_once(':')
            .and_then(|(id, i)| Some((id, i.parse::<u64>().ok()?)))
            .ok_or_else(|| anyhow::anyhow!("--transcript takes ID:INDEX"))?;
        let text = store.transcript(id, index).map_err(|e| anyhow::anyhow!(e.message))?;
        match text {
            Some(t) if !t.is_empty() => out!("{t}")?,
            Some(_) => anyhow::bail!("tournament `{id}` was run without keeping transcripts"),
            None => anyhow::bail!("no game {index} of tournament `{id}` in the records"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(id) = &args.resume {
        match store.get(id).map_err(|e| anyhow::anyhow!(e.message))? {
            None => anyhow::bail!("{}", records::not_in_records(common, id)),
            Some(stored) if stored.status == "finished" => {
                let show = records::show_command(common, id);
                anyhow::bail!("tournament `{id}` is already finished; its standings: `{show}`")
            }
            Some(_) => {}
        }
    }
    let registry = common.registry()?;
    // The command line is the operator's own: no game limit but the schedule's own bound.
    let max = u64::MAX;
    let runtime = runtime()?;
    let start = match &args.resume {
        Some(id) => tournaments::reopen(&registry, &store, id, max, Role::Operator)
            .map(|t| Start::Play(Box::new(t))),
        None => tournaments::create_or_resume(
            &registry,
            &store,
            checked_spec(common, &args, &registry, &runtime)?,
            args.id.clone(),
            max,
            Role::Operator,
        ),
    }
    .map_err(|e| anyhow::anyhow!(e.message))?;
    let t = match start {
        Start::Play(t) => *t,
        Start::AlreadyFinished(id) => {
            let show = records::show_command(common, &id);
            eprintln!(
                "tournament {id} is already finished in the records; its standings: `{show}`"
            );
            return Ok(ExitCode::SUCCESS);
        }
    };
    let _playing =
        liveness::hold(&common.data_dir(), &t.id).map_err(|e| anyhow::anyhow!(e.message))?;
    eprintln!(
        "tournament {} ({} games scheduled; resume with `{}`)",
        t.id,
        t.scheduled(),
        records::resume_command(common, &t.id)
    );
    let bar = bar(t.schedule.total(), "tournament", "games");
    let env = SeatEnv { data_dir: Some(common.data_dir()), ..SeatEnv::default() };
    let summary = runtime
        .block_on(tournaments::run(
            Arc::new(t),
            Arc::new(Mutex::new(store)),
            env,
            WriteBudget::unlimited(),
            |done, _| bar.set_position(done),
        ))
        .map_err(|e| anyhow::anyhow!(e.message))?;
    bar.finish_and_clear();
    print_summary(&summary, args.json, args.crosstable)?;
    Ok(ExitCode::SUCCESS)
}

/// The summary as JSON (the crosstable always in it), or as tables, the crosstable when asked.
fn print_summary(summary: &Summary, json: bool, crosstable: bool) -> std::io::Result<()> {
    if json {
        // Through a `Value`, whose keys are in order: the output of earlier versions.
        return outln!("{}", serde_json::to_value(summary).expect("summaries serialize"));
    }
    out!("{}", standings::render(&summary.standings))?;
    if crosstable {
        out!("\ncrosstable (points/comparisons of the row's bot against the column's)\n")?;
        out!("{}", standings::render_crosstable(&summary.standings))?;
    }
    Ok(())
}

/// The tournament the command line asks for, its openings read and tried on the game before
/// anything is recorded.
fn checked_spec(
    common: &Common,
    args: &TournamentArgs,
    registry: &Registry,
    runtime: &tokio::runtime::Runtime,
) -> anyhow::Result<TournamentSpec> {
    let mut spec = spec_of(args)?;
    let err = |e: yomi_protocol::ErrorInfo| anyhow::anyhow!(e.message);
    if let Some(openings) = &spec.openings {
        spec.openings = Some(openings.read(Some(&common.data_dir()), true).map_err(err)?);
        let planned = Tournament::prepare(registry, String::new(), spec.clone(), u64::MAX);
        runtime.block_on(planned.map_err(err)?.check_openings()).map_err(err)?;
    }
    Ok(spec)
}

/// The tournament the command line asks for.
fn spec_of(args: &TournamentArgs) -> anyhow::Result<TournamentSpec> {
    let shard = match &args.shard {
        Some(text) => {
            Some(shard::parse(text, args.shards).map_err(|e| anyhow::anyhow!(e.message))?)
        }
        None => None,
    };
    Ok(TournamentSpec {
        game: args.game.clone().unwrap_or_default(),
        game_options: parse_game_options(&args.game_options)?,
        bots: bot_seats(&args.bots)?,
        format: if args.gauntlet { Format::Gauntlet } else { Format::RoundRobin },
        seats: args.seats,
        games_per_pair: args.games_per_pair,
        seed: args.seed,
        concurrency: args.concurrency,
        policy: args.policy.policy(),
        sprt: args
            .sprt
            .as_deref()
            .map(SprtSpec::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!(e))?
            .map(|sprt| SprtSpec { model: args.sprt_model, ..sprt }),
        repeat: args.repeat,
        openings: args.openings.clone().map(Openings::Named),
        keep_transcripts: !args.no_transcripts,
        explain: false,
        shard,
    })
}

/// `yomi tournament merge DIR... --data-dir OUT`.
fn merge_shards(common: &Common, args: MergeArgs) -> anyhow::Result<ExitCode> {
    let shards = merge::read_shards(&args.dirs).map_err(|e| anyhow::anyhow!(e.message))?;
    let out = Store::open(&common.data_dir()).map_err(|e| anyhow::anyhow!(e.message))?;
    let summary =
        merge::merge(&*common.registry()?, shards, &out).map_err(|e| anyhow::anyhow!(e.message))?;
    eprintln!(
        "merged {} games of tournament {} into {}",
        summary.games,
        summary.id,
        common.data_dir().display()
    );
    print_summary(&summary, args.json, false)?;
    Ok(ExitCode::SUCCESS)
}

/// `yomi replay`: exit 0 when the transcript plays out identically, 1 when it diverges.
pub fn replay(common: &Common, args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let lines = transcript::read(&args.file).map_err(|e| anyhow::anyhow!(e.message))?;
    let registry = common.registry()?;
    let report = runtime()?
        .block_on(replay::replay(&registry, &lines, Some(common.data_dir())))
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if args.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else if report.identical {
        outln!("identical: {} lines, scores {:?}", report.lines, report.scores)?;
    } else {
        outln!(
            "DIVERGED: {}",
            report.divergence.as_ref().map(|d| d.to_string()).unwrap_or_default()
        )?;
    }
    for change in &report.build_changes {
        eprintln!("note: plugin build changed since recording: {change}");
    }
    Ok(if report.identical { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
