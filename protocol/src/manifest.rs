//! What a plugin declares about itself: its games, its bots, their options and presets, and the
//! command-line subcommands it adds to `yomi`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::options::{OptionSpec, Preset};

/// A plugin's self-description, returned once when the host loads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PluginManifest {
    /// Unique plugin name; also the prefix of qualified bot names (`plugin/bot`).
    pub name: String,
    /// The plugin's own version (its crate version).
    pub version: String,
    /// One line for people, shown by `plugin.list` and `catalog`.
    pub description: String,
    /// The games whose rules this plugin carries.
    #[serde(default)]
    pub games: Vec<GameInfo>,
    /// The bots this plugin carries, for its own games or another plugin's.
    #[serde(default)]
    pub bots: Vec<BotInfo>,
    /// Subcommands the plugin adds to the CLI as `yomi <plugin> <command> ...`.
    #[serde(default)]
    pub commands: Vec<CommandInfo>,
    /// The plugin's page for the playground: the text of an ES module (see PROTOCOL.md, "Plugin
    /// views") that draws its games' observations, actions and its bots' explanations, and may
    /// add tabs. The host serves it at `/plugins/<name>/view.js`; without one the playground
    /// shows the plugin's games as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
}

/// A game whose rules (the referee) the plugin carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameInfo {
    /// The game's name, unique across loaded plugins; what matches and bots refer to.
    pub name: String,
    /// One line for people.
    pub description: String,
    /// Smallest and largest number of seats.
    pub min_seats: usize,
    /// Largest number of seats (see `min_seats`).
    pub max_seats: usize,
    /// True when seats choose at the same time (a joint action resolves each turn).
    pub simultaneous: bool,
    /// The game's options (variants of the rules), checked before a game is opened.
    #[serde(default)]
    pub options: Vec<OptionSpec>,
    /// Named sets of the game's options.
    #[serde(default)]
    pub presets: Vec<Preset>,
    /// The JSON Schemas of the game's payloads, as the game's crate defines them (PROTOCOL.md,
    /// "Payload schemas"): `observation` (what a seat is shown), `action` (one legal action)
    /// and `event` (what a resolved turn reports), so a client validates what it sends and reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<serde_json::Value>,
}

/// A bot: a player of one or more games, a service (dice, roles), or both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BotInfo {
    /// The bot's name within its plugin; clients name it `plugin/bot`.
    pub name: String,
    /// One line for people.
    pub description: String,
    /// Games the bot plays (names of games of any plugin). Empty for a pure service.
    #[serde(default)]
    pub games: Vec<String>,
    /// The bot's options (its personality), checked before an agent is made.
    #[serde(default)]
    pub options: Vec<OptionSpec>,
    /// Named sets of the bot's options: ready-made personalities.
    #[serde(default)]
    pub presets: Vec<Preset>,
    /// Service methods reachable through `agent.call`.
    #[serde(default)]
    pub methods: Vec<MethodInfo>,
}

/// A service method of a bot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MethodInfo {
    /// The method's name, as `agent.call`'s `method` gives it.
    pub name: String,
    /// One line: parameters and result.
    pub description: String,
    /// The method's parameters that the host checks before calling (type and bounds), so no
    /// request can ask a service for unbounded work. Parameters not listed are the bot's to check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<OptionSpec>,
}

/// A CLI subcommand a plugin adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandInfo {
    /// The subcommand's name: `yomi <plugin> <name>`.
    pub name: String,
    /// One line for `yomi <plugin> --help`.
    pub description: String,
}

impl MethodInfo {
    /// A method without checked parameters (see [`MethodInfo::params`]).
    pub fn new(name: &str, description: &str) -> MethodInfo {
        MethodInfo { name: name.into(), description: description.into(), params: Vec::new() }
    }

    /// The same method with its checked parameters.
    pub fn params(mut self, params: Vec<OptionSpec>) -> MethodInfo {
        self.params = params;
        self
    }
}

impl CommandInfo {
    /// A subcommand with its help line.
    pub fn new(name: &str, description: &str) -> CommandInfo {
        CommandInfo { name: name.into(), description: description.into() }
    }
}
