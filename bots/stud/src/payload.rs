//! Stud's payloads, defined once: the referee ([`crate::game`]) writes them and every bot of the
//! game reads them.
//!
//! A request flows so: the host hands a bot the JSON the referee wrote from [`Observation`]; the
//! kit's typed adapter (`yomi_plugin::typed`) reads it back (a card's own words, a typo in a word
//! named with its field's path), [`Observation::check`] holds it to the rules (card counts for the
//! turn, the seat to bet, the observation's `legal` equal to what its history allows, by
//! [`bets`], the referee's own list), and the adapter checks the request's `legal` against it.
//! Every bot of the game is a `TypedAgent` that sees the observation as a
//! [`View`](crate::view::View) and answers an [`Action`]: a reveal, or a bet with its amount.
//! The referee reads each seat's answer into an [`Action`] once (a misfit named by its field) and
//! holds it to the interval ([`Action::to_bet`], [`Action::to_reveal`]); the bots read the
//! [`Event`]s it writes back as that type. The catalog publishes the three types as JSON Schema.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};
use yomi_plugin::misfit::{self, rule};
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::cards::{check_distinct, Card};
use crate::engine::{Action as Bet, Stage, MIN_OPEN};

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let text = <Cow<'de, str>>::deserialize(d).map_err(|_| rule("not a card"))?;
        Card::parse(&text).map_err(|e| rule(e.message))
    }
}

impl JsonSchema for Card {
    fn schema_name() -> Cow<'static, str> {
        "Card".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^[2-9TJQKAtjqka][cdhsCDHS]$",
            "description": "rank then suit: `As`, `Td`, `7h`"})
    }
}

/// Words read by the kit's rule, so a typo is refused naming its field.
macro_rules! words {
    ($ty:ident { $($variant:ident = $word:literal),+ }) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                misfit::word(d, &[$(($word, $ty::$variant)),+])
            }
        }

        impl $ty {
            /// The word the observation writes.
            pub fn word(self) -> &'static str {
                match self {
                    $($ty::$variant => $word),+
                }
            }
        }
    };
}

/// The kind of an interval: betting, or turning a hole card up (turns 6 and 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Bet,
    Reveal,
}
words!(Phase { Bet = "bet", Reveal = "reveal" });

/// Whose action a history entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Who {
    Me,
    Opp,
}
words!(Who { Me = "me", Opp = "opp" });

/// A betting action's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Act {
    Drop,
    Open,
    Call,
    Raise,
    /// An answer in the paper's own notation: an open, a call or a raise by its amount (never in
    /// a legal list, a history or an event).
    Bet,
}
words!(Act { Drop = "drop", Open = "open", Call = "call", Raise = "raise", Bet = "bet" });

impl From<Bet> for Act {
    fn from(action: Bet) -> Act {
        match action {
            Bet::Drop => Act::Drop,
            Bet::Open(_) => Act::Open,
            Bet::Call => Act::Call,
            Bet::Raise(_) => Act::Raise,
        }
    }
}

/// One action (fields in name order, so an error quoting it reads as the wire does). In a legal list a bet gives its range (`min`..`max`, or a call's `amount`); a
/// bot's answer gives the amount it bets (an open's or a raise's; a call or a drop none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Action {
    /// The hole card to turn up: `{"reveal": "As"}`.
    Reveal { reveal: Card },
    /// A bet: `{"act": "open", "min": 1, "max": 10}` in a legal list, `{"act": "open",
    /// "amount": 7}` as an answer.
    Bet {
        act: Act,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u64>,
    },
}

/// An action's fields as read, before they are told apart (so a misfit names its field).
#[derive(Deserialize)]
#[serde(expecting = "an object with `act` (open, call, raise, bet, drop) or `reveal`")]
struct Fields {
    #[serde(default)]
    reveal: Option<Card>,
    #[serde(default)]
    act: Option<Act>,
    #[serde(default, deserialize_with = "chips")]
    amount: Option<u64>,
    #[serde(default, deserialize_with = "chips")]
    max: Option<u64>,
    #[serde(default, deserialize_with = "chips")]
    min: Option<u64>,
}

/// An amount of chips, when given (`null` is none).
fn chips<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Null => Ok(None),
        v => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| rule(format_args!("must be a non-negative integer, not {v}"))),
    }
}

impl<'de> Deserialize<'de> for Action {
    /// A reveal has `reveal`, a bet `act`; one of the two, not both.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        let Fields { reveal, act, amount, max, min } = Fields::deserialize(d)?;
        match (reveal, act) {
            (Some(reveal), None) => Ok(Action::Reveal { reveal }),
            (None, Some(act)) => Ok(Action::Bet { act, amount, max, min }),
            (Some(_), Some(_)) => {
                Err(rule("has both `act` and `reveal`; an action is one of them"))
            }
            (None, None) => Err(rule(
                "needs `act` (open, call, raise, bet, drop) or `reveal` (a face-down card)",
            )),
        }
    }
}

fn illegal(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::IllegalAction, message)
}

impl Action {
    /// The engine's bet this answer makes in `stage`: a call's amount, when given, is the one due;
    /// `bet` (the paper's notation) is an open, a call or a raise by its amount.
    pub fn to_bet(self, stage: Stage) -> Result<Bet, ErrorInfo> {
        let Action::Bet { act, amount, .. } = self else {
            return Err(illegal(
                "a betting action is an object with `act` (open, call, raise, bet, drop)",
            ));
        };
        let need = || amount.ok_or_else(|| illegal(format!("`{}` needs an `amount`", act.word())));
        Ok(match act {
            Act::Drop => Bet::Drop,
            Act::Open => Bet::Open(need()?),
            Act::Raise => Bet::Raise(need()?),
            Act::Call => {
                if let Some(a) = amount {
                    let due = match stage {
                        Stage::Respond { open } => open,
                        Stage::FaceRaise { open, raise } => raise - open,
                        Stage::Open => {
                            return Err(illegal("nothing to call: the interval is not open yet"))
                        }
                    };
                    if a != due {
                        return Err(illegal(format!("a call costs exactly {due}, not {a}")));
                    }
                }
                Bet::Call
            }
            Act::Bet => {
                let a = need()?;
                match stage {
                    Stage::Open => Bet::Open(a),
                    Stage::Respond { open } if a == open => Bet::Call,
                    Stage::Respond { .. } => Bet::Raise(a),
                    Stage::FaceRaise { open, raise } if a == raise - open => Bet::Call,
                    Stage::FaceRaise { .. } => {
                        return Err(illegal(
                            "after a raise only a call of the difference or a drop is allowed",
                        ))
                    }
                }
            }
        })
    }

    /// The hole card this answer turns up.
    pub fn to_reveal(self) -> Result<Card, ErrorInfo> {
        match self {
            Action::Reveal { reveal } => Ok(reveal),
            Action::Bet { .. } => {
                Err(illegal("a reveal is {\"reveal\": \"<one of your face-down cards>\"}"))
            }
        }
    }

    /// A bet of `act` with `amount` (none for a drop or a call).
    pub fn bet(act: Act, amount: Option<u64>) -> Action {
        Action::Bet { act, amount, min: None, max: None }
    }

    /// A legal bet with its range.
    fn range(act: Act, min: u64, max: u64) -> Action {
        Action::Bet { act, amount: None, min: Some(min), max: Some(max) }
    }
}

/// The legal bets of an interval's `stage` with `pot` chips in the pot (drop first): the
/// referee's list and the one an observation must carry.
pub fn bets(stage: Stage, pot: u64) -> Vec<Action> {
    let drop = Action::bet(Act::Drop, None);
    match stage {
        Stage::Open => vec![drop, Action::range(Act::Open, MIN_OPEN, pot)],
        Stage::Respond { open } => {
            vec![drop, Action::bet(Act::Call, Some(open)), Action::range(Act::Raise, open + 1, pot)]
        }
        Stage::FaceRaise { open, raise } => vec![drop, Action::bet(Act::Call, Some(raise - open))],
    }
}

/// One betting action of this game as the observation reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Past {
    #[serde(deserialize_with = "turn")]
    pub turn: u8,
    pub who: Who,
    #[serde(deserialize_with = "played")]
    pub act: Act,
    #[serde(deserialize_with = "misfit::natural")]
    pub paid: u64,
    #[serde(deserialize_with = "misfit::natural")]
    pub pot_before: u64,
}

/// What a seat is shown: its own cards, the opponent's face-up cards, the money, this game's
/// betting history and its legal actions. A client may leave out `games`, `paid` and `chips`,
/// which the bots do not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    #[serde(deserialize_with = "seat")]
    pub seat: usize,
    /// The seat's place in the betting order (0 acts first).
    #[serde(deserialize_with = "seat")]
    pub position: usize,
    /// The game of the session, from 1.
    #[serde(deserialize_with = "misfit::natural")]
    pub game: u64,
    /// Games in the session.
    #[serde(default)]
    pub games: u64,
    /// The interval, 1..=7.
    #[serde(deserialize_with = "turn")]
    pub turn: u8,
    pub phase: Phase,
    #[serde(deserialize_with = "misfit::natural")]
    pub pot: u64,
    /// Chips put in this game, mine then the opponent's.
    #[serde(default)]
    pub paid: [u64; 2],
    /// Holdings, mine then the opponent's.
    #[serde(default)]
    pub chips: [i64; 2],
    pub hole: Vec<Card>,
    pub up: Vec<Card>,
    pub opp_up: Vec<Card>,
    #[serde(deserialize_with = "count")]
    pub opp_hole_count: usize,
    pub history: Vec<Past>,
    pub legal: Vec<Action>,
}

/// An act as the referee reports it: `bet` is an answer's word only.
fn played<'de, D: Deserializer<'de>>(d: D) -> Result<Act, D::Error> {
    match Act::deserialize(d)? {
        Act::Bet => {
            Err(rule("`bet` is an answer's word; a bet made is a drop, open, call or raise"))
        }
        act => Ok(act),
    }
}

fn played_some<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Act>, D::Error> {
    played(d).map(Some)
}

fn turn<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    match misfit::natural(d)? {
        t @ 1..=7 => Ok(t as u8),
        t => Err(rule(format_args!("{t} is not 1..7"))),
    }
}

fn seat<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    match misfit::natural(d)? {
        s @ 0..=1 => Ok(s as usize),
        s => Err(rule(format_args!("{s} is not 0 or 1"))),
    }
}

fn count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    match misfit::natural(d)? {
        n @ 0..=7 => Ok(n as usize),
        n => Err(rule(format_args!("{n} is more than 7"))),
    }
}

/// What a resolved turn reports: a bet or the two reveals, everyone's face-up cards, and at a
/// game's end how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    pub game: u64,
    pub turn: u8,
    /// `bet` or `reveal`.
    pub kind: Phase,
    /// The seat that bet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "played_some")]
    pub act: Option<Act>,
    /// Chips the bet put in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paid: Option<u64>,
    /// The pot after the bet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pot: Option<u64>,
    /// The cards turned up, by seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<Vec<Card>>,
    /// Everyone's face-up cards, by seat.
    pub up: Vec<Vec<Card>>,
    /// How the game ended, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<End>,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    Drop,
    Showdown,
}
words!(Ending { Drop = "drop", Showdown = "showdown" });

/// A finished game's report, by seat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct End {
    pub ending: Ending,
    /// The seat that won the pot; none for a split.
    pub winner: Option<usize>,
    /// Each seat's gain in this game.
    pub net: [i64; 2],
    /// Each seat's holdings after it.
    pub chips: [i64; 2],
    pub pot: u64,
    pub turn: u8,
    /// Both seats' seven cards, when shown (a showdown, or the game's `disclose`).
    pub hands: Option<Vec<Vec<Card>>>,
}

/// A session's summary at its end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Each seat's holdings.
    pub chips: [i64; 2],
    /// Each seat's gain over the start.
    pub net: [i64; 2],
    /// Games played.
    pub games: usize,
}

impl Event {
    /// The event of a `kind` of turn, before its details and the face-up cards.
    pub fn new(game: u64, turn: u8, kind: Phase) -> Event {
        let (seat, act, paid, pot, revealed, end) = (None, None, None, None, None, None);
        Event { game, turn, kind, seat, act, paid, pot, revealed, up: vec![], end }
    }
}

impl Observation {
    /// The betting actions of this turn so far, in order.
    fn this_turn(&self) -> impl Iterator<Item = &Past> {
        self.history.iter().filter(move |p| p.turn == self.turn)
    }

    /// Cards each player holds in this interval, and how many of them are face up.
    fn cards_now(&self) -> (usize, usize) {
        let reveal = usize::from(self.phase == Phase::Reveal);
        let total = if self.turn <= 4 { self.turn as usize + 2 } else { 7 };
        let shown = match self.turn {
            t @ 1..=4 => t as usize,
            5 => 4,
            t => 4 + (t as usize - 5) - reveal,
        };
        (total, shown)
    }

    /// The actions the observation's cards and history allow, as the referee lists them: the
    /// reveals of the hole cards, or the bets of the interval's stage for the position to bet.
    fn allowed(&self) -> Result<Vec<Action>, ErrorInfo> {
        if self.phase == Phase::Reveal {
            return Ok(self.hole.iter().map(|&reveal| Action::Reveal { reveal }).collect());
        }
        let past: Vec<&Past> = self.this_turn().collect();
        let acts: Vec<Act> = past.iter().map(|p| p.act).collect();
        let (to_act, stage) = match acts.as_slice() {
            [] => (0, Stage::Open),
            [Act::Open] => (1, Stage::Respond { open: past[0].paid }),
            [Act::Open, Act::Raise] => {
                (0, Stage::FaceRaise { open: past[0].paid, raise: past[1].paid })
            }
            _ => {
                return Err(misfit::error(
                    "observation.history",
                    format_args!(
                        "holds `{}` in turn {}, after which no one bets",
                        words(&acts),
                        self.turn
                    ),
                ))
            }
        };
        if self.position != to_act {
            let so_far =
                if acts.is_empty() { "no bet".to_string() } else { format!("`{}`", words(&acts)) };
            return Err(misfit::error(
                "observation",
                format_args!(
                    "after {so_far} in turn {} position {to_act} bets, not position {}",
                    self.turn, self.position
                ),
            ));
        }
        Ok(bets(stage, self.pot))
    }
}

/// Acts as the observation writes them, comma-separated.
fn words(acts: &[Act]) -> String {
    acts.iter().map(|a| a.word()).collect::<Vec<_>>().join(", ")
}

impl yomi_plugin::typed::Observation for Observation {
    type Action = Action;
    type Event = Event;

    /// The observation's own list (checked by [`check`](Self::check) to be what it allows).
    fn legal(&self) -> Vec<Action> {
        self.legal.clone()
    }

    /// The cards fit the turn and are distinct, a reveal comes at turns 6 and 7, the history
    /// leaves this position to bet, and `legal` is what all that allows.
    fn check(&self) -> Result<(), ErrorInfo> {
        let reveal = self.phase == Phase::Reveal;
        if reveal && self.turn < 6 {
            return Err(misfit::error(
                "observation",
                format_args!("a reveal comes at turns 6 and 7 only, not at turn {}", self.turn),
            ));
        }
        let (total, shown) = self.cards_now();
        let (hole, up, opp_up) = (self.hole.len(), self.up.len(), self.opp_up.len());
        if hole + up != total
            || opp_up + self.opp_hole_count != total
            || up != shown
            || opp_up != shown
        {
            return Err(misfit::error("observation", format_args!(
                "turn {}{} needs {total} cards each with {shown} face up; got {hole} down + {up} up and {} + {opp_up} for the opponent",
                self.turn,
                if reveal { " (reveal)" } else { "" },
                self.opp_hole_count,
            )));
        }
        check_distinct(&[self.hole.clone(), self.up.clone(), self.opp_up.clone()].concat())
            .map_err(|e| misfit::error("observation", e.message))?;
        let allowed = self.allowed()?;
        if self.legal.is_empty() {
            return Err(misfit::error(
                "observation.legal",
                "empty; a seat asked to act has legal actions",
            ));
        }
        misfit::check_legal("observation.legal", &self.legal, &allowed)
    }
}
