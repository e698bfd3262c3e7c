//! The reproduction's row shape and determinism (on a few games; the real run is `yomi repro`),
//! and the plugin's commands.

use yomi_plugin::{CommandContext, ErrorCode, Options, Plugin};
use yomi_sevens::repro::{rows, DEFAULT_READING, PAPER_LOSS_RATE};
use yomi_sevens::SevensPlugin;

#[test]
fn rows_are_complete_and_deterministic() {
    let a = rows(4, 9, &mut |_| {}).unwrap();
    let b = rows(4, 9, &mut |_| {}).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.len(), 155);
    for r in &a {
        assert!(r.n > 0, "{r:?}");
        if let Some([lo, hi]) = r.ci95 {
            assert!(lo <= r.ours && r.ours <= hi, "{r:?}");
        }
    }
    let loss_rows: Vec<_> = a.iter().filter(|r| r.paper == Some(PAPER_LOSS_RATE)).collect();
    assert_eq!(loss_rows.len(), 48);
    // Each series of 4 games: the finishing places of the subject add up to the games, and "not
    // 1st" is 2nd plus 3rd.
    let places: f64 = a.iter().take(3).map(|r| r.ours).sum();
    assert!((places - 1.0).abs() < 1e-9);
    assert!((a[3].ours - a[1].ours - a[2].ours).abs() < 1e-9, "{:?}", &a[..4]);
    // Rows of the paper's section 3 name the reading that produced them.
    assert!(a.iter().filter(|r| r.table == "3").all(|r| r.reading.is_some()));
    assert_eq!(serde_json::to_value(&a[0]).unwrap()["reading"], DEFAULT_READING);
    // The default's name is the dvalue player's own defaults, `key=value` joined by ", ".
    let defaults = SevensPlugin.bot_options("dvalue", None, &Options::new()).unwrap();
    for pair in DEFAULT_READING.split(", ") {
        let (key, value) = pair.split_once('=').expect("key=value");
        assert_eq!(defaults[key], value, "{key}");
    }
    let json = serde_json::to_value(&a[0]).unwrap();
    for key in ["table", "row", "column", "seed", "ours", "ci95", "n"] {
        assert!(json.get(key).is_some(), "{key}");
    }
}

#[test]
fn commands_answer_and_reject_bad_arguments() {
    let p = SevensPlugin;
    let ctx = CommandContext::default();
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let out = p.command(&args(&["d", "KS", "2S", "--table", "8S,9S,6S"]), &ctx).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"], 6);
    assert_eq!(v["board_total"], 106);
    let json = p.command(&args(&["repro", "--json", "--games", "2"]), &ctx).unwrap();
    assert_eq!(serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap().len(), 155);
    for bad in [&["d", "XX"][..], &["repro", "--games", "0"], &["nope"]] {
        let e = p.command(&args(bad), &ctx).unwrap_err();
        assert!(
            matches!(e.code, ErrorCode::InvalidParams | ErrorCode::IllegalAction),
            "{bad:?}: {e:?}"
        );
    }
}
