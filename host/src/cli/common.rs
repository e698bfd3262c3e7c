//! The options every command shares (`--plugins`, `--engine`, `--data-dir`, `-v`) and what they
//! resolve to: the plugin directories, the data directory, the registry of loaded plugins and
//! engines.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use yomi_protocol::ErrorInfo;

use crate::registry::engines::{EngineSpec, ENGINES_FILE};
use crate::registry::Registry;

/// How long a server waits for its engines' handshakes before it serves.
pub const SERVE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(3);

/// An engine that could not be added, and why.
pub type EngineProblem = (EngineSpec, ErrorInfo);

/// Options every command shares.
#[derive(Debug, Args, Clone)]
pub struct Common {
    /// A directory to load plugins from, or one plugin library file (repeatable).
    /// Default: the directory of the yomi binary.
    #[arg(long = "plugins", value_name = "DIR", global = true)]
    pub plugins: Vec<PathBuf>,
    /// An engine: a bot in any language that COMMAND serves over the engine protocol, seated as
    /// `engine/NAME` (repeatable; see PROTOCOL.md, "Engines"). Added to the data directory's
    /// engines.toml; a NAME given here wins over the file's.
    #[arg(long = "engine", value_name = "NAME=COMMAND", global = true, value_parser = EngineSpec::parse_flag)]
    pub engines: Vec<EngineSpec>,
    /// Start none of the engines of the data directory's engines.toml (a yomi that an engine
    /// starts for its own use).
    #[arg(long, global = true)]
    pub no_engines_file: bool,
    /// Where services and tournaments keep state that survives restarts.
    /// Default: $YOMI_DATA_DIR, else $XDG_DATA_HOME/yomi, else ~/.local/share/yomi.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Log more on stderr: -v info, -vv debug, -vvv trace. One-shot commands log warnings and
    /// errors only by default, `serve` logs info; RUST_LOG (or YOMI_LOG) overrides both.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
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
    /// (whose directory becomes a plugin directory); then the engines, each asked what it is.
    /// Problems are logged on stderr.
    pub fn registry(&self) -> anyhow::Result<Arc<Registry>> {
        Ok(self.registry_and_engine_problems(None)?.0)
    }

    /// [`Common::registry`] for a server, which waits for its engines' handshakes only up to
    /// [`SERVE_PATIENCE`]: an engine answering later is seated from then on.
    pub fn registry_to_serve(&self) -> anyhow::Result<Arc<Registry>> {
        Ok(self.registry_and_engine_problems(Some(SERVE_PATIENCE))?.0)
    }

    /// [`Common::registry`], and each engine that could not be added with why; engines still
    /// starting after `patience` are added when they answer.
    pub fn registry_and_engine_problems(
        &self,
        patience: Option<std::time::Duration>,
    ) -> anyhow::Result<(Arc<Registry>, Vec<EngineProblem>)> {
        let (registry, files) = self.empty_registry()?;
        registry.discover();
        load_files(&registry, &files);
        registry.load_fitted(&self.data_dir());
        let specs = self.engine_specs()?;
        let registry = Arc::new(registry);
        let problems = crate::agents::engine::add_all(&registry, specs, patience);
        Ok((registry, problems))
    }

    /// The engines the operator named: the data directory's engines.toml (unless
    /// `--no-engines-file`), then `--engine`, which replaces a file's engine of the same name.
    pub fn engine_specs(&self) -> anyhow::Result<Vec<EngineSpec>> {
        let file = self.data_dir().join(ENGINES_FILE);
        let mut specs = match !self.no_engines_file && file.is_file() {
            true => EngineSpec::read_file(&file).map_err(anyhow::Error::msg)?,
            false => Vec::new(),
        };
        for flag in &self.engines {
            if self.engines.iter().filter(|e| e.name == flag.name).count() > 1 {
                anyhow::bail!("--engine `{}` is given twice", flag.name);
            }
            specs.retain(|s| s.name != flag.name);
            specs.push(flag.clone());
        }
        Ok(specs)
    }

    /// The registry a one-shot `yomi <plugin> ...` command needs: only that plugin's library
    /// when the directories hold a file of the conventional name (`libyomi_<plugin>.so`) that
    /// provides it, so the command does not open and hash every other plugin first; otherwise
    /// (another file name, or a library file named with `--plugins FILE`) everything, as
    /// [`Common::registry`] does.
    pub fn registry_for(&self, plugin: &str) -> anyhow::Result<Arc<Registry>> {
        let (registry, files) = self.empty_registry()?;
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
                    return Ok(Arc::new(registry));
                }
            }
        }
        self.registry()
    }

    /// A registry over the plugin directories with nothing loaded yet, and the library files
    /// named on the command line. A directory or file that does not exist is an error: a typo
    /// in `--plugins` must not start a server with an empty catalog.
    fn empty_registry(&self) -> anyhow::Result<(Registry, Vec<PathBuf>)> {
        let (files, dirs): (Vec<PathBuf>, Vec<PathBuf>) =
            self.plugin_dirs().into_iter().partition(|p| p.is_file());
        let mut all_dirs = dirs;
        all_dirs.extend(files.iter().filter_map(|f| f.parent().map(PathBuf::from)));
        let registry = match all_dirs.as_slice() {
            [binary_dir] if self.plugins.is_empty() => Registry::over_binary_directory(binary_dir),
            _ => Registry::new(&all_dirs),
        };
        Ok((registry.map_err(|e| anyhow::anyhow!(e.message))?, files))
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
