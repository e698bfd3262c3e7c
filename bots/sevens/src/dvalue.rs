//! The paper's D value ("Distance → Difficulty"): for a card not yet on the table, the number of
//! cards that must be played before it can be played. The board total measures how far the game
//! has to go (120 at the start), a hand total how hard a hand is to shed; comparing the hand's total
//! with the board's share per player judges advantage (the paper's section 2.2).

use serde::Serialize;

use crate::card::{Card, CardSet};
use crate::table::Table;

/// Board D total of a fresh deal: four suits of 0+0+1+1+...+5+5 = 30.
pub const START_BOARD_D: u32 = 120;

/// D of one card not on the table: unplayed cards between its row's end and it. A card already on
/// the table has none.
pub fn card_d(table: Table, card: Card) -> Option<u32> {
    if table.cards().contains(card) {
        return None;
    }
    Some(table.between_end(card).iter().filter(|c| !table.cards().contains(*c)).count() as u32)
}

/// Sum of D over `cards` (cards already on the table count 0).
pub fn total(table: Table, cards: CardSet) -> u32 {
    cards.iter().filter_map(|c| card_d(table, c)).sum()
}

/// Board D total: every card not yet on the table.
pub fn board_total(table: Table) -> u32 {
    total(table, CardSet(!table.cards().0 & CardSet::FULL.0))
}

/// What playing `card` does to the totals: every unplayed card further out on its side comes one
/// step closer, so the board loses one per such card and the hand one per such card it holds.
/// Seed 2.2: a move that lowers your own total a lot and the board's little is good for you.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MoveEffect {
    pub hand_drop: u32,
    pub board_drop: u32,
}

pub fn move_effect(table: Table, hand: CardSet, card: Card) -> MoveEffect {
    let out = Table::beyond(card);
    let unplayed = CardSet(out.0 & !table.cards().0);
    MoveEffect {
        hand_drop: CardSet(unplayed.0 & hand.0).len() as u32,
        board_drop: unplayed.len() as u32,
    }
}

/// The paper's situation judgement for one player.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Judgement {
    pub hand_d: u32,
    pub board_d: u32,
    /// The board total divided by the players still holding cards (the paper's "one third").
    pub share: f64,
    /// Hand total at most the share: the paper's "advantage".
    pub ahead: bool,
}

pub fn judge(table: Table, hand: CardSet, players_in: usize) -> Judgement {
    let hand_d = total(table, hand);
    let board_d = board_total(table);
    let share = board_d as f64 / players_in.max(1) as f64;
    Judgement { hand_d, board_d, share, ahead: hand_d as f64 <= share }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(list: &[&str]) -> CardSet {
        CardSet::parse_list(list.iter().copied()).unwrap()
    }

    #[test]
    fn start_values_match_figure_1() {
        let t = Table::default();
        let d: Vec<u32> =
            (1..=13).filter(|&r| r != 7).map(|r| card_d(t, Card::new(0, r)).unwrap()).collect();
        assert_eq!(d, vec![5, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 5]);
        assert_eq!(board_total(t), START_BOARD_D);
        assert_eq!(card_d(t, Card::new(0, 7)), None);
    }

    #[test]
    fn figure_2_suit_sums_to_16() {
        // 8 and 9 played above, 6 below: the high side drops 2 each, the low side 1 each.
        let mut t = Table::default();
        t.place(cards(&["8S", "9S", "6S"]));
        assert_eq!(total(t, cards(&["AS", "2S", "3S", "4S", "5S", "10S", "JS", "QS", "KS"])), 16);
        assert_eq!(card_d(t, Card::parse("KS").unwrap()), Some(3));
        assert_eq!(card_d(t, Card::parse("AS").unwrap()), Some(4));
        assert_eq!(board_total(t), 120 - 14);
    }

    #[test]
    fn gaps_from_placed_cards_do_not_count() {
        let mut t = Table::default();
        t.place(cards(&["9S", "10S"]));
        assert_eq!(card_d(t, Card::parse("JS").unwrap()), Some(1)); // only 8S must come first
    }

    #[test]
    fn move_effect_counts_cards_further_out() {
        let t = Table::default();
        let hand = cards(&["8S", "10S", "KS", "6H"]);
        let e = move_effect(t, hand, Card::parse("8S").unwrap());
        assert_eq!(e, MoveEffect { hand_drop: 2, board_drop: 5 });
        let j = judge(t, hand, 3);
        assert_eq!(j.hand_d, 2 + 5, "8S and 6H 0, 10S 2, KS 5");
        assert!(j.ahead && (j.share - 40.0).abs() < 1e-9);
    }
}
