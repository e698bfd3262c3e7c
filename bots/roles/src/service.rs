//! The roles service: every `agent.call` method, over a [`Store`]. The CLI drives the same
//! methods, so the two cannot drift apart.

use rand::RngCore;
use serde_json::{json, Map, Value};
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::rng::{self, Rng};
use yomi_plugin::ErrorInfo;

use crate::analysis::{guessability, never, role_index};
use crate::exact::ExactSampler;
use crate::model::{check_players, invalid, PastGame, Problem, Roles};
use crate::sampler::draw;
use crate::settings::Settings;
use crate::store::Store;

/// Most assignments one `sample` request may ask for.
pub const MAX_COUNT: u64 = 1_000_000;

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
    .map(|(name, description)| MethodInfo::new(name, description))
    .collect()
}

/// A service instance: its store, settings and random stream.
pub struct Service {
    pub store: Store,
    pub settings: Settings,
    rng: Rng,
}

fn str_param<'a>(params: &'a Value, name: &str) -> Result<&'a str, ErrorInfo> {
    params
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("parameter `{name}` (a string) is missing")))
}

fn names_param(params: &Value, name: &str) -> Result<Vec<String>, ErrorInfo> {
    match params.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => {
            Ok(s.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect())
        }
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| invalid(format!("`{name}` must list names as strings")))
            })
            .collect(),
        Some(_) => {
            Err(invalid(format!("`{name}` must be an array of names or a comma-separated string")))
        }
    }
}

fn game_param(params: &Value) -> Result<Option<i64>, ErrorInfo> {
    match params.get("game") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| invalid("`game` must be an integer game id")),
    }
}

/// Reads past games: a JSON array of objects player → role.
pub fn parse_history(value: &Value) -> Result<Vec<PastGame>, ErrorInfo> {
    let games = value.as_array().ok_or_else(|| {
        invalid("the history must be a JSON array of games, each an object player → role")
    })?;
    games
        .iter()
        .enumerate()
        .map(|(g, game)| {
            let map = game.as_object().ok_or_else(|| {
                invalid(format!("history game {g} is not an object player → role"))
            })?;
            map.iter()
                .map(|(p, r)| {
                    r.as_str().map(|r| (p.clone(), r.to_string())).ok_or_else(|| {
                        invalid(format!("history game {g}: the role of `{p}` is not a string"))
                    })
                })
                .collect()
        })
        .collect()
}

fn named_assignment(problem: &Problem, assignment: &[usize]) -> Value {
    Value::Object(
        problem.named(assignment).into_iter().map(|(p, r)| (p, Value::String(r))).collect(),
    )
}

impl Service {
    /// A service whose draws come from `seed` (each deal takes a fresh seed from that stream and
    /// records it, so any dealt game can be replayed).
    pub fn new(store: Store, settings: Settings, seed: u64) -> Service {
        Service { store, settings, rng: rng::seeded(seed) }
    }

    /// Runs one method.
    pub fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        let empty = Value::Object(Map::new());
        let params = if params.is_null() { &empty } else { params };
        if !params.is_object() {
            return Err(invalid("parameters must be a JSON object"));
        }
        match method {
            "groups" => Ok(json!({ "groups": self.store.groups()? })),
            "create" => {
                let group = str_param(params, "group")?;
                self.store.create(group, &names_param(params, "players")?)?;
                Ok(json!({ "group": group, "players": self.store.members(group)? }))
            }
            "join" | "leave" => {
                let group = str_param(params, "group")?;
                let players = names_param(params, "players")?;
                if players.is_empty() {
                    return Err(invalid("`players` is empty"));
                }
                let now = if method == "join" {
                    self.store.join(group, &players)?
                } else {
                    self.store.leave(group, &players)?
                };
                Ok(json!({ "group": group, "players": now }))
            }
            "players" => {
                let group = str_param(params, "group")?;
                Ok(json!({
                    "group": group,
                    "players": self.store.members(group)?,
                    "pending": self.store.pending(group)?.map(|g| g.game),
                    "games": self.store.history(group)?.len(),
                }))
            }
            "assign" => self.assign(params),
            "role" => self.role(params),
            "commit" | "discard" => {
                let group = str_param(params, "group")?;
                let game = game_param(params)?
                    .ok_or_else(|| invalid("parameter `game` (the game id) is missing"))?;
                let status = if method == "commit" { "committed" } else { "discarded" };
                Ok(json!(self.store.settle(group, game, status)?))
            }
            "history" => {
                let group = str_param(params, "group")?;
                let games = self.store.history(group)?;
                let mut counts: Map<String, Value> = Map::new();
                for g in &games {
                    for (p, r) in &g.assignment {
                        let row = counts.entry(p.clone()).or_insert_with(|| json!({}));
                        row[r] = json!(row.get(r).and_then(Value::as_u64).unwrap_or(0) + 1);
                    }
                }
                Ok(json!({ "group": group, "games": games, "counts": counts }))
            }
            "analyze" => self.analyze(params),
            "sample" => self.sample(params),
            other => Err(ErrorInfo::new(
                yomi_plugin::ErrorCode::UnknownMethod,
                format!("the roles bot has no method `{other}`"),
            )),
        }
    }

    /// The problem a request describes: a stored group's present players and committed history,
    /// or explicit `players` and `history`.
    fn problem(&self, params: &Value, settings: &Settings) -> Result<Problem, ErrorInfo> {
        let roles = Roles::from_json(
            params.get("roles").ok_or_else(|| invalid("parameter `roles` is missing"))?,
        )?;
        let (players, past) = match params.get("group").filter(|g| !g.is_null()) {
            Some(_) => {
                let group = str_param(params, "group")?;
                let past: Vec<PastGame> =
                    self.store.history(group)?.into_iter().map(|g| g.assignment).collect();
                (self.store.members(group)?, past)
            }
            None => {
                let players = names_param(params, "players")?;
                check_players(&players)?;
                let past = match params.get("history") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(h) => parse_history(h)?,
                };
                (players, past)
            }
        };
        Problem::new(players, roles, &past, settings.beta)
    }

    fn seed(&mut self, params: &Value) -> Result<u64, ErrorInfo> {
        match params.get("seed") {
            None | Some(Value::Null) => Ok(self.rng.next_u64()),
            Some(v) => v.as_u64().ok_or_else(|| invalid("`seed` must be a non-negative integer")),
        }
    }

    fn assign(&mut self, params: &Value) -> Result<Value, ErrorInfo> {
        let settings = self.settings.with(params)?;
        let group = str_param(params, "group")?;
        let problem = self.problem(params, &settings)?;
        let seed = self.seed(params)?;
        let assignment = draw(&problem, settings.method()?, 1, &mut rng::seeded(seed))?.remove(0);
        let seats: Vec<(String, String)> = problem.named(&assignment).into_iter().collect();
        let game = self.store.add_pending(group, &seats, settings.beta, seed)?;
        Ok(json!({
            "group": group,
            "game": game,
            "assignment": named_assignment(&problem, &assignment),
            "beta": settings.beta,
            "sampler": settings.sampler,
            "seed": seed,
        }))
    }

    fn role(&mut self, params: &Value) -> Result<Value, ErrorInfo> {
        let group = str_param(params, "group")?;
        let player = str_param(params, "player")?;
        let game = match game_param(params)? {
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
        Ok(json!({ "group": group, "game": game.game, "player": player, "role": role }))
    }

    fn analyze(&mut self, params: &Value) -> Result<Value, ErrorInfo> {
        let settings = self.settings.with(params)?;
        let problem = self.problem(params, &settings)?;
        let role = role_index(&problem, &settings.role)?;
        let marginals = ExactSampler::new(&problem)?.marginals();
        let (who, top) = guessability(&marginals, role);
        let seed = self.seed(params)?;
        let never =
            never(&problem, &settings.role, settings.games, settings.runs, &mut rng::seeded(seed))?;
        let probabilities: Map<String, Value> = problem
            .players
            .iter()
            .zip(&marginals)
            .map(|(p, m)| {
                (
                    p.clone(),
                    Value::Object(
                        problem
                            .roles
                            .names
                            .iter()
                            .cloned()
                            .zip(m.iter().map(|&x| json!(x)))
                            .collect(),
                    ),
                )
            })
            .collect();
        Ok(json!({
            "group": params.get("group"),
            "beta": settings.beta,
            "players": problem.players,
            "roles": problem.roles.names.iter().cloned().zip(problem.roles.counts.iter().map(|&c| json!(c))).collect::<Map<_, _>>(),
            "probabilities": probabilities,
            "guessability": {
                "role": settings.role,
                "player": problem.players[who],
                "probability": top,
                "uniform": problem.roles.counts[role] as f64 / problem.n() as f64,
            },
            "never": never,
            "seed": seed,
        }))
    }

    fn sample(&mut self, params: &Value) -> Result<Value, ErrorInfo> {
        let settings = self.settings.with(params)?;
        let problem = self.problem(params, &settings)?;
        let count = match params.get("count") {
            None | Some(Value::Null) => 1,
            Some(v) => v.as_u64().filter(|&c| (1..=MAX_COUNT).contains(&c)).ok_or_else(|| {
                invalid(format!("`count` must be an integer from 1 to {MAX_COUNT}"))
            })?,
        };
        let seed = self.seed(params)?;
        let drawn = draw(&problem, settings.method()?, count as usize, &mut rng::seeded(seed))?;
        Ok(Value::Array(drawn.iter().map(|a| named_assignment(&problem, a)).collect()))
    }
}
