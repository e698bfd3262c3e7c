//! A bot's view of one decision: the game's typed observation ([`crate::payload`]) with the legal
//! list turned into card sets, and the facts about them every bot (and the readability
//! predictor) asks for.

use yomi_plugin::typed;
use yomi_plugin::{ActRequest, ErrorInfo};

use crate::card::{Card, CardSet};
use crate::dvalue::{self, Judgement};
use crate::payload::{Action, Observation};
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

impl View {
    /// The view of a checked decision: `observation`, choosing among `legal`.
    pub fn new(observation: &Observation, legal: &[Action]) -> View {
        let mut view = View {
            seat: observation.seat,
            players: observation.hand_sizes.len(),
            hand: observation.hand,
            table: observation.table,
            hand_sizes: observation.hand_sizes.clone(),
            passes_left: observation.passes_left.clone(),
            active: observation.ranks.iter().map(Option::is_none).collect(),
            cards: vec![],
            can_pass: false,
        };
        for action in legal {
            match action {
                Action::Play(c) => view.cards.push(*c),
                Action::Pass => view.can_pass = true,
            }
        }
        view
    }

    /// The view of a decision request, read and checked by the plugin kit's typed adapter.
    pub fn parse(request: &ActRequest) -> Result<View, ErrorInfo> {
        let (observation, legal) = typed::decision::<Observation>(request)?;
        Ok(View::new(&observation, &legal))
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
