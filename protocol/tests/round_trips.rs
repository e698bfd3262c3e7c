//! Round trips of every wire type through JSON, and the corners of option validation the unit
//! tests beside the types do not reach.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use yomi_protocol::events::TournamentStarted;
use yomi_protocol::manifest::{CommandInfo, MethodInfo};
use yomi_protocol::options::{apply_changes, defaults, resolve, OptionKind};
use yomi_protocol::{
    ActReply, ActRequest, BotInfo, Clock, Decision, ErrorCode, ErrorInfo, Event, GameInfo,
    GameOutcome, OptionSpec, Options, PluginManifest, Preset, Reply, Request, RequestId,
};

/// Serializes, parses back, and checks equality; returns the JSON for shape checks.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) -> Value {
    let text = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, value, "{text}");
    serde_json::from_str(&text).unwrap()
}

fn manifest() -> PluginManifest {
    PluginManifest {
        name: "p".into(),
        version: "1.2.3".into(),
        description: "d".into(),
        games: vec![GameInfo {
            name: "g".into(),
            description: "a game".into(),
            min_seats: 2,
            max_seats: 4,
            simultaneous: false,
            options: vec![OptionSpec::int("rounds", 3, Some(1), None, "r")],
            presets: vec![Preset::new("short", "one round", json!({"rounds": 1}))],
            payload: Some(
                json!({"observation": {"type": "object"}, "action": true, "event": true}),
            ),
        }],
        bots: vec![BotInfo {
            name: "b".into(),
            description: "a bot".into(),
            games: vec!["g".into()],
            options: vec![
                OptionSpec::bool("bluff", true, "b"),
                OptionSpec::float("delta", 0.5, None, Some(1.0), "d"),
                OptionSpec::choice("noise", "uniform", &["uniform", "normal"], "n"),
                OptionSpec::string("label", "", "l"),
                OptionSpec::json("party", json!([{"hp": 10}]), "p"),
            ],
            presets: vec![Preset::new("calm", "no bluff", json!({"bluff": false}))],
            methods: vec![MethodInfo::new("roll", "roll a die")],
        }],
        commands: vec![CommandInfo::new("repro", "tables")],
        view: Some("export function render() {}".into()),
    }
}

#[test]
fn manifests_round_trip_and_optional_lists_default_to_empty() {
    let json = round_trip(&manifest());
    assert_eq!(
        json["bots"][0]["options"][1],
        json!({"name": "delta", "type": "float", "max": 1.0, "default": 0.5, "description": "d"})
    );
    assert_eq!(json["bots"][0]["options"][2]["choices"], json!(["uniform", "normal"]));
    assert_eq!(json["bots"][0]["options"][4]["type"], json!("json"));
    let bare: PluginManifest =
        serde_json::from_value(json!({"name": "x", "version": "0", "description": ""})).unwrap();
    assert!(bare.games.is_empty() && bare.bots.is_empty() && bare.commands.is_empty());
    // A plugin built before views existed has none, and one without a view sends no field.
    assert_eq!(bare.view, None);
    assert!(serde_json::to_value(&bare).unwrap().get("view").is_none());
    let bot: BotInfo =
        serde_json::from_value(json!({"name": "s", "description": "a service"})).unwrap();
    assert!(
        bot.games.is_empty()
            && bot.options.is_empty()
            && bot.presets.is_empty()
            && bot.methods.is_empty()
    );
}

#[test]
fn every_option_kind_round_trips() {
    for kind in [
        OptionKind::Bool,
        OptionKind::Int { min: None, max: Some(3) },
        OptionKind::Float { min: Some(-1.0), max: None },
        OptionKind::Choice { choices: vec!["a".into()] },
        OptionKind::String,
        OptionKind::Json,
    ] {
        let spec =
            OptionSpec { name: "o".into(), kind, default: json!(null), description: "x".into() };
        round_trip(&spec);
    }
    // Unknown types are refused, not guessed.
    assert!(serde_json::from_value::<OptionSpec>(
        json!({"name": "o", "type": "colour", "default": 1, "description": ""})
    )
    .is_err());
}

#[test]
fn game_payloads_round_trip() {
    let request =
        ActRequest::new(json!({"hand": [1, 2]}), vec![json!("fold"), json!({"raise": [2, 10]})])
            .with_explain(true);
    round_trip(&request);
    assert!(
        serde_json::to_value(&request).unwrap().get("clock").is_none(),
        "no clock, no field: bots without a clock see no change"
    );
    let clock = Clock { remaining_ms: 5_000, increment_ms: 0, moves_to_go: Some(3) };
    let timed = round_trip(&request.clone().with_clock(Some(clock)));
    assert_eq!(timed["clock"], json!({"remaining_ms": 5_000, "increment_ms": 0, "moves_to_go": 3}));
    let sparse: ActRequest =
        serde_json::from_value(json!({"observation": null, "legal": []})).unwrap();
    assert!(!sparse.explain, "explain is off unless asked");
    assert_eq!(
        round_trip(&ActReply::new(json!("rock"))),
        json!({"action": "rock"}),
        "no explain key when none"
    );
    round_trip(&ActReply::explained(json!(3), json!({"why": "because"})));
    round_trip(&Decision { seat: 1, observation: json!({}), legal: vec![json!(0)] });
    round_trip(&GameOutcome { scores: vec![1.0, 0.0], summary: json!({"chips": [5, -5]}) });
    let no_summary: GameOutcome = serde_json::from_value(json!({"scores": [0.5, 0.5]})).unwrap();
    assert_eq!(no_summary.summary, Value::Null);
}

#[test]
fn envelopes_round_trip() {
    for id in [json!(1), json!(-2), json!(2.5), json!("x"), json!(false), json!(u64::MAX)] {
        let id: RequestId = serde_json::from_value(id.clone()).unwrap();
        round_trip(&id);
        round_trip(&Reply::ok(id.clone(), json!({"pong": true})));
        round_trip(&Reply::err(Some(id), ErrorInfo::new(ErrorCode::UnknownAgent, "no")));
    }
    let anonymous = round_trip(&Reply::err(None, ErrorInfo::new(ErrorCode::MalformedJson, "bad")));
    assert_eq!(
        anonymous,
        json!({"id": null, "ok": false, "error": {"code": "malformed_json", "message": "bad"}})
    );
    // An event's payload sits beside its name.
    let started = Event::from(TournamentStarted { id: "t1".into(), scheduled: 3 });
    assert_eq!(
        round_trip(&started),
        json!({"event": "tournament.started", "id": "t1", "scheduled": 3})
    );
}

#[test]
fn requests_keep_extra_fields_and_type_their_params() {
    #[derive(serde::Deserialize)]
    struct Params {
        agent: String,
    }
    let request =
        Request::parse(r#"{"id":"q","op":"agent.drop","agent":"a1","future_field":[1]}"#).unwrap();
    let text = request.to_value().to_string();
    assert_eq!(Request::parse(&text).unwrap().to_value(), request.to_value());
    assert_eq!(request.params::<Params>().unwrap().agent, "a1", "unknown fields are ignored");
    let missing = Request::parse(r#"{"id":"q","op":"agent.drop"}"#).unwrap();
    let err = missing.params::<Params>().map(|_| ()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidParams);
    assert!(err.message.contains("agent.drop") && err.message.contains("agent"), "{}", err.message);
}

#[test]
fn option_validation_corners() {
    let schema = manifest().bots.remove(0).options;
    let base = defaults(&schema);
    let set = |v: Value| -> Options { serde_json::from_value(v).unwrap() };
    // Json options take anything; strings take any string; choices only theirs.
    assert!(apply_changes(&schema, &base, &set(json!({"party": {"anything": [1, "two"]}}))).is_ok());
    assert!(apply_changes(&schema, &base, &set(json!({"label": ""}))).is_ok());
    // An unbounded side of a range is open.
    assert!(apply_changes(&schema, &base, &set(json!({"delta": -1e9}))).is_ok());
    assert!(apply_changes(&schema, &base, &set(json!({"delta": 1.0000001}))).is_err());
    // One bad change rejects the whole set and the base is untouched.
    let err = apply_changes(&schema, &base, &set(json!({"bluff": false, "noise": "cauchy"})))
        .unwrap_err();
    assert!(err.to_string().contains("noise"));
    assert_eq!(base["bluff"], json!(true));
    // Presets are validated like overrides: a plugin shipping a bad preset gets an error, not a bot
    // with an out-of-range option.
    let bad_preset = vec![Preset::new("broken", "", json!({"delta": 7}))];
    assert!(resolve(&schema, &bad_preset, Some("broken"), &Options::new()).is_err());
    // Overrides win over the preset.
    let presets = manifest().bots.remove(0).presets;
    let opts = resolve(&schema, &presets, Some("calm"), &set(json!({"bluff": true}))).unwrap();
    assert_eq!(opts["bluff"], json!(true));
    // Integers: huge floats are not silently truncated.
    let ints = vec![OptionSpec::int("n", 0, None, None, "")];
    assert!(apply_changes(&ints, &defaults(&ints), &set(json!({"n": 1e17}))).is_err());
    assert_eq!(
        apply_changes(&ints, &defaults(&ints), &set(json!({"n": -4.0}))).unwrap()["n"],
        json!(-4)
    );
}
