//! The JSON a seat sees and sends: the position (`{"turn", "hp", "active"}` with Pokémon named),
//! the observation around it, and reading both back, which every bot does on each decision.

use serde_json::{json, Value};
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::engine::{Engine, State};
use crate::rules::Rules;

/// A position as JSON: `{"turn": 3, "hp": [[5,5,5],[5,4,4]], "active": ["A", "D"]}`, party 1
/// first.
pub fn state_json(engine: &Engine, s: &State) -> Value {
    let names: Vec<&str> = (0..2)
        .map(|side| engine.rules.parties[side][s.active[side] as usize].name.as_str())
        .collect();
    json!({"turn": s.turn, "hp": [&s.hp[..3], &s.hp[3..]], "active": names})
}

fn bad(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::BotError, message)
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

/// Reads an [`observation`].
pub fn parse_observation(obs: &Value) -> Result<Seen, ErrorInfo> {
    let rules: Rules = serde_json::from_value(obs.get("rules").cloned().unwrap_or(Value::Null))
        .map_err(|e| bad(format!("observation has no valid `rules`: {e}")))?;
    // The same checks as the game's options: a client's rules are never trusted for their size.
    rules.validate().map_err(|e| bad(format!("observation `rules`: {}", e.message)))?;
    let state = parse_state(&rules, obs.get("state").unwrap_or(&Value::Null))
        .map_err(|e| bad(format!("observation `state`: {}", e.message)))?;
    let side = match obs.get("you").and_then(Value::as_u64) {
        Some(s @ 0..=1) => s as usize,
        _ => return Err(bad("observation `you` must be 0 or 1".into())),
    };
    let replacing = obs.get("phase").and_then(Value::as_str) == Some("replace");
    Ok(Seen { rules, state, side, replacing })
}
