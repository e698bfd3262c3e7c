//! Between the payloads ([`crate::payload`]) and the engine's compact state and actions: a
//! position read back and held to the rules it names, the legal actions as a seat sees them, and
//! a seat's action read back for the engine (the referee's check, with why an action is illegal).

use serde::Deserialize;
use serde_json::Value;
use yomi_plugin::misfit;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::engine::{Action, Actions, Engine, State};
use crate::payload::{self, Event, Observation, Phase, Position};
use crate::rules::Rules;

/// The position of `s`.
pub fn position(engine: &Engine, s: &State) -> Position {
    let name = |side: usize| engine.rules.parties[side][s.active[side] as usize].name.clone();
    let hp = |side: usize| std::array::from_fn(|k| s.hp[side * 3 + k] as u64);
    Position { turn: s.turn as u64, hp: [hp(0), hp(1)], active: [name(0), name(1)] }
}

fn bad(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// Reads a [`Position`] back, checking every HP against its Pokémon's maximum.
pub fn state(rules: &Rules, p: &Position) -> Result<State, ErrorInfo> {
    let mut hp = [0u8; 6];
    for (flat, &h) in p.hp.iter().flatten().enumerate() {
        hp[flat] = check_hp(rules, flat, h)?;
    }
    let mut active = [0u8; 2];
    for (side, slot) in active.iter_mut().enumerate() {
        *slot = active_slot(rules, side, &p.active[side])?;
    }
    if p.turn < 1 || p.turn > rules.turn_limit as u64 {
        return Err(bad(format!(
            "position turn {} is out of range [1, {}]",
            p.turn, rules.turn_limit
        )));
    }
    Ok(State { hp, active, turn: p.turn as u8 })
}

/// Checks one HP value against its Pokémon's maximum.
pub fn check_hp(rules: &Rules, flat: usize, hp: u64) -> Result<u8, ErrorInfo> {
    let p = rules.pokemon(flat);
    if hp > p.hp as u64 {
        return Err(bad(format!("{}: HP {hp} is out of range [0, {}]", p.name, p.hp)));
    }
    Ok(hp as u8)
}

/// The party slot of `side`'s Pokémon `name`.
pub fn active_slot(rules: &Rules, side: usize, name: &str) -> Result<u8, ErrorInfo> {
    let flat = rules.find(name)?;
    if flat / 3 != side {
        return Err(bad(format!("`{name}` is not in party {}", side + 1)));
    }
    Ok((flat % 3) as u8)
}

/// What one seat sees of `s`: its side, whether it replaces, the position and the rules.
pub fn observation(engine: &Engine, s: &State, side: usize, replacing: bool) -> Observation {
    Observation {
        you: side,
        phase: if replacing { Phase::Replace } else { Phase::Choose },
        state: position(engine, s),
        rules: engine.rules.clone(),
    }
}

/// An observation read for the engine, held to its own rules: a client's rules are never
/// trusted for their size (the same bounds as the game's options).
pub struct Seen {
    pub state: State,
    pub side: usize,
    pub replacing: bool,
}

/// Reads an [`Observation`] for the engine (see [`Seen`]).
pub fn seen(obs: &Observation) -> Result<Seen, ErrorInfo> {
    obs.rules.validate().map_err(|e| misfit::error("observation.rules", e.message))?;
    let state =
        state(&obs.rules, &obs.state).map_err(|e| misfit::error("observation.state", e.message))?;
    if obs.you > 1 {
        return Err(misfit::error("observation.you", "must be 0 or 1"));
    }
    Ok(Seen { state, side: obs.you, replacing: obs.phase == Phase::Replace })
}

/// The actions `side` may take in `s`, in matrix order: a replacement's switches when
/// `replacing`, else the turn's moves and switches.
pub fn actions(engine: &Engine, s: &State, side: usize, replacing: bool) -> Actions {
    if replacing {
        engine.replacements(s, side)
    } else {
        engine.legal(s, side)
    }
}

/// An engine action as the seat names it.
pub fn action(engine: &Engine, side: usize, s: &State, a: Action) -> payload::Action {
    let party = &engine.rules.parties[side];
    match a {
        Action::Move(m) => payload::Action::Move(party[s.active[side] as usize].moves[m as usize]),
        Action::Switch(k) => payload::Action::Switch(party[k as usize].name.clone()),
    }
}

/// Each of `actions` as the seat names it, in the same order.
pub fn named(engine: &Engine, side: usize, s: &State, actions: &Actions) -> Vec<payload::Action> {
    actions.as_slice().iter().map(|a| action(engine, side, s, *a)).collect()
}

/// The actions a checked observation allows its seat, in matrix order.
pub fn allowed(obs: &Observation) -> Result<Vec<payload::Action>, ErrorInfo> {
    let Seen { state, side, replacing } = seen(obs)?;
    let engine = Engine::new(obs.rules.clone());
    Ok(named(&engine, side, &state, &actions(&engine, &state, side, replacing)))
}

/// The decision of `seat` in a resolved turn, as the engine sees it: its side, the position
/// before the turn and its action, checked to be legal there.
pub fn decision(
    engine: &Engine,
    event: &Event,
    seat: usize,
) -> Result<(usize, State, Action), ErrorInfo> {
    let side = event.sides[seat].min(1);
    let before = state(&engine.rules, &event.before)?;
    let named = event.actions[seat]
        .as_ref()
        .ok_or_else(|| misfit::error(format_args!("event.actions[{seat}]"), "missing"))?;
    let action = engine_action(engine, side, &before, named, &engine.legal(&before, side))?;
    Ok((side, before, action))
}

fn illegal(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::IllegalAction, message)
}

/// Reads a seat's action as JSON for `side` in `s` and checks it is among `legal`
/// (`illegal_action` saying why otherwise).
pub fn read_action(
    engine: &Engine,
    side: usize,
    s: &State,
    value: &Value,
    legal: &Actions,
) -> Result<Action, ErrorInfo> {
    let named = payload::Action::deserialize(value).map_err(|_| {
        illegal(format!("an action is {{\"move\": TYPE}} or {{\"switch\": NAME}}, got {value}"))
    })?;
    engine_action(engine, side, s, &named, legal)
}

/// The engine's action for `side`'s `named` action in `s`, checked to be among `legal`.
pub fn engine_action(
    engine: &Engine,
    side: usize,
    s: &State,
    named: &payload::Action,
    legal: &Actions,
) -> Result<Action, ErrorInfo> {
    let party = &engine.rules.parties[side];
    let active = &party[s.active[side] as usize];
    let action = match named {
        payload::Action::Move(mv) => {
            let m = active.moves.iter().position(|t| t == mv).ok_or_else(|| {
                let known: Vec<&str> = active.moves.iter().map(|t| t.name()).collect();
                illegal(format!(
                    "{} has no move `{}` (its moves: {})",
                    active.name,
                    mv.name(),
                    known.join(", ")
                ))
            })?;
            Action::Move(m as u8)
        }
        payload::Action::Switch(name) => {
            let slot = party
                .iter()
                .position(|p| p.name == *name)
                .ok_or_else(|| illegal(format!("`{name}` is not in this side's party")))?;
            Action::Switch(slot as u8)
        }
    };
    if !legal.as_slice().contains(&action) {
        let why = match action {
            Action::Move(_) if legal.as_slice().iter().all(|a| matches!(a, Action::Switch(_))) => {
                "a replacement is due: only a switch to a Pokémon with HP > 0 is legal".to_string()
            }
            Action::Switch(k) if k == s.active[side] => {
                format!("{} is already active", party[k as usize].name)
            }
            Action::Switch(k) => format!("{} has fainted", party[k as usize].name),
            Action::Move(_) => "not a legal action".to_string(),
        };
        return Err(illegal(format!("{} is illegal: {why}", yomi_plugin::typed::to_json(named))));
    }
    Ok(action)
}

/// The kit reads a battle observation through these: its legal actions and its check against
/// the rules it carries, both the codec's work.
impl yomi_plugin::typed::Observation for Observation {
    type Action = payload::Action;
    type Event = Event;

    /// The seat's legal actions in the engine's order (moves, then switches); none for an
    /// observation that does not pass `check`.
    fn legal(&self) -> Vec<payload::Action> {
        allowed(self).unwrap_or_default()
    }

    fn check(&self) -> Result<(), ErrorInfo> {
        seen(self).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn illegal_actions_are_named() {
        let e = Engine::new(Rules::preset("thesis").unwrap());
        let mut s = e.initial([0, 0]);
        s.hp[1] = 0;
        let legal = e.legal(&s, 0);
        let err = |s: &State, value: Value, legal: &Actions| {
            read_action(&e, 0, s, &value, legal).unwrap_err().message
        };
        assert!(err(&s, json!({"switch": "B"}), &legal).contains("fainted"));
        assert!(err(&s, json!({"switch": "A"}), &legal).contains("already active"));
        assert!(err(&s, json!({"move": "water"}), &legal).contains("no move"));
        assert!(err(&s, json!({"jump": "A"}), &legal).starts_with("an action is"));
        s.hp[0] = 0;
        let replacements = e.replacements(&s, 0);
        assert!(err(&s, json!({"move": "grass"}), &replacements).contains("replacement is due"));
    }
}
