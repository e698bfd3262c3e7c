//! The checks, one function each, every one returning its report line.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};
use yomi_protocol::options::resolve;
use yomi_protocol::{ActRequest, BotInfo, ErrorInfo, GameInfo, Options};

use super::play::{first_decision, play, play_all, Played, Seating};
use super::report::{Latency, Line};
use super::{code_name, failure, guarded, is_crash, variants, Arena};
use crate::api::Agent;
use crate::rng::derive_seed;

/// Option sets the configure check tries before it calls the change unmeasurable.
const CONFIGURE_TRIES: usize = 3;
/// Games the configure check plays after the change, at least.
const CONFIGURE_GAMES: usize = 3;

/// A new agent of the bot, a panic in its constructor caught.
fn new_agent(arena: &dyn Arena, options: &Options, seed: u64) -> Result<Box<dyn Agent>, ErrorInfo> {
    guarded(|| arena.new_agent(options, seed))
}

/// The bot's declaration: defaults that fit their options, presets that resolve, games that
/// exist; and the options under check resolved. Returns the line, and the options and the games
/// to play when the declaration allows going on.
pub(crate) fn declaration(
    arena: &dyn Arena,
    preset: Option<&str>,
    overrides: &Options,
) -> (Line, Option<(Options, Vec<GameInfo>)>) {
    let bot = arena.bot();
    let mut problems = Vec::new();
    problems.extend(duplicate(bot.options.iter().map(|o| o.name.as_str()), "option"));
    problems.extend(duplicate(bot.presets.iter().map(|p| p.name.as_str()), "preset"));
    for spec in &bot.options {
        if let Err(e) = spec.check(&spec.default) {
            problems.push(format!("the default of `{}` does not fit it: {e}", spec.name));
        }
    }
    for p in &bot.presets {
        if let Err(e) = resolve(&bot.options, &bot.presets, Some(p.name.as_str()), &Options::new())
        {
            problems.push(format!("preset `{}`: {e}", p.name));
        }
    }
    let mut games = Vec::new();
    let known = arena.games();
    for name in &bot.games {
        match known.iter().find(|g| &g.name == name).cloned() {
            Some(info) if info.min_seats >= 1 && info.min_seats <= info.max_seats => {
                games.push(info)
            }
            Some(info) => problems.push(format!(
                "game `{name}` seats {} to {} players",
                info.min_seats, info.max_seats
            )),
            None => problems.push(format!("it plays `{name}`, a game no loaded plugin has")),
        }
    }
    if bot.games.is_empty() && bot.methods.is_empty() {
        problems.push("it plays no game and serves no method".into());
    }
    let options = resolve(&bot.options, &bot.presets, preset, overrides)
        .map_err(|e| problems.push(format!("the options to check: {e}")))
        .ok();
    if let Some(first) = problems.first() {
        let more = problems.len() - 1;
        let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
        return (Line::fail("declaration", format!("{first}{more}")), None);
    }
    let plays = if games.is_empty() {
        format!("a service with {} methods", bot.methods.len())
    } else {
        format!("plays {}", bot.games.join(", "))
    };
    let detail = format!("{plays}; {} options, {} presets", bot.options.len(), bot.presets.len());
    (Line::pass("declaration", detail), options.map(|o| (o, games)))
}

/// `1 seat`, `3 seats`: a count and its noun's first word in the number it takes.
fn counted(n: usize, what: &str) -> String {
    match what.split_once(' ') {
        _ if n == 1 => format!("1 {what}"),
        Some((noun, rest)) => format!("{n} {noun}s {rest}"),
        None => format!("{n} {what}s"),
    }
}

fn duplicate<'a>(mut names: impl Iterator<Item = &'a str>, what: &str) -> Option<String> {
    let mut seen = BTreeSet::new();
    names.find(|n| !seen.insert(*n)).map(|n| format!("{what} `{n}` is declared twice"))
}

/// Plays every seating with one agent of the bot, as a match would; `Err` when the agent
/// cannot be made.
pub(crate) fn run(
    arena: &dyn Arena,
    seatings: &[Seating],
    options: &Options,
    seed: u64,
) -> Result<Vec<Played>, String> {
    let mut agent = new_agent(arena, options, seed)
        .map_err(|e| format!("the bot could not be made: {}", failure(&e)))?;
    Ok(play_all(arena, seatings, agent.as_mut()))
}

/// Every action the bot chose was taken by the game, and every game ended with an outcome.
pub(crate) fn legal(first: &Result<Vec<Played>, String>, seatings: &[Seating]) -> Line {
    let played = match first {
        Ok(played) => played,
        Err(e) => return Line::fail("legal play", e.clone()),
    };
    let failed: Vec<&str> = played.iter().filter_map(|p| p.failure.as_deref()).collect();
    if let Some(first) = failed.first() {
        return Line::fail(
            "legal play",
            format!("{} of {} games failed; the first: {first}", failed.len(), played.len()),
        );
    }
    let decisions: usize = played.iter().map(|p| p.actions.len()).sum();
    let games: BTreeSet<String> =
        seatings.iter().map(|s| format!("{} at {}", s.game, counted(s.seats, "seat"))).collect();
    Line::pass(
        "legal play",
        format!(
            "{} games against random players ({}), the bot in every seat: {decisions} decisions, all taken by the game",
            played.len(),
            games.into_iter().collect::<Vec<_>>().join(", ")
        ),
    )
}

/// A second run with the same seeds made the same moves.
pub(crate) fn deterministic(
    first: &Result<Vec<Played>, String>,
    second: &Result<Vec<Played>, String>,
    seatings: &[Seating],
) -> Line {
    let (Ok(first), Ok(second)) = (first, second) else {
        return Line::skip("deterministic", "the bot could not be made");
    };
    for ((a, b), seating) in first.iter().zip(second).zip(seatings) {
        if a.moves() == b.moves() {
            continue;
        }
        let at = a.actions.iter().zip(&b.actions).position(|(x, y)| x != y);
        let detail = match at {
            Some(i) => format!(
                "decision {i} of the bot played {} the first time and {} the second",
                a.actions[i], b.actions[i]
            ),
            None => format!(
                "the runs differ after the bot's {} decisions: {} / {}",
                a.actions.len().min(b.actions.len()),
                a.failure.as_deref().unwrap_or("ended"),
                b.failure.as_deref().unwrap_or("ended")
            ),
        };
        return Line::fail(
            "deterministic",
            format!("two runs with the same seeds differ ({}): {detail}", seating.label()),
        );
    }
    let decisions: usize = first.iter().map(|p| p.actions.len()).sum();
    Line::pass(
        "deterministic",
        format!("a second run with the same seeds made the same {decisions} decisions"),
    )
}

/// Whether `action` is one of `legal`, or an amount in one of its ranges.
fn fits(action: &Value, legal: &[Value]) -> bool {
    legal.iter().any(|entry| {
        if entry == action {
            return true;
        }
        let (Value::Object(entry), Value::Object(action)) = (entry, action) else { return false };
        let (Some(min), Some(max)) =
            (entry.get("min").and_then(Value::as_f64), entry.get("max").and_then(Value::as_f64))
        else {
            return false;
        };
        let amount = action.get("amount").and_then(Value::as_f64);
        let rest = |m: &serde_json::Map<String, Value>| {
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "min" | "max" | "amount"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Vec<_>>()
        };
        amount.is_some_and(|a| a >= min && a <= max) && rest(entry) == rest(action)
    })
}

/// Observations no game sends: of the wrong JSON type.
fn bad_observations() -> Vec<Value> {
    vec![Value::Null, json!(42), json!("not an observation"), json!([1, 2, 3])]
}

/// The bot answers observations that are not its game's with a clear error or a legal action,
/// never a crash, and still plays afterwards.
pub(crate) fn bad_observation(arena: &dyn Arena, seating: &Seating, options: &Options) -> Line {
    const CHECK: &str = "bad observation";
    let decision = match first_decision(arena, seating) {
        Ok(d) => d,
        Err(e) => return Line::fail(CHECK, e),
    };
    let mut agent = match new_agent(arena, options, seating.bot_seed()) {
        Ok(a) => a,
        Err(e) => return Line::fail(CHECK, format!("the bot could not be made: {}", failure(&e))),
    };
    let (mut refused, mut answered, mut codes) = (0, 0, BTreeSet::new());
    for observation in bad_observations() {
        let request = ActRequest::new(observation.clone(), decision.legal.clone());
        match guarded(|| agent.act(&request)) {
            Err(e) => match unclear(&e) {
                Some(why) => return Line::fail(CHECK, format!("observation {observation}: {why}")),
                None => {
                    refused += 1;
                    codes.insert(code_name(e.code));
                }
            },
            Ok(reply) if fits(&reply.action, &decision.legal) => answered += 1,
            Ok(reply) => {
                return Line::fail(
                    CHECK,
                    format!(
                    "observation {observation}: answered {}, which is not among the legal actions",
                    reply.action
                ),
                )
            }
        }
    }
    let real = ActRequest::new(decision.observation, decision.legal);
    if let Err(e) = guarded(|| agent.act(&real)) {
        return Line::fail(
            CHECK,
            format!("after the bad observations it could not act on a real one: {}", failure(&e)),
        );
    }
    let mut detail = format!("refused {refused} of {} with a clear error", refused + answered);
    if !codes.is_empty() {
        detail += &format!(" ({})", codes.into_iter().collect::<Vec<_>>().join(", "));
    }
    if answered > 0 {
        detail += &format!(", answered {answered} with a legal action");
    }
    Line::pass(CHECK, detail + "; still plays after them")
}

/// How the bot took one option set.
enum Taken {
    Accepted,
    Refused,
    /// A crash, or an error that says nothing.
    Fault(String),
}

fn taken(result: Result<(), ErrorInfo>) -> Taken {
    match result {
        Ok(()) => Taken::Accepted,
        Err(e) => unclear(&e).map_or(Taken::Refused, Taken::Fault),
    }
}

/// Why an error is not a clear refusal: a crash, or no message. `None` for a clear one.
fn unclear(e: &ErrorInfo) -> Option<String> {
    if is_crash(e) {
        Some(failure(e))
    } else if e.message.trim().is_empty() {
        Some(format!("an error without a message ({})", failure(e)))
    } else {
        None
    }
}

/// The schema refuses options of the wrong type or out of range, naming the option, before the
/// bot sees them; the bot takes every valid value at the schema's edges and misshapen free-form
/// values, when made and when configured, with a clear error or not at all — never a crash.
pub(crate) fn bad_options(arena: &dyn Arena, options: &Options, seed: u64) -> Line {
    const CHECK: &str = "bad options";
    let bot: &BotInfo = arena.bot();
    let mut schema_refused = 0;
    for spec in &bot.options {
        for value in variants::refused(spec) {
            let change = Options::from([(spec.name.clone(), value.clone())]);
            match resolve(&bot.options, &bot.presets, None, &change) {
                Err(e) if e.to_string().contains(&spec.name) => schema_refused += 1,
                Err(e) => {
                    return Line::fail(
                        CHECK,
                        format!(
                            "`{}` = {value} was refused without naming the option: {e}",
                            spec.name
                        ),
                    )
                }
                Ok(_) => {
                    return Line::fail(CHECK, format!("the schema took `{}` = {value}", spec.name))
                }
            }
        }
    }
    let unknown = Options::from([("no_such_option".to_string(), json!(1))]);
    if resolve(&bot.options, &bot.presets, None, &unknown).is_ok() {
        return Line::fail(CHECK, "the schema took an unknown option");
    }
    let mut configured = match new_agent(arena, options, seed) {
        Ok(a) => a,
        Err(e) => return Line::fail(CHECK, format!("the bot could not be made: {}", failure(&e))),
    };
    let (mut tried, mut refused) = (0usize, 0);
    for spec in &bot.options {
        let values = variants::edges(spec).into_iter().chain(variants::misshapen(spec));
        for value in values {
            let mut set = options.clone();
            set.insert(spec.name.clone(), value.clone());
            let made = new_agent(arena, &set, seed).map(|_| ());
            let reconfigured = guarded(|| configured.configure(&set));
            for (how, result) in [("made with", made), ("configured to", reconfigured)] {
                tried += 1;
                match taken(result) {
                    Taken::Accepted => {}
                    Taken::Refused => refused += 1,
                    Taken::Fault(why) => {
                        return Line::fail(CHECK, format!("{how} `{}` = {value}: {why}", spec.name))
                    }
                }
            }
            // Back to the options under check, so each value is tried alone.
            if let Taken::Fault(why) = taken(guarded(|| configured.configure(options))) {
                return Line::fail(
                    CHECK,
                    format!("configured back from `{}` = {value}: {why}", spec.name),
                );
            }
        }
    }
    Line::pass(
        CHECK,
        format!(
            "the schema refused {}, naming the option; {} with edge or free-form values, none crashed ({refused} refused with a clear error)",
            counted(schema_refused + 1, "bad value"),
            counted(tried, "bot made or configured"),
        ),
    )
}

/// The options a configure may switch to: each preset, then every option one step away.
fn other_options(bot: &BotInfo, options: &Options) -> Vec<Options> {
    let mut sets: Vec<Options> = bot
        .presets
        .iter()
        .filter_map(|p| {
            resolve(&bot.options, &bot.presets, Some(p.name.as_str()), &Options::new()).ok()
        })
        .collect();
    let mut stepped = options.clone();
    for spec in &bot.options {
        if let Some(value) = options.get(&spec.name).and_then(|v| variants::step(spec, v)) {
            stepped.insert(spec.name.clone(), value);
        }
    }
    sets.push(stepped);
    let mut unique: Vec<Options> = Vec::new();
    for set in sets {
        if &set != options && !unique.contains(&set) {
            unique.push(set);
        }
    }
    unique
}

/// `a=1, b="x"`: what `to` changes of `from`.
fn changes(from: &Options, to: &Options) -> String {
    to.iter()
        .filter(|(k, v)| from.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// When a run's agent is configured: before its first game, and between the first and the rest.
struct Configures<'a> {
    before: Option<&'a Options>,
    between: &'a Options,
}

/// One agent made with `made`, configured as `configures` says, playing `seatings` in order:
/// what it did in each game, or why it could not.
fn configured_run(
    arena: &dyn Arena,
    seatings: &[Seating],
    made: &Options,
    configures: Configures,
    seed: u64,
) -> Result<Vec<Played>, String> {
    let mut agent = new_agent(arena, made, seed).map_err(|e| failure(&e))?;
    let configure = |to: &Options, agent: &mut Box<dyn Agent>| {
        guarded(|| agent.configure(to))
            .map_err(|e| format!("configure to {} failed: {}", changes(made, to), failure(&e)))
    };
    if let Some(before) = configures.before {
        configure(before, &mut agent)?;
    }
    let mut played = vec![play(arena, &seatings[0], agent.as_mut())];
    configure(configures.between, &mut agent)?;
    played.extend(play_all(arena, &seatings[1..], agent.as_mut()));
    match played.iter().find_map(|p| p.failure.clone()) {
        Some(why) => Err(why),
        None => Ok(played),
    }
}

fn moves(played: &[Played]) -> Vec<(&[Value], Option<&str>)> {
    played.iter().map(Played::moves).collect()
}

/// A configure takes effect: wherever a bot made with other options plays a series of games
/// otherwise, a bot switched to those options between its first game and the rest plays the rest
/// otherwise than one "switched" to the options it has — or, when those games happen not to show
/// it, a bot switched before its first game plays otherwise than one never switched.
pub(crate) fn configure(
    arena: &dyn Arena,
    game: Option<&GameInfo>,
    options: &Options,
    games: usize,
    seed: u64,
) -> Line {
    const CHECK: &str = "configure";
    let games = games.max(CONFIGURE_GAMES);
    let Some(game) = game else {
        return Line::skip(CHECK, "a service: it plays no game to measure a change in");
    };
    let seatings = match super::play::series(game, 1 + games, derive_seed(seed, 7)) {
        Ok(s) => s,
        Err(e) => return Line::fail(CHECK, format!("the game's options: {}", failure(&e))),
    };
    let candidates = other_options(arena.bot(), options);
    if candidates.is_empty() {
        return Line::skip(CHECK, "the bot has no option to change");
    }
    let agent_seed = derive_seed(seed, 8);
    let run = |made: &Options, before: Option<&Options>, between: &Options| {
        configured_run(arena, &seatings, made, Configures { before, between }, agent_seed)
    };
    let unchanged = match run(options, None, options) {
        Ok(p) => p,
        Err(e) => return Line::fail(CHECK, format!("with its own options: {e}")),
    };
    let mut tried = Vec::new();
    for other in candidates.iter().take(CONFIGURE_TRIES) {
        let what = changes(options, other);
        // Options the bot refuses in combination tell nothing about configure.
        match new_agent(arena, other, agent_seed) {
            Err(e) if is_crash(&e) => {
                return Line::fail(CHECK, format!("made with {what}: {}", failure(&e)))
            }
            Err(e) => {
                tried.push(format!("{what} (refused: {})", failure(&e)));
                continue;
            }
            Ok(_) => {}
        }
        let made = match run(other, None, other) {
            Ok(p) => p,
            Err(e) => return Line::fail(CHECK, format!("made with {what}: {e}")),
        };
        if moves(&made) == moves(&unchanged) {
            tried.push(what);
            continue;
        }
        let between = match run(options, None, other) {
            Ok(p) => p,
            Err(e) => return Line::fail(CHECK, e),
        };
        if moves(&between[1..]) != moves(&unchanged[1..]) {
            return Line::pass(
                CHECK,
                format!("configure to {what} between games changed its next {games} games"),
            );
        }
        let before = match run(options, Some(other), other) {
            Ok(p) => p,
            Err(e) => return Line::fail(CHECK, e),
        };
        if moves(&before) != moves(&unchanged) {
            return Line::pass(
                CHECK,
                format!("configure to {what} before its first game changed its play (between games, its next {games} games happened not to show it)"),
            );
        }
        return Line::fail(
            CHECK,
            format!("configure to {what} changed nothing, before its first game or between games, though a bot made with those options plays {} games of {} otherwise", 1 + games, game.name),
        );
    }
    Line::skip(
        CHECK,
        format!(
            "no option set tried changed the bot's play in {} games of {}: {}",
            1 + games,
            game.name,
            tried.join("; ")
        ),
    )
}

/// The decision times of the games against random players, against a limit if one is set.
pub(crate) fn latency(latency: Option<Latency>, max_p99: Option<Duration>) -> Line {
    let Some(latency) = latency else {
        return Line::skip("latency", "no decision was timed");
    };
    match max_p99 {
        Some(max) if latency.p99_ms > max.as_secs_f64() * 1e3 => Line::fail(
            "latency",
            format!("{latency}: p99 above the limit of {:.3} ms", max.as_secs_f64() * 1e3),
        ),
        _ => Line::pass("latency", latency.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_fit_legal_entries_and_their_amount_ranges() {
        let legal =
            [json!({"act": "drop"}), json!({"act": "open", "min": 1, "max": 36}), json!("pass")];
        assert!(fits(&json!("pass"), &legal));
        assert!(fits(&json!({"act": "drop"}), &legal));
        assert!(fits(&json!({"act": "open", "amount": 36}), &legal));
        assert!(!fits(&json!({"act": "open", "amount": 37}), &legal));
        assert!(!fits(&json!({"act": "raise", "amount": 3}), &legal));
        assert!(!fits(&json!("lizard"), &legal));
    }

    #[test]
    fn configure_candidates_are_presets_then_one_step_and_never_the_current_set() {
        // Read from JSON as a manifest is, so the test keeps up with new fields.
        let bot: BotInfo = serde_json::from_value(json!({
            "name": "b",
            "description": "",
            "options": [{"name": "reading", "type": "int", "min": 0, "max": 2, "default": 0, "description": ""}],
            "presets": [
                {"name": "plain", "description": "", "options": {}},
                {"name": "reader", "description": "", "options": {"reading": 1}},
            ],
        }))
        .unwrap();
        let current = Options::from([("reading".to_string(), json!(0))]);
        let sets = other_options(&bot, &current);
        assert_eq!(sets, vec![Options::from([("reading".to_string(), json!(1))])]);
        assert_eq!(changes(&current, &sets[0]), "reading=1");
    }
}
