//! The referee: a simultaneous-move game where both seats choose, then the turn resolves; a faint
//! replacement is its own decision for the one seat that must replace. The deal (which seat holds
//! party 1) and the starting actives are the game's only chance (seed 4.1.2-4(a),(b)).

use rand::Rng;
use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::typed::to_json;
use yomi_plugin::{Decision, ErrorCode, ErrorInfo, Game, GameOutcome, OptionSpec, Options, Preset};

use crate::codec;
use crate::engine::{Action, Engine, State, Status};
use crate::payload::{Event, Step, Summary};
use crate::rules::{
    parse_parties, preset_parties, Rules, MAX_TURN_LIMIT, PARTY_PRESETS, TURN_LIMIT,
};

/// The game's options.
pub fn options() -> Vec<OptionSpec> {
    let mut parties: Vec<&str> = PARTY_PRESETS.to_vec();
    parties.push("custom");
    vec![
        OptionSpec::choice("parties", "thesis", &parties, "thesis: the paper's tables 4.3/4.4; delta-experiment: E and F at HP 5; custom: `custom_parties`"),
        OptionSpec::json("custom_parties", Value::Null, "with parties=custom: [[3 Pokémon], [3 Pokémon]], each {name, type, hp 1-5, speed 1-10, moves [3 types]}"),
        OptionSpec::bool("same_type_neutral", false, "also raise a same-type move at ×1.0 to ×1.5 (spec U2; the paper's text says no)"),
        OptionSpec::int("turn_limit", TURN_LIMIT as i64, Some(2), Some(MAX_TURN_LIMIT as i64), "the turn at which an undecided game is judged (players act before it)"),
        OptionSpec::choice("deal", "random", &["random", "fixed"], "random: a fair coin gives party 1 to a seat; fixed: seat 0 holds party 1"),
        OptionSpec::choice("start", "random", &["random", "first"], "random: each side's first active drawn uniformly; first: both start with their first Pokémon"),
        OptionSpec::json("actives", Value::Null, "[party 1's first active, party 2's], each 0-2: an opening's fixed start (overrides `start`); null: as `start` says"),
    ]
}

/// The game's presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset::one("thesis", "the paper's parties and rules", "parties", "thesis"),
        Preset::one(
            "delta-experiment",
            "E and F at HP 5, as in the paper's table 5.3",
            "parties",
            "delta-experiment",
        ),
    ]
}

/// The rules an option set describes.
pub fn rules_from_options(options: &Options) -> Result<Rules, ErrorInfo> {
    let name = opt::str(options, "parties")?;
    let parties = if name == "custom" {
        parse_parties(options.get("custom_parties").unwrap_or(&Value::Null))?
    } else {
        preset_parties(name)?
    };
    Rules::new(
        parties,
        opt::bool(options, "same_type_neutral")?,
        opt::i64(options, "turn_limit")? as u8,
    )
    .map_err(|e| ErrorInfo::new(ErrorCode::InvalidOption, e.message))
}

/// A battle in progress.
pub struct Battle {
    engine: Engine,
    state: State,
    /// `side_of[seat]`: 0 if the seat holds party 1.
    side_of: [usize; 2],
}

impl Battle {
    pub fn new(options: &Options, seed: u64) -> Result<Battle, ErrorInfo> {
        let engine = Engine::new(rules_from_options(options)?);
        let mut rng = yomi_plugin::rng::seeded(seed);
        let side_of = if opt::str(options, "deal")? == "random" && rng.gen::<bool>() {
            [1, 0]
        } else {
            [0, 1]
        };
        let active = if let Some(fixed) = crate::openings::actives(options)? {
            fixed
        } else if opt::str(options, "start")? == "random" {
            [rng.gen_range(0..3), rng.gen_range(0..3)]
        } else {
            [0, 0]
        };
        let state = engine.initial(active);
        Ok(Battle { engine, state, side_of })
    }

    fn seat_of(&self, side: usize) -> usize {
        self.side_of.iter().position(|&s| s == side).expect("both sides are seated")
    }

    fn decision(&self, side: usize, replacing: bool) -> Decision {
        let actions = codec::actions(&self.engine, &self.state, side, replacing);
        Decision {
            seat: self.seat_of(side),
            observation: to_json(&codec::observation(&self.engine, &self.state, side, replacing)),
            legal: codec::named(&self.engine, side, &self.state, &actions)
                .iter()
                .map(to_json)
                .collect(),
        }
    }
}

fn illegal(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::IllegalAction, message)
}

impl Game for Battle {
    fn decisions(&self) -> Vec<Decision> {
        match self.engine.status(&self.state) {
            Status::Over(_) => vec![],
            Status::Replace(side) => vec![self.decision(side, true)],
            Status::Play => {
                let mut d = vec![self.decision(0, false), self.decision(1, false)];
                d.sort_by_key(|d| d.seat);
                d
            }
        }
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        let status = self.engine.status(&self.state);
        let due: Vec<usize> = match status {
            Status::Over(_) => return Err(illegal("the game is over".into())),
            Status::Replace(side) => vec![self.seat_of(side)],
            Status::Play => vec![0, 1],
        };
        let mut chosen: [Option<Action>; 2] = [None, None];
        for (seat, value) in actions {
            if !due.contains(seat) {
                return Err(illegal(format!("seat {seat} has no decision now")));
            }
            let side = self.side_of[*seat];
            let legal = match status {
                Status::Replace(_) => self.engine.replacements(&self.state, side),
                _ => self.engine.legal(&self.state, side),
            };
            let action = codec::read_action(&self.engine, side, &self.state, value, &legal)
                .map_err(|e| illegal(format!("seat {seat}: {}", e.message)))?;
            chosen[side] = Some(action);
        }
        if let Some(seat) = due.iter().find(|&&seat| chosen[self.side_of[seat]].is_none()) {
            return Err(illegal(format!("seat {seat} must act")));
        }
        let before = self.state;
        self.state = match (status, chosen) {
            (Status::Replace(side), _) => {
                let Some(Action::Switch(k)) = chosen[side] else {
                    unreachable!("replacements are switches")
                };
                self.engine.replace(&before, side, k)
            }
            (_, [Some(a), Some(b)]) => self.engine.resolve(&before, [a, b]),
            _ => unreachable!("every due seat acted"),
        };
        let by_seat = std::array::from_fn(|seat| {
            let side = self.side_of[seat];
            chosen[side].map(|a| codec::action(&self.engine, side, &before, a))
        });
        Ok(to_json(&Event {
            kind: if matches!(status, Status::Replace(_)) { Step::Replace } else { Step::Turn },
            actions: by_seat,
            sides: self.side_of,
            before: codec::position(&self.engine, &before),
            after: codec::position(&self.engine, &self.state),
        }))
    }

    fn outcome(&self) -> Option<GameOutcome> {
        let Status::Over(v) = self.engine.status(&self.state) else { return None };
        let scores = self.side_of.iter().map(|&side| if side == 0 { v } else { 1.0 - v }).collect();
        Some(GameOutcome {
            scores,
            summary: to_json(&Summary {
                party1_score: v,
                sides: self.side_of,
                last: codec::position(&self.engine, &self.state),
            }),
        })
    }
}
