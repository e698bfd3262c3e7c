//! The evaluator against an independent one (the `rs_poker` crate) on random seven-card hands with
//! full kickers: the same category for every hand and the same order for every pair of
//! consecutive hands. A million hands take about 3 s in release, so the full check runs always.

use rand::seq::SliceRandom;
use rs_poker::core::{Card as RsCard, Rank, Rankable, Suit, Value};
use yomi_plugin::rng::seeded;
use yomi_stud::cards::Card;
use yomi_stud::hand::{evaluate, Category, EvalRules, HandValue, TieRule};

fn theirs(cards: &[Card]) -> Rank {
    let rs: Vec<RsCard> = cards
        .iter()
        .map(|c| RsCard::new(Value::from_u8(c.rank() - 2), Suit::from_u8(c.suit())))
        .collect();
    rs.rank()
}

/// Their category on our 0–9 scale (they fold the royal flush into straight flushes).
fn their_category(r: Rank) -> u8 {
    match r {
        Rank::HighCard(_) => 0,
        Rank::OnePair(_) => 1,
        Rank::TwoPair(_) => 2,
        Rank::ThreeOfAKind(_) => 3,
        Rank::Straight(_) => 4,
        Rank::Flush(_) => 5,
        Rank::FullHouse(_) => 6,
        Rank::FourOfAKind(_) => 7,
        Rank::StraightFlush(_) => 8,
    }
}

/// The number of disagreements, with the first few described.
fn compare(n: usize, seed: u64) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut rng = seeded(seed);
    let mut deck: Vec<Card> = Card::all().collect();
    let mut bad = Vec::new();
    let mut prev: Option<(HandValue, Rank)> = None;
    for _ in 0..n {
        deck.shuffle(&mut rng);
        let hand = &deck[..7];
        let (ours, their) = (evaluate(hand, EvalRules { wheel: true }), theirs(hand));
        let ours_cat = match ours.category {
            Category::RoyalStraightFlush => 8,
            c => c.score(),
        };
        if ours_cat != their_category(their) {
            count += 1;
            bad.push(format!("{hand:?}: {:?} vs {their:?}", ours.category));
        }
        if let Some((p_ours, p_their)) = prev {
            let a = ours.key(TieRule::FullKickers).cmp(&p_ours.key(TieRule::FullKickers));
            if a != their.cmp(&p_their) {
                count += 1;
                bad.push(format!("order differs at {hand:?}"));
            }
        }
        bad.truncate(5);
        prev = Some((ours, their));
    }
    (count, bad)
}

#[test]
fn agrees_with_rs_poker_on_a_million_hands() {
    let (disagreements, examples) = compare(1_000_000, 2);
    assert_eq!(disagreements, 0, "{examples:#?}");
}
