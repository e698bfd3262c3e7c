//! Cards, seeded deals and deal files.
//!
//! A card is one byte, `(rank - 2) * 4 + suit`, so rank and suit are a shift and a mask away: the
//! evaluator and the enumerations of the player handle tens of millions of cards per second.
//! A deal is the fourteen cards of one game in dealing order, seven per *position* (first to act,
//! second to act), because the paper's simulations fixed the cards per position, not per player.

use std::fmt;

use rand::seq::SliceRandom;
use serde_json::Value;
use yomi_plugin::rng::{derive_seed, seeded};
use yomi_plugin::{ErrorCode, ErrorInfo};

const RANKS: &[u8; 13] = b"23456789TJQKA";
const SUITS: &[u8; 4] = b"cdhs";

/// A playing card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// `rank` in 2..=14 (ace high), `suit` in 0..4 (c, d, h, s).
    pub fn new(rank: u8, suit: u8) -> Card {
        debug_assert!((2..=14).contains(&rank) && suit < 4);
        Card((rank - 2) * 4 + suit)
    }

    /// The card with index 0..52.
    pub fn from_index(index: u8) -> Card {
        debug_assert!(index < 52);
        Card(index)
    }

    pub fn index(self) -> u8 {
        self.0
    }

    /// 2..=14, ace high.
    pub fn rank(self) -> u8 {
        self.0 / 4 + 2
    }

    pub fn suit(self) -> u8 {
        self.0 % 4
    }

    /// Parses `As`, `Td`, `10h`, `9C` (rank letter case-insensitive, suit c/d/h/s).
    pub fn parse(text: &str) -> Result<Card, ErrorInfo> {
        let bad = || {
            ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("`{text}` is not a card (like As, Td, 9c)"),
            )
        };
        let t = text.trim();
        let (r, s) = if t.len() == 3 && t.starts_with("10") {
            ("T", &t[2..])
        } else if t.len() == 2 {
            t.split_at(1)
        } else {
            return Err(bad());
        };
        let r = r.as_bytes()[0].to_ascii_uppercase();
        let s = s.as_bytes()[0].to_ascii_lowercase();
        let rank = RANKS.iter().position(|&x| x == r).ok_or_else(bad)? as u8 + 2;
        let suit = SUITS.iter().position(|&x| x == s).ok_or_else(bad)? as u8;
        Ok(Card::new(rank, suit))
    }

    /// All 52 cards in index order.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..52).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            RANKS[(self.rank() - 2) as usize] as char,
            SUITS[self.suit() as usize] as char
        )
    }
}

impl serde::Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Parses a whitespace- or comma-separated list of cards, rejecting duplicates.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, ErrorInfo> {
    let cards = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(Card::parse)
        .collect::<Result<Vec<_>, _>>()?;
    check_distinct(&cards)?;
    Ok(cards)
}

/// An error if a card occurs twice.
pub fn check_distinct(cards: &[Card]) -> Result<(), ErrorInfo> {
    let mut seen = 0u64;
    for c in cards {
        if seen >> c.index() & 1 == 1 {
            return Err(ErrorInfo::new(ErrorCode::InvalidParams, format!("card {c} occurs twice")));
        }
        seen |= 1 << c.index();
    }
    Ok(())
}

/// A set of cards as a 52-bit mask.
pub fn mask(cards: &[Card]) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << c.index())
}

/// The cards of one game in dealing order: `cards[position][k]` is the k-th card of the first
/// (position 0) or second (position 1) actor. Order per position: hole, hole, up, up, up, up, hole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal {
    pub cards: [[Card; 7]; 2],
}

impl Deal {
    /// A uniformly shuffled deal from a seed (ChaCha8, so every machine deals the same cards).
    pub fn seeded(seed: u64) -> Deal {
        let mut deck: Vec<Card> = Card::all().collect();
        deck.shuffle(&mut seeded(seed));
        let mut cards = [[Card(0); 7]; 2];
        // Alternate as a dealer does: one card to each position per round.
        for k in 0..7 {
            cards[0][k] = deck[2 * k];
            cards[1][k] = deck[2 * k + 1];
        }
        Deal { cards }
    }

    /// Parses one line: seven cards of the first actor, `|`, seven cards of the second.
    pub fn parse(line: &str) -> Result<Deal, ErrorInfo> {
        let bad =
            |m: String| ErrorInfo::new(ErrorCode::InvalidParams, format!("deal `{line}`: {m}"));
        let halves: Vec<&str> = line.split('|').collect();
        if halves.len() != 2 {
            return Err(bad("expected `7 cards | 7 cards`".into()));
        }
        let mut cards = [[Card(0); 7]; 2];
        for (p, half) in halves.iter().enumerate() {
            let cs = half
                .split_whitespace()
                .map(Card::parse)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad(e.message))?;
            if cs.len() != 7 {
                return Err(bad(format!("position {} has {} cards, not 7", p + 1, cs.len())));
            }
            cards[p].copy_from_slice(&cs);
        }
        check_distinct(&[cards[0], cards[1]].concat()).map_err(|e| bad(e.message))?;
        Ok(Deal { cards })
    }

    pub fn to_line(&self) -> String {
        let side =
            |p: usize| self.cards[p].iter().map(Card::to_string).collect::<Vec<_>>().join(" ");
        format!("{} | {}", side(0), side(1))
    }
}

/// Most deals a game's options may carry (the paper's sessions used 500).
pub const MAX_DEALS: usize = 10_000;
/// Longest line one deal may take: 14 cards, a bar and generous spacing or a comment.
const MAX_DEAL_LINE: usize = 200;

/// A fixed list of deals, replayed identically in every run (as the paper's simulations did).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealSet {
    pub deals: Vec<Deal>,
}

impl DealSet {
    /// `n` deals, deal `i` shuffled from `derive_seed(seed, i)`.
    pub fn seeded(seed: u64, n: usize) -> DealSet {
        DealSet { deals: (0..n).map(|i| Deal::seeded(derive_seed(seed, i as u64))).collect() }
    }

    /// Parses a deal file: one deal per line, `#` comments and blank lines ignored.
    pub fn parse(text: &str) -> Result<DealSet, ErrorInfo> {
        let deals = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i, l.split('#').next().unwrap_or("").trim()))
            .filter(|(_, l)| !l.is_empty())
            .map(|(i, l)| {
                Deal::parse(l)
                    .map_err(|e| ErrorInfo::new(e.code, format!("line {}: {}", i + 1, e.message)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if deals.is_empty() {
            return Err(ErrorInfo::new(ErrorCode::InvalidParams, "the deal file holds no deal"));
        }
        Ok(DealSet { deals })
    }

    /// Reads the `deals` game option. Deals always come inline from the client: a list of deal
    /// strings, or one string of deal-file lines (what `yomi match --game-option deals=@FILE`
    /// sends after reading a local file). A request never names a file on the server. Empty (or
    /// null) means seeded deals.
    pub fn from_option(value: &Value) -> Result<Option<DealSet>, ErrorInfo> {
        let bad =
            |m: String| ErrorInfo::new(ErrorCode::InvalidOption, format!("option `deals`: {m}"));
        let set = match value {
            Value::Null => return Ok(None),
            Value::String(text) if text.trim().is_empty() => return Ok(None),
            Value::Array(list) if list.is_empty() => return Ok(None),
            Value::String(text) if text.len() > MAX_DEALS * MAX_DEAL_LINE => {
                return Err(bad(format!(
                    "{} bytes of deals; at most {MAX_DEALS} deals of one line each",
                    text.len()
                )))
            }
            Value::String(text) => DealSet::parse(text).map_err(|e| bad(e.message))?,
            Value::Array(list) if list.len() > MAX_DEALS => {
                return Err(bad(format!("{} deals; at most {MAX_DEALS}", list.len())))
            }
            Value::Array(list) => DealSet {
                deals: list
                    .iter()
                    .enumerate()
                    .map(|(i, d)| match d.as_str() {
                        Some(line) if line.len() <= MAX_DEAL_LINE => {
                            Deal::parse(line).map_err(|e| bad(format!("deal {i}: {}", e.message)))
                        }
                        Some(line) => Err(bad(format!("deal {i} is {} bytes long", line.len()))),
                        None => Err(bad(format!("deal {i} is not a string: {d}"))),
                    })
                    .collect::<Result<_, _>>()?,
            },
            other => {
                return Err(bad(format!(
                    "must be a list of deals `7 cards | 7 cards` or their lines in one string, got {other}"
                )))
            }
        };
        match set.deals.len() {
            n if n > MAX_DEALS => Err(bad(format!("{n} deals; at most {MAX_DEALS}"))),
            _ => Ok(Some(set)),
        }
    }

    pub fn to_text(&self) -> String {
        self.deals.iter().map(|d| d.to_line() + "\n").collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for c in Card::all() {
            assert_eq!(Card::parse(&c.to_string()).unwrap(), c);
        }
        assert_eq!(Card::parse("10h").unwrap(), Card::parse("Th").unwrap());
        assert_eq!(Card::parse("as").unwrap().rank(), 14);
        for bad in ["", "A", "Ax", "1s", "Asd", "ZZ"] {
            assert!(Card::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seeded_deals_are_reproducible_and_distinct() {
        let a = DealSet::seeded(7, 20);
        assert_eq!(a, DealSet::seeded(7, 20));
        assert_ne!(a, DealSet::seeded(8, 20));
        for d in &a.deals {
            check_distinct(&[d.cards[0], d.cards[1]].concat()).unwrap();
        }
        assert_eq!(DealSet::parse(&a.to_text()).unwrap(), a);
    }

    #[test]
    fn bad_deal_files_are_rejected() {
        let good = DealSet::seeded(1, 1).to_text();
        let dup = good.replacen(&good[3..5], &good[0..2], 1);
        assert!(DealSet::parse(&dup).unwrap_err().message.contains("twice"));
        let missing: String = good.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
        assert!(DealSet::parse(&missing).unwrap_err().message.contains("not 7"));
        assert!(DealSet::parse("# nothing\n\n").is_err());
        assert!(DealSet::parse("As Kd").is_err());
    }
}
