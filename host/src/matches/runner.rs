//! A match: several games of one game between the same seated agents, with their state kept
//! across games (a bot that learns its opponent keeps learning), recorded as one transcript.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use yomi_plugin::rng::derive_seed;
use yomi_protocol::options::resolve;
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::game::HostedGame;
use super::log::Log;
use super::policy::{FailureCounts, Policy};
use super::referee::{self, GameRecord};
use super::seat::{SeatEnv, SeatPlan, SeatSpec};
use crate::agents::AgentHandle;
use crate::registry::{GameRef, Registry};
use crate::runtime::costs::Budgets;
use crate::runtime::executor::Scope;

/// Most games one match may ask for.
pub const MAX_GAMES: u32 = 1_000_000;

/// Transcript format version, in the header.
pub const TRANSCRIPT_FORMAT: u32 = 1;

/// A match as requested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MatchSpec {
    pub game: String,
    #[serde(default)]
    pub game_options: Options,
    pub seats: Vec<SeatSpec>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "one")]
    pub games: u32,
    #[serde(default)]
    pub policy: Policy,
}

fn one() -> u32 {
    1
}

/// A checked match, ready to run.
#[derive(Debug, Clone)]
pub struct MatchPlan {
    pub spec: MatchSpec,
    pub game: GameRef,
    /// The complete game options.
    pub game_options: Options,
    pub seats: Vec<SeatPlan>,
    /// Keep every game's transcript lines and record until the match ends (a transcript asked
    /// for, a tournament game, a replay). Off, a long match holds only its running totals: a
    /// million-game `match.run` without a transcript must not grow the server by gigabytes.
    pub keep_games: bool,
    /// Only the transcript's text is wanted (tournament records, a file): its lines are written
    /// straight into it (see [`Log`]).
    pub log_as_text: bool,
    /// Most bytes of text the kept transcript may grow to (a text log only): a game that would
    /// carry it past is left out, an `omitted` line in its place, so a `match.run` reply holds
    /// no more than its operator allows however long the games.
    pub max_transcript_bytes: Option<u64>,
}

impl MatchPlan {
    /// Checks the spec: the game exists, the seat count fits, every bot plays the game, options check.
    pub fn new(registry: &Registry, spec: MatchSpec) -> Result<MatchPlan, ErrorInfo> {
        let game = registry.resolve_game(&spec.game)?;
        let (min, max) = (game.info.min_seats, game.info.max_seats);
        if spec.seats.len() < min || spec.seats.len() > max {
            let want = if min == max { format!("{min}") } else { format!("{min} to {max}") };
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("`{}` is played by {want} seats, not {}", spec.game, spec.seats.len()),
            ));
        }
        if spec.games == 0 || spec.games > MAX_GAMES {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("games must be 1 to {MAX_GAMES}, not {}", spec.games),
            ));
        }
        let game_options = game_options_for(&game, &spec.game_options, spec.seats.len())?;
        let seats = spec
            .seats
            .iter()
            .map(|s| SeatPlan::resolve(registry, &spec.game, s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MatchPlan {
            spec,
            game,
            game_options,
            seats,
            keep_games: true,
            log_as_text: false,
            max_transcript_bytes: None,
        })
    }

    /// The seed of seat `seat`'s agent: fixed for the match, so the agent's randomness replays.
    pub fn seat_seed(&self, seat: usize) -> u64 {
        derive_seed(self.spec.seed, 1_000_000 + seat as u64)
    }

    /// The seed of game `index` (its deal, its chance).
    pub fn game_seed(&self, index: u32) -> u64 {
        derive_seed(self.spec.seed, index as u64)
    }

    /// The transcript's first line: everything needed to play the match again.
    pub fn header(&self) -> Value {
        json!({
            "type": "header", "format": TRANSCRIPT_FORMAT, "yomi": env!("CARGO_PKG_VERSION"),
            "game": self.spec.game, "plugin": self.game.plugin.name(),
            "plugin_version": self.game.plugin.loaded.manifest.version, "build": self.game.plugin.build,
            "game_options": self.game_options, "seed": self.spec.seed, "games": self.spec.games,
            "policy": self.spec.policy,
            "seats": self.seats.iter().enumerate().map(|(i, s)| s.header(self.seat_seed(i))).collect::<Vec<_>>(),
        })
    }

    /// The header as `match.started` shows it while the match is played: without the match's
    /// seed and the seats' seeds, which name every deal and every bot's draw to come. The reply
    /// names the seed once the match is over.
    pub fn announced_header(header: &Value) -> Value {
        let mut shown = header.clone();
        if let Some(fields) = shown.as_object_mut() {
            fields.remove("seed");
        }
        if let Some(seats) = shown.get_mut("seats").and_then(Value::as_array_mut) {
            for seat in seats.iter_mut().filter_map(Value::as_object_mut) {
                seat.remove("seed");
            }
        }
        shown
    }

    /// Starts every seat's agent.
    pub async fn start_agents(
        &self,
        env: &SeatEnv,
    ) -> Result<Vec<Arc<dyn AgentHandle>>, ErrorInfo> {
        let mut agents = Vec::with_capacity(self.seats.len());
        for (seat, plan) in self.seats.iter().enumerate() {
            let env = SeatEnv { seat, ..env.clone() };
            agents.push(plan.start(self.seat_seed(seat), &env).await?);
        }
        Ok(agents)
    }
}

/// The complete game options for a game of `seats` seats. A game whose seat count varies declares
/// an int option `players`: the host sets it to the seat count, and refuses a different value.
pub fn game_options_for(
    game: &GameRef,
    given: &Options,
    seats: usize,
) -> Result<Options, ErrorInfo> {
    let mut given = given.clone();
    if game.info.options.iter().any(|o| o.name == "players") {
        match given.get("players").and_then(Value::as_u64) {
            Some(p) if p as usize != seats => {
                return Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    format!("game option players = {p} but the match has {seats} seats"),
                ))
            }
            _ => {
                given.insert("players".into(), json!(seats));
            }
        }
    }
    resolve(&game.info.options, &game.info.presets, None, &given).map_err(ErrorInfo::from)
}

/// The result of a match.
#[derive(Debug, Clone, Serialize)]
pub struct MatchResult {
    pub game: String,
    pub seats: Vec<String>,
    pub games: u32,
    /// Sum of each seat's scores over the games.
    pub scores: Vec<f64>,
    pub failures: Vec<FailureCounts>,
    pub forfeits: Vec<u32>,
    pub records: Vec<GameRecord>,
}

/// A match played: its result and its transcript lines (header first; without
/// [`MatchPlan::keep_games`] only the header and the result line).
pub struct PlayedMatch {
    pub result: MatchResult,
    pub log: Log,
}

/// How far a match has got, for whoever watches it.
pub enum Progress<'a> {
    /// Every agent started; the transcript header without its seeds
    /// ([`MatchPlan::announced_header`]).
    Started(&'a Value),
    /// Game `index` (0-based) ended; `totals` are the seats' scores so far.
    Game { index: u32, record: &'a GameRecord, totals: &'a [f64] },
}

/// The one way a match is played (`match.run`, `yomi match`, tournaments, replays): starts every
/// seat's agent, writes the header, plays every game, telling `progress` as it goes.
pub async fn play(
    plan: &MatchPlan,
    env: &SeatEnv,
    mut progress: impl FnMut(Progress<'_>),
) -> Result<PlayedMatch, ErrorInfo> {
    // Held while the agents live: their worker processes count against the server's cap.
    let isolated = plan.seats.iter().filter(|s| s.is_isolated()).count();
    let _workers = match &env.budgets {
        Some(budgets) => budgets.workers(isolated).await?,
        None => None,
    };
    let agents = plan.start_agents(env).await?;
    let header = plan.header();
    progress(Progress::Started(&MatchPlan::announced_header(&header)));
    let mut log = Log::new(plan.log_as_text);
    log.push_value(header);
    log.end_header();
    // Games between bots take turns on the server's cores; a client seat's game goes at its
    // player's pace and holds no turn while the player thinks.
    let budgets = env.budgets.as_ref().filter(|_| !plan.seats.iter().any(SeatPlan::is_client));
    let result = run(plan, &agents, budgets, env.scope, &mut log, |index, record, totals| {
        progress(Progress::Game { index, record, totals })
    })
    .await;
    // Killing a worker does not end it at once: its place is given back once it has ended.
    for agent in &agents {
        agent.close().await;
    }
    Ok(PlayedMatch { result: result?, log })
}

/// Plays every game of the plan with `agents`, appending transcript lines to `log` and calling
/// `progress` after each game.
async fn run(
    plan: &MatchPlan,
    agents: &[Arc<dyn AgentHandle>],
    budgets: Option<&Budgets>,
    scope: Scope,
    log: &mut Log,
    mut progress: impl FnMut(u32, &GameRecord, &[f64]),
) -> Result<MatchResult, ErrorInfo> {
    let seats = plan.seats.len();
    let mut result = MatchResult {
        game: plan.spec.game.clone(),
        seats: plan.seats.iter().map(SeatPlan::label).collect(),
        games: 0,
        scores: vec![0.0; seats],
        failures: vec![FailureCounts::default(); seats],
        forfeits: vec![0; seats],
        records: Vec::new(),
    };
    for index in 0..plan.spec.games {
        let _turn = match budgets {
            Some(budgets) => Some(budgets.game().await),
            None => None,
        };
        let seed = plan.game_seed(index);
        let game_start = log.mark();
        log.push_value(json!({"type": "game", "game": index, "seed": seed}));
        let game = HostedGame::open(&plan.game, plan.game_options.clone(), seed, scope).await?;
        let record = referee::play(&game, agents, &plan.spec.policy, index, log).await?;
        for seat in 0..seats {
            result.scores[seat] += record.scores[seat];
            result.failures[seat].merge(&record.failures[seat]);
        }
        if let Some((seat, _)) = record.forfeit {
            result.forfeits[seat] += 1;
        }
        result.games += 1;
        progress(index, &record, &result.scores);
        if plan.keep_games {
            result.records.push(record);
            if let Some(limit) = plan.max_transcript_bytes {
                if log.text_bytes().is_some_and(|bytes| bytes > limit) {
                    let why = "the match's transcript grew past --max-match-transcript-bytes";
                    log.leave_out_since(game_start, limit, why);
                }
            }
        } else {
            log.keep_header_only();
        }
    }
    log.push_value(json!({"type": "result", "scores": result.scores, "failures": result.failures, "forfeits": result.forfeits}));
    Ok(result)
}
