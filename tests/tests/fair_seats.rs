//! Every seat sees only its own: a match of each game with one client seat, every line the client
//! receives recorded, checked against the match's own transcript (asked for in the reply, which
//! comes once every game is over) for anything of another seat's before the game shows it.
//!
//! What another seat keeps to itself, by game: stud's face-down cards (shown when turned up or at
//! a showdown), a Sevens hand (each card shown when played, all when its holder runs out of
//! passes), the choice of a simultaneous step (battle, rps, stud's reveal: shown by the step's
//! event), a sugoroku seat's roll (shown by the event of its move). Beyond those, the client's
//! `your_turn` must carry exactly its own seat's view, and each `match.event` exactly the
//! game's public event of that step.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use yomi_e2e::{Conn, Server};

/// One line the client received, parsed and as text.
struct Seen {
    line: Value,
    text: String,
}

/// A match played with the client in seat 0: every line it received, and the reply's result.
struct Played {
    seen: Vec<Seen>,
    result: Value,
}

/// The client's choice: a check or a call where there is one, else anything but a drop (so stud
/// hands go on to be shown), else the first legal action (an amount range played at its least).
fn choose(legal: &[Value]) -> Value {
    let calm = legal.iter().find(|a| a["act"] == "check" || a["act"] == "call");
    let on = calm.or_else(|| legal.iter().find(|a| a["act"] != "drop"));
    let entry = on.unwrap_or(&legal[0]).clone();
    match (entry.get("min"), entry.as_object()) {
        (Some(min), Some(map)) => {
            let mut action: serde_json::Map<String, Value> = map
                .iter()
                .filter(|(k, _)| *k != "min" && *k != "max")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            action.insert("amount".into(), min.clone());
            Value::Object(action)
        }
        _ => entry,
    }
}

fn play(conn: &mut Conn, params: Value) -> Played {
    let mut run = params;
    run["id"] = json!("run");
    run["op"] = json!("match.run");
    run["transcript"] = json!(true);
    conn.send(&run);
    let mut seen = Vec::new();
    let mut moves = 0;
    loop {
        let line = conn.recv();
        if line["id"] == "run" {
            assert_eq!(line["ok"], json!(true), "{line}");
            return Played { seen, result: line["result"].clone() };
        }
        if line["event"] == "your_turn" {
            assert_eq!(line["seat"], json!(0), "a turn of a seat the client does not play: {line}");
            let legal = line["legal"].as_array().unwrap().clone();
            moves += 1;
            conn.send(
                &json!({"id": format!("move{moves}"), "op": "match.move", "match": line["match"],
                              "seat": 0, "action": choose(&legal)}),
            );
        }
        seen.push(Seen { text: line.to_string(), line });
    }
}

/// The transcript's lines of one type.
fn lines<'a>(result: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    result["transcript"].as_array().unwrap().iter().filter(move |l| l["type"] == kind)
}

/// The checks every game shares: the client's turns are its own seat's decisions as the game
/// made them, its events are the game's events in order, and no decision of a bot seat is shown.
fn own_view_only(played: &Played) {
    let own: Vec<&Value> = lines(&played.result, "decision")
        .filter(|d| d["seat"] == 0)
        .map(|d| &d["observation"])
        .collect();
    let turns: Vec<&Value> = played
        .seen
        .iter()
        .filter(|s| s.line["event"] == "your_turn")
        .map(|s| &s.line["observation"])
        .collect();
    assert_eq!(turns, own, "each your_turn carries the client seat's own observation");
    let events: Vec<&Value> = lines(&played.result, "event").map(|e| &e["event"]).collect();
    let shown: Vec<&Value> = played
        .seen
        .iter()
        .filter(|s| s.line["event"] == "match.event")
        .map(|s| &s.line["game_event"])
        .collect();
    assert_eq!(shown, events, "each match.event carries the step's public event, in order");
    // A seed names every deal and every bot's draw to come: the match's seed is not announced
    // (a client that named it knows it; one drawn by the server stays the server's until the
    // reply), and no seat's seed reaches the client at all during the match.
    let started = played.seen.iter().find(|s| s.line["event"] == "match.started").unwrap();
    assert!(started.line["header"].get("seed").is_none(), "{}", started.text);
    let header = lines(&played.result, "header").next().expect("the transcript's header");
    let bot_seeds = header["seats"].as_array().unwrap().iter().filter_map(|s| s["seed"].as_u64());
    for seed in bot_seeds {
        let digits = seed.to_string();
        assert!(
            played.seen.iter().all(|s| !s.text.contains(&digits)),
            "the seed {digits} of a seat reached the client during the match"
        );
    }
    for s in &played.seen {
        assert!(s.line.get("explained").is_none(), "a bot seat's reasoning was shown: {}", s.text);
        if s.line["event"] == "match.event" || s.line["event"] == "your_turn" {
            assert_eq!(s.line["seat"], json!(0), "a line for another seat: {}", s.text);
        }
    }
}

/// Asserts that none of `secrets` (JSON strings, as `"9d"`) appears in a line before the line
/// that `shown_at` says shows it (an index into the client's lines; none: never shown).
fn hidden_until_shown(
    played: &Played,
    secrets: &BTreeSet<String>,
    shown_at: impl Fn(&str) -> Option<usize>,
) -> usize {
    for secret in secrets {
        let quoted = format!("\"{secret}\"");
        let until = shown_at(secret).unwrap_or(played.seen.len());
        if let Some(leak) = played.seen[..until].iter().find(|s| s.text.contains(&quoted)) {
            panic!("{secret} reached the client before the game showed it: {}", leak.text);
        }
    }
    secrets.len()
}

/// Index of the first client line that satisfies `shows`.
fn first(played: &Played, shows: impl Fn(&Value) -> bool) -> Option<usize> {
    played.seen.iter().position(|s| shows(&s.line))
}

/// Simultaneous steps: between the client's turn and the step's event the client gets nothing
/// but its move's reply, so no bot's choice of the step can reach it first.
fn simultaneous_choices_wait_for_the_event(played: &Played) {
    let mut waiting = false;
    for s in &played.seen {
        match s.line["event"].as_str() {
            Some("your_turn") => waiting = true,
            Some("match.event") => waiting = false,
            _ if waiting => {
                assert!(
                    s.line["id"].as_str().is_some_and(|id| id.starts_with("move")),
                    "a line before the step resolved: {}",
                    s.text
                );
                assert_eq!(s.line["result"], json!({}), "{}", s.text);
            }
            _ => {}
        }
    }
}

fn seats(bot: &str, n: usize) -> Vec<Value> {
    let mut seats = vec![json!({"client": "me"})];
    seats.extend((1..n).map(|_| json!({"bot": bot})));
    seats
}

#[test]
fn stud_hole_cards_stay_hidden_until_turned_up_or_shown_down() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    // One game a match: a card seen in one deal may be dealt to anyone in the next.
    let mut checked = 0;
    for seed in 1..=6 {
        let played =
            play(conn, json!({"game": "stud", "seed": seed, "seats": seats("stud/fuzzy", 2)}));
        own_view_only(&played);
        simultaneous_choices_wait_for_the_event(&played);
        let holes: BTreeSet<String> = lines(&played.result, "decision")
            .filter(|d| d["seat"] == 1)
            .flat_map(|d| {
                d["observation"]["hole"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap().to_string())
            })
            .collect();
        checked += hidden_until_shown(&played, &holes, |card| {
            let quoted = json!(card);
            first(&played, |l| {
                let e = &l["game_event"];
                l["event"] == "match.event"
                    && (e["up"][1].as_array().is_some_and(|up| up.contains(&quoted))
                        || e["end"]["hands"][1].as_array().is_some_and(|h| h.contains(&quoted)))
            })
        });
    }
    assert!(checked > 0, "the bot held cards in some match");
}

#[test]
fn a_sevens_hand_stays_hidden_until_its_cards_are_played() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let played =
        play(conn, json!({"game": "sevens", "seed": 3, "seats": seats("sevens/greedy", 4)}));
    own_view_only(&played);
    let mut hands = BTreeSet::new();
    for d in lines(&played.result, "decision").filter(|d| d["seat"] != 0) {
        hands.extend(
            d["observation"]["hand"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string()),
        );
    }
    let checked = hidden_until_shown(&played, &hands, |card| {
        let quoted = json!(card);
        first(&played, |l| {
            let e = &l["game_event"];
            l["event"] == "match.event"
                && (e["action"] == quoted
                    || e["placed"].as_array().is_some_and(|p| p.contains(&quoted)))
        })
    });
    assert!(checked > 0, "the other seats held cards");
}

#[test]
fn battle_and_rps_choices_show_only_with_their_step() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let battle =
        play(conn, json!({"game": "battle", "seed": 5, "seats": seats("battle/random", 2)}));
    own_view_only(&battle);
    simultaneous_choices_wait_for_the_event(&battle);
    let rps = play(
        conn,
        json!({"game": "rps", "seed": 5, "game_options": {"rounds": 5}, "seats": seats("example/rps", 2)}),
    );
    own_view_only(&rps);
    simultaneous_choices_wait_for_the_event(&rps);
}

#[test]
fn a_sugoroku_roll_shows_with_its_move() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let played =
        play(conn, json!({"game": "sugoroku", "seed": 2, "seats": seats("dice/walker", 2)}));
    own_view_only(&played);
    // The other seat's roll is in no line before the event of its move: the client's turns are
    // its own observations (checked above), and its events are the moves already made.
    let others = lines(&played.result, "decision").filter(|d| d["seat"] == 1).count();
    assert!(others > 0, "the other seat moved");
}

/// An agent seat (`{"agent": "a1"}`) plays on the server; its reasoning reaches the client with
/// the event of the step it decided ("step") or with the game's last event ("game"), never
/// before. (A swap between steps is not exercised here yet.)
#[test]
fn an_agent_seats_reasoning_comes_only_with_or_after_its_step() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let agent = conn.ok("agent.new", json!({"bot": "example/rps", "options": {"reading": 1}}))
        ["agent"]
        .clone();
    let played = play(
        conn,
        json!({"game": "rps", "seed": 1, "game_options": {"rounds": 4},
        "seats": [{"client": "me"}, {"agent": agent, "explain": "step"}]}),
    );
    simultaneous_choices_wait_for_the_event(&played);
    let actions: Vec<&Value> =
        lines(&played.result, "action").filter(|a| a["seat"] == 1).map(|a| &a["action"]).collect();
    let mut step = 0;
    for s in played.seen.iter().filter(|s| s.line["event"] == "match.event") {
        step += 1;
        let explained = s.line["explained"].as_array().expect("the step's decision is explained");
        assert_eq!(explained.len(), 1, "{}", s.text);
        assert_eq!((&explained[0]["seat"], &explained[0]["step"]), (&json!(1), &json!(step)));
        assert_eq!(&explained[0]["action"], actions[step - 1]);
    }
    assert_eq!(step, 4);
    assert_eq!(played.result["seats"][1], json!(format!("agent:{}", agent.as_str().unwrap())));

    // Stud at game pace: every explanation in the last event; none before it.
    let stud = conn.ok("agent.new", json!({"bot": "stud/fuzzy"}))["agent"].clone();
    let played = play(
        conn,
        json!({"game": "stud", "seed": 2,
        "seats": [{"client": "me"}, {"agent": stud, "explain": "game"}]}),
    );
    let events: Vec<&Seen> =
        played.seen.iter().filter(|s| s.line["event"] == "match.event").collect();
    let (last, before) = events.split_last().unwrap();
    assert!(before.iter().all(|s| s.line.get("explained").is_none()));
    let decided = lines(&played.result, "action").filter(|a| a["seat"] == 1).count();
    let shown = last.line["explained"].as_array().map_or(0, Vec::len);
    assert_eq!(shown, decided, "{}", last.text);
}

/// A match seat naming an agent is checked before the match starts.
#[test]
fn an_agent_seat_names_an_agent_of_the_session_that_plays_the_game() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let unknown =
        conn.err("match.run", json!({"game": "rps", "seats": [{"client": "me"}, {"agent": "a9"}]}));
    assert_eq!(unknown, "unknown_agent");
    let stud = conn.ok("agent.new", json!({"bot": "stud/fuzzy"}))["agent"].clone();
    let other =
        conn.err("match.run", json!({"game": "rps", "seats": [{"client": "me"}, {"agent": stud}]}));
    assert_eq!(other, "invalid_params");
    conn.assert_alive();
}
