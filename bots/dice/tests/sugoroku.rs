//! The sugoroku game: a seeded transcript snapshot, illegal actions, and trap control keeping
//! hits in the band over many runs.

use serde_json::{json, Value};
use yomi_dice::game::Sugoroku;
use yomi_dice::walker::Walker;
use yomi_plugin::referee::play;
use yomi_plugin::typed::Typed;
use yomi_plugin::{ErrorCode, Game, Options};

fn options(dice: &str, runs: u64, seats: u64) -> Options {
    [
        ("players", json!(seats)),
        ("runs", json!(runs)),
        ("dice", json!(dice)),
        ("trap_window", json!(10)),
        ("board", Value::Null),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn walker() -> Typed<Walker> {
    Typed(Walker::new(&[("route".to_string(), json!("safe"))].into_iter().collect()).unwrap())
}

#[test]
fn seeded_game_transcript() {
    let mut game = Sugoroku::new(&options("controlled", 2, 2), 7).unwrap();
    let (mut a, mut b) = (walker(), walker());
    let played = play(&mut game, &mut [&mut a, &mut b]).unwrap();
    insta::assert_json_snapshot!(played);
}

#[test]
fn illegal_moves_change_nothing() {
    let mut game = Sugoroku::new(&options("plain", 1, 2), 3).unwrap();
    let before = game.decisions();
    let e = game.apply(&[(0, json!(999))]).unwrap_err();
    assert_eq!(e.code, ErrorCode::IllegalAction);
    assert!(e.message.starts_with("seat 0"));
    assert_eq!(
        game.apply(&[(1, before[0].legal[0].clone())]).unwrap_err().code,
        ErrorCode::IllegalAction
    );
    assert_eq!(game.decisions(), before);
    let mut bad = options("plain", 1, 1);
    bad.insert("board".into(), json!({"squares": [{"next": [1]}, {"next": [0]}]}));
    assert!(Sugoroku::new(&bad, 1).err().unwrap().message.contains("no path to the goal"));
}

#[test]
fn control_narrows_trap_hits() {
    let spread = |dice: &str| {
        let hits: Vec<f64> = (0..40)
            .map(|s| {
                let mut game = Sugoroku::new(&options(dice, 15, 1), s).unwrap();
                play(&mut game, &mut [&mut walker()]).unwrap();
                game.hits()[0] as f64
            })
            .collect();
        let mean = hits.iter().sum::<f64>() / hits.len() as f64;
        (mean, hits.iter().map(|h| (h - mean).powi(2)).sum::<f64>() / (hits.len() - 1) as f64)
    };
    let (plain_mean, plain_var) = spread("plain");
    let (ctl_mean, ctl_var) = spread("controlled");
    assert!(plain_mean > 1.0 && ctl_mean > 1.0, "{plain_mean} {ctl_mean}");
    assert!(ctl_var < plain_var, "controlled variance {ctl_var} vs plain {plain_var}");
}
