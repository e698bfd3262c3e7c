//! The conformance check of a bot, as fastchess' `--compliance` and OpenSpiel's random-simulation
//! tests do for theirs: the same kit runs in a plugin author's own tests
//! ([`assert_conforms`]) and behind `yomi check`, which hands it the host's agents.
//!
//! For a bot it checks, one line each:
//! - **declaration**: option defaults fit their options, presets resolve, the games it names exist;
//! - **legal play**: seeded games against random players, the bot in every seat (and at the most
//!   seats too where a game option sets the count), every action taken by the game's referee;
//! - **deterministic**: the same games again with the same seeds give the same actions;
//! - **bad observation**: observations of the wrong JSON type get a clear error (or a legal
//!   action from a bot that reads only the legal list), never a crash, and the bot plays on;
//! - **bad options**: the schema refuses wrong values naming the option, and the bot takes
//!   every edge value and misshapen free-form value with a clear error or not at all;
//! - **configure**: switching options between games changes the bot's play wherever a bot made
//!   with the new options plays otherwise (skipped where no option set tried changes its play);
//! - **latency**: the decision times' p50 and p99 (failing only above a limit, if one is set).
//!
//! A service (a bot that plays no game) gets the declaration and option checks only.
//!
//! ```
//! # use yomi_plugin::declare::{BotEntry, Declaration, GameEntry};
//! # use yomi_plugin::{ActReply, ActRequest, Agent, ErrorInfo, Options};
//! # struct First;
//! # impl Agent for First {
//! #     fn act(&mut self, r: &ActRequest) -> Result<ActReply, ErrorInfo> {
//! #         Ok(ActReply::new(r.legal[0].clone()))
//! #     }
//! #     fn configure(&mut self, _: &Options) -> Result<(), ErrorInfo> { Ok(()) }
//! # }
//! # let plugin = Declaration::new("p", "0", "").bot(BotEntry::new("first", "", |_, _| Ok(First)));
//! // In a bot crate's tests/conformance.rs: `assert_conforms(&MyPlugin)`.
//! let reports = yomi_plugin::testing::check_plugin(&plugin, &Default::default());
//! assert!(!reports[0].passed, "{}", reports[0]); // it names no game and serves no method
//! ```

mod checks;
mod play;
mod report;
#[cfg(test)]
mod tests;
mod variants;

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::time::Duration;

use yomi_protocol::{BotInfo, ErrorCode, ErrorInfo, GameInfo, Options, PluginManifest};

use crate::api::{Agent, Game, Plugin};
use crate::call::AgentContext;
use crate::rng::derive_seed;
pub use report::{Latency, Line, Report, Status};

/// Where a bot is checked: its declaration, how to make its agents, and the games it plays. A
/// plugin in the author's own crate is one ([`PluginArena`]); the host makes its own over the
/// agents it serves, so anything behind the host's agent interface can be checked alike.
pub trait Arena {
    /// `plugin/bot`, for the report.
    fn name(&self) -> String;
    /// The bot as its declaration describes it.
    fn bot(&self) -> &BotInfo;
    /// The games this arena has the rules of; the check looks the bot's games up here by name
    /// (the one lookup for every arena).
    fn games(&self) -> Vec<GameInfo>;
    /// A game to play. A game behind a boundary whose calls can fail where [`Game`]'s cannot
    /// raises such a failure with `std::panic::panic_any(error)`; the check reports that error.
    fn new_game(
        &self,
        game: &str,
        options: &Options,
        seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo>;
    /// An agent of the bot, with a complete, schema-checked option set.
    fn new_agent(&self, options: &Options, seed: u64) -> Result<Box<dyn Agent>, ErrorInfo>;
}

/// A bot of a plugin in this process, with the plugin's own games.
pub struct PluginArena<'a> {
    plugin: &'a dyn Plugin,
    manifest: PluginManifest,
    bot: BotInfo,
}

impl<'a> PluginArena<'a> {
    /// The arena of `bot` (`name` or `plugin/name`) of an in-process plugin.
    pub fn new(plugin: &'a dyn Plugin, bot: &str) -> Result<PluginArena<'a>, ErrorInfo> {
        let manifest = plugin.manifest();
        let info = manifest.bots.iter().find(|b| b.name == bot).cloned().ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::UnknownBot,
                format!("plugin {} has no bot `{bot}`", manifest.name),
            )
        })?;
        Ok(PluginArena { plugin, manifest, bot: info })
    }
}

impl Arena for PluginArena<'_> {
    fn name(&self) -> String {
        format!("{}/{}", self.manifest.name, self.bot.name)
    }

    fn bot(&self) -> &BotInfo {
        &self.bot
    }

    fn games(&self) -> Vec<GameInfo> {
        self.manifest.games.clone()
    }

    fn new_game(
        &self,
        game: &str,
        options: &Options,
        seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo> {
        self.plugin.new_game(game, options, seed)
    }

    fn new_agent(&self, options: &Options, seed: u64) -> Result<Box<dyn Agent>, ErrorInfo> {
        self.plugin.new_agent(
            &self.bot.name,
            options,
            &AgentContext { seed, ..AgentContext::default() },
        )
    }
}

/// What to check and how hard.
#[derive(Debug, Clone)]
pub struct Config {
    /// Games in each seating (each game, seat count and seat of the bot).
    pub games: usize,
    /// The seed every game's and agent's seed derives from.
    pub seed: u64,
    /// The bot's preset to check (its defaults when neither it nor `options` is given).
    pub preset: Option<String>,
    /// Options over the preset.
    pub options: Options,
    /// A p99 decision time above this fails the latency check.
    pub max_p99: Option<Duration>,
}

impl Default for Config {
    fn default() -> Config {
        Config { games: 2, seed: 1, preset: None, options: Options::new(), max_p99: None }
    }
}

/// The names of the checks [`check`] makes, in the order it makes them.
pub const CHECKS: [&str; 7] = [
    "declaration",
    "legal play",
    "deterministic",
    "bad observation",
    "bad options",
    "configure",
    "latency",
];

/// Checks one bot.
pub fn check(arena: &dyn Arena, config: &Config) -> Report {
    let mut report = Report::new(arena.name(), config.seed, config.games);
    let (line, resolved) = checks::declaration(arena, config.preset.as_deref(), &config.options);
    report.add(line);
    let Some((options, games)) = resolved else {
        for &check in &CHECKS[1..] {
            report.add(Line::skip(check, "the declaration failed"));
        }
        return report;
    };
    let seed = config.seed;
    let seatings = match play::schedule(&games, config.games.max(1), seed) {
        Ok(s) => s,
        Err(e) => {
            report.add(Line::fail("legal play", format!("a game's options: {}", failure(&e))));
            return report;
        }
    };
    if seatings.is_empty() {
        for check in ["legal play", "deterministic", "bad observation"] {
            report.add(Line::skip(check, "a service: it plays no game"));
        }
    } else {
        let agent_seed = derive_seed(seed, u64::MAX);
        let first = checks::run(arena, &seatings, &options, agent_seed);
        let second = checks::run(arena, &seatings, &options, agent_seed);
        report.add(checks::legal(&first, &seatings));
        report.add(checks::deterministic(&first, &second, &seatings));
        report.add(checks::bad_observation(arena, &seatings[0], &options));
        let times: Vec<Duration> =
            first.iter().flatten().flat_map(|p| p.times.iter().copied()).collect();
        report.latency = Latency::of(&times);
    }
    report.add(checks::bad_options(arena, &options, derive_seed(seed, 5)));
    let played_well = report.line("legal play").is_none_or(|l| l.status == Status::Pass);
    report.add(match games.first() {
        Some(_) if !played_well => Line::skip("configure", "its games failed (see legal play)"),
        game => checks::configure(arena, game, &options, config.games, seed),
    });
    report.add(checks::latency(report.latency, config.max_p99));
    report
}

/// Checks every bot of a plugin in this process.
pub fn check_plugin(plugin: &dyn Plugin, config: &Config) -> Vec<Report> {
    let manifest = plugin.manifest();
    let arenas = manifest.bots.iter().map(|bot| PluginArena {
        plugin,
        manifest: manifest.clone(),
        bot: bot.clone(),
    });
    arenas.map(|arena| check(&arena, config)).collect()
}

/// Checks every bot of a plugin with the default settings and panics with the reports of those
/// that fail: the one line of a bot crate's `tests/conformance.rs`.
pub fn assert_conforms(plugin: &dyn Plugin) {
    let reports = check_plugin(plugin, &Config::default());
    let failed: Vec<String> = reports.iter().filter(|r| !r.passed).map(Report::to_string).collect();
    assert!(failed.is_empty(), "bots that fail the conformance check:\n{}", failed.join("\n"));
}

/// Makes one call of the bot or its game, a panic caught as the plugin boundary catches it; a
/// panic carrying an [`ErrorInfo`] (see [`Arena::new_game`]) is that error.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, ErrorInfo>) -> Result<T, ErrorInfo> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => match payload.downcast::<ErrorInfo>() {
            Ok(e) => Err(*e),
            Err(payload) => crate::abi::guarded(|| resume_unwind(payload)),
        },
    }
}

/// `code: message`, as the report writes an error.
pub(crate) fn failure(e: &ErrorInfo) -> String {
    format!("{}: {}", code_name(e.code), e.message)
}

/// An error code's wire name (`invalid_params`).
pub(crate) fn code_name(code: ErrorCode) -> String {
    serde_json::to_value(code).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// Whether an error is a crash rather than a refusal: a panic, a dead worker, a deadline missed,
/// or a failure the bot did not mean to report.
pub(crate) fn is_crash(e: &ErrorInfo) -> bool {
    matches!(
        e.code,
        ErrorCode::PluginPanic | ErrorCode::Crashed | ErrorCode::Timeout | ErrorCode::Internal
    )
}

/// Asserts that the shipped file at `path` (relative to the workspace's root) holds exactly
/// `made`, what the crate's generator makes now; with `YOMI_BLESS=1` in the environment it
/// rewrites the file first. For data files made from a paper (opening suites): a change of the
/// generator cannot leave a stale file behind.
pub fn assert_shipped_file(path: &str, made: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let file = root.join(path);
    if std::env::var_os("YOMI_BLESS").is_some() {
        std::fs::write(&file, made).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
    let shipped = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(shipped == made, "{path} is not what its generator makes: YOMI_BLESS=1 rewrites it");
}
