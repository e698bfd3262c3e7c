//! The Sevens referee: deals, hands each player in turn only their own hand (plus the table, hand
//! sizes and pass counts of all), checks every action, and ranks the players as they finish.
//!
//! Ranks: the first to empty their hand is 1st, the next 2nd, ...; a player who goes out on passes
//! takes the worst rank still free; when one player is left holding cards they take the last free
//! rank and the game ends. Score of rank r among n players: (n - r) / (n - 1), so 1st = 1, last = 0.

use rand::seq::SliceRandom;
use serde_json::Value;
use yomi_plugin::rng::seeded;
use yomi_plugin::typed::{to_json, Observation as _};
use yomi_plugin::{Decision, ErrorCode, ErrorInfo, Game, GameOutcome};

use crate::card::{Card, CardSet, SUITS, SUIT_NAMES};
use crate::dvalue;
use crate::payload::{Action, Event, Observation, Summary, PASS};
use crate::rules::{FirstPlayer, OutOfPasses, Rules};
use crate::table::Table;

/// A game in progress.
#[derive(Debug, Clone)]
pub struct Sevens {
    rules: Rules,
    hands: Vec<CardSet>,
    table: Table,
    passes_used: Vec<u32>,
    ranks: Vec<Option<usize>>,
    went_out: Vec<bool>,
    turn: usize,
    moves: u32,
    dealer: usize,
    first: usize,
    start_hand_d: Vec<u32>,
    next_best: usize,
    next_worst: usize,
}

fn illegal(seat: usize, message: impl std::fmt::Display) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::IllegalAction, format!("seat {seat}: {message}"))
}

impl Sevens {
    /// Deals a new game from `seed`.
    pub fn new(rules: Rules, seed: u64) -> Sevens {
        let dealer = rules.dealer.unwrap_or((seed % rules.players as u64) as usize);
        Sevens::dealt(rules, dealer, Sevens::shuffled(rules, dealer, seed))
    }

    /// The hands a shuffle from `seed` deals, one card at a time from the seat after `dealer`.
    pub fn shuffled(rules: Rules, dealer: usize, seed: u64) -> Vec<CardSet> {
        let n = rules.players;
        let mut deck: Vec<Card> = (0..52).map(Card::from_index).collect();
        if rules.first == FirstPlayer::AfterDealer {
            deck.retain(|c| c.rank != 7);
        }
        deck.shuffle(&mut seeded(seed));
        let mut hands = vec![CardSet::EMPTY; n];
        for (i, card) in deck.into_iter().enumerate() {
            hands[(dealer + 1 + i) % n].insert(card);
        }
        hands
    }

    /// A new game from dealt hands (the 7s among them go to the table).
    pub fn dealt(rules: Rules, dealer: usize, mut hands: Vec<CardSet>) -> Sevens {
        let n = rules.players;
        let first = match rules.first {
            FirstPlayer::AfterDealer => (dealer + 1) % n,
            FirstPlayer::SevenOfDiamonds => {
                let holder =
                    hands.iter().position(|h| h.contains(Card::new(2, 7))).unwrap_or(dealer);
                (holder + 1) % n
            }
        };
        for h in &mut hands {
            *h = CardSet(h.0 & !CardSet::sevens().0);
        }
        let table = Table::default();
        let start_hand_d = hands.iter().map(|h| dvalue::total(table, *h)).collect();
        Sevens {
            rules,
            hands,
            table,
            passes_used: vec![0; n],
            ranks: vec![None; n],
            went_out: vec![false; n],
            turn: first,
            moves: 0,
            dealer,
            first,
            start_hand_d,
            next_best: 1,
            next_worst: n,
        }
    }

    /// Deals a game with the given hands (for tests and worked examples); `first` starts.
    pub fn with_hands(rules: Rules, hands: Vec<CardSet>, table: Table, first: usize) -> Sevens {
        let mut game = Sevens::new(rules, 0);
        game.start_hand_d = hands.iter().map(|h| dvalue::total(table, *h)).collect();
        game.hands = hands;
        game.table = table;
        game.turn = first;
        game.first = first;
        game
    }

    pub fn is_over(&self) -> bool {
        self.ranks.iter().all(Option::is_some)
    }

    pub fn hands(&self) -> &[CardSet] {
        &self.hands
    }

    fn passes_left(&self, seat: usize) -> u32 {
        self.rules.pass_limit.saturating_sub(self.passes_used[seat])
    }

    /// Cards `seat` could play now.
    fn playable(&self, seat: usize) -> CardSet {
        CardSet(self.table.playable().0 & self.hands[seat].0)
    }

    fn may_pass(&self, seat: usize) -> bool {
        self.rules.out_of_passes == OutOfPasses::Out
            || self.passes_left(seat) > 0
            || self.playable(seat).is_empty()
    }

    /// What `seat` may see: its own hand, and public facts about everyone.
    pub fn observation(&self, seat: usize) -> Observation {
        let n = self.rules.players;
        Observation {
            seat,
            players: n,
            moves: self.moves,
            hand: self.hands[seat],
            table: self.table,
            ends: (0..4)
                .map(|s| {
                    let (lo, hi) = self.table.ends(s);
                    (SUITS[s as usize], [lo, hi])
                })
                .collect(),
            hand_sizes: self.hands.iter().map(|h| h.len()).collect(),
            passes_used: self.passes_used.clone(),
            passes_left: (0..n).map(|s| self.passes_left(s)).collect(),
            pass_limit: self.rules.pass_limit,
            out_of_passes: self.rules.out_of_passes,
            ranks: self.ranks.clone(),
            went_out: self.went_out.clone(),
        }
    }

    /// Checks one action of `seat` and returns the card (None for a pass).
    fn check(&self, seat: usize, action: &Value) -> Result<Option<Card>, ErrorInfo> {
        if self.is_over() {
            return Err(illegal(seat, "the game is over"));
        }
        if seat != self.turn {
            return Err(illegal(seat, format!("it is seat {}'s turn, not yours", self.turn)));
        }
        let text = action.as_str().ok_or_else(|| {
            illegal(
                seat,
                format!("an action is a card string like \"7S\" or \"pass\", got {action}"),
            )
        })?;
        if text == PASS {
            if !self.may_pass(seat) {
                let cards = self.playable(seat).names().join(", ");
                return Err(illegal(
                    seat,
                    format!("no passes left (limit {}) and the rules require playing a playable card ({cards})", self.rules.pass_limit),
                ));
            }
            return Ok(None);
        }
        let card = Card::parse(text).map_err(|e| illegal(seat, e.message))?;
        if !self.hands[seat].contains(card) {
            return Err(illegal(seat, format!("{card} is not in your hand")));
        }
        if !self.table.playable().contains(card) {
            let (lo, hi) = self.table.ends(card.suit);
            let next: Vec<String> = self
                .table
                .playable()
                .iter()
                .filter(|c| c.suit == card.suit)
                .map(|c| c.to_string())
                .collect();
            return Err(illegal(
                seat,
                format!(
                    "{card} is not next to the table: the {} row runs {}..{}, so only {} can be played there",
                    SUIT_NAMES[card.suit as usize],
                    Card::new(card.suit, lo),
                    Card::new(card.suit, hi),
                    if next.is_empty() { "nothing".to_string() } else { next.join(" or ") }
                ),
            ));
        }
        Ok(Some(card))
    }

    fn active(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.rules.players).filter(|&s| self.ranks[s].is_none())
    }
}

impl Game for Sevens {
    fn decisions(&self) -> Vec<Decision> {
        if self.is_over() {
            return vec![];
        }
        let observation = self.observation(self.turn);
        let legal = observation.legal().iter().map(to_json).collect();
        vec![Decision { seat: self.turn, observation: to_json(&observation), legal }]
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        let [(seat, action)] = actions else {
            return Err(ErrorInfo::new(
                ErrorCode::IllegalAction,
                format!(
                    "exactly one action, by seat {}, is expected; got {}",
                    self.turn,
                    actions.len()
                ),
            ));
        };
        let seat = *seat;
        let card = self.check(seat, action)?;
        let mut placed = CardSet::EMPTY;
        let mut finished = None;
        match card {
            Some(card) => {
                self.hands[seat].remove(card);
                self.table.place([card].into_iter().collect());
                if self.hands[seat].is_empty() {
                    self.ranks[seat] = Some(self.next_best);
                    self.next_best += 1;
                    finished = self.ranks[seat];
                }
            }
            None => {
                self.passes_used[seat] += 1;
                if self.passes_used[seat] > self.rules.pass_limit {
                    placed = self.hands[seat];
                    self.table.place(placed);
                    self.hands[seat] = CardSet::EMPTY;
                    self.went_out[seat] = true;
                    self.ranks[seat] = Some(self.next_worst);
                    self.next_worst -= 1;
                    finished = self.ranks[seat];
                }
            }
        }
        self.moves += 1;
        let left: Vec<usize> = self.active().collect();
        if let [last] = left[..] {
            self.ranks[last] = Some(self.next_best);
        }
        if !self.is_over() {
            let n = self.rules.players;
            self.turn =
                (1..=n).map(|k| (seat + k) % n).find(|&s| self.ranks[s].is_none()).unwrap_or(seat);
        }
        Ok(to_json(&Event {
            seat,
            action: card.map_or(Action::Pass, Action::Play),
            passes_used: self.passes_used[seat],
            went_out: self.went_out[seat],
            placed,
            finished,
            hand_sizes: self.hands.iter().map(|h| h.len()).collect(),
            next: (!self.is_over()).then_some(self.turn),
        }))
    }

    fn outcome(&self) -> Option<GameOutcome> {
        if !self.is_over() {
            return None;
        }
        let n = self.rules.players;
        let ranks: Vec<usize> = self.ranks.iter().map(|r| r.unwrap_or(n)).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&s| ranks[s]);
        Some(GameOutcome {
            scores: ranks.iter().map(|&r| (n - r) as f64 / (n - 1) as f64).collect(),
            summary: to_json(&Summary {
                order,
                ranks,
                went_out: self.went_out.clone(),
                passes_used: self.passes_used.clone(),
                start_hand_d: self.start_hand_d.clone(),
                dealer: self.dealer,
                first: self.first,
                moves: self.moves,
            }),
        })
    }
}
