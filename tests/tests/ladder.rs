//! `yomi ladder`: a seeded round robin rated as one list with the reference at 0, resumable from
//! the records, written as a plugin's `ladder.json`; the catalog shows the checked-in ladders; bad
//! arguments are refused clearly.

use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in};

#[test]
fn a_ladder_rates_every_preset_against_the_reference_and_runs_again_from_the_records() {
    let data = temp_dir();
    let out_file = data.path().join("ladder.json");
    let args = [
        "ladder",
        "rps",
        "--reference",
        "example/rps",
        "--games-per-pair",
        "4",
        "--json",
        "--out",
        out_file.to_str().unwrap(),
    ];
    let first = run_ok(yomi_in(data.path()).args(args));
    let ladder = json_out(&first)["ladder"].clone();
    let rungs = ladder["rungs"].as_array().unwrap();
    // The reference with its defaults first, then each of the rps bot's three presets (and any
    // other loaded bot of the game: the test plugins' misbehave plays rps too).
    assert_eq!(
        (rungs[0]["bot"].as_str(), rungs[0]["elo"].as_f64()),
        (Some("example/rps"), Some(0.0))
    );
    let presets: Vec<&str> = rungs.iter().filter_map(|r| r["preset"].as_str()).collect();
    assert_eq!(presets, ["uniform", "rock-lover", "reader"], "{ladder}");
    for r in &rungs[1..] {
        let (elo, lo, hi) = (
            r["elo"].as_f64().unwrap(),
            r["elo_ci95"][0].as_f64().unwrap(),
            r["elo_ci95"][1].as_f64().unwrap(),
        );
        assert!(lo <= elo && elo <= hi && hi - lo > 0.0, "{r}");
        let others = rungs.len() as u64 - 1;
        assert_eq!(r["games"], others * 4, "each entry meets every other in 4 games: {r}");
    }
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(written, ladder);
    assert!(ladder["command"]
        .as_str()
        .unwrap()
        .starts_with("yomi ladder rps --reference example/rps"));
    // The same command again: the records are finished, the same ladder comes back unplayed.
    let again = run_ok(yomi_in(data.path()).args(args));
    assert_eq!(json_out(&again)["ladder"], ladder);
    assert!(!String::from_utf8_lossy(&again.stderr).contains("games; run the same"));
}

#[test]
fn strength_targets_are_reported_against_what_they_achieved() {
    let data = temp_dir();
    let args = [
        "ladder",
        "battle",
        "--target",
        "battle/delta-nash=250,450",
        "--games-per-pair",
        "2",
        "--json",
    ];
    let out = json_out(&run_ok(yomi_in(data.path()).args(args)));
    let targets = out["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2, "{out}");
    for (t, want) in targets.iter().zip([250.0, 450.0]) {
        assert_eq!(t["target"].as_f64(), Some(want));
        let error = t["error"].as_f64().unwrap();
        assert!((t["elo"].as_f64().unwrap() - want - error).abs() < 0.11, "{t}");
    }
}

#[test]
fn the_catalog_shows_each_measured_preset_with_its_elo() {
    let data = temp_dir();
    let catalog = json_out(&run_ok(yomi_in(data.path()).args(["bots", "--json"])));
    let bots = catalog["bots"].as_array().unwrap();
    let delta = bots.iter().find(|b| b["id"] == "battle/delta-nash").unwrap();
    let preset = |name: &str| {
        delta["presets"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap().clone()
    };
    let (strong, weak) = (preset("strong"), preset("weak"));
    assert!(strong["elo"].as_f64().unwrap() > weak["elo"].as_f64().unwrap(), "{strong} {weak}");
    assert!(strong["elo_ci95"][0].as_f64().unwrap() < strong["elo"].as_f64().unwrap());
    assert!(delta["options"].as_array().unwrap().iter().any(|o| o["name"] == "strength"));
    let text = String::from_utf8(run_ok(yomi_in(data.path()).arg("bots")).stdout).unwrap();
    assert!(text.lines().any(|l| l.contains("preset strong") && l.contains("(Elo ")), "{text}");
}

#[test]
fn bad_ladder_arguments_are_refused_clearly() {
    let data = temp_dir();
    for (args, want) in [
        (vec!["ladder", "chess"], "chess"),
        (
            vec!["ladder", "rps"],
            "no bot `example/random` plays `rps`; name the reference with --reference BOT",
        ),
        (
            vec!["ladder", "battle", "--knob", "battle/delta-nash"],
            "--knob `battle/delta-nash` is not BOT:OPTION=V1,V2,...",
        ),
        (vec!["ladder", "battle", "--target", "battle/delta-nash=high"], "`high` is not a number"),
    ] {
        let out = yomi_in(data.path()).args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}
