//! What one request may cost the server, bounded before the work starts: schedules, match sizes,
//! transcripts, worker processes; seeds no other client can predict; plugin files and options
//! that could hang or mislead the server. Each test is one small line an attacker (or a
//! mistaken client) could send.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{error_code, temp_dir, workers_of, yomi_bin, Server};

/// `tournament.run` of `bots` bots of `bot` with these extra fields.
fn tournament(game: &str, bot: &str, bots: usize, extra: Value) -> Value {
    let mut spec =
        json!({"game": game, "bots": vec![json!({"bot": bot}); bots], "games_per_pair": 1});
    for (k, v) in extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    spec
}

#[test]
fn schedules_beyond_the_limit_are_refused_at_once_and_the_server_keeps_serving() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    let server = Server::tcp(&[
        "--data-dir",
        dir,
        "--max-games",
        "100000",
        "--operator-max-games",
        "100000",
    ]);
    let mut conn = server.connect();
    for (game, bot, bots, extra) in [
        ("rps", "example/rps", 2, json!({"games_per_pair": 4_294_967_295u64})),
        ("rps", "example/rps", 2, json!({"games_per_pair": 10_000_000})),
        // 593,775 pairings of six: the schedule alone once took a minute and stopped every client.
        ("sevens", "sevens/random", 30, json!({"seats": 6})),
    ] {
        let started = Instant::now();
        let reply = conn.request("tournament.run", tournament(game, bot, bots, extra.clone()));
        assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{extra}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("--max-games 100000"), "{message}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "refused only after {:?}",
            started.elapsed()
        );
    }
    conn.assert_alive();
    server.connect().assert_alive();
}

#[test]
fn match_sizes_and_transcripts_are_bounded() {
    let server = Server::tcp(&[
        "--max-games",
        "100",
        "--operator-max-games",
        "100",
        "--max-transcript-games",
        "10",
    ]);
    let mut conn = server.connect();
    let seats = json!([{"bot": "example/rps"}, {"bot": "example/rps"}]);
    let big = conn.request("match.run", json!({"game": "rps", "games": 101, "seats": seats}));
    assert_eq!(error_code(&big).as_deref(), Some("limit_exceeded"), "{big}");
    let long_transcript = json!({"game": "rps", "games": 11, "seats": seats, "transcript": true});
    let reply = conn.request("match.run", long_transcript);
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("--max-transcript-games 10"));
    let short = conn
        .ok("match.run", json!({"game": "rps", "games": 10, "seats": seats, "transcript": true}));
    assert_eq!(short["games"], json!(10));
    assert!(short["transcript"].as_array().is_some_and(|t| t.len() > 10));
}

/// 1,000 games of 1,000-round rps fit `--max-transcript-games` yet would hold about 20 GB of
/// transcript for the reply: the reply's bytes are bounded instead, game by game.
#[test]
fn a_match_replys_transcript_is_bounded_in_bytes_not_only_in_games() {
    let server = Server::tcp(&["--max-match-transcript-bytes", "50000"]);
    let mut conn = server.connect();
    let seats = json!([{"bot": "example/rps"}, {"bot": "example/rps"}]);
    let long = json!({"game": "rps", "games": 6, "seats": seats, "transcript": true, "seed": 5,
        "game_options": {"rounds": 20}});
    let reply = conn.ok("match.run", long);
    assert_eq!(reply["games"], 6, "every game is played and counted: {reply}");
    let lines = reply["transcript"].as_array().unwrap();
    let bytes: usize = lines.iter().map(|line| line.to_string().len() + 1).sum();
    let omitted: Vec<&Value> = lines.iter().filter(|l| l["type"] == "omitted").collect();
    assert!(
        !omitted.is_empty() && omitted.len() < 6,
        "some games kept, some left out: {}",
        omitted.len()
    );
    assert!(bytes <= 50_000 + 1_000, "the reply's transcript stays near its limit: {bytes}");
    for note in &omitted {
        assert_eq!(note["limit"], 50_000, "{note}");
        assert!(note["why"].as_str().unwrap().contains("--max-match-transcript-bytes"), "{note}");
    }
    assert_eq!(lines.last().unwrap()["type"], "result", "the result line closes it");
    // The server keeps serving, and a short match's transcript is whole.
    let short = json!({"game": "rps", "games": 2, "seats": seats, "transcript": true});
    let whole = conn.ok("match.run", short);
    assert!(whole["transcript"].as_array().unwrap().iter().all(|l| l["type"] != "omitted"));
}

#[test]
fn sessions_without_a_seed_draw_theirs_from_the_os_and_say_which() {
    let server = Server::tcp(&[]);
    let seed_of_first_agent = || {
        let mut conn = server.connect();
        conn.ok("agent.new", json!({"bot": "example/rps"}))["seed"].clone()
    };
    let (a, b) = (seed_of_first_agent(), seed_of_first_agent());
    assert!(a.is_u64() && b.is_u64(), "{a} {b}");
    assert_ne!(a, b, "two sessions' first agents share a seed: one could replay the other's bot");

    let mut conn = server.connect();
    let seats = json!([{"bot": "example/rps"}, {"bot": "example/rps", "options": {"bias": 0.5}}]);
    let first = conn.ok("match.run", json!({"game": "rps", "games": 3, "seats": seats}));
    let second = conn.ok("match.run", json!({"game": "rps", "games": 3, "seats": seats}));
    assert!(first["seed"].is_u64(), "the reply says the match's seed: {first}");
    assert_ne!(first["seed"], second["seed"]);
    // The seed it names replays the match exactly.
    let again = conn
        .ok("match.run", json!({"game": "rps", "games": 3, "seats": seats, "seed": first["seed"]}));
    assert_eq!(again["scores"], first["scores"]);
    assert_eq!(again["seed"], first["seed"]);

    // A fixed base seed (for tests that replay whole sessions) still gives every session the same.
    let fixed = Server::tcp(&["--seed", "5"]);
    let seeds: Vec<Value> = (0..2)
        .map(|_| fixed.connect().ok("agent.new", json!({"bot": "example/rps"}))["seed"].clone())
        .collect();
    assert_eq!(seeds[0], seeds[1]);
}

#[test]
fn worker_processes_are_capped_across_every_session() {
    let server = Server::tcp(&["--max-workers", "2"]);
    let isolated =
        json!([{"bot": "example/rps", "isolate": true}, {"bot": "example/rps", "isolate": true}]);
    let one_isolated = json!([{"bot": "example/rps", "isolate": true}, {"bot": "example/rps"}]);
    // One game needing more places than the server has is refused at once.
    let tight = Server::tcp(&["--max-workers", "1"]);
    let reply = tight.connect().request("match.run", json!({"game": "rps", "seats": isolated}));
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("--max-workers 1"));

    // Four sessions each start a match with isolated seats: never more than two workers run.
    let mut conns: Vec<_> = (0..4).map(|_| server.connect()).collect();
    for (i, conn) in conns.iter_mut().enumerate() {
        let seats = if i % 2 == 0 { &isolated } else { &one_isolated };
        let id = conn.next_id();
        conn.send(
            &json!({"id": id, "op": "match.run", "game": "rps", "games": 300, "seats": seats}),
        );
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut most = 0;
    let mut done = vec![false; conns.len()];
    while done.iter().any(|d| !d) {
        assert!(Instant::now() < deadline, "the matches did not finish");
        most = most.max(workers_of(server.pid()));
        for (conn, done) in conns.iter_mut().zip(done.iter_mut()).filter(|(_, d)| !**d) {
            while let Some(line) = conn.recv_within(Duration::from_millis(5)) {
                if line.get("id").is_some() {
                    assert_eq!(line["ok"], json!(true), "{line}");
                    *done = true;
                }
            }
        }
    }
    assert!(most >= 1, "no worker was ever seen: the count is not measuring anything");
    assert!(most <= 2, "{most} worker processes ran at once with --max-workers 2");
}

#[test]
fn plugin_load_of_a_fifo_answers_at_once() {
    let dir = temp_dir();
    let fifo = dir.path().join("libyomi_fifo.so");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut server = Server::stdio_with_dir(dir.path());
    let started = Instant::now();
    let reply = server.conn().request("plugin.load", json!({"path": fifo}));
    assert_eq!(error_code(&reply).as_deref(), Some("plugin_load"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("not a regular file"), "{reply}");
    assert!(started.elapsed() < Duration::from_secs(5));
    server.conn().assert_alive();
}

#[test]
fn a_missing_plugin_directory_stops_the_server_at_start() {
    let out = Command::new(yomi_bin())
        .args(["serve", "--stdio", "--plugins", "/nonexistent/yomi-plugins"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "started with no plugins: {stderr}");
    assert!(stderr.contains("/nonexistent/yomi-plugins"), "{stderr}");
}

#[test]
fn an_option_given_twice_is_refused() {
    let out = Command::new(yomi_bin())
        .args(["match", "--game", "rps", "--bot", "rps:reading=1,reading=2", "--bot", "rps"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("`reading` is given twice"), "{stderr}");
}

#[test]
fn a_tournament_takes_the_id_its_client_names() {
    let data = temp_dir();
    let server = Server::tcp(&["--data-dir", data.path().to_str().unwrap()]);
    let mut conn = server.connect();
    let mut spec =
        tournament("rps", "example/rps", 2, json!({"tournament": "cup-1", "games_per_pair": 2}));
    spec["op"] = json!("tournament.run");
    spec["id"] = json!(7);
    conn.send(&spec);
    // Tournament events carry the tournament's id too: the reply is the line with `ok`.
    let reply = std::iter::repeat_with(|| conn.recv()).find(|line| line.get("ok").is_some());
    let result = &reply.unwrap()["result"];
    assert_eq!(result["id"], json!("cup-1"), "{result}");
    let listed = conn.ok("tournament.list", json!({}));
    assert!(listed.as_array().unwrap().iter().any(|t| t["id"] == json!("cup-1")), "{listed}");
}

#[test]
fn tournament_ids_are_bounded_unguessable_and_leave_nothing_behind() {
    let data = temp_dir();
    let server = Server::tcp(&["--data-dir", data.path().to_str().unwrap()]);
    let mut conn = server.connect();
    let huge = "x".repeat(90_000);
    for bad in [huge.as_str(), "", "../escape", "id with spaces", "t\u{0}"] {
        let spec = tournament("rps", "example/rps", 2, json!({"tournament": bad}));
        let reply = conn.request("tournament.run", spec);
        assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{bad:.20}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.len() < 300, "the error does not echo a huge id: {}", message.len());
        let reply = conn.request("tournament.run", json!({"resume": bad}));
        assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{bad:.20}: {reply}");
    }
    let listed = conn.ok("tournament.list", json!({}));
    assert_eq!(listed, json!([]), "a refused id left a row");
    // A fresh id: the start time, then 64 random bits.
    let mut ids = Vec::new();
    for _ in 0..2 {
        conn.send(&json!({"id": 1, "op": "tournament.run", "game": "rps",
            "bots": [{"bot": "example/rps"}, {"bot": "example/rps"}], "games_per_pair": 1}));
        let reply = std::iter::repeat_with(|| conn.recv()).find(|line| line.get("ok").is_some());
        ids.push(reply.unwrap()["result"]["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        let (_, random) = id.split_once('-').expect("t<seconds>-<random>");
        assert_eq!(random.len(), 16, "{id}");
        assert!(random.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    }
    assert_ne!(ids[0], ids[1]);
    // Finished tournaments keep no lock file.
    let locks = data.path().join("tournament-locks");
    let left = std::fs::read_dir(&locks).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "lock files left in {}", locks.display());
}

/// Runs a small tournament named `id` on `conn` to its end: the reply.
fn finished_tournament(conn: &mut yomi_e2e::Conn, id: &str) -> Value {
    let mut spec = tournament("rps", "example/rps", 2, json!({"tournament": id}));
    spec["op"] = json!("tournament.run");
    spec["id"] = json!(1);
    conn.send(&spec);
    std::iter::repeat_with(|| conn.recv()).find(|line| line.get("ok").is_some()).unwrap()
}

#[test]
fn a_player_cannot_resume_or_take_over_an_operators_tournament() {
    let data = temp_dir();
    let (player, operator) = ("player-token-for-tests", "operator-token-for-tests");
    let dir = data.path().to_str().unwrap();
    let server = Server::tcp(&["--data-dir", dir, "--token", player, "--operator-token", operator]);
    let mut op = server.connect();
    op.ok("hello", json!({"token": operator}));
    assert_eq!(finished_tournament(&mut op, "op-cup")["ok"], true);
    let mut pl = server.connect();
    pl.ok("hello", json!({"token": player}));
    assert_eq!(finished_tournament(&mut pl, "pl-cup")["ok"], true);

    // The operator's tournament is not there for a player, under either op.
    let reply = pl.request("tournament.run", json!({"resume": "op-cup"}));
    assert_eq!(error_code(&reply).as_deref(), Some("not_found"), "{reply}");
    let reply = finished_tournament(&mut pl, "op-cup");
    assert_eq!(error_code(&reply).as_deref(), Some("conflict"), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("choose another id"), "{reply}");
    // A player's own, and every one for the operator, is there (both finished).
    for (by_player, id) in [(true, "pl-cup"), (false, "op-cup"), (false, "pl-cup")] {
        let conn = if by_player { &mut pl } else { &mut op };
        let reply = conn.request("tournament.run", json!({"resume": id}));
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("already finished"), "{id}: {reply}");
    }
}

/// Games of tournament `id` in the records of `data` with a transcript kept, and without.
fn transcripts_kept(data: &std::path::Path, id: &str) -> (i64, i64) {
    let conn = rusqlite::Connection::open(data.join("records.sqlite3")).unwrap();
    let count = |sql: &str| conn.query_row(sql, [id], |r| r.get(0)).unwrap();
    (
        count("SELECT COUNT(*) FROM games WHERE tournament = ?1 AND transcript != ''"),
        count("SELECT COUNT(*) FROM games WHERE tournament = ?1 AND transcript = ''"),
    )
}

#[test]
fn a_tournament_stops_at_the_data_quota_keeping_its_games_and_resumes_once_there_is_room() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap();
    // A request's tournament keeps no transcripts unless it asks.
    let server = Server::tcp(&["--data-dir", dir]);
    let mut conn = server.connect();
    let reply = finished_tournament(&mut conn, "plain");
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(transcripts_kept(data.path(), "plain"), (0, 1));
    drop((conn, server));

    // 300 rounds of rps a game with transcripts, about 1.9 MB each: past a 5 MB quota by the third.
    let long = json!({"tournament": "long", "keep_transcripts": true, "games_per_pair": 6,
        "game_options": {"rounds": 300}});
    let server = Server::tcp(&["--data-dir", dir, "--max-data-bytes", "5000000"]);
    let mut conn = server.connect();
    let mut spec = tournament("rps", "example/rps", 2, long);
    spec["op"] = json!("tournament.run");
    spec["id"] = json!(1);
    conn.send(&spec);
    let reply = std::iter::repeat_with(|| conn.recv()).find(|line| line.get("ok").is_some());
    let reply = reply.unwrap();
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("--max-data-bytes") && message.contains("\"resume\":\"long\""),
        "{message}"
    );
    let (kept, _) = transcripts_kept(data.path(), "long");
    assert!(kept > 0 && kept < 6, "some games recorded, not all: {kept}");
    let listed = conn.ok("tournament.list", json!({}));
    let long = listed.as_array().unwrap().iter().find(|t| t["id"] == "long").unwrap().clone();
    assert_eq!(long["status"], "interrupted", "{listed}");
    let total: u64 =
        std::fs::read_dir(data.path()).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    assert!(total <= 5_000_000, "the quota held: {total} bytes");
    drop((conn, server));

    // Room again (a larger quota): it resumes and ends with every game, each recorded once.
    let server = Server::tcp(&["--data-dir", dir, "--max-data-bytes", "0"]);
    let mut conn = server.connect();
    conn.send(&json!({"id": 2, "op": "tournament.run", "resume": "long"}));
    let reply = std::iter::repeat_with(|| conn.recv()).find(|line| line.get("ok").is_some());
    assert_eq!(reply.as_ref().unwrap()["result"]["games"], 6, "{reply:?}");
    assert_eq!(transcripts_kept(data.path(), "long"), (6, 0));
}

/// 1,000-round rps with transcripts (about 20 MB a game): 300 games could write 300 × 1 MiB of
/// kept transcripts, past the 256 MiB a player's tournament may write.
#[test]
fn a_players_tournament_that_could_fill_the_disk_is_refused_before_its_first_game() {
    let data = temp_dir();
    let token = "player-token-for-tests";
    let dir = data.path().to_str().unwrap();
    let server = Server::tcp(&["--data-dir", dir, "--token", token]);
    let mut conn = server.connect();
    conn.ok("hello", json!({"token": token}));
    let flood = json!({"tournament": "flood", "keep_transcripts": true, "games_per_pair": 300,
        "game_options": {"rounds": 1000}});
    let mut spec = tournament("rps", "example/rps", 2, flood);
    spec["bots"][1]["options"] = json!({"reading": 1});
    let started = Instant::now();
    let reply = conn.request("tournament.run", spec);
    assert_eq!(error_code(&reply).as_deref(), Some("limit_exceeded"), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-tournament-bytes"), "{message}");
    assert!(message.contains("leave out the transcripts"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5), "refused before a game was played");
    // Nothing recorded: no records at all, or none of this tournament.
    let path = data.path().join("records.sqlite3");
    if path.exists() {
        let records = rusqlite::Connection::open(&path).unwrap();
        let flood: i64 = records
            .query_row("SELECT COUNT(*) FROM tournaments WHERE id = 'flood'", [], |r| r.get(0))
            .unwrap_or(0);
        assert_eq!(flood, 0, "a refused plan leaves nothing in the records");
    }

    // Within the plan, a game whose transcript passes its limit keeps its result, not the
    // transcript (300 rounds: about 1.9 MB against the 1 MiB default).
    let long = json!({"tournament": "long", "keep_transcripts": true, "games_per_pair": 2,
        "game_options": {"rounds": 300}});
    let reply = conn.request("tournament.run", tournament("rps", "example/rps", 2, long));
    assert_eq!(reply["result"]["games"], 2, "{reply}");
    let records = rusqlite::Connection::open(&path).unwrap();
    let kept: Vec<String> = records
        .prepare("SELECT transcript FROM games WHERE tournament = 'long'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(kept.len(), 2);
    for transcript in kept {
        let note: Value = serde_json::from_str(transcript.trim()).unwrap();
        assert_eq!(note["type"], "omitted", "{note}");
        assert!(note["bytes"].as_u64().unwrap() > 1 << 20, "{note}");
    }
}

#[test]
fn the_binary_directory_serves_no_test_fixture_by_request() {
    // Started as the README says, with no --plugins: the build directory (beside the binary)
    // holds the misbehaving test fixture too, which must not be loadable by a client.
    let mut server = Server::stdio(&[]);
    let fixture = yomi_e2e::library("fixture_misbehave");
    for path in [json!(fixture), json!("libfixture_misbehave.so")] {
        let reply = server.conn().request("plugin.load", json!({"path": path}));
        assert_eq!(error_code(&reply).as_deref(), Some("forbidden"), "{reply}");
        assert!(reply["error"]["message"].as_str().unwrap().contains("--plugins DIR"), "{reply}");
    }
    // A plugin-named library there still loads (the same build as at start).
    let example = yomi_e2e::library("yomi_example");
    assert_eq!(server.conn().ok("plugin.load", json!({"path": example}))["name"], json!("example"));
}

/// `agent.act` with `"policy": true` makes a sampling bot draw its strategy many times: the
/// server gives every agent its `--max-policy-ms` allowance at birth, before any request, and
/// battle's δ-Nash answers within it (one draw under 0) and keeps serving.
#[test]
fn a_policy_costs_what_the_operator_allows() {
    let misbehave = yomi_e2e::library("fixture_misbehave").to_str().unwrap().to_string();
    let plugins = yomi_e2e::target_dir().to_str().unwrap().to_string();
    let allowance = |server: &Server| {
        let mut conn = server.connect();
        let made = conn.ok("agent.new", json!({"bot": "misbehave"}));
        let agent = made["agent"].as_str().unwrap();
        conn.ok("agent.call", json!({"agent": agent, "method": "allowance", "params": {}}))
            ["policy_ms"]
            .clone()
    };
    let default = Server::tcp(&["--plugins", &plugins, "--plugins", &misbehave]);
    assert_eq!(allowance(&default), json!(2000));
    let tight =
        Server::tcp(&["--plugins", &plugins, "--plugins", &misbehave, "--max-policy-ms", "0"]);
    assert_eq!(allowance(&tight), json!(0));
    // The costliest δ-Nash decision (1,000 noisy equilibria) asked for its policy: one draw.
    let mut conn = tight.connect();
    let made = conn.ok("agent.new", json!({"bot": "battle/delta-nash", "options": {"n": 1000}}));
    let observation = json!({"you": 0, "phase": "choose",
        "state": {"turn": 1, "hp": [[5, 5, 5], [5, 4, 4]], "active": ["A", "D"]},
        "rules": {"parties": "thesis", "same_type_neutral": false, "turn_limit": 20}});
    let legal = json!([{"move": "grass"}, {"move": "fire"}, {"move": "electric"},
                       {"switch": "B"}, {"switch": "C"}]);
    let acted = conn.ok(
        "agent.act",
        json!({"agent": made["agent"], "observation": observation, "legal": legal, "policy": true}),
    );
    let total: f64 =
        acted["policy"].as_array().unwrap().iter().map(|e| e["p"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "{acted}");
    conn.ok("ping", json!({})); // the server keeps serving
}

/// A stud bet's policy lists each amount of its range, and the range is the client's to state:
/// one `"policy": true` with an open of four billion chips is refused before any is listed, and
/// the allowance (`--max-policy-ms`) sets how long a range may be.
#[test]
fn a_stud_policy_lists_no_more_amounts_than_the_allowance_pays_for() {
    let open = |max: u64| {
        let observation = json!({"chips": [100000, 100000], "game": 1, "games": 1,
            "history": [], "hole": ["Th", "3d"], "opp_hole_count": 2, "opp_up": ["Kh"],
            "paid": [5, 5], "phase": "bet", "position": 0, "pot": max, "seat": 0, "turn": 1,
            "up": ["Qd"], "legal": [{"act": "drop"}, {"act": "open", "min": 1, "max": max}]});
        let legal = observation["legal"].clone();
        (observation, legal)
    };
    let act = |server: &Server, bot: &str, max: u64| {
        let mut conn = server.connect();
        let made = conn.ok("agent.new", json!({"bot": bot, "seed": 1}));
        let (observation, legal) = open(max);
        let reply = conn.request(
            "agent.act",
            json!({"agent": made["agent"], "observation": observation, "legal": legal,
                   "policy": true}),
        );
        conn.ok("ping", json!({})); // the server keeps serving
        reply
    };
    let default = Server::tcp(&[]);
    let tight = Server::tcp(&["--max-policy-ms", "0"]);
    // Every stud bot whose policy lists a bet range's amounts.
    for bot in ["stud/fuzzy", "stud/random"] {
        let huge = act(&default, bot, 4_000_000_000);
        assert_eq!(error_code(&huge).as_deref(), Some("limit_exceeded"), "{bot}: {huge}");
        let message = huge["error"]["message"].as_str().unwrap();
        assert!(message.contains("4000000000 amounts") && message.contains("--max-policy-ms"));
        let refused = act(&tight, bot, 5_000);
        assert_eq!(error_code(&refused).as_deref(), Some("limit_exceeded"), "{bot}: {refused}");
        let listed = act(&tight, bot, 100);
        let total: f64 = listed["result"]["policy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["p"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "{bot}: {listed}");
    }
}
