//! A bot's parsed view of one decision: the observation and legal list turned into card sets, so
//! every bot (and the readability predictor) reads a request the same way and rejects a malformed
//! one with a clear error instead of guessing (the plugin kit's one rule: `invalid_params` naming
//! the field), a `legal` list that does not fit the observation included.

use std::fmt::Display;

use serde_json::Value;
use yomi_plugin::misfit;
use yomi_plugin::{ActRequest, ErrorInfo};

use crate::card::{Card, CardSet};
use crate::dvalue::{self, Judgement};
use crate::game::PASS;
use crate::table::Table;

/// One decision as a bot sees it.
#[derive(Debug, Clone)]
pub struct View {
    pub seat: usize,
    pub players: usize,
    pub hand: CardSet,
    pub table: Table,
    pub hand_sizes: Vec<usize>,
    pub passes_left: Vec<u32>,
    /// Seats still holding cards.
    pub active: Vec<bool>,
    /// Legal cards in the order of the legal list.
    pub cards: Vec<Card>,
    /// "pass" is among the legal actions.
    pub can_pass: bool,
}

/// The error for the observation's field `name`, by the plugin kit's one rule.
fn bad(name: &str, message: impl Display) -> ErrorInfo {
    misfit::error(format_args!("observation.{name}"), message)
}

fn field<'a>(obs: &'a Value, name: &str) -> Result<&'a Value, ErrorInfo> {
    obs.get(name).ok_or_else(|| bad(name, "missing"))
}

fn strings<'a>(obs: &'a Value, name: &str) -> Result<Vec<&'a str>, ErrorInfo> {
    field(obs, name)?
        .as_array()
        .ok_or_else(|| bad(name, "not a list"))?
        .iter()
        .map(|v| v.as_str().ok_or_else(|| bad(name, "holds a non-string")))
        .collect()
}

fn numbers(obs: &Value, name: &str) -> Result<Vec<u64>, ErrorInfo> {
    field(obs, name)?
        .as_array()
        .ok_or_else(|| bad(name, "not a list"))?
        .iter()
        .map(|v| v.as_u64().ok_or_else(|| bad(name, "holds a non-number")))
        .collect()
}

/// The actions the observation allows: the hand's cards playable on the table, and a pass when
/// the rules (`out_of_passes`), the passes left or an unplayable hand allow one.
fn allowed(view: &View, must_play_when_out: bool) -> Vec<Action> {
    let playable = CardSet(view.table.playable().0 & view.hand.0);
    let mut allowed: Vec<Action> = playable.iter().map(Action::Card).collect();
    if !must_play_when_out || view.my_passes() > 0 || playable.is_empty() {
        allowed.push(Action::Pass);
    }
    allowed
}

/// One legal action, read so that `"7s"` and `"7S"` are the same card.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Action {
    Card(Card),
    Pass,
}

impl serde::Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Action::Card(c) => s.collect_str(c),
            Action::Pass => s.serialize_str(PASS),
        }
    }
}

impl View {
    pub fn parse(request: &ActRequest) -> Result<View, ErrorInfo> {
        let obs = &request.observation;
        let seat =
            field(obs, "seat")?.as_u64().ok_or_else(|| bad("seat", "not a number"))? as usize;
        let hand =
            CardSet::parse_list(strings(obs, "hand")?).map_err(|e| bad("hand", e.message))?;
        let table = Table(
            CardSet::parse_list(strings(obs, "table")?).map_err(|e| bad("table", e.message))?,
        );
        let hand_sizes: Vec<usize> =
            numbers(obs, "hand_sizes")?.into_iter().map(|n| n as usize).collect();
        let passes_left: Vec<u32> =
            numbers(obs, "passes_left")?.into_iter().map(|n| n as u32).collect();
        let active: Vec<bool> = field(obs, "ranks")?
            .as_array()
            .ok_or_else(|| bad("ranks", "not a list"))?
            .iter()
            .map(Value::is_null)
            .collect();
        let players = hand_sizes.len();
        if seat >= players || passes_left.len() != players || active.len() != players {
            return Err(misfit::error(
                "observation",
                format_args!(
                    "seat {seat} and per-seat lists of {players}, {}, {} entries disagree",
                    passes_left.len(),
                    active.len()
                ),
            ));
        }
        let must_play_when_out = misfit::one_of(
            obs.get("out_of_passes"),
            "observation.out_of_passes",
            &["out", "must_play"],
        )? == "must_play";
        let offered = request
            .legal
            .iter()
            .enumerate()
            .map(|(i, action)| match action.as_str() {
                Some(PASS) => Ok(Action::Pass),
                Some(text) => Card::parse(text)
                    .map(Action::Card)
                    .map_err(|e| misfit::error(format_args!("legal[{i}]"), e.message)),
                None => Err(misfit::error(format_args!("legal[{i}]"), "not a string")),
            })
            .collect::<Result<Vec<Action>, ErrorInfo>>()?;
        let mut view = View {
            seat,
            players,
            hand,
            table,
            hand_sizes,
            passes_left,
            active,
            cards: vec![],
            can_pass: false,
        };
        let allowed = allowed(&view, must_play_when_out);
        misfit::check_legal("legal", &offered, &allowed)?;
        // In the caller's order when it lists them, so a seeded choice among them is the same.
        for action in if offered.is_empty() { &allowed } else { &offered } {
            match action {
                Action::Card(c) => view.cards.push(*c),
                Action::Pass => view.can_pass = true,
            }
        }
        Ok(view)
    }

    pub fn players_in(&self) -> usize {
        self.active.iter().filter(|a| **a).count()
    }

    pub fn my_passes(&self) -> u32 {
        self.passes_left[self.seat]
    }

    /// The most passes any opponent still in the game has left.
    pub fn opponents_passes(&self) -> u32 {
        (0..self.players)
            .filter(|&s| s != self.seat && self.active[s])
            .map(|s| self.passes_left[s])
            .max()
            .unwrap_or(0)
    }

    /// A pass is legal and does not put this player out.
    pub fn can_pass_safely(&self) -> bool {
        self.can_pass && self.my_passes() > 0
    }

    pub fn judge(&self) -> Judgement {
        dvalue::judge(self.table, self.hand, self.players_in())
    }

    /// Own cards further out than `card` on its side (seed table 1's most used feature).
    pub fn own_beyond(&self, card: Card) -> usize {
        CardSet(Table::beyond(card).0 & self.hand.0).len()
    }

    /// Holding `card` stops an opponent: some card beyond it is neither on the table nor ours (the
    /// seed's "止める"). An A/K, or a card with only our own cards beyond, stops nobody.
    pub fn blocks(&self, card: Card) -> bool {
        Table::beyond(card).0 & !self.table.cards().0 & !self.hand.0 != 0
    }

    /// Own cards that follow `card` outward without a gap (the seed's "consecutive" cards).
    pub fn own_run(&self, card: Card) -> usize {
        let step: i8 = if card.rank < 7 { -1 } else { 1 };
        let mut rank = card.rank as i8 + step;
        let mut run = 0;
        while (1..=13).contains(&rank) && self.hand.contains(Card::new(card.suit, rank as u8)) {
            run += 1;
            rank += step;
        }
        run
    }
}
