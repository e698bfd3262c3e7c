//! The players: each rule of the paper's section 3, the students' habits, the baselines, the
//! temperature, explain/assess, and the readability predictor.

use crate::common;

use common::{act, agent, position};
use serde_json::{json, Value};
use yomi_plugin::ActRequest;
use yomi_sevens::predictor::Predictor;
use yomi_sevens::view::View;

const FILL: [&str; 6] = ["2H", "3H", "4H", "10H", "JH", "QH"];

#[test]
fn rule_1_plays_the_card_with_own_cards_further_out() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let mut bot = agent("dvalue", None, json!({}), 1);
    assert_eq!(act(bot.as_mut(), &d), json!("8H"));
}

#[test]
fn rule_2_prefers_a_consecutive_run() {
    // 8S backs 9S and 10S (run 2); 6H backs 3H only (no run): 2*2+2 = 6 > 2.
    let d = position([&["8S", "9S", "10S", "6H", "3H"], &FILL[..2], &["3C"]], &[], [3, 3, 3]);
    let mut bot = agent("dvalue", None, json!({}), 1);
    assert_eq!(act(bot.as_mut(), &d), json!("8S"));
}

#[test]
fn rules_3_and_4_keep_aces_and_kings_back() {
    // A/K playable with another card: rule 4 plays the other card (judgement off: rules alone).
    let d = position([&["AS", "6H"], &FILL, &["3C"]], &["2S", "3S", "4S", "5S", "6S"], [1, 3, 3]);
    let mut rules_only = agent("dvalue", None, json!({"judgement": "off"}), 1);
    assert_eq!(act(rules_only.as_mut(), &d), json!("6H"));
    // Only A/K playable and more passes than everyone: rule 3 passes (ak_hold = pass) ...
    let ends = ["2S", "3S", "4S", "5S", "6S", "8C", "9C", "10C", "JC", "QC"];
    let d = position([&["AS", "KC", "3H"], &FILL, &["3C"]], &ends, [3, 1, 2]);
    assert_eq!(d.legal, vec![json!("AS"), json!("KC"), json!("pass")]);
    let mut bot = agent("dvalue", None, json!({}), 1);
    assert_eq!(act(bot.as_mut(), &d), json!("pass"));
    // ... or, reading the hold as "behind another card", plays one: an ace stops nobody.
    let mut other = agent("dvalue", None, json!({"ak_hold": "other"}), 1);
    assert_eq!(act(other.as_mut(), &d), json!("AS"));
    // ... and not with as few passes as an opponent.
    let d = position([&["AS", "KC", "3H"], &FILL, &["3C"]], &ends, [2, 1, 2]);
    assert_eq!(act(bot.as_mut(), &d), json!("AS"));
    // A single playable A/K in the opening: rule 5 (play it) outweighs rule 3.
    let d = position([&["AS", "3H"], &FILL, &["3C"]], &["2S", "3S", "4S", "5S", "6S"], [3, 1, 2]);
    assert_eq!(act(bot.as_mut(), &d), json!("AS"));
}

#[test]
fn judgement_prefers_the_card_that_gives_the_others_least() {
    // 6H would bring AH..5H (five cards, three of them the opponent's) one step closer; AS brings
    // nothing: paper §2.2 judges 6H bad (board D down 5, own hand D down 0) and outweighs rule 4.
    let d = position([&["AS", "6H"], &FILL, &["3C"]], &["2S", "3S", "4S", "5S", "6S"], [1, 3, 3]);
    for judgement in ["difference", "margin"] {
        let mut bot = agent("dvalue", None, json!({"judgement": judgement}), 1);
        assert_eq!(act(bot.as_mut(), &d), json!("AS"), "{judgement}");
    }
    // Among cards, the judgement never turns a lone playable card into a pass; over every move
    // (the pass lowering nothing) a card that helps only the others is held.
    let middle = [
        "2H", "3H", "4H", "5H", "6H", "8H", "9H", "10H", "JH", "QH", "6D", "5D", "4D", "8D", "9D",
        "10D",
    ];
    let d = position([&["8S"], &["2D", "AH"], &["3C"]], &middle, [1, 3, 3]);
    let mut cards = agent("dvalue", None, json!({"judgement_scope": "cards"}), 1);
    assert_eq!(act(cards.as_mut(), &d), json!("8S"));
    let mut moves = agent("dvalue", None, json!({}), 1);
    assert_eq!(act(moves.as_mut(), &d), json!("pass"));
}

#[test]
fn rule_5_single_card_played_in_the_opening_held_later() {
    // Rule 5 alone: the judgement ranks the cards only, so it never holds a card itself.
    let mut bot = agent("dvalue", None, json!({"judgement_scope": "cards"}), 1);
    // Opening (board D 120 - small), hand D low: play the only card.
    let d = position([&["6S"], &FILL, &["3C"]], &[], [2, 3, 3]);
    assert_eq!(act(bot.as_mut(), &d), json!("6S"));
    // Middle game (board D well below 80), ahead, 2 passes: hold.
    let middle = [
        "2H", "3H", "4H", "5H", "6H", "8H", "9H", "10H", "JH", "QH", "6D", "5D", "4D", "8D", "9D",
        "10D",
    ];
    let d = position([&["8S", "AH"], &["2D"], &["3C"]], &middle, [2, 3, 3]);
    assert_eq!(d.legal, vec![json!("8S"), json!("AH"), json!("pass")]);
    let d = position([&["8S"], &["2D", "AH"], &["3C"]], &middle, [2, 3, 3]);
    assert_eq!(act(bot.as_mut(), &d), json!("pass"));
    // With one pass left the rule does not apply.
    let d = position([&["8S"], &["2D", "AH"], &["3C"]], &middle, [1, 3, 3]);
    assert_eq!(act(bot.as_mut(), &d), json!("8S"));
    // The default judgement over every move still holds it: 8S brings five spades closer for
    // the others and none of ours.
    let mut default = agent("dvalue", None, json!({}), 1);
    assert_eq!(act(default.as_mut(), &d), json!("pass"));
    // A lone ace stops nobody: held only when the hold is read as applying to any card.
    let d = position([&["AH"], &["2D", "8S"], &["3C"]], &middle, [2, 3, 3]);
    assert_eq!(act(bot.as_mut(), &d), json!("AH"));
    let mut always = agent("dvalue", None, json!({"single_hold": "always"}), 1);
    assert_eq!(act(always.as_mut(), &d), json!("pass"));
}

fn endgame_table() -> Vec<String> {
    (0..52)
        .map(yomi_sevens::card::Card::from_index)
        .filter(|c| {
            c.rank != 7 && !["8S", "9S", "KS", "AH", "QC", "KC"].contains(&c.to_string().as_str())
        })
        .map(|c| c.to_string())
        .collect()
}

#[test]
fn rule_7_passes_in_the_endgame_with_more_passes() {
    let all_but = endgame_table();
    let table: Vec<&str> = all_but.iter().map(String::as_str).collect();
    let mut bot = agent("dvalue", None, json!({}), 1);
    let d = position([&["8S", "9S"], &["KS", "AH"], &["QC", "KC"]], &table, [2, 1, 1]);
    assert_eq!(act(bot.as_mut(), &d), json!("pass"));
    let d = position([&["8S", "9S"], &["KS", "AH"], &["QC", "KC"]], &table, [1, 1, 1]);
    assert_eq!(act(bot.as_mut(), &d), json!("8S"));
    // AH stops nobody: under `blocks` rule 7 no longer applies and the other rules choose.
    let d = position([&["8S", "9S", "AH"], &["KS"], &["QC", "KC"]], &table, [2, 1, 1]);
    assert_eq!(act(bot.as_mut(), &d), json!("pass"));
    let mut blocks = agent("dvalue", None, json!({"endgame_pass": "blocks"}), 1);
    assert_eq!(act(blocks.as_mut(), &d), json!("8S"));
}

#[test]
fn dvalue_never_passes_itself_out_while_it_can_play() {
    let mut bot = agent("dvalue", None, json!({"temperature": 5.0}), 3);
    let d =
        position([&["AS", "9H"], &FILL, &["3C"]], &["2S", "3S", "4S", "5S", "6S", "8H"], [0, 3, 3]);
    for _ in 0..200 {
        assert_ne!(act(bot.as_mut(), &d), json!("pass"));
    }
}

#[test]
fn temperature_makes_choices_vary_but_keeps_the_preference() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let mut cold = agent("dvalue", None, json!({}), 1);
    let mut warm = agent("dvalue", None, json!({"temperature": 2.0}), 1);
    let cold_moves: Vec<Value> = (0..50).map(|_| act(cold.as_mut(), &d)).collect();
    assert!(cold_moves.iter().all(|m| m == &json!("8H")));
    let warm_moves: Vec<Value> = (0..400).map(|_| act(warm.as_mut(), &d)).collect();
    let top = warm_moves.iter().filter(|m| **m == json!("8H")).count();
    assert!(top < 400 && top > 400 / d.legal.len(), "8H chosen {top} of 400");
}

#[test]
fn explain_and_assess_carry_the_d_values() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let mut bot = agent("dvalue", None, json!({}), 1);
    let reply = bot
        .act(&ActRequest::new(d.observation.clone(), d.legal.clone()).with_explain(true))
        .unwrap();
    let e = reply.explain.unwrap();
    assert_eq!(e["hand_d"], json!(3 + 5 + 4), "6S 0, JH 3, KH 5, 2C 4");
    assert_eq!(e["card_d"]["KH"], json!(5));
    assert_eq!(e["phase"], json!("opening"));
    let assessed =
        bot.call("assess", &json!({"observation": d.observation, "legal": d.legal})).unwrap();
    assert_eq!(assessed["board_d"], e["board_d"]);
    assert!(bot.call("nope", &json!({})).is_err());
    let bad = bot.act(&ActRequest::new(json!({"seat": 0}), vec![json!("pass")]));
    let bad = bad.unwrap_err();
    assert_eq!(bad.code, yomi_plugin::ErrorCode::InvalidParams);
    assert_eq!(bad.message, "`observation.hand`: missing");
}

#[test]
fn student_habits_are_options() {
    // QS and AH playable: the typical student stops the Q and, with nothing else, plays the A.
    let d = position(
        [&["QS", "AH", "4D", "3D", "2D"], &FILL, &["3C"]],
        &["8S", "9S", "10S", "JS", "2H", "3H", "4H", "5H", "6H"],
        [3, 3, 3],
    );
    let mut typical = agent("student", Some("typical"), json!({}), 1);
    assert_eq!(act(typical.as_mut(), &d), json!("AH"), "stops Q, plays the A (nothing else)");
    let mut stopper = agent("student", Some("typical"), json!({"ak": "hold"}), 1);
    let d2 = position(
        [&["QS", "4D", "3D", "2D"], &FILL, &["3C"]],
        &["8S", "9S", "10S", "JS"],
        [3, 3, 3],
    );
    assert_eq!(act(stopper.as_mut(), &d2), json!("pass"));
    let mut eager = agent("student", Some("eager"), json!({}), 1);
    assert_eq!(act(eager.as_mut(), &d2), json!("QS"));
    let mut thrifty = agent("student", Some("typical"), json!({"keep_passes": 3}), 1);
    assert_eq!(act(thrifty.as_mut(), &d2), json!("QS"), "keeps its passes, plays the stopped card");
    // A lonely 6 is held, a backed 6 pushed.
    let d3 = position([&["6S", "6H", "3H", "4D", "3D", "2D"], &FILL[3..], &["3C"]], &[], [3, 3, 3]);
    assert_eq!(act(typical.as_mut(), &d3), json!("6H"));
}

#[test]
fn baselines_play_legal_cards() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let mut greedy = agent("greedy", None, json!({}), 1);
    assert_eq!(act(greedy.as_mut(), &d), json!("6S"));
    let mut random = agent("random", None, json!({}), 1);
    for _ in 0..50 {
        let m = act(random.as_mut(), &d);
        assert!(d.legal.contains(&m) && m != json!("pass"));
    }
}

#[test]
fn predictor_reads_a_deterministic_habit() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let request = ActRequest::new(d.observation.clone(), d.legal.clone());
    let view = View::parse(&request).unwrap();
    let mut p = Predictor::default();
    for _ in 0..20 {
        p.observe(&view, &d.legal, &json!("8H"));
    }
    assert_eq!((p.predictions, p.hits), (20, 19), "wrong only before it has seen anything");
    assert_eq!(
        p.observe(&view, &[json!("pass")], &json!("pass")),
        None,
        "forced moves are not scored"
    );
}

/// `strength` maps a target Elo to the D-value player's temperature through the checked-in ladder:
/// a higher target, a lower temperature, the strongest target all but the paper's player
/// (temperature 0: the bound is the strongest measured Elo rounded down).
#[test]
fn strength_sets_the_temperature_monotonically_from_the_ladder() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let temperature_at = |elo: i64| {
        let mut bot = agent("dvalue", None, json!({"limit_strength": true, "strength": elo}), 1);
        let request = ActRequest::new(d.observation.clone(), d.legal.clone()).with_explain(true);
        bot.act(&request).unwrap().explain.unwrap()["temperature"].as_f64().unwrap()
    };
    let manifest = yomi_plugin::Plugin::manifest(&yomi_sevens::SevensPlugin);
    let bot = manifest.bots.iter().find(|b| b.name == "dvalue").unwrap();
    let spec = bot.options.iter().find(|o| o.name == "strength").expect("a strength option");
    let yomi_plugin::protocol::OptionKind::Int { min: Some(lo), max: Some(hi) } = spec.kind else {
        panic!("strength is a bounded int: {spec:?}")
    };
    let temperatures: Vec<f64> = (lo..=hi).step_by(20).chain([hi]).map(temperature_at).collect();
    assert!(temperatures.windows(2).all(|w| w[1] <= w[0]), "{temperatures:?}");
    assert!(temperatures[temperatures.len() - 1] < 0.05, "{temperatures:?}");
    assert!(temperatures[0] > 4.0, "{temperatures:?}");
}

/// Every decision suggests a think time; `think_scale` 0 leaves it out.
#[test]
fn decisions_carry_a_think_time() {
    let d = position([&["6S", "8H", "JH", "KH", "2C"], &FILL, &["3C"]], &[], [3, 3, 3]);
    let request = ActRequest::new(d.observation, d.legal);
    for bot in ["dvalue", "student"] {
        let reply = agent(bot, None, json!({}), 1).act(&request).unwrap();
        let ms = reply.think_ms.expect("a think time");
        assert!((200..20_000).contains(&ms), "{bot}: {ms}");
        let off = agent(bot, None, json!({"think_scale": 0}), 1).act(&request).unwrap();
        assert_eq!(off.think_ms, None);
    }
}
