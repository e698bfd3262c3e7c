//! A bot's reading of an observation: the cards, the money and the legal actions, checked for
//! consistency with the rules (card counts for the turn, the legal actions of the interval) so a
//! bad observation is a clear error, by the plugin kit's one rule.

use std::fmt::Display;

use serde_json::{json, Value};
use yomi_plugin::misfit::{self, check_legal};
use yomi_plugin::{ActRequest, ErrorInfo};

use crate::cards::{check_distinct, Card};
use crate::engine::MIN_OPEN;

/// One betting action of this game as the observation reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Past {
    pub turn: u8,
    pub mine: bool,
    pub act: String,
    pub paid: u64,
    pub pot_before: u64,
}

/// The amount range of a legal betting action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legal {
    Open { min: u64, max: u64 },
    Call { amount: u64 },
    Raise { min: u64, max: u64 },
}

/// A parsed observation.
#[derive(Debug, Clone)]
pub struct View {
    pub seat: usize,
    pub position: usize,
    pub game: u64,
    pub turn: u8,
    pub reveal: bool,
    pub pot: u64,
    pub hole: Vec<Card>,
    pub up: Vec<Card>,
    pub opp_up: Vec<Card>,
    pub opp_hole_count: usize,
    pub history: Vec<Past>,
    pub legal: Vec<Legal>,
    /// The observation's legal actions as given (checked: the ones it allows).
    pub offered: Vec<Value>,
}

/// The error for the observation's field `name` (`observation.hole`, `observation.history[2].act`).
fn bad(name: &str, message: impl Display) -> ErrorInfo {
    misfit::error(format_args!("observation.{name}"), message)
}

/// An observation whose fields disagree with each other or with the rules.
fn inconsistent(message: impl Display) -> ErrorInfo {
    misfit::error("observation", message)
}

/// `name` is the field's path in the observation (`history[2].paid`); its last part is the key in
/// `v`.
fn field<'a>(v: &'a Value, name: &str) -> Result<&'a Value, ErrorInfo> {
    v.get(name.rsplit('.').next().unwrap_or(name)).ok_or_else(|| bad(name, "missing"))
}

fn uint(v: &Value, name: &str) -> Result<u64, ErrorInfo> {
    field(v, name)?.as_u64().ok_or_else(|| bad(name, "not a non-negative integer"))
}

fn list<'a>(v: &'a Value, name: &str) -> Result<&'a Vec<Value>, ErrorInfo> {
    field(v, name)?.as_array().ok_or_else(|| bad(name, "not a list"))
}

fn cards(v: &Value, name: &str) -> Result<Vec<Card>, ErrorInfo> {
    list(v, name)?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let at = format!("{name}[{i}]");
            c.as_str()
                .ok_or_else(|| bad(&at, "not a card"))
                .and_then(|s| Card::parse(s).map_err(|e| bad(&at, e.message)))
        })
        .collect()
}

/// The betting actions of this turn so far, in order.
fn this_turn(history: &[Past], turn: u8) -> Vec<&Past> {
    history.iter().filter(|p| p.turn == turn).collect()
}

/// The legal actions the observation allows, as the game writes them: the reveals of the hole
/// cards, or the bets of the interval's stage (read from this turn's history), each with its
/// amounts. A seat that is not the one to bet is refused.
fn allowed(view: &View) -> Result<Vec<Value>, ErrorInfo> {
    if view.reveal {
        return Ok(view.hole.iter().map(|c| json!({"reveal": c.to_string()})).collect());
    }
    let drop = json!({"act": "drop"});
    let acts: Vec<&str> =
        this_turn(&view.history, view.turn).iter().map(|p| p.act.as_str()).collect();
    let (to_act, legal) = match acts.as_slice() {
        [] => (0, vec![drop, json!({"act": "open", "min": MIN_OPEN, "max": view.pot})]),
        ["open"] => {
            let open = this_turn(&view.history, view.turn)[0].paid;
            (
                1,
                vec![
                    drop,
                    json!({"act": "call", "amount": open}),
                    json!({"act": "raise", "min": open + 1, "max": view.pot}),
                ],
            )
        }
        ["open", "raise"] => {
            let past = this_turn(&view.history, view.turn);
            (
                0,
                vec![
                    drop,
                    json!({"act": "call", "amount": past[1].paid.saturating_sub(past[0].paid)}),
                ],
            )
        }
        _ => {
            return Err(bad(
                "history",
                format_args!(
                    "holds `{}` in turn {}, after which no one bets",
                    acts.join(", "),
                    view.turn
                ),
            ))
        }
    };
    if view.position != to_act {
        let so_far =
            if acts.is_empty() { "no bet".to_string() } else { format!("`{}`", acts.join(", ")) };
        return Err(inconsistent(format_args!(
            "after {so_far} in turn {} position {to_act} bets, not position {}",
            view.turn, view.position
        )));
    }
    Ok(legal)
}

impl View {
    /// Reads a decision request: the observation (checked against the rules), and its legal
    /// actions, which must be the ones the observation allows; the request's `legal`, when given,
    /// must list them too.
    pub fn read(request: &ActRequest) -> Result<View, ErrorInfo> {
        let view = View::parse(&request.observation)?;
        let allowed = allowed(&view)?;
        if view.offered.is_empty() {
            return Err(bad("legal", "empty; a seat asked to act has legal actions"));
        }
        check_legal("observation.legal", &view.offered, &allowed)?;
        check_legal("legal", &request.legal, &view.offered)?;
        Ok(view)
    }

    fn parse(obs: &Value) -> Result<View, ErrorInfo> {
        let turn = uint(obs, "turn")?;
        if !(1..=7).contains(&turn) {
            return Err(bad("turn", format_args!("{turn} is not 1..7")));
        }
        let turn = turn as u8;
        let reveal =
            misfit::one_of(obs.get("phase"), "observation.phase", &["bet", "reveal"])? == "reveal";
        if reveal && turn < 6 {
            return Err(inconsistent(format_args!(
                "a reveal comes at turns 6 and 7 only, not at turn {turn}"
            )));
        }
        let (hole, up, opp_up) = (cards(obs, "hole")?, cards(obs, "up")?, cards(obs, "opp_up")?);
        let opp_hole_count = uint(obs, "opp_hole_count")? as usize;
        // Cards each player holds in this interval, and how many of them are face up.
        let total = if turn <= 4 { turn as usize + 2 } else { 7 };
        let shown = match turn {
            1..=4 => turn as usize,
            5 => 4,
            t => 4 + (t as usize - 5) - usize::from(reveal),
        };
        if hole.len() + up.len() != total
            || opp_up.len() + opp_hole_count != total
            || up.len() != shown
            || opp_up.len() != shown
        {
            return Err(inconsistent(format!(
                "turn {turn}{} needs {total} cards each with {shown} face up; got {} down + {} up and {} + {} for the opponent",
                if reveal { " (reveal)" } else { "" },
                hole.len(),
                up.len(),
                opp_hole_count,
                opp_up.len()
            )));
        }
        check_distinct(&[hole.clone(), up.clone(), opp_up.clone()].concat())
            .map_err(|e| inconsistent(e.message))?;
        let history = list(obs, "history")?
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let at = |k: &str| format!("history[{i}].{k}");
                let act = misfit::one_of(
                    h.get("act"),
                    &format!("observation.{}", at("act")),
                    &["drop", "open", "call", "raise"],
                )?;
                let who = misfit::one_of(
                    h.get("who"),
                    &format!("observation.{}", at("who")),
                    &["me", "opp"],
                )?;
                Ok(Past {
                    turn: uint(h, &at("turn"))? as u8,
                    mine: who == "me",
                    act: act.to_string(),
                    paid: uint(h, &at("paid"))?,
                    pot_before: uint(h, &at("pot_before"))?,
                })
            })
            .collect::<Result<Vec<_>, ErrorInfo>>()?;
        let offered = list(obs, "legal")?.clone();
        let legal = offered.iter().filter_map(Self::legal).collect();
        Ok(View {
            seat: uint(obs, "seat")? as usize,
            position: uint(obs, "position")? as usize,
            game: uint(obs, "game")?,
            turn,
            reveal,
            pot: uint(obs, "pot")?,
            hole,
            up,
            opp_up,
            opp_hole_count,
            history,
            legal,
            offered,
        })
    }

    fn legal(v: &Value) -> Option<Legal> {
        let n = |k: &str| v.get(k).and_then(Value::as_u64);
        match v.get("act")?.as_str()? {
            "open" => Some(Legal::Open { min: n("min")?, max: n("max")? }),
            "call" => Some(Legal::Call { amount: n("amount")? }),
            "raise" => Some(Legal::Raise { min: n("min")?, max: n("max")? }),
            _ => None,
        }
    }

    /// All my cards.
    pub fn own(&self) -> Vec<Card> {
        [self.hole.clone(), self.up.clone()].concat()
    }

    /// True when I answer a raise (only call or drop remain).
    pub fn facing_raise(&self) -> bool {
        !self.reveal
            && !self.legal.iter().any(|l| matches!(l, Legal::Open { .. } | Legal::Raise { .. }))
    }

    /// The betting bounds `(lower, upper)` of my amount decision: an open's range, or from the
    /// call amount to the raise maximum.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        let mut lower = None;
        let mut upper = None;
        for l in &self.legal {
            match *l {
                Legal::Open { min, max } => return Some((min, max)),
                Legal::Call { amount } => lower = Some(amount),
                Legal::Raise { max, .. } => upper = Some(max),
            }
        }
        Some((lower?, upper.unwrap_or(lower?)))
    }
}

/// The action JSON for a bet of `amount` chips within `bounds()`: an open, a call (the amount
/// equals the call) or a raise.
pub fn bet_action(view: &View, amount: u64) -> serde_json::Value {
    use serde_json::json;
    for l in &view.legal {
        match *l {
            Legal::Open { .. } => return json!({"act": "open", "amount": amount}),
            Legal::Call { amount: due } if amount <= due || view.facing_raise() => {
                return json!({"act": "call"})
            }
            _ => {}
        }
    }
    json!({"act": "raise", "amount": amount})
}
