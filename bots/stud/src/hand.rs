//! Hand evaluation: the best five of up to seven cards, partial hands of fewer cards, the ten
//! categories of the paper (scores 0–9), the tie rules and the rank-refined score.
//!
//! The evaluator works on rank counts and per-suit rank masks, with no tables, so it is exact by
//! construction and still evaluates tens of millions of hands per second — the player enumerates
//! up to ~13 000 opponent hands per decision.

use serde::Serialize;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::cards::Card;

/// The ten categories, weakest first; the discriminant is the paper's score 0–9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Nothing = 0,
    OnePair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
    RoyalStraightFlush,
}

impl Category {
    pub const ALL: [Category; 10] = [
        Category::Nothing,
        Category::OnePair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
        Category::RoyalStraightFlush,
    ];

    pub fn score(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        [
            "nothing",
            "one-pair",
            "two-pair",
            "three-of-a-kind",
            "straight",
            "flush",
            "full-house",
            "four-of-a-kind",
            "straight-flush",
            "royal-straight-flush",
        ][self as usize]
    }
}

/// How two hands of the same category are ordered (spec §2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieRule {
    /// Only the cards that form the hand; "nothing" on its five cards. The paper's rule.
    HandCardsOnly,
    /// Standard poker: the hand's cards, then the kickers.
    FullKickers,
    /// The category and the single most significant rank.
    SingleKeyRank,
}

impl TieRule {
    pub const NAMES: [&'static str; 3] = ["hand-cards-only", "full-kickers", "single-key-rank"];

    pub fn parse(text: &str) -> Result<TieRule, ErrorInfo> {
        match text {
            "hand-cards-only" => Ok(TieRule::HandCardsOnly),
            "full-kickers" => Ok(TieRule::FullKickers),
            "single-key-rank" => Ok(TieRule::SingleKeyRank),
            _ => Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("`{text}` is not a tie rule ({})", Self::NAMES.join(", ")),
            )),
        }
    }
}

/// The value of a hand: its category and its ranks in comparison order. The first `n_hand`
/// ranks are the cards forming the hand (a pair's rank once, both pairs of two pair, ...), the
/// rest up to `n` are kickers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandValue {
    pub category: Category,
    ranks: [u8; 5],
    n: u8,
    n_hand: u8,
}

impl HandValue {
    /// Ranks in comparison order, kickers included.
    pub fn ranks(&self) -> &[u8] {
        &self.ranks[..self.n as usize]
    }

    /// Only the ranks of the cards forming the hand.
    pub fn hand_ranks(&self) -> &[u8] {
        &self.ranks[..self.n_hand as usize]
    }

    /// A number whose order is the order of hands under `rule` (equal numbers are a draw).
    pub fn key(&self, rule: TieRule) -> u32 {
        let used = match rule {
            TieRule::FullKickers => self.ranks(),
            TieRule::HandCardsOnly if self.category == Category::RoyalStraightFlush => &[],
            TieRule::HandCardsOnly => self.hand_ranks(),
            TieRule::SingleKeyRank => &self.ranks[..self.n_hand.min(1) as usize],
        };
        let mut key = (self.category as u32) << 20;
        for (k, r) in used.iter().enumerate() {
            key |= (*r as u32) << (16 - 4 * k);
        }
        key
    }

    /// The rank-refined score `category + Σ face_k / 15^k` over the hand-forming cards (spec
    /// §3.2.2): the integer part is the paper's score, the order is the hand-cards-only order.
    pub fn refined_score(&self) -> f64 {
        let mut s = self.category as u8 as f64;
        if self.category == Category::RoyalStraightFlush {
            return s;
        }
        let mut w = 1.0 / 15.0;
        for r in self.hand_ranks() {
            s += *r as f64 * w;
            w /= 15.0;
        }
        s
    }
}

/// Whether A-2-3-4-5 counts as a five-high straight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EvalRules {
    pub wheel: bool,
}

impl Default for EvalRules {
    fn default() -> EvalRules {
        EvalRules { wheel: true }
    }
}

/// The highest straight in a rank mask (bit r = rank r present), as its top rank.
fn straight_top(mask: u16, wheel: bool) -> Option<u8> {
    let m = if wheel && mask & (1 << 14) != 0 { mask | 1 << 1 } else { mask };
    let runs = m & m >> 1 & m >> 2 & m >> 3 & m >> 4;
    (runs != 0).then(|| (15 - runs.leading_zeros()) as u8 + 4)
}

/// The `k` highest ranks of a mask, high to low.
fn top_ranks(mut mask: u16, k: usize, out: &mut [u8; 5], at: &mut usize) {
    for _ in 0..k {
        if mask == 0 {
            return;
        }
        let r = 15 - mask.leading_zeros() as u8;
        out[*at] = r;
        *at += 1;
        mask &= !(1 << r);
    }
}

/// Evaluates the best hand of 1 to 7 cards. With fewer than five cards only pairs, trips and
/// quads can form, and the kickers are the cards there are.
pub fn evaluate(cards: &[Card], rules: EvalRules) -> HandValue {
    debug_assert!(cards.len() <= 7);
    let mut suit_mask = [0u16; 4];
    for c in cards {
        suit_mask[c.suit() as usize] |= 1 << c.rank();
    }
    let all = suit_mask[0] | suit_mask[1] | suit_mask[2] | suit_mask[3];
    let mut ranks = [0u8; 5];
    let mut at = 0;
    let value =
        |category, ranks, n: usize, n_hand: u8| HandValue { category, ranks, n: n as u8, n_hand };

    let flush = suit_mask.iter().copied().find(|m| m.count_ones() >= 5);
    if let Some(fm) = flush {
        if let Some(top) = straight_top(fm, rules.wheel) {
            let cat =
                if top == 14 { Category::RoyalStraightFlush } else { Category::StraightFlush };
            return value(cat, [top, 0, 0, 0, 0], 1, 1);
        }
    }
    // Rank masks by multiplicity, from the suit masks alone: by_count[c] holds the ranks held
    // exactly c times.
    let [h0, h1, h2, h3] = suit_mask;
    let at_least2 = (h0 & h1) | (h0 & h2) | (h0 & h3) | (h1 & h2) | (h1 & h3) | (h2 & h3);
    let at_least3 = (h0 & h1 & h2) | (h0 & h1 & h3) | (h0 & h2 & h3) | (h1 & h2 & h3);
    let four = h0 & h1 & h2 & h3;
    let by_count = [0, all & !at_least2, at_least2 & !at_least3, at_least3 & !four, four];
    if by_count[4] != 0 {
        top_ranks(by_count[4], 1, &mut ranks, &mut at);
        top_ranks(all & !(1 << ranks[0]), 1, &mut ranks, &mut at);
        return value(Category::FourOfAKind, ranks, at, 1);
    }
    if by_count[3] != 0 {
        let trip = 15 - by_count[3].leading_zeros() as u16;
        let pairs = (by_count[3] | by_count[2]) & !(1 << trip);
        if pairs != 0 {
            top_ranks(1 << trip, 1, &mut ranks, &mut at);
            top_ranks(pairs, 1, &mut ranks, &mut at);
            return value(Category::FullHouse, ranks, at, 2);
        }
    }
    if let Some(fm) = flush {
        top_ranks(fm, 5, &mut ranks, &mut at);
        return value(Category::Flush, ranks, at, 5);
    }
    if let Some(top) = straight_top(all, rules.wheel) {
        return value(Category::Straight, [top, 0, 0, 0, 0], 1, 1);
    }
    if by_count[3] != 0 {
        top_ranks(by_count[3], 1, &mut ranks, &mut at);
        top_ranks(all & !(1 << ranks[0]), 2, &mut ranks, &mut at);
        return value(Category::ThreeOfAKind, ranks, at, 1);
    }
    match by_count[2].count_ones() {
        0 => {
            top_ranks(all, 5, &mut ranks, &mut at);
            let n = at;
            value(Category::Nothing, ranks, n, n as u8)
        }
        1 => {
            top_ranks(by_count[2], 1, &mut ranks, &mut at);
            top_ranks(all & !by_count[2], 3, &mut ranks, &mut at);
            value(Category::OnePair, ranks, at, 1)
        }
        _ => {
            top_ranks(by_count[2], 2, &mut ranks, &mut at);
            top_ranks(all & !(1 << ranks[0]) & !(1 << ranks[1]), 1, &mut ranks, &mut at);
            value(Category::TwoPair, ranks, at, 2)
        }
    }
}

/// The paper's score of a hand, integer or rank-refined (spec erratum 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreMode {
    CategoryOnly,
    RankRefined,
}

impl ScoreMode {
    pub fn score(self, v: &HandValue) -> f64 {
        match self {
            ScoreMode::CategoryOnly => v.category as u8 as f64,
            ScoreMode::RankRefined => v.refined_score(),
        }
    }
}

/// Compares two hands under a tie rule: 1 if the first wins, 2 if the second, 0 for a draw.
pub fn winner(a: &HandValue, b: &HandValue, rule: TieRule) -> u8 {
    match a.key(rule).cmp(&b.key(rule)) {
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Less => 2,
        std::cmp::Ordering::Equal => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn ev(s: &str) -> HandValue {
        evaluate(&parse_cards(s).unwrap(), EvalRules::default())
    }

    #[test]
    fn categories() {
        let cases = [
            ("As Kd 9c 7h 5s 3d 2c", Category::Nothing, vec![14, 13, 9, 7, 5]),
            ("As Ad 9c 7h 5s 3d 2c", Category::OnePair, vec![14, 9, 7, 5]),
            ("As Ad 9c 9h 5s 5d 2c", Category::TwoPair, vec![14, 9, 5]),
            ("As Ad Ac 9h 5s 3d 2c", Category::ThreeOfAKind, vec![14, 9, 5]),
            ("As 2d 3c 4h 5s 9d Kc", Category::Straight, vec![5]),
            ("Ts Jd Qc Kh As 9d 2c", Category::Straight, vec![14]),
            ("As Ks 9s 7s 5s 3d 2c", Category::Flush, vec![14, 13, 9, 7, 5]),
            ("As Ad Ac 9h 9s 5d 5c", Category::FullHouse, vec![14, 9]),
            ("9s 9d 9c Ah As Ad 2c", Category::FullHouse, vec![14, 9]),
            ("As Ad Ac Ah 9s 5d 5c", Category::FourOfAKind, vec![14, 9]),
            ("9s Ts Js Qs Ks 2d 2c", Category::StraightFlush, vec![13]),
            ("Ts Js Qs Ks As 2d 2c", Category::RoyalStraightFlush, vec![14]),
            ("Ah Ad 7c", Category::OnePair, vec![14, 7]),
            ("Ah Ad 7c 7s", Category::TwoPair, vec![14, 7]),
            ("Kh", Category::Nothing, vec![13]),
        ];
        for (cards, cat, ranks) in cases {
            let v = ev(cards);
            assert_eq!((v.category, v.ranks().to_vec()), (cat, ranks), "{cards}");
        }
        let no_wheel =
            evaluate(&parse_cards("As 2d 3c 4h 5s 9d Kc").unwrap(), EvalRules { wheel: false });
        assert_eq!(no_wheel.category, Category::Nothing);
    }

    #[test]
    fn tie_rules_differ_where_the_spec_says() {
        let a = ev("As Ad 9c 7h 5s 3d 2c");
        let b = ev("Ah Ac Kc 7d 5c 3h 2d");
        assert_eq!(winner(&a, &b, TieRule::FullKickers), 2);
        assert_eq!(winner(&a, &b, TieRule::HandCardsOnly), 0);
        let c = ev("As Ad Kc Kh 5s 3d 2c");
        let d = ev("Ah Ac Qc Qd 5c 3h 2d");
        assert_eq!(winner(&c, &d, TieRule::HandCardsOnly), 1);
        assert_eq!(winner(&c, &d, TieRule::SingleKeyRank), 0);
        let n1 = ev("As Kd 9c 7h 5s 3d 2c");
        let n2 = ev("Ah Kc 9d 7c 4s 3h 2d");
        assert_eq!(winner(&n1, &n2, TieRule::HandCardsOnly), 1);
        assert_eq!(winner(&n1, &n2, TieRule::SingleKeyRank), 0);
    }

    #[test]
    fn refined_score_orders_like_hand_cards_only() {
        let hands = [
            "As Kd 9c 7h 5s 3d 2c",
            "As Ad 9c 7h 5s 3d 2c",
            "Ks Kd Qc Qh 5s 3d 2c",
            "As Ad Qc Qh 5s 3d 2c",
            "9s Ts Js Qs Ks 2d 2c",
        ];
        let v: Vec<HandValue> = hands.iter().map(|h| ev(h)).collect();
        for w in v.windows(2) {
            assert!(w[0].refined_score() < w[1].refined_score());
            assert!(w[0].key(TieRule::HandCardsOnly) < w[1].key(TieRule::HandCardsOnly));
        }
        assert_eq!(v[1].refined_score().floor(), 1.0);
    }
}
