//! The `dice` bot: a service reached through `agent.call`. Each player (param `player`, default
//! the anonymous one) has an endless stream of its own, seeded from the agent's seed and the
//! player's name, its own trap-control window, and its own ranges when a profile is saved.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::capability;
use yomi_plugin::rng::{derive_seed, seeded, Rng as SeededRng};
use yomi_plugin::typed::to_json;
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec, Options, Service};

use crate::board::Board;
use crate::control::{TrapControl, Verdict};
use crate::features::{compute, NAMES};
use crate::profile::{self, Saved, Store};
use crate::ranges::Ranges;
use crate::request::{Faces, OnBoard, Profile, Request, Roll, Score, Search};
use crate::search::{generate, uniform, Method, Params};
use crate::stream::Dice;
use crate::MAX_SIDES;

/// Most faces one request may ask for.
pub const MAX_FACES: usize = 100_000;

/// Players whose streams one agent keeps: each name a client sends starts a stream that lives as
/// long as the agent.
pub const MAX_PLAYERS: usize = 1_000;

/// Profiles a data directory keeps for clients: each new one is a row on disk a client makes.
pub const MAX_PROFILES: u64 = 100_000;

fn bad(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::BotError, message)
}

fn forbidden(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Forbidden, message)
}

/// The bot's options: its personality.
pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::choice("mode", "natural", &["natural", "plain"], "natural sequences, or an ordinary seeded PRNG for comparison"),
        OptionSpec::int("sides", 6, Some(2), Some(MAX_SIDES as i64), "faces of the die"),
        OptionSpec::int("length", 50, Some(8), Some(10_000), "window the features are judged on (and the default `sequence` length)"),
        OptionSpec::json("ranges", Value::Null, "{\"F7\": [alpha, beta, gamma], ...} for `length` faces, over the paper's table 2 scaled to `length` and `sides`"),
        OptionSpec::choice("method", "auto", &Method::NAMES, "local: the paper's local search; anneal: simulated annealing; auto: local, then annealing if Err > 0"),
        OptionSpec::float("strength", 1.0, Some(0.0), Some(1.0), "1 searches to Err = 0; s stops at (1 - s) x the starting Err"),
        OptionSpec::int("steps", 1000, Some(1), Some(1_000_000), "local search steps (the paper: 1000)"),
        OptionSpec::int("trap_window", 10, Some(2), Some(1000), "trap passes the hit band is kept over (the paper: 10)"),
    ]
}

/// A checked personality.
#[derive(Debug, Clone)]
pub struct Config {
    pub plain: bool,
    pub sides: u8,
    pub length: usize,
    pub ranges: Ranges,
    pub params: Params,
    pub trap_window: usize,
}

impl Config {
    pub fn from_options(options: &Options) -> Result<Config, ErrorInfo> {
        let sides = opt::i64(options, "sides")?;
        if !(2..=MAX_SIDES as i64).contains(&sides) {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                format!("sides must be 2..={MAX_SIDES}, got {sides}"),
            ));
        }
        let sides = sides as u8;
        let length = opt::i64(options, "length")?.max(2) as usize;
        let base = Ranges::default_for(length, sides);
        let ranges = match options.get("ranges") {
            None | Some(Value::Null) => base,
            Some(v) => Ranges::parse_over(&base, v)
                .map_err(|e| ErrorInfo::new(ErrorCode::InvalidOption, format!("ranges: {e}")))?,
        };
        let params = Params {
            method: Method::parse(opt::str(options, "method")?)
                .map_err(|e| ErrorInfo::new(ErrorCode::InvalidOption, e))?,
            local_steps: opt::i64(options, "steps")?.max(1) as usize,
            strength: opt::f64(options, "strength")?,
            ..Params::default()
        };
        Ok(Config {
            plain: opt::str(options, "mode")? == "plain",
            sides,
            length,
            ranges,
            params,
            trap_window: opt::i64(options, "trap_window")?.max(2) as usize,
        })
    }

    /// The default personality.
    pub fn default_config() -> Config {
        Config::from_options(&yomi_plugin::protocol::options::defaults(&options()))
            .expect("defaults are valid")
    }

    /// A fresh stream with these settings (and `ranges` for its length).
    pub fn dice(&self, ranges: Ranges, seed: u64) -> Dice {
        if self.plain {
            Dice::plain(self.sides, seed)
        } else {
            Dice::natural(self.sides, self.length, ranges, self.params, seed)
        }
    }
}

/// One player's stream and trap window.
pub struct Player {
    pub dice: Dice,
    pub control: TrapControl,
}

impl Player {
    /// A controlled roll: `board` and `position` decide which faces force a trap. Returns the
    /// face, whether it forces a trap, the natural hit chance and the verdict.
    pub fn roll_on(&mut self, board: &Board, position: usize) -> (u8, bool, f64, Verdict) {
        let sides = self.dice.sides();
        let hits = board.forced_hits(position, sides);
        let p = hits.iter().filter(|&&h| h).count() as f64 / sides as f64;
        if p == 0.0 || p == 1.0 {
            let face = self.dice.roll();
            return (face, hits[face as usize - 1], p, Verdict::Free);
        }
        let verdict = self.control.verdict(p);
        let face = match verdict {
            Verdict::Free => self.dice.roll(),
            Verdict::Hit => self.dice.next_in(&hits),
            Verdict::Avoid => self.dice.next_in(&hits.iter().map(|h| !h).collect::<Vec<_>>()),
        };
        let hit = hits[face as usize - 1];
        self.control.record(p, hit);
        (face, hit, p, verdict)
    }
}

/// A stable 64-bit name hash (FNV-1a) so a player's stream does not depend on the build.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The dice service agent.
pub struct DiceBot {
    config: Config,
    seed: u64,
    rng: SeededRng,
    players: HashMap<String, Player>,
    /// Profiles of this agent's life when there is no data directory.
    memory: HashMap<String, (u8, Vec<u8>)>,
    store: Option<Store>,
    /// The keys this agent was given (saving a profile) or shown (`key`), by player: a saved
    /// profile is reached only with its key, so one client cannot read or replace another's.
    keys: HashMap<String, String>,
}

impl DiceBot {
    pub fn new(
        options: &Options,
        seed: u64,
        data_dir: Option<PathBuf>,
    ) -> Result<DiceBot, ErrorInfo> {
        let store = match data_dir {
            Some(dir) => {
                Some(Store::open(&dir).map_err(|e| ErrorInfo::new(ErrorCode::Internal, e))?)
            }
            None => None,
        };
        Ok(DiceBot {
            config: Config::from_options(options)?,
            seed,
            rng: seeded(seed),
            players: HashMap::new(),
            memory: HashMap::new(),
            store,
            keys: HashMap::new(),
        })
    }

    /// The saved profile of `player` this agent may use: one saved with a key it holds, or one
    /// of the operator's (saved from the CLI, which every client may use and none may replace).
    fn saved_profile(&self, player: &str) -> Result<Option<(u8, Vec<u8>)>, ErrorInfo> {
        let Some(store) = &self.store else { return Ok(self.memory.get(player).cloned()) };
        let saved = store.get(player).map_err(|e| ErrorInfo::new(ErrorCode::Internal, e))?;
        Ok(saved.filter(|s| self.reaches(player, s)).map(|s| (s.sides, s.sequence)))
    }

    fn reaches(&self, player: &str, saved: &Saved) -> bool {
        match &saved.key_digest {
            None => true,
            Some(digest) => self.keys.get(player).is_some_and(|k| capability::digest(k) == *digest),
        }
    }

    /// Keeps the `key` a request shows for its player; a stream that ran without it restarts,
    /// so the profile the key reaches takes effect.
    fn remember_key(&mut self, player: &str, params: &Request) -> Result<(), ErrorInfo> {
        let Some(key) = &params.key else { return Ok(()) };
        if self.keys.get(player) != Some(key) {
            if !self.keys.contains_key(player) && self.keys.len() >= MAX_PLAYERS {
                return Err(ErrorInfo::new(
                    ErrorCode::LimitExceeded,
                    format!("this agent already holds {MAX_PLAYERS} players' keys"),
                ));
            }
            self.keys.insert(player.to_string(), key.clone());
            self.players.remove(player);
        }
        Ok(())
    }

    /// Saves a player's sequence in the data directory: a new profile gets a key (returned), a
    /// saved one is replaced only by a holder of its key.
    fn save_profile(&mut self, player: &str, seq: &[u8]) -> Result<Option<String>, ErrorInfo> {
        let internal = |e: String| ErrorInfo::new(ErrorCode::Internal, e);
        let Some(store) = &self.store else {
            self.memory.insert(player.to_string(), (self.config.sides, seq.to_vec()));
            return Ok(None);
        };
        match store.get(player).map_err(internal)? {
            None => {
                if store.count().map_err(internal)? >= MAX_PROFILES {
                    return Err(ErrorInfo::new(
                        ErrorCode::LimitExceeded,
                        format!("the data directory already keeps {MAX_PROFILES} dice profiles"),
                    ));
                }
                let key = capability::new_key();
                let digest = capability::digest(&key);
                store.put(player, self.config.sides, seq, Some(&digest)).map_err(internal)?;
                self.keys.insert(player.to_string(), key.clone());
                Ok(Some(key))
            }
            Some(saved) if saved.key_digest.is_none() => Err(forbidden(format!(
                "the profile of `{player}` is the operator's: change it with `yomi dice profile`"
            ))),
            Some(saved) if self.reaches(player, &saved) => {
                store.put(player, self.config.sides, seq, None).map_err(internal)?;
                Ok(None)
            }
            Some(_) => Err(forbidden(format!(
                "`{player}` has a saved profile: give its `key` (the one saving it returned)"
            ))),
        }
    }

    /// The ranges a player's stream uses: their profile's, or the personality's.
    fn ranges_for(&self, player: &str) -> Result<Ranges, ErrorInfo> {
        Ok(match self.saved_profile(player)? {
            Some((sides, seq)) if sides == self.config.sides => {
                profile::derive(&seq, sides, self.config.length).map_err(bad)?
            }
            _ => self.config.ranges.clone(),
        })
    }

    fn player(&mut self, params: &Request) -> Result<&mut Player, ErrorInfo> {
        let name = params.player.clone().unwrap_or_default();
        self.remember_key(&name, params)?;
        if !self.players.contains_key(&name) {
            if self.players.len() >= MAX_PLAYERS {
                return Err(ErrorInfo::new(
                    ErrorCode::LimitExceeded,
                    format!("this agent already keeps {MAX_PLAYERS} players' streams"),
                ));
            }
            let ranges = self.ranges_for(&name)?;
            let dice = self.config.dice(ranges, derive_seed(self.seed, name_hash(&name)));
            self.players.insert(
                name.clone(),
                Player { dice, control: TrapControl::new(self.config.trap_window) },
            );
        }
        Ok(self.players.get_mut(&name).expect("inserted above"))
    }

    fn roll(&mut self, params: &Request) -> Result<Value, ErrorInfo> {
        let Some(board) = &params.board else {
            return Ok(to_json(&Roll { face: self.player(params)?.dice.roll(), on_board: None }));
        };
        let board = match board {
            Value::String(s) if s == "standard" => Board::standard(),
            form => Board::parse(form).map_err(|e| ErrorInfo::new(ErrorCode::InvalidParams, e))?,
        };
        let position =
            params.position.ok_or_else(|| bad("a roll on a board needs `position`"))? as usize;
        board.check_position(position).map_err(bad)?;
        let player = self.player(params)?;
        let (face, trap, p, verdict) = player.roll_on(&board, position);
        let verdict = format!("{verdict:?}").to_lowercase();
        let on_board = OnBoard { trap, p, verdict, window: player.control.summary() };
        Ok(to_json(&Roll { face, on_board: Some(on_board) }))
    }

    fn count(value: Option<u64>, key: &str, default: Option<usize>) -> Result<usize, ErrorInfo> {
        let n = match value {
            None => default.ok_or_else(|| bad(format!("`{key}` is required")))?,
            Some(n) => n as usize,
        };
        if n == 0 || n > MAX_FACES {
            return Err(bad(format!("`{key}` must be 1..={MAX_FACES}, got {n}")));
        }
        Ok(n)
    }

    fn sequence(&mut self, params: &Request) -> Result<Value, ErrorInfo> {
        let n = Self::count(params.length, "length", Some(self.config.length))?;
        let seed = params.seed.unwrap_or_else(|| rand::Rng::gen(&mut self.rng));
        let (faces, err, steps) = natural_or_plain(&self.config, n, &mut seeded(seed));
        Ok(to_json(&Faces { faces, search: Some(Search { err, steps }) }))
    }

    fn profile(&mut self, params: &Request) -> Result<Value, ErrorInfo> {
        let player = params.player.clone().ok_or_else(|| bad("`player` (a name) is required"))?;
        self.remember_key(&player, params)?;
        let mut key = None;
        if let Some(seq) = &params.sequence {
            let seq = faces(seq, self.config.sides)?;
            profile::derive(&seq, self.config.sides, self.config.length).map_err(bad)?;
            key = self.save_profile(&player, &seq)?;
            // The player's stream restarts with the new ranges.
            self.players.remove(&player);
        }
        let saved = self.saved_profile(&player)?.is_some();
        let persistent = self.store.is_some();
        let ranges = self.ranges_for(&player)?.to_json();
        Ok(to_json(&Profile { player, saved, persistent, ranges, key }))
    }
}

/// One sequence of `n` faces under `config`: (faces, Err under the ranges for n, search steps).
pub fn natural_or_plain(config: &Config, n: usize, rng: &mut SeededRng) -> (Vec<u8>, f64, usize) {
    let ranges = scaled_ranges(config, n);
    if config.plain {
        let faces = uniform(n, config.sides, rng);
        let err = ranges.err(&compute(&faces, config.sides));
        (faces, err, 0)
    } else {
        let (faces, report) = generate(n, config.sides, &ranges, &config.params, rng);
        (faces, report.err, report.steps)
    }
}

/// The personality's ranges carried from its `length` to `n` faces.
pub fn scaled_ranges(config: &Config, n: usize) -> Ranges {
    if n == config.length {
        config.ranges.clone()
    } else {
        config.ranges.scaled(config.length, config.sides, n, config.sides)
    }
}

/// Checks faces against `sides`.
pub fn faces(values: &[u64], sides: u8) -> Result<Vec<u8>, ErrorInfo> {
    if values.is_empty() || values.len() > MAX_FACES {
        return Err(bad(format!("a sequence has 1..={MAX_FACES} faces, got {}", values.len())));
    }
    let faces: Vec<u8> = values
        .iter()
        .enumerate()
        .map(|(i, &f)| match f {
            1.. if f <= sides as u64 => Ok(f as u8),
            _ => Err(bad(format!("face {f} at position {} is outside 1..={sides}", i + 1))),
        })
        .collect::<Result<_, _>>()?;
    Ok(faces)
}

/// The features of a sequence and its Err under `config`'s ranges for its length.
pub fn score(config: &Config, faces: &[u8]) -> Score {
    let f = compute(faces, config.sides);
    let features = NAMES.iter().zip(f).map(|(n, x)| (n.to_string(), x)).collect();
    Score { features, err: scaled_ranges(config, faces.len()).err(&f) }
}

impl Service for DiceBot {
    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.config = Config::from_options(options)?;
        // Streams restart under the new personality.
        self.players.clear();
        Ok(())
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        let params = &Request::read(params)?;
        match method {
            "roll" => self.roll(params),
            "rolls" => {
                let n = Self::count(params.n, "n", None)?;
                let player = self.player(params)?;
                let faces = (0..n).map(|_| player.dice.roll()).collect();
                Ok(to_json(&Faces { faces, search: None }))
            }
            "sequence" => self.sequence(params),
            "score" => {
                let given = params.faces.as_deref().ok_or_else(|| bad("`faces` is required"))?;
                Ok(to_json(&score(&self.config, &faces(given, self.config.sides)?)))
            }
            "profile" => self.profile(params),
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownMethod,
                format!("the dice bot has no method `{method}`"),
            )),
        }
    }
}
