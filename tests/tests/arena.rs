//! End-to-end tests of paired tournaments through the command line: `--repeat` records each
//! deal's two games as a pair with the seats swapped, the standings count the pairs'
//! pentanomial outcomes, shards never split one, and
//! `--show --crosstable` prints what the JSON's crosstable holds.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use yomi_e2e::{json_out, recorded_games, run_ok, temp_dir, yomi_in as yomi, Server};

/// 3 bots, 3 pairings of 6 games: 9 pairs.
const TOURNAMENT: &[&str] = &[
    "tournament",
    "--game",
    "rps",
    "--games-per-pair",
    "6",
    "--repeat",
    "--seed",
    "5",
    "--id",
    "paired",
    "--bot",
    "example/rps",
    "--bot",
    "example/rps:preset=reader",
    "--bot",
    "example/rps:preset=rock-lover",
];

/// A recorded game: index, pair, the bot in each seat, scores.
type Game = (u64, Option<u64>, Vec<String>, Vec<f64>);

/// Every recorded game of `id`, in index order.
fn games(data: &Path, id: &str) -> Vec<Game> {
    recorded_games(data, id, "idx, pair, seats, scores", |r| {
        let (seats, scores): (String, String) = (r.get(2)?, r.get(3)?);
        Ok((
            r.get::<_, i64>(0)? as u64,
            r.get::<_, Option<i64>>(1)?.map(|p| p as u64),
            serde_json::from_str(&seats).unwrap(),
            serde_json::from_str(&scores).unwrap(),
        ))
    })
}

/// The first bot's points in a game against the second (1 won, ½ drawn), read off the records.
fn points(first: &str, seats: &[String], scores: &[f64]) -> f64 {
    let me = seats.iter().position(|s| s == first).unwrap();
    let them = 1 - me;
    if scores[me] > scores[them] {
        1.0
    } else if scores[me] == scores[them] {
        0.5
    } else {
        0.0
    }
}

#[test]
fn repeated_games_are_recorded_and_counted_as_pairs() {
    let tmp = temp_dir();
    let data = tmp.path().join("data");
    let summary = json_out(&run_ok(yomi(&data).args(TOURNAMENT).arg("--json")));
    assert_eq!(summary["games"], Value::from(18));
    let recorded = games(&data, "paired");
    assert_eq!(recorded.len(), 18);

    // Games 2k and 2k+1 are pair k: the same two bots, seats swapped.
    let mut pair_points: BTreeMap<Vec<String>, Vec<f64>> = BTreeMap::new();
    for two in recorded.chunks(2) {
        let [(i, p, seats, scores), (_, q, swapped, scores2)] = two else { unreachable!() };
        assert_eq!((*p, *q), (Some(i / 2), Some(i / 2)), "game {i}");
        assert_eq!(seats.iter().rev().collect::<Vec<_>>(), swapped.iter().collect::<Vec<_>>());
        let mut bots = seats.clone();
        bots.sort();
        let first = &bots[0];
        let total = points(first, seats, scores) + points(first, swapped, scores2);
        pair_points.entry(bots).or_default().push(total);
    }

    // Each pairing's pentanomial is its pairs' points, counted from the records.
    let pairings = summary["pairings"].as_array().unwrap();
    assert_eq!(pairings.len(), 3);
    for pairing in pairings {
        assert_eq!(pairing["model"], "pentanomial");
        assert!(pairing.get("trinomial").is_none());
        let bots: Vec<String> = pairing["bots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap().into())
            .collect();
        let mut counts = [0u64; 5];
        for p in &pair_points[&{
            let mut sorted = bots.clone();
            sorted.sort();
            sorted
        }] {
            // The pairing's first bot is the first label sorted or the other one.
            let p = if bots[0] <= bots[1] { *p } else { 2.0 - p };
            counts[(p * 2.0) as usize] += 1;
        }
        let reported: Vec<u64> = pairing["pentanomial"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(reported, counts, "{bots:?}");
        assert_eq!(reported.iter().sum::<u64>(), 3, "3 pairs a pairing");
        let los = pairing["los"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&los));
        assert!(pairing["nelo"].is_number() || pairing["nelo"].is_null());
    }

    // Ratings relative to the first bot, which sits at 0.
    assert_eq!(summary["elo_reference"], "example/rps");
    let reference =
        summary["standings"].as_array().unwrap().iter().find(|r| r["bot"] == "example/rps");
    assert_eq!(reference.unwrap()["elo"], Value::from(0.0));

    // The crosstable: points against each, as the records say, and the same on the terminal.
    let cross = summary["crosstable"].as_array().unwrap();
    let order: Vec<&str> = summary["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bot"].as_str().unwrap())
        .collect();
    let labels: Vec<&str> = cross.iter().map(|r| r["bot"].as_str().unwrap()).collect();
    assert_eq!(labels, order);
    for (i, row) in cross.iter().enumerate() {
        for (j, other) in order.iter().enumerate() {
            let expected: f64 = recorded
                .iter()
                .filter(|(_, _, seats, _)| {
                    seats.iter().any(|s| s == order[i]) && seats.iter().any(|s| s == *other)
                })
                .filter(|_| i != j)
                .map(|(_, _, seats, scores)| points(order[i], seats, scores))
                .sum();
            let cell = &row["points"][j];
            if i == j {
                assert!(cell.is_null());
            } else {
                assert_eq!(cell.as_f64(), Some(expected), "{} vs {other}", order[i]);
                assert_eq!(row["games"][j], Value::from(6));
            }
        }
    }
    let shown = run_ok(yomi(&data).args(["tournament", "--show", "paired", "--crosstable"]));
    let text = String::from_utf8(shown.stdout).unwrap();
    let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("crosstable")).collect();
    assert_eq!(table.len(), 2 + 3, "{text}");
    let cell = |v: &Value| v.as_f64().map_or("-".to_string(), |p| format!("{p}/6"));
    for (line, row) in table[2..].iter().zip(cross) {
        let cells: Vec<String> = row["points"].as_array().unwrap().iter().map(cell).collect();
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            words[words.len() - 3..],
            cells.iter().map(String::as_str).collect::<Vec<_>>()[..]
        );
    }
    assert!(text.contains("pentanomial ["), "{text}");
}

/// Four shards of 9 pairs (18 games, which blocks of 4, 5, 4 and 5 games would split): each
/// holds whole pairs, and the merge equals the one-process tournament.
#[test]
fn shards_never_split_a_pair() {
    let tmp = temp_dir();
    let whole = json_out(&run_ok(yomi(&tmp.path().join("whole")).args(TOURNAMENT).arg("--json")));
    let mut dirs = Vec::new();
    for i in 0..4 {
        let dir = tmp.path().join(format!("shard{i}"));
        run_ok(yomi(&dir).args(TOURNAMENT).args(["--shard", &format!("{i}/4"), "--json"]));
        let id = format!("paired-shard-{i}-of-4");
        let recorded = games(&dir, &id);
        assert!(recorded.len().is_multiple_of(2), "shard {i} holds {} games", recorded.len());
        for two in recorded.chunks(2) {
            assert_eq!(two[0].1, two[1].1, "shard {i}: a pair split");
        }
        dirs.push(dir);
    }
    let out = tmp.path().join("merged");
    let mut merge = yomi(&out);
    merge.args(["tournament", "merge", "--json"]).args(&dirs);
    let merged = json_out(&run_ok(&mut merge));
    for key in ["games", "pairings", "standings", "crosstable", "elo_reference"] {
        assert_eq!(merged[key], whole[key], "{key}");
    }
}

/// Over the protocol: `"repeat": true` plays pairs and reports pentanomial counts; an odd game
/// count is refused before anything is recorded, and the session goes on.
#[test]
fn tournament_run_plays_pairs_and_refuses_what_cannot_pair() {
    let tmp = temp_dir();
    let mut server = Server::stdio(&["--data-dir", tmp.path().to_str().unwrap()]);
    let conn = server.conn();
    let bots = json!([{"bot": "example/rps"}, {"bot": "example/rps", "preset": "reader"}]);
    let odd = json!({"game": "rps", "bots": bots, "games_per_pair": 3, "repeat": true});
    assert_eq!(conn.err("tournament.run", odd), "invalid_params");
    let spec = json!({"game": "rps", "bots": bots, "games_per_pair": 4, "repeat": true});
    let summary = conn.ok("tournament.run", spec);
    let pairing = &summary["pairings"][0];
    assert_eq!(pairing["model"], "pentanomial");
    let pairs: u64 =
        pairing["pentanomial"].as_array().unwrap().iter().filter_map(Value::as_u64).sum();
    assert_eq!(pairs, 2);
    assert_eq!(summary["crosstable"][0]["games"].as_array().unwrap().len(), 2);
    let listed = conn.ok("tournament.list", json!({}));
    assert_eq!(listed.as_array().unwrap().len(), 1, "the refused one left no record: {listed}");
}
