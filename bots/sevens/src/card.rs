//! Cards and sets of cards. A set is a 52-bit mask (bit `suit * 13 + rank - 1`), so a hand, the
//! table and "my cards further out" are all single integer operations — the bots evaluate every
//! legal card on every turn and the reproduction plays tens of thousands of games.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use yomi_plugin::misfit::rule;
use yomi_plugin::{ErrorCode, ErrorInfo};

/// Suit letters in the fixed order used everywhere (observations, legal lists, masks).
pub const SUITS: [char; 4] = ['S', 'H', 'D', 'C'];
/// Suit names for messages.
pub const SUIT_NAMES: [&str; 4] = ["spades", "hearts", "diamonds", "clubs"];

/// One card: suit index 0..4 (S, H, D, C) and rank 1..=13 (A = 1, J = 11, Q = 12, K = 13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub suit: u8,
    pub rank: u8,
}

impl Card {
    pub fn new(suit: u8, rank: u8) -> Card {
        debug_assert!(suit < 4 && (1..=13).contains(&rank));
        Card { suit, rank }
    }

    /// Bit index in a [`CardSet`].
    pub fn index(self) -> u32 {
        self.suit as u32 * 13 + self.rank as u32 - 1
    }

    pub fn from_index(i: u32) -> Card {
        Card { suit: (i / 13) as u8, rank: (i % 13 + 1) as u8 }
    }

    /// Distance from the 7 of its suit (1 for 6/8 ... 6 for A/K; 0 for a 7).
    pub fn distance(self) -> u8 {
        self.rank.abs_diff(7)
    }

    /// Parses "7S", "10H", "TH", "AS", "qd" ... (rank then suit letter).
    pub fn parse(text: &str) -> Result<Card, ErrorInfo> {
        let bad = || {
            ErrorInfo::new(
                ErrorCode::IllegalAction,
                format!("`{text}` is not a card: write the rank (A, 2-10, J, Q, K) then the suit (S, H, D, C), e.g. 7S, 10H, or \"pass\""),
            )
        };
        let upper = text.trim().to_ascii_uppercase();
        let suit_char = upper.chars().last().ok_or_else(bad)?;
        let suit = SUITS.iter().position(|&c| c == suit_char).ok_or_else(bad)? as u8;
        let rank = match &upper[..upper.len() - 1] {
            "A" | "1" => 1,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            "T" => 10,
            r => r.parse::<u8>().ok().filter(|r| (2..=10).contains(r)).ok_or_else(bad)?,
        };
        Ok(Card { suit, rank })
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rank = match self.rank {
            1 => "A".to_string(),
            11 => "J".to_string(),
            12 => "Q".to_string(),
            13 => "K".to_string(),
            r => r.to_string(),
        };
        write!(f, "{rank}{}", SUITS[self.suit as usize])
    }
}

/// A set of cards as a bit mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct CardSet(pub u64);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    pub const FULL: CardSet = CardSet((1u64 << 52) - 1);

    /// The four 7s: the table at the start of every game.
    pub fn sevens() -> CardSet {
        (0..4).map(|s| Card::new(s, 7)).collect()
    }

    pub fn contains(self, c: Card) -> bool {
        self.0 >> c.index() & 1 == 1
    }

    pub fn insert(&mut self, c: Card) {
        self.0 |= 1 << c.index();
    }

    pub fn remove(&mut self, c: Card) {
        self.0 &= !(1 << c.index());
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    /// The 13-bit row of one suit (bit `rank - 1`).
    pub fn suit_bits(self, suit: u8) -> u16 {
        (self.0 >> (suit as u32 * 13) & 0x1FFF) as u16
    }

    /// Cards in ascending order: suit S, H, D, C, then rank A..K.
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            Some(Card::from_index(i))
        })
    }

    pub fn names(self) -> Vec<String> {
        self.iter().map(|c| c.to_string()).collect()
    }

    /// Parses a list of card strings, rejecting duplicates.
    pub fn parse_list<'a>(cards: impl IntoIterator<Item = &'a str>) -> Result<CardSet, ErrorInfo> {
        let mut set = CardSet::EMPTY;
        for text in cards {
            let c = Card::parse(text)?;
            if set.contains(c) {
                return Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    format!("card {c} is listed twice"),
                ));
            }
            set.insert(c);
        }
        Ok(set)
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for c in iter {
            set.insert(c);
        }
        set
    }
}

/// A card in JSON: its name, `"7S"` (read as [`Card::parse`] reads it, so `"7s"` is the same).
impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        match Value::deserialize(d)? {
            Value::String(text) => Card::parse(&text).map_err(|e| rule(e.message)),
            _ => Err(rule("not a string")),
        }
    }
}

impl JsonSchema for Card {
    fn schema_name() -> Cow<'static, str> {
        "Card".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A card: the rank (A, 2-10, J, Q, K; T for 10) then the suit (S, H, D, C), in either case",
            "type": "string",
            "pattern": "^\\s*([AaJjQqKkTt1-9]|10)[SHDCshdc]\\s*$",
        })
    }
}

/// A set of cards in JSON: the list of their names in suit-then-rank order; read from a list in
/// any order that names no card twice.
impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let mut set = CardSet::EMPTY;
        for c in Vec::<Card>::deserialize(d)? {
            if set.contains(c) {
                return Err(rule(format_args!("card {c} is listed twice")));
            }
            set.insert(c);
        }
        Ok(set)
    }
}

impl JsonSchema for CardSet {
    fn schema_name() -> Cow<'static, str> {
        "Cards".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "array", "items": generator.subschema_for::<Card>(), "uniqueItems": true})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_for_every_card() {
        for i in 0..52 {
            let c = Card::from_index(i);
            assert_eq!(Card::parse(&c.to_string()).unwrap(), c);
        }
        assert_eq!(Card::parse("10h").unwrap(), Card::new(1, 10));
        assert_eq!(Card::parse("TH").unwrap(), Card::new(1, 10));
        assert_eq!(Card::new(0, 1).to_string(), "AS");
    }

    #[test]
    fn bad_card_strings_are_named() {
        for bad in ["", "7", "S", "11S", "0S", "7X", "pass", "77S"] {
            let e = Card::parse(bad).unwrap_err();
            assert!(e.message.contains("is not a card"), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn sets_iterate_in_order() {
        let set = CardSet::parse_list(["KC", "AS", "7H"]).unwrap();
        assert_eq!(set.names(), vec!["AS", "7H", "KC"]);
        assert_eq!(set.len(), 3);
        assert!(CardSet::parse_list(["AS", "as"]).is_err());
    }
}
