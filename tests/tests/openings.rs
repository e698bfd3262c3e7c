//! End-to-end tests of opening suites: `--openings` starts deal d of every pairing from opening
//! d mod len, both games of a pair from the same one with the seats swapped, recorded with it;
//! a malformed suite is refused before any game starts, naming its line; a request names a suite
//! of the data directory, never a path or the openings themselves.

use std::path::Path;

use serde_json::{json, Value};
use yomi_e2e::{json_out, recorded_games, run_ok, temp_dir, yomi_in as yomi, Server};

/// A recorded game: index, pair, opening, the bot in each seat.
type Game = (u64, Option<u64>, Option<u64>, Vec<String>);

/// Every recorded game of `id`, in index order.
fn games(data: &Path, id: &str) -> Vec<Game> {
    recorded_games(data, id, "idx, pair, opening, seats", |r| {
        let seats: String = r.get(3)?;
        Ok((
            r.get::<_, i64>(0)? as u64,
            r.get::<_, Option<i64>>(1)?.map(|p| p as u64),
            r.get::<_, Option<i64>>(2)?.map(|o| o as u64),
            serde_json::from_str(&seats).unwrap(),
        ))
    })
}

/// The game options a recorded game was played with, read off its transcript's header.
fn played_options(data: &Path, id: &str, index: u64) -> Value {
    let out = run_ok(yomi(data).args(["tournament", "--transcript", &format!("{id}:{index}")]));
    let text = String::from_utf8(out.stdout).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header["game_options"].clone()
}

/// Nine battle set-ups, each a pair: all 18 games of a pairing cover every set-up with each bot
/// holding each party, and the game really started where its recorded opening says.
#[test]
fn each_opening_is_a_pair_with_the_seats_swapped() {
    let tmp = temp_dir();
    let data = tmp.path().join("data");
    let args = [
        "tournament",
        "--game",
        "battle",
        "--bot",
        "battle/delta-nash",
        "--bot",
        "battle/random",
        "--games-per-pair",
        "18",
        "--repeat",
        "--openings",
        "battle-thesis",
        "--id",
        "open",
        "--json",
    ];
    let summary = json_out(&run_ok(yomi(&data).args(args)));
    assert_eq!(summary["games"], json!(18));
    assert_eq!(summary["pairings"][0]["model"], "pentanomial");
    let recorded = games(&data, "open");
    let suite: Vec<Value> = include_str!("../../openings/battle-thesis.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (k, two) in recorded.chunks(2).enumerate() {
        let [(i, p, o, seats), (j, q, o2, swapped)] = two else { unreachable!() };
        assert_eq!((*p, *q), (Some(k as u64), Some(k as u64)));
        assert_eq!((*o, *o2), (Some(k as u64), Some(k as u64)), "pair {k} shares opening {k}");
        assert_eq!(seats.iter().rev().collect::<Vec<_>>(), swapped.iter().collect::<Vec<_>>());
        for index in [*i, *j] {
            let options = played_options(&data, "open", index);
            assert_eq!(options["actives"], suite[k]["actives"], "game {index}");
            assert_eq!(options["deal"], "fixed");
        }
    }
}

/// A suite with a bad line, in the data directory or a file: refused before anything is
/// recorded, naming the line and what is wrong, whether the line is not JSON or names a deal
/// the game refuses.
#[test]
fn a_malformed_suite_is_refused_before_any_game() {
    let tmp = temp_dir();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(data.join("openings")).unwrap();
    let good = r#"{"deals": ["6s 2d 3h Kh 4s 8c 4c | 2c 6c 8s 8h 8d Ad 5d"]}"#;
    let twice = r#"{"deals": ["6s 6s 3h Kh 4s 8c 4c | 2c 6c 8s 8h 8d Ad 5d"]}"#;
    std::fs::write(data.join("openings/twice.txt"), format!("# ok\n{good}\n\n{twice}\n")).unwrap();
    let file = tmp.path().join("broken.txt");
    std::fs::write(&file, format!("{good}\n{{\"deals\": [}}\n")).unwrap();
    let run = |openings: &str| {
        let out = yomi(&data)
            .args(["tournament", "--game", "stud", "--bot", "stud/fuzzy", "--bot"])
            .args(["stud/fuzzy:preset=no-bluff", "--games-per-pair", "2", "--repeat"])
            .args(["--openings", openings])
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let refused = run("twice");
    assert!(refused.contains("openings `twice` line 4: option `deals`"), "{refused}");
    assert!(refused.contains("card 6s occurs twice"), "{refused}");
    let refused = run(file.to_str().unwrap());
    assert!(refused.contains("openings `broken` line 2: not JSON"), "{refused}");
    let listed = run_ok(yomi(&data).args(["tournament", "--list"]));
    assert!(listed.stdout.is_empty(), "nothing was recorded: {listed:?}");
}

/// Over the protocol: `"openings"` names a suite (the data directory's, then the shipped ones);
/// a path, an unknown name, inline openings and a bad line are refused with nothing recorded,
/// and the session goes on.
#[test]
fn tournament_run_takes_a_suite_by_name_only() {
    let tmp = temp_dir();
    std::fs::create_dir_all(tmp.path().join("openings")).unwrap();
    std::fs::write(tmp.path().join("openings/odd.txt"), "{\"rounds\": 3}\n[1]\n").unwrap();
    let mut server = Server::stdio(&["--data-dir", tmp.path().to_str().unwrap()]);
    let conn = server.conn();
    let bots = json!([{"bot": "battle/delta-nash"}, {"bot": "battle/random"}]);
    let spec = |openings: Value| json!({"game": "battle", "bots": bots, "games_per_pair": 4, "repeat": true, "openings": openings});
    for bad in [
        json!("../records.sqlite3"),
        json!("/etc/passwd"),
        json!("missing"),
        json!("odd"),
        json!({"name": "inline", "openings": [{"deal": "fixed"}]}),
    ] {
        let reply = conn.request("tournament.run", spec(bad.clone()));
        assert_eq!(reply["ok"], json!(false), "{bad}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(!message.contains("root:"), "{message}");
        if bad == json!("odd") {
            assert!(message.contains("openings `odd` line 2"), "{message}");
        }
    }
    let summary = conn.ok("tournament.run", spec(json!("battle-delta")));
    assert_eq!(summary["games"], json!(4));
    let listed = conn.ok("tournament.list", json!({}));
    assert_eq!(listed.as_array().unwrap().len(), 1, "the refused ones left no record: {listed}");
    conn.assert_alive();
}
