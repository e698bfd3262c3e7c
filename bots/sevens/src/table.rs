//! The table: which cards lie on it, the row that has grown out of each 7, and which cards may be
//! played next. Cards of a player who went out are placed in their positions and may leave gaps;
//! a row only grows from its 7, so a placed card beyond a gap joins the row once the gap is filled.

use crate::card::{Card, CardSet};

/// The cards on the table; in JSON, the list of their names.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Table(pub CardSet);

impl Default for Table {
    fn default() -> Table {
        Table(CardSet::sevens())
    }
}

impl Table {
    pub fn cards(self) -> CardSet {
        self.0
    }

    /// The lowest and highest rank of the unbroken row through the 7 of `suit`.
    pub fn ends(self, suit: u8) -> (u8, u8) {
        let bits = self.0.suit_bits(suit);
        let mut low = 7;
        while low > 1 && bits >> (low - 2) & 1 == 1 {
            low -= 1;
        }
        let mut high = 7;
        while high < 13 && bits >> high & 1 == 1 {
            high += 1;
        }
        (low, high)
    }

    /// The cards that may be played now (at most two per suit), in suit then rank order.
    pub fn playable(self) -> CardSet {
        let mut set = CardSet::EMPTY;
        for suit in 0..4 {
            let (low, high) = self.ends(suit);
            if low > 1 {
                set.insert(Card::new(suit, low - 1));
            }
            if high < 13 {
                set.insert(Card::new(suit, high + 1));
            }
        }
        set
    }

    /// Cards of the same suit strictly further from the 7 than `card`, on its side.
    pub fn beyond(card: Card) -> CardSet {
        let ranks: Box<dyn Iterator<Item = u8>> =
            if card.rank < 7 { Box::new(1..card.rank) } else { Box::new(card.rank + 1..=13) };
        ranks.map(|r| Card::new(card.suit, r)).collect()
    }

    /// Cards of the same suit between the row's end and `card` on its side (exclusive of both).
    pub fn between_end(self, card: Card) -> CardSet {
        let (low, high) = self.ends(card.suit);
        let ranks = if card.rank < low {
            card.rank + 1..low
        } else if card.rank > high {
            high + 1..card.rank
        } else {
            0..0
        };
        ranks.map(|r| Card::new(card.suit, r)).collect()
    }

    pub fn place(&mut self, cards: CardSet) {
        self.0 = self.0.union(cards);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_table_offers_sixes_and_eights() {
        let t = Table::default();
        assert_eq!(t.playable().names(), vec!["6S", "8S", "6H", "8H", "6D", "8D", "6C", "8C"]);
    }

    #[test]
    fn placed_cards_join_the_row_once_the_gap_closes() {
        let mut t = Table::default();
        t.place(CardSet::parse_list(["8S", "10S", "JS"]).unwrap());
        assert_eq!(t.ends(0), (7, 8));
        assert!(t.playable().contains(Card::parse("9S").unwrap()));
        t.place(CardSet::parse_list(["9S"]).unwrap());
        assert_eq!(t.ends(0), (7, 11));
        assert!(t.playable().contains(Card::parse("QS").unwrap()));
    }

    #[test]
    fn full_rows_offer_nothing() {
        let t = Table(CardSet::FULL);
        assert!(t.playable().is_empty());
        assert_eq!(t.ends(2), (1, 13));
    }
}
