//! `yomi check`: the conformance check of the plugin kit (`yomi_plugin::testing`) run on bots as
//! this host serves them. A bot's agents are started as a match's seats start theirs (in this
//! process, in a `yomi worker` with `isolate=true`, or in its engine's process), behind the
//! host's `AgentHandle`, so any kind of seat the host learns to start can be checked the same
//! way; its games are the loaded plugins' games, called as the host's referee calls them. An
//! engine's report starts with its handshake.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::{json, Value};
use tokio::runtime::{Handle, Runtime};
use yomi_plugin::testing::{self, Arena, Config, Line, Report};
use yomi_plugin::{ActReply, ActRequest, Agent, Game, GameOver};
use yomi_protocol::{BotInfo, Decision, ErrorInfo, GameInfo, GameOutcome, Options};

use crate::agents::AgentHandle;
use crate::cli::common::Common;
use crate::matches::game::{HostedGame, RefereedGame};
use crate::matches::seat::{BotSeat, SeatEnv, SeatPlan};
use crate::registry::engines::{EngineEntry, ENGINE_PREFIX};
use crate::registry::{BotRef, BotSource, Registry};
use crate::runtime::executor::Scope;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The bots to check: `plugin/bot` or `engine/NAME`, with a preset or options as a match
    /// seat takes them (`stud/fuzzy:preset=adaptive`, `example/rps:reading=1`,
    /// `...:isolate=true`). Name engines with `--engine NAME=COMMAND` or the engines file.
    /// Without a BOT or `--all`, the engines named with `--engine`.
    #[arg(value_name = "BOT", conflicts_with = "all")]
    pub bots: Vec<String>,
    /// Check every bot of every loaded plugin, and every engine.
    #[arg(long)]
    pub all: bool,
    /// Games in each seating (each game, seat count and seat of the bot).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub games: u32,
    /// The seed every game's and agent's seed derives from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fail a bot whose p99 decision time is above this many milliseconds.
    #[arg(long, value_name = "MS")]
    pub max_p99_ms: Option<f64>,
    /// How long one call of an isolated bot may take before its worker is killed (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub deadline: f64,
    /// Print the reports as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the check on each bot asked for; exits 1 when any of them fails.
pub fn check(common: &Common, args: CheckArgs) -> anyhow::Result<ExitCode> {
    let (registry, engine_problems) = common.registry_and_engine_problems(None)?;
    let mut seats = match (args.all, args.bots.is_empty()) {
        (true, _) => every_bot(&registry),
        (false, false) => parse_seats(&args.bots)?,
        (false, true) if !common.engines.is_empty() => {
            common.engines.iter().map(|e| engine_seat(&e.name)).collect()
        }
        (false, true) => anyhow::bail!(
            "name the bots to check (plugin/bot, engine/NAME), --all, or --engine NAME=COMMAND"
        ),
    };
    if args.all {
        seats.extend(engine_problems.iter().map(|(spec, _)| engine_seat(&spec.name)));
    }
    if seats.is_empty() {
        anyhow::bail!("no bot to check: no plugin is loaded (see `yomi plugins`)");
    }
    let deadline = positive_seconds(args.deadline, "--deadline")?;
    let max_p99 =
        args.max_p99_ms.map(|ms| positive_seconds(ms / 1e3, "--max-p99-ms")).transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let mut reports = Vec::new();
    for seat in &seats {
        let config = Config {
            games: args.games as usize,
            seed: args.seed,
            preset: seat.preset.clone(),
            options: seat.options.clone(),
            max_p99,
        };
        let failed =
            engine_problems.iter().find(|(spec, _)| engine_seat(&spec.name).bot == seat.bot);
        if let Some((_, problem)) = failed {
            let report = handshake_failed(&seat.bot, &config, problem);
            if !args.json {
                out!("{report}")?;
            }
            reports.push(report);
            continue;
        }
        let bot =
            registry.resolve_bot(&seat.bot, None, None).map_err(|e| anyhow::anyhow!(e.message))?;
        let arena = HostArena {
            registry: registry.clone(),
            bot,
            isolate: seat.isolate,
            deadline,
            runtime: &runtime,
        };
        let mut report = testing::check(&arena, &config);
        if let BotSource::Engine(engine) = &arena.bot.source {
            report.checks.insert(0, handshake_passed(engine));
        }
        if !args.json {
            out!("{report}")?;
        }
        reports.push(report);
    }
    let passed = reports.iter().all(|r| r.passed);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&json!({"passed": passed, "bots": reports}))?)?;
    } else if seats.len() > 1 {
        let failed: Vec<&str> =
            reports.iter().filter(|r| !r.passed).map(|r| r.bot.as_str()).collect();
        match failed.as_slice() {
            [] => outln!("all {} bots pass", reports.len())?,
            _ => outln!("{} of {} bots fail: {}", failed.len(), reports.len(), failed.join(", "))?,
        }
    }
    // The workers of isolated bots end with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(if passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn positive_seconds(seconds: f64, flag: &str) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| anyhow::anyhow!("{flag} must be a positive number"))
}

fn parse_seats(specs: &[String]) -> anyhow::Result<Vec<BotSeat>> {
    specs.iter().map(|s| BotSeat::parse(s).map_err(|e| anyhow::anyhow!(e.message))).collect()
}

/// The seat of `engine/NAME` with its defaults.
fn engine_seat(name: &str) -> BotSeat {
    BotSeat::parse(&format!("{ENGINE_PREFIX}/{name}")).expect("an engine name is one word")
}

/// The first line of an engine's report: what its handshake declared.
fn handshake_passed(engine: &EngineEntry) -> Line {
    Line::pass(
        "handshake",
        format!(
            "`{}` {} speaks {} version {}: {} game(s), {} option(s), {} preset(s), {} method(s)",
            engine.engine_name,
            engine.version,
            crate::agents::engine::PROTOCOL,
            crate::agents::engine::VERSION,
            engine.info.games.len(),
            engine.info.options.len(),
            engine.info.presets.len(),
            engine.info.methods.len()
        ),
    )
}

/// The report of an engine whose handshake failed: nothing else can be checked.
fn handshake_failed(bot: &str, config: &Config, problem: &ErrorInfo) -> Report {
    let mut report = Report::new(bot.to_string(), config.seed, config.games);
    report.add(Line::fail("handshake", problem.message.clone()));
    for check in testing::CHECKS {
        report.add(Line::skip(check, "the handshake failed"));
    }
    report
}

/// Every bot of the newest build of each loaded plugin, by its qualified name, and every engine.
fn every_bot(registry: &Registry) -> Vec<BotSeat> {
    let names = registry
        .latest()
        .iter()
        .flat_map(|p| {
            p.loaded
                .manifest
                .bots
                .iter()
                .map(|b| format!("{}/{}", p.name(), b.name))
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>();
    let bots = names.into_iter().map(|bot| BotSeat {
        bot,
        preset: None,
        options: Options::new(),
        isolate: false,
    });
    bots.chain(registry.engines().iter().map(|e| engine_seat(&e.spec.name))).collect()
}

/// A bot as this host serves it.
struct HostArena<'a> {
    registry: Arc<Registry>,
    bot: BotRef,
    isolate: bool,
    deadline: Duration,
    runtime: &'a Runtime,
}

impl Arena for HostArena<'_> {
    fn name(&self) -> String {
        self.bot.qualified()
    }

    fn bot(&self) -> &BotInfo {
        &self.bot.info
    }

    fn games(&self) -> Vec<GameInfo> {
        // In the order `resolve_game` searches, so the game found is the one `new_game` opens.
        self.registry.latest().iter().flat_map(|p| p.loaded.manifest.games.clone()).collect()
    }

    fn new_game(
        &self,
        game: &str,
        options: &Options,
        seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo> {
        let game = self.registry.resolve_game(game)?;
        let hosted = self.runtime.block_on(HostedGame::open(
            &game,
            options.clone(),
            seed,
            Scope::HANDED_OVER,
        ))?;
        Ok(Box::new(BlockingGame { game: hosted, runtime: self.runtime.handle().clone() }))
    }

    fn new_agent(&self, options: &Options, seed: u64) -> Result<Box<dyn Agent>, ErrorInfo> {
        let plan = SeatPlan::Bot {
            bot: self.bot.clone(),
            options: options.clone(),
            isolate: self.isolate,
        };
        let env = SeatEnv { deadline: Some(self.deadline), ..SeatEnv::default() };
        let handle = self.runtime.block_on(plan.start(seed, &env))?;
        Ok(Box::new(BlockingAgent { handle, runtime: self.runtime.handle().clone() }))
    }
}

/// The host's asynchronous agent as the check's synchronous one.
struct BlockingAgent {
    handle: Arc<dyn AgentHandle>,
    runtime: Handle,
}

impl Agent for BlockingAgent {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        self.runtime.block_on(self.handle.act(request.clone()))
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        self.runtime.block_on(self.handle.observe(event.clone()))
    }

    fn game_over(&mut self, over: &GameOver) -> Result<(), ErrorInfo> {
        self.runtime.block_on(self.handle.game_over(over.clone()))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.runtime.block_on(self.handle.configure(options.clone()))
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        self.runtime.block_on(self.handle.call(method.to_string(), params.clone()))
    }
}

/// A game in its plugin as the check's referee sees it. The plugin kit's `Game` cannot fail where
/// a call across the boundary can; such a failure is raised as the check asks
/// ([`testing::Arena::new_game`]), carrying the host's error.
struct BlockingGame {
    game: HostedGame,
    runtime: Handle,
}

/// The value of a call that cannot fail in the plugin kit's `Game`, or its failure raised.
fn raise<T>(result: Result<T, ErrorInfo>) -> T {
    result.unwrap_or_else(|e| std::panic::panic_any(e))
}

impl Game for BlockingGame {
    fn decisions(&self) -> Vec<Decision> {
        raise(self.runtime.block_on(self.game.decisions()))
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        self.runtime.block_on(self.game.apply(actions.to_vec()))
    }

    fn outcome(&self) -> Option<GameOutcome> {
        raise(self.runtime.block_on(self.game.outcome()))
    }

    fn default_action(&self, seat: usize) -> Option<Value> {
        raise(self.runtime.block_on(self.game.default_action(seat)))
    }
}
