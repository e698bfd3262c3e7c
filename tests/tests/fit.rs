//! End-to-end tests of `yomi fit`: a synthetic population (three Sevens D-value players at
//! temperature 2, recorded as if people had played) fitted back, the known temperature inside
//! the 95 % interval, the fitted preset ahead of every shipped one on held-out plays and offered
//! as `dvalue:preset=NAME` from the data directory.

use std::path::Path;

use serde_json::Value;
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in};

/// Records `games` seeded games of three `sevens/dvalue:temperature=2` seats as record set `syn`.
fn population(data: &Path, games: u32, seed: u64) {
    let path = data.join("match.jsonl");
    let bot = "sevens/dvalue:temperature=2";
    run_ok(
        yomi_in(data)
            .args(["match", "--game", "sevens", "--bot", bot, "--bot", bot, "--bot", bot])
            .args(["--games", &games.to_string(), "--seed", &seed.to_string(), "--transcript"])
            .arg(&path),
    );
    run_ok(yomi_in(data).args(["records", "import", "syn"]).arg(&path));
}

fn fit(data: &Path, extra: &[&str]) -> std::process::Output {
    yomi_in(data)
        .args(["fit", "sevens/dvalue", "--records", "syn", "--fit", "temperature", "--json"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn fit_recovers_a_known_temperature_and_its_preset_is_offered() {
    let data = temp_dir();
    population(data.path(), 25, 7);
    let out = json_out(&run_ok(yomi_in(data.path()).args([
        "fit",
        "sevens/dvalue",
        "--records",
        "syn",
        "--fit",
        "temperature",
        "--preset",
        "people",
        "--json",
    ])));
    let fitted = &out["fitted"][0];
    assert_eq!(fitted["name"], "temperature", "{out}");
    let [lo, hi] = [0, 1].map(|i| fitted["ci95"][i].as_f64().unwrap());
    assert!(lo <= 2.0 && 2.0 <= hi, "2 outside [{lo}, {hi}]: {out}");
    let held = &out["held_out_log_likelihood"];
    let fitted_ll = held["fitted"].as_f64().unwrap();
    assert!(fitted_ll > held["uniform"].as_f64().unwrap(), "{out}");
    for (preset, ll) in held["presets"].as_object().unwrap() {
        assert!(fitted_ll > ll.as_f64().unwrap(), "preset {preset} ahead: {out}");
    }
    let file = data.path().join("presets/sevens/dvalue/people.json");
    let preset: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(preset["options"]["temperature"], fitted["value"]);
    // The preset plays, and the catalog lists it marked as fitted.
    run_ok(yomi_in(data.path()).args([
        "match",
        "--game",
        "sevens",
        "--bot",
        "dvalue:preset=people",
        "--bot",
        "dvalue",
        "--bot",
        "dvalue",
        "--games",
        "1",
    ]));
    let bots =
        String::from_utf8_lossy(&run_ok(yomi_in(data.path()).arg("bots")).stdout).into_owned();
    assert!(bots.contains("preset people") && bots.contains("fitted: records `syn`"), "{bots}");
}

#[test]
fn bad_fits_are_refused_by_name() {
    let data = temp_dir();
    population(data.path(), 5, 1);
    for (extra, says) in [
        (&["--preset", "../x"][..], "`../x`: a preset's name is"),
        (&["--fit", "nothing"][..], "the bot has no option `nothing`"),
        (&["--fit", "opening_above"][..], "cannot be fitted"),
        (&["--floor", "0"][..], "--floor is a probability"),
    ] {
        let out = fit(data.path(), extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says), "{extra:?}: {stderr}");
    }
}
