//! `catalog`, `plugin.list` and `plugin.load`: what the loaded plugins offer.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::manifest::{BotInfo, CommandInfo, GameInfo};

/// `plugin.load`'s parameters.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "PluginLoad")]
pub struct Load {
    /// A library file inside one of the plugin directories (relative paths are looked up there).
    pub path: PathBuf,
}

/// One loaded build of a plugin, as `plugin.list`, `plugin.load` and `catalog` describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Plugin {
    /// The plugin's name, the prefix of its bots' qualified names.
    pub name: String,
    /// The plugin's own version.
    pub version: String,
    /// First 12 hex digits of the file's SHA-256: which build this is.
    pub build: String,
    /// 1 for the first build of this plugin name loaded, then 2, 3 ...
    pub generation: u32,
    /// The library file the operator named; shown to operators only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// One line for people.
    pub description: String,
    /// The names of the games whose rules the plugin carries.
    pub games: Vec<String>,
    /// The names of the plugin's bots.
    pub bots: Vec<String>,
    /// The subcommands the plugin adds to `yomi`.
    pub commands: Vec<CommandInfo>,
    /// Where the playground loads the plugin's view module from, if it has one.
    pub view: Option<String>,
}

/// `catalog`'s reply: the games and bots of the newest build of each plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Catalog {
    /// Every game, with the plugin that carries its rules.
    pub games: Vec<CatalogGame>,
    /// Every bot, with its qualified name.
    pub bots: Vec<CatalogBot>,
    /// The plugins the entries come from.
    pub plugins: Vec<Plugin>,
}

/// A game in the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogGame {
    /// The plugin that carries the game's rules.
    pub plugin: String,
    /// The game as its plugin declares it.
    #[serde(flatten)]
    pub info: GameInfo,
}

/// A bot in the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogBot {
    /// `plugin/bot`: the name that is never ambiguous.
    pub id: String,
    /// The plugin that serves the bot.
    pub plugin: String,
    /// The bot as its plugin declares it: options, presets, service methods.
    #[serde(flatten)]
    pub info: BotInfo,
    /// For an engine (`engine/NAME`, plugin `engine`): what it named itself in its handshake.
    /// Its command stays with the operator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineTag>,
    /// How quick the bot's calls in this server have been, and whether that lets them run in
    /// line; absent until one of its calls has been timed (never for a bot in its own process),
    /// and shown to operators only: it sums every client's calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<BotPace>,
}

/// The measured pace of a bot's calls in the server's process, over all its agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BotPace {
    /// Whether its calls have lately been quick enough to run in line, on the thread that read
    /// the request, rather than handed to another thread (a call still goes in line only while
    /// another client is connected and a reactor thread is left free).
    pub in_line: bool,
    /// Its calls timed since the server started.
    pub calls: u64,
    /// A moving average of its latest calls' times (each new call weighs an eighth), in
    /// milliseconds.
    pub recent_call_ms: f64,
}

/// An engine's own name and version, from its handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EngineTag {
    /// The name the engine gave itself.
    pub name: String,
    /// The engine's own version.
    pub version: String,
}
