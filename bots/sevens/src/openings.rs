//! Sevens' openings: deals. An opening fixes the hands (`hands`, one list of cards per seat) and
//! the dealer, so every seat order of a tournament's deal plays the very same cards. The suite
//! shipped with yomi is 25 deals under the paper's rules (3 players, 16 cards each, the 7s on the
//! table), as many as the paper's own experiment played.

use serde::Serialize;
use serde_json::Value;
use yomi_plugin::rng::derive_seed;
use yomi_plugin::typed::to_json;
use yomi_plugin::{ErrorCode, ErrorInfo, Options};

use crate::card::CardSet;
use crate::game::Sevens;
use crate::rules::{FirstPlayer, Rules};

/// The seed the shipped deals are shuffled from (deal `i` from `derive_seed(SUITE_SEED, i)`).
pub const SUITE_SEED: u64 = 7;
/// Games of the paper's experiment.
pub const SUITE_DEALS: u64 = 25;

/// A game from the options: the opening's hands when `hands` is given, else a seeded shuffle.
pub fn start(options: &Options, seed: u64) -> Result<Sevens, ErrorInfo> {
    let rules = Rules::from_options(options)?;
    let dealer = rules.dealer.unwrap_or((seed % rules.players as u64) as usize);
    Ok(match hands(options, rules)? {
        Some(hands) => Sevens::dealt(rules, dealer, hands),
        None => Sevens::dealt(rules, dealer, Sevens::shuffled(rules, dealer, seed)),
    })
}

/// The `hands` option, checked: one hand per seat, the whole deck the rules deal (the 48 cards
/// but the 7s, or all 52 with `first: seven_of_diamonds`) each card once, dealt evenly.
pub fn hands(options: &Options, rules: Rules) -> Result<Option<Vec<CardSet>>, ErrorInfo> {
    let bad = |m: String| ErrorInfo::new(ErrorCode::InvalidOption, format!("option `hands`: {m}"));
    let list = match options.get("hands").unwrap_or(&Value::Null) {
        Value::Null => return Ok(None),
        Value::Array(list) if list.len() == rules.players => list,
        other => {
            return Err(bad(format!(
                "one string of cards per seat ({} seats), got {other}",
                rules.players
            )))
        }
    };
    let mut hands = Vec::with_capacity(list.len());
    let mut seen = CardSet::EMPTY;
    for (seat, hand) in list.iter().enumerate() {
        let text =
            hand.as_str().ok_or_else(|| bad(format!("seat {seat}'s hand is not a string")))?;
        let set = CardSet::parse_list(text.split_whitespace())
            .map_err(|e| bad(format!("seat {seat}: {}", e.message)))?;
        if let Some(card) = set.iter().find(|&c| seen.contains(c)) {
            return Err(bad(format!("{card} is dealt to two seats")));
        }
        seen = seen.union(set);
        hands.push(set);
    }
    let deck = match rules.first {
        FirstPlayer::AfterDealer => CardSet(CardSet::FULL.0 & !CardSet::sevens().0),
        FirstPlayer::SevenOfDiamonds => CardSet::FULL,
    };
    if seen != deck {
        let missing = CardSet(deck.0 & !seen.0).names().join(" ");
        let extra = CardSet(seen.0 & !deck.0).names().join(" ");
        return Err(bad(format!(
            "the hands must hold the {} cards the rules deal, each once (missing: [{missing}], \
             not dealt under these rules: [{extra}])",
            deck.len()
        )));
    }
    let (low, high) =
        hands.iter().fold((usize::MAX, 0), |(l, h), s| (l.min(s.len()), h.max(s.len())));
    if high - low > 1 {
        return Err(bad(format!(
            "hands of {low} to {high} cards: a deal is even, within one card"
        )));
    }
    Ok(Some(hands))
}

/// One opening's game options: every seat's hand and the dealer.
#[derive(Serialize)]
struct Deal {
    hands: Vec<String>,
    dealer: usize,
}

/// The shipped suite: `SUITE_DEALS` shuffles under the paper's rules, dealer seat 0.
pub fn suite() -> String {
    let rules = Rules::default();
    let mut text = format!(
        "# {SUITE_DEALS} deals under the paper's rules (3 players, the 7s on the table, 16 cards \
         each), as many as\n# the paper's experiment played; dealer seat 0, so seat 1 leads. A \
         3-seat tournament plays every\n# deal in all six seat orders. Deal i is shuffled from \
         derive_seed({SUITE_SEED}, i).\n"
    );
    for i in 0..SUITE_DEALS {
        let hands = Sevens::shuffled(rules, 0, derive_seed(SUITE_SEED, i));
        let hands: Vec<String> = hands.iter().map(|h| h.names().join(" ")).collect();
        text += &format!("{}\n", to_json(&Deal { hands, dealer: 0 }));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(hands: Value) -> Options {
        [("hands".to_string(), hands), ("dealer".to_string(), json!(0))].into_iter().collect()
    }

    /// A full options set as the host resolves it.
    fn resolved(hands: Value) -> Options {
        let mut all: Options =
            crate::rules::game_options().into_iter().map(|o| (o.name, o.default)).collect();
        all.extend(options(hands));
        all
    }

    #[test]
    fn an_opening_deals_its_hands_whatever_the_seed() {
        let dealt = Sevens::shuffled(Rules::default(), 0, 42);
        let text: Vec<String> = dealt.iter().map(|h| h.names().join(" ")).collect();
        let a = start(&resolved(json!(text)), 1).unwrap();
        let b = start(&resolved(json!(text)), 99).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "the seed deals nothing");
        assert_eq!(hands(&resolved(json!(text)), Rules::default()).unwrap(), Some(dealt));
    }

    #[test]
    fn bad_hands_say_what_is_wrong() {
        let dealt = Sevens::shuffled(Rules::default(), 0, 42);
        let mut hands: Vec<String> = dealt.iter().map(|h| h.names().join(" ")).collect();
        let refused = |h: Value| super::hands(&resolved(h), Rules::default()).unwrap_err().message;
        assert!(refused(json!(hands[..2])).contains("one string of cards per seat (3 seats)"));
        let first = hands[0].split(' ').next().unwrap().to_string();
        let with_twice = format!("{} {first}", hands[1]);
        assert!(refused(json!([hands[0], with_twice, hands[2]])).contains("dealt to two seats"));
        hands[0] += " 7S";
        assert!(refused(json!(hands)).contains("not dealt under these rules: [7S]"));
        let short = dealt[0].names()[1..].join(" ");
        let long = format!("{} {}", dealt[1].names().join(" "), dealt[0].names()[0]);
        assert!(refused(json!([short, long, hands[2]])).contains("hands of 15 to 17 cards"));
    }
}
