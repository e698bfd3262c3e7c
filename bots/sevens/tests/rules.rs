//! The referee: deals, turn order, passes, going out, ranks, scores, hidden hands, bad input.

use crate::common;

use common::{cards, game};
use proptest::prelude::*;
use serde_json::{json, Value};
use yomi_plugin::{ErrorCode, Game};
use yomi_sevens::game::Sevens;
use yomi_sevens::rules::{OutOfPasses, Rules};
use yomi_sevens::table::Table;

fn hand_sizes(g: &dyn Game) -> Vec<u64> {
    let d = g.decisions().remove(0);
    d.observation["hand_sizes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

#[test]
fn deals_spread_the_48_cards_round_robin() {
    for (players, want) in [(3, vec![16, 16, 16]), (4, vec![12; 4]), (6, vec![8; 6])] {
        let g = game(json!({"players": players, "dealer": 0}), 7);
        assert_eq!(hand_sizes(g.as_ref()), want);
        assert_eq!(g.decisions()[0].seat, 1, "the seat after the dealer starts");
    }
    let sizes = hand_sizes(game(json!({"players": 5}), 7).as_ref());
    assert_eq!(sizes.iter().sum::<u64>(), 48);
    assert!(sizes.iter().all(|&s| s == 9 || s == 10));
}

#[test]
fn seven_of_diamonds_rule_starts_after_its_holder() {
    for seed in 0..20 {
        let g = game(json!({"first": "seven_of_diamonds", "dealer": 0}), seed);
        assert_eq!(hand_sizes(g.as_ref()).iter().sum::<u64>(), 48);
        // Dealt from seat 1 over the 52 cards, so seat 1 and 2 hold 17 or 18 with their 7s.
        assert!(g.decisions()[0].seat < 3);
    }
}

#[test]
fn observation_shows_only_the_own_hand() {
    let g = Sevens::new(Rules::default(), 11);
    let d = g.decisions().remove(0);
    let text = d.observation.to_string();
    for (seat, hand) in g.hands().iter().enumerate() {
        for c in hand.iter() {
            let visible = text.contains(&format!("\"{c}\""));
            assert_eq!(visible, seat == d.seat, "{c} of seat {seat}");
        }
    }
    assert_eq!(d.observation["passes_left"], json!([3, 3, 3]));
    assert_eq!(d.legal.last(), Some(&json!("pass")));
}

fn small_game(out: OutOfPasses, limit: u32) -> Sevens {
    let rules = Rules { pass_limit: limit, out_of_passes: out, ..Rules::default() };
    let hands = vec![cards(&["6S", "5S"]), cards(&["8S", "KH"]), cards(&["AD", "2D"])];
    Sevens::with_hands(rules, hands, Table::default(), 0)
}

fn err(g: &mut Sevens, seat: usize, action: Value) -> String {
    let before = g.observation(seat);
    let e = g.apply(&[(seat, action)]).unwrap_err();
    assert_eq!(e.code, ErrorCode::IllegalAction);
    assert!(e.message.starts_with(&format!("seat {seat}:")), "{}", e.message);
    assert_eq!(g.observation(seat), before, "an illegal action changes nothing");
    e.message
}

#[test]
fn bad_input_is_named() {
    let mut g = small_game(OutOfPasses::Out, 3);
    assert!(err(&mut g, 0, json!("8S")).contains("8S is not in your hand"));
    assert!(err(&mut g, 0, json!("5S")).contains("5S is not next to the table"));
    assert!(err(&mut g, 0, json!("5S")).contains("only 6S or 8S"));
    assert!(err(&mut g, 1, json!("8S")).contains("it is seat 0's turn"));
    assert!(err(&mut g, 0, json!("ZZ")).contains("`ZZ` is not a card"));
    assert!(err(&mut g, 0, json!(7)).contains("card string"));
    let e = g.apply(&[(0, json!("6S")), (1, json!("8S"))]).unwrap_err();
    assert!(e.message.contains("exactly one action"));

    let mut g = small_game(OutOfPasses::MustPlay, 0);
    assert_eq!(g.decisions()[0].legal, vec![json!("6S")]);
    assert!(err(&mut g, 0, json!("pass")).contains("no passes left (limit 0)"));
}

#[test]
fn a_pass_beyond_the_limit_puts_the_player_out() {
    let mut g = small_game(OutOfPasses::Out, 1);
    g.apply(&[(0, json!("pass"))]).unwrap();
    g.apply(&[(1, json!("8S"))]).unwrap();
    g.apply(&[(2, json!("pass"))]).unwrap();
    let ev = g.apply(&[(0, json!("pass"))]).unwrap();
    assert_eq!(ev["went_out"], json!(true));
    assert_eq!(ev["finished"], json!(3));
    assert_eq!(ev["placed"], json!(["5S", "6S"]));
    // Seat 0's cards are on the table now; seat 1 and 2 play on.
    let d = g.decisions().remove(0);
    assert_eq!(d.seat, 1);
    assert!(d.observation["table"].as_array().unwrap().contains(&json!("5S")));
}

#[test]
fn must_play_lets_a_stuck_player_go_out() {
    let mut g = small_game(OutOfPasses::MustPlay, 0);
    g.apply(&[(0, json!("6S"))]).unwrap();
    g.apply(&[(1, json!("8S"))]).unwrap();
    assert_eq!(
        g.decisions()[0].legal,
        vec![json!("pass")],
        "seat 2 cannot play: its only move is out"
    );
    let ev = g.apply(&[(2, json!("pass"))]).unwrap();
    assert_eq!(ev["finished"], json!(3));
}

#[test]
fn ranks_and_scores_follow_the_finishing_order() {
    let mut g = small_game(OutOfPasses::Out, 3);
    for (seat, a) in [(0, "6S"), (1, "8S"), (2, "pass"), (0, "5S")] {
        g.apply(&[(seat, json!(a))]).unwrap();
    }
    // Seat 0 finished first; seat 1 holds KH, seat 2 AD/2D.
    assert!(g.outcome().is_none());
    while let Some(d) = g.decisions().pop() {
        g.apply(&[(d.seat, json!("pass"))]).unwrap();
    }
    let o = g.outcome().unwrap();
    assert_eq!(o.summary["ranks"][0], json!(1));
    assert_eq!(o.summary["order"][0], json!(0));
    let mut ranks: Vec<u64> =
        o.summary["ranks"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect();
    for (seat, r) in ranks.iter().enumerate() {
        assert_eq!(o.scores[seat], (3 - *r) as f64 / 2.0);
    }
    ranks.sort();
    assert_eq!(ranks, vec![1, 2, 3]);
    assert!(g.apply(&[(0, json!("pass"))]).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_play_keeps_all_52_cards_and_ends_with_a_ranking(seed in any::<u64>(), players in 3usize..=6, limit in 0u32..5, must in any::<bool>(), diamonds in any::<bool>(), picks in proptest::collection::vec(any::<u16>(), 400)) {
        let rules = Rules {
            players,
            pass_limit: limit,
            out_of_passes: if must { OutOfPasses::MustPlay } else { OutOfPasses::Out },
            first: if diamonds { yomi_sevens::rules::FirstPlayer::SevenOfDiamonds } else { yomi_sevens::rules::FirstPlayer::AfterDealer },
            dealer: None,
        };
        let mut g = Sevens::new(rules, seed);
        let mut steps = 0;
        while let Some(d) = g.decisions().pop() {
            let pick = picks[steps % picks.len()] as usize % d.legal.len();
            g.apply(&[(d.seat, d.legal[pick].clone())]).unwrap();
            let table = g.observation(0).table.cards();
            let held: usize = g.hands().iter().map(|h| h.len()).sum();
            prop_assert_eq!(table.len() + held, 52);
            steps += 1;
            prop_assert!(steps < 52 * 30);
        }
        let o = g.outcome().unwrap();
        let mut ranks: Vec<u64> = o.summary["ranks"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect();
        ranks.sort();
        prop_assert_eq!(ranks, (1..=players as u64).collect::<Vec<_>>());
    }
}
