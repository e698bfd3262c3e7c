//! Analysis of any position: the matrix of true win rates for every action pair, both sides'
//! equilibrium strategies and the value, actions named as in the game. One entry point for the
//! CLI (`yomi battle analyze`) and for `agent.call("analyze")`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_plugin::typed;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::codec::{self, active_slot, check_hp};
use crate::engine::{State, Status};
use crate::lp;
use crate::payload::Action;
use crate::personality::own_view;
use crate::rules::{parse_parties, preset_parties, Rules, MAX_TURN_LIMIT, TURN_LIMIT};
use crate::solver::Table;

fn bad(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// A position to analyse, as `agent.call` parameters:
/// `{"parties": "thesis" | "delta-experiment" | [[..],[..]], "active": "A,D" | ["A","D"],
///   "hp": [6 values, party order]?, "turn": 1?, "same_type_neutral": false?, "turn_limit": 20?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    #[serde(default = "thesis")]
    pub parties: Value,
    pub active: Value,
    #[serde(default)]
    pub hp: Option<Vec<u64>>,
    #[serde(default)]
    pub turn: Option<u64>,
    #[serde(default)]
    pub same_type_neutral: bool,
    #[serde(default)]
    pub turn_limit: Option<u64>,
}

fn thesis() -> Value {
    Value::from("thesis")
}

impl Query {
    /// Reads `analyze`'s parameters; a misfit is `invalid_params` naming the field's path.
    pub fn from_params(params: &Value) -> Result<Query, ErrorInfo> {
        typed::read(params, "params")
    }

    /// The rules the query names.
    pub fn rules(&self) -> Result<Rules, ErrorInfo> {
        let parties = match &self.parties {
            Value::String(name) => preset_parties(name)?,
            other => parse_parties(other)?,
        };
        let limit = self.turn_limit.unwrap_or(TURN_LIMIT as u64);
        if limit > MAX_TURN_LIMIT as u64 {
            return Err(bad(format!("turn limit {limit} is out of range [2, {MAX_TURN_LIMIT}]")));
        }
        Rules::new(parties, self.same_type_neutral, limit as u8)
    }

    /// The position the query names (full HP and turn 1 unless given).
    pub fn state(&self, rules: &Rules) -> Result<State, ErrorInfo> {
        let names: Vec<String> = match &self.active {
            Value::String(s) => s.split(',').map(|x| x.trim().to_string()).collect(),
            Value::Array(a) => a.iter().map(|x| x.as_str().unwrap_or("").to_string()).collect(),
            _ => vec![],
        };
        if names.len() != 2 {
            return Err(bad(format!(
                "`active` names party 1's and party 2's active Pokémon, like A,D; got {}",
                self.active
            )));
        }
        let active = [active_slot(rules, 0, &names[0])?, active_slot(rules, 1, &names[1])?];
        let mut hp = [0u8; 6];
        match &self.hp {
            None => (0..6).for_each(|k| hp[k] = rules.pokemon(k).hp),
            Some(list) if list.len() == 6 => {
                for (k, h) in list.iter().enumerate() {
                    hp[k] = check_hp(rules, k, *h)?;
                }
            }
            Some(list) => {
                return Err(bad(format!(
                    "`hp` needs six values (A..F in party order), got {}",
                    list.len()
                )))
            }
        }
        let turn = self.turn.unwrap_or(1);
        if turn < 1 || turn >= rules.turn_limit as u64 {
            return Err(bad(format!("turn {turn} is out of range [1, {}]", rules.turn_limit - 1)));
        }
        Ok(State { hp, active, turn: turn as u8 })
    }
}

/// A position's analysis: rows are party 1's actions (moves in order, then switches in party
/// order), columns party 2's.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// Party 1's win rate under both equilibria.
    pub value: f64,
    pub row_strategy: Vec<f64>,
    pub col_strategy: Vec<f64>,
    /// Party 1's true win rate for each pair of actions.
    pub matrix: Vec<Vec<f64>>,
    pub row_actions: Vec<Action>,
    pub col_actions: Vec<Action>,
}

/// The analysis of decision state `s`.
pub fn analyze(table: &Table, s: &State) -> Result<Analysis, ErrorInfo> {
    match table.engine.status(s) {
        Status::Play => {}
        Status::Over(v) => {
            return Err(bad(format!("the game is over in this position (party 1 scores {v})")))
        }
        Status::Replace(side) => {
            return Err(bad(format!(
                "party {}'s active Pokémon has fainted: a replacement is due, not a turn",
                side + 1
            )))
        }
    }
    let m = table.matrix(s);
    let e = lp::solve(&m);
    // Party 2's strategy comes from the solve a `nash` agent in seat 1 makes (its own view: the
    // transposed complement), so both name the same equilibrium when several are optimal.
    let col = lp::solve(&own_view(&m, 1));
    let names = |side: usize| codec::named(&table.engine, side, s, &table.engine.legal(s, side));
    Ok(Analysis {
        value: e.value,
        row_strategy: e.row[..m.rows].to_vec(),
        col_strategy: col.row[..m.cols].to_vec(),
        matrix: (0..m.rows).map(|i| m.w[i][..m.cols].to_vec()).collect(),
        row_actions: names(0),
        col_actions: names(1),
    })
}
