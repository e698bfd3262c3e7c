//! `yomi roles ...`: the command line. Each command becomes the parameters of the matching service
//! method (see [`crate::service`]), so the CLI and `agent.call` behave identically; this file only
//! parses arguments and renders results as text or JSON.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde_json::Value;
use yomi_plugin::{CommandContext, ErrorInfo, Options};

use crate::model::{invalid, PastGame, Roles};
use crate::request::{split_names, Params};
use crate::service::{parse_history, Access, Service};
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

fn read_history(path: &Path) -> Result<Vec<PastGame>, ErrorInfo> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| invalid(format!("cannot read history file {}: {e}", path.display())))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| invalid(format!("history file {} is not valid JSON: {e}", path.display())))?;
    parse_history(&value)
}

impl DrawArgs {
    /// Sets the draw's parameters; non-finite numbers have no JSON form, so beta is checked here.
    fn into_params(self, params: &mut Params) -> Result<(), ErrorInfo> {
        let DrawArgs { beta, sampler, burn_in, thin, seed } = self;
        params.beta = beta.map(crate::model::check_beta).transpose()?;
        params.sampler = sampler;
        params.burn_in = burn_in.map(|b| b as i64);
        params.thin = thin.map(|t| t as i64);
        params.seed = seed;
        Ok(())
    }
}

/// Runs one `yomi roles` command through the service method it names.
pub fn run(cli: Cli, ctx: &CommandContext) -> Result<String, ErrorInfo> {
    let mut params = Params::default();
    let (method, group, stored, json_out) = match cli.command {
        Command::Repro { output } => {
            return output.print(crate::repro::rows, crate::repro::document)
        }
        Command::Sample { players, roles, history, count, draw, json } => {
            draw.into_params(&mut params)?;
            params.players = Some(split_names(&players));
            params.roles = Some(Roles::parse(&roles)?);
            params.count = Some(count);
            params.history = history.as_deref().map(read_history).transpose()?;
            ("sample", None, false, json)
        }
        Command::Groups { json } => ("groups", None, true, json),
        Command::Create { group, players, json } => {
            params.players = Some(split_names(&players));
            ("create", Some(group), true, json)
        }
        Command::Join { group, players, json } => {
            params.players = Some(split_names(&players));
            ("join", Some(group), true, json)
        }
        Command::Leave { group, players, json } => {
            params.players = Some(split_names(&players));
            ("leave", Some(group), true, json)
        }
        Command::Players { group, json } => ("players", Some(group), true, json),
        Command::Deal { group, roles, draw, json } => {
            draw.into_params(&mut params)?;
            params.roles = Some(Roles::parse(&roles)?);
            ("assign", Some(group), true, json)
        }
        Command::Role { group, player, game, json } => {
            params.player = Some(player);
            params.game = game;
            ("role", Some(group), true, json)
        }
        Command::Commit { group, game, json } => {
            params.game = Some(game);
            ("commit", Some(group), true, json)
        }
        Command::Discard { group, game, json } => {
            params.game = Some(game);
            ("discard", Some(group), true, json)
        }
        Command::History { group, json } => ("history", Some(group), true, json),
        Command::Analyze { group, players, history, roles, role, games, runs, draw, json } => {
            draw.into_params(&mut params)?;
            if group.is_some() == players.is_some() {
                return Err(invalid(
                    "analyze needs either a GROUP or --players (with optional --history)",
                ));
            }
            params.roles = Some(Roles::parse(&roles)?);
            params.players = players.as_deref().map(split_names);
            params.role = role;
            params.games = games.map(i64::from);
            params.runs = runs.map(|r| r as i64);
            params.history = history.as_deref().map(read_history).transpose()?;
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
    params.group = group;
    let settings = Settings::from_options(&Options::new())?;
    let mut service = Service::new(store, settings, rand::random(), Access::Operator);
    let result = service.run(method, &params)?;
    Ok(if json_out { format!("{result}\n") } else { crate::render::text(method, &result) })
}
