//! `yomi roles ...`: the command line. Each command becomes the parameters of the matching service
//! method (see [`crate::service`]), so the CLI and `agent.call` behave identically; this file only
//! parses arguments and renders results as text or JSON.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde_json::{json, Map, Value};
use yomi_plugin::{CommandContext, ErrorInfo, Options};

use crate::model::invalid;
use crate::service::{Access, Service};
use crate::settings::Settings;
use crate::store::Store;

/// `yomi roles ...`.
#[derive(Parser, Debug)]
#[command(
    name = "yomi roles",
    about = "Werewolf roles: fair but unpredictable dealing for a group that plays again and again"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How to draw: any of these overrides the bot's default for one command.
#[derive(Args, Debug, Default)]
struct DrawArgs {
    /// Inverse temperature (0 = uniform).
    #[arg(long, allow_hyphen_values = true)]
    beta: Option<f64>,
    /// exact | mh | enumerate.
    #[arg(long)]
    sampler: Option<String>,
    /// MH steps discarded before the first sample.
    #[arg(long)]
    burn_in: Option<u64>,
    /// MH steps between kept samples.
    #[arg(long)]
    thin: Option<u64>,
    /// Seed of the draw (default: fresh entropy; the paper used is reported).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Draw N assignments without recording anything (stable for scripts).
    Sample {
        /// Comma-separated player names.
        #[arg(long)]
        players: String,
        /// Role counts, e.g. werewolf=1,villager=3.
        #[arg(long)]
        roles: String,
        /// JSON file: an array of past games, each an object player → role.
        #[arg(long)]
        history: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        count: u64,
        #[command(flatten)]
        draw: DrawArgs,
        #[arg(long)]
        json: bool,
    },
    /// List the groups.
    Groups {
        #[arg(long)]
        json: bool,
    },
    /// Create a group.
    Create {
        group: String,
        #[arg(long, default_value = "")]
        players: String,
        #[arg(long)]
        json: bool,
    },
    /// Players arrive.
    Join {
        group: String,
        #[arg(long)]
        players: String,
        #[arg(long)]
        json: bool,
    },
    /// Players leave (their history is kept).
    Leave {
        group: String,
        #[arg(long)]
        players: String,
        #[arg(long)]
        json: bool,
    },
    /// Who is present, the pending game, how many games are committed.
    Players {
        group: String,
        #[arg(long)]
        json: bool,
    },
    /// Deal roles for the players present; the game stays pending until commit or discard.
    Deal {
        group: String,
        #[arg(long)]
        roles: String,
        #[command(flatten)]
        draw: DrawArgs,
        #[arg(long)]
        json: bool,
    },
    /// Tell one player their own role (of the pending game, or of --game).
    Role {
        group: String,
        #[arg(long)]
        player: String,
        #[arg(long)]
        game: Option<i64>,
        #[arg(long)]
        json: bool,
    },
    /// The pending game was played: it enters the history.
    Commit {
        group: String,
        game: i64,
        #[arg(long)]
        json: bool,
    },
    /// The pending game was not played: forget it.
    Discard {
        group: String,
        game: i64,
        #[arg(long)]
        json: bool,
    },
    /// The committed games and each player's role counts.
    History {
        group: String,
        #[arg(long)]
        json: bool,
    },
    /// Role probabilities, guessability and P(someone never gets the role within k games).
    Analyze {
        /// A stored group (or give --players and optionally --history).
        group: Option<String>,
        #[arg(long)]
        players: Option<String>,
        #[arg(long)]
        history: Option<PathBuf>,
        #[arg(long)]
        roles: String,
        /// The role to analyse (default werewolf).
        #[arg(long)]
        role: Option<String>,
        /// k: the number of coming games.
        #[arg(long)]
        games: Option<u32>,
        /// Simulated runs when the exact computation is too large.
        #[arg(long)]
        runs: Option<u64>,
        #[command(flatten)]
        draw: DrawArgs,
        #[arg(long)]
        json: bool,
    },
    /// The paper's numbers beside ours (REPRODUCTION.md without --json).
    Repro {
        #[command(flatten)]
        output: yomi_plugin::repro::Output,
    },
}

fn read_history(path: &Path) -> Result<Value, ErrorInfo> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| invalid(format!("cannot read history file {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| invalid(format!("history file {} is not valid JSON: {e}", path.display())))
}

impl DrawArgs {
    fn into_params(self, params: &mut Map<String, Value>) {
        let DrawArgs { beta, sampler, burn_in, thin, seed } = self;
        for (name, value) in [
            ("beta", beta.map(|b| json!(b))),
            ("sampler", sampler.map(|s| json!(s))),
            ("burn_in", burn_in.map(|b| json!(b))),
            ("thin", thin.map(|t| json!(t))),
            ("seed", seed.map(|s| json!(s))),
        ] {
            if let Some(v) = value {
                params.insert(name.into(), v);
            }
        }
    }
}

/// Non-finite numbers have no JSON form, so the CLI checks beta before building parameters.
fn check_beta_arg(draw: &DrawArgs) -> Result<(), ErrorInfo> {
    match draw.beta {
        Some(b) => crate::model::check_beta(b).map(|_| ()),
        None => Ok(()),
    }
}

/// Runs one `yomi roles` command through the service method it names.
pub fn run(cli: Cli, ctx: &CommandContext) -> Result<String, ErrorInfo> {
    let mut params = Map::new();
    let mut put = |k: &str, v: Value| {
        params.insert(k.to_string(), v);
    };
    let (method, group, stored, json_out) = match cli.command {
        Command::Repro { output } => {
            return output.print(crate::repro::rows, crate::repro::document)
        }
        Command::Sample { players, roles, history, count, draw, json } => {
            check_beta_arg(&draw)?;
            put("players", json!(players));
            put("roles", json!(roles));
            put("count", json!(count));
            if let Some(h) = history {
                put("history", read_history(&h)?);
            }
            draw.into_params(&mut params);
            ("sample", None, false, json)
        }
        Command::Groups { json } => ("groups", None, true, json),
        Command::Create { group, players, json } => {
            put("players", json!(players));
            ("create", Some(group), true, json)
        }
        Command::Join { group, players, json } => {
            put("players", json!(players));
            ("join", Some(group), true, json)
        }
        Command::Leave { group, players, json } => {
            put("players", json!(players));
            ("leave", Some(group), true, json)
        }
        Command::Players { group, json } => ("players", Some(group), true, json),
        Command::Deal { group, roles, draw, json } => {
            check_beta_arg(&draw)?;
            put("roles", json!(roles));
            draw.into_params(&mut params);
            ("assign", Some(group), true, json)
        }
        Command::Role { group, player, game, json } => {
            put("player", json!(player));
            put("game", json!(game));
            ("role", Some(group), true, json)
        }
        Command::Commit { group, game, json } => {
            put("game", json!(game));
            ("commit", Some(group), true, json)
        }
        Command::Discard { group, game, json } => {
            put("game", json!(game));
            ("discard", Some(group), true, json)
        }
        Command::History { group, json } => ("history", Some(group), true, json),
        Command::Analyze { group, players, history, roles, role, games, runs, draw, json } => {
            check_beta_arg(&draw)?;
            if group.is_some() == players.is_some() {
                return Err(invalid(
                    "analyze needs either a GROUP or --players (with optional --history)",
                ));
            }
            put("roles", json!(roles));
            put("players", json!(players));
            put("role", json!(role));
            put("games", json!(games));
            put("runs", json!(runs));
            if let Some(h) = history {
                put("history", read_history(&h)?);
            }
            draw.into_params(&mut params);
            let stored = group.is_some();
            ("analyze", group, stored, json)
        }
    };
    // Commands about stored groups open the database; the others never touch the data directory.
    let store = if stored {
        Store::open(Some(
            ctx.data_dir
                .as_deref()
                .ok_or_else(|| invalid("no data directory (give --data-dir)"))?,
        ))?
    } else {
        Store::open(None)?
    };
    if let Some(g) = group {
        params.insert("group".into(), json!(g));
    }
    let settings = Settings::from_options(&Options::new())?;
    let mut service = Service::new(store, settings, rand::random(), Access::Operator);
    let result = service.call(method, &Value::Object(params))?;
    Ok(if json_out { format!("{result}\n") } else { crate::render::text(method, &result) })
}
