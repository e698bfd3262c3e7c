//! The loaded plugins and the operator's engines, and how bot and game names resolve to them:
//! the domain every other layer builds on, so the bottom layer.
//!
//! Plugins are found in the plugin directories (files named `libyomi_*` / `yomi_*.dll`); other
//! libraries there can be loaded on request with `plugin.load`. Loading a different build of a
//! plugin that is already loaded puts it beside the old one as the next *generation*: new agents
//! get the newest generation, existing agents keep theirs until swapped. Since the dynamic loader
//! hands back the already-mapped library for a path it has seen, a rebuilt file is first copied to
//! a fresh name in a private shadow directory ([`files`]: which files are plugins, their build
//! ids and shadow copies; this module only names and resolves).

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use yomi_plugin_engine::LoadedPlugin;
use yomi_protocol::{BotInfo, ErrorCode, ErrorInfo, GameInfo};

pub mod engines;
pub mod files;
pub mod fitted;

use self::engines::{EngineEntry, ENGINE_PREFIX};
use self::files::{check_library_file, file_build, has_plugin_name, is_plugin_file, shadow_copy};

/// One loaded build of a plugin.
#[derive(Debug)]
pub struct PluginEntry {
    pub loaded: LoadedPlugin,
    /// The file the operator named (before any shadow copy).
    pub source: PathBuf,
    /// First 12 hex digits of the file's SHA-256: which build this is.
    pub build: String,
    /// 1 for the first build of this plugin name loaded, then 2, 3 ...
    pub generation: u32,
}

impl PluginEntry {
    pub fn name(&self) -> &str {
        &self.loaded.manifest.name
    }
}

/// A bot resolved to what serves it.
#[derive(Debug, Clone)]
pub struct BotRef {
    pub source: BotSource,
    pub info: BotInfo,
}

/// What serves a bot: a plugin build, or an engine the operator named.
#[derive(Debug, Clone)]
pub enum BotSource {
    Plugin(Arc<PluginEntry>),
    Engine(Arc<EngineEntry>),
}

impl BotRef {
    /// A bot of a plugin build.
    pub fn plugin_bot(plugin: Arc<PluginEntry>, info: BotInfo) -> BotRef {
        BotRef { source: BotSource::Plugin(plugin), info }
    }

    /// The plugin build serving the bot; `None` for an engine.
    pub fn plugin(&self) -> Option<&Arc<PluginEntry>> {
        match &self.source {
            BotSource::Plugin(p) => Some(p),
            BotSource::Engine(_) => None,
        }
    }

    /// `plugin/bot` (`engine/NAME`), the unambiguous name.
    pub fn qualified(&self) -> String {
        format!("{}/{}", self.origin(), self.info.name)
    }

    /// The plugin's name, or `engine`.
    pub fn origin(&self) -> &str {
        match &self.source {
            BotSource::Plugin(p) => p.name(),
            BotSource::Engine(_) => ENGINE_PREFIX,
        }
    }

    /// The plugin's or the engine's version.
    pub fn version(&self) -> &str {
        match &self.source {
            BotSource::Plugin(p) => &p.loaded.manifest.version,
            BotSource::Engine(e) => &e.version,
        }
    }

    /// Which build serves the bot (see [`PluginEntry::build`], [`EngineSpec::build`]).
    ///
    /// [`EngineSpec::build`]: self::engines::EngineSpec::build
    pub fn build(&self) -> &str {
        match &self.source {
            BotSource::Plugin(p) => &p.build,
            BotSource::Engine(e) => &e.build,
        }
    }

    /// The plugin build's generation; an engine has only one.
    pub fn generation(&self) -> u32 {
        match &self.source {
            BotSource::Plugin(p) => p.generation,
            BotSource::Engine(_) => 1,
        }
    }
}

/// A game resolved to the plugin build that carries its rules.
#[derive(Debug, Clone)]
pub struct GameRef {
    pub plugin: Arc<PluginEntry>,
    pub info: GameInfo,
}

/// All loaded plugins.
#[derive(Debug, Default)]
pub struct Registry {
    /// Canonical plugin directories; `plugin.load` accepts only files inside them.
    dirs: Vec<PathBuf>,
    /// Whether `plugin.load` takes only plugin-named libraries (`libyomi_*`): so where the
    /// operator named no directory and the binary's own is used, a build directory's other
    /// libraries (test fixtures that hang, abort or panic on purpose) cannot be loaded by request.
    plugin_names_only: bool,
    plugins: RwLock<Vec<Arc<PluginEntry>>>,
    /// The engines the operator named that answered their handshake.
    engines: RwLock<Vec<Arc<EngineEntry>>>,
    /// Presets of the data directory (`plugin/bot`, preset), offered beside the shipped ones.
    fitted: RwLock<Vec<(String, yomi_protocol::Preset)>>,
}

impl Registry {
    /// A registry over these directories; one that does not exist is an error naming it.
    pub fn new(dirs: &[PathBuf]) -> Result<Registry, ErrorInfo> {
        Registry::over(dirs, false)
    }

    /// A registry over the directory of the `yomi` binary, which the operator did not name:
    /// `plugin.load` there takes only plugin-named libraries.
    pub fn over_binary_directory(dir: &Path) -> Result<Registry, ErrorInfo> {
        Registry::over(&[dir.to_path_buf()], true)
    }

    fn over(dirs: &[PathBuf], plugin_names_only: bool) -> Result<Registry, ErrorInfo> {
        let dirs = dirs
            .iter()
            .map(|d| {
                d.canonicalize().map_err(|e| {
                    ErrorInfo::new(
                        ErrorCode::NotFound,
                        format!("plugin directory {}: {e}", d.display()),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Registry {
            dirs,
            plugin_names_only,
            plugins: RwLock::default(),
            engines: RwLock::default(),
            fitted: RwLock::default(),
        })
    }

    /// Loads every `libyomi_*` library in the plugin directories. Problems (a broken file, a
    /// duplicate plugin name) are returned and logged; they do not stop the others from loading.
    pub fn discover(&self) -> Vec<ErrorInfo> {
        let mut problems = Vec::new();
        for dir in self.dirs.clone() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut files: Vec<PathBuf> =
                entries.flatten().map(|e| e.path()).filter(|p| is_plugin_file(p)).collect();
            files.sort();
            for file in files {
                let result = self.load_file(&file, SameName::Reject);
                match result {
                    Ok(entry) => {
                        tracing::info!(plugin = entry.name(), build = %entry.build, "loaded {}", file.display())
                    }
                    Err(e) => {
                        tracing::warn!("{}", e.message);
                        problems.push(e);
                    }
                }
            }
        }
        problems
    }

    /// Loads a plugin file on request. Relative paths are taken inside the first plugin directory;
    /// any path must resolve inside one of the plugin directories.
    pub fn load_path(&self, path: &Path) -> Result<Arc<PluginEntry>, ErrorInfo> {
        let candidate = if path.is_relative() {
            self.dirs
                .iter()
                .map(|d| d.join(path))
                .find(|p| p.exists())
                .unwrap_or_else(|| path.to_path_buf())
        } else {
            path.to_path_buf()
        };
        let canonical = candidate
            .canonicalize()
            .map_err(|e| ErrorInfo::new(ErrorCode::NotFound, format!("{}: {e}", path.display())))?;
        if !self.dirs.iter().any(|d| canonical.starts_with(d)) {
            return Err(ErrorInfo::new(
                ErrorCode::Forbidden,
                format!("{} is outside the plugin directories; start yomi with --plugins DIR to allow it", path.display()),
            ));
        }
        if self.plugin_names_only && !has_plugin_name(&canonical) {
            return Err(ErrorInfo::new(
                ErrorCode::Forbidden,
                format!(
                    "{} is not named as a plugin ({}yomi_*{}); to load other libraries, name their directory with --plugins DIR",
                    path.display(),
                    std::env::consts::DLL_PREFIX,
                    std::env::consts::DLL_SUFFIX
                ),
            ));
        }
        check_library_file(&canonical)?;
        self.load_file(&canonical, SameName::NewGeneration)
    }

    fn load_file(&self, file: &Path, same_name: SameName) -> Result<Arc<PluginEntry>, ErrorInfo> {
        let build = file_build(file).map_err(|e| {
            ErrorInfo::new(ErrorCode::PluginLoad, format!("{}: {e}", file.display()))
        })?;
        let existing = self.list();
        if let Some(same) = existing.iter().find(|p| p.build == build) {
            return Ok(same.clone());
        }
        let seen_path = existing.iter().any(|p| p.source == file);
        let open_path = if seen_path { shadow_copy(file, &build)? } else { file.to_path_buf() };
        let loaded = LoadedPlugin::load(&open_path).map_err(ErrorInfo::from)?;
        let mut plugins = self.plugins.write().unwrap();
        let clash = plugins.iter().find(|p| p.name() == loaded.manifest.name && p.source != file);
        if let (SameName::Reject, Some(other)) = (same_name, clash) {
            return Err(ErrorInfo::new(
                ErrorCode::PluginLoad,
                format!(
                    "{}: duplicate plugin name `{}` (already loaded from {}); skipped",
                    file.display(),
                    other.name(),
                    other.source.display()
                ),
            ));
        }
        let generation = plugins
            .iter()
            .filter(|p| p.name() == loaded.manifest.name)
            .map(|p| p.generation)
            .max()
            .unwrap_or(0)
            + 1;
        let entry = Arc::new(PluginEntry { loaded, source: file.to_path_buf(), build, generation });
        plugins.push(entry.clone());
        Ok(entry)
    }

    /// Every loaded build, oldest first.
    pub fn list(&self) -> Vec<Arc<PluginEntry>> {
        self.plugins.read().unwrap().clone()
    }

    /// The newest build of each plugin name, in name order.
    pub fn latest(&self) -> Vec<Arc<PluginEntry>> {
        let mut latest: Vec<Arc<PluginEntry>> = Vec::new();
        for p in self.list() {
            match latest.iter_mut().find(|q| q.name() == p.name()) {
                Some(q) if q.generation < p.generation => *q = p,
                Some(_) => {}
                None => latest.push(p),
            }
        }
        latest.sort_by(|a, b| a.name().cmp(b.name()));
        latest
    }

    /// A plugin by name, at a generation or the newest.
    pub fn plugin(
        &self,
        name: &str,
        generation: Option<u32>,
    ) -> Result<Arc<PluginEntry>, ErrorInfo> {
        let found = match generation {
            Some(g) => self.list().into_iter().find(|p| p.name() == name && p.generation == g),
            None => self.latest().into_iter().find(|p| p.name() == name),
        };
        found.ok_or_else(|| {
            let what = generation
                .map(|g| format!("`{name}` generation {g}"))
                .unwrap_or_else(|| format!("`{name}`"));
            ErrorInfo::new(ErrorCode::UnknownPlugin, format!("no plugin {what} is loaded"))
        })
    }

    /// Adds an engine that answered its handshake; a second engine of the same name is refused.
    pub fn add_engine(&self, engine: EngineEntry) -> Result<(), ErrorInfo> {
        let mut engines = self.engines.write().unwrap();
        if engines.iter().any(|e| e.spec.name == engine.spec.name) {
            return Err(ErrorInfo::new(
                ErrorCode::Conflict,
                format!("engine `{}` is named twice; skipped", engine.spec.name),
            ));
        }
        engines.push(Arc::new(engine));
        Ok(())
    }

    /// The engines, in the order they were named.
    pub fn engines(&self) -> Vec<Arc<EngineEntry>> {
        self.engines.read().unwrap().clone()
    }

    /// `engine/NAME`, if it plays `game` (when one is given).
    fn resolve_engine(&self, name: &str, game: Option<&str>) -> Result<BotRef, ErrorInfo> {
        let engine = self.engines().into_iter().find(|e| e.spec.name == name).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::UnknownBot,
                format!("no engine `{name}` (the operator names engines; see `yomi bots`)"),
            )
        })?;
        if let Some(g) = game.filter(|g| !engine.info.games.iter().any(|x| x == g)) {
            return Err(ErrorInfo::new(
                ErrorCode::UnknownBot,
                format!("engine `{name}` does not play `{g}`"),
            ));
        }
        Ok(BotRef { info: engine.info.clone(), source: BotSource::Engine(engine) })
    }

    /// Resolves `plugin/bot`, `engine/NAME` or a bare bot name. A bare name must be unique among the bots that
    /// play `game` (or among all bots when no game is given).
    pub fn resolve_bot(
        &self,
        spec: &str,
        game: Option<&str>,
        generation: Option<u32>,
    ) -> Result<BotRef, ErrorInfo> {
        if let Some((plugin, bot)) = spec.split_once('/') {
            if plugin == ENGINE_PREFIX {
                return self.resolve_engine(bot, game);
            }
            let entry = self.plugin(plugin, generation)?;
            let info =
                entry.loaded.manifest.bots.iter().find(|b| b.name == bot).cloned().ok_or_else(
                    || {
                        ErrorInfo::new(
                            ErrorCode::UnknownBot,
                            format!("plugin `{plugin}` has no bot `{bot}`"),
                        )
                    },
                )?;
            let info = self.with_fitted(&format!("{plugin}/{bot}"), info);
            return Ok(BotRef::plugin_bot(entry, info));
        }
        let candidates: Vec<BotRef> = self
            .latest()
            .into_iter()
            .flat_map(|p| {
                let bots: Vec<BotInfo> = p
                    .loaded
                    .manifest
                    .bots
                    .iter()
                    .filter(|b| b.name == spec)
                    .map(|b| self.with_fitted(&format!("{}/{spec}", p.name()), b.clone()))
                    .collect();
                bots.into_iter().map(move |info| BotRef::plugin_bot(p.clone(), info))
            })
            .filter(|b| game.is_none_or(|g| b.info.games.iter().any(|x| x == g)))
            .collect();
        match candidates.len() {
            1 => {
                let found = candidates.into_iter().next().unwrap();
                match generation {
                    Some(g) => {
                        self.resolve_bot(&format!("{}/{}", found.origin(), spec), game, Some(g))
                    }
                    None => Ok(found),
                }
            }
            0 => Err(ErrorInfo::new(
                ErrorCode::UnknownBot,
                match game {
                    Some(g) => format!("no bot `{spec}` plays `{g}` (see `yomi bots`)"),
                    None => format!("no bot `{spec}` (see `yomi bots`)"),
                },
            )),
            _ => Err(ErrorInfo::new(
                ErrorCode::AmbiguousBot,
                format!(
                    "bot name `{spec}` is in several plugins: {}; qualify it as plugin/bot",
                    candidates.iter().map(BotRef::qualified).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }

    /// Offers the data directory's presets ([`fitted`]) from now on.
    pub fn load_fitted(&self, data_dir: &Path) {
        *self.fitted.write().unwrap_or_else(|e| e.into_inner()) = fitted::read_all(data_dir);
    }

    /// The bot `plugin/bot` as described, with the data directory's presets after its own (a
    /// name it already ships is not replaced).
    pub fn with_fitted(&self, qualified: &str, mut info: BotInfo) -> BotInfo {
        let fitted = self.fitted.read().unwrap_or_else(|e| e.into_inner());
        for (_, preset) in fitted.iter().filter(|(bot, _)| bot == qualified) {
            if !info.presets.iter().any(|p| p.name == preset.name) {
                info.presets.push(preset.clone());
            }
        }
        info
    }

    /// Finds the plugin that carries a game's rules.
    pub fn resolve_game(&self, name: &str) -> Result<GameRef, ErrorInfo> {
        self.latest()
            .into_iter()
            .find_map(|p| {
                p.loaded
                    .manifest
                    .games
                    .iter()
                    .find(|g| g.name == name)
                    .cloned()
                    .map(|info| GameRef { plugin: p.clone(), info })
            })
            .ok_or_else(|| {
                ErrorInfo::new(
                    ErrorCode::UnknownGame,
                    format!("no game `{name}` (see `yomi bots`)"),
                )
            })
    }
}

/// What loading does when a plugin of the same name from another file is already loaded.
#[derive(Debug, Clone, Copy)]
enum SameName {
    /// Discovery: two files claiming one name is an operator error.
    Reject,
    /// `plugin.load`: a newer build goes beside the old one.
    NewGeneration,
}
