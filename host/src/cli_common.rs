//! The options every command shares (`--plugins`, `--data-dir`, `-v`) and what they resolve to:
//! the plugin directories, the data directory, the registry of loaded plugins.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use crate::runtime::registry::Registry;

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
    pub fn registry(&self) -> anyhow::Result<Arc<Registry>> {
        let (registry, files) = self.empty_registry()?;
        registry.discover();
        load_files(&registry, &files);
        Ok(Arc::new(registry))
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
