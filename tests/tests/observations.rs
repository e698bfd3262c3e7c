//! Bad observations through the real binary, for every bot that plays a game: one rule for all
//! (PROTOCOL.md, "Bad observations") — a request a bot cannot use is `invalid_params` and the
//! message starts with the request's field — so a client catches them all with one class. And
//! the battle README's observation, sent exactly as printed, is answered.

use serde_json::{json, Value};
use yomi_e2e::{error_code, with_agent, Conn, Server};

/// A decision request a bot of `bots` can use, as its game's README describes it.
struct Game {
    bots: &'static [&'static str],
    observation: Value,
    legal: Value,
}

fn battle() -> Game {
    Game {
        bots: &[
            "battle/random",
            "battle/nash",
            "battle/delta-nash",
            "battle/mc",
            "battle/exploiter",
        ],
        observation: json!({"you": 0, "phase": "choose",
            "state": {"turn": 1, "hp": [[5, 5, 5], [5, 4, 4]], "active": ["A", "D"]},
            "rules": {"parties": "thesis", "same_type_neutral": false, "turn_limit": 20}}),
        legal: json!([{"move": "grass"}, {"move": "fire"}, {"move": "electric"},
                      {"switch": "B"}, {"switch": "C"}]),
    }
}

fn stud() -> Game {
    let legal = json!([{"act": "drop"}, {"act": "open", "min": 1, "max": 10}]);
    Game {
        bots: &["stud/random", "stud/calling-station", "stud/fuzzy"],
        observation: json!({"seat": 0, "position": 0, "game": 1, "games": 1, "turn": 1,
            "phase": "bet", "pot": 10, "paid": [5, 5], "chips": [100000, 100000],
            "hole": ["As", "7d"], "up": ["Kc"], "opp_up": ["9h"], "opp_hole_count": 2,
            "history": [], "legal": legal}),
        legal,
    }
}

/// The sevens README's observation.
fn sevens() -> Game {
    Game {
        bots: &["sevens/dvalue", "sevens/student", "sevens/random", "sevens/greedy"],
        observation: json!({"seat": 1, "players": 3, "move": 10,
            "hand": ["AS", "5S", "JS", "9H", "JH", "QH", "KH", "AD", "3D", "10D", "KD", "3C", "KC"],
            "table": ["7S", "6H", "7H", "5D", "6D", "7D", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC"],
            "ends": {"S": [7, 7], "H": [6, 7], "D": [5, 7], "C": [4, 11]},
            "hand_sizes": [12, 13, 13], "passes_used": [0, 0, 0], "passes_left": [3, 3, 3],
            "pass_limit": 3, "out_of_passes": "out",
            "ranks": [null, null, null], "went_out": [false, false, false]}),
        legal: json!(["3C", "pass"]),
    }
}

fn dice() -> Game {
    let dest = |square: u64, trap: bool, to_goal: u64| json!({"square": square, "trap": trap, "goal": false, "to_goal": to_goal, "traps_ahead": 1});
    Game {
        bots: &["dice/walker"],
        observation: json!({"seat": 0, "position": 3, "roll": 2, "run": 1, "runs": 1, "hits": 0,
            "goals": 0, "destinations": [dest(5, false, 36), dest(10, true, 31)]}),
        legal: json!([5, 10]),
    }
}

fn rps() -> Game {
    Game {
        bots: &["example/rps"],
        observation: json!({"opponent_last": "rock"}),
        legal: json!(["rock", "paper", "scissors"]),
    }
}

fn games() -> Vec<Game> {
    vec![battle(), stud(), sevens(), dice(), rps()]
}

/// An agent of every bot of `game`, by name.
fn agents(conn: &mut Conn, game: &Game) -> Vec<(&'static str, String)> {
    game.bots
        .iter()
        .map(|bot| {
            let agent = conn.ok("agent.new", json!({"bot": bot, "seed": 3}));
            (*bot, agent["agent"].as_str().unwrap().to_string())
        })
        .collect()
}

fn act(conn: &mut Conn, agent: &str, observation: &Value, legal: &Value) -> Value {
    conn.request(
        "agent.act",
        with_agent(agent, json!({"observation": observation, "legal": legal})),
    )
}

/// Asserts the one rule: `invalid_params`, the message starting with the field `starts`.
fn refused(
    conn: &mut Conn,
    bot: &str,
    agent: &str,
    observation: &Value,
    legal: &Value,
    starts: &str,
) {
    let reply = act(conn, agent, observation, legal);
    assert_eq!(error_code(&reply).as_deref(), Some("invalid_params"), "{bot}: {reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(starts), "{bot}: `{message}` should start with `{starts}`");
}

/// `legal` with its last entry left out.
fn short(legal: &Value) -> Value {
    let mut list = legal.as_array().unwrap().clone();
    list.pop();
    json!(list)
}

/// `legal` with `extra` added at the end.
fn with_extra(legal: &Value, extra: Value) -> Value {
    let mut list = legal.as_array().unwrap().clone();
    list.push(extra);
    json!(list)
}

#[test]
fn every_bot_answers_its_games_observation_with_or_without_the_legal_list() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    for game in games() {
        let legal = game.legal.as_array().unwrap().clone();
        for (bot, agent) in agents(conn, &game) {
            for given in [&game.legal, &json!([])] {
                let reply = act(conn, &agent, &game.observation, given);
                assert_eq!(reply["ok"], json!(true), "{bot} with legal {given}: {reply}");
                let action = &reply["result"]["action"];
                // Stud's amounts are the bot's: the act names the legal entry it fills in.
                let named = |l: &Value| {
                    l == action || (l.get("act").is_some() && l["act"] == action["act"])
                };
                assert!(legal.iter().any(named), "{bot}: {action} is not among {legal:?}");
            }
        }
    }
}

#[test]
fn a_typo_in_an_enum_like_field_is_refused_by_every_bot() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let typos: [(Game, &str, Value, &str); 5] = [
        (
            battle(),
            "phase",
            json!("chose"),
            "`observation.phase`: must be one of `choose`, `replace`",
        ),
        (stud(), "phase", json!("bets"), "`observation.phase`: must be one of `bet`, `reveal`"),
        (sevens(), "out_of_passes", json!("outt"), "`observation.out_of_passes`: must be one of"),
        (
            dice(),
            "destinations",
            json!([{"square": 5, "trap": "no", "goal": false, "to_goal": 36,
            "traps_ahead": 1}]),
            "`observation.destinations[0].trap`: must be true or false",
        ),
        (rps(), "opponent_last", json!("lizard"), "`observation`: does not fit this bot"),
    ];
    for (game, field, typo, starts) in typos {
        let mut observation = game.observation.clone();
        observation[field] = typo;
        for (bot, agent) in agents(conn, &game) {
            refused(conn, bot, &agent, &observation, &game.legal, starts);
        }
    }
}

#[test]
fn a_legal_list_that_does_not_fit_the_observation_is_refused_naming_the_field() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let strays = [
        (battle(), json!({"move": "water"})),
        (stud(), json!({"act": "raise", "min": 2, "max": 10})),
        (sevens(), json!("5S")),
        (dice(), json!(7)),
        (rps(), json!("lizard")),
    ];
    for (game, stray) in strays {
        let n = game.legal.as_array().unwrap().len();
        let extra = with_extra(&game.legal, stray);
        for (bot, agent) in agents(conn, &game) {
            refused(conn, bot, &agent, &game.observation, &extra, &format!("`legal[{n}]`:"));
            refused(conn, bot, &agent, &game.observation, &short(&game.legal), "`legal`: lacks");
        }
    }
    // The case: the offered move is not the active Pokémon's, so the request is refused
    // and the bot is not blamed for it.
    let (game, agent) = (battle(), conn.ok("agent.new", json!({"bot": "battle/nash"})));
    let agent = agent["agent"].as_str().unwrap().to_string();
    let mut observation = game.observation.clone();
    observation["state"]["active"] = json!(["B", "D"]); // B's moves: water, fire, electric
    let reply = act(conn, &agent, &observation, &game.legal);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("`legal[0]`: {\"move\":\"grass\"} is not legal"), "{reply}");
}

#[test]
fn an_observation_that_allows_no_action_is_refused() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    // A battle replacement with no Pokémon left on the bench.
    let mut battle_obs = battle().observation;
    battle_obs["phase"] = json!("replace");
    battle_obs["state"]["hp"] = json!([[5, 0, 0], [5, 4, 4]]);
    let mut stud_obs = stud().observation;
    stud_obs["legal"] = json!([]);
    let mut dice_obs = dice().observation;
    dice_obs["destinations"] = json!([]);
    let empties = [
        (battle(), battle_obs, "`observation`: no action is legal"),
        (stud(), stud_obs, "`observation.legal`: empty"),
        (dice(), dice_obs, "`observation`: no action is legal"),
    ];
    for (game, observation, starts) in empties {
        for (bot, agent) in agents(conn, &game) {
            for legal in [json!([]), game.legal.clone()] {
                let starts = if legal == json!([]) { starts } else { "`" };
                refused(conn, bot, &agent, &observation, &legal, starts);
            }
        }
    }
    // Stud's own `legal` must be the one its turn allows: a raise cannot open an interval.
    let mut observation = stud().observation;
    observation["legal"] = json!([{"act": "drop"}, {"act": "raise", "min": 1, "max": 10}]);
    for (bot, agent) in agents(conn, &stud()) {
        refused(conn, bot, &agent, &observation, &json!([]), "`observation.legal[1]`:");
    }
}

/// The agent.act lines of the battle README's observation example, as printed.
fn readme_lines() -> Vec<Value> {
    let readme = include_str!("../../bots/battle/README.md");
    let section =
        &readme[readme.find("Each seat's observation").expect("the observation section")..];
    let block = &section[section.find("<<'EOF'\n").unwrap() + 8..];
    let block = &block[..block.find("\nEOF").unwrap()];
    block.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect()
}

#[test]
fn the_battle_readmes_observation_is_answered_as_printed() {
    let mut server = Server::stdio(&[]);
    let conn = server.conn();
    let lines = readme_lines();
    assert_eq!(lines.len(), 2, "agent.new then agent.act");
    let mut replies = vec![];
    for line in &lines {
        conn.send(line);
        replies.push(conn.reply());
    }
    assert_eq!(replies[0]["result"]["agent"], json!("a1"), "{}", replies[0]);
    let action = &replies[1]["result"]["action"];
    assert!(lines[1]["legal"].as_array().unwrap().contains(action), "{}", replies[1]);
}
