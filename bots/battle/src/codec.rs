//! The JSON a seat sees and sends: the position (`{"turn", "hp", "active"}` with Pokémon named),
//! the observation around it, and reading both back, which every bot does on each decision.
//! A request that does not fit is refused by the plugin kit's one rule ([`misfit`]).

use serde_json::{json, Value};
use yomi_plugin::misfit;
use yomi_plugin::{ActRequest, ErrorCode, ErrorInfo};

use crate::engine::{Actions, Engine, State};
use crate::rules::{preset_parties, Rules};

/// A position as JSON: `{"turn": 3, "hp": [[5,5,5],[5,4,4]], "active": ["A", "D"]}`, party 1
/// first.
pub fn state_json(engine: &Engine, s: &State) -> Value {
    let names: Vec<&str> = (0..2)
        .map(|side| engine.rules.parties[side][s.active[side] as usize].name.as_str())
        .collect();
    json!({"turn": s.turn, "hp": [&s.hp[..3], &s.hp[3..]], "active": names})
}

fn bad(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// Reads [`state_json`] back, checking every HP against its Pokémon's maximum.
pub fn parse_state(rules: &Rules, value: &Value) -> Result<State, ErrorInfo> {
    let turn = value
        .get("turn")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad("position has no integer `turn`".into()))?;
    let hp = value
        .get("hp")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .ok_or_else(|| bad("position `hp` must be two arrays of three".into()))?;
    let mut flat = [0u8; 6];
    for side in 0..2 {
        let list = hp[side]
            .as_array()
            .filter(|a| a.len() == 3)
            .ok_or_else(|| bad("position `hp` must be two arrays of three".into()))?;
        for (k, h) in list.iter().enumerate() {
            let h = h.as_u64().ok_or_else(|| bad(format!("HP {h} is not an integer")))?;
            flat[side * 3 + k] = check_hp(rules, side * 3 + k, h)?;
        }
    }
    let active = value
        .get("active")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .ok_or_else(|| bad("position `active` must name two Pokémon".into()))?;
    let mut slots = [0u8; 2];
    for side in 0..2 {
        let name = active[side]
            .as_str()
            .ok_or_else(|| bad("position `active` must name two Pokémon".into()))?;
        slots[side] = active_slot(rules, side, name)?;
    }
    if turn < 1 || turn > rules.turn_limit as u64 {
        return Err(bad(format!("position turn {turn} is out of range [1, {}]", rules.turn_limit)));
    }
    Ok(State { hp: flat, active: slots, turn: turn as u8 })
}

/// Checks one HP value against its Pokémon's maximum.
pub fn check_hp(rules: &Rules, flat: usize, hp: u64) -> Result<u8, ErrorInfo> {
    let p = rules.pokemon(flat);
    if hp > p.hp as u64 {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("{}: HP {hp} is out of range [0, {}]", p.name, p.hp),
        ));
    }
    Ok(hp as u8)
}

/// The party slot of `side`'s Pokémon `name`.
pub fn active_slot(rules: &Rules, side: usize, name: &str) -> Result<u8, ErrorInfo> {
    let flat = rules.find(name)?;
    if flat / 3 != side {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("`{name}` is not in party {}", side + 1),
        ));
    }
    Ok((flat % 3) as u8)
}

/// What one seat sees: everything (the game has no hidden information), its own side, the rules
/// (parties with maximum HP, speeds and moves) and whether this is a turn or a replacement.
pub fn observation(engine: &Engine, s: &State, side: usize, replacing: bool) -> Value {
    json!({
        "you": side,
        "phase": if replacing { "replace" } else { "choose" },
        "state": state_json(engine, s),
        "rules": engine.rules,
    })
}

/// A decoded observation.
pub struct Seen {
    pub rules: Rules,
    pub state: State,
    pub side: usize,
    pub replacing: bool,
}

/// Reads an [`observation`]. Its `rules.parties` may name a party set as the game option does
/// (`"parties": "thesis"`) instead of listing six Pokémon.
pub fn parse_observation(obs: &Value) -> Result<Seen, ErrorInfo> {
    let rules = parse_rules(obs.get("rules"))?;
    let state = parse_state(&rules, obs.get("state").unwrap_or(&Value::Null))
        .map_err(|e| misfit::error("observation.state", e.message))?;
    let side = match obs.get("you").and_then(Value::as_u64) {
        Some(s @ 0..=1) => s as usize,
        _ => return Err(misfit::error("observation.you", "must be 0 or 1")),
    };
    let phase = misfit::one_of(obs.get("phase"), "observation.phase", &["choose", "replace"])?;
    Ok(Seen { rules, state, side, replacing: phase == "replace" })
}

/// Reads an observation's `rules`, with the same checks as the game's options: a client's rules
/// are never trusted for their size.
fn parse_rules(value: Option<&Value>) -> Result<Rules, ErrorInfo> {
    let field = "observation.rules";
    let mut value = value.cloned().ok_or_else(|| misfit::error(field, "missing"))?;
    if let Some(name) = value.get("parties").and_then(Value::as_str) {
        let parties = preset_parties(name)
            .map_err(|e| misfit::error("observation.rules.parties", e.message))?;
        value["parties"] = json!(parties);
    }
    let rules: Rules = serde_json::from_value(value)
        .map_err(|e| misfit::error(field, format_args!("does not fit: {e}")))?;
    rules.validate().map_err(|e| misfit::error(field, e.message))?;
    Ok(rules)
}

/// A decision request read and checked: its observation, and the actions the observation allows
/// its side (in matrix order) with their JSON, which the request's `legal`, when given, must list
/// exactly.
pub struct Request {
    pub seen: Seen,
    pub actions: Actions,
    pub allowed: Vec<Value>,
}

/// Reads and checks a decision request (see [`Request`]).
pub fn read_request(request: &ActRequest) -> Result<Request, ErrorInfo> {
    let seen = parse_observation(&request.observation)?;
    let engine = Engine::new(seen.rules.clone());
    let actions = if seen.replacing {
        engine.replacements(&seen.state, seen.side)
    } else {
        engine.legal(&seen.state, seen.side)
    };
    let allowed: Vec<Value> =
        actions.as_slice().iter().map(|a| engine.action_json(seen.side, &seen.state, *a)).collect();
    misfit::check_legal("legal", &request.legal, &allowed)?;
    Ok(Request { seen, actions, allowed })
}
