//! Playing the check's games: where the bot sits, the random players in the other seats, and one
//! game refereed by [`referee::play`] with the bot's actions and decision times recorded.

use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng as _;
use serde_json::Value;
use yomi_protocol::options::resolve;
use yomi_protocol::{
    ActReply, ActRequest, Decision, ErrorCode, ErrorInfo, GameInfo, OptionKind, Options,
};

use super::{failure, guarded, is_crash, Arena};
use crate::api::Agent;
use crate::call::GameOver;
use crate::referee;
use crate::rng::{derive_seed, seeded, Rng};

/// Decisions after which a game that has not ended is reported as endless.
const MAX_DECISIONS: usize = 100_000;

/// One game of a check: which game with how many seats, the bot's seat, and the seed every other
/// seed of the game derives from.
#[derive(Debug, Clone)]
pub(crate) struct Seating {
    pub game: String,
    pub options: Options,
    pub seats: usize,
    pub seat: usize,
    pub seed: u64,
}

impl Seating {
    /// Where a problem happened, for people: `rps, 2 seats, bot in seat 1, seed 42`.
    pub fn label(&self) -> String {
        format!(
            "{}, {} seats, bot in seat {}, seed {}",
            self.game, self.seats, self.seat, self.seed
        )
    }

    /// The seed of the bot's agent for this game.
    pub fn bot_seed(&self) -> u64 {
        derive_seed(self.seed, 0)
    }

    /// The seed of the game's own chance.
    pub fn game_seed(&self) -> u64 {
        derive_seed(self.seed, 1)
    }
}

/// The game's option that sets its number of seats, if it has one: an int option ranging over
/// exactly the game's seat counts whose default is its fewest (sevens' `players`, sugoroku's
/// `seats`). Other games are played at their fewest seats only.
fn seat_option(info: &GameInfo) -> Option<&str> {
    info.options.iter().find_map(|spec| match spec.kind {
        OptionKind::Int { min: Some(min), max: Some(max) }
            if min == info.min_seats as i64
                && max == info.max_seats as i64
                && spec.default.as_i64() == Some(min) =>
        {
            Some(spec.name.as_str())
        }
        _ => None,
    })
}

/// The games' default options, and the seat counts to play with each: the fewest, and the most
/// too where an option sets the count.
fn seat_counts(info: &GameInfo) -> Result<Vec<(usize, Options)>, ErrorInfo> {
    let defaults = resolve(&info.options, &info.presets, None, &Options::new())?;
    let mut counts = vec![(info.min_seats, defaults.clone())];
    if let Some(name) = seat_option(info).filter(|_| info.max_seats > info.min_seats) {
        let mut most = defaults;
        most.insert(name.to_string(), Value::from(info.max_seats));
        counts.push((info.max_seats, most));
    }
    Ok(counts)
}

/// Every game the check plays: for each game, each seat count, the bot in each seat, `games`
/// games there, each with its own seed derived from `seed`.
pub(crate) fn schedule(
    games: &[GameInfo],
    per_seat: usize,
    seed: u64,
) -> Result<Vec<Seating>, ErrorInfo> {
    let mut seatings = Vec::new();
    for info in games {
        for (seats, options) in seat_counts(info)? {
            for seat in 0..seats {
                for _ in 0..per_seat {
                    seatings.push(Seating {
                        game: info.name.clone(),
                        options: options.clone(),
                        seats,
                        seat,
                        seed: derive_seed(seed, seatings.len() as u64),
                    });
                }
            }
        }
    }
    Ok(seatings)
}

/// `count` games of `info` at its fewest seats, the bot moving round the seats: for the checks
/// that play one agent through several games.
pub(crate) fn series(info: &GameInfo, count: usize, seed: u64) -> Result<Vec<Seating>, ErrorInfo> {
    let (seats, options) = seat_counts(info)?.swap_remove(0);
    Ok((0..count)
        .map(|i| Seating {
            game: info.name.clone(),
            options: options.clone(),
            seats,
            seat: i % seats,
            seed: derive_seed(seed, i as u64),
        })
        .collect())
}

/// What the bot did in one game.
#[derive(Debug, Clone, Default)]
pub(crate) struct Played {
    /// The bot's actions, in order.
    pub actions: Vec<Value>,
    /// How long each of its decisions took.
    pub times: Vec<Duration>,
    /// Why the game stopped early, if it did.
    pub failure: Option<String>,
}

impl Played {
    /// The actions and the failure, without the times: what two runs of a seeded game must share.
    pub fn moves(&self) -> (&[Value], Option<&str>) {
        (&self.actions, self.failure.as_deref())
    }
}

/// A player that picks uniformly among the legal actions, with its own seeded stream.
pub(crate) struct RandomPlayer {
    rng: Rng,
    decisions: usize,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: seeded(seed), decisions: 0 }
    }

    /// One of `legal`: an entry with an amount range (`{"act": "open", "min": 1, "max": 36}`) is
    /// played as one amount in it (`{"act": "open", "amount": 17}`), the form the games with free
    /// amounts take (see each game's README); any other entry as it is.
    pub fn choose(&mut self, legal: &[Value]) -> Option<Value> {
        let entry = legal.choose(&mut self.rng)?;
        let Value::Object(fields) = entry else { return Some(entry.clone()) };
        let range =
            (fields.get("min").and_then(Value::as_i64), fields.get("max").and_then(Value::as_i64));
        match range {
            (Some(min), Some(max)) if min <= max && !fields.contains_key("amount") => {
                let mut action = fields.clone();
                action.remove("min");
                action.remove("max");
                action.insert("amount".into(), Value::from(self.rng.gen_range(min..=max)));
                Some(Value::Object(action))
            }
            _ => Some(entry.clone()),
        }
    }
}

impl Agent for RandomPlayer {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        self.decisions += 1;
        if self.decisions > MAX_DECISIONS {
            return Err(ErrorInfo::new(
                ErrorCode::Internal,
                format!("the game did not end after {MAX_DECISIONS} decisions of one seat"),
            ));
        }
        let action = self.choose(&request.legal).ok_or_else(|| {
            ErrorInfo::new(ErrorCode::Internal, "the game offered a random player no legal action")
        })?;
        Ok(ActReply::new(action))
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }
}

/// The bot in its seat, as the referee sees it: every call guarded against panics, its actions
/// and decision times written down, and the first thing it did wrong kept in words.
struct Recorder<'a> {
    agent: &'a mut dyn Agent,
    played: &'a mut Played,
}

impl Recorder<'_> {
    /// Keeps the first fault of the bot, and passes the error on to stop the game.
    fn fault(&mut self, what: &str, e: ErrorInfo) -> ErrorInfo {
        if self.played.failure.is_none() {
            let decision = self.played.actions.len();
            self.played.failure = Some(format!("decision {decision}: {what} {}", failure(&e)));
        }
        e
    }
}

impl Agent for Recorder<'_> {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        if self.played.actions.len() == MAX_DECISIONS {
            let e = ErrorInfo::new(ErrorCode::Internal, "it was asked to act too often");
            return Err(
                self.fault(&format!("the game did not end after {MAX_DECISIONS} decisions:"), e)
            );
        }
        let started = Instant::now();
        let reply = guarded(|| self.agent.act(request));
        self.played.times.push(started.elapsed());
        let reply = reply.map_err(|e| self.fault("the bot answered", e))?;
        self.played.actions.push(reply.action.clone());
        Ok(reply)
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        guarded(|| self.agent.observe(event))
            .map_err(|e| self.fault("the bot could not take the event:", e))
    }

    /// The host logs a failure here and goes on; only a crash is a fault.
    fn game_over(&mut self, over: &GameOver) -> Result<(), ErrorInfo> {
        match guarded(|| self.agent.game_over(over)) {
            Err(e) if is_crash(&e) => Err(self.fault("the bot crashed on game_over:", e)),
            _ => Ok(()),
        }
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.agent.configure(options)
    }
}

/// Plays one game with `agent` in the bot's seat and random players in the others, refereed by
/// [`referee::play`](crate::referee::play). The game stops at the first thing that is not as it
/// should be; [`Played::failure`] says what.
pub(crate) fn play(arena: &dyn Arena, seating: &Seating, agent: &mut dyn Agent) -> Played {
    let mut played = Played::default();
    let outcome = play_into(arena, seating, agent, &mut played);
    if let Err(why) = outcome {
        let why = played.failure.take().unwrap_or(why);
        played.failure = Some(format!("{why} ({})", seating.label()));
    }
    played
}

fn play_into(
    arena: &dyn Arena,
    seating: &Seating,
    agent: &mut dyn Agent,
    played: &mut Played,
) -> Result<(), String> {
    let mut game = guarded(|| arena.new_game(&seating.game, &seating.options, seating.game_seed()))
        .map_err(|e| format!("the game could not start: {}", failure(&e)))?;
    let mut others: Vec<RandomPlayer> = (1..seating.seats)
        .map(|s| RandomPlayer::new(derive_seed(seating.seed, 1 + s as u64)))
        .collect();
    let mut bot = Recorder { agent: &mut *agent, played: &mut *played };
    let mut seats: Vec<&mut dyn Agent> = others.iter_mut().map(|r| r as &mut dyn Agent).collect();
    seats.insert(seating.seat, &mut bot);
    let result = guarded(|| referee::play(game.as_mut(), &mut seats));
    let actions = played.actions.len();
    let result = result.map_err(|e| match e.code {
        ErrorCode::IllegalAction => format!(
            "decision {}: the game refused the bot's action {}: {}",
            actions.saturating_sub(1),
            played.actions.last().unwrap_or(&Value::Null),
            e.message
        ),
        _ => format!("the game failed: {}", failure(&e)),
    })?;
    if result.outcome.scores.len() != seating.seats {
        return Err(format!(
            "the game scored {} seats of {}",
            result.outcome.scores.len(),
            seating.seats
        ));
    }
    Ok(())
}

/// The first decision of a fresh game of `seating`, for calls made outside a game.
pub(crate) fn first_decision(arena: &dyn Arena, seating: &Seating) -> Result<Decision, String> {
    let game = guarded(|| arena.new_game(&seating.game, &seating.options, seating.game_seed()))
        .map_err(|e| format!("the game could not start: {}", failure(&e)))?;
    let decisions: Vec<Decision> = guarded(|| Ok(game.decisions()))
        .map_err(|e| format!("the game failed: {}", failure(&e)))?;
    decisions.into_iter().next().ok_or_else(|| format!("{} asks nobody to act", seating.game))
}

/// Plays `seatings` in order with one agent, as a match would.
pub(crate) fn play_all(
    arena: &dyn Arena,
    seatings: &[Seating],
    agent: &mut dyn Agent,
) -> Vec<Played> {
    seatings.iter().map(|s| play(arena, s, agent)).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn game(min: usize, max: usize, options: Value) -> GameInfo {
        serde_json::from_value(json!({
            "name": "g", "description": "", "min_seats": min, "max_seats": max, "simultaneous": false,
            "options": options,
        }))
        .unwrap()
    }

    #[test]
    fn the_bot_sits_in_every_seat_at_the_fewest_and_where_an_option_says_the_most_seats() {
        let fixed = game(2, 2, json!([]));
        let seatings = schedule(&[fixed], 3, 9).unwrap();
        let seats: Vec<(usize, usize)> = seatings.iter().map(|s| (s.seats, s.seat)).collect();
        assert_eq!(seats, [(2, 0), (2, 0), (2, 0), (2, 1), (2, 1), (2, 1)]);
        let seeds: std::collections::BTreeSet<u64> = seatings.iter().map(|s| s.seed).collect();
        assert_eq!(seeds.len(), 6, "every game its own seed");

        let players = json!([{"name": "players", "type": "int", "min": 3, "max": 6, "default": 3, "description": ""}]);
        let seatings = schedule(&[game(3, 6, players)], 1, 9).unwrap();
        assert_eq!(seatings.len(), 3 + 6);
        assert!(seatings[..3].iter().all(|s| s.options["players"] == 3 && s.seats == 3));
        assert!(seatings[3..].iter().all(|s| s.options["players"] == 6 && s.seats == 6));

        let unrelated = json!([{"name": "rounds", "type": "int", "min": 1, "max": 9, "default": 3, "description": ""}]);
        assert_eq!(schedule(&[game(3, 6, unrelated)], 1, 9).unwrap().len(), 3, "fewest only");
    }

    #[test]
    fn random_players_play_legal_entries_and_amounts_inside_ranges() {
        let legal =
            [json!({"act": "drop"}), json!({"act": "open", "min": 2, "max": 5}), json!("pass")];
        let mut player = RandomPlayer::new(3);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let action = player.choose(&legal).unwrap();
            match action.get("amount").and_then(Value::as_i64) {
                Some(amount) => {
                    assert!((2..=5).contains(&amount), "{action}");
                    assert_eq!(action, json!({"act": "open", "amount": amount}));
                }
                None => assert!(legal.contains(&action), "{action}"),
            }
            seen.insert(action.to_string());
        }
        assert_eq!(seen.len(), 2 + 4, "every entry and every amount comes up");
        assert_eq!(player.choose(&[]), None);
        let again: Vec<Value> =
            (0..5).map(|_| RandomPlayer::new(3).choose(&legal).unwrap()).collect();
        assert!(again.windows(2).all(|w| w[0] == w[1]), "seeded");
    }
}
