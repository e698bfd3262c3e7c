//! A plugin written as data: each game and bot is named once, beside its constructor, and the
//! manifest, `new_agent`, `new_game` and command delegation follow from that list.
//!
//! ```
//! use yomi_plugin::declare::{BotEntry, Declaration};
//! use yomi_plugin::{ActReply, ActRequest, Agent, ErrorInfo, Options};
//!
//! struct Rock;
//! impl Agent for Rock {
//!     fn act(&mut self, _: &ActRequest) -> Result<ActReply, ErrorInfo> {
//!         Ok(ActReply::new(serde_json::json!("rock")))
//!     }
//!     fn configure(&mut self, _: &Options) -> Result<(), ErrorInfo> {
//!         Ok(())
//!     }
//! }
//!
//! fn declaration() -> Declaration {
//!     Declaration::new("rocks", "0.1.0", "Always rock")
//!         .bot(BotEntry::new("rock", "throws rock", |_, _| Ok(Rock)).games(&["rps"]))
//! }
//!
//! #[derive(Default)]
//! pub struct RocksPlugin;
//! yomi_plugin::declare_plugin!(RocksPlugin, declaration);
//!
//! # use yomi_plugin::Plugin;
//! assert_eq!(RocksPlugin.manifest().bots[0].name, "rock");
//! let unknown = RocksPlugin.new_agent("paper", &Options::new(), &Default::default());
//! assert_eq!(unknown.err().unwrap().code, yomi_plugin::ErrorCode::UnknownBot);
//! ```

use yomi_protocol::manifest::{CommandInfo, MethodInfo};
use yomi_protocol::{
    BotInfo, ErrorCode, ErrorInfo, GameInfo, OptionSpec, Options, PluginManifest, Preset,
};

use crate::api::{Agent, CommandContext, Game, Plugin, Service, ServiceAgent};
use crate::call::AgentContext;

type NewAgent =
    Box<dyn Fn(&Options, &AgentContext) -> Result<Box<dyn Agent>, ErrorInfo> + Send + Sync>;
type NewGame = Box<dyn Fn(&Options, u64) -> Result<Box<dyn Game>, ErrorInfo> + Send + Sync>;
type RunCommand =
    Box<dyn Fn(&[String], &CommandContext) -> Result<String, ErrorInfo> + Send + Sync>;

/// A bot: what the manifest says of it and how to make one.
pub struct BotEntry {
    /// What the manifest lists for this bot.
    pub info: BotInfo,
    new: NewAgent,
}

impl BotEntry {
    /// A game bot made by `new(options, context)`; `options` are complete and schema-checked.
    pub fn new<A: Agent + 'static>(
        name: &str,
        description: &str,
        new: impl Fn(&Options, &AgentContext) -> Result<A, ErrorInfo> + Send + Sync + 'static,
    ) -> BotEntry {
        BotEntry {
            info: BotInfo {
                name: name.into(),
                description: description.into(),
                games: vec![],
                options: vec![],
                presets: vec![],
                methods: vec![],
            },
            new: Box::new(move |options, ctx| Ok(Box::new(new(options, ctx)?) as Box<dyn Agent>)),
        }
    }

    /// A bot that plays no game: a [`Service`] answering `agent.call`.
    pub fn service<S: Service + 'static>(
        name: &str,
        description: &str,
        new: impl Fn(&Options, &AgentContext) -> Result<S, ErrorInfo> + Send + Sync + 'static,
    ) -> BotEntry {
        BotEntry::new(name, description, move |options, ctx| Ok(ServiceAgent(new(options, ctx)?)))
    }

    /// The games it plays.
    pub fn games(mut self, games: &[&str]) -> BotEntry {
        self.info.games = games.iter().map(|g| g.to_string()).collect();
        self
    }

    /// Its option schema (its personality).
    pub fn options(mut self, options: Vec<OptionSpec>) -> BotEntry {
        self.info.options = options;
        self
    }

    /// Named option sets.
    pub fn presets(mut self, presets: Vec<Preset>) -> BotEntry {
        self.info.presets = presets;
        self
    }

    /// The `agent.call` methods it serves.
    pub fn methods(mut self, methods: Vec<MethodInfo>) -> BotEntry {
        self.info.methods = methods;
        self
    }
}

/// A game: what the manifest says of it and how to start one.
pub struct GameEntry {
    /// What the manifest lists for this game.
    pub info: GameInfo,
    new: NewGame,
}

impl GameEntry {
    /// A game for `seats` players (a range such as `2..=2`), started by `new(options, seed)`.
    pub fn new<G: Game + 'static>(
        name: &str,
        description: &str,
        seats: std::ops::RangeInclusive<usize>,
        new: impl Fn(&Options, u64) -> Result<G, ErrorInfo> + Send + Sync + 'static,
    ) -> GameEntry {
        GameEntry {
            info: GameInfo {
                name: name.into(),
                description: description.into(),
                min_seats: *seats.start(),
                max_seats: *seats.end(),
                simultaneous: false,
                options: vec![],
                presets: vec![],
                payload: None,
            },
            new: Box::new(move |options, seed| Ok(Box::new(new(options, seed)?) as Box<dyn Game>)),
        }
    }

    /// Every deciding seat acts at once.
    pub fn simultaneous(mut self) -> GameEntry {
        self.info.simultaneous = true;
        self
    }

    /// The game's option schema.
    pub fn options(mut self, options: Vec<OptionSpec>) -> GameEntry {
        self.info.options = options;
        self
    }

    /// Named option sets.
    pub fn presets(mut self, presets: Vec<Preset>) -> GameEntry {
        self.info.presets = presets;
        self
    }
}

/// A whole plugin: its name, games, bots and CLI commands. [`declare_plugin!`](crate::declare_plugin)
/// turns a function returning one into an exported plugin.
pub struct Declaration {
    name: String,
    version: String,
    description: String,
    games: Vec<GameEntry>,
    bots: Vec<BotEntry>,
    commands: Vec<CommandInfo>,
    run: Option<RunCommand>,
    view: Option<String>,
}

impl Declaration {
    /// An empty plugin; `version` is usually `env!("CARGO_PKG_VERSION")`.
    pub fn new(name: &str, version: &str, description: &str) -> Declaration {
        Declaration {
            name: name.into(),
            version: version.into(),
            description: description.into(),
            games: vec![],
            bots: vec![],
            commands: vec![],
            run: None,
            view: None,
        }
    }

    /// Adds a game the plugin carries the rules of.
    pub fn game(mut self, game: GameEntry) -> Declaration {
        self.games.push(game);
        self
    }

    /// Adds a bot.
    pub fn bot(mut self, bot: BotEntry) -> Declaration {
        self.bots.push(bot);
        self
    }

    /// Adds several bots (e.g. one per preset family).
    pub fn bots(mut self, bots: impl IntoIterator<Item = BotEntry>) -> Declaration {
        self.bots.extend(bots);
        self
    }

    /// The CLI subcommands (`yomi <plugin> ...`): the clap definition `C` and the function that
    /// runs one parsed command. The manifest's command list is read from `C`
    /// ([`crate::cli::commands`]), and the arguments are parsed by [`crate::cli::run`], so help
    /// and errors read the same in every plugin. A subcommand `repro` is what `yomi repro
    /// <plugin>` runs.
    pub fn cli<C: clap::Parser + 'static>(
        mut self,
        run: impl Fn(C, &CommandContext) -> Result<String, ErrorInfo> + Send + Sync + 'static,
    ) -> Declaration {
        self.commands = crate::cli::commands::<C>(&self.name);
        let name = self.name.clone();
        self.run = Some(Box::new(move |args, ctx| {
            crate::cli::run(&name, args, |parsed: C| run(parsed, ctx))
        }));
        self
    }

    /// The plugin's playground view: the text of an ES module, usually
    /// `include_str!("../web/view.js")`, which the host serves at `/plugins/<name>/view.js`
    /// (the interface is in PROTOCOL.md, "Plugin views").
    pub fn view(mut self, module: &str) -> Declaration {
        self.view = Some(module.into());
        self
    }

    /// The game's measured ladder (`include_str!("../ladder.json")`, written by `yomi ladder`), for
    /// the bots declared so far: their presets get their Elo, and a bot with a measured strength
    /// knob gets the `limit_strength` and `strength` options, which set the knob from a target
    /// Elo before the bot sees its options (see [`crate::ladder`]). Call it after the bots.
    pub fn ladder(mut self, text: &str) -> Declaration {
        let ladder = crate::ladder::Ladder::parse(text).unwrap_or_else(|e| panic!("{}", e.message));
        for entry in &mut self.bots {
            let qualified = format!("{}/{}", self.name, entry.info.name);
            ladder.rate_presets(&qualified, &mut entry.info.presets);
            if let Some(curve) = ladder.curve(&qualified) {
                entry.info.options.extend(curve.options());
                let new = std::mem::replace(&mut entry.new, Box::new(|_, _| unreachable!()));
                entry.new = Box::new(move |options, ctx| {
                    let inner = new(&curve.apply(options)?, ctx)?;
                    Ok(Box::new(crate::ladder::Limited { inner, curve: curve.clone() })
                        as Box<dyn Agent>)
                });
            }
        }
        self
    }

    /// The entry (bot or game) named `name`, or the `code` error that lists the ones there are:
    /// the one lookup behind `new_agent` and `new_game`.
    fn entry<'a, T>(
        &self,
        entries: &'a [T],
        name_of: impl Fn(&T) -> &String,
        code: ErrorCode,
        kind: &str,
        name: &str,
    ) -> Result<&'a T, ErrorInfo> {
        entries.iter().find(|e| name_of(e) == name).ok_or_else(|| {
            let names: Vec<&str> = entries.iter().map(|e| name_of(e).as_str()).collect();
            ErrorInfo::new(
                code,
                format!("no {kind} `{name}` in plugin {} ({})", self.name, names.join(", ")),
            )
        })
    }
}

impl Plugin for Declaration {
    fn manifest(&self) -> PluginManifest {
        PluginManifest {
            name: self.name.clone(),
            version: self.version.clone(),
            description: self.description.clone(),
            games: self.games.iter().map(|g| g.info.clone()).collect(),
            bots: self.bots.iter().map(|b| b.info.clone()).collect(),
            commands: self.commands.clone(),
            view: self.view.clone(),
        }
    }

    fn new_agent(
        &self,
        bot: &str,
        options: &Options,
        ctx: &AgentContext,
    ) -> Result<Box<dyn Agent>, ErrorInfo> {
        let entry = self.entry(&self.bots, |b| &b.info.name, ErrorCode::UnknownBot, "bot", bot)?;
        (entry.new)(options, ctx)
    }

    fn new_game(
        &self,
        game: &str,
        options: &Options,
        seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo> {
        let entry =
            self.entry(&self.games, |g| &g.info.name, ErrorCode::UnknownGame, "game", game)?;
        (entry.new)(options, seed)
    }

    fn command(&self, args: &[String], ctx: &CommandContext) -> Result<String, ErrorInfo> {
        match &self.run {
            Some(run) => run(args, ctx),
            None => Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("plugin {} has no commands", self.name),
            )),
        }
    }
}

/// Exports a plugin described by a [`Declaration`]: `declare_plugin!(MyPlugin, declaration);` at
/// the crate root of a `cdylib` crate, where `MyPlugin` is a unit struct of the crate (so tests
/// can write `MyPlugin.new_agent(...)`) and `declaration` a `fn() -> Declaration`. The declaration
/// is built once per process.
#[macro_export]
macro_rules! declare_plugin {
    ($plugin:ident, $declaration:path) => {
        impl $plugin {
            /// The plugin's declaration, built on first use.
            pub fn declaration() -> &'static $crate::declare::Declaration {
                static DECLARATION: ::std::sync::OnceLock<$crate::declare::Declaration> =
                    ::std::sync::OnceLock::new();
                DECLARATION.get_or_init($declaration)
            }
        }

        impl $crate::Plugin for $plugin {
            fn manifest(&self) -> $crate::PluginManifest {
                $crate::Plugin::manifest(Self::declaration())
            }

            fn new_agent(
                &self,
                bot: &str,
                options: &$crate::Options,
                ctx: &$crate::AgentContext,
            ) -> ::std::result::Result<::std::boxed::Box<dyn $crate::Agent>, $crate::ErrorInfo>
            {
                $crate::Plugin::new_agent(Self::declaration(), bot, options, ctx)
            }

            fn new_game(
                &self,
                game: &str,
                options: &$crate::Options,
                seed: u64,
            ) -> ::std::result::Result<::std::boxed::Box<dyn $crate::Game>, $crate::ErrorInfo> {
                $crate::Plugin::new_game(Self::declaration(), game, options, seed)
            }

            fn command(
                &self,
                args: &[::std::string::String],
                ctx: &$crate::CommandContext,
            ) -> ::std::result::Result<::std::string::String, $crate::ErrorInfo> {
                $crate::Plugin::command(Self::declaration(), args, ctx)
            }
        }

        $crate::export_plugin!($plugin);
    };
}
