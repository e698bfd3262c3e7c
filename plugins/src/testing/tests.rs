//! The check on a small plugin of its own: a sound bot passes every check, and a bot that ignores
//! `configure` or its seed fails that check only.

use rand::Rng as _;
use serde_json::{json, Value};
use yomi_protocol::{
    ActReply, ActRequest, Decision, ErrorCode, ErrorInfo, GameOutcome, OptionSpec, Options,
};

use super::{check_plugin, Config, Status};
use crate::api::{opt, Agent, Game};
use crate::declare::{BotEntry, Declaration, GameEntry};
use crate::rng::{seeded, Rng};

/// Three rounds, one seat at a time: each says `a` or `b`; every `b` is a point.
struct Letters {
    seats: usize,
    said: Vec<(usize, String)>,
}

impl Game for Letters {
    fn decisions(&self) -> Vec<Decision> {
        if self.said.len() == 3 * self.seats {
            return vec![];
        }
        let seat = self.said.len() % self.seats;
        vec![Decision {
            seat,
            observation: json!({"said": self.said.len()}),
            legal: vec![json!("a"), json!("b")],
        }]
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        let [(seat, Value::String(letter))] = actions else {
            return Err(ErrorInfo::new(
                ErrorCode::IllegalAction,
                format!("not a letter: {actions:?}"),
            ));
        };
        if letter != "a" && letter != "b" {
            return Err(ErrorInfo::new(
                ErrorCode::IllegalAction,
                format!("seat {seat}: `{letter}` is no letter"),
            ));
        }
        self.said.push((*seat, letter.clone()));
        Ok(json!({"seat": seat, "said": letter}))
    }

    fn outcome(&self) -> Option<GameOutcome> {
        let points =
            |s: usize| self.said.iter().filter(|(t, l)| *t == s && l == "b").count() as f64;
        (self.said.len() == 3 * self.seats).then(|| GameOutcome {
            scores: (0..self.seats).map(points).collect(),
            summary: Value::Null,
        })
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Sound,
    Stubborn,
    Unseeded,
}

/// Says `b` with probability `lean`, from its seed.
struct Leaner {
    kind: Kind,
    lean: f64,
    rng: Rng,
}

impl Agent for Leaner {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        if !request.observation.is_object() {
            return Err(ErrorInfo::new(ErrorCode::InvalidParams, "the observation is an object"));
        }
        if self.kind == Kind::Unseeded {
            self.rng = seeded(rand::random());
        }
        let b = self.rng.gen::<f64>() < self.lean;
        Ok(ActReply::new(json!(if b { "b" } else { "a" })))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        if self.kind != Kind::Stubborn {
            self.lean = opt::f64(options, "lean")?;
        }
        Ok(())
    }
}

fn plugin() -> Declaration {
    let bot = |name: &str, kind: Kind| {
        BotEntry::new(name, "", move |options, ctx| {
            Ok(Leaner { kind, lean: opt::f64(options, "lean")?, rng: seeded(ctx.seed) })
        })
        .games(&["letters"])
        .options(vec![OptionSpec::float(
            "lean",
            0.5,
            Some(0.0),
            Some(1.0),
            "how often it says b",
        )])
    };
    let seats = OptionSpec::int("seats", 1, Some(1), Some(3), "players");
    Declaration::new("letters", "0", "")
        .game(
            GameEntry::new("letters", "", 1..=3, |options, _| {
                Ok(Letters { seats: opt::i64(options, "seats")? as usize, said: vec![] })
            })
            .options(vec![seats]),
        )
        .bots([
            bot("sound", Kind::Sound),
            bot("stubborn", Kind::Stubborn),
            bot("unseeded", Kind::Unseeded),
        ])
}

fn failed(report: &super::Report) -> Vec<&str> {
    report.checks.iter().filter(|l| l.status == Status::Fail).map(|l| l.check).collect()
}

#[test]
fn a_sound_bot_passes_and_each_flaw_fails_its_own_check() {
    // Enough games that the unseeded bot's two runs cannot agree by chance.
    let reports = check_plugin(&plugin(), &Config { games: 6, ..Config::default() });
    let [sound, stubborn, unseeded] = &reports[..] else { panic!("three bots") };
    assert!(sound.passed, "{sound}");
    assert!(sound.checks.iter().all(|l| l.status == Status::Pass), "{sound}");
    // One seat and three seats (the `seats` option), the bot in each: 4 seatings of 6 games.
    assert!(sound.line("legal play").unwrap().detail.starts_with("24 games"), "{sound}");
    assert_eq!(sound.latency.unwrap().decisions, 24 * 3, "{sound}");
    assert_eq!(failed(stubborn), ["configure"], "{stubborn}");
    assert_eq!(failed(unseeded), ["deterministic"], "{unseeded}");
    let text = stubborn.to_string();
    assert!(text.starts_with("letters/stubborn: FAIL"), "{text}");
    assert!(
        text.contains("FAIL  configure        configure to lean=0.75 changed nothing"),
        "{text}"
    );
}
