//! End-to-end tests of the ops behind the playground's tournament page: `tournament.show`
//! (standings, crosstable, rating history), `tournament.games` (a bounded page of recorded games)
//! and `tournament.game` (one game's transcript for the replay viewer), each owner-checked.

use serde_json::{json, Value};
use yomi_e2e::{error_code, temp_dir, Conn, Server};

const PLAYER: &str = "player-token-for-tests";
const OPERATOR: &str = "operator-token-for-tests";

/// Plays a 3-bot rps round robin of 12 games with transcripts kept as tournament `id`.
fn play(conn: &mut Conn, id: &str) -> Value {
    conn.send(&json!({
        "id": 1, "op": "tournament.run", "tournament": id, "game": "rps",
        "bots": [{"bot": "example/rps"}, {"bot": "example/rps", "preset": "reader"},
                 {"bot": "example/rps", "preset": "rock-lover"}],
        "games_per_pair": 4, "seed": 3, "keep_transcripts": true,
    }));
    let reply = std::iter::repeat_with(|| conn.recv()).find(|l| l.get("ok").is_some()).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    reply["result"].clone()
}

fn server(data: &std::path::Path) -> (Server, Conn, Conn) {
    let dir = data.to_str().unwrap();
    let server = Server::tcp(&["--data-dir", dir, "--token", PLAYER, "--operator-token", OPERATOR]);
    let mut op = server.connect();
    op.ok("hello", json!({"token": OPERATOR}));
    let mut pl = server.connect();
    pl.ok("hello", json!({"token": PLAYER}));
    (server, op, pl)
}

#[test]
fn show_has_the_standings_crosstable_and_a_rating_history_ending_at_the_standings() {
    let data = temp_dir();
    let (_server, mut op, _pl) = server(data.path());
    let summary = play(&mut op, "cup");
    let shown = op.ok("tournament.show", json!({"tournament": "cup"}));
    assert_eq!(shown["id"], "cup");
    assert_eq!(shown["status"], "finished");
    assert_eq!(shown["games"], 12);
    assert_eq!(shown["spec"]["game"], "rps");
    assert_eq!(shown["standings"], summary["standings"]);
    assert_eq!(shown["crosstable"], summary["crosstable"]);
    let history = shown["history"].as_array().unwrap();
    assert_eq!(history.len(), 12, "one point a game while there are at most 20 games");
    assert_eq!(history.last().unwrap()["games"], 12);
    // The last point is the standings: each spec bot's Elo, in spec order.
    let labels: Vec<&str> = shown["crosstable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bot"].as_str().unwrap())
        .collect();
    let last = &history.last().unwrap()["elo"];
    for row in shown["standings"].as_array().unwrap() {
        let place = labels.iter().position(|l| *l == row["bot"]).unwrap();
        assert!(last.as_array().unwrap().contains(&row["elo"]), "{place}: {last} vs {row}");
    }
}

#[test]
fn games_pages_and_a_game_carries_its_transcript() {
    let data = temp_dir();
    let (_server, mut op, _pl) = server(data.path());
    play(&mut op, "cup");
    let page = op.ok("tournament.games", json!({"tournament": "cup", "offset": 10, "limit": 5}));
    assert_eq!(page["total"], 12);
    let games = page["games"].as_array().unwrap();
    assert_eq!(games.iter().map(|g| g["index"].as_u64().unwrap()).collect::<Vec<_>>(), [10, 11]);
    assert!(games
        .iter()
        .all(|g| g["transcript"] == true && g["seats"].as_array().unwrap().len() == 2));
    let game = op.ok("tournament.game", json!({"tournament": "cup", "game": 11}));
    assert_eq!(game["index"], 11);
    assert_eq!(game["scores"], games[1]["scores"]);
    let lines: Vec<Value> = game["transcript"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 2, "a transcript has its game's events: {lines:?}");
    assert_eq!(op.err("tournament.game", json!({"tournament": "cup", "game": 12})), "not_found");
}

#[test]
fn a_page_beyond_the_limit_or_empty_is_refused_and_the_server_keeps_serving() {
    let data = temp_dir();
    let (_server, mut op, _pl) = server(data.path());
    play(&mut op, "cup");
    for limit in [0, 201, u64::MAX] {
        let reply = op.request("tournament.games", json!({"tournament": "cup", "limit": limit}));
        assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{reply}");
    }
    assert_eq!(
        op.err("tournament.show", json!({"tournament": "cup", "path": "/etc"})),
        "invalid_params"
    );
    op.assert_alive();
}

#[test]
fn a_player_cannot_show_page_or_read_the_operators_tournament_but_sees_its_own() {
    let data = temp_dir();
    let (_server, mut op, mut pl) = server(data.path());
    play(&mut op, "op-cup");
    play(&mut pl, "pl-cup");
    for (name, params) in [
        ("tournament.show", json!({"tournament": "op-cup"})),
        ("tournament.games", json!({"tournament": "op-cup", "limit": 10})),
        ("tournament.game", json!({"tournament": "op-cup", "game": 0})),
    ] {
        let reply = pl.request(name, params);
        assert_eq!(error_code(&reply).as_deref(), Some("not_found"), "{name}: {reply}");
        assert!(!reply.to_string().contains("rock-lover"), "nothing of it leaks: {reply}");
    }
    assert_eq!(pl.err("tournament.list", json!({})), "unauthorized");
    assert_eq!(pl.ok("tournament.show", json!({"tournament": "pl-cup"}))["games"], 12);
    pl.ok("tournament.game", json!({"tournament": "pl-cup", "game": 0}));
    for id in ["op-cup", "pl-cup"] {
        assert_eq!(op.ok("tournament.show", json!({"tournament": id}))["status"], "finished");
    }
}
