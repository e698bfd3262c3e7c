//! The command line: `yomi serve`, `yomi bots`, and the subcommands plugins add
//! (`yomi <plugin> ...`, `yomi repro <plugin>`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use tokio_util::sync::CancellationToken;
use yomi_plugin::CommandContext;

use crate::runtime::config::{ServeConfig, Shared};
use crate::runtime::registry::Registry;
use crate::server::connection::SHUTDOWN_GRACE;
use crate::server::{http, listen};

#[derive(Debug, Parser)]
#[command(name = "yomi", version, about = "A server of human-like game AI", long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command shares.
#[derive(Debug, Args, Clone)]
pub struct Common {
    /// A directory to load plugins from, or one plugin library file (repeatable).
    /// Default: the directory of the yomi binary.
    #[arg(long = "plugins", value_name = "DIR", global = true)]
    pub plugins: Vec<PathBuf>,
    /// Where services and tournaments keep state that survives restarts.
    /// Default: $YOMI_DATA_DIR, else $XDG_DATA_HOME/yomi, else ~/.local/share/yomi.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Log more on stderr: -v info, -vv debug, -vvv trace. One-shot commands log warnings and
    /// errors only by default, `serve` logs info; RUST_LOG (or YOMI_LOG) overrides both.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
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
    Match(crate::cli_play::MatchArgs),
    /// Run, resume or list tournaments.
    Tournament(crate::cli_play::TournamentArgs),
    /// Play a recorded transcript again and check it plays out identically.
    Replay(crate::cli_play::ReplayArgs),
    /// Serve one agent of one plugin library on stdin/stdout (used by isolated seats).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        library: PathBuf,
    },
    /// Regenerate a plugin's tables from its seed paper: `yomi repro battle --json`
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
    /// TCP connections served at once.
    #[arg(long, default_value_t = 256)]
    pub max_connections: usize,
    /// Base seed for agents created without an explicit seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Serve Prometheus metrics over HTTP on this address, e.g. 127.0.0.1:9100.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    #[command(flatten)]
    pub limits: crate::runtime::limits::Limits,
}

impl Common {
    /// The plugin directories in force.
    pub fn plugin_dirs(&self) -> Vec<PathBuf> {
        if !self.plugins.is_empty() {
            return self.plugins.clone();
        }
        std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(PathBuf::from))
            .into_iter()
            .collect()
    }

    /// The data directory in force.
    pub fn data_dir(&self) -> PathBuf {
        if let Some(dir) = &self.data_dir {
            return dir.clone();
        }
        if let Some(dir) = std::env::var_os("YOMI_DATA_DIR") {
            return dir.into();
        }
        if let Some(dir) = std::env::var_os("XDG_DATA_HOME") {
            return PathBuf::from(dir).join("yomi");
        }
        match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".local/share/yomi"),
            None => PathBuf::from("yomi-data"),
        }
    }

    /// Loads the plugins: everything discovered in the directories, and each named library file
    /// (whose directory becomes a plugin directory). Problems are logged on stderr.
    pub fn registry(&self) -> Arc<Registry> {
        let (registry, files) = self.empty_registry();
        registry.discover();
        load_files(&registry, &files);
        Arc::new(registry)
    }

    /// The registry a one-shot `yomi <plugin> ...` command needs: only that plugin's library
    /// when the directories hold a file of the conventional name (`libyomi_<plugin>.so`) that
    /// provides it, so the command does not open and hash every other plugin first; otherwise
    /// (another file name, or a library file named with `--plugins FILE`) everything, as
    /// [`Common::registry`] does.
    pub fn registry_for(&self, plugin: &str) -> Arc<Registry> {
        let (registry, files) = self.empty_registry();
        let file_name = format!(
            "{}yomi_{plugin}{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        let conventional = self.plugin_dirs().into_iter().find_map(|dir| {
            let file = dir.join(&file_name);
            file.is_file().then_some(file)
        });
        if files.is_empty() {
            if let Some(file) = conventional {
                if registry.load_path(&file).is_ok_and(|entry| entry.name() == plugin) {
                    return Arc::new(registry);
                }
            }
        }
        self.registry()
    }

    /// A registry over the plugin directories with nothing loaded yet, and the library files
    /// named on the command line.
    fn empty_registry(&self) -> (Registry, Vec<PathBuf>) {
        let (files, dirs): (Vec<PathBuf>, Vec<PathBuf>) =
            self.plugin_dirs().into_iter().partition(|p| p.is_file());
        let mut all_dirs = dirs;
        all_dirs.extend(files.iter().filter_map(|f| f.parent().map(PathBuf::from)));
        (Registry::new(&all_dirs), files)
    }
}

/// Loads each library file named on the command line, logging the ones that fail.
fn load_files(registry: &Registry, files: &[PathBuf]) {
    for file in files {
        if let Err(e) = registry.load_path(file) {
            tracing::warn!("{}", e.message);
        }
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli);
    let outcome = run(cli);
    crate::runtime::registry::remove_shadow_copies();
    match outcome {
        Ok(code) => code,
        Err(e) if crate::cli_out::is_closed_stdout(&e) => ExitCode::SUCCESS,
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
            let catalog = cli.common.registry().catalog();
            if json {
                outln!("{}", serde_json::to_string_pretty(&catalog)?)?;
            } else {
                out!("{}", crate::cli_text::catalog_table(&catalog))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Plugins { json } => {
            let registry = cli.common.registry();
            let list: Vec<_> = registry.list().iter().map(|p| p.describe()).collect();
            if json {
                outln!("{}", serde_json::to_string_pretty(&list)?)?;
            } else {
                out!("{}", crate::cli_text::plugin_table(&list))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Match(args) => crate::cli_play::play_match(&cli.common, args),
        Command::Tournament(args) => crate::cli_play::tournament(&cli.common, args),
        Command::Replay(args) => crate::cli_play::replay(&cli.common, args),
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
            let registry = cli.common.registry_for(&plugin);
            if let Ok(entry) = registry.plugin(&plugin, None) {
                if !entry.loaded.manifest.commands.iter().any(|c| c.name == "repro") {
                    anyhow::bail!("{}", no_reproduction(&cli.common, &plugin));
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
fn no_reproduction(common: &Common, plugin: &str) -> String {
    let registry = common.registry();
    let with: Vec<String> = registry
        .latest()
        .iter()
        .filter(|p| p.loaded.manifest.commands.iter().any(|c| c.name == "repro"))
        .map(|p| p.name().to_string())
        .collect();
    format!(
        "plugin `{plugin}` has no reproduction of a paper; plugins with one: {} (`yomi repro <plugin> --help`)",
        with.join(", ")
    )
}

/// Whether a command-line word asks for help instead of naming something.
fn asks_for_help(word: &str) -> bool {
    matches!(word, "--help" | "-h" | "help")
}

/// Runs `yomi <plugin> <args...>` inside the plugin and prints what it returns.
fn plugin_command(common: &Common, plugin: &str, args: &[String]) -> anyhow::Result<ExitCode> {
    let registry = common.registry_for(plugin);
    let entry = registry.plugin(plugin, None).map_err(|e| {
        let known: Vec<String> = registry.latest().iter().map(|p| p.name().to_string()).collect();
        anyhow::anyhow!("{} (loaded plugins: {}; built-in commands: serve, bots, plugins, match, tournament, replay, repro)", e.message, known.join(", "))
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

/// A listener that could not be opened, naming its address (a busy port says which).
fn cannot_listen(addr: &SocketAddr, e: std::io::Error) -> anyhow::Error {
    let hint = match e.kind() {
        std::io::ErrorKind::AddrInUse => " (another program listens there; choose another port)",
        _ => "",
    };
    anyhow::anyhow!("cannot listen on {addr}: {e}{hint}")
}

fn serve(common: &Common, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = ServeConfig {
        max_line_bytes: args.max_line_bytes,
        max_connections: args.max_connections.max(1),
        data_dir: Some(common.data_dir()),
        base_seed: args.seed,
        limits: args.limits,
    };
    let shared = Arc::new(Shared { registry: common.registry(), config });
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let shutdown = CancellationToken::new();
        tokio::spawn(signal_shutdown(shutdown.clone()));
        if let Some(addr) = args.metrics {
            crate::runtime::metrics::serve(addr)?;
        }
        let mut tasks = tokio::task::JoinSet::new();
        for addr in &args.tcp {
            let listener = listen::bind(*addr).await.map_err(|e| cannot_listen(addr, e))?;
            tracing::info!("listening on {}", listener.local_addr()?);
            tasks.spawn(listen::serve_tcp(listener, shared.clone(), shutdown.clone()));
        }
        for addr in &args.http {
            let listener = listen::bind(*addr).await.map_err(|e| cannot_listen(addr, e))?;
            tracing::info!("listening on http://{}", listener.local_addr()?);
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

/// Cancels `shutdown` on Ctrl-C or SIGTERM.
async fn signal_shutdown(shutdown: CancellationToken) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return,
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("shutting down");
    shutdown.cancel();
}
