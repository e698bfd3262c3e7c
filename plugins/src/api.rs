//! The safe, plain-Rust traits a plugin author implements.

use std::path::PathBuf;

use serde_json::Value;

use crate::call::{unreadable, ActText, AgentContext, GameOver};
use yomi_protocol::{
    ActReply, ActRequest, Decision, ErrorCode, ErrorInfo, GameOutcome, Options, PluginManifest,
    PolicyEntry,
};

/// A plugin: a named bundle of games and bots. One value of it lives for the whole process.
pub trait Plugin: Send + Sync + 'static {
    /// What the plugin offers. Called once at load time.
    fn manifest(&self) -> PluginManifest;

    /// Creates an agent of bot `bot`. `options` is complete and already checked against the bot's
    /// schema (defaults, then preset, then overrides); the bot still rejects combinations the
    /// schema cannot express.
    fn new_agent(
        &self,
        bot: &str,
        options: &Options,
        ctx: &AgentContext,
    ) -> Result<Box<dyn Agent>, ErrorInfo>;

    /// Creates a game (its referee) with checked options and a seed for any chance in it.
    fn new_game(
        &self,
        game: &str,
        _options: &Options,
        _seed: u64,
    ) -> Result<Box<dyn Game>, ErrorInfo> {
        Err(ErrorInfo::new(ErrorCode::UnknownGame, format!("this plugin has no game `{game}`")))
    }

    /// Runs a CLI subcommand (`yomi <plugin> <args...>`) and returns what to print on stdout.
    /// Progress may go to stderr; never print to stdout directly.
    fn command(&self, args: &[String], _ctx: &CommandContext) -> Result<String, ErrorInfo> {
        Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!(
                "this plugin has no command `{}`",
                args.first().map(String::as_str).unwrap_or("")
            ),
        ))
    }
}

/// What a CLI subcommand is given.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct CommandContext {
    /// The host's `--data-dir`, for commands that read or write saved state; None without one.
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
}

/// One bot instance with its own state (its personality, what it has learned of an opponent).
/// The host calls it from one thread at a time. A bot that plays no game implements [`Service`]
/// instead and is wrapped in [`ServiceAgent`].
pub trait Agent: Send {
    /// Chooses an action for an observation.
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo>;

    /// [`act`](Agent::act) with the observation and legal actions still the JSON text of the
    /// call. The default reads them into an [`ActRequest`]; a bot with its own types for them
    /// (the typed adapter) reads them straight into those instead.
    fn act_text(&mut self, request: &ActText) -> Result<ActReply, ErrorInfo> {
        self.act(&request.read().map_err(|e| unreadable(&e))?)
    }

    /// The distribution [`act`](Agent::act) would draw its action from for `request`, in the
    /// agent's present state: every action it could play with its probability (see
    /// [`crate::policy`]). Asked before `act` on the same request when a caller wants both, so it
    /// must not change what the agent does next. The default says the bot does not tell
    /// (`no_policy`).
    fn policy(&self, _request: &ActRequest) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        Err(crate::policy::not_given())
    }

    /// [`policy`](Agent::policy) with the request still text, as [`act_text`](Agent::act_text).
    fn policy_text(&self, request: &ActText) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        self.policy(&request.read().map_err(|e| unreadable(&e))?)
    }

    /// [`act_text`](Agent::act_text) with its [`policy_text`](Agent::policy_text), for a caller
    /// that asked for both (`"policy": true`). The default asks for the policy, then acts; an
    /// agent that can read the request once or share the work of the two overrides it.
    fn act_with_policy_text(
        &mut self,
        request: &ActText,
    ) -> Result<(ActReply, Vec<PolicyEntry>), ErrorInfo> {
        let policy = self.policy_text(request)?;
        Ok((self.act_text(request)?, policy))
    }

    /// Learns what happened (the opponent's move, a card shown ...).
    fn observe(&mut self, _event: &Value) -> Result<(), ErrorInfo> {
        Ok(())
    }

    /// Learns how a game it played ended, after the last event: where a learning bot updates
    /// what it knows of its opponents. A failure here is logged by the host and changes nothing.
    fn game_over(&mut self, _over: &GameOver) -> Result<(), ErrorInfo> {
        Ok(())
    }

    /// Switches to a new complete, schema-checked option set; takes effect on the next decision.
    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo>;

    /// A service request (`agent.call`).
    fn call(&mut self, method: &str, _params: &Value) -> Result<Value, ErrorInfo> {
        Err(ErrorInfo::new(ErrorCode::UnknownMethod, format!("this bot has no method `{method}`")))
    }
}

/// A bot that plays no game and answers `agent.call` requests (dice streams, role dealing).
pub trait Service: Send {
    /// Switches to a new complete, schema-checked option set.
    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo>;

    /// One request (`agent.call`).
    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo>;
}

/// A [`Service`] seen as an [`Agent`]: asked to act, it answers that it plays no game.
pub struct ServiceAgent<S>(pub S);

impl<S: Service> Agent for ServiceAgent<S> {
    fn act(&mut self, _request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        Err(ErrorInfo::new(ErrorCode::BotError, "this bot is a service; it does not play games"))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.0.configure(options)
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        self.0.call(method, params)
    }
}

/// A game in progress: the referee. Bots only ever see the observations it hands out.
pub trait Game: Send {
    /// The seats that must act now, each with its observation and legal actions. Several seats for
    /// a simultaneous turn; empty when the game is over.
    fn decisions(&self) -> Vec<Decision>;

    /// Applies one action for every seat in [`Game::decisions`]. On an illegal action nothing
    /// changes and the error (code `illegal_action`) names the seat. Returns the public event that
    /// describes what happened, which the host passes to every agent and records.
    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo>;

    /// The result once the game is over.
    fn outcome(&self) -> Option<GameOutcome>;

    /// The action played for a seat that timed out or answered illegally, when the match's failure
    /// policy asks for one. The default is the first legal action.
    fn default_action(&self, seat: usize) -> Option<Value> {
        self.decisions()
            .into_iter()
            .find(|d| d.seat == seat)
            .and_then(|d| d.legal.into_iter().next())
    }
}

/// Helpers for bots: reading one option out of a checked set.
pub mod opt {
    use super::*;

    fn missing(name: &str) -> ErrorInfo {
        ErrorInfo::new(
            ErrorCode::InvalidOption,
            format!("option `{name}` is missing or of the wrong type"),
        )
    }

    /// The number option `name`, or `invalid_option` when it is missing or not a number.
    pub fn f64(options: &Options, name: &str) -> Result<f64, ErrorInfo> {
        options.get(name).and_then(Value::as_f64).ok_or_else(|| missing(name))
    }

    /// The integer option `name`, or `invalid_option` when it is missing or not an integer.
    pub fn i64(options: &Options, name: &str) -> Result<i64, ErrorInfo> {
        options.get(name).and_then(Value::as_i64).ok_or_else(|| missing(name))
    }

    /// The `true`/`false` option `name`, or `invalid_option` when it is missing or not one.
    pub fn bool(options: &Options, name: &str) -> Result<bool, ErrorInfo> {
        options.get(name).and_then(Value::as_bool).ok_or_else(|| missing(name))
    }

    /// The string option `name`, or `invalid_option` when it is missing or not a string.
    pub fn str<'a>(options: &'a Options, name: &str) -> Result<&'a str, ErrorInfo> {
        options.get(name).and_then(Value::as_str).ok_or_else(|| missing(name))
    }
}
