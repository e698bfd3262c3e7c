//! The command line: `yomi serve`, `yomi bots`, and the subcommands plugins add
//! (`yomi <plugin> ...`, `yomi repro <plugin>`).

// First, so the printing macros are in scope in every later module.
#[macro_use]
mod out;
mod check;
mod common;
mod humans;
mod ladder;
mod play;
mod progress;
mod records;
mod text;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use tokio_util::sync::CancellationToken;
use yomi_plugin::CommandContext;

use crate::runtime::auth::Role;
use crate::runtime::config::{ServeConfig, Shared};
use crate::server::connection::SHUTDOWN_GRACE;
use crate::server::{http, listen};
use common::Common;

#[derive(Debug, Parser)]
#[command(name = "yomi", version = crate::ops::meta::LONG_VERSION, about = "A server of human-like game AI", long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the JSON-lines protocol on stdin/stdout, TCP and/or WebSocket (with the playground).
    Serve(ServeArgs),
    /// Print the catalog: games, bots, their options and presets.
    Bots {
        /// Print JSON for scripts instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// List the loaded plugins.
    Plugins {
        #[arg(long)]
        json: bool,
    },
    /// Play a match between bots: `yomi match --game rps --bot rps --bot rps:reading=1 --games 10`.
    Match(play::MatchArgs),
    /// Run, resume or list tournaments.
    Tournament(play::TournamentArgs),
    /// Rate every preset of a game against the random bot (Elo with a 95 % interval), and a
    /// bot's strength knob: `yomi ladder battle --knob battle/delta-nash:delta=0,0.2,0.5`.
    Ladder(ladder::LadderArgs),
    /// Play a recorded transcript again and check it plays out identically.
    Replay(play::ReplayArgs),
    /// Human records in the data directory: `yomi records import NAME FILE`.
    Records(humans::RecordsArgs),
    /// How human-like a bot is on a record set: top-1 move matching and log-likelihood per
    /// decision against the uniform baseline and the best preset, with bootstrap intervals.
    Humanlike(humans::HumanlikeArgs),
    /// Fit a bot's options to a record set and keep them as a preset in the data directory.
    Fit(humans::FitArgs),
    /// Print the JSON Schema of the protocol: each operation's parameters and result, the
    /// error codes, and each served game's observation, action and event (protocol/schema.json
    /// is this output).
    Schema,
    /// Check that bots conform: legal, seeded play against random players in every seat, clear
    /// errors for bad input, configure taking effect, decision times: `yomi check stud/fuzzy`.
    Check(check::CheckArgs),
    /// Serve one agent of one plugin library on stdin/stdout (used by isolated seats).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        library: PathBuf,
    },
    /// Regenerate a plugin's tables from its paper: `yomi repro battle --json`
    /// (`yomi repro <plugin> --help` lists that plugin's flags).
    // No help flag of its own: `--help` after the plugin's name belongs to the plugin.
    #[command(disable_help_flag = true)]
    Repro {
        /// The plugin whose reproduction to run.
        #[arg(allow_hyphen_values = true)]
        plugin: String,
        /// Passed to the plugin (e.g. --json).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// A plugin's own subcommands: `yomi <plugin> <command> ...` (see `yomi plugins`).
    #[command(external_subcommand)]
    Plugin(Vec<String>),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve one session on stdin/stdout (the default when no --tcp or --http is given).
    #[arg(long)]
    pub stdio: bool,
    /// Listen on this TCP address (repeatable), e.g. 127.0.0.1:7878.
    #[arg(long, value_name = "ADDR")]
    pub tcp: Vec<SocketAddr>,
    /// Serve HTTP on this address (repeatable): the protocol over WebSocket at /ws, the
    /// playground at /, /healthz. E.g. 127.0.0.1:8080.
    #[arg(long, value_name = "ADDR")]
    pub http: Vec<SocketAddr>,
    /// Longest request line accepted, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_line_bytes: usize,
    /// TCP connections served at once (and, counted apart, WebSocket sessions and HTTP
    /// connections); a client beyond that is told the server is full.
    #[arg(long, default_value_t = 256, value_parser = crate::runtime::limits::positive)]
    pub max_connections: usize,
    /// Of those, how many one client address may hold at once (0: no cap). Behind a proxy every
    /// client shares its address: raise it or give 0 there.
    #[arg(long, default_value_t = 64)]
    pub max_connections_per_ip: usize,
    /// Base seed for agents created without an explicit seed, so whole sessions replay (tests);
    /// without it each session draws its own from the OS.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Keep the decisions people make in matches (the client seats of `match.run`: the
    /// playground's games, a game client's players) as human records, in the data directory's
    /// record sets NAME-GAME (README, "Human records"). Off by default; `hello` tells every
    /// client when it is on, and the playground says so on screen.
    #[arg(long, value_name = "NAME", value_parser = record_set_name)]
    pub record_people: Option<String>,
    /// Serve Prometheus metrics over HTTP on this address, e.g. 127.0.0.1:9100.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    #[command(flatten)]
    pub limits: crate::runtime::limits::Limits,
    #[command(flatten)]
    pub costs: crate::runtime::costs::CostLimits,
    #[command(flatten)]
    pub auth: crate::runtime::auth::AuthArgs,
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli);
    let outcome = run(cli);
    crate::registry::files::remove_shadow_copies();
    match outcome {
        Ok(code) => code,
        Err(e) if out::is_closed_stdout(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("yomi: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Logs to stderr at the level `-v` asks for, on top of the command's default; RUST_LOG or
/// YOMI_LOG (tracing's filter syntax) win over both.
fn init_logging(cli: &Cli) {
    const LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];
    let default = if matches!(cli.command, Command::Serve(_)) { 2 } else { 1 };
    let level = LEVELS[(default + usize::from(cli.common.verbose)).min(LEVELS.len() - 1)];
    let filter = ["RUST_LOG", "YOMI_LOG"]
        .iter()
        .find_map(|var| tracing_subscriber::EnvFilter::try_from_env(var).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new(level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(args) => serve(&cli.common, args),
        Command::Bots { json } => {
            let catalog = crate::ops::plugins::catalog(&*cli.common.registry()?, Role::Operator);
            let catalog = serde_json::to_value(catalog)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&catalog)?)?;
            } else {
                out!("{}", text::catalog_table(&catalog))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Plugins { json } => {
            let registry = cli.common.registry()?;
            let describe =
                |p| serde_json::to_value(crate::ops::plugins::describe(p, Role::Operator));
            let list =
                registry.list().iter().map(|p| describe(p)).collect::<Result<Vec<_>, _>>()?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&list)?)?;
            } else {
                out!("{}", text::plugin_table(&list))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Match(args) => play::play_match(&cli.common, args),
        Command::Tournament(args) => play::tournament(&cli.common, args),
        Command::Replay(args) => play::replay(&cli.common, args),
        Command::Records(args) => humans::records(&cli.common, args),
        Command::Humanlike(args) => humans::humanlike(&cli.common, args),
        Command::Fit(args) => humans::fit(&cli.common, args),
        Command::Ladder(args) => ladder::ladder(&cli.common, args),
        Command::Check(args) => check::check(&cli.common, args),
        Command::Schema => {
            let registry = cli.common.registry()?;
            let games: Vec<_> =
                registry.latest().iter().flat_map(|p| p.loaded.manifest.games.clone()).collect();
            let payloads =
                games.iter().filter_map(|g| Some((g.name.as_str(), g.payload.as_ref()?)));
            out!("{}", crate::ops::schema::text(&crate::ops::schema::with_games(payloads)))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Worker { library } => {
            crate::agents::worker::serve_worker(&library).map(|_| ExitCode::SUCCESS)
        }
        Command::Repro { plugin, .. } if asks_for_help(&plugin) => {
            let mut command = <Cli as clap::CommandFactory>::command();
            command.build();
            let repro = command.find_subcommand_mut("repro").expect("repro is a subcommand");
            outln!("{}", repro.render_long_help())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Repro { plugin, args } => {
            let registry = cli.common.registry_for(&plugin)?;
            if let Ok(entry) = registry.plugin(&plugin, None) {
                if !entry.loaded.manifest.commands.iter().any(|c| c.name == "repro") {
                    anyhow::bail!("{}", no_reproduction(&cli.common, &plugin)?);
                }
            }
            let mut full = vec!["repro".to_string()];
            full.extend(args);
            plugin_command(&cli.common, &plugin, &full)
        }
        Command::Plugin(words) => {
            let (plugin, rest) = words.split_first().expect("clap gives the subcommand name");
            plugin_command(&cli.common, plugin, rest)
        }
    }
}

/// What `yomi repro PLUGIN` says for a plugin without a reproduction: the plugins that have one.
fn no_reproduction(common: &Common, plugin: &str) -> anyhow::Result<String> {
    let registry = common.registry()?;
    let with: Vec<String> = registry
        .latest()
        .iter()
        .filter(|p| p.loaded.manifest.commands.iter().any(|c| c.name == "repro"))
        .map(|p| p.name().to_string())
        .collect();
    Ok(format!(
        "plugin `{plugin}` has no reproduction of a paper; plugins with one: {} (`yomi repro <plugin> --help`)",
        with.join(", ")
    ))
}

/// Whether a command-line word asks for help instead of naming something.
fn asks_for_help(word: &str) -> bool {
    matches!(word, "--help" | "-h" | "help")
}

/// Runs `yomi <plugin> <args...>` inside the plugin and prints what it returns.
fn plugin_command(common: &Common, plugin: &str, args: &[String]) -> anyhow::Result<ExitCode> {
    let registry = common.registry_for(plugin)?;
    let entry = registry.plugin(plugin, None).map_err(|e| {
        let known: Vec<String> = registry.latest().iter().map(|p| p.name().to_string()).collect();
        anyhow::anyhow!("{} (loaded plugins: {}; built-in commands: serve, bots, plugins, match, tournament, ladder, replay, records, humanlike, check, repro)", e.message, known.join(", "))
    })?;
    if args.first().is_none_or(|word| asks_for_help(word)) {
        let manifest = &entry.loaded.manifest;
        outln!("yomi {plugin}: {}\n\nCommands:", manifest.description)?;
        for c in &manifest.commands {
            outln!("  {:<12} {}", c.name, c.description)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let context = CommandContext { data_dir: Some(common.data_dir()) };
    match entry.loaded.command(args, &context) {
        Ok(text) => {
            out!("{text}")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("yomi {plugin}: {}", e.message);
            Ok(ExitCode::from(2))
        }
    }
}

fn serve(common: &Common, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let mut auth = args.auth.auth()?;
    for addr in args.tcp.iter().chain(&args.http) {
        listen::check_exposure(*addr, &auth)?;
    }
    // The playground's URL carries this token; the page trades it for a cookie.
    let generated = if !args.http.is_empty() && !auth.configured() {
        let token = crate::runtime::auth::generate_token()?;
        auth.operator = Some(crate::runtime::auth::Token::new(&token).expect("not empty"));
        auth.generated = true;
        Some(token)
    } else {
        None
    };
    let config = ServeConfig {
        max_line_bytes: args.max_line_bytes,
        max_connections: args.max_connections,
        max_connections_per_ip: args.max_connections_per_ip,
        data_dir: Some(common.data_dir()),
        base_seed: args.seed,
        limits: args.limits,
        costs: args.costs,
        auth,
        allow_origins: args.auth.allow_origins.clone(),
        allow_hosts: args.auth.allow_hosts.clone(),
        record_people: args.record_people.clone(),
    };
    config.costs.check().map_err(anyhow::Error::msg)?;
    let shared = Arc::new(Shared::new(common.registry_to_serve()?, config));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let shutdown = CancellationToken::new();
        tokio::spawn(signal_shutdown(shutdown.clone())?);
        crate::runtime::memory::spawn_trimmer(shutdown.clone());
        if let Some(addr) = args.metrics {
            crate::runtime::metrics::serve(addr)?;
        }
        let mut tasks = tokio::task::JoinSet::new();
        for addr in &args.tcp {
            let listener = listen::bind(*addr).await?;
            tracing::info!("listening on {}", listener.local_addr()?);
            tasks.spawn(listen::serve_tcp(listener, shared.clone(), shutdown.clone()));
        }
        for addr in &args.http {
            let listener = listen::bind(*addr).await?;
            let local = listener.local_addr()?;
            tracing::info!("listening on http://{local}");
            http::announce(local, generated.as_deref());
            tasks.spawn(http::serve_http(listener, shared.clone(), shutdown.clone()));
        }
        if args.stdio || (args.tcp.is_empty() && args.http.is_empty()) {
            let stdio_done = shutdown.clone();
            let (shared, shutdown) = (shared.clone(), shutdown.clone());
            tasks.spawn(async move {
                listen::serve_stdio(shared, shutdown).await;
                // stdin EOF: the parent that started us is gone; stop everything.
                stdio_done.cancel();
            });
        }
        let all_ended = async { while tasks.join_next().await.is_some() {} };
        // The listeners bound their own waits; the stdio session is waited for here, as long.
        let grace_over = async {
            shutdown.cancelled().await;
            tokio::time::sleep(SHUTDOWN_GRACE + std::time::Duration::from_secs(2)).await;
        };
        tokio::select! {
            _ = all_ended => {}
            _ = grace_over => tracing::warn!("a session is held by a bot that never returned; exiting without it"),
        }
        anyhow::Ok(())
    })?;
    // Stdin may still be blocked in a reader thread; don't wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}

/// A task that cancels `shutdown` on Ctrl-C or SIGTERM. The handlers are registered here, before
/// anything is served: a signal sent as soon as the first reply is out must shut down cleanly,
/// not meet the default action and kill the process.
#[cfg(unix)]
fn signal_shutdown(
    shutdown: CancellationToken,
) -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let (mut term, mut interrupt) =
        (signal(SignalKind::terminate())?, signal(SignalKind::interrupt())?);
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = interrupt.recv() => {}
        }
        tracing::info!("shutting down");
        shutdown.cancel();
    })
}

/// A task that cancels `shutdown` on Ctrl-C.
#[cfg(not(unix))]
fn signal_shutdown(
    shutdown: CancellationToken,
) -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async move {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
        shutdown.cancel();
    })
}

/// A record set's name as `--record-people` takes it, checked as `records import` checks one.
fn record_set_name(name: &str) -> Result<String, String> {
    crate::humans::store::check_name(name).map_err(|e| e.message)?;
    Ok(name.to_string())
}
