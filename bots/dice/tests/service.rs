//! The dice service through `agent.call`: long-run fairness, naturalness across block edges,
//! trap control, profiles that survive a restart, and clear errors on bad input.

use serde_json::{json, Value};
use yomi_dice::features::compute;
use yomi_dice::ranges::Ranges;
use yomi_dice::repro::face_chi_square;
use yomi_dice::DicePlugin;
use yomi_plugin::{Agent, AgentContext, ErrorCode, Options, Plugin};

fn agent(overrides: Value, data_dir: Option<std::path::PathBuf>) -> Box<dyn Agent> {
    let plugin = DicePlugin;
    let bot = plugin.manifest().bots.into_iter().find(|b| b.name == "dice").unwrap();
    let mut options: Options = yomi_plugin::protocol::options::defaults(&bot.options);
    for (k, v) in overrides.as_object().unwrap() {
        options.insert(k.clone(), v.clone());
    }
    plugin
        .new_agent(
            "dice",
            &options,
            &AgentContext { seed: 42, data_dir, ..AgentContext::default() },
        )
        .unwrap()
}

fn faces(v: &Value) -> Vec<u8> {
    v["faces"].as_array().unwrap().iter().map(|f| f.as_u64().unwrap() as u8).collect()
}

#[test]
fn a_long_stream_is_fair() {
    let mut a = agent(json!({}), None);
    let rolls = faces(&a.call("rolls", &json!({"n": 60_000})).unwrap());
    // Chi-square with 5 degrees of freedom: 20.52 is the 0.1 % critical value.
    let chi = face_chi_square(&rolls, 6);
    assert!(chi < 20.52, "chi-square {chi}");
}

#[test]
fn a_d5_stream_is_fair_too() {
    let mut a = agent(json!({"sides": 5}), None);
    let rolls = faces(&a.call("rolls", &json!({"n": 30_000})).unwrap());
    assert!(rolls.iter().all(|&f| (1..=5).contains(&f)));
    // 4 degrees of freedom: 18.47 at 0.1 %.
    assert!(face_chi_square(&rolls, 5) < 18.47);
}

#[test]
fn windows_across_block_edges_stay_natural() {
    let mut a = agent(json!({}), None);
    let rolls = faces(&a.call("rolls", &json!({"n": 5_000})).unwrap());
    let mut patterns_only = Ranges::table2();
    patterns_only.gamma[..5].fill(0.0);
    let mean_err = |ranges: &Ranges, offset: usize| {
        let errs: Vec<f64> = (0..150)
            .map(|i| ranges.err(&compute(&rolls[offset + 25 * i..offset + 25 * i + 50], 6)))
            .collect();
        errs.iter().sum::<f64>() / errs.len() as f64
    };
    // Plain dice average about 50. Windows straddling block edges keep the clump features
    // (F6..F15) as natural as aligned ones; their chi-square spans sit elsewhere than the ones
    // optimised, so the full Err is higher there but far below plain dice.
    let (aligned, straddling) = (mean_err(&Ranges::table2(), 0), mean_err(&Ranges::table2(), 12));
    assert!(aligned < 1.5 && straddling < 8.0, "{aligned} {straddling}");
    assert!(mean_err(&patterns_only, 12) < 3.0, "{}", mean_err(&patterns_only, 12));
    // No four in a row anywhere in the stream (F9's range is 0..0 with weight 10).
    assert!(rolls.windows(4).all(|w| !(w[0] == w[1] && w[1] == w[2] && w[2] == w[3])));
}

#[test]
fn same_seed_same_stream_and_plain_mode_differs() {
    let roll = |mode: &str| {
        faces(&agent(json!({"mode": mode}), None).call("rolls", &json!({"n": 200})).unwrap())
    };
    assert_eq!(roll("natural"), roll("natural"));
    let plain = roll("plain");
    assert_eq!(plain, roll("plain"));
    let f = compute(&plain, 6);
    assert!(f[6] > 0.0);
}

#[test]
fn sequence_and_score_agree() {
    let mut a = agent(json!({}), None);
    let s = a.call("sequence", &json!({"length": 50, "seed": 3})).unwrap();
    assert_eq!(s["err"], json!(0.0));
    let scored = a.call("score", &json!({"faces": s["faces"]})).unwrap();
    assert_eq!(scored["err"], json!(0.0));
    assert_eq!(scored["features"].as_object().unwrap().len(), 15);
    // Other dice and lengths reach Err = 0 under the derived ranges (d4 and up).
    for sides in [4, 5, 8, 12, 20, 100] {
        for length in [30, 50, 80] {
            let s = agent(json!({"sides": sides}), None)
                .call("sequence", &json!({"length": length, "seed": 1}))
                .unwrap();
            assert_eq!(s["err"], json!(0.0), "d{sides}, length {length}");
        }
    }
    let d12 = agent(json!({"sides": 12}), None).call("sequence", &json!({"length": 60})).unwrap();
    assert!(faces(&d12).iter().all(|&f| (1..=12).contains(&f)) && faces(&d12).len() == 60);
}

#[test]
fn controlled_rolls_avoid_back_to_back_hits() {
    let mut a = agent(json!({}), None);
    // A trap 3 squares ahead of square 0 on a straight line: only a 3 hits it.
    let board = json!({"squares": (0..=12).map(|s| json!({"next": if s < 12 { vec![s + 1] } else { vec![] }, "trap": s == 3})).collect::<Vec<_>>()});
    let mut hits = Vec::new();
    for _ in 0..300 {
        let r = a.call("roll", &json!({"board": board, "position": 0, "player": "p"})).unwrap();
        assert_eq!(r["trap"], json!(r["face"] == json!(3)));
        hits.push(r["trap"].as_bool().unwrap());
    }
    assert!(hits.windows(2).all(|w| !(w[0] && w[1])));
    // p = 1/6 over 10 passes: band 0..2, never more than 2 hits in any 10.
    assert!(hits.windows(10).all(|w| w.iter().filter(|&&h| h).count() <= 2));
    let share = hits.iter().filter(|&&h| h).count() as f64 / hits.len() as f64;
    assert!((0.08..0.25).contains(&share), "hit share {share}");
}

#[test]
fn profiles_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("yomi-dice-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seq: Vec<u8> =
        "4525143326144641355542665654121422351611".bytes().map(|b| b - b'0').collect();
    let set = agent(json!({}), Some(dir.clone()))
        .call("profile", &json!({"player": "ann", "sequence": seq}))
        .unwrap();
    assert_eq!(set["persistent"], json!(true));
    let key = set["key"].as_str().expect("a new profile returns its key").to_string();
    let mut again = agent(json!({}), Some(dir.clone()));
    let got = again.call("profile", &json!({"player": "ann", "key": key})).unwrap();
    assert_eq!(got["saved"], json!(true));
    assert_eq!(got["ranges"], set["ranges"]);
    assert_ne!(got["ranges"], Ranges::table2().to_json());
    // Her stream uses her ranges: doubles are allowed more often than under table 2.
    let rolls = faces(&again.call("rolls", &json!({"n": 2000, "player": "ann"})).unwrap());
    assert_eq!(rolls.len(), 2000);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_saved_profile_is_reached_only_with_its_key() {
    let dir = std::env::temp_dir().join(format!("yomi-dice-keys-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seq: Vec<u8> =
        "4525143326144641355542665654121422351611".bytes().map(|b| b - b'0').collect();
    let mut owner = agent(json!({}), Some(dir.clone()));
    let key = owner.call("profile", &json!({"player": "ann", "sequence": seq})).unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    // Another client sees no profile of hers, and cannot replace it.
    let mut other = agent(json!({}), Some(dir.clone()));
    let seen = other.call("profile", &json!({"player": "ann"})).unwrap();
    assert_eq!(seen["saved"], json!(false));
    assert_eq!(seen["ranges"], Ranges::table2().to_json());
    let replace = json!({"player": "ann", "sequence": seq, "key": "0".repeat(32)});
    let refused = other.call("profile", &replace).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden, "{}", refused.message);
    // Her own agent replaces it without showing the key again; the key is unchanged.
    let replaced = owner.call("profile", &json!({"player": "ann", "sequence": seq})).unwrap();
    assert!(replaced.get("key").is_none(), "{replaced}");
    let with_key = other.call("profile", &json!({"player": "ann", "key": key})).unwrap();
    assert_eq!(with_key["saved"], json!(true));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_inputs_are_clear_errors() {
    let mut a = agent(json!({}), None);
    let err = |a: &mut Box<dyn Agent>, m: &str, p: Value| a.call(m, &p).unwrap_err();
    assert!(err(&mut a, "rolls", json!({"n": 0})).message.contains("1..="));
    assert!(err(&mut a, "rolls", json!({"n": 10_000_000})).message.contains("1..="));
    assert!(err(&mut a, "score", json!({"faces": [1, 7]})).message.contains("outside 1..=6"));
    assert!(err(&mut a, "score", json!({"faces": []})).message.contains("faces"));
    assert!(err(&mut a, "roll", json!({"board": "standard", "position": 500}))
        .message
        .contains("off the board"));
    assert!(err(
        &mut a,
        "roll",
        json!({"board": {"squares": [{"next": [1]}, {"next": [0]}]}, "position": 0})
    )
    .message
    .contains("no path to the goal"));
    assert!(err(&mut a, "profile", json!({"player": "x", "sequence": [1, 2, 3]}))
        .message
        .contains("at least"));
    assert_eq!(err(&mut a, "fly", json!({})).code, ErrorCode::UnknownMethod);
    let plugin = DicePlugin;
    let mut options = yomi_plugin::protocol::options::defaults(&plugin.manifest().bots[0].options);
    options.insert("ranges".into(), json!({"F7": [9, 2, 1]}));
    assert!(plugin
        .new_agent("dice", &options, &AgentContext::default())
        .err()
        .unwrap()
        .message
        .contains("greater"));
    options.insert("ranges".into(), json!({"F7": [1, 2, -1]}));
    assert!(plugin
        .new_agent("dice", &options, &AgentContext::default())
        .err()
        .unwrap()
        .message
        .contains("negative"));
}

#[test]
fn an_agent_keeps_a_bounded_number_of_player_streams() {
    let mut a = agent(json!({}), None);
    for k in 0..yomi_dice::service::MAX_PLAYERS {
        a.call("roll", &json!({"player": format!("p{k}")})).unwrap();
    }
    let e = a.call("roll", &json!({"player": "one more"})).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{}", e.message);
    // Players it already has keep rolling.
    assert!(a.call("roll", &json!({"player": "p7"})).is_ok());
}
