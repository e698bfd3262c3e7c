//! The referee: hidden hole cards, legal actions with ranges, bad input, seeded snapshots.

use serde_json::{json, Value};
use yomi_plugin::protocol::options::defaults;
use yomi_plugin::referee::play;
use yomi_plugin::{Agent, AgentContext, ErrorCode, Game, Options, Plugin};
use yomi_stud::{game_options, StudPlugin};

fn options(changes: Value) -> Options {
    let mut o = defaults(&game_options());
    for (k, v) in changes.as_object().unwrap() {
        o.insert(k.clone(), v.clone());
    }
    o
}

fn agent(bot: &str, seed: u64) -> Box<dyn Agent> {
    StudPlugin
        .new_agent(bot, &Options::new(), &AgentContext { seed, ..AgentContext::default() })
        .unwrap()
}

fn session(changes: Value, seed: u64) -> Box<dyn Game> {
    StudPlugin.new_game("stud", &options(changes), seed).unwrap()
}

/// Every card string in a JSON value.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn observations_never_show_the_opponents_face_down_cards() {
    let mut g = session(json!({"games": 200}), 9);
    let mut random = [agent("random", 1), agent("calling-station", 2)];
    let mut checked = 0;
    loop {
        let ds = g.decisions();
        if ds.is_empty() {
            break;
        }
        let mut actions = vec![];
        for d in ds {
            // The opponent's hole cards are the cards of the deal not visible to this seat; the
            // observation must name none of them.
            let obs = &d.observation;
            let mine: Vec<String> = ["hole", "up"]
                .iter()
                .flat_map(|k| {
                    obs[k].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string())
                })
                .collect();
            let opp_up: Vec<String> = obs["opp_up"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            let mut all = vec![];
            strings(obs, &mut all);
            let cards: Vec<&String> = all
                .iter()
                .filter(|s| s.len() == 2 && yomi_stud::cards::Card::parse(s).is_ok())
                .collect();
            for c in cards {
                assert!(mine.contains(c) || opp_up.contains(c), "seat {} sees {c}", d.seat);
            }
            assert_eq!(obs["legal"], json!(d.legal));
            checked += 1;
            let reply = random[d.seat]
                .act(&yomi_plugin::ActRequest::new(d.observation.clone(), d.legal.clone()))
                .unwrap();
            actions.push((d.seat, reply.action));
        }
        let event = g.apply(&actions).unwrap();
        // Hands are public only at a showdown (disclose is off).
        if let Some(end) = event.get("end") {
            assert_eq!(end["hands"].is_null(), end["ending"] == "drop");
        }
    }
    assert!(checked > 100);
}

#[test]
fn legal_actions_carry_amount_ranges() {
    let g = session(json!({}), 3);
    let d = &g.decisions()[0];
    assert_eq!(d.seat, 0);
    assert_eq!(d.legal, vec![json!({"act": "drop"}), json!({"act": "open", "min": 1, "max": 10})]);
    let g = session(json!({"first_seat": 1}), 3);
    assert_eq!(g.decisions()[0].seat, 1);
}

#[test]
fn bad_actions_are_clear_errors_and_change_nothing() {
    let mut g = session(json!({}), 3);
    let before = g.decisions();
    let cases = [
        (1, json!({"act": "open", "amount": 3}), "turn"),
        (0, json!({"act": "open", "amount": 0}), "between 1"),
        (0, json!({"act": "open", "amount": 11}), "pot 10"),
        (0, json!({"act": "fold"}), "`action.act`: must be one of `drop`, `open`"),
        (0, json!({"act": "open"}), "`open` needs an `amount`"),
        (0, json!({"act": "open", "amount": -1}), "`action.amount`: must be a non-negative"),
        (0, json!({"act": "call", "amount": 2}), "nothing to call"),
        (0, json!("open"), "object"),
        (0, json!({}), "needs `act`"),
        (0, json!({"reveal": "As"}), "act"),
    ];
    for (seat, action, text) in cases {
        let e = g.apply(&[(seat, action.clone())]).unwrap_err();
        assert_eq!(e.code, ErrorCode::IllegalAction);
        assert!(e.message.contains(text) && e.message.contains("seat"), "{action}: {}", e.message);
        assert_eq!(g.decisions(), before);
    }
    g.apply(&[(0, json!({"act": "open", "amount": 3}))]).unwrap();
    g.apply(&[(1, json!({"act": "raise", "amount": 13}))]).unwrap();
    let e = g.apply(&[(0, json!({"act": "raise", "amount": 20}))]).unwrap_err();
    assert!(e.message.contains("one raise"), "{}", e.message);
    // Walk to the reveal and try cards that are not the seat's own face-down cards.
    g.apply(&[(0, json!({"act": "call"}))]).unwrap();
    for _ in 2..=5 {
        g.apply(&[(0, json!({"act": "bet", "amount": 1}))]).unwrap();
        g.apply(&[(1, json!({"act": "bet", "amount": 1}))]).unwrap();
    }
    let ds = g.decisions();
    assert_eq!(ds.len(), 2, "simultaneous reveal");
    let up = ds[0].observation["up"][0].clone();
    let theirs = ds[1].observation["hole"][0].clone();
    let ok1 = ds[1].legal[0].clone();
    for bad in [json!({"reveal": up}), json!({"reveal": theirs}), json!({"reveal": "Zz"})] {
        let e = g.apply(&[(0, bad.clone()), (1, ok1.clone())]).unwrap_err();
        assert!(e.message.starts_with("seat 0"), "{bad}: {}", e.message);
    }
    assert!(g.apply(&[(1, ok1)]).is_err(), "both must reveal");
}

#[test]
fn inline_deals_drive_the_cards_and_bad_ones_are_rejected() {
    let line = "As Ad 2c 3c 4c 5c Ah | Ks Kd 2d 3d 4d 5d Kh";
    let g = session(json!({"deals": [line]}), 1);
    assert_eq!(g.decisions()[0].observation["hole"], json!(["As", "Ad"]));
    // One string of deal-file lines, as the CLI sends a local file.
    let g = session(json!({"deals": format!("# one deal\n{line}\n")}), 1);
    assert_eq!(g.decisions()[0].observation["hole"], json!(["As", "Ad"]));
    let reject = |deals: serde_json::Value| {
        let e = StudPlugin.new_game("stud", &options(json!({ "deals": deals })), 1).err().unwrap();
        assert_eq!(e.code, yomi_plugin::ErrorCode::InvalidOption, "{}", e.message);
        e.message
    };
    let twice = "As Ad 2c 3c 4c 5c Ah | As Kd 2d 3d 4d 5d Kh";
    assert!(reject(json!([line, twice])).contains("deal 1: deal `As Ad"), "names the deal");
    assert!(reject(json!([twice])).contains("twice"));
    // A path is only text that is not a deal: nothing on the server is opened.
    let path = reject(json!("/etc/passwd"));
    assert_eq!(path, "option `deals`: line 1: deal `/etc/passwd`: expected `7 cards | 7 cards`");
    assert!(reject(json!(vec![line; 10_001])).contains("at most 10000"));
    assert!(reject(json!(3)).contains("must be a list of deals"));
    assert!(reject(json!([3])).contains("deal 0 is not a string"));
}

#[test]
fn play_mode_ends_the_session_at_bankruptcy() {
    let mut g = session(json!({"games": 1000, "mode": "play", "start_chips": 50}), 4);
    let (mut a, mut b) = (agent("random", 5), agent("random", 6));
    let played = play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
    let chips = played.outcome.summary["chips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap())
        .collect::<Vec<_>>();
    assert!(chips.iter().any(|c| *c < 0), "{chips:?}");
    assert!(played.outcome.summary["games"].as_u64().unwrap() < 1000);
}

#[test]
fn seeded_baseline_matches_are_stable() {
    for (name, bots) in [
        ("random-vs-calling-station", ["random", "calling-station"]),
        ("random-vs-random", ["random", "random"]),
    ] {
        let mut g = session(json!({"games": 3}), 11);
        let (mut a, mut b) = (agent(bots[0], 21), agent(bots[1], 22));
        let played = play(g.as_mut(), &mut [a.as_mut(), b.as_mut()]).unwrap();
        insta::assert_json_snapshot!(name, played);
    }
}
