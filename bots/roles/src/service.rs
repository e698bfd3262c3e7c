//! The roles service: every `agent.call` method, over a [`Store`]. The CLI drives the same
//! methods, so the two cannot drift apart.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngCore;
use serde_json::Value;
use yomi_plugin::capability;
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::rng::{self, Rng};
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec};

use crate::analysis::{guessability, never_exact, never_simulated, role_index};
use crate::exact::ExactSampler;
use crate::model::{check_players, invalid, PastGame, Problem};
use crate::request::{
    Analysis, Dealt, Groups, Guessability, History, Members, OwnRole, Params, Presence,
};
use crate::sampler::{draw, Method};
use crate::settings::{request_params, Settings};
use crate::store::Store;

/// Most assignments one `sample` request may ask for: from the CLI, and from a client (the
/// declared parameter's bound).
pub const MAX_COUNT: u64 = 1_000_000;
const MAX_REQUEST_COUNT: i64 = 10_000;

/// What one request of a network client may cost (the CLI is the operator's and is not held to
/// it), each about half a second of CPU on one core at most, measured with 15 players:
/// simulated player-games of `analyze` (9 µs each), Metropolis–Hastings steps (0.14 µs each),
/// and assignments written out by `sample` (players × count, 3 µs each).
const MAX_SIMULATED: u64 = 60_000;
const MAX_MH_STEPS: u64 = 3_000_000;
const MAX_DRAWN: u64 = 200_000;

/// The service methods, as the manifest lists them.
pub fn methods() -> Vec<MethodInfo> {
    [
        ("groups", "{} → {groups: [name]}: every group in the data directory"),
        ("create", "{group, players?: [name]} → {group, players}: a new group"),
        ("join", "{group, players: [name]} → {group, players}: players arrive (newcomers have no history)"),
        ("leave", "{group, players: [name]} → {group, players}: players leave (their history is kept)"),
        ("players", "{group} → {group, players, pending, games}: who is present, the pending game, committed games"),
        ("assign", "{group, roles, beta?, sampler?, seed?} → {group, game, assignment: {player: role}, ...}: deals a pending game"),
        ("role", "{group, player, game?} → {group, game, player, role}: one player's own role (pending game by default)"),
        ("commit", "{group, game} → the game: it was played; it enters the history"),
        ("discard", "{group, game} → the game: it was not played; it never enters the history"),
        ("history", "{group} → {group, games: [...], counts: {player: {role: n}}}: committed games"),
        ("analyze", "{group | players + history, roles, beta?, role?, games?, runs?} → probabilities, guessability, P(someone never gets the role within k games)"),
        ("sample", "{players, roles, history?: [{player: role}], beta?, count?, sampler?} → [{player: role}]: draws without recording"),
    ]
    .iter()
    .map(|(name, description)| {
        let sampling = ["beta", "sampler", "burn_in", "thin"];
        let params = match *name {
            "assign" => request_params(&sampling),
            "analyze" => request_params(&[&sampling[..], &["games", "runs"]].concat()),
            "sample" => {
                let count = OptionSpec::int("count", 1, Some(1), Some(MAX_REQUEST_COUNT), "assignments to draw");
                [request_params(&sampling), vec![count]].concat()
            }
            _ => vec![],
        };
        MethodInfo::new(name, description).params(params)
    })
    .collect()
}

/// Who may reach a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// An agent, so any client of the server: a group is reached only with the key `create`
    /// returned, and `groups` lists only the groups this agent holds a key for.
    Keyed,
    /// The local CLI: the operator, who owns the database file anyway, reaches every group.
    Operator,
}

/// A service instance: its store, settings, random stream and access.
pub struct Service {
    pub store: Store,
    pub settings: Settings,
    rng: Rng,
    access: Access,
    /// Groups this instance created or was shown a key for (what `groups` lists for an agent).
    held: BTreeSet<String>,
}

/// Groups clients may create in one data directory: each is rows on disk a client makes.
pub const MAX_GROUPS: usize = 10_000;

fn forbidden(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Forbidden, message)
}

/// Reads past games: a JSON array of objects player → role.
pub fn parse_history(value: &Value) -> Result<Vec<PastGame>, ErrorInfo> {
    yomi_plugin::typed::read(value, "history")
}

impl Service {
    /// A service whose draws come from `seed` (each deal takes a fresh seed from that stream and
    /// records it, so any dealt game can be replayed).
    pub fn new(store: Store, settings: Settings, seed: u64, access: Access) -> Service {
        Service { store, settings, rng: rng::seeded(seed), access, held: BTreeSet::new() }
    }

    /// The request's `group`, once its `key` opened it (for an agent). A missing group and a
    /// wrong key get the same answer, so keys cannot be tried against names.
    fn group<'a>(&mut self, params: &'a Params) -> Result<&'a str, ErrorInfo> {
        let group = Params::required(&params.group, "group")?;
        if self.access == Access::Operator {
            return Ok(group);
        }
        let key = params.key.as_deref().ok_or_else(|| {
            forbidden(format!("group `{group}` needs its `key` (the one `create` returned)"))
        })?;
        if !self.store.key_matches(group, key)? {
            return Err(forbidden(format!("no group `{group}` with that key")));
        }
        self.held.insert(group.to_string());
        Ok(group)
    }

    /// Runs one method on a call's parameters (a JSON object, or null for none).
    pub fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        self.run(method, &Params::read(params)?)
    }

    /// Runs one method on parameters already read.
    pub fn run(&mut self, method: &str, params: &Params) -> Result<Value, ErrorInfo> {
        match method {
            "groups" => to_json(&Groups {
                groups: match self.access {
                    Access::Operator => self.store.groups()?,
                    Access::Keyed => self.held.iter().cloned().collect(),
                },
            }),
            "create" => {
                let group = Params::required(&params.group, "group")?;
                if matches!(self.access, Access::Keyed) && self.store.groups()?.len() >= MAX_GROUPS
                {
                    return Err(ErrorInfo::new(
                        ErrorCode::LimitExceeded,
                        format!("the data directory already keeps {MAX_GROUPS} groups"),
                    ));
                }
                let key = capability::new_key();
                self.store.create(group, params.players.as_deref().unwrap_or_default(), &key)?;
                self.held.insert(group.to_string());
                let players = self.store.members(group)?;
                to_json(&Members { group, players, key: Some(key) })
            }
            "join" | "leave" => {
                let group = self.group(params)?;
                let players = params.players.as_deref().unwrap_or_default();
                if players.is_empty() {
                    return Err(invalid("`players` is empty"));
                }
                let now = if method == "join" {
                    self.store.join(group, players)?
                } else {
                    self.store.leave(group, players)?
                };
                to_json(&Members { group, players: now, key: None })
            }
            "players" => {
                let group = self.group(params)?;
                to_json(&Presence {
                    group,
                    players: self.store.members(group)?,
                    pending: self.store.pending(group)?.map(|g| g.game),
                    games: self.store.history(group)?.len(),
                })
            }
            "assign" => self.assign(params),
            "role" => self.role(params),
            "commit" | "discard" => {
                let group = self.group(params)?;
                let game = *Params::required(&params.game, "game")?;
                let status = if method == "commit" { "committed" } else { "discarded" };
                to_json(&self.store.settle(group, game, status)?)
            }
            "history" => {
                let group = self.group(params)?;
                let games = self.store.history(group)?;
                let mut counts: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
                for g in &games {
                    for (p, r) in &g.assignment {
                        *counts.entry(p.clone()).or_default().entry(r.clone()).or_default() += 1;
                    }
                }
                to_json(&History { group, games, counts })
            }
            "analyze" => self.analyze(params),
            "sample" => self.sample(params),
            other => Err(ErrorInfo::new(
                ErrorCode::UnknownMethod,
                format!("the roles bot has no method `{other}`"),
            )),
        }
    }

    /// The problem a request describes: a stored group's present players and committed history,
    /// or explicit `players` and `history`.
    fn problem(&mut self, params: &Params, settings: &Settings) -> Result<Problem, ErrorInfo> {
        let roles = Params::required(&params.roles, "roles")?.clone();
        let (players, past) = match params.group {
            Some(_) => {
                let group = self.group(params)?;
                let past: Vec<PastGame> =
                    self.store.history(group)?.into_iter().map(|g| g.assignment).collect();
                (self.store.members(group)?, past)
            }
            None => {
                let players = params.players.clone().unwrap_or_default();
                check_players(&players)?;
                (players, params.history.clone().unwrap_or_default())
            }
        };
        Problem::new(players, roles, &past, settings.beta)
    }

    /// Refuses (`limit_exceeded`) a request of a network client whose `work` exceeds `limit`.
    fn check_work(&self, what: &str, work: u64, limit: u64) -> Result<(), ErrorInfo> {
        if self.access == Access::Keyed && work > limit {
            return Err(ErrorInfo::new(
                ErrorCode::LimitExceeded,
                format!("{what} = {work} is more than one request may ask for ({limit})"),
            ));
        }
        Ok(())
    }

    /// Bounds the draws of `count` assignments (for an MH chain: its steps).
    fn check_draws(
        &self,
        settings: &Settings,
        problem: &Problem,
        count: u64,
    ) -> Result<(), ErrorInfo> {
        self.check_work("count × players", count.saturating_mul(problem.n() as u64), MAX_DRAWN)?;
        match settings.method()? {
            Method::Mh(mh) => self.check_work(
                "burn_in + count × thin",
                mh.burn_in.saturating_add(count.saturating_mul(mh.thin)),
                MAX_MH_STEPS,
            ),
            _ => Ok(()),
        }
    }

    fn seed(&mut self, params: &Params) -> u64 {
        params.seed.unwrap_or_else(|| self.rng.next_u64())
    }

    fn assign(&mut self, params: &Params) -> Result<Value, ErrorInfo> {
        let settings = self.settings.with(params)?;
        let group = self.group(params)?;
        let problem = self.problem(params, &settings)?;
        self.check_draws(&settings, &problem, 1)?;
        let seed = self.seed(params);
        let assignment = draw(&problem, settings.method()?, 1, &mut rng::seeded(seed))?.remove(0);
        let named = problem.named(&assignment);
        let seats: Vec<(String, String)> = named.clone().into_iter().collect();
        let game = self.store.add_pending(group, &seats, settings.beta, seed)?;
        to_json(&Dealt {
            group,
            game,
            assignment: named,
            beta: settings.beta,
            sampler: &settings.sampler,
            seed,
        })
    }

    fn role(&mut self, params: &Params) -> Result<Value, ErrorInfo> {
        let group = self.group(params)?;
        let player = Params::required(&params.player, "player")?;
        let game = match params.game {
            Some(id) => self.store.game(group, id)?,
            None => self
                .store
                .pending(group)?
                .ok_or_else(|| invalid(format!("group `{group}` has no pending game")))?,
        };
        let role = game.assignment.get(player).ok_or_else(|| {
            invalid(format!(
                "player `{player}` has no role in game {} of group `{group}`",
                game.game
            ))
        })?;
        to_json(&OwnRole { group, game: game.game, player, role })
    }

    fn analyze(&mut self, params: &Params) -> Result<Value, ErrorInfo> {
        let settings = self.settings.with(params)?;
        let problem = self.problem(params, &settings)?;
        let role = role_index(&problem, &settings.role)?;
        let marginals = ExactSampler::new(&problem)?.marginals();
        let (who, top) = guessability(&marginals, role);
        let seed = self.seed(params);
        let never = match never_exact(&problem, role, settings.games)? {
            Some(exact) => exact,
            None => {
                self.check_work(
                    "runs × games × players",
                    settings.runs * u64::from(settings.games) * problem.n() as u64,
                    MAX_SIMULATED,
                )?;
                never_simulated(
                    &problem,
                    role,
                    settings.games,
                    settings.runs,
                    &mut rng::seeded(seed),
                )?
            }
        };
        let names = &problem.roles.names;
        let probabilities = (problem.players.iter().cloned())
            .zip(marginals.iter().map(|m| names.iter().cloned().zip(m.iter().copied()).collect()))
            .collect();
        to_json(&Analysis {
            group: params.group.as_deref(),
            beta: settings.beta,
            players: &problem.players,
            roles: names.iter().cloned().zip(problem.roles.counts.iter().copied()).collect(),
            probabilities,
            guessability: Guessability {
                role: &settings.role,
                player: &problem.players[who],
                probability: top,
                uniform: problem.roles.counts[role] as f64 / problem.n() as f64,
            },
            never,
            seed,
        })
    }

    fn sample(&mut self, params: &Params) -> Result<Value, ErrorInfo> {
        let settings = self.settings.with(params)?;
        let problem = self.problem(params, &settings)?;
        let count = params.count.unwrap_or(1);
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(invalid(format!("`count` must be an integer from 1 to {MAX_COUNT}")));
        }
        self.check_draws(&settings, &problem, count)?;
        let seed = self.seed(params);
        let drawn = draw(&problem, settings.method()?, count as usize, &mut rng::seeded(seed))?;
        to_json(&drawn.iter().map(|a| problem.named(a)).collect::<Vec<_>>())
    }
}

/// A reply written as JSON.
fn to_json<T: serde::Serialize>(reply: &T) -> Result<Value, ErrorInfo> {
    Ok(yomi_plugin::typed::to_json(reply))
}
