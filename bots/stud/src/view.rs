//! A bot's reading of an observation: the cards, the money and the legal actions, checked for
//! consistency with the rules (card counts for the turn) so a bad observation is a clear error.

use serde_json::Value;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::cards::{check_distinct, Card};

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
}

fn bad(m: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, format!("inconsistent observation: {m}"))
}

fn field<'a>(v: &'a Value, k: &str) -> Result<&'a Value, ErrorInfo> {
    v.get(k).ok_or_else(|| bad(format!("`{k}` is missing")))
}

fn uint(v: &Value, k: &str) -> Result<u64, ErrorInfo> {
    field(v, k)?.as_u64().ok_or_else(|| bad(format!("`{k}` is not a non-negative integer")))
}

fn cards(v: &Value, k: &str) -> Result<Vec<Card>, ErrorInfo> {
    field(v, k)?
        .as_array()
        .ok_or_else(|| bad(format!("`{k}` is not a list of cards")))?
        .iter()
        .map(|c| {
            c.as_str()
                .ok_or_else(|| bad(format!("`{k}` holds a non-string")))
                .and_then(|s| Card::parse(s).map_err(|e| bad(e.message)))
        })
        .collect()
}

impl View {
    pub fn parse(obs: &Value) -> Result<View, ErrorInfo> {
        let turn = uint(obs, "turn")? as u8;
        if !(1..=7).contains(&turn) {
            return Err(bad(format!("turn {turn} is not 1..7")));
        }
        let reveal = field(obs, "phase")?.as_str() == Some("reveal");
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
            return Err(bad(format!(
                "turn {turn}{} needs {total} cards each with {shown} face up; got {} down + {} up and {} + {} for the opponent",
                if reveal { " (reveal)" } else { "" },
                hole.len(),
                up.len(),
                opp_hole_count,
                opp_up.len()
            )));
        }
        check_distinct(&[hole.clone(), up.clone(), opp_up.clone()].concat())
            .map_err(|e| bad(e.message))?;
        let history = field(obs, "history")?
            .as_array()
            .ok_or_else(|| bad("`history` is not a list".into()))?
            .iter()
            .map(|h| {
                Ok(Past {
                    turn: uint(h, "turn")? as u8,
                    mine: field(h, "who")?.as_str() == Some("me"),
                    act: field(h, "act")?.as_str().unwrap_or_default().to_string(),
                    paid: uint(h, "paid")?,
                    pot_before: uint(h, "pot_before")?,
                })
            })
            .collect::<Result<Vec<_>, ErrorInfo>>()?;
        let legal = field(obs, "legal")?
            .as_array()
            .ok_or_else(|| bad("`legal` is not a list".into()))?
            .iter()
            .filter_map(Self::legal)
            .collect();
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
