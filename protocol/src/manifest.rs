//! What a plugin declares about itself: its games, its bots, their options and presets, and the
//! command-line subcommands it adds to `yomi`.

use serde::{Deserialize, Serialize};

use crate::options::{OptionSpec, Preset};

/// A plugin's self-description, returned once when the host loads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginManifest {
    /// Unique plugin name; also the prefix of qualified bot names (`plugin/bot`).
    pub name: String,
    /// The plugin's own version (its crate version).
    pub version: String,
    pub description: String,
    #[serde(default)]
    pub games: Vec<GameInfo>,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameInfo {
    pub name: String,
    pub description: String,
    /// Smallest and largest number of seats.
    pub min_seats: usize,
    pub max_seats: usize,
    /// True when seats choose at the same time (a joint action resolves each turn).
    pub simultaneous: bool,
    #[serde(default)]
    pub options: Vec<OptionSpec>,
    #[serde(default)]
    pub presets: Vec<Preset>,
}

/// A bot: a player of one or more games, a service (dice, roles), or both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BotInfo {
    pub name: String,
    pub description: String,
    /// Games the bot plays (names of games of any plugin). Empty for a pure service.
    #[serde(default)]
    pub games: Vec<String>,
    #[serde(default)]
    pub options: Vec<OptionSpec>,
    #[serde(default)]
    pub presets: Vec<Preset>,
    /// Service methods reachable through `agent.call`.
    #[serde(default)]
    pub methods: Vec<MethodInfo>,
}

/// A service method of a bot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodInfo {
    pub name: String,
    /// One line: parameters and result.
    pub description: String,
    /// The method's parameters that the host checks before calling (type and bounds), so no
    /// request can ask a service for unbounded work. Parameters not listed are the bot's to check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<OptionSpec>,
}

/// A CLI subcommand a plugin adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
}

impl MethodInfo {
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
    pub fn new(name: &str, description: &str) -> CommandInfo {
        CommandInfo { name: name.into(), description: description.into() }
    }
}
